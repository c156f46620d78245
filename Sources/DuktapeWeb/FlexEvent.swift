import Foundation

/// What a `FlexComponent`'s listeners are told (FlexHybrid's `FlexEvent` listeners): a call's
/// outcome as the page saw it, a document's flexload, or a console line of the page.
///
/// ```swift
/// try component.addEventListener { event in
///     print(event.kind, event.functionName, event.url?.absoluteString ?? "", event.message ?? "")
/// }
/// ```
public struct FlexEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A `$flex.<name>` call resolved in the page.
        case success
        /// A `$flex.<name>` call rejected in the page (`message` says why).
        case error
        /// A `$flex.<name>` call timed out in the page.
        case timeout
        /// The document's flexload happened: `$flex.web` calls run from now on (FlexHybrid's
        /// `INIT`).
        case initialized
        /// The page wrote `message` with `console.<level>` (FlexHybrid's `flexlog` and
        /// friends): "log", "debug", "info", "warn" or "error".
        case console(level: String)
    }

    /// What happened.
    ///
    /// ```swift
    /// if event.kind == .timeout { print("slow:", event.functionName) }
    /// ```
    public let kind: Kind
    /// The interface's name (empty for `.initialized` and `.console`).
    ///
    /// ```swift
    /// let name = event.functionName
    /// ```
    public let functionName: String
    /// The document's URL, as the host knows it (not as the page claims it).
    ///
    /// ```swift
    /// let host = event.url?.host
    /// ```
    public let url: URL?
    /// The error's message (`.error`), or the console line (`.console`).
    ///
    /// ```swift
    /// let text = event.message ?? ""
    /// ```
    public let message: String?
}

/// Rejects a `$flex` call with `reason`, which the page sees as its `Error`'s message
/// (FlexHybrid's `FlexReject` / `BrowserException`). Any other error of an interface rejects it
/// with "$flex.<name> failed": a Swift error's description never reaches the page by accident.
///
/// ```swift
/// try component.setInterface("divide") { arguments in
///     guard let b = arguments.last as? Double, b != 0 else { throw FlexReject("division by zero") }
///     return (arguments.first as? Double ?? 0) / b
/// }
/// ```
public struct FlexReject: Error, Sendable, Equatable {
    /// The message the page sees.
    ///
    /// ```swift
    /// let reason = FlexReject("no such user").reason
    /// ```
    public let reason: String

    /// A rejection the page sees as `reason`.
    ///
    /// ```swift
    /// throw FlexReject("not signed in")
    /// ```
    public init(_ reason: String) {
        self.reason = reason
    }
}
