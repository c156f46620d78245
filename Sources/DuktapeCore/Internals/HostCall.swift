import CDuktape

/// What a host function's body receives: one call from JavaScript, alive while the body runs.
///
/// `@usableFromInline` (with the readers below) so that the typed-closure initializers can be
/// `@inlinable`: specialized in the caller's module for the closure's own parameter and result
/// types, a call reads `(Double, Double) -> Double` without generic metadata or existentials.
@usableFromInline
struct HostCall {
    @usableFromInline let stack: EngineStack
    /// The call's frame, on the stack of `HostFunction.invoke` for as long as the body runs.
    let frame: UnsafeMutablePointer<CallbackFrame>
    /// How many arguments the call has (the frame's count, kept here so that a specialized
    /// closure reads it without a call into this module).
    @usableFromInline let argumentCount: Int

    init(stack: EngineStack, frame: UnsafeMutablePointer<CallbackFrame>) {
        self.stack = stack
        self.frame = frame
        self.argumentCount = Int(frame.pointee.argumentCount)
    }

    @usableFromInline var context: JSContext { stack.context }
    /// `this`, made for the caller (not kept in the frame): nil for `new`.
    func makeThis() -> JSValue? { frame.pointee.makeThis() }
    /// The arguments, made for the caller (not kept in the frame).
    func makeArguments() -> [JSValue] { frame.pointee.makeArguments() }
    var isConstruct: Bool { frame.pointee.isConstruct }

    /// The exported Swift object or class behind `this`, read without pinning `this`.
    var exportedReceiver: Any? {
        readReceiverBox(\.exportedObject)
    }

    /// The exported Swift object (not class) behind `this`, unretained: for instance members,
    /// whose cast to the class is then a class cast, much cheaper than a cast from `Any`. Valid
    /// for the call: `this` holds the wrapper, whose box holds the object.
    @usableFromInline var receiverReference: Unmanaged<AnyObject>? {
        readReceiverBox(\.exportedInstanceReference)
    }

    /// Reads the box of `this`, not retained for the read: `this` holds it for the length of
    /// the call.
    private func readReceiverBox<R>(_ read: (EngineBox) -> R?) -> R? {
        cduk_this_box(stack.ctx).flatMap { Unmanaged<EngineBox>.fromOpaque($0)._withUnsafeGuaranteedRef(read) }
    }

    /// Argument `index`, or undefined when the caller passed fewer.
    func argument(_ index: Int) -> JSValue {
        frame.pointee.argument(index)
    }

    /// Argument `index` converted by `T`'s `fromJSArgument` rule, the general path (missing
    /// arguments, coercions, every other type); a failure names the argument, and an exception
    /// the conversion's script threw is rethrown as it is.
    @usableFromInline func argument<T: JSValueConvertible>(_ index: Int, as type: T.Type) throws -> T {
        do {
            return try T.fromJSArgument(argument(index))
        } catch let exception as JSException {
            throw exception  // the script's own exception, from a conversion it ran
        } catch {
            throw ArgumentMismatch(description: "argument \(index + 1): \(error)")
        }
    }
}

/// An argument that does not convert to the declared Swift type.
@usableFromInline
struct ArgumentMismatch: Error, CustomStringConvertible {
    @usableFromInline let description: String

    @usableFromInline
    init(description: String) {
        self.description = description
    }
}
