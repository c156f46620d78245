import Foundation

/// A message a page posted with `webkit.messageHandlers.<name>.postMessage(value)` (WebKit's
/// `WKScriptMessage`).
///
/// ```swift
/// controller.add(name: "bridge") { message in
///     let fields = message.body as? [String: Any]   // the posted object
/// }
/// ```
///
/// `body` is the posted value converted as `JSValue.toObject()` converts: numbers as `NSNumber`,
/// strings, `Bool`, `NSNull` for null, `nil` for undefined, arrays as `[Any]`, objects as
/// `[String: Any]`, dates as `Date`, an `Error` as `["name": …, "message": …]`, an `ArrayBuffer`
/// or any of its views as `Data`.
public struct ScriptMessage: @unchecked Sendable {
    // @unchecked: `body` holds only the value types and Foundation values listed above, made
    // fresh for this message and never mutated.

    /// The handler's name.
    ///
    /// ```swift
    /// if message.name == "bridge" { /* ... */ }
    /// ```
    public let name: String
    /// The posted value.
    ///
    /// ```swift
    /// let fields = message.body as? [String: Any] ?? [:]
    /// ```
    public let body: Any?
    /// The document that posted the message, as it was when it posted (WebKit's `frameInfo`):
    /// what a handler checks before it trusts the message, since a page may have navigated
    /// anywhere since its handlers were added.
    ///
    /// ```swift
    /// guard message.frameInfo.securityOrigin.host == "app.example" else { return }
    /// ```
    public let frameInfo: FrameInfo

    init(name: String, body: Any?, frameInfo: FrameInfo = FrameInfo(url: nil)) {
        self.name = name
        self.body = body
        self.frameInfo = frameInfo
    }
}

/// An error a reply handler throws to reject the page's promise with `message` (WebKit's
/// `replyHandler(nil, errorMessage)`); any other error rejects it with a generic message.
///
/// ```swift
/// controller.addWithReply(name: "open") { message in
///     guard let path = message.body as? String else { throw ScriptMessageReplyError("expected a path") }
///     return try read(path)
/// }
/// ```
public struct ScriptMessageReplyError: Error, Sendable, Equatable {
    /// What the page's `Error` says.
    ///
    /// ```swift
    /// print(ScriptMessageReplyError("not found").message)   // prints: not found
    /// ```
    public let message: String

    /// An error whose message the page sees.
    ///
    /// ```swift
    /// throw ScriptMessageReplyError("not found")
    /// ```
    public init(_ message: String) {
        self.message = message
    }
}
