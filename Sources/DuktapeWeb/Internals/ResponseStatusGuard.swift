import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// Refuses, on the connection, a response head that async-http-client must never see: a
/// status outside 100...599, or 101 (no upgrade was asked for).
///
/// NIO's decoder reads any three digits, so `HTTP/1.1 099 Low` arrives as status 99, which is
/// not informational for NIO and is forwarded as a response; async-http-client 1.37 drops it as
/// informational and then traps on the body or end that follows (a `precondition` in its
/// request state machine): one hostile server crashed the process. 101 was taken as a final
/// response. Statuses 600 to 999 are refused as browsers refuse them (Fetch: a status is
/// 200...599, or a 1xx, which the client skips). 100 and 102 to 199 pass: async-http-client
/// skips them.
///
/// The guard sits right after the decoder (installed through the client's per-connection
/// initializer, before the connection serves a request); a refused head fails the request with
/// `InvalidStatus` and closes the connection, whose later bytes are dropped.
final class ResponseStatusGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// The error a refused head fails its request with.
    struct InvalidStatus: Error, CustomStringConvertible {
        let code: UInt
        var description: String {
            code == 101 ? "the server switched protocols (101), which no request asked for"
                : "the server answered with the invalid status \(code)"
        }
    }

    private var refused = false

    /// Whether a response head with `code` is refused.
    static func refuses(_ code: UInt) -> Bool {
        code < 100 || code > 599 || code == 101
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        if case .head(let head) = unwrapInboundIn(data), Self.refuses(head.status.code) {
            refused = true
            context.fireErrorCaught(InvalidStatus(code: head.status.code))
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// Adds the guard after the response decoder of an HTTP/1.1 connection `channel`.
    static func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self)
            try pipeline.addHandler(ResponseStatusGuard(), position: .after(decoder))
        }
    }
}
