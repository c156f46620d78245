import Foundation

/// One message of a `WebLoader` request (LWWebLoader's `WLHanderBody`): its type and value,
/// with the response's status and content type, which the original never passed on.
///
/// ```swift
/// loader.evaluate(body) { response, error in
///     switch response.type {
///     case .json(let value): print(value)
///     case .streamStart(let total, let contentType, _): print(total ?? "length unknown", contentType)
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
        /// dictionaries, arrays, strings, numbers, booleans, NSNull. Numbers are `NSNumber`s
        /// holding doubles (JavaScript has one number type), so Foundation on Linux prints
        /// `3` as `3.0`; `as? Int` reads an integral one as an Int.
        case json(Any)
        /// The body of a text response (`text/*`, XML, JavaScript), decoded by its charset.
        case plainText(String)
        /// The body of any other response.
        case data(Data)
        /// A stream began (`downloadStream`): the response's head arrived and its file was
        /// created. `total` is the body's length from `Content-Length` (nil when unknown, or
        /// when the body arrives compressed), `contentType` the response's `Content-Type`, and
        /// `file` the file being written (mode 0600, in the request's or the loader's
        /// `streamDirectory`; removed if the stream fails, the caller's after `streamEnd`).
        case streamStart(total: Int64?, contentType: String, file: URL)
        /// A chunk was written: the fraction received, or nil when the length is unknown.
        case streaming(progress: Double?)
        /// The stream ended: the file holding the whole body.
        case streamEnd(URL)
        /// The request failed: the error's text. (For the loader's WebSocket: something failed,
        /// which does not end the socket.)
        case error(String)
        /// The loader's WebSocket: the server's Hello arrived (LWWebLoader's `ws_opened`).
        case wsOpened
        /// The loader's WebSocket closed (LWWebLoader's `ws_closed`): the close code, reason, and
        /// whether the closing handshake completed. websocket.html reconnects unless closed by
        /// `wsClose()`.
        case wsClosed(code: Int, reason: String, wasClean: Bool)
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

    /// A message as a loader delivers one: for your own tests and fakes (LWWebLoader's
    /// `bodyWithId:…`), and for code that relays messages.
    ///
    /// ```swift
    /// let fake = WebLoaderResponse(requestID: "r1", type: .json(["items": [1, 2]]), status: 200,
    ///                              contentType: "application/json")
    /// ```
    public init(requestID: String, type: BodyType, status: Int = 0, contentType: String = "", received: Int64 = 0, total: Int64? = nil) {
        self.requestID = requestID
        self.type = type
        self.status = status
        self.contentType = contentType
        self.received = received
        self.total = total
    }

    /// True for the message that ends its request (every type but `streamStart` and
    /// `streaming`): exactly one per request. The loader's WebSocket messages end nothing
    /// (false for every one of them, `requestID` `WebLoader.webSocketRequestID`).
    ///
    /// ```swift
    /// if response.isTerminal { finish() }
    /// ```
    public var isTerminal: Bool {
        switch type {
        case .streamStart, .streaming, .wsOpened, .wsClosed: false
        default: requestID != WebLoader.webSocketRequestID
        }
    }
}
