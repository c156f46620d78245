/// Reads a call's arguments in order, each by its declared type's rule.
@usableFromInline
struct ArgumentReader {
    @usableFromInline let call: HostCall
    @usableFromInline var index = 0

    @inlinable
    init(call: HostCall) {
        self.call = call
    }

    /// The next argument as `T`, by `T._fromJSArgument` (the standard scalars read straight
    /// from the call's frame when the argument is exactly of their kind; everything else by
    /// `fromJSArgument`, with the same results).
    @inlinable @inline(__always)
    mutating func next<T: JSValueConvertible>(_ type: T.Type) throws -> T {
        defer { index += 1 }
        return try T._fromJSArgument(_JSArgument(call: call, index: index))
    }
}
