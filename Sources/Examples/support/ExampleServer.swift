import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server for the examples, on SwiftNIO: each request is answered by
/// `answer(head, body) → (content type, bytes)`, then the connection closes.
public final class ExampleServer: Sendable {
    public typealias Answer = @Sendable (_ head: HTTPRequestHead, _ body: [UInt8]) -> (String, [UInt8])
    let channel: any Channel
    /// The port it listens on (127.0.0.1).
    public var port: Int { channel.localAddress?.port ?? 0 }

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// A server on a free port of 127.0.0.1.
    public static func start(_ answer: @escaping Answer) async throws -> ExampleServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(answer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return ExampleServer(channel: channel)
    }

    /// Stops listening.
    public func stop() async throws {
        try await channel.close()
    }

    /// Collects a request, then answers it.
    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        private let answer: Answer
        private var head: HTTPRequestHead?
        private var body = ByteBuffer()

        init(_ answer: @escaping Answer) {
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body.clear()
            case .body(var chunk):
                body.writeBuffer(&chunk)
            case .end:
                guard let head else { return }
                let (type, bytes) = answer(head, Array(body.readableBytesView))
                var headers = HTTPHeaders([("Content-Type", type), ("Content-Length", "\(bytes.count)")])
                headers.add(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
