import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Opens the page's WebSocket connections: TCP (and TLS for `wss:`) on the process's event
/// loops, the opening handshake as a browser makes it (RFC 6455 §4.1: `Origin` the page's,
/// the page's cookies, the subprotocols asked for, permessage-deflate offered), its answer
/// checked (101, `Sec-WebSocket-Accept`, a subprotocol and extensions the request offered;
/// anything else, a redirect included, fails the connection, as in browsers), then a
/// `WebSocketConnection` on the channel.
enum WebSocketDialer {
    struct Request: Sendable {
        var url: URLRecord
        var protocols: [String]
        var origin: String
        var cookie: String?
        var userAgent: String
        var limits: WebSocketConnection.Limits
        /// The handshake's deadline (connecting included).
        var timeout: Duration
    }

    /// An open connection: the handle, and what the handshake agreed.
    struct Opened: Sendable {
        var handle: WebSocketConnection.Handle
        var protocolName: String
        var extensions: String
        /// The `Set-Cookie` values of the answer (a browser stores them).
        var setCookies: [String]
    }

    /// The TLS context of `wss:` connections (the system's trust roots), made once.
    private static let tlsContext: Result<NIOSSLContext, any Error> = Result { try NIOSSLContext(configuration: .makeClientConfiguration()) }

