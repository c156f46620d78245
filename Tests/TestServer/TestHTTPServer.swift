import CZlib
import Foundation
import NIOCore
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the fetch tests, written on raw
/// NIO channels so that it can also misbehave on purpose: close-delimited bodies, truncated
/// bodies, a connection closed mid-stream, a megabyte header, responses that never come.
///
/// Every request is recorded byte for byte (method, target, headers, body), and so is every
/// connection the client closed before the server finished, so tests can check what was sent
/// and that an aborted request's connection was closed. One request per connection
/// (`Connection: close`).
public final class TestHTTPServer: @unchecked Sendable {
    public struct Request: Sendable {
        public var method: String
        public var target: String
        public var headers: [(name: String, value: String)]
        public var body: Data

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
        public var query: [String: String] {
            guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
            var result: [String: String] = [:]
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                result[String(parts[0])] = parts.count > 1 ? String(parts[1]).removingPercentEncoding : ""
            }
            return result
        }
    }

    /// Writes a response: `send` whole byte strings, or wait for the client to close.
    public struct Responder {
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        public let waitForClose: () async -> Void

        public func send(_ bytes: some Sequence<UInt8>) async throws {
            try await outbound.write(ByteBuffer(bytes: Array(bytes)))
        }
        public func send(_ text: String) async throws { try await send(Array(text.utf8)) }
        /// A whole response with a Content-Length.
        public func respond(status: String = "200 OK", headers: [String] = [], body: some Sequence<UInt8>) async throws {
            let bytes = Array(body)
            let head = "HTTP/1.1 \(status)\r\n" + (headers + ["Content-Length: \(bytes.count)", "Connection: close"])
                .map { $0 + "\r\n" }.joined() + "\r\n"
            try await send(Array(head.utf8) + bytes)
        }
        public func respond(status: String = "200 OK", headers: [String] = [], text: String) async throws {
            try await respond(status: status, headers: headers, body: Array(text.utf8))
        }
    }

    public typealias Handler = @Sendable (Request, Responder) async throws -> Void

    private let lock = NSRecursiveLock()  // recursive: waiters' conditions read the state under it
    private var requests: [Request] = []
    private var closedEarly: [String] = []
    private var waiters: [Waiter] = []
    private var nextWaiter = 0
    private var channel: (any Channel)?
    public private(set) var port = 0

    public var received: [Request] { lock.withLock { requests } }

    private struct Waiter {
        let id: Int
        let condition: @Sendable (TestHTTPServer) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
        var timer: Task<Void, Never>?
    }

    /// A `wait` whose condition did not hold within its time.
    public struct WaitTimedOut: Error, CustomStringConvertible {
        public let timeout: Duration
        public var description: String { "the test server's condition did not hold within \(timeout)" }
    }

    /// Returns once `condition` holds (checked at every request and early close); throws
    /// `WaitTimedOut` when it has not held after `timeout` (a test fails, never hangs).
    public func wait(timeout: Duration = .seconds(60), until condition: @escaping @Sendable (TestHTTPServer) -> Bool) async throws {
        let held = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = lock.withLock { () -> Int? in
                if condition(self) { return nil }
                nextWaiter += 1
                waiters.append(Waiter(id: nextWaiter, condition: condition, continuation: continuation))
                return nextWaiter
            }
            guard let id else { return continuation.resume(returning: true) }
            // Made once the waiter is in the list, so that it always finds it (or finds it gone).
            let timer = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }  // the condition held
                let expired = self.lock.withLock { () -> CheckedContinuation<Bool, Never>? in
                    guard let index = self.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return self.waiters.remove(at: index).continuation
                }
                expired?.resume(returning: false)
            }
            let cancelNow = lock.withLock { () -> Bool in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return true }
                waiters[index].timer = timer
                return false
            }
            if cancelNow { timer.cancel() }
        }
        if !held { throw WaitTimedOut(timeout: timeout) }
    }

    /// Changes the state and wakes the waiters whose condition now holds, in one locked step
    /// (no change can slip between a check and a wait).
    private func record(_ change: () -> Void) {
        let ready = lock.withLock { () -> [Waiter] in
            change()
            var ready: [Waiter] = []
            waiters.removeAll { waiter in
                guard waiter.condition(self) else { return false }
                ready.append(waiter)
                return true
            }
            return ready
        }
        for waiter in ready {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }
    /// The targets of requests whose connection the client closed before the response ended.
    public var closedByClient: [String] { lock.withLock { closedEarly } }
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server with `handler` (by default `standardRoutes`).
    public static func start(_ handler: Handler? = nil) async throws -> TestHTTPServer {
        let server = TestHTTPServer()
        let routes = handler ?? Self.standardRoutes
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HandOffFence.shared)
                    let connection = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                    // Served from here, not handed through the listener: a connection accepted
                    // as the listener closes would be dropped unserved, and swift-nio traps on
                    // an async channel dropped without its writer finished.
                    Task { await server.serve(connection, with: routes) }
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

    /// Closes the listener (connections in progress go on).
    public func stop() {
        lock.withLock { channel }?.close(promise: nil)
    }

    /// Closes the listener and returns once it is closed (its port then refuses connections).
    public func shutdown() async {
        try? await lock.withLock { channel }?.close()
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, with handler: Handler) async {
        try? await connection.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var buffer = ByteBuffer()
            var headEnd: Int?
            while headEnd == nil {
                guard var chunk = try await iterator.next() else { return }
                HandOffFence.shared.pass()
                buffer.writeBuffer(&chunk)
                headEnd = endOfHead(in: buffer)
            }
            guard let headEnd, let headBytes = buffer.readBytes(length: headEnd - buffer.readerIndex) else { return }
            let lines = String(decoding: headBytes, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let requestLine = lines.first?.split(separator: " ") ?? []
            guard requestLine.count >= 2 else { return }
            let headers = lines.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            var request = Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Data())
            let length = Int(request.header("content-length") ?? "0") ?? 0
            while buffer.readableBytes < length {
                guard var chunk = try await iterator.next() else { return }
                HandOffFence.shared.pass()
                buffer.writeBuffer(&chunk)
            }
            request.body = Data(buffer.readBytes(length: length) ?? [])
            record { requests.append(request) }
            let target = request.target
            let responder = Responder(outbound: outbound, waitForClose: { [self] in
                // The client closing its side (an abort) ends the inbound stream.
                var rest = iterator
                while (try? await rest.next()) != nil {}
                record { closedEarly.append(target) }
            })
            do {
                try await handler(request, responder)
            } catch {
                record { closedEarly.append(target) }
                return
            }
            // Every byte written, then the server's side shut (which ends a close-delimited
            // body); the connection closes when the client closes its side.
            outbound.finish()
            while (try? await iterator.next()) != nil {}
        }
    }

    public static let gzipped: [UInt8] = [
        31, 139, 8, 0, 0, 0, 0, 0, 2, 255, 203, 72, 205, 201, 201, 87, 72, 175, 202, 44, 80, 200, 24, 101, 142, 50, 71, 153, 163, 76,
        114, 153, 0, 76, 86, 215, 15, 76, 4, 0, 0,
    ]

    /// The bytes `/bytes` sends: byte i is (i × 31 + i >> 8) mod 256, which repeats every 64 KiB.
    public static let pattern: [UInt8] = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }

    /// How `compressed` wraps its deflate stream.
    public enum Wrapper: String, Sendable { case gzip, zlib, raw }

    /// `bytes` compressed with zlib's deflate, in a gzip wrapper, a zlib one (HTTP's `deflate`)
    /// or none (raw deflate, which some servers send as `deflate`).
    public static func compressed(_ bytes: [UInt8], wrapper: Wrapper = .gzip) -> [UInt8] {
        var stream = z_stream()
        let status = switch wrapper {
        case .gzip: czlib_deflate_init_gzip(&stream, 9)
        case .zlib: czlib_deflate_init_zlib(&stream, 9)
        case .raw: czlib_deflate_init_raw(&stream, 9)
        }
        guard status == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        var input = bytes
        let written = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target -> Int in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return 0 }
                return target.count - Int(stream.avail_out)
            }
        }
        return Array(output[..<written])
    }

    /// 64 MiB of zeros, gzipped (about 64 KB): what `/gzip-bomb` sends.
    public static let bomb = compressed([UInt8](repeating: 0, count: 64 << 20))

    /// The routes the fetch tests use.
    public static let standardRoutes: Handler = { request, responder in
        let query = request.query
        switch request.path {
        case "/json":
            try await responder.respond(headers: ["Content-Type: application/json"], text: #"{"hello":"world","n":1,"list":[1,2,3]}"#)
        case "/typed":
            try await responder.respond(headers: ["Content-Type: \(query["type"] ?? "")"], text: query["body"] ?? "")
        case "/hex":  // a body given as hex bytes (any bytes, not only UTF-8 text)
            let hex = Array((query["body"] ?? "").utf8)
            let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16) }
            try await responder.respond(headers: ["Content-Type: \(query["type"] ?? "")"], body: bytes)
        case "/script.js":
            let caching = query["cache"] != nil ? ["Cache-Control: max-age=600"] : []  // storable for the HTTP cache
            try await responder.respond(headers: ["Content-Type: text/javascript; charset=utf-8"] + caching, text: query["text"] ?? "")
        case "/set-cookies":
            try await responder.respond(headers: [
                "Set-Cookie: a=1; Path=/", "Set-Cookie: h=2; HttpOnly", "Set-Cookie: scoped=3; Path=/deep",
                "Set-Cookie: secure=4; Secure", "Set-Cookie: gone=5; Max-Age=0", "Set-Cookie: later=6; Max-Age=3600",
            ], text: "set")
        case "/expire-a":
            try await responder.respond(headers: ["Set-Cookie: a=; Max-Age=0; Path=/"], text: "expired")
        case "/echo-cookie", "/deep/echo-cookie":
            try await responder.respond(headers: ["Content-Type: text/plain"], text: request.header("cookie") ?? "(none)")
        case "/cached":
            // A validator and no freshness: every use revalidates; 304 when the tag matches.
            let tag = "\"\(query["tag"] ?? "v1")\""
            if request.header("if-none-match") == tag {
                try await responder.respond(status: "304 Not Modified", headers: ["ETag: \(tag)", "Cache-Control: max-age=0"], body: [UInt8]())
            } else {
                try await responder.respond(headers: ["ETag: \(tag)", "Cache-Control: max-age=0", "Content-Type: text/plain"],
                                            text: "body \(tag) #\(query["n"] ?? "")")
            }
        case "/modified":
            let stamp = "Tue, 03 Nov 2026 10:00:00 GMT"
            if request.header("if-modified-since") == stamp {
                try await responder.respond(status: "304 Not Modified", body: [UInt8]())
            } else {
                try await responder.respond(headers: ["Last-Modified: \(stamp)", "Cache-Control: no-cache"], text: "modified body")
            }
        case "/fresh":
            try await responder.respond(headers: ["Cache-Control: max-age=3600", "Content-Type: text/plain"],
                                        text: "fresh #\(query["n"] ?? "")")
        case "/no-store":
            try await responder.respond(headers: ["Cache-Control: no-store", "ETag: \"x\""], text: "not stored")
        case "/utf8-header":
            try await responder.respond(headers: ["X-Text: caf\u{e9}"], text: "ok")
        case "/untyped":
            try await responder.respond(body: [1, 2, 3])
        case "/bad-json":
            try await responder.respond(headers: ["Content-Type: application/json"], text: #"{"hello": "#)
        case "/html":
            try await responder.respond(headers: ["Content-Type: text/html; charset=utf-8"], text: "<p>h\u{e9}llo</p>")
        case "/latin1":
            try await responder.respond(headers: ["Content-Type: text/plain; charset=ISO-8859-1"], body: [0x63, 0x61, 0x66, 0xE9, 0x80])
        case "/bytes":
            let count = Int(query["n"] ?? "256") ?? 256
            let chunk = Int(query["chunk"] ?? "65536") ?? 65536
            let caching = query["cache"] != nil ? "Cache-Control: max-age=600\r\n" : ""  // storable for the HTTP cache
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(count)\r\n\(caching)Connection: close\r\n\r\n")
            var sent = 0
            while sent < count {
                let size = min(chunk, count - sent, pattern.count - sent % pattern.count)
                try await responder.send(pattern[(sent % pattern.count)..<(sent % pattern.count + size)])
                sent += size
            }
        case "/status":
            let code = query["code"] ?? "404"
            if let size = query["size"].flatMap({ Int($0) }) {  // a body of `size` bytes, whatever the status
                try await responder.respond(status: "\(code) \(query["reason"] ?? "Whatever")", headers: ["Content-Type: text/plain"],
                                            body: [UInt8](repeating: UInt8(ascii: "s"), count: size))
            } else {
                try await responder.respond(status: "\(code) \(query["reason"] ?? "Whatever")", headers: ["Content-Type: text/plain"],
                                            text: code == "204" || code == "304" ? "" : "status \(code)")
            }
        case "/redirect":
            let remaining = Int(query["n"] ?? "1") ?? 1
            let status = query["status"] ?? "302"
            let location = remaining > 1 ? "/redirect?n=\(remaining - 1)&status=\(status)&to=\(query["to"] ?? "/json")" : (query["to"] ?? "/json")
            if let size = query["body"].flatMap({ Int($0) }) {  // a redirect with a body of `size` bytes
                try await responder.respond(status: "\(status) Moved", headers: ["Location: \(location)"],
                                            body: [UInt8](repeating: UInt8(ascii: "r"), count: size))
            } else {
                try await responder.respond(status: "\(status) Moved", headers: ["Location: \(location)"], text: "moved")
            }
        case "/echo":
            var headers = ["Content-Type: \(request.header("content-type") ?? "application/octet-stream")", "X-Method: \(request.method)"]
            if let agent = request.header("user-agent") { headers.append("X-User-Agent: \(agent)") }
            try await responder.respond(headers: headers, body: request.body)
        case "/chunked":
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            for part in ["first,", "second,", "third"] {
                try await responder.send(String(part.utf8.count, radix: 16) + "\r\n" + part + "\r\n")
            }
            try await responder.send("0\r\n\r\n")
        case "/no-length":
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nuntil the connection closes")
        case "/gzip":
            try await responder.respond(headers: ["Content-Type: text/plain", "Content-Encoding: gzip"], body: gzipped)
        case "/compressed":
            // `n` bytes of `pattern` in `coding` (gzip, x-gzip, deflate; `raw=1`: deflate without
            // its zlib header); `damage`: "cut" sends the first half of the stream, "trailing"
            // adds bytes after its end, "corrupt" breaks it after its header; `stack=1` says
            // the coding on two header lines.
            let count = Int(query["n"] ?? "1000") ?? 1000
            let coding = query["coding"] ?? "gzip"
            let wrapper: Wrapper = coding != "deflate" ? .gzip : query["raw"] != nil ? .raw : .zlib
            var body = compressed((0..<count).map { pattern[$0 % pattern.count] }, wrapper: wrapper)
            switch query["damage"] {
            case "cut": body = Array(body.prefix(body.count / 2))
            case "trailing": body += Array("trailing".utf8)
            case "corrupt": body.replaceSubrange(12..<min(body.count, 40), with: repeatElement(0xFF, count: min(body.count, 40) - 12))
            default: break
            }
            let codings = Array(repeating: "Content-Encoding: \(coding)", count: query["stack"] != nil ? 2 : 1)
            try await responder.respond(headers: ["Content-Type: application/octet-stream"] + codings, body: body)
        case "/gzip-bomb":
            try await responder.respond(headers: ["Content-Type: application/octet-stream", "Content-Encoding: gzip"], body: bomb)
        case "/gzip-script.js":
            try await responder.respond(headers: ["Content-Type: text/javascript", "Content-Encoding: gzip"],
                                        body: compressed(Array((query["text"] ?? "").utf8)))
        case "/truncated":
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nConnection: close\r\n\r\nonly ten.")
        case "/close-mid-stream":
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n")
        case "/huge-header":
            try await responder.send("HTTP/1.1 200 OK\r\nX-Huge: " + String(repeating: "x", count: 1 << 20) + "\r\nContent-Length: 2\r\n\r\nok")
        case "/slow-body":
            // The head and a first chunk, then nothing until the client goes away.
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nfirst\r\n")
            await responder.waitForClose()
        case "/hang":
            await responder.waitForClose()
        default:
            try await responder.respond(status: "404 Not Found", text: "no route \(request.path)")
        }
    }
}

/// The reader index just past the blank line that ends a request's head in `buffer`, if it has
/// arrived. (A loop over the bytes: _StringProcessing's generic `firstRange(of:)` looks up
/// generic metadata for every byte in a debug build, behind one runtime-wide lock that the
/// sanitized suites' many threads queue on.)
func endOfHead(in buffer: ByteBuffer) -> Int? {
    buffer.withUnsafeReadableBytes { bytes -> Int? in
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
            return buffer.readerIndex + index + 4
        }
        return nil
    }
}

/// A lock that the event loop passes through after a read filled its buffer, and the task that
/// takes the buffer passes through before reading it: the hand-off as ThreadSanitizer can see
/// it. `NIOAsyncChannel` hands buffers over by resuming a continuation, and one resumed before
/// its task suspends is an edge ThreadSanitizer does not see (swiftlang/swift#57803): it then
/// reports the buffer's bytes as a race between the loop and the task.
final class HandOffFence: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let shared = HandOffFence()
    private let lock = NSLock()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pass()
        context.fireChannelRead(data)
    }

    func pass() {
        lock.lock()
        lock.unlock()
    }
}
