import DuktapeCore
import Foundation
import Synchronization

/// An event loop for one context: timers (`setTimeout`, `setInterval`, `setImmediate` and their
/// `clear…`), `queueMicrotask`, and work posted from any thread, run one macrotask at a time,
/// with the VM's promise jobs drained after each.
///
/// A loop is bound to one context because the globals it installs live in that context's realm;
/// several contexts of one VM can each have a loop, and they share the VM's lock and job queue.
///
/// It runs on the caller's thread (`run()`, `run(until:)`, `run(while:)`, `runReady()`), or on
/// a thread it owns (`start()` … `stop()`) to which any thread posts work. Each turn follows
/// Node's phases: the timers due at the start of the turn, then posted work (Node's poll phase:
/// I/O completions), then the immediates queued before the turn's check phase.
///
/// ```swift
/// let context = JSContext()!
/// let loop = JSEventLoop(context: context)
/// context.evaluateScript("setTimeout(function () { console.log('later') }, 10)")
/// try loop.run()          // returns once nothing is left to run
/// ```
///
/// The loop holds its context weakly: the callbacks it keeps (timers, immediates) keep the
/// context alive while they wait; once the context is released, the loop stops itself.
public final class JSEventLoop: @unchecked Sendable {
    // @unchecked: mutable state is in `state` (its own lock); `context` is a weak reference,
    // whose loads are atomic; the rest is immutable.

    /// The context whose globals the loop installed, or nil once it was released.
    public private(set) weak var context: JSContext?
    let clock: ManualClock?
    /// The monotonic clock's reading when the loop was made, in nanoseconds.
    let origin = MonotonicClock.nanoseconds
    let state = Guarded(State())
    /// The immediates, kept in the context's heap; also the id counter timers share with them.
    let immediates: HeapCallbackQueue
    /// True while `State.immediatesKeepAlive` may hold the context (set under the loop's lock):
    /// a turn looks at the lock only then.
    let immediatesKeepContext = Flag()

    /// A flag read without the loop's lock.
    final class Flag: Sendable {
        private let value = Atomic(false)

        func load() -> Bool { value.load(ordering: .relaxed) }
        func store(_ newValue: Bool) { value.store(newValue, ordering: .relaxed) }
    }

    /// Work posted to the loop: run once on it, or cancelled once when the loop stops first.
    struct Posted {
        let run: @Sendable (JSContext) throws -> Void
        let cancel: (@Sendable (JSEventLoopError) -> Void)?
    }

    struct State {
        var timers = TimerQueue()
        /// The context, held while immediates wait (they live in its heap, `immediates`): as a
        /// waiting timer's callback holds it.
        var immediatesKeepAlive: JSContext?
        var posted: [Posted] = []
        /// Outstanding `PendingWork` handles.
        var pending = 0
        /// The thread inside `run…` (the loop's own or a caller's).
        var runner: pthread_t?
        /// `start()` was called: callers' `run…` are refused.
        var ownsThread = false
        var threadFinished = false
        var isStopped = false
        /// The loop was deinitialized: its globals return undefined and queue nothing.
        var isReleased = false
        /// Set when the loop's globals were released (with the context, see `ContextWatch`): the
        /// loop checks its context at once instead of waiting.
        var contextGone = false
        /// Tasks in `waitUntilStopped()`, by waiter number.
        var stopWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    /// Ids are positive and fit a WebIDL `long` (what `clearTimeout` takes). After 2^31 - 1 ids
    /// the counter starts again at 1, skipping ids still in use: an id is never shared by two
    /// pending callbacks, and an id seen by a script is not reused while its callback waits.
    static let largestID = Int(Int32.max)

