import DuktapeCore
import DuktapeRuntime
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// A server for one test, shut down at the end.
func withWebSocketServer(
    configure: (inout WebSocketServerConfiguration) -> Void = { _ in }, _ body: (WebSocketServer) async throws -> Void
) async throws {
    var configuration = WebSocketServerConfiguration()
    configure(&configuration)
    let server = try await WebSocketServer(configuration: configuration)
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// An event as a line, for comparing.
func line(_ event: WebSocketServer.Event) -> String {
    switch event {
    case .connected(let client): "connected \(client.id)"
    case .message(let client, let type, let text): "message \(client.id) \(type.rawValue) \(text)"
    case .data(let client, let type, let data): "data \(client.id) \(type.rawValue) \(data.map { String(format: "%02x", $0) }.joined())"
    case .streamStart(let client): "streamStart \(client.id)"
    case .streaming(let client, let count): "streaming \(client.id) \(count)"
    case .streamEnd(let client, _): "streamEnd \(client.id)"
    case .streamFailed(let client, let reason): "streamFailed \(client.id) \(reason)"
    case .invalidMessage(let client, let reason): "invalid \(client.id) \(reason)"
    case .disconnected(let client, let code, let reason, let clean): "disconnected \(client.id) \(code) \(reason) \(clean)"
    }
}

@Suite("WebSocketServer", .timeLimit(.minutes(3)))
struct WebSocketServerTests {
    /// `shutdown()` from two tasks at once, then again, then the server released: one shutdown,
    /// which every call awaits (the server's own event loops end with it, and nothing may be
    /// handed to them after).
    @Test func shutdownIsOnceWhoeverCallsIt() async throws {
        let server = try await WebSocketServer()
        let port = server.port
        async let first: Void = server.shutdown()
        async let second: Void = server.shutdown()
        _ = await (first, second)
        await server.shutdown()
        // The port is free again.
        let again = try await WebSocketServer(configuration: {
            var configuration = WebSocketServerConfiguration()
            configuration.port = port
            return configuration
        }())
        await again.shutdown()
    }

    /// Two messages each larger than half the buffer limit, sent one after the other to a
    /// client that reads: both arrive (the limit is for a client that does not read, judged by
    /// what it had unwritten before a message). Once the server began closing the client, a
    /// send throws at once instead of being dropped.
    @Test func largeMessagesGoOneAfterAnotherAndSendsFailOnceAClientIsClosing() async throws {
        try await withWebSocketServer(configure: { $0.maximumBufferedBytes = 1 << 20 }) { server in
            try await withSocketPage { page in
                async let sizes = run(page, """
                    return new Promise(function (resolve, reject) {
                        var ws = new WebSocket(url), sizes = [];
                        ws.binaryType = 'arraybuffer';
                        ws.onmessage = function (e) {
                            sizes.push(e.data.byteLength);
                            if (sizes.length === 3) resolve(sizes.join());
                        };
                        ws.onclose = function (e) { resolve(sizes.join() + ' closed ' + e.code); };
                    });
                    """, ["url": "ws://127.0.0.1:\(server.port)/service"])
                var events = server.events.makeAsyncIterator()
                guard case .connected(let client)? = await events.next() else { Issue.record("no client"); return }
                let large = Data(repeating: 1, count: 700 << 10)
                try await server.send(data: large, to: client)
                try await server.send(data: large, to: client)
                #expect(try await sizes == "16,\(4 + (700 << 10)),\(4 + (700 << 10))")
                server.close(client)
                await #expect(throws: WebSocketServerError.self) { try await server.send(text: "after the close", to: client) }
            }
        }
    }

    @Test func pythonsClientGetsHelloAndSpeaksTheFraming() async throws {
        try await withWebSocketServer { server in
            let steps = FileManager.default.temporaryDirectory.appendingPathComponent("ws-steps-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: steps) }
            try Data("""
                [{"kind": "receive"},
                 {"kind": "text", "data": "{\\"messageType\\":6,\\"messageBody\\":\\"héllo\\"}"},
                 {"kind": "text", "data": "{\\"messageType\\":2}"},
                 {"kind": "binary", "hex": "07000000aabbcc"},
                 {"kind": "binary", "hex": "0700"},
                 {"kind": "text", "data": "not json"},
                 {"kind": "ping", "data": "p"},
                 {"kind": "receive"},
                 {"kind": "close", "code": 1000, "reason": "done"}]
                """.utf8).write(to: steps)
            let port = server.port
            async let output = onAThread { try PythonPeer.run([PythonPeer.script("ws_peer.py"), "client", "ws://127.0.0.1:\(port)/service", steps.path]) }
            var lines: [String] = []
            for await event in server.events {
                lines.append(line(event))
                // The client waits for a message after its ping: the server's answer to its data.
                if case .data(let client, _, _) = event { try await server.send(text: "from the server", to: client) }
                if case .disconnected = event { break }
            }
            let results = try await output
            #expect(lines == [
                "connected 1", "message 1 6 héllo", "data 1 7 aabbcc",
                "invalid 1 a binary frame of 2 bytes, shorter than its 4-byte type",
                "invalid 1 a text frame that is not a {messageType: number, messageBody: string} JSON object",
                "disconnected 1 1000 done true",
            ])
            let hello = Data([1, 0, 0, 0] + Array("hello world!".utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(results.contains("\"hex\": \"\(hello)\""))
            #expect(results.contains("{\"text\": \"from the server\"}"))
            #expect(results.contains("permessage-deflate"))
            #expect(results.contains("{\"closed\": 1000, \"reason\": \"\"}"))  // the server echoes the code
        }
    }

    /// The envelope as the decoder reads it: (type, body), or nil for an invalid one.
    private static func decoded(_ text: String) -> (UInt32, String)? {
        struct Envelope: Decodable {
            var messageType: Double?
            var messageBody: String?
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)),
            let type = UInt32(exactly: envelope.messageType ?? 0)
        else { return nil }
        return (type, envelope.messageBody ?? "")
    }

    /// The server reads the envelopes clients write without a JSON decoder, and leaves the rest
    /// to the decoder: what the quick reader accepts, the decoder reads the same way, for the
    /// usual forms, edge cases of each token, and 20,000 random mutations of them.
    @Test func envelopesReadWithoutTheDecoderReadAsTheDecoderReadsThem() {
        func check(_ text: String, quick expected: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
            let quick = WebSocketServer.Session.plainEnvelope(text)
            if let expected { #expect((quick != nil) == expected, "\(text)", sourceLocation: sourceLocation) }
            guard let quick else { return }
            let full = Self.decoded(text)
            #expect(full?.0 == quick.type && full?.1 == (quick.body ?? ""), "\(text)", sourceLocation: sourceLocation)
        }
        // What clients write: read quickly.
        for text in [
            #"{"messageType":6,"messageBody":"héllo"}"#, #"{"messageType":2}"#, #"{"messageBody":"x","messageType":4294967295}"#,
            #" { "messageType" : 0 , "messageBody" : "" } "#, "{\"messageType\":\t7,\r\n\"messageBody\":\"a b\"}",
            #"{"messageBody":"no type"}"#, "{\"messageType\":6,\"messageBody\":\"𝄞 emoji 😀 and \u{7F}\"}",
        ] {
            check(text, quick: true)
        }
        // Left to the decoder (valid or not there).
        for text in [
            #"{"messageType":6,"messageBody":"a\"b"}"#, #"{"messageType":6,"messageBody":"\u0041"}"#, "{\"messageBody\":\"tab\there\"}",
            #"{"messageType":06}"#, #"{"messageType":1.0}"#, #"{"messageType":1e2}"#, #"{"messageType":-1}"#, #"{"messageType":4294967296}"#,
            #"{"messageType":12345678901}"#, #"{"messageType":null}"#, #"{"messageType":"6"}"#, #"{"messageBody":null}"#, #"{"messageBody":5}"#,
            #"{"messageType":1,"messageType":2}"#, #"{"messageType":1,}"#, #"{,"messageType":1}"#, #"{"messageType":1"#, #"{"messageType":1}x"#,
            #"{"messageType":1 2}"#, #"{"message\u0054ype":1}"#, #"{"other":1,"messageType":1}"#, "{}", "[]", "", " ", "null", "6",
            #"{"messageType":1}{"#, #"{"messageBody":"unterminated}"#, "{\"messageBody\":\"nul\u{0}\"}",
        ] {
            check(text, quick: false)
        }
        // Mutations: characters replaced, dropped or doubled in the usual forms, each either read
        // alike by both or left to the decoder.
        var random = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]:," \0123456789.eE-+nulltruexyzé"#.unicodeScalars) + ["\u{1}", "\t"]
        let seeds = [#"{"messageType":6,"messageBody":"héllo"}"#, #"{"messageBody":"a","messageType":42}"#, #"{"messageType":2}"#]
        var quick = 0
        for round in 0..<20_000 {
            var scalars = Array(seeds[round % seeds.count].unicodeScalars)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<scalars.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: scalars[at] = alphabet.randomElement(using: &random) ?? " "
                case 1: if scalars.count > 1 { scalars.remove(at: at) }
                default: scalars.insert(scalars[at], at: at)
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            if WebSocketServer.Session.plainEnvelope(text) != nil { quick += 1 }
            check(text)
        }
        // The mutations reach both sides (a quick reader that refused everything would pass).
        #expect(quick > 100, "\(quick) of 20,000 read quickly")
    }
}