    /// Connects, and returns once the handshake succeeded: `onOpen` is called first, on the
    /// connection's event loop before any of its frames is read, and `onEvent` then has the
    /// connection's events there (its last is `.closed`). Throws a `FetchFailure` naming why
    /// the connection could not be made; cancelling the task gives up the handshake.
    @discardableResult
    static func connect(
        _ request: Request, on group: any EventLoopGroup, onOpen: @escaping @Sendable (Opened) -> Void = { _ in },
        onEvent: @escaping @Sendable (WebSocketConnection.Event) -> Void
    ) async throws -> Opened {
        let url = request.url
        let secure = url.scheme == "wss"
        guard let bracketed = url.host, !bracketed.isEmpty else { throw FetchFailure(.invalidRequest, "'\(url.href)' has no host") }
        let host = bracketed.hasPrefix("[") ? String(bracketed.dropFirst().dropLast()) : bracketed
        let port = url.port ?? (secure ? 443 : 80)
        let address = url.port == nil ? "\(bracketed):\(port)" : url.hostWithPort
        let tls: NIOSSLContext?
        if secure {
            do { tls = try tlsContext.get() } catch { throw FetchFailure(.tls, "TLS is not available: \(error)") }
        } else {
            tls = nil
        }
        let promise = group.next().makePromise(of: Opened.self)
        let key = NIOWebSocketClientUpgrader.randomRequestKey()
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(TimeAmount(request.timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try install(request, key: key, tls: tls, host: host, on: channel, promise: promise, onOpen: onOpen, onEvent: onEvent)
                }
            }
        let deadline = group.next().scheduleTask(in: TimeAmount(request.timeout)) {
            promise.fail(FetchFailure(.timedOut, "the WebSocket handshake with \(address) took longer than \(request.timeout)"))
        }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            deadline.cancel()
            promise.fail(error)
            let (kind, reason) = HTTPTransport.classify(error, address: address)
            throw FetchFailure(kind, reason, reason: reason)
        }
        // The request: NIO's upgrade handler adds Upgrade, Connection and the key's headers.
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.hostWithPort)
        headers.add(name: "User-Agent", value: request.userAgent)
        headers.add(name: "Origin", value: request.origin)
        headers.add(name: "Pragma", value: "no-cache")
        headers.add(name: "Cache-Control", value: "no-cache")
        if !request.protocols.isEmpty { headers.add(name: "Sec-WebSocket-Protocol", value: request.protocols.joined(separator: ", ")) }
        headers.add(name: "Sec-WebSocket-Extensions", value: PerMessageDeflate.clientOffer)
        if let cookie = request.cookie { headers.add(name: "Cookie", value: cookie) }
        var target = url.pathname.isEmpty ? "/" : url.pathname
        if let query = url.query { target += "?" + query }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        do {
            let opened = try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                promise.fail(FetchFailure(.cancelled, "the WebSocket handshake with \(address) was given up"))
            }
            deadline.cancel()
            return opened
        } catch {
            deadline.cancel()
            channel.close(promise: nil)
            if let failure = error as? FetchFailure { throw failure }
            let (kind, reason) = HTTPTransport.classify(error, address: address)
            throw FetchFailure(kind, reason, reason: reason)
        }
    }

    /// The channel's handlers: TLS, HTTP with NIO's upgrade handler, and `HandshakeWatcher`
    /// (which fails the promise for any answer but a valid upgrade); the upgrade replaces them
    /// by the frame codec and the connection.
    private static func install(
        _ request: Request, key: String, tls: NIOSSLContext?, host: String, on channel: any Channel,
        promise: EventLoopPromise<Opened>, onOpen: @escaping @Sendable (Opened) -> Void,
        onEvent: @escaping @Sendable (WebSocketConnection.Event) -> Void
    ) throws {
        let operations = channel.pipeline.syncOperations
        if let tls {
            let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
            try operations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : host))
        }
        let watcher = NIOLoopBound(HandshakeWatcher(promise: promise), eventLoop: channel.eventLoop)
        let upgrader = NIOWebSocketClientUpgrader(
            requestKey: key, maxFrameSize: WebSocketConnection.maximumFrameSize(request.limits), automaticErrorHandling: false
        ) { channel, response in
            channel.eventLoop.makeCompletedFuture {
                try upgraded(request, response: response, on: channel, promise: promise, onOpen: onOpen, onEvent: onEvent)
            }
        }
        try operations.addHTTPClientHandlers(
            leftOverBytesStrategy: .forwardBytes,
            withClientUpgrade: (upgraders: [upgrader], completionHandler: { context in
                context.pipeline.syncOperations.removeHandler(watcher.value, promise: nil)
            }))
        try operations.addHandler(watcher.value)
    }

    /// The upgrade happened (101 with the right accept key): checks the subprotocol and the
    /// extensions it chose, and starts the connection.
    private static func upgraded(
        _ request: Request, response: HTTPResponseHead, on channel: any Channel, promise: EventLoopPromise<Opened>,
        onOpen: @escaping @Sendable (Opened) -> Void, onEvent: @escaping @Sendable (WebSocketConnection.Event) -> Void
    ) throws {
        let fail = { (why: String) in
            promise.fail(FetchFailure(.badResponse, why))
            channel.close(promise: nil)
        }
        let chosen = response.headers["Sec-WebSocket-Protocol"]
        guard chosen.count <= 1 else { return fail("the server chose several subprotocols (\(chosen.joined(separator: ", ")))") }
        let protocolName = chosen.first?.trimmingCharacters(in: .whitespaces) ?? ""
        if !protocolName.isEmpty && !request.protocols.contains(protocolName) {
            return fail("the server chose the subprotocol '\(protocolName)', which was not asked for")
        }
        let extensionValues = response.headers["Sec-WebSocket-Extensions"]
        let deflate: PerMessageDeflate?
        do {
            deflate = try PerMessageDeflate.accepted(extensionValues).map { parameters in
                guard let deflate = PerMessageDeflate(parameters: parameters, isServer: false) else {
                    throw PerMessageDeflate.Failure.badNegotiation("no memory for zlib")
                }
                return deflate
            }
        } catch {
            return fail("\(error)")
        }
        let connection = WebSocketConnection(role: .client, limits: request.limits, deflate: deflate, onEvent: onEvent)
        let opened = Opened(handle: WebSocketConnection.Handle(connection, on: channel), protocolName: protocolName,
                            extensions: deflate == nil ? "" : extensionValues.joined(separator: ", "), setCookies: response.headers["Set-Cookie"])
        // Given up meanwhile (a timeout, the task cancelled): the channel is closing.
        guard channel.isActive else { return }
        onOpen(opened)
        try channel.pipeline.syncOperations.addHandler(connection)
        promise.succeed(opened)
    }

    /// Fails the handshake's promise for an answer that is not an upgrade, an error, or a
    /// connection that closes first.
    private final class HandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        private let promise: EventLoopPromise<Opened>

        init(promise: EventLoopPromise<Opened>) {
            self.promise = promise
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let status = "\(head.status.code) \(head.status.reasonPhrase)"
            if (300..<400).contains(Int(head.status.code)) {
                promise.fail(FetchFailure(.badResponse, "the server answered \(status) (a WebSocket handshake does not follow redirects)"))
            } else if head.status == .switchingProtocols {
                promise.fail(FetchFailure(.badResponse, "the server's 101 answer is not a valid WebSocket upgrade (Upgrade or Sec-WebSocket-Accept)"))
            } else {
                promise.fail(FetchFailure(.badResponse, "the server answered \(status) instead of switching to WebSocket"))
            }
            context.close(promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if error is NIOHTTPClientUpgradeError {
                promise.fail(FetchFailure(.badResponse, "the server's answer is not a valid WebSocket upgrade"))
            } else {
                promise.fail(error)
            }
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(FetchFailure(.badResponse, "the connection closed during the WebSocket handshake"))
            context.fireChannelInactive()
        }
    }
}
