/// Promises: JavaScriptCore's initializers, and Swift concurrency in both directions.
///
/// Every context has `Promise` (ES2021: `then`, `catch`, `finally`, `resolve`, `reject`, `all`,
/// `allSettled`, `race`, `any` with `AggregateError`). Reactions run as jobs when the outermost
/// API call returns (JavaScriptCore's rule; see `JSVirtualMachine.drainsMicrotasksAutomatically`).
extension JSValue {
    /// A new promise whose executor is a Swift closure, run at once with the promise's `resolve`
    /// and `reject` functions, as `new Promise(executor)` runs it.
    ///
    /// ```swift
    /// let promise = JSValue(newPromiseIn: context) { resolve, reject in
    ///     resolve?.call(withArguments: [42])
    /// }!
    /// ```
    ///
    /// Inside the executor, `JSContext.current()` is `context`, `currentThis()` is the promise
    /// and `currentCallee()` is nil. An exception the executor leaves in `context.exception`
    /// (a script it evaluates that throws, with the default handler) rejects the promise, and
    /// `context.exception` is nil afterwards. `resolve` and `reject` can be kept and called later,
    /// from any thread; the reactions then run before that call returns.
    public convenience init!(newPromiseIn context: JSContext!, fromExecutor callback: ((JSValue?, JSValue?) -> Void)!) {
        guard let context else { return nil }
        let promise: JSValue.Storage, resolve: JSValue, reject: JSValue
        do {
            (promise, resolve, reject) = try context.makePromise()
        } catch {
            context.notifyException(error.value)
            self.init(context: context, storage: .undefined)
            return
        }
        self.init(context: context, storage: promise)
        if let callback {
            let thrown = context.runAsCallback(this: self, arguments: [resolve, reject]) {
                callback(resolve, reject)
            }
            if let thrown {
                reject.call(withArguments: [thrown])
            }
        }
    }

    /// A promise resolved with `result` (converted by the table; a promise or thenable is
    /// followed, `NSNull` gives null).
    ///
    /// ```swift
    /// let ready = JSValue(newPromiseResolvedWithResult: ["ok": true], in: context)!
    /// ```
    public convenience init!(newPromiseResolvedWithResult result: Any!, in context: JSContext!) {
        self.init(newPromiseIn: context) { resolve, _ in
            resolve?.call(withArguments: [result as Any])
        }
    }

    /// A promise rejected with `reason` (converted by the table).
    ///
    /// ```swift
    /// let failed = JSValue(newPromiseRejectedWithReason: JSValue(newErrorFromMessage: "no", in: context), in: context)!
    /// ```
    public convenience init!(newPromiseRejectedWithReason reason: Any!, in context: JSContext!) {
        self.init(newPromiseIn: context) { _, reject in
            reject?.call(withArguments: [reason as Any])
        }
    }

    /// True for a promise (of any context of the VM); false for thenables and everything else.
    /// JavaScriptCore has no public check.
    ///
    /// ```swift
    /// print(context.evaluateScript("Promise.resolve(1)")!.isPromise)   // prints: true
    /// ```
    public var isPromise: Bool {
        guard case .reference = storage else { return false }
        return (try? owner.withStack { stack throws(JSException) in try stack.isPromise(self) }) ?? false
    }

    /// A promise's state and, once settled, its value or reason, for inspecting it (the
    /// runtime's console shows `Promise { 5 }`, as Node does); nil for anything else.
    package var promiseInspection: (state: PromiseInspectionState, result: JSValue)? {
        guard case .reference = storage else { return nil }
        guard let found = (try? owner.withStack({ stack throws(JSException) in try stack.promiseResult(self) })) ?? nil else {
            return nil
        }
        let state: PromiseInspectionState = found.state == 1 ? .fulfilled : found.state == 2 ? .rejected : .pending
        return (state, found.result)
    }

    // MARK: - Awaiting from Swift

