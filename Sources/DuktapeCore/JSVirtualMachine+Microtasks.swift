extension JSVirtualMachine {
    /// Whether queued jobs (promise reactions) run when the outermost API call on this VM
    /// returns, as in JavaScriptCore (default true).
    ///
    /// A host that runs its own loop can turn this off and call `drainMicrotasks()` itself, at
    /// the points it chooses. Jobs never run in the middle of a script either way.
    ///
    /// ```swift
    /// let vm = context.virtualMachine!
    /// vm.drainsMicrotasksAutomatically = false
    /// context.evaluateScript("Promise.resolve(1).then(function (v) { done = v })")
    /// print(vm.hasPendingMicrotasks)    // prints: true
    /// vm.drainMicrotasks()       // runs the reaction: done is 1
    /// ```
    public var drainsMicrotasksAutomatically: Bool {
        get { engine.lock.withLock { engine.drainsJobsAutomatically } }
        set { engine.lock.withLock { engine.drainsJobsAutomatically = newValue } }
    }

    /// True when jobs or unhandled-rejection reports are waiting to run.
    ///
    /// ```swift
    /// if vm.hasPendingMicrotasks { vm.drainMicrotasks() }
    /// ```
    public var hasPendingMicrotasks: Bool {
        engine.lock.withLock { engine.hasJobs }
    }

    /// Runs queued jobs until the queue is empty (jobs queued meanwhile included), as the end of
    /// an outermost API call does, under `executionTimeLimit`; then reports unhandled rejections.
    ///
    /// Returns false, running nothing, when called inside an API call (from a callback): jobs
    /// never run in the middle of a script.
    ///
    /// ```swift
    /// vm.drainMicrotasks()
    /// ```
    @discardableResult
    public func drainMicrotasks() -> Bool {
        engine.drainJobs()
    }
}
