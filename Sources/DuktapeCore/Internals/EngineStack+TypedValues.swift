import CDuktape

/// Typed Swift values on the stack, for the typed conveniences (`call(_:returning:)`, the typed
/// subscripts). `@inlinable`: specialized in the caller's module for the caller's own types, a
/// `Double` is pushed and read as a double, with no `Any`, no `JSValue` and no dynamic cast.
extension EngineStack {
    /// [..] -> [.. value]: the exact types of `exactValue` directly, anything else by its
    /// `jsValue(in:)` (`HostResult.result`, as for a typed closure's result).
    @inlinable @inline(__always)
    func push<T: JSValueConvertible>(typed value: T) throws(JSException) {
        // Numbers first, by metatype: no `HostResult` between (a parameter pack's elements are
        // iterated at run time, where building and consuming the enum cost a third of a call).
        if T.self == Double.self { return try pushNumber(_identityCast(value, to: Double.self)) }
        if T.self == Int.self { return try pushNumber(Double(_identityCast(value, to: Int.self))) }
        try push(hostResult(value))
    }

    /// `push(typed:)` into a slot the caller reserved: a number is pushed without reserving
    /// again (the fixed-arity typed calls: the entry's reservation covers their arguments).
    @inlinable @inline(__always)
    func push<T: JSValueConvertible>(reservedTyped value: T) throws(JSException) {
        if T.self == Double.self { return pushReservedNumber(_identityCast(value, to: Double.self)) }
        if T.self == Int.self { return pushReservedNumber(Double(_identityCast(value, to: Int.self))) }
        try push(hostResult(value))
    }

    /// `HostResult.result`, with a conversion's Swift error (a `Codable` type's
    /// `EncodingError`) as the exception a callback throwing it would raise.
    @inlinable @inline(__always)
    func hostResult<T: JSValueConvertible>(_ value: T) throws(JSException) -> HostResult {
        do {
            return try HostResult.result(value, in: context)
        } catch {
            throw exception(for: error)
        }
    }

    /// The exception for a Swift error: itself when it is one, else a JavaScript `Error`
    /// carrying it (it comes back out of the throwing API as the same Swift error).
    @usableFromInline
    func exception(for error: any Error) -> JSException {
        if let exception = error as? JSException { return exception }
        guard let value = try? context.makeSwiftError(error) else { return makeError(.error, String(describing: error)) }
        return JSException(value)
    }

    /// [..] -> [.. number], into a slot the caller reserved.
    @usableFromInline
    func pushReservedNumber(_ number: Double) {
        duk_push_number(ctx, number)
    }

    /// [..] -> [.. number]
    @usableFromInline
    func pushNumber(_ number: Double) throws(JSException) {
        try reserve(1)
        pushReservedNumber(number)
    }

    /// The value at `index` by `T.fromJSValue`'s strict rule (nil when it does not convert): by
    /// `T._exactValue(at:)` when the value is exactly of `T`'s kind, read from the stack with no
    /// JSValue, else by `fromJSValue` on a JSValue, with the same answers.
    /// Always inlined, so that the exact read is a few instructions in the caller's frame; the
    /// general path is a call of its own.
    @inlinable @inline(__always)
    func typedValue<T: JSValueConvertible>(at index: Int32, as type: T.Type) throws(JSException) -> T? {
        if let exact = T._exactValue(at: _JSStackSlot(stack: self, index: index)) { return exact }
        return try generalTypedValue(at: index, as: T.self)
    }

    /// `typedValue(at:as:)`'s general path: `fromJSValue` on a JSValue of the value.
    @inlinable @inline(never)
    func generalTypedValue<T: JSValueConvertible>(at index: Int32, as type: T.Type) throws(JSException) -> T? {
        T.fromJSValue(try value(at: index))
    }

    /// `typedValue(at:as:)`, or a TypeError naming both kinds ("expected Double, got a string").
    @inlinable
    func converted<T: JSValueConvertible>(at index: Int32, as type: T.Type) throws(JSException) -> T {
        if let value = try typedValue(at: index, as: T.self) { return value }
        throw mismatch(at: index, expected: T.self)
    }

    /// The TypeError for a value at `index` that does not convert to `expected`.
    @usableFromInline
    func mismatch(at index: Int32, expected: Any.Type) -> JSException {
        let found = try? value(at: index)
        if let codable = expected as? any JSValueCodable.Type, let found {
            // The decoder's own account names the field: "expected Point: y: Expected to decode…".
            do {
                _ = try codable.fromJSArgument(found)
            } catch let error as JSException {
                return error
            } catch {
                return makeError(.typeError, "expected \(expected): \(error)")
            }
        }
        return makeError(.typeError, "expected \(expected), got \(found?.typeDescription ?? "a value that cannot be kept")")
    }
}
