import CDuktape
import Foundation

/// A Swift object attached to a JS object (a closure, an exported object, a Swift error).
///
/// Ownership, in one place: `attach(to:)` retains the box once (`Unmanaged.passRetained`) and
/// hands the pointer to the engine; the JS object's finalizer (run when it is collected, and at
/// heap destruction) calls `releaseBox`, which lets the box clean up and balances that retain.
/// The finalizer clears the pointer first, so the release happens exactly once.
class EngineBox {
    /// Called by the finalizer just before the engine's reference is released.
    func willRelease() {}

    /// What the JS object converts back to in Swift, for boxes that stand for a Swift object
    /// (an exported object, an exported class's constructor); nil for the others.
    var exportedObject: Any? { nil }

    /// [obj] -> [obj]: attaches this box to the object on top of the stack.
    func attach(on stack: EngineStack) throws(JSException) {
        let pointer = Unmanaged.passRetained(self).toOpaque()
        let status = cduk_pattach_box(stack.ctx, pointer)
        if status != DUK_EXEC_SUCCESS {
            Unmanaged<EngineBox>.fromOpaque(pointer).release()
        }
        try stack.check(status)
    }

    /// The box attached to the value at `index`, if any.
    static func attached(to index: Int32, on stack: EngineStack) -> EngineBox? {
        guard duk_is_object(stack.ctx, index) != 0, duk_check_stack(stack.ctx, 2) != 0 else { return nil }
        duk_dup(stack.ctx, index)
        var pointer: UnsafeMutableRawPointer?
        guard cduk_pget_box(stack.ctx, &pointer) == DUK_EXEC_SUCCESS else {
            duk_pop(stack.ctx)
            return nil
        }
        return pointer.map { Unmanaged<EngineBox>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Installs the engine's entry points into Swift (once per process).
    static let installCallbacks: Void = {
        cduk_set_box_callbacks(
            { pointer in
                guard let pointer else { return }
                let box = Unmanaged<EngineBox>.fromOpaque(pointer)
                box.takeUnretainedValue().willRelease()
                box.release()
            },
            { ctx, pointer, isConstruct in
                guard let ctx, let pointer,
                    let function = Unmanaged<EngineBox>.fromOpaque(pointer).takeUnretainedValue() as? HostFunction
                else { return 0 }
                return function.invoke(ctx: ctx, isConstruct: isConstruct != 0)
            },
            { owner, object in
                guard let owner, let object else { return }
                Unmanaged<JSVirtualMachine>.fromOpaque(owner).takeUnretainedValue().objectFinalized(object)
            })
    }()
}

/// A Swift error thrown by a callback, travelling through JavaScript inside the `Error` made for
/// it, so that it comes out of the throwing API as the same Swift error.
final class SwiftErrorBox: EngineBox {
    let error: any Error

    init(_ error: any Error) {
        self.error = error
    }
}

/// What a host function's body receives.
struct HostCall {
    let stack: EngineStack
    let frame: CallbackFrame

    var context: JSContext { stack.context }
    var this: JSValue? { frame.this }
    var arguments: [JSValue] { frame.arguments }
    var isConstruct: Bool { frame.isConstruct }

    /// The exported Swift object behind `this`, read without pinning `this`.
    var exportedReceiver: Any? {
        guard duk_check_stack(stack.ctx, 2) != 0 else { return nil }
        duk_push_this(stack.ctx)
        defer { duk_pop(stack.ctx) }
        return stack.exportedObject(at: -1)
    }

    /// Argument `index`, or undefined when the caller passed fewer.
    func argument(_ index: Int) -> JSValue {
        frame.argument(index)
    }
}

/// An argument that does not convert to the declared Swift type.
struct ArgumentMismatch: Error, CustomStringConvertible {
    let description: String
}

/// A Swift closure exposed as a JavaScript function.
class HostFunction: EngineBox {
    /// The VM outlives every box: boxes are released by finalizers, at the latest when the heap
    /// is destroyed in the VM's deinit.
    unowned(unsafe) let vm: JSVirtualMachine
    /// The context the function was made in, used when a call arrives on a thread that is not a
    /// context's (a Duktape coroutine). Weak: the function must not keep its context alive.
    weak var creator: JSContext?
    let body: (HostCall) throws -> Any?

    init(context: JSContext, body: @escaping (HostCall) throws -> Any?) {
        self.vm = context.vm
        self.creator = context
        self.body = body
    }

    /// Pushes a new JS function for this box: [] -> [function].
    func push(on stack: EngineStack, name: String?, length: Int) throws(JSException) {
        let status: duk_int_t
        if let name {
            status = name.withCString { cduk_ppush_host_function(stack.ctx, $0, Int32(clamping: length)) }
        } else {
            status = cduk_ppush_host_function(stack.ctx, nil, Int32(clamping: length))
        }
        try stack.check(status)
        try attach(on: stack)
    }

    /// Runs the body for a call arriving from JavaScript (the VM lock is held: scripts only run
    /// inside API calls). Returns the trampoline status with the result or the value to throw
    /// on top. Uses only non-throwing engine calls and protected shims.
    func invoke(ctx: OpaquePointer, isConstruct: Bool) -> duk_int_t {
        let creator = self.creator
        guard let context = creator?.ctx == ctx ? creator : (vm.context(forThread: ctx) ?? creator) else {
            return 0
        }
        let stack = EngineStack(ctx: ctx, context: context)
        let argumentCount = duk_get_top(ctx)
        do throws(JSException) {
            try stack.reserve(4)
            let frame = CallbackFrame(context: context, ctx: ctx, isConstruct: isConstruct, argumentCount: argumentCount)
            let result = frame.run { try body(HostCall(stack: stack, frame: frame)) }
            if case .throwValue(let value) = result {
                try stack.push(value)
                return CDUK_HOST_THROW
            }
            guard case .returned(let value) = result else { return 0 }
            try stack.push(any: value)  // exact-type fast paths, JSValue included
            if isConstruct, duk_is_object(ctx, -1) == 0 {
                duk_pop(ctx)
                throw stack.makeError("TypeError", "Swift closures called as constructors must return an object")
            }
            return 1
        } catch {
            // A conversion or engine failure: throw its JavaScript value.
            duk_set_top(ctx, argumentCount)
            if (try? stack.push(error.value)) != nil { return CDUK_HOST_THROW }
            return 0
        }
    }
}

extension CallbackFrame {
    enum Outcome {
        case returned(Any?)
        case throwValue(JSValue)
    }

    /// Runs a callback body as JavaScriptCore does: this frame is the thread's current one,
    /// `context.exception` is saved and cleared before and restored after; an exception left in
    /// it, or a Swift error thrown by the body, is thrown into JavaScript.
    func run(_ body: () throws -> Any?) -> Outcome {
        let retained = Unmanaged.passRetained(self)
        cduk_set_current_frame(retained.toOpaque())
        // Callbacks run inside engine calls, which hold the VM lock.
        let saved = context.swapExceptionLocked(nil)
        var outcome: Outcome
        do {
            outcome = .returned(try body())
        } catch let exception as JSException {
            outcome = .throwValue(exception.value)
        } catch {
            let value = try? context.makeSwiftError(error)
            outcome = .throwValue(value ?? JSValue(context: context, storage: .undefined))
        }
        if let pending = context.swapExceptionLocked(saved) {
            outcome = .throwValue(JSValue(context: context, storage: pending))
        }
        cduk_set_current_frame(previous)
        retained.release()
        return outcome
    }
}

extension JSContext {
    /// A JS `Error` carrying a Swift error: its message is the error's description, and it comes
    /// back out of the throwing API as the same Swift error.
    func makeSwiftError(_ error: any Error) throws(JSException) -> JSValue {
        let message = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
        return try withStack { stack throws(JSException) in
            try stack.pushString(message)
            try stack.check(cduk_pbuiltin(stack.ctx, error is ArgumentMismatch ? "TypeError" : "Error", 1, 1))
            if !(error is ArgumentMismatch) {
                try SwiftErrorBox(error).attach(on: stack)
            }
            return try stack.value(at: -1)
        }
    }
}
