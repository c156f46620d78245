import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The transport stage of the page's network: the headers a request goes out with, and the
/// request itself, built once (its body copied once, into the `ByteBuffer` async-http-client
/// sends) and sent on the page's client up to its response head. For `fetch` and
/// `<script src>` alike.
struct HTTPTransport: Sendable {
    let client: HTTPClient
    /// The `User-Agent` of requests that do not set their own.
    let userAgent: String

    /// Headers the host owns: the connection's framing and the ones it sets itself.
    static let hostOwnedHeaders: Set<String> = [
        "accept-encoding", "connection", "content-length", "expect", "host", "keep-alive", "te", "trailer", "transfer-encoding",
        "upgrade",
    ]

    /// The headers `request` goes out with: the page's own but the host-owned ones (and its
    /// `Cookie` when `storeKeepsCookies`: the store's `cookie` goes instead), a `User-Agent`
    /// (`userAgent` unless the page set one),
    /// the codings `Inflater` speaks (none for a range, as Fetch says: a slice of a compressed
    /// stream cannot be inflated).
    static func headers(for request: FetchRequest, userAgent: String, cookie: String?, storeKeepsCookies: Bool) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var hasUserAgent = false
        var ranged = false
        for (name, value) in request.headers {
            let lowered = name.lowercased()
            if Self.hostOwnedHeaders.contains(lowered) { continue }
            if lowered == "cookie" && storeKeepsCookies { continue }
            if lowered == "user-agent" { hasUserAgent = true }
            if lowered == "range" { ranged = true }
            headers.add(name: name, value: value)
        }
        if !hasUserAgent { headers.add(name: "User-Agent", value: userAgent) }
        headers.add(name: "Accept-Encoding", value: ranged ? "identity" : "gzip, deflate")
        if let cookie { headers.add(name: "Cookie", value: cookie) }
        return headers
    }

    /// Sends `request` with `headers` and returns its receiver once the response head arrived;
    /// an idempotent request goes once more when its pooled connection turns out closed.
    func send(_ request: FetchRequest, headers: HTTPHeaders) async throws -> (ResponseReceiver, HTTPResponseHead) {
        try Self.checkHeaderSize(headers)
        var address = request.url
        address.fragment = nil
        let outgoing = try HTTPClient.Request(url: address.href, method: HTTPMethod(rawValue: request.method), headers: headers,
                                              body: request.body.map { .byteBuffer(ByteBuffer(bytes: $0)) })
        return try await Self.retryingStaleConnection(method: request.method) {
            let receiver = try ResponseReceiver.start(outgoing, on: client)
            return (receiver, try await receiver.head())
        }
    }

    /// The most bytes a request's header lines may take. async-http-client traps when a
    /// response head arrives while a request head larger than the channel's write buffer (64 KiB)
    /// is still unsent; no server takes heads that large anyway (most refuse past 8 to 16 KiB).
    static let maximumRequestHeaderBytes = 48 << 10

    /// Throws when `headers` take more than `maximumRequestHeaderBytes` on the wire.
    static func checkHeaderSize(_ headers: HTTPHeaders) throws {
        let bytes = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        guard bytes <= maximumRequestHeaderBytes else {
            throw FetchFailure("the request's headers are longer than \(maximumRequestHeaderBytes) bytes")
        }
    }

    /// Methods a browser sends again when a kept-alive connection turns out to be closed.
    private static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

    /// Runs `attempt` (a request up to its response head) and, for an idempotent method, once
    /// more when it failed because the pooled connection it went out on had been closed by the
    /// server (the server said nothing before: a keep-alive timeout), as browsers do. Nothing of
    /// the response had arrived, so nothing is seen twice.
    static func retryingStaleConnection<Result>(
        method: String, _ attempt: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await attempt()
        } catch where idempotentMethods.contains(method) && isStaleConnection(error) && !Task.isCancelled {
            return try await attempt()
        }
    }

    /// Whether `error` says the connection was closed before any of the response arrived.
    static func isStaleConnection(_ error: any Error) -> Bool {
        if let error = error as? ChannelError, error == .ioOnClosedChannel || error == .alreadyClosed { return true }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        if let error = error as? IOError, [ECONNRESET, EPIPE].contains(error.errnoCode) { return true }
        return false
    }

    /// `error` in words, for a failure's message.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .remoteConnectionClosed: return "the server closed the connection before the response ended"
            case .bodyLengthMismatch: return "the body ended before its Content-Length"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }
}
