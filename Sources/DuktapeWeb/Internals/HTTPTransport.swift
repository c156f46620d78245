import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

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
            throw FetchFailure(.tooLarge, "the request's headers are longer than \(maximumRequestHeaderBytes) bytes")
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

    /// `error`, which ended `request`, as a failure of its kind, in one sentence: what, where,
    /// why ("GET http://127.0.0.1:9/x failed: the connection to 127.0.0.1:9 was refused").
    static func failure(_ error: any Error, of request: FetchRequest) -> FetchFailure {
        if let failure = error as? FetchFailure { return failure }
        let (kind, reason) = classify(error, address: request.url.hostWithPort)
        return FetchFailure(kind, "\(request.method) \(request.url.href) failed: \(reason)", reason: reason)
    }

    /// The kind of `error` and its reason in words; `address` is the request's host and port.
    static func classify(_ error: any Error, address: String) -> (FetchFailure.Kind, String) {
        switch error {
        case let error as IOError:
            return classify(errno: error.errnoCode, address: address)
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return classify(first.error, address: address) }
            let dns = (error.dnsAError ?? error.dnsAAAAError).map { "\($0)" } ?? "no address"
            return (.hostNotFound, "the host name \(error.host) could not be resolved (\(dns))")
        case let error as SocketAddressError.UnknownHost:
            return (.hostNotFound, "the host name \(error.host) could not be resolved (\(error.errorDescription))")
        case let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed || error == .eof:
            return (.connectionReset, "the server closed the connection before the response ended")
        case let error as HTTPParserError where error == .invalidEOFState:
            return (.badResponse, "the server closed the connection before the response was complete")
        case let error as HTTPParserError where error == .headerOverflow:
            return (.badResponse, "the response's head is longer than the client reads (80 KB)")
        case is HTTPParserError:
            return (.badResponse, "the response is not valid HTTP (\(error))")
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: return (.timedOut, "connecting to \(address) timed out")
            case .readTimeout: return (.timedOut, "the server sent nothing for too long")
            case .remoteConnectionClosed: return (.connectionReset, "the server closed the connection before the response ended")
            case .bodyLengthMismatch: return (.badResponse, "the body ended before its Content-Length")
            case .tlsHandshakeTimeout: return (.tls, "the TLS handshake with \(address) timed out")
            case .writeTimeout: return (.timedOut, "sending the request to \(address) timed out")
            case .deadlineExceeded: return (.timedOut, "the request took longer than its deadline")
            case .getConnectionFromPoolTimeout: return (.timedOut, "no connection to \(address) became free in time")
            case .uncleanShutdown: return (.badResponse, "the connection closed without TLS's close, so the body may be cut short")
            case .invalidURL, .emptyHost, .emptyScheme:
                return (.invalidRequest, "the request cannot be sent (\(error))")
            default: return (.other, "\(error)")
            }
        default:
            // NIOSSL's errors, without depending on NIOSSL for their types: an unclean shutdown
            // ends a body that may be cut short (async-http-client forwards it for a body that
            // ends with the connection); anything else is the TLS layer failing.
            if String(reflecting: type(of: error)).hasPrefix("NIOSSL.") {
                if "\(error)".contains("uncleanShutdown") {
                    return (.badResponse, "the connection closed without TLS's close, so the body may be cut short")
                }
                return (.tls, "the TLS connection to \(address) failed (\(error))")
            }
            return (.other, "\(error)")
        }
    }

    private static func classify(errno code: Int32, address: String) -> (FetchFailure.Kind, String) {
        switch code {
        case ECONNREFUSED: return (.connectionRefused, "the connection to \(address) was refused (nothing listens there)")
        case ECONNRESET, EPIPE: return (.connectionReset, "the server at \(address) reset the connection")
        case ETIMEDOUT: return (.timedOut, "the connection to \(address) timed out")
        case EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL:
            return (.unreachable, "\(address) cannot be reached (\(String(cString: strerror(code))))")
        default: return (.other, "the connection to \(address) failed (\(String(cString: strerror(code))))")
        }
    }
}
