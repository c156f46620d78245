import Foundation

/// Why a transfer failed, in a sentence, and of which kind. fetch.js gives page scripts the
/// kind as the `code` of the `TypeError`'s `cause` (as Node's `fetch` does: `ECONNREFUSED`…),
/// and `WebLoader` turns it into the case of its `WebLoaderError`.
struct FetchFailure: Error, CustomStringConvertible {
    /// The kinds of failure, by their code (Node's where Node has one).
    enum Kind: String, Sendable {
        /// The page's request policy refused the URL (or a redirect's).
        case refusedByPolicy = "ERR_BLOCKED_BY_POLICY"
        /// Nothing listens at the address.
        case connectionRefused = "ECONNREFUSED"
        /// The peer reset or closed the connection before the response ended.
        case connectionReset = "ECONNRESET"
        /// The host name has no address.
        case hostNotFound = "ENOTFOUND"
        /// No route to the host or its network.
        case unreachable = "EHOSTUNREACH"
        /// The request, or its connection, took longer than its timeout.
        case timedOut = "ETIMEDOUT"
        /// The TLS handshake failed (a certificate refused, no common protocol).
        case tls = "ERR_TLS"
        /// The response broke HTTP (a malformed head, a body cut short or badly encoded, a
        /// redirect that cannot be followed).
        case badResponse = "ERR_INVALID_RESPONSE"
        /// A redirect that cannot be followed (too many, to a scheme that is not http(s), or
        /// refused by the request's redirect mode).
        case redirect = "ERR_REDIRECT"
        /// A status that ends the load (a `<script src>` answered other than 2xx).
        case httpStatus = "ERR_HTTP_STATUS"
        /// The request's cache mode is `only-if-cached` and the cache has no answer.
        case notCached = "ERR_CACHE_MISS"
        /// Something is longer than its limit (headers, a redirect's body, a script).
        case tooLarge = "ERR_TOO_LARGE"
        /// The request is not one the network can send (a malformed URL, mode or method).
        case invalidRequest = "ERR_INVALID_REQUEST"
        /// The load was cancelled (the page closed).
        case cancelled = "ABORT_ERR"
        /// A local file is missing.
        case noSuchFile = "ENOENT"
        /// Anything else.
        case other = "ERR_FETCH_FAILED"
    }

    let kind: Kind
    /// The failure as the page's error says it ("GET http://… failed: the connection … was refused").
    let message: String
    /// Why, without the request ("the connection to 127.0.0.1:9 was refused"): the message
    /// of the error's `cause` in the page.
    let reason: String

    init(_ kind: Kind, _ message: String, reason: String? = nil) {
        self.kind = kind
        self.message = message
        self.reason = reason ?? message
    }

    var description: String { message }

    /// The error's name in the page: `TimeoutError` for a timeout the page set (a DOMException,
    /// as `AbortSignal.timeout` gives), else `TypeError` (Fetch's network error).
    var pageErrorName: String { kind == .timedOut && isRequestTimeout ? "TimeoutError" : "TypeError" }

    /// Set for the request's own timeout (fetch's `timeout`, the page's default), as opposed to
    /// a connection that timed out.
    private(set) var isRequestTimeout = false

    /// The request's own timeout ran out.
    static func requestTimeout(_ message: String) -> FetchFailure {
        var failure = FetchFailure(.timedOut, message)
        failure.isRequestTimeout = true
        return failure
    }
}
