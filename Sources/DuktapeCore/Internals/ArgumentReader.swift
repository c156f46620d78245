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
        // A parameter pack's types are only known at run time: a metatype test reads the
        // commonest one inline, where the witness call costs about 40 instructions.
        if T.self == Double.self, index < call.argumentCount, let number = call.stack.number(at: Int32(index)) {
            return unsafeBitCast(number, to: T.self)
        }
        return try T._fromJSArgument(_JSArgument(call: call, index: index))
    }
}
