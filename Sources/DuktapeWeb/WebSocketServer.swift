import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// An in-app WebSocket server speaking LWWebSocket's framing: the `WebSocketManager` of the
/// LWWebSocket pod, in Swift on swift-nio, for websocket.html (`WebLoader`'s WebSocket methods)
/// and any client that speaks the framing (`WebSocketMessageType`).
///
/// ```swift
/// let server = try await WebSocketServer()
/// print("ws://127.0.0.1:\(server.port)/service")
/// for await event in server.events {
///     if case .message(let client, _, let text) = event {
///         try? await server.send(text: "echo: " + text, to: client)
///     }
/// }
/// ```
///
/// What it does, as the original did: the Hello frame (`01 00 00 00` + "hello world!") when a
/// client connects; text envelopes (`{"messageType": 6, "messageBody": …}`) become `.message`
/// events, binary frames `.data` events by their type; streams (types 3, 4, 5) are written to a
/// file each; a heartbeat watchdog closes a client that stays silent. What it does differently:
/// - every client is kept and addressed (`Client`), not only the last one;
/// - `send(fileAt:to:)` reads the file only as fast as the client takes it, and fails without
///   sending anything for a file it cannot open (the original sent a start and an end);
/// - each received stream has a file of its own (the original appended every stream to one);
/// - hostile input has a defined outcome: a binary frame shorter than its type and a text frame
///   that is not an envelope are `.invalidMessage` events (the connection stays open); a
///   protocol error closes with 1002, invalid UTF-8 with 1007, a message past
///   `maximumMessageBytes` with 1009, a client that does not read with 1008;
/// - `shutdown()` closes every connection with 1001 and releases the port.
///
/// Events are delivered once each, in order per client, either to the handlers given to
/// `init` or, without handlers, through `events`.
public final class WebSocketServer: Sendable {
    /// The configuration the server was started with.
    ///
    /// ```swift
    /// let server = try await WebSocketServer()
    /// print(server.configuration.path)   // prints: /service
    /// await server.shutdown()
    /// ```
    public let configuration: WebSocketServerConfiguration
    /// The port the server listens on (the one chosen when the configuration's is 0).
    ///
    /// ```swift
    /// let url = URL(string: "ws://127.0.0.1:\(server.port)/service")
    /// ```
    public let port: Int

    let core: Core
    /// The server's own event loops: work that floods the process's shared loops (swift-nio's
    /// singleton group) cannot hold its connections. A loop runs every task queued before it
    /// looks at its sockets again, so a loop kept busy by other work read no handshake
    /// meanwhile, and the handshake's deadline closed it unanswered.
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let delivery: Task<Void, Never>?
    /// The shutdown, made by the first `shutdown()` and awaited by every one: once the group
    /// has ended, nothing may be handed to its loops (a close would never complete).
    private let stopping = Guarded<Task<Void, Never>?>(nil)

