import ChildProcess
import Foundation
import TestServer
import Testing

/// `dukjs run --web`: a script with `WebSocket` and `fetch`, against Python's `websockets`.
@Suite("dukjs --web", .timeLimit(.minutes(3)))
struct DukjsWebTests {
    @Test func aWebSocketClientScriptRunsFromTheCommandLine() async throws {
        let peer = try await onAThread { try PythonPeer.server([PythonPeer.script("ws_peer.py"), "echo"]) }
        defer { peer.stop() }
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("dukjs-ws-\(UUID().uuidString).js")
        defer { try? FileManager.default.removeItem(at: script) }
        try Data("""
            const ws = new WebSocket(process.argv[2], ['chat']);
            ws.binaryType = 'arraybuffer';
            ws.onopen = () => { console.log('open', ws.protocol, ws.extensions); ws.send('héllo'); };
            ws.onmessage = (e) => {
                if (typeof e.data === 'string') { console.log('text', e.data); ws.send(new Uint8Array([1, 2, 3])); }
                else { console.log('binary', new Uint8Array(e.data).join(',')); ws.close(1000, 'done'); }
            };
            ws.onclose = (e) => console.log('close', e.code, e.reason, e.wasClean);
            """.utf8).write(to: script)
        let url = "ws://127.0.0.1:\(peer.port)/"
        let output = try await onAThread { try ChildProcess.run(DukjsTests.executable, ["run", "--web", script.path, url]) }
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "open chat permessage-deflate\ntext héllo\nbinary 1,2,3\nclose 1000 done true\n")
        // Without --web the script has no WebSocket, as in Node before 22.
        let plain = try await onAThread { try ChildProcess.run(DukjsTests.executable, ["run", script.path, url]) }
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("WebSocket"))
    }
}
