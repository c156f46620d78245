/// A promise rejection that no handler took care of, or one that got a handler after it was
/// reported: what `JSContext.unhandledRejectionHandler` receives (the browser's
/// `unhandledrejection` and `rejectionhandled` events).
///
/// ```swift
/// context.unhandledRejectionHandler = { context, rejection in
///     if rejection.kind == .unhandled { print("unhandled rejection:", rejection.reason) }
/// }
/// context.evaluateScript("Promise.reject(new Error('lost'))")   // reported once, when the queue is empty
/// ```
public struct JSPromiseRejection: Sendable {
    /// Which event this is.
    public enum Kind: Sendable, Equatable {
        /// The promise was rejected and had no handler when the job queue became empty.
        case unhandled
        /// A promise reported as `.unhandled` got a rejection handler afterwards.
        case handledLater
    }

    /// Which event this is.
    public let kind: Kind
    /// The rejected promise.
    public let promise: JSValue
    /// Its rejection reason.
    public let reason: JSValue
}
