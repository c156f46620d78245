import Foundation

/// One message of a `WebLoader` request (LWWebLoader's `WLHanderBody`): its type and value,
/// with the response's status and content type, which the original never passed on.
///
/// ```swift
/// loader.evaluate(body) { response, error in
///     switch response.type {
///     case .json(let value): print(value)
///     case .streaming(let progress): print(progress ?? "length unknown")
///     case .streamEnd(let file): print(file.path)
///     case .error(let message): print(message, error ?? "")
///     default: break
///     }
/// }
/// ```
public struct WebLoaderResponse: @unchecked Sendable {
    // @unchecked: `.json` holds the JSON value as Foundation types, never mutated.

    /// The message's type and value (LWWebLoader's `WLHanderBodyType` and `handlerResult`).
    public enum BodyType: @unchecked Sendable {
        /// The body of a JSON response (`application/json`, `text/json`, `…+json`), parsed:
        /// dictionaries, arrays, strings, numbers, booleans, NSNull.
        case json(Any)
        /// The body of a text response (`text/*`, XML, JavaScript), decoded by its charset.
        case plainText(String)
        /// The body of any other response.
        case data(Data)
        /// A stream began (`downloadStream`): the file is created.
        case streamStart
        /// A chunk was written: the fraction received, or nil when the length is unknown.
        case streaming(progress: Double?)
        /// The stream ended: the file holding the whole body.
        case streamEnd(URL)
        /// The request failed: the error's text.
        case error(String)
    }

    /// The id of the request the message belongs to.
    public let requestID: String
    /// The message's type and value.
    public let type: BodyType
    /// The HTTP status of the response (0 when none arrived).
    public let status: Int
    /// The response's `Content-Type` ("" when none).
    public let contentType: String
    /// Bytes received so far (streams).
    public let received: Int64
    /// The body's length from `Content-Length` (streams), or nil when unknown.
    public let total: Int64?

    /// True for the message that ends its request (every type but `streamStart` and
    /// `streaming`): exactly one per request.
    ///
    /// ```swift
    /// if response.isTerminal { finish() }
    /// ```
    public var isTerminal: Bool {
        switch type {
        case .streamStart, .streaming: false
        default: true
        }
    }
}
