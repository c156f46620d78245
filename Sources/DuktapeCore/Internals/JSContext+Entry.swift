import CDuktape

/// How the public API reaches the engine: an entry of the VM's `Engine`, with this context's
/// value stack.
extension JSContext {
    /// Runs `body` with this context's value stack as an engine entry (the VM lock, limits and
    /// pending work: `Engine.enter`). The stack top is restored afterwards, whatever happens.
    @inline(__always)
    func withStack<T>(_ body: (EngineStack) throws(JSException) -> T) throws(JSException) -> T {
        try engine.enter { () throws(JSException) -> T in
            let ctx = coroutineThread ?? self.ctx
            let top = duk_get_top(ctx)
            let outer = engine.runningContextReference
            engine.runningContextReference = Unmanaged.passUnretained(self)
            defer {
                // Usually one value (the result) is left: popping it is cheaper than set_top.
                let now = duk_get_top(ctx)
                if now == top + 1 { duk_pop(ctx) } else if now != top { duk_set_top(ctx, top) }
                engine.runningContextReference = outer
            }
            let stack = EngineStack(ctx: ctx, context: self)
            try stack.reserve(Int32(EngineStack.entryReserve))
            return try body(stack)
        }
    }

    /// JavaScriptCore's error convention: on an exception, call `exceptionHandler` and return
    /// `fallback`.
    @inline(__always)
    func reporting<T>(_ fallback: @autoclosure () -> T, _ body: (EngineStack) throws(JSException) -> T) -> T {
        do {
            return try withStack(body)
        } catch {
            notifyException(error.value)
            return fallback()
        }
    }

    /// A JSValue with a slot of its own for `storage`.
    func copy(_ storage: JSValue.Storage) -> JSValue? {
        try? withStack { stack throws(JSException) in
            try stack.push(storage: storage)
            return try stack.value(at: -1)
        }
    }

    /// Storage (with its own slot) for `Object(value)`, as JavaScriptCore's exception setter
    /// stores.
    func boxedCopy(_ value: JSValue) -> JSValue.Storage? {
        try? withStack { stack throws(JSException) in
            try stack.push(value)
            try stack.convertToObject()
            return try stack.storage(at: -1)
        }
    }

    /// Runs `body` as a callback from JavaScript would run (JavaScriptCore's promise-executor
    /// rule): in an entry, with a frame whose `this` is `this`, whose callee is nil and whose
    /// arguments are `arguments`, and with `exception` saved and cleared around it. Returns the
    /// exception the body left.
    func runAsCallback(this: JSValue, arguments: [JSValue], _ body: () -> Void) -> JSValue? {
        engine.enter {
            var frame = CallbackFrame(context: self, this: this, arguments: arguments)
            defer { frame.end() }
            return withUnsafeMutablePointer(to: &frame) { frame in
                cduk_set_current_frame(frame)
                defer { cduk_set_current_frame(frame.pointee.previous) }
                let saved = swapExceptionLocked(nil)
                body()
                return swapExceptionLocked(saved).map { JSValue(context: self, storage: $0) }
            }
        }
    }
}
