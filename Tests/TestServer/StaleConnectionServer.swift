import Foundation
import NIOCore
import NIOPosix

/// An HTTP/1.1 server on 127.0.0.1 that keeps connections alive without meaning it: it answers
/// the first request of each connection (`200`, `ok`, no `Connection: close`), then closes the
/// connection when the next request arrives on it, without a word, as a server whose keep-alive
/// timeout fired does. A client that reuses the connection sees it closed before any response.
public final class StaleConnectionServer: @unchecked Sendable {
    private let lock = NSLock()
    private var channel: (any Channel)?
    private var connectionCount = 0
    private var dropped = 0
    public private(set) var port = 0

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Connections accepted so far.
    public var connections: Int { lock.withLock { connectionCount } }
    /// Requests that arrived on a reused connection and were dropped by closing it.
    public var droppedRequests: Int { lock.withLock { dropped } }

    public static func start() async throws -> StaleConnectionServer {
        let server = StaleConnectionServer()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HandOffFence.shared)
                    let connection = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    // Served from here, not handed through the listener (see TestHTTPServer.start).
                    server.lock.withLock { server.connectionCount += 1 }
                    Task { await server.serve(connection) }
                }
            }
        server.channel = listener.channel
        server.port = listener.channel.localAddress?.port ?? 0
        Task {
            try? await listener.executeThenClose { accepted in
                for try await _ in accepted {}
            }
        }
        return server
    }

    public func stop() {
        lock.withLock { channel }?.close(promise: nil)
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        try? await connection.executeThenClose { inbound, outbound in
            var buffer = ByteBuffer()
            var served = 0
            for try await var chunk in inbound {
                HandOffFence.shared.pass()
                buffer.writeBuffer(&chunk)
                // Requests without bodies: each ends at its blank line.
                while let end = endOfHead(in: buffer) {
                    buffer.moveReaderIndex(to: end)
                    if served > 0 {
                        lock.withLock { dropped += 1 }
                        return  // closed, without a response
                    }
                    served += 1
                    try await outbound.write(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
                }
            }
        }
    }
}