    /// Starts listening. Without handlers, the events go to `events`; with either handler, to
    /// the handlers (called one at a time, in order; LWWebSocket's `handleReceiveMessage` and
    /// `handleReceiveData`, whose data is the stream file's path as UTF-8 for a stream's end,
    /// and nil for its start and chunks, and for a stream that could not be written).
    ///
    /// ```swift
    /// let server = try await WebSocketServer(handleReceiveMessage: { client, type, text in
    ///     print(client, type, text)
    /// })
    /// ```
    public init(
        configuration: WebSocketServerConfiguration = WebSocketServerConfiguration(),
        handleReceiveMessage: (@Sendable (Client, WebSocketMessageType, String) -> Void)? = nil,
        handleReceiveData: (@Sendable (Client, WebSocketMessageType, Data?) -> Void)? = nil
    ) async throws {
        self.configuration = configuration
        let core = Core(configuration: configuration)
        self.core = core
        let group = MultiThreadedEventLoopGroup(numberOfThreads: min(max(1, configuration.eventLoopThreads), 64))
        self.group = group
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try core.accept(channel) }
            }
        do {
            listener = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw WebSocketServerError.cannotListen(host: configuration.host, port: configuration.port, reason: "\(error)")
        }
        port = listener.localAddress?.port ?? configuration.port
        if handleReceiveMessage != nil || handleReceiveData != nil {
            let queue = core.queue
            delivery = Task {
                while let event = await queue.next() {
                    Self.deliver(event, message: handleReceiveMessage, data: handleReceiveData)
                }
            }
        } else {
            delivery = nil
        }
    }

    deinit {
        // After `shutdown()` everything is closed already, the group included.
        guard stopping.withLock({ $0 == nil }) else { return }
        listener.close(promise: nil)
        core.closeAll()
        delivery?.cancel()
        // Without waiting: its threads end once the closes above have run.
        group.shutdownGracefully { _ in }
    }

    private static func deliver(
        _ event: Event, message: (@Sendable (Client, WebSocketMessageType, String) -> Void)?,
        data: (@Sendable (Client, WebSocketMessageType, Data?) -> Void)?
    ) {
        switch event {
        case .message(let client, let type, let text): message?(client, type, text)
        case .data(let client, let type, let bytes): data?(client, type, bytes)
        case .streamStart(let client): data?(client, .streamStart, nil)
        case .streaming(let client, _): data?(client, .streaming, nil)
        case .streamEnd(let client, let file): data?(client, .streamEnd, Data(file.path.utf8))
        case .streamFailed(let client, _): data?(client, .streamEnd, nil)
        case .connected, .disconnected, .invalidMessage: break
        }
    }

    /// The server's events, in order per client; empty when handlers were given to `init`.
    /// One task iterates it; it ends after `shutdown()`.
    ///
    /// ```swift
    /// for await event in server.events { print(event) }
    /// ```
    public var events: Events {
        Events(queue: delivery == nil ? core.queue : nil)
    }

    /// The clients connected now.
    ///
    /// ```swift
    /// print(server.clients.count)
    /// ```
    public var clients: [Client] {
        core.clients
    }

    // MARK: - Sending

    /// Sends `text` as a raw text frame (LWWebSocket's `sendMessage:`) to `client`, or to every
    /// client when nil. Returns once it is queued for the client's socket; when the client
    /// already had more than 64 KiB unwritten, once it is written (a client that reads slowly
    /// holds its sender back). Throws `WebSocketServerError.noSuchClient` for a client that is
    /// gone, `.connectionClosed` for one whose close has begun (by `close(_:code:reason:)`, the
    /// watchdog, the client, or a write that failed), that goes while its sender waits, or that
    /// has more than `maximumBufferedBytes` unwritten when the message comes (it is then
    /// closed with 1008).
    ///
    /// ```swift
    /// try await server.send(text: "hello", to: client)
    /// ```
    public func send(text: String, to client: Client? = nil) async throws {
        var buffer = ByteBuffer()
        buffer.writeString(text)
        try await core.send(text: true, buffer, to: client)
    }

    /// Sends `data` as a binary frame of `type` (default `.data`, LWWebSocket's `sendData:`):
    /// the type's 4 little-endian bytes, then `data`. Returns and throws as `send(text:to:)`.
    ///
    /// ```swift
    /// try await server.send(data: Data([1, 2, 3]), to: client)
    /// ```
    public func send(data: Data, type: WebSocketMessageType = .data, to client: Client? = nil) async throws {
        try await core.send(text: false, Self.frame(type, data), to: client)
    }

    /// Streams the file at `url` to `client` (LWWebSocket's `sendDataWithFileURL:`): a
    /// `streamStart` frame, the file in `chunkSize` chunks as `streaming` frames, then
    /// `streamEnd`, and returns once all of it is written. At most 256 KiB (or 8 chunks, when
    /// larger) and one chunk are read ahead of what the client's socket has taken, so a slow
    /// client does not make the server hold the file. Throws for a file that cannot be opened
    /// (nothing is sent) and for a client that goes away.
    ///
    /// ```swift
    /// try await server.send(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"), to: client)
    /// ```
    public func send(fileAt url: URL, to client: Client) async throws {
        let fd = Foundation.open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WebSocketServerError.cannotReadFile(url, reason: String(cString: strerror(errno))) }
        defer { Foundation.close(fd) }
        let chunkSize = max(configuration.chunkSize, 1)
        try await core.send(text: false, Self.frame(.streamStart, Data()), to: client)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        // At most this many bytes written and not yet taken by the socket.
        let window = max(chunkSize * 8, 256 << 10)
        var inFlight: [(EventLoopFuture<Void>, Int)] = []
        var outstanding = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, chunkSize) }
            guard count >= 0 else { throw WebSocketServerError.cannotReadFile(url, reason: String(cString: strerror(errno))) }
            if count == 0 { break }
            var buffer = ByteBuffer()
            buffer.reserveCapacity(4 + count)
            buffer.writeInteger(WebSocketMessageType.streaming.rawValue, endianness: .little)
            buffer.writeBytes(chunk[0..<count])
            inFlight.append((try core.write(buffer, to: client).written, count))
            outstanding += count
            if outstanding > window {
                // Writes complete in order: the task waits for the write that brings the window
                // down to half, sleeping through the others' completions instead of waking for
                // each chunk.
                var count = 0, bytes = 0
                while count < inFlight.count && outstanding - bytes > window / 2 {
                    bytes += inFlight[count].1
                    count += 1
                }
                try await inFlight[count - 1].0.get()
                inFlight.removeFirst(count)
                outstanding -= bytes
            }
        }
        // Writes complete in order: once the end is written, so is every chunk (a failed one
        // fails the end too, its connection gone).
        try await core.write(Self.frame(.streamEnd, Data()), to: client).written.get()
    }

    /// A binary frame's payload: `type` as 4 little-endian bytes, then `data`.
    static func frame(_ type: WebSocketMessageType, _ data: Data) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(4 + data.count)
        buffer.writeInteger(type.rawValue, endianness: .little)
        buffer.writeBytes(data)
        return buffer
    }

    /// Closes `client` with `code` (default 1000) and `reason`.
    ///
    /// ```swift
    /// server.close(client, code: 4000, reason: "kicked")
    /// ```
    public func close(_ client: Client, code: UInt16 = 1000, reason: String = "") {
        core.markClosing(client)
        core.handle(of: client)?.close(code: code, reason: WebSocketConnection.closeReason(reason))
    }

    // MARK: - Stopping

    /// Stops accepting, closes every connection with 1001 (Going Away), releases the port, and
    /// returns once every connection is closed and `events` has ended. Idempotent.
    ///
    /// ```swift
    /// await server.shutdown()
    /// ```
    public func shutdown() async {
        let stopped = stopping.withLock { stopping in
            if let stopping { return stopping }
            let task = Task { [listener, core, delivery, group] in
                try? await listener.close()
                core.closeAll()
                await core.activity.idle()
                core.queue.finish()
                await delivery?.value
                try? await group.shutdownGracefully()
            }
            stopping = task
            return task
        }
        await stopped.value
    }
}
