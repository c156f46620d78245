import DuktapeCore
import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket

extension WebSocketServer {
    /// The server's state shared by its connections: who is connected, what each has not
    /// written, the event queue, and the handshake of each accepted connection.
    final class Core: Sendable {
        let configuration: WebSocketServerConfiguration
        let queue: EventQueue<Event>
        /// Accepted connections, until each has closed.
        let activity = ActivityCount()
        private let state = Guarded(State())

        private struct State {
            /// Every accepted connection's channel, by serial (closed by `closeAll`).
            var channels: [Int: any Channel] = [:]
            var serial = 0
            var clients: [Int: Entry] = [:]
            var nextClient = 0
            var closed = false
        }

        struct Entry {
            let client: Client
            let handle: WebSocketConnection.Handle
            /// Bytes handed to the connection and not yet written to its socket, and the most
            /// there ever were (tests: what `send(fileAt:)`'s window holds).
            var unwritten = 0
            var peakUnwritten = 0
            /// The connection is closing (its close began, or a write failed): sends fail at once.
            var closing = false
        }

        init(configuration: WebSocketServerConfiguration) {
            self.configuration = configuration
            let link = CoreLink()
            queue = EventQueue(highWater: max(configuration.maximumUnreadBytes, 1)) { id in
                link.core?.handle(ofClient: id)?.resumeReading()
            }
            link.core = self
        }

        var clients: [Client] {
            state.withLock { state in state.clients.values.map { $0.client }.sorted { $0.id < $1.id } }
        }

        func handle(of client: Client) -> WebSocketConnection.Handle? {
            handle(ofClient: client.id)
        }

        func handle(ofClient id: Int) -> WebSocketConnection.Handle? {
            state.withLock { $0.clients[id]?.handle }
        }

        /// The most bytes `client` has had unwritten (nil once it is gone).
        func peakUnwritten(of client: Client) -> Int? {
            state.withLock { $0.clients[client.id]?.peakUnwritten }
        }

        /// An event of `client`'s: past the unread limit, its reading stops until the program
        /// has taken enough.
        func emit(_ event: Event, cost: Int = 0, from client: Client) {
            // Every event costs at least what holding it costs, so that empty ones count too.
            if queue.append(event, cost: max(cost, 0) + Self.eventOverhead, producer: client.id) {
                handle(ofClient: client.id)?.pauseReading()
            }
        }

        /// The bytes an event counts for beyond its payload.
        static let eventOverhead = 128

        // MARK: - Accepting

