import ChildProcess
import DuktapeCore
import Foundation
import NIOCore
import NIOPosix
import TestServer
import Testing

@testable import DuktapeWeb

/// Hostile peers against `WebSocketServer` (the protocol-level ones, a 100 MB frame, invalid
/// UTF-8, reserved opcodes, masking, are in the conformance suite): each has a defined outcome
/// and nothing hangs or crashes.
@Suite("WebSocketServer against hostile clients", .timeLimit(.minutes(5)))
struct WebSocketHostileTests {
    static let hostile = PythonPeer.script("ws_hostile.py")

    @Test func aTCPCloseMidFrameEndsTheClientAsAbnormal() async throws {
        try await withWebSocketServer { server in
            let port = server.port
            _ = try await onAThread { try PythonPeer.run([Self.hostile, "midframe", "\(port)"]) }
            var lines: [String] = []
            for await event in server.events {
                lines.append(line(event))
                if case .disconnected = event { break }
            }
            // The end of the connection reads as an EOF, or on a loaded machine as a reset.
            #expect(lines.count == 2 && lines[0] == "connected 1" && lines[1].hasPrefix("disconnected 1 1006 ") && lines[1].hasSuffix(" false"), "\(lines)")
            #expect(server.clients.isEmpty)
        }
    }

    @Test func aClientThatNeverReadsIsClosedAtTheBufferLimit() async throws {
        try await withWebSocketServer(configure: { $0.maximumBufferedBytes = 1 << 20 }) { server in
            let port = server.port
            async let peer = onAThread { try PythonPeer.run([Self.hostile, "neverread", "\(port)", "8"]) }
            var events = server.events.makeAsyncIterator()
            var client: WebSocketServer.Client?
            while let event = await events.next() {
                if case .message(let from, _, "flood me") = event { client = from; break }
            }
            let flooded = try #require(client)
            let chunk = String(repeating: "x", count: 64 << 10)
            var sent = 0
            var failure: (any Error)?
            // A send waits for its write once 64 KiB are unwritten; unwritten ones count against
            // the limit, so the floods run concurrently, as a program's would.
            await withTaskGroup(of: (any Error)?.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        do { try await server.send(text: chunk, to: flooded) } catch { return error }
                        return nil
                    }
                }
                for await result in group {
                    if let result { failure = failure ?? result } else { sent += 1 }
                }
            }
            #expect(failure != nil, "every send of 4 MiB was written to a client that never reads")
            #expect(sent < 64)
            while let event = await events.next() {
                if case .disconnected(_, _, _, _) = event { break }
            }
            #expect(server.clients.isEmpty)
            _ = try? await peer
        }
    }

    /// Sends with `send` to a client that never reads (1 MiB buffer limit, past which a client
    /// is closed); returns the most bytes the client had unwritten while the sender was held
    /// back, once the client was killed and `send` threw.
    static func peakUnwritten(toAClientThatNeverReads send: @escaping @Sendable (WebSocketServer, WebSocketServer.Client) async throws -> Void) async throws -> Int {
        var most = 0
        try await withWebSocketServer(configure: { $0.maximumBufferedBytes = 1 << 20; $0.heartbeatTimeout = nil }) { server in
            let port = server.port
            // It lives until it is killed below (120 s at most), however slow the machine.
            let peer = try await onAThread { try PythonPeer.server([Self.hostile, "neverread", "\(port)", "120"]) }
            var events = server.events.makeAsyncIterator()
            var client: WebSocketServer.Client?
            while let event = await events.next() {
                if case .message(let from, _, "flood me") = event { client = from; break }
            }
            guard let reader = client else {
                peer.stop()
                Issue.record("the client never asked")
                return
            }
            let sending = Task { try await send(server, reader) }
            // No event says the sender is held back: the server's count is read until it has
            // not grown for 250 reads in a row (half a second; ending early only lowers what is
            // seen, never raises it).
            let peak = Guarded((most: 0, still: 0))
            _ = await ChildProcess.waitUntil(within: 60) {
                guard let now = server.core.peakUnwritten(of: reader) else { return true }
                return peak.withLock { state in
                    state.still = now > state.most || now == 0 ? 0 : state.still + 1
                    state.most = max(state.most, now)
                    return state.still >= 250
                }
            }
            peer.stop()
            while let event = await events.next() {
                if case .disconnected = event { break }
            }
            await #expect(throws: WebSocketServerError.self) { try await sending.value }
            most = peak.withLock { $0.most }
        }
        return most
    }

    /// `send(fileAt:)` keeps at most its window and a chunk unwritten (256 KiB and 10,244
    /// bytes): 8 MB wait in the file, not in the server, until the client goes.
    @Test func aFileForAClientThatNeverReadsWaitsInTheFile() async throws {
        let file = try randomFile(size: 8 << 20)
        defer { try? FileManager.default.removeItem(at: file) }
        let most = try await Self.peakUnwritten { server, client in try await server.send(fileAt: file, to: client) }
        #expect(most > 0 && most <= (256 << 10) + 10_244, "\(most) bytes unwritten at most")
    }

    /// A program sending message after message waits once the client has 64 KiB unwritten:
    /// at most that and two messages are unwritten, until the client goes.
    @Test func messagesForAClientThatNeverReadsWaitPastTheHighWaterMark() async throws {
        let message = Data(repeating: 7, count: 16 << 10)
        let most = try await Self.peakUnwritten { server, client in
            for _ in 0..<512 { try await server.send(data: message, to: client) }  // 8 MiB
        }
        #expect(most > 0 && most <= (64 << 10) + 2 * (4 + (16 << 10)), "\(most) bytes unwritten at most")
    }

    /// The client sends a byte every 200 ms (its request would take 30 s): the server closes it
    /// at the handshake's deadline (counted from when it accepted the connection, which a loaded
    /// machine may do late, hence the wide upper bound).
    @Test func aSlowlorisHandshakeIsClosedAtTheHandshakeTimeout() async throws {
        try await withWebSocketServer(configure: { $0.handshakeTimeout = 0.5 }) { server in
            let port = server.port
            let output = try await onAThread { try PythonPeer.run([Self.hostile, "slowloris", "\(port)"]) }
            let result = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            let closedAfter = try #require(result?["closed_after"] as? Double, "the server never closed: \(output)")
            #expect(closedAfter >= 0.4 && closedAfter < 25, "closed after \(closedAfter) s")
        }
    }

    /// The server runs on event loops of its own, so work that floods the process's shared loops
    /// (swift-nio's singleton group: page clients, HTTP clients, the tests' servers) cannot hold
    /// its handshakes. A loop runs the tasks queued to it before it reads its sockets again, so
    /// one kept busy reads nothing meanwhile. Here each shared loop re-queues a task of its own
    /// for 2 s; on those loops every handshake waited until the flood ended (checked: 2.5 s for
    /// a 2.5 s flood), and under load the handshake's deadline closed some unanswered. Not
    /// under ThreadSanitizer: the flood also holds the other tests' servers and clients on those
    /// loops, which TSan's slowness brings near their timeouts (and its run is for interleavings).
    @Test(.enabled(if: !runsUnderThreadSanitizer))
    func handshakesAreAnsweredWhileTheSharedEventLoopsAreFlooded() async throws {
        try await withWebSocketServer { server in
            let until = NIODeadline.now() + .seconds(2)
            for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
                @Sendable func spin() {
                    if NIODeadline.now() < until { loop.execute(spin) }
                }
                loop.execute(spin)
            }
            let output = try await onAThread { try PythonPeer.run([Self.hostile, "handshakes", "\(server.port)", "6"]) }
            let report = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            #expect(report?["failure"] is NSNull, "\(output)")
            let slowest = try #require(report?["slowest"] as? Double, "\(output)")
            #expect(slowest < 1, "the slowest handshake took \(slowest) s while the shared loops were flooded")
        }
    }

    /// 10,000 connections one after another (1,200 under ThreadSanitizer): a third closed before
    /// the request, a third mid-request, a third after the handshake. The cap on connections is
    /// above the count, so that a server whose loops lag behind the accepts (a loaded machine)
    /// refuses none: capacity is `theConnectionCapRefusesTheNextOneUntilOneLeaves`'s.
    @Test func tenThousandConnectionsOpenedAndDroppedLeaveNothingBehind() async throws {
        let count = runsUnderThreadSanitizer ? 1_200 : 10_000
        try await withWebSocketServer(configure: { $0.maximumClients = count + 1 }) { server in
            let port = server.port
            let output = try await onAThread { try PythonPeer.run([Self.hostile, "churn", "\(port)", "\(count)"], seconds: 240) }
            let report = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            let handshakes = try #require(report?["handshakes"] as? Int, "\(output)")
            // Known, not fixed: under a sanitizer on a loaded machine, about one handshake in
            // 10,000 is not answered until the handshake deadline closes it (its request
            // unread, so the client sees a reset while it waits for the response); the event
            // loops were not blocked meanwhile. Any other failure is not this one.
            withKnownIssue("a handshake left unanswered until its deadline (rare, under load)", isIntermittent: true) {
                #expect(report?["failures"] as? Int == 0 && handshakes == count / 3, "\(output)")
            } matching: { issue in
                let text = issue.comments.map(\.rawValue).joined()
                return text.contains("(receive, local port") && text.contains("ConnectionResetError") && !text.contains("(connect")
                    && !text.contains("(send")
            }
            // Every connection ends: the ones that finished their handshake are reported.
            var connected = 0, disconnected = 0
            for await event in server.events {
                if case .connected = event { connected += 1 }
                if case .disconnected = event { disconnected += 1 }
                if disconnected == handshakes { break }
            }
            #expect(connected == handshakes)
            #expect(server.clients.isEmpty)
            // Every accepted connection closes, those dropped mid-handshake included.
            await server.core.activity.idle()
            // And the server still serves.
            try await withSocketPage { page in
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(port)/service", """
                    ws.binaryType = 'arraybuffer';
                    ws.onmessage = function (e) { log.push('hello ' + e.data.byteLength); ws.close(); };
                    """)
                #expect(log.first == "hello 16", "\(log)")
            }
        }
    }

    /// At `maximumClients` the next connection is closed at once, handshake unread; once the
    /// connections end, new ones are accepted again.
    @Test func theConnectionCapRefusesTheNextOneUntilOneLeaves() async throws {
        try await withWebSocketServer(configure: { $0.maximumClients = 2; $0.heartbeatTimeout = nil }) { server in
            let url = "ws://127.0.0.1:\(server.port)/service"
            try await withSocketPage { page in
                let log = try await run(page, """
                    return new Promise(function (resolve) {
                        var log = [], held = [], hellos = 0;
                        function hold() {
                            var ws = new WebSocket(url);
                            ws.onmessage = function () {
                                if (++hellos < 2) return;
                                var third = new WebSocket(url);
                                third.onopen = function () { log.push('third opened') };
                                third.onerror = function () { log.push('third error') };
                                third.onclose = function (e) {
                                    log.push('third close ' + e.code + ' ' + e.wasClean);
                                    held.forEach(function (ws) { ws.close() });
                                    resolve(log.join(','));
                                };
                            };
                            held.push(ws);
                        }
                        hold(); hold();
                    });
                    """, ["url": url])
                #expect(log == "third error,third close 1006 false")
            }
            var lines: [String] = []
            for await event in server.events {
                lines.append(line(event))
                if lines.count == 4 { break }
            }
            #expect(lines.filter { $0.hasPrefix("connected") }.count == 2 && lines.filter { $0.hasPrefix("disconnected") }.count == 2, "\(lines)")
            // Every connection has ended (and left the count): a new one is accepted.
            await server.core.activity.idle()
            try await withSocketPage { page in
                let log = try await socketLog(page, url: url, "ws.onmessage = function () { log.push('hello'); ws.close(); };")
                #expect(log.first == "hello", "\(log)")
            }
        }
    }

    /// 50 page clients, a thousand messages each (10 × 200 under ThreadSanitizer), ten in flight.
    @Test func fiftyClientsExchangeAThousandMessagesEachInOrder() async throws {
        let (clients, messages) = runsUnderThreadSanitizer ? (10, 200) : (50, 1_000)
        // The page's raw clients send no heartbeats.
        try await withWebSocketServer(configure: { $0.heartbeatTimeout = nil }) { server in
            // The server echoes each envelope to its client, and checks each client's order.
            let echo = Task { () -> [Int: Int] in
                var next: [Int: Int] = [:]
                var outOfOrder: [Int: Int] = [:]
                for await event in server.events {
                    guard case .message(let client, _, let text) = event else { continue }
                    if Int(text) != next[client.id, default: 0] { outOfOrder[client.id, default: 0] += 1 }
                    next[client.id, default: 0] += 1
                    try? await server.send(text: text, to: client)
                }
                return outOfOrder
            }
            try await withSocketPage { page in
                let result = try await run(page, """
                    return new Promise(function (resolve) {
                        var open = clients, report = [];
                        function client(n) {
                            var ws = new WebSocket(url), expected = 0, sent = 0, bad = 0;
                            ws.binaryType = 'arraybuffer';
                            function send() { ws.send(JSON.stringify({ messageType: 6, messageBody: String(sent++) })); }
                            ws.onmessage = function (e) {
                                if (typeof e.data !== 'string') { for (var i = 0; i < 10; i++) send(); return; }  // Hello
                                if (e.data !== String(expected)) bad++;
                                expected++;
                                if (sent < messages) send();
                                if (expected === messages) ws.close();
                            };
                            ws.onclose = function () {
                                report.push(expected + '/' + bad);
                                if (--open === 0) resolve(report.join(','));
                            };
                        }
                        for (var n = 0; n < clients; n++) client(n);
                    });
                    """, ["url": "ws://127.0.0.1:\(server.port)/service", "clients": clients, "messages": messages])
                #expect(result == Array(repeating: "\(messages)/0", count: clients).joined(separator: ","))
            }
            echo.cancel()
            #expect(await echo.value.isEmpty)
        }
    }
}
