/// Typed Swift values on the stack, for the typed conveniences (`call(_:returning:)`, the typed
/// subscripts). `@inlinable`: specialized in the caller's module for the caller's own types, a
/// `Double` is pushed and read as a double, with no `Any`, no `JSValue` and no dynamic cast.
extension EngineStack {
    /// [..] -> [.. value]: the exact types of `exactValue` directly, anything else by its
    /// `jsValue(in:)` (`HostResult.result`, as for a typed closure's result).
    @inlinable @inline(__always)
    func push<T: JSValueConvertible>(typed value: T) throws(JSException) {
        try push(HostResult.result(value, in: context))
    }

    /// The value at `index` by `T.fromJSValue`'s strict rule (nil when it does not convert).
    /// The fast path reads a number for `Double` and `Int`, a boolean for `Bool` and a string for
    /// `String` straight from the stack; every other case, including a value of the wrong kind,
    /// takes `fromJSValue` on a `JSValue`, so both give the same answers.
    @inlinable
    func typedValue<T: JSValueConvertible>(at index: Int32, as type: T.Type) throws(JSException) -> T? {
        if T.self == Double.self, let number = number(at: index) {
            return _identityCast(number, to: T.self)
        }
        if T.self == Int.self, let number = number(at: index) {
            return Int(exactly: number).map { _identityCast($0, to: T.self) }
        }
        if T.self == Bool.self, let flag = boolean(at: index) {
            return _identityCast(flag, to: T.self)
        }
        if T.self == String.self, let string = stringIfString(at: index) {
            return _identityCast(string, to: T.self)
        }
        return T.fromJSValue(try value(at: index))
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
        let found = (try? value(at: index))?.typeDescription ?? "a value that cannot be kept"
        return makeError(.typeError, "expected \(expected), got \(found)")
    }
}