    /// Waits for this value as JavaScript's `await` does: a promise's fulfillment value, a
    /// thenable followed, any other value as it is. A rejection throws: the Swift error that
    /// rejected it, when it came from Swift (an async closure that threw), else a `JSException`
    /// with the reason as its `value`.
    ///
    /// ```swift
    /// let promise = context.evaluateScript("Promise.resolve(6).then(function (x) { return x * 7 })")!
    /// let answer = try await promise.awaited().toInt32()   // 42
    /// ```
    ///
    /// No thread is blocked while waiting: the continuation resumes when the promise settles,
    /// during whichever API call or job drain settles it (another thread's call, a Swift async
    /// closure finishing, a runtime's timer). Registering takes the VM lock only if it is free;
    /// otherwise the thread holding it registers it when it lets go (however it held it). Cancelling the
    /// awaiting task ends the wait with `CancellationError`; the promise is not affected. When the
    /// execution time limit stops a drain (the queue is emptied), every wait in progress on the VM
    /// ends with that timeout's exception: its reaction may have been among the dropped jobs.
    public func awaited() async throws -> JSValue {
        let waiter = PromiseWaiter()
        let engine = owner.engine
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.start(continuation)
                engine.perform(.run { [self] in self.registerReactions(for: waiter) })
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
            engine.perform(.run { engine.waiters.removeValue(forKey: ObjectIdentifier(waiter)) })
        }
    }

    /// `awaited()`, converted by `T`'s `fromJSValue` rule; a value that does not convert throws a
    /// `JSException` (TypeError).
    ///
    /// ```swift
    /// let name: String = try await context.evaluateScript("Promise.resolve('Ada')")!.awaited(as: String.self)
    /// ```
    ///
    /// Disfavored, so that `awaited()` where a `JSValue?` is expected is the untyped form (the
    /// settled value) rather than this one with `T` = `JSValue?` (which reads undefined and null
    /// as nil).
    @_disfavoredOverload
    public func awaited<T: JSValueConvertible>(as type: T.Type = T.self) async throws -> T {
        let value = try await awaited()
        if let converted = T.fromJSValue(value) { return converted }
        let message = "awaited value does not convert to \(T.self): \(value)"
        throw (try? value.owner.withStack { stack throws(JSException) in stack.makeError(.typeError, message) })
            ?? JSException(
                value: JSValue(context: value.owner, storage: .undefined), name: "TypeError", message: message,
                stack: nil, line: nil, sourceURL: nil)
    }

    /// Adds reactions to this value's promise that finish `waiter` (under the lock, in an entry).
    private func registerReactions(for waiter: PromiseWaiter) {
        let context = owner
        let key = ObjectIdentifier(waiter)
        guard !waiter.isFinished else { return }  // cancelled before it got here
        let onFulfilled = HostFunction(context: context) { call in
            call.context.engine.waiters.removeValue(forKey: key)
            waiter.finish(.success(call.argument(0)))
            return .undefined
        }
        let onRejected = HostFunction(context: context) { call in
            call.context.engine.waiters.removeValue(forKey: key)
            waiter.finish(.failure(call.stack.exception(describing: call.argument(0))))
            return .undefined
        }
        do throws(JSException) {
            try context.withStack { stack throws(JSException) in
                try stack.reserve(3)
                try stack.push(self)
                try onFulfilled.push(on: stack, name: nil, length: 1)
                try onRejected.push(on: stack, name: nil, length: 1)
                try stack.addReactionsToTopValue()
            }
            if !waiter.isFinished { context.engine.waiters[key] = waiter }
        } catch {
            waiter.finish(.failure(error.underlyingError ?? error))
        }
    }
}

extension JSContext {
    /// Queues a call of `function` (with no arguments) as a job, as the web's `queueMicrotask`
    /// does: it runs when the outermost API call on the VM ends, after the jobs already queued;
    /// what it throws goes to this context's `exceptionHandler`. Beyond JavaScriptCore.
    ///
    /// ```swift
    /// context.queueMicrotask(context.evaluateScript("(function () { ready = true })"))
    /// ```
    ///
    /// A value that is not a function is reported as a TypeError.
    public func queueMicrotask(_ function: JSValue) {
        reporting(()) { stack throws(JSException) in
            try stack.push(function)
            try stack.queueCallOfTopValue()
        }
    }

