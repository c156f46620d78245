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

    /// The exported Swift instance (not class) this box retains; nil for the other boxes.
    var exportedInstance: AnyObject? { nil }

    /// Runs a call from JavaScript to the function this box is attached to (see
    /// `HostFunction`); other boxes are never called: the trampoline is only on host functions.
    func invoke(ctx: OpaquePointer, isConstruct: Bool) -> duk_int_t { 0 }

    /// [obj] -> [obj]: attaches this box to the object on top of the stack.
    func attach(on stack: EngineStack) throws(JSException) {
        let pointer = Unmanaged.passRetained(self).toOpaque()
        let status = cduk_pattach_box(stack.ctx, pointer)
        if status != DUK_EXEC_SUCCESS {
            Unmanaged<EngineBox>.fromOpaque(pointer).release()
        }
        try stack.check(status)
    }

    /// The box attached to the value at `index`, if any (never a Proxy's: boxes are own slots).
    static func attached(to index: Int32, on stack: EngineStack) -> EngineBox? {
        cduk_box_at(stack.ctx, index).map { Unmanaged<EngineBox>.fromOpaque($0).takeUnretainedValue() }
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
                // Not retained for the call: the function object being called owns the box and
                // cannot be collected while its call runs.
                guard let ctx, let pointer else { return 0 }
                return Unmanaged<EngineBox>.fromOpaque(pointer)._withUnsafeGuaranteedRef {
                    $0.invoke(ctx: ctx, isConstruct: isConstruct != 0)
                }
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

/// A Swift closure exposed as a JavaScript function.
class HostFunction: EngineBox {
    /// The VM outlives every box: boxes are released by finalizers, at the latest when the heap
    /// is destroyed in the VM's deinit.
    unowned(unsafe) let vm: JSVirtualMachine
    /// The Duktape thread of the context the function was made in, to find a context for a call
    /// that arrives on a thread that is no context's (a coroutine, a finalizer). Not a reference
    /// to the context: the function must not keep it alive, and a weak reference would give
    /// every context a side table, making each retain and release of it several times dearer.
    let creatorThread: OpaquePointer
    let body: (HostCall) throws -> HostResult

    init(context: JSContext, body: @escaping (HostCall) throws -> HostResult) {
        self.vm = context.vm
        self.creatorThread = context.ctx
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

    /// The context a call on `ctx` belongs to: the innermost running context's when the call is
    /// on its thread (the usual case, found without a lookup), else the context of that thread,
    /// else the context registered for the creator's thread (the creator, while it lives).
    private func context(for ctx: OpaquePointer) -> JSContext? {
        if let running = vm.runningContextReference?.takeUnretainedValue(), running.ctx == ctx { return running }
        return vm.context(forThread: ctx) ?? vm.context(forThread: creatorThread)
    }

    /// Runs the body for a call arriving from JavaScript (the VM lock is held: scripts only run
    /// inside API calls), as JavaScriptCore does: the call's frame is the thread's current one,
    /// and `context.exception` is saved and cleared before and restored after; an exception left
    /// in it, or a Swift error thrown by the body, is thrown into JavaScript.
    ///
    /// Returns the trampoline status with the result or the value to throw on top. Uses only
    /// non-throwing engine calls and protected shims.
    override func invoke(ctx: OpaquePointer, isConstruct: Bool) -> duk_int_t {
        guard let context = context(for: ctx) else { return 0 }
        let stack = EngineStack(ctx: ctx, context: context)
        let argumentCount = duk_get_top(ctx)
        // No room for a result or an error: undefined, without running the body (as a failed
        // `reserve` would end: its RangeError could not be pushed either).
        guard duk_check_stack(ctx, 4) != 0 else { return 0 }
        var frame = CallbackFrame(context: context, ctx: ctx, isConstruct: isConstruct, argumentCount: argumentCount)
        return withUnsafeMutablePointer(to: &frame) { frame in
            cduk_set_current_frame(frame)
            let saved = context.swapExceptionLocked(nil)
            let result: HostResult
            var thrown: JSValue?
            do {
                result = try body(HostCall(stack: stack, frame: frame))
            } catch let exception as JSException {
                result = .undefined
                thrown = exception.value
            } catch {
                result = .undefined
                thrown = (try? context.makeSwiftError(error)) ?? JSValue(context: context, storage: .undefined)
            }
            if let pending = context.swapExceptionLocked(saved) {
                thrown = JSValue(context: context, storage: pending)
            }
            cduk_set_current_frame(frame.pointee.previous)
            do throws(JSException) {
                if let thrown {
                    try stack.push(thrown)
                    return CDUK_HOST_THROW
                }
                try stack.push(consume result)
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
