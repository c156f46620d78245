import CDuktape
import Foundation

/// A Swift closure exposed as a JavaScript function.
class HostFunction: EngineBox {
    /// The engine outlives every box: boxes are released by finalizers, at the latest when the
    /// heap is destroyed.
    unowned(unsafe) let engine: Engine
    /// The Duktape thread of the context the function was made in, to find a context for a call
    /// that arrives on a thread that is no context's (a coroutine, a finalizer). Not a reference
    /// to the context: the function must not keep it alive, and a weak reference would give
    /// every context a side table, making each retain and release of it several times dearer.
    let creatorThread: OpaquePointer
    let body: (HostCall) throws -> HostResult

    init(context: JSContext, body: @escaping (HostCall) throws -> HostResult) {
        self.engine = context.vm.engine
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
    ///
    /// Unretained: the running context is alive until its entry returns, and a registered one
    /// until it unregisters itself (under the lock this call holds); a strong reference would
    /// cost an atomic retain and release per call.
    private func context(for ctx: OpaquePointer) -> Unmanaged<JSContext>? {
        if let running = engine.runningContextReference, running._withUnsafeGuaranteedRef({ $0.ctx == ctx }) {
            return running
        }
        return engine.unmanagedContext(forThread: ctx) ?? engine.unmanagedContext(forThread: creatorThread)
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
        return context._withUnsafeGuaranteedRef { invoke(ctx: ctx, isConstruct: isConstruct, in: $0) }
    }

    private func invoke(ctx: OpaquePointer, isConstruct: Bool, in context: JSContext) -> duk_int_t {
        let stack = EngineStack(ctx: ctx, context: context)
        let argumentCount = duk_get_top(ctx)
        // No room check of its own: before it enters a C function, Duktape grows the value stack
        // to DUK_API_ENTRY_STACK (64) slots above the arguments, plus its 32 internal ones, or
        // throws (duk_js_call.c), so a check for 4 could never fail; and the result's and the
        // error's pushes below reserve their own room.
        var frame = CallbackFrame(context: context, ctx: ctx, isConstruct: isConstruct, argumentCount: argumentCount)
        defer { frame.end() }
        // Called on a coroutine of the context's realm: the context's own thread is suspended
        // (it resumed the coroutine), so the body's API calls on this context run on the
        // coroutine's thread, as the script's own code does.
        let outerCoroutine = context.coroutineThread
        if ctx != context.ctx, cduk_same_realm(ctx, context.ctx) != 0 { context.coroutineThread = ctx }
        defer { context.coroutineThread = outerCoroutine }
        return withUnsafeMutablePointer(to: &frame) { frame in
            cduk_set_current_frame(frame)
            let saved = context.swapExceptionLocked(nil)
            let result: HostResult
            var thrown: JSValue?
            var unmade = false
            do {
                result = try body(HostCall(stack: stack, frame: frame))
            } catch let exception as JSException {
                result = .undefined
                // An error that could not be made (the heap is full) has no value of its own.
                if exception.isUnmade { unmade = true } else { thrown = exception.value }
            } catch {
                result = .undefined
                // When not even the error can be made (the heap is full), the realm's limit
                // error is thrown below.
                thrown = try? context.makeSwiftError(error)
                if thrown == nil { unmade = true }
            }
            if let pending = context.swapExceptionLocked(saved) {
                thrown = JSValue(context: context, storage: pending)
            }
            cduk_set_current_frame(frame.pointee.previous)
            if unmade && thrown == nil {
                duk_set_top(ctx, argumentCount)
                return stack.pushLimitError() ? CDUK_HOST_THROW : 0
            }
            do throws(JSException) {
                if let thrown {
                    try stack.push(thrown)
                    return CDUK_HOST_THROW
                }
                try stack.push(consume result)
                if isConstruct, duk_is_object(ctx, -1) == 0 {
                    duk_pop(ctx)
                    throw stack.makeError(.typeError, "Swift closures called as constructors must return an object")
                }
                return 1
            } catch {
                // A conversion or engine failure: throw its JavaScript value (the realm's limit
                // error when the failure could not make one, or it cannot be pushed).
                duk_set_top(ctx, argumentCount)
                if !error.isUnmade, (try? stack.push(error.value)) != nil { return CDUK_HOST_THROW }
                return stack.pushLimitError() ? CDUK_HOST_THROW : 0
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
            try stack.callBuiltin(error is ArgumentMismatch ? .typeError : .error, argumentCount: 1, construct: true)
            if !(error is ArgumentMismatch) {
                try SwiftErrorBox(error).attach(on: stack)
            }
            return try stack.value(at: -1)
        }
    }
}
