@_spi(Fuzzing) import DuktapeWeb
import Foundation
import FuzzSupport
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// Harness 5: what HTTP peers send that the host bounds (issue 32).
/// - First byte even: the rest is a server's bytes after a GET, through NIO's response decoder
///   and the host's status guard: no head outside 100...599, nor a 101, may pass the guard (such
///   a head reached async-http-client's traps), and nothing may trap.
/// - First byte odd: the rest is `Set-Cookie` lines, each parsed and stored as from a server:
///   every cookie parsed is within the limits (name and value, domain, path), and the store stays
///   within its byte and count limits.
/// A broken invariant traps, which libFuzzer reports with the input.

/// Collects what passes the guard.
final class Collector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    var statuses: [UInt] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { statuses.append(head.status.code) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

func fuzzStatusLines(_ bytes: [UInt8]) {
    let channel = EmbeddedChannel()
    let collector = Collector()
    do {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(HTTPRequestEncoder())
        try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)))
        try pipeline.addHandler(DuktapeWeb._responseStatusGuard())
        try pipeline.addHandler(collector)
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "127.0.0.1"])
        try channel.writeOutbound(HTTPClientRequestPart.head(head))
        try channel.writeOutbound(HTTPClientRequestPart.end(nil))
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes))
    } catch {
        // The pipeline refused the bytes (a parse error): nothing passed.
    }
    _ = try? channel.finish()
    for code in collector.statuses where code < 100 || code > 599 || code == 101 {
        fail("fuzz-peers: a response with status \(code) passed the status guard")
    }
}

func fuzzCookies(_ bytes: [UInt8]) {
    guard let url = URL(string: "http://sub.example.com/a/b/c") else { return }
    let store = CookieStore()
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    for (index, line) in lines.prefix(64).enumerated() {
        // Each line also repeated with a counter in its name, so that the jar fills.
        for copy in 0..<(index == 0 ? 40 : 1) {
            let header = copy == 0 ? String(line) : "n\(copy)" + line
            guard let cookie = HTTPCookie(setCookie: header, from: url) else { continue }
            if cookie.name.utf8.count + cookie.value.utf8.count > HTTPCookie.maximumNameAndValueBytes
                || cookie.domain.utf8.count > HTTPCookie.maximumAttributeValueBytes
                || cookie.path.utf8.count > HTTPCookie.maximumAttributeValueBytes {
                fail("fuzz-peers: a cookie over the limits was parsed from \(header.prefix(200))")
            }
            store.setCookie(cookie)
        }
    }
    let all = store.allCookies
    let bytesStored = all.reduce(0) { $0 + $1.byteCount }
    if all.count > CookieStore.maximumCookies || bytesStored > CookieStore.maximumBytes {
        fail("fuzz-peers: the store holds \(all.count) cookies, \(bytesStored) bytes")
    }
}

func fuzzPeers(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] % 2 == 0 { fuzzStatusLines(bytes) } else { fuzzCookies(bytes) }
    return 0
}

func fail(_ text: String) -> Never {
    _ = (text + "\n").withCString { write(2, $0, strlen($0)) }
    abort()
}
