/// Why the loop refused a call or dropped work.
///
/// ```swift
/// do {
///     let title = try await loop.submit { context in context.evaluateScript("document.title").toString() }
/// } catch JSEventLoopError.stopped {
///     // the loop was stopped before the work ran
/// }
/// ```
public enum JSEventLoopError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The loop was stopped (`stop()`, or its context was released): nothing more runs on it.
    case stopped
    /// The loop is already running: on its own thread (`start()`), on another thread's `run()`,
    /// or `run()` was called from inside one of its callbacks.
    case alreadyRunning
    /// `advance(by:)` needs a loop made with a `ManualClock`.
    case noManualClock

    public var description: String {
        switch self {
        case .stopped: "the event loop was stopped; nothing more runs on it"
        case .alreadyRunning: "the event loop is already running (on its own thread, on another thread, or this is one of its callbacks)"
        case .noManualClock: "advance(by:) needs an event loop made with a ManualClock"
        }
    }
}