    /// Makes a loop for `context` and installs its globals there (`setTimeout`, `clearTimeout`,
    /// `setInterval`, `clearInterval`, `setImmediate`, `clearImmediate`, `queueMicrotask`).
    /// Times are read on `clock` when one is given (tests), else on the system's monotonic clock.
    ///
    /// ```swift
    /// let loop = JSEventLoop(context: context)                       // real time
    /// let test = JSEventLoop(context: other, clock: ManualClock())   // time moves when told
    /// ```
    public init(context: JSContext, clock: ManualClock? = nil) {
        self.context = context
        self.clock = clock
        let state = self.state
        let keepsContext = immediatesKeepContext
        immediates = HeapCallbackQueue(
            onQueued: { [weak context] in
                // Under the VM's lock, from setImmediate: wake the loop, keep the context.
                state.withLockWaking { state in
                    // A setImmediate racing stop() on another thread: nothing runs, nothing is held.
                    guard !state.isStopped, !state.isReleased else { return }
                    if state.immediatesKeepAlive == nil { state.immediatesKeepAlive = context }
                    keepsContext.store(true)
                }
            },
            timerIDInUse: { id in state.withLock { $0.timers.entries[id] != nil } })
        installGlobals(in: context)
    }

    deinit {
        // No thread can be running the loop (a running loop is retained by its runner).
        immediates.close(released: true, in: context)
        let dropped = state.withLock { state in
            state.isReleased = true
            return Self.takeAll(&state)
        }
        for work in dropped.posted { work.cancel?(.stopped) }
    }

    /// The loop's time since it was made (or the manual clock's time).
    ///
    /// ```swift
    /// let started = loop.now
    /// ```
    public var now: Duration {
        .nanoseconds(Self.nanosecondsNow(clock: clock, origin: origin))
    }

    /// The loop's time in nanoseconds, which its timers are kept in: the manual clock's, or the
    /// monotonic clock's since `origin`.
    static func nanosecondsNow(clock: ManualClock?, origin: Int64) -> Int64 {
        if let clock { return clock.nanosecondsNow }
        return MonotonicClock.nanoseconds - origin
    }

    /// True while timers, immediates, posted work or `PendingWork` handles are outstanding.
    ///
    /// ```swift
    /// while loop.hasPendingWork { try loop.runReady() }
    /// ```
    public var hasPendingWork: Bool {
        immediates.pendingCount > 0 || state.withLock { !$0.timers.isEmpty || !$0.posted.isEmpty || $0.pending > 0 }
    }

    /// True once the loop was stopped (by `stop()`, or because its context was released).
    public var isStopped: Bool {
        state.withLock { $0.isStopped }
    }

    // MARK: - Running on the caller's thread

    /// Runs the loop on this thread until it is idle: no timers, immediates, posted work or
    /// `PendingWork` left. Waits (without spinning) for timers to fall due and for work posted
    /// by other threads. With a manual clock, an idle wait for a timer moves the clock to it
    /// instead (virtual time), unless `PendingWork` is outstanding (then the loop waits for it).
    ///
    /// ```swift
    /// context.evaluateScript("setTimeout(function () { done = true }, 50)")
    /// try loop.run()
    /// ```
    ///
    /// Throws `JSEventLoopError.alreadyRunning` when the loop is running elsewhere (or this is one
    /// of its callbacks), `.stopped` after `stop()`.
    public func run() throws(JSEventLoopError) {
        try drive(.untilIdle)
    }

    /// `run()` that also returns at `deadline` (a wall-clock time).
    ///
    /// ```swift
    /// try loop.run(until: Date(timeIntervalSinceNow: 5))
    /// ```
    public func run(until deadline: Date) throws(JSEventLoopError) {
        try drive(.until(deadline))
    }

    /// `run()` that also returns as soon as `condition` is false; it is checked before each turn.
    ///
    /// ```swift
    /// try loop.run(while: { !context.evaluateScript("done").toBool() })
    /// ```
    public func run(while condition: () -> Bool) throws(JSEventLoopError) {
        try withoutActuallyEscaping(condition) { condition throws(JSEventLoopError) in
            try drive(.whileTrue(condition))
        }
    }

