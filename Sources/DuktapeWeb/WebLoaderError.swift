import Foundation

/// Why a `WebLoader` request failed (the error passed beside an `.error` message).
///
/// ```swift
/// do {
///     _ = try await loader.evaluate(body)
/// } catch let error as WebLoaderError {
///     print(error)   // "GET https://… failed: TypeError: Failed to fetch: …"
/// }
/// ```
public enum WebLoaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The page reported a failure: the request could not be made, its response not read, or
    /// its stream failed (the page's error text).
    case failed(requestID: String, message: String)
    /// The request was cancelled (`cancel(requestID:)`, `cancelAll()`, or the loader closed).
    case cancelled(requestID: String)
    /// Nothing came from the page for longer than the loader's timeout.
    case timedOut(requestID: String)
    /// The downloaded stream could not be written to its file.
    case fileError(requestID: String, message: String)
    /// The page broke the bridge's protocol (a message out of order or of an unknown type).
    case protocolViolation(requestID: String, message: String)
    /// The request cannot be made: an id already in flight, a URL the loader cannot load, or a
    /// missing `loader.html` resource.
    case invalidRequest(requestID: String, message: String)

    /// The id of the request that failed.
    ///
    /// ```swift
    /// print(error.requestID)
    /// ```
    public var requestID: String {
        switch self {
        case .failed(let id, _), .cancelled(let id), .timedOut(let id), .fileError(let id, _), .protocolViolation(let id, _),
             .invalidRequest(let id, _):
            id
        }
    }

    /// The failure in a sentence.
    ///
    /// ```swift
    /// print(error.description)
    /// ```
    public var description: String {
        switch self {
        case .failed(_, let message): message
        case .cancelled: "the request was cancelled"
        case .timedOut: "the page gave no answer within the loader's timeout"
        case .fileError(_, let message): "the stream could not be written: \(message)"
        case .protocolViolation(_, let message): "the page broke the bridge protocol: \(message)"
        case .invalidRequest(_, let message): message
        }
    }
}
