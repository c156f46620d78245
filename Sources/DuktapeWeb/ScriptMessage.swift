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
    public let name: String
    /// The posted value.
    public let body: Any?
}
