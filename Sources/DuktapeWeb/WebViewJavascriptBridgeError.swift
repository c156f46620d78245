import Foundation

/// Why a `WebViewJavascriptBridge` call ended without a response.
///
/// ```swift
/// do { _ = try await bridge.callHandler("title") } catch WebViewJavascriptBridgeError.pageClosed { }
/// ```
public enum WebViewJavascriptBridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The page already has a bridge.
    case alreadyAttached
    /// The page closed first.
    case pageClosed
    /// The page loaded another document before the response.
    case documentReplaced
    /// `reset()` was called first.
    case reset
    /// The page did not respond within the bridge's `responseTimeout`.
    case timedOut

    /// The reason, in words.
    ///
    /// ```swift
    /// print(WebViewJavascriptBridgeError.reset)
    /// ```
    public var description: String {
        switch self {
        case .alreadyAttached: "the page already has a WebViewJavascriptBridge"
        case .pageClosed: "the page was closed"
        case .documentReplaced: "the page loaded another document before responding"
        case .reset: "the bridge was reset"
        case .timedOut: "the page did not respond in time"
        }
    }
}
