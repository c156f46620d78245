import Foundation

/// Why a `WebLoader` request failed (the error passed beside an `.error` message): a case for
/// each kind of failure, each with the request's id, its URL (nil when it had none) and the
/// reason in words.
///
/// ```swift
/// do {
///     _ = try await loader.evaluate(WebLoader.body(url: URL(string: "http://127.0.0.1:9/x"), method: .getData))
/// } catch let error as WebLoaderError {
///     switch error {
///     case .timedOut: print("try again later")
///     case .connectionFailed(_, let url, let reason): print("cannot reach \(url?.host ?? "?"): \(reason)")
///     case .httpStatus(_, _, let status): print("the server answered \(status)")
///     default: print(error)   // "http://127.0.0.1:9/x: the connection to 127.0.0.1:9 was refused …"
///     }
/// }
/// ```
public enum WebLoaderError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The request took longer than its timeout: the loader's (`WebLoaderConfiguration.timeout`:
    /// nothing came from the page for that long), or its connection's.
    case timedOut(requestID: String, url: URL?, reason: String)
    /// No connection: refused (nothing listens), reset, a host name without an address, an
    /// unreachable host, or a failed TLS handshake.
    case connectionFailed(requestID: String, url: URL?, reason: String)
    /// The page's `RequestPolicy` refused the URL, or one it redirected to.
    case refusedByPolicy(requestID: String, url: URL?, reason: String)
    /// The server answered with a status of 400 or more, and the loader's configuration makes
    /// that a failure (`WebLoaderConfiguration.httpErrorsFail`; by default such a response is
    /// delivered as any other, with its `status`).
    case httpStatus(requestID: String, url: URL?, status: Int)
    /// The response could not be read: not valid HTTP, a body cut short or badly compressed,
    /// JSON that does not parse under a JSON content type, a redirect that cannot be followed.
    case badResponse(requestID: String, url: URL?, reason: String)
    /// The body is longer than the loader keeps in memory (`WebLoaderConfiguration.maximumBodySize`),
    /// or than the page's memory limit allows.
    case tooLarge(requestID: String, url: URL?, reason: String)
    /// The request was cancelled (`cancel(requestID:)`, `cancelAll()`, the calling task, or the
    /// loader closed).
    case cancelled(requestID: String, url: URL?)
    /// The request cannot be made: no URL, a relative or non-http(s) one, an id already in
    /// flight, `uploadData` without bytes, or the loader is closed.
    case invalidRequest(requestID: String, url: URL?, reason: String)
    /// The downloaded stream could not be written to its file.
    case fileError(requestID: String, url: URL?, reason: String)
    /// The page broke the bridge's protocol (a message out of order or of an unknown type).
    case protocolViolation(requestID: String, url: URL?, reason: String)
    /// Any other failure the page reported (its script failed, it ran out of memory).
    case failed(requestID: String, url: URL?, reason: String)

    /// The id of the request that failed.
    ///
    /// ```swift
    /// print(error.requestID)
    /// ```
    public var requestID: String {
        switch self {
        case .timedOut(let id, _, _), .connectionFailed(let id, _, _), .refusedByPolicy(let id, _, _), .httpStatus(let id, _, _),
             .badResponse(let id, _, _), .tooLarge(let id, _, _), .cancelled(let id, _), .invalidRequest(let id, _, _),
             .fileError(let id, _, _), .protocolViolation(let id, _, _), .failed(let id, _, _):
            id
        }
    }

    /// The URL of the request that failed (nil when it had none).
    ///
    /// ```swift
    /// print(error.url?.absoluteString ?? "no URL")
    /// ```
    public var url: URL? {
        switch self {
        case .timedOut(_, let url, _), .connectionFailed(_, let url, _), .refusedByPolicy(_, let url, _), .httpStatus(_, let url, _),
             .badResponse(_, let url, _), .tooLarge(_, let url, _), .cancelled(_, let url), .invalidRequest(_, let url, _),
             .fileError(_, let url, _), .protocolViolation(_, let url, _), .failed(_, let url, _):
            url
        }
    }

    /// Why it failed, in words.
    ///
    /// ```swift
    /// print(error.reason)   // "the connection to 127.0.0.1:9 was refused (nothing listens there)"
    /// ```
    public var reason: String {
        switch self {
        case .timedOut(_, _, let reason), .connectionFailed(_, _, let reason), .refusedByPolicy(_, _, let reason),
             .badResponse(_, _, let reason), .tooLarge(_, _, let reason), .invalidRequest(_, _, let reason),
             .fileError(_, _, let reason), .protocolViolation(_, _, let reason), .failed(_, _, let reason):
            reason
        case .httpStatus(_, _, let status): "the server answered HTTP \(status)"
        case .cancelled: "the request was cancelled"
        }
    }

    /// The failure in a sentence: where, then why ("http://127.0.0.1:9/x: the connection to
    /// 127.0.0.1:9 was refused (nothing listens there)").
    ///
    /// ```swift
    /// print(error.description)
    /// ```
    public var description: String {
        let reason = self.reason
        let target = url?.absoluteString ?? "the request"
        if case .invalidRequest = self { return "invalid request: \(reason)" }
        // Some reasons name the URL themselves ("'http://…' is refused by the page's request policy").
        if let url, reason.contains(url.absoluteString) { return reason }
        return "\(target): \(reason)"
    }

    /// The sentence of `description` (Foundation's `localizedDescription` reads it).
    public var errorDescription: String? { description }

    /// The same failure for another request (one shared cause, such as its origin's page that
    /// could not be loaded, reaches every request waiting for it).
    func reported(for requestID: String, url: URL?) -> WebLoaderError {
        switch self {
        case .timedOut(_, _, let reason): .timedOut(requestID: requestID, url: url, reason: reason)
        case .connectionFailed(_, _, let reason): .connectionFailed(requestID: requestID, url: url, reason: reason)
        case .refusedByPolicy(_, _, let reason): .refusedByPolicy(requestID: requestID, url: url, reason: reason)
        case .httpStatus(_, _, let status): .httpStatus(requestID: requestID, url: url, status: status)
        case .badResponse(_, _, let reason): .badResponse(requestID: requestID, url: url, reason: reason)
        case .tooLarge(_, _, let reason): .tooLarge(requestID: requestID, url: url, reason: reason)
        case .cancelled: .cancelled(requestID: requestID, url: url)
        case .invalidRequest(_, _, let reason): .invalidRequest(requestID: requestID, url: url, reason: reason)
        case .fileError(_, _, let reason): .fileError(requestID: requestID, url: url, reason: reason)
        case .protocolViolation(_, _, let reason): .protocolViolation(requestID: requestID, url: url, reason: reason)
        case .failed(_, _, let reason): .failed(requestID: requestID, url: url, reason: reason)
        }
    }
}
