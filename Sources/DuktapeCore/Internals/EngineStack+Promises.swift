import CDuktape

/// The promise machinery's engine calls (promise.c), for the public promise API.
extension EngineStack {
    /// [] -> [promise resolve reject]: a new pending promise of this realm and its resolving
    /// functions.
    func pushNewPromise() throws(JSException) {
        try reserve(3)
        try check(cduk_pnew_promise(ctx))
    }

    /// Whether `value` is a promise (of any context of the VM).
    func isPromise(_ value: JSValue) throws(JSException) -> Bool {
        try push(value)
        var state: Int32 = -1
        try check(cduk_ppromise_state(ctx, &state))
        return state >= 0
    }

    /// `value`'s state (0 pending, 1 fulfilled, 2 rejected; nil when it is not a promise) and
    /// its value or reason once settled.
    func promiseResult(_ value: JSValue) throws(JSException) -> (state: Int, result: JSValue)? {
        try push(value)
        var state: Int32 = -1
        try check(cduk_ppromise_result(ctx, &state))
        defer { duk_pop(ctx) }
        guard state >= 0 else { return nil }
        return (Int(state & 3), try self.value(at: -1))
    }

    /// [value onFulfilled onRejected] -> []: the handlers become reactions of
    /// `Promise.resolve(value)`, with no derived promise (what they throw is reported as a job's
    /// exception).
    func addReactionsToTopValue() throws(JSException) {
        try check(cduk_pawait(ctx))
    }

    /// [function] -> []: queues a job that calls it; a value that is not a function is a
    /// TypeError.
    func queueCallOfTopValue() throws(JSException) {
        guard duk_is_function(ctx, -1) != 0 else {
            duk_pop(ctx)
            throw makeError(.typeError, "queueMicrotask needs a function")
        }
        try check(cduk_pqueue_call(ctx))
    }

    /// The error a rejection with `reason` throws in Swift: the Swift error behind it, or a
    /// `JSException` describing it.
    func exception(describing reason: JSValue) -> any Error {
        guard (try? push(reason)) != nil else {
            return makeError(.rangeError, "out of memory while reading a rejection reason")
        }
        let exception = takeException()
        return exception.underlyingError ?? exception
    }
}
