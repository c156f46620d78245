/// Reads a call's arguments in order, each by its declared type's rule.
@usableFromInline
struct ArgumentReader {
    @usableFromInline let call: HostCall
    @usableFromInline var index = 0

    @inlinable
    init(call: HostCall) {
        self.call = call
    }

    /// The next argument as `T`. The fast path: a number for a `Double` or `Int` parameter, a
    /// boolean for `Bool`, a string for `String`, read straight from the call's frame without
    /// making a JSValue, and handed over by an identity cast. Anything else (missing arguments,
    /// coercions, other types) takes the general rule, with the same results.
    @inlinable @inline(__always)
    mutating func next<T: JSValueConvertible>(_ type: T.Type) throws -> T {
        defer { index += 1 }
        if T.self == Double.self, let number = call.number(at: index) {
            return _identityCast(number, to: T.self)
        }
        if T.self == Int.self, let number = call.number(at: index), let exact = Int(exactly: number) {
            return _identityCast(exact, to: T.self)
        }
        if T.self == Bool.self, let flag = call.boolean(at: index) {
            return _identityCast(flag, to: T.self)
        }
        if T.self == String.self, let string = call.string(at: index) {
            return _identityCast(string, to: T.self)
        }
        return try call.argument(index, as: T.self)
    }
}
