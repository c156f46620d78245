import DuktapeCore
import Synchronization

/// Native work in flight on a `JSEventLoop` (a network request, a child process): while it is
/// outstanding, `run()` does not return for lack of work. It ends exactly once: `complete(_:)`
/// posts the result's callback and ends it in one step; `cancel()` or releasing the handle ends
/// it without one.
///
/// ```swift
/// let pending = loop.beginPendingWork()
/// Task {
///     let data = try await download(url)
///     pending.complete { context in onData.call(withArguments: [data.count]) }
/// }
/// try loop.run()   // returns after the callback ran
/// ```
public final class PendingWork: Sendable {
    private let loop: JSEventLoop
    private let ended = Atomic<Bool>(false)

    init(loop: JSEventLoop) {
        self.loop = loop
    }

    deinit {
        cancel()
    }

    /// Posts `work` to the loop and ends the handle. Returns false (running nothing) when the
    /// handle already ended or the loop is stopped. An error `work` throws goes to the
    /// context's `exceptionHandler`.
    ///
    /// ```swift
    /// pending.complete { context in context.evaluateScript("done = true") }
    /// ```
    @discardableResult
    public func complete(_ work: @escaping @Sendable (JSContext) throws -> Void) -> Bool {
        guard end() else { return false }
        return loop.endPendingWork(posting: JSEventLoop.Posted(run: work, cancel: nil))
    }

    /// Ends the handle without posting anything (the work was abandoned). Idempotent.
    ///
    /// ```swift
    /// pending.cancel()
    /// ```
    public func cancel() {
        guard end() else { return }
        _ = loop.endPendingWork(posting: nil)
    }

    /// True once the handle ended.
    public var isEnded: Bool {
        ended.load(ordering: .acquiring)
    }

    private func end() -> Bool {
        !ended.exchange(true, ordering: .acquiringAndReleasing)
    }
}
