import DuktapeCore
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// One case's outcome, as Tests/Peers/ws_raw.py writes it.
struct ConformanceResult: Decodable {
    var id: String
    var group: String
    var passed: Bool
    var detail: String
}

/// The results by group, as the README's table shows them ("group: passed/total").
func conformanceTable(_ results: [ConformanceResult]) -> [String] {
    var order: [String] = []
    var counts: [String: (passed: Int, total: Int)] = [:]
    for result in results {
        if counts[result.group] == nil { order.append(result.group) }
        counts[result.group, default: (0, 0)].total += 1
        if result.passed { counts[result.group, default: (0, 0)].passed += 1 }
    }
    return order.map { "\($0): \(counts[$0]?.passed ?? 0)/\(counts[$0]?.total ?? 0)" }
}

/// A conformance suite in the style of the Autobahn testsuite's case groups (framing, control
/// frames, reserved bits and opcodes, fragmentation, UTF-8, close handling, limits,
/// compression, masking), driven by a raw-socket peer that writes frames byte by byte
/// (Tests/Peers/ws_raw.py), run against the page's `WebSocket` (the client) and
/// `WebSocketServer`.
@Suite("WebSocket conformance", .timeLimit(.minutes(5)))
struct WebSocketConformanceTests {
    static let limit = (1 << 20) + 1024

    @Test func thePagesClient() async throws {
        let results = FileManager.default.temporaryDirectory.appendingPathComponent("ws-conformance-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: results) }
        let ids = try await onAThread { try PythonPeer.run([PythonPeer.script("ws_raw.py"), "list"]) }
        let peer = try await onAThread { try PythonPeer.server([PythonPeer.script("ws_raw.py"), "serve", results.path]) }
        defer { peer.stop() }
        try await withSocketPage(configure: { $0.webSocketLimits.maximumMessageBytes = Self.limit }) { page in
            // The page echoes every message of each case's connection, then goes to the next.
            _ = try await page.callAsyncJavaScript("""
                var ids = JSON.parse(list), i = 0;
                return new Promise(function (resolve) {
                    function next() {
                        if (i >= ids.length) {
                            var last = new WebSocket(base + 'done');
                            last.onclose = function () { resolve(); };
                            return;
                        }
                        var ws = new WebSocket(base + ids[i++]);
                        ws.binaryType = 'arraybuffer';
                        ws.onmessage = function (e) { ws.send(e.data); };
                        ws.onclose = next;
                    }
                    next();
                });
                """, arguments: ["list": ids, "base": "ws://127.0.0.1:\(peer.port)/"])
        }
        let decoded = try JSONDecoder().decode([ConformanceResult].self, from: Data(contentsOf: results))
        for failure in decoded where !failure.passed { Issue.record("client case \(failure.id) (\(failure.group)): \(failure.detail)") }
        #expect(decoded.count > 100)
        print("CONFORMANCE client", conformanceTable(decoded.sorted { $0.id.localizedStandardCompare($1.id) == .orderedAscending }))
    }

    @Test func theServer() async throws {
        let results = FileManager.default.temporaryDirectory.appendingPathComponent("ws-conformance-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: results) }
        // No heartbeat watchdog: the raw peer speaks the protocol, not LWWebSocket's heartbeat.
        try await withWebSocketServer(configure: { $0.maximumMessageBytes = Self.limit; $0.heartbeatTimeout = nil }) { server in
            // The harness echoes envelopes as text and type-7 frames as type-7 frames.
            let echo = Task {
                for await event in server.events {
                    switch event {
                    case .message(let client, _, let text): try? await server.send(text: text, to: client)
                    case .data(let client, .data, let data): try? await server.send(data: data, to: client)
                    default: break
                    }
                }
            }
            let port = server.port
            _ = try await onAThread {
                try PythonPeer.run([PythonPeer.script("ws_raw.py"), "drive", "ws://127.0.0.1:\(port)/service", results.path], seconds: 240)
            }
            echo.cancel()
        }
        let decoded = try JSONDecoder().decode([ConformanceResult].self, from: Data(contentsOf: results))
        for failure in decoded where !failure.passed { Issue.record("server case \(failure.id) (\(failure.group)): \(failure.detail)") }
        #expect(decoded.count > 100)
        print("CONFORMANCE server", conformanceTable(decoded))
    }
}