    /// A new pending promise of this context and its resolving functions.
    func makePromise() throws(JSException) -> (promise: JSValue.Storage, resolve: JSValue, reject: JSValue) {
        try withStack { stack throws(JSException) in
            try stack.pushNewPromise()
            return (try stack.storage(at: -3), try stack.value(at: -2), try stack.value(at: -1))
        }
    }

}

// MARK: - Async Swift closures as JavaScript functions

extension JSValue {
    /// A JavaScript function that runs an async Swift closure: each call returns a promise that
    /// settles when the closure's task ends, fulfilled with its result (converted by the table)
    /// or rejected with the error it threw.
    ///
    /// ```swift
    /// context["load"] = JSValue(newFunctionIn: context) { (path: String) async throws -> String in
    ///     try await readFile(path)
    /// }
    /// context.evaluateScript("load('a.txt').then(function (text) { show(text) })")
    /// ```
    ///
    /// Arguments are converted when JavaScript calls (a mismatch throws a TypeError there, as with
    /// synchronous closures); then the closure runs in a new `Task`, outside the VM lock. Settling
    /// takes the lock if it is free and runs the promise's reactions on the task's thread (a
    /// cooperative-pool thread, for as long as the reactions run); if another thread is in the
    /// VM, that thread settles it when its call ends, and the task's thread does not wait. A
    /// thrown Swift error rejects with a JavaScript `Error` whose message is its description; if
    /// the rejection comes back out through `evaluate`, `call` or `awaited()`, it is the same
    /// Swift error again.
    public convenience init<each Argument: JSValueConvertible & Sendable, Result: JSValueConvertible & Sendable>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping @Sendable (repeat each Argument) async throws -> Result
    ) {
        self.init(hostFunctionIn: context, name: name, length: JSValue.arity(of: (repeat (each Argument).self))) {
            call in
            var arguments = ArgumentReader(call: call)
            let values = (repeat try arguments.next((each Argument).self))
            return .converted(try call.context.startTask { try await body(repeat each values) })
        }
    }

    /// An async Swift closure with no result: the promise is fulfilled with undefined.
    ///
    /// ```swift
    /// context["save"] = JSValue(newFunctionIn: context) { (text: String) async throws in
    ///     try await store(text)
    /// }
    /// ```
    public convenience init<each Argument: JSValueConvertible & Sendable>(
        newFunctionIn context: JSContext, name: String? = nil,
        _ body: @escaping @Sendable (repeat each Argument) async throws -> Void
    ) {
        self.init(hostFunctionIn: context, name: name, length: JSValue.arity(of: (repeat (each Argument).self))) {
            call in
            var arguments = ArgumentReader(call: call)
            let values = (repeat try arguments.next((each Argument).self))
            return .converted(
                try call.context.startTask { () async throws -> JSValue? in
                    try await body(repeat each values)
                    return nil
                })
        }
    }
}

extension JSContext {
    /// Starts `operation` in a new task and returns a promise that its outcome settles (see the
    /// async `JSValue(newFunctionIn:)`). Caller is in an entry.
    func startTask<R: JSValueConvertible & Sendable>(
        _ operation: @escaping @Sendable () async throws -> R?
    ) throws(JSException) -> JSValue {
        let (promise, resolve, reject) = try makePromise()
        let engine = self.engine
        let promiseValue = JSValue(context: self, storage: promise)
        Task {
            let outcome: Swift.Result<R?, any Error>
            do {
                outcome = .success(try await operation())
            } catch {
                outcome = .failure(error)
            }
            engine.perform(
                .run {
                    let context = resolve.owner
                    switch outcome {
                    case .success(let value):
                        resolve.call(withArguments: [value?.jsValue(in: context) ?? JSValue(context: context, storage: .undefined)])
                    case .failure(let error):
                        let reason = (try? context.makeSwiftError(error)) ?? JSValue(context: context, storage: .undefined)
                        reject.call(withArguments: [reason])
                    }
                })
        }
        return promiseValue
    }
}

/// A promise's state, as `JSValue.promiseInspection` gives it.
package enum PromiseInspectionState: Sendable {
    case pending, fulfilled, rejected
}