    /// Runs what is ready now (timers due, posted work, immediates, and what they make ready
    /// without time passing) and returns without waiting.
    ///
    /// ```swift
    /// try loop.runReady()
    /// ```
    public func runReady() throws(JSEventLoopError) {
        try drive(.ready)
    }

    /// Moves the manual clock forward by `duration`, running every timer that falls due on the
    /// way at its own time, in order of due time then of creation, with the other phases and
    /// the jobs between them.
    ///
    /// On a loop running on its own thread, only moves the clock and wakes the loop, which runs
    /// the timers there.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let loop = JSEventLoop(context: context, clock: clock)
    /// context.evaluateScript("setTimeout(function () { done = true }, 100)")
    /// try loop.advance(by: .milliseconds(100))   // the timer runs
    /// ```
    public func advance(by duration: Duration) throws(JSEventLoopError) {
        guard let clock else { throw .noManualClock }
        if state.withLock({ $0.ownsThread && !$0.threadFinished }) {
            clock.advance(by: duration)
            state.broadcast()
            return
        }
        try drive(.advance(to: clock.now + duration))
    }

    // MARK: - Running on the loop's own thread

    /// Runs the loop on a thread of its own until `stop()`: timers fire on time and work posted
    /// from any thread runs there. The loop (and so its context's callbacks) stays alive while
    /// the thread runs.
    ///
    /// ```swift
    /// let loop = JSEventLoop(context: context)
    /// try loop.start()
    /// let sum = try await loop.submit { context in context.evaluateScript("1 + 2").toInt32() }
    /// loop.stop()
    /// ```
    public func start() throws(JSEventLoopError) {
        let refusal = state.withLock { state -> JSEventLoopError? in
            if state.isStopped { return .stopped }
            if state.runner != nil || state.ownsThread { return .alreadyRunning }
            state.ownsThread = true
            return nil
        }
        if let refusal { throw refusal }
        let thread = Thread { [self] in
            try? drive(.forever)
            state.withLockWaking { $0.threadFinished = true }
        }
        thread.name = "JSEventLoop"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Stops the loop for good: cancels its timers and immediates, fails posted work that has
    /// not run with `JSEventLoopError.stopped`, releases every callback, and waits for the loop's
    /// thread to finish (unless called on it, or from inside a callback: that thread holds the
    /// VM's lock, which the loop's thread may be waiting for). Safe to call twice, from any
    /// thread, and from inside a callback (the running callback finishes first).
    ///
    /// ```swift
    /// loop.stop()
    /// ```
    public func stop() {
        // Inside a callback this thread holds the VM's lock, which the loop's thread may be
        // waiting for: joining it then would deadlock.
        let insideCallback = JSContext.current() != nil
        immediates.close(released: false, in: context)
        let (dropped, waiters, join) = state.withLockWaking { state in
            let dropped = Self.takeAll(&state)
            state.isStopped = true
            let waiters = state.stopWaiters.values
            state.stopWaiters = [:]
            let onLoopThread = state.runner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            return (dropped, waiters, state.ownsThread && !onLoopThread && !insideCallback)
        }
        for work in dropped.posted { work.cancel?(.stopped) }
        for waiter in waiters { waiter.resume() }
        // `dropped` releases the callbacks here, outside the loop's lock.
        if join {
            var finished = false
            while !finished {
                state.withLock(waitingIf: { state in
                    finished = state.threadFinished
                    return (!finished, nil)
                })
            }
        }
    }

    /// Returns once the loop is stopped: by `stop()`, or on its own because its context was
    /// released.
    ///
    /// ```swift
    /// try loop.start()
    /// await loop.waitUntilStopped()   // a script's `process.exit()` called loop.stop()
    /// ```
    ///
    /// Cancelling the task ends the wait (the loop is unaffected).
    public func waitUntilStopped() async {
        let waiter = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isStopped || Task.isCancelled { return true }
                    state.stopWaiters[waiter] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.stopWaiters.removeValue(forKey: waiter) }?.resume()
        }
    }