        /// A new connection (on its event loop): the HTTP pipeline with the WebSocket upgrade at
        /// `configuration.path`, under the handshake's deadline.
        func accept(_ channel: any Channel) throws {
            let configuration = self.configuration
            let serial = state.withLock { state -> Int? in
                guard !state.closed, state.channels.count < configuration.maximumClients else { return nil }
                state.serial += 1
                state.channels[state.serial] = channel
                return state.serial
            }
            guard let serial else {
                channel.close(promise: nil)
                return
            }
            let token = activity.begin()
            let seconds = configuration.handshakeTimeout.isFinite ? min(max(configuration.handshakeTimeout, 0), 1e6) : 10
            let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
                channel.close(promise: nil)
            }
            channel.closeFuture.whenComplete { [self] _ in
                // The deadline holds the channel: a connection that ends before its handshake
                // lets go of it at once, not at the deadline.
                deadline.cancel()
                state.withLock { _ = $0.channels.removeValue(forKey: serial) }
                activity.end(token)
            }
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: WebSocketConnection.maximumFrameSize(.init(maximumMessageBytes: configuration.maximumMessageBytes)),
                automaticErrorHandling: false,
                shouldUpgrade: { channel, head in
                    guard Self.path(of: head.uri) == configuration.path else { return channel.eventLoop.makeSucceededFuture(nil) }
                    var headers = HTTPHeaders()
                    if configuration.compression, let (_, answer) = PerMessageDeflate.negotiate(offers: head.headers["Sec-WebSocket-Extensions"]) {
                        headers.add(name: "Sec-WebSocket-Extensions", value: answer)
                    }
                    return channel.eventLoop.makeSucceededFuture(headers)
                },
                upgradePipelineHandler: { [self] channel, head in
                    deadline.cancel()
                    return channel.eventLoop.makeCompletedFuture { try self.upgraded(channel, head) }
                })
            // The refusal of plain HTTP requests leaves with the HTTP handlers: the frame codec
            // goes after it, and it must not see the frames' bytes.
            let refusal = NIOLoopBound(Refusal(path: configuration.path), eventLoop: channel.eventLoop)
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withServerUpgrade: (upgraders: [upgrader], completionHandler: { context in
                    context.pipeline.syncOperations.removeHandler(refusal.value, promise: nil)
                }), withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(refusal.value)
        }

        /// The path of a request target, without its query.
        static func path(of uri: String) -> Substring {
            uri.prefix { $0 != "?" && $0 != "#" }
        }

        /// The handshake succeeded: the connection, its session, and the Hello frame.
        private func upgraded(_ channel: any Channel, _ head: HTTPRequestHead) throws {
            let deflate = configuration.compression
                ? PerMessageDeflate.negotiate(offers: head.headers["Sec-WebSocket-Extensions"]).flatMap { PerMessageDeflate(parameters: $0.0, isServer: true) }
                : nil
            let client = state.withLock { state -> Client in
                state.nextClient += 1
                return Client(id: state.nextClient, address: channel.remoteAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?")
            }
            let session = Session(client: client, core: self)
            let connection = WebSocketConnection(
                role: .server, limits: .init(maximumMessageBytes: configuration.maximumMessageBytes), deflate: deflate,
                onEvent: session.received)
            let handle = WebSocketConnection.Handle(connection, on: channel)
            let refused = state.withLock { state -> Bool in
                guard !state.closed else { return true }
                state.clients[client.id] = Entry(client: client, handle: handle)
                return false
            }
            if refused {
                channel.close(promise: nil)
                return
            }
            // Opened before the handler is in the pipeline: a connection that is already gone
            // reports its end there, after its start (and the session's timer is released).
            session.opened(handle, connection: connection, on: channel.eventLoop)
            try channel.pipeline.syncOperations.addHandler(connection)
            session.greet()
        }

        // MARK: - Sending

        /// How many bytes a client may have unwritten before `send` waits for the write of the
        /// next message (as Python's websockets waits for its transport's buffer to drain): a
        /// sender that sends one message after another leaves at most this and two messages
        /// unwritten.
        static let sendHighWater = 64 << 10

        /// Writes `payload` to `client` (counted as unwritten until its socket took it). Throws
        /// for a client that is gone or closing, and closes with 1008 (and throws) a client that
        /// has more than `maximumBufferedBytes` unwritten when the message comes. Returns the
        /// write's future and the client's unwritten bytes before the message.
        func write(_ payload: ByteBuffer, text: Bool = false, to client: Client) throws -> (written: EventLoopFuture<Void>, before: Int) {
            let size = payload.readableBytes
            let limit = configuration.maximumBufferedBytes
            enum Admission { case gone, closing, over(WebSocketConnection.Handle), admitted(WebSocketConnection.Handle, before: Int) }
            let admission = state.withLock { state -> Admission in
                guard var entry = state.clients[client.id] else { return .gone }
                if entry.closing { return .closing }
                if entry.unwritten > limit {
                    entry.closing = true
                    state.clients[client.id] = entry
                    return .over(entry.handle)
                }
                let before = entry.unwritten
                entry.unwritten += size
                entry.peakUnwritten = max(entry.peakUnwritten, entry.unwritten)
                state.clients[client.id] = entry
                return .admitted(entry.handle, before: before)
            }
            switch admission {
            case .gone:
                throw WebSocketServerError.noSuchClient(client)
            case .closing:
                throw WebSocketServerError.connectionClosed(client)
            case .over(let handle):
                handle.close(code: 1008, reason: "the client did not read \(limit) bytes sent to it")
                throw WebSocketServerError.connectionClosed(client)
            case .admitted(let handle, let before):
                let written = handle.send(text: text, payload).always { [self] result in
                    state.withLock { state -> Void in
                        state.clients[client.id]?.unwritten -= size
                        // Dropped with its connection: the sends after it fail at once.
                        if case .failure = result { state.clients[client.id]?.closing = true }
                    }
                }.flatMapErrorThrowing { _ in throw WebSocketServerError.connectionClosed(client) }
                return (written, before)
            }
        }

        /// Marks `client` closing (its close began): sends to it fail from now on.
        func markClosing(_ client: Client) {
            state.withLock { $0.clients[client.id]?.closing = true }
        }

        /// Sends to `client`, or to every client; waits for the writes of each client that had
        /// more than `sendHighWater` bytes unwritten before this message.
        func send(text: Bool, _ payload: ByteBuffer, to client: Client?) async throws {
            if let client {
                let (written, before) = try write(payload, text: text, to: client)
                if before > Self.sendHighWater { try await written.get() }
                return
            }
            // Every client's write is started before any is awaited: one that does not read
            // delays only its own.
            var writes: [EventLoopFuture<Void>] = []
            var firstError: (any Error)?
            for client in clients {
                do {
                    let (written, before) = try write(payload, text: text, to: client)
                    if before > Self.sendHighWater { writes.append(written) }
                } catch {
                    firstError = firstError ?? error
                }
            }
            for written in writes {
                do { try await written.get() } catch { firstError = firstError ?? error }
            }
            if let firstError { throw firstError }
        }

        /// The client's connection closed: it is forgotten.
        func remove(_ client: Client) {
            state.withLock { _ = $0.clients.removeValue(forKey: client.id) }
        }

        /// Refuses new connections and closes every connection: open ones with 1001, the
        /// others (in their handshake) at once.
        func closeAll() {
            let (channels, handles) = state.withLock { state -> ([any Channel], [Int: WebSocketConnection.Handle]) in
                state.closed = true
                for id in state.clients.keys { state.clients[id]?.closing = true }
                return (Array(state.channels.values), state.clients.mapValues { $0.handle })
            }
            let open = Set(handles.values.map { ObjectIdentifier($0.channel) })
            for handle in handles.values { handle.goAway() }
            for channel in channels where !open.contains(ObjectIdentifier(channel)) { channel.close(promise: nil) }
        }
    }

    /// The core, weakly, for the closures it makes in its initializer.
    private final class CoreLink: @unchecked Sendable {
        // @unchecked: set once, in Core.init, before any closure can read it.
        weak var core: Core?
    }

    /// Answers an HTTP request that is not an upgrade: 404 for another path, 426 for the
    /// server's path, then closes.
    private final class Refusal: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        private let path: String
        private var status: HTTPResponseStatus = .notFound

        init(path: String) {
            self.path = path
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Core.path(of: head.uri) == path ? .upgradeRequired : .notFound
            case .body:
                break
            case .end:
                var headers = HTTPHeaders()
                headers.add(name: "Connection", value: "close")
                headers.add(name: "Content-Length", value: "0")
                if status == .upgradeRequired { headers.add(name: "Upgrade", value: "websocket") }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