    // MARK: - Posting work

    /// Posts `work` to run on the loop as a macrotask (from any thread). An error it throws goes
    /// to the context's `exceptionHandler` (a `JSException` as its value). Returns false, and
    /// drops `work`, when the loop is stopped.
    ///
    /// ```swift
    /// loop.post { context in context.evaluateScript("onMessage('hello')") }
    /// ```
    @discardableResult
    public func post(_ work: @escaping @Sendable (JSContext) throws -> Void) -> Bool {
        enqueue(Posted(run: work, cancel: nil))
    }

    /// Posts `work` to the loop and returns its result, or rethrows its error (swift-nio's
    /// `submit`; a distinct name, because a `post` overload would be ambiguous with the
    /// fire-and-forget form for closures whose result can be discarded). Throws
    /// `JSEventLoopError.stopped` when the loop stops before the work runs.
    ///
    /// ```swift
    /// let count = try await loop.submit { context in context.evaluateScript("items.length").toInt32() }
    /// ```
    public func submit<T: Sendable>(_ work: @escaping @Sendable (JSContext) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = enqueue(
                Posted(
                    run: { context in continuation.resume(with: Result { try work(context) }) },
                    cancel: { continuation.resume(throwing: $0) }))
            if !accepted { continuation.resume(throwing: JSEventLoopError.stopped) }
        }
    }

    /// Evaluates `script` on the loop and returns its completion value; when that value is a
    /// promise, returns once it settles (its value, or its rejection thrown). Throws
    /// `JSEventLoopError.stopped` if the loop stops first (the timers or work that would have
    /// settled the promise are gone).
    ///
    /// ```swift
    /// let body = try await loop.evaluate("fetchConfig().then(function (c) { return c.name })")
    /// ```
    public func evaluate(_ script: String, sourceURL: URL? = nil) async throws -> JSValue {
        let value = try await submit { context in try context.evaluate(script, sourceURL: sourceURL) }
        guard value.isPromise else { return value }
        return try await withThrowingTaskGroup(of: JSValue?.self) { group in
            group.addTask { try await value.awaited() }
            group.addTask {
                await self.waitUntilStopped()
                return nil
            }
            defer { group.cancelAll() }
            guard let settled = try await group.next(), let result = settled else { throw JSEventLoopError.stopped }
            return result
        }
    }

    /// Marks native work in flight (a request, a child process): until the handle completes or
    /// is cancelled (or released), `run()` does not return for lack of work.
    ///
    /// ```swift
    /// let request = loop.beginPendingWork()
    /// download(url) { data in
    ///     request.complete { context in callback.call(withArguments: [data.count]) }
    /// }
    /// ```
    public func beginPendingWork() -> PendingWork {
        state.withLock { $0.pending += 1 }
        return PendingWork(loop: self)
    }

    /// Ends one pending handle, posting `work` in the same step when given (so the loop never
    /// sees itself idle between the two).
    func endPendingWork(posting work: Posted?) -> Bool {
        let accepted = state.withLockWaking { state -> Bool in
            state.pending -= 1
            guard let work, !state.isStopped else { return false }
            state.posted.append(work)
            return true
        }
        if !accepted { work?.cancel?(.stopped) }
        return accepted
    }

    private func enqueue(_ work: Posted) -> Bool {
        state.withLockWaking { state -> Bool in
            guard !state.isStopped else { return false }
            state.posted.append(work)
            return true
        }
    }

    /// Empties every queue kept here, returning what was in them, to be released (and posted
    /// work cancelled) after the lock. (The immediates are closed and dropped by their queue.)
    private static func takeAll(_ state: inout State) -> (timers: [TimerQueue.Entry], keptContext: JSContext?, posted: [Posted]) {
        let posted = state.posted
        state.posted = []
        let kept = state.immediatesKeepAlive
        state.immediatesKeepAlive = nil
        return (state.timers.removeAll(), kept, posted)
    }
}
