import DuktapeCore
import DuktapeRuntime
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// Python's `websockets` echo server (Tests/Peers/ws_peer.py), stopped at the end.
func withPythonEchoServer(compression: Bool = true, _ body: (PythonPeer) async throws -> Void) async throws {
    // Off the cooperative pool: the peer's start blocks until it says its port.
    let peer = try await onAThread { try PythonPeer.server([PythonPeer.script("ws_peer.py"), "echo"] + (compression ? [] : ["--no-compression"])) }
    defer { peer.stop() }
    try await body(peer)
}

/// A page whose document is http://127.0.0.1/page.html (its origin is sent on handshakes).
func withSocketPage(
    configure: (inout WebPageConfiguration) -> Void = { _ in }, _ body: (WebPage) async throws -> Void
) async throws {
    var configuration = WebPageConfiguration()
    configuration.consoleOutput = ConsoleLines().output
    configuration.httpCache = nil
    configure(&configuration)
    try await using(try WebPage(configuration: configuration)) { page in
        try await page.load(html: "", baseURL: URL(string: "http://127.0.0.1/page.html"))
        try await body(page)
    }
}

/// Runs `steps` (a function body with `ws`, `log` and `done` in scope, and `url` and `extra`
/// as arguments) on a socket to `url`: the log of its events as lines, once it closed.
func socketLog(_ page: WebPage, url: String, protocols: String = "undefined", _ steps: String, extra: Any = 0) async throws -> [String] {
    let text = try await run(page, """
        return new Promise(function (resolve) {
            var log = [];
            function done() { resolve(log.join('\\n')); }
            var ws = new WebSocket(url, \(protocols));
            ws.addEventListener('error', function (e) { log.push('error ' + (e instanceof Event)); });
            ws.addEventListener('close', function (e) {
                log.push('close ' + e.code + ' ' + JSON.stringify(e.reason) + ' ' + e.wasClean + ' ' + ws.readyState);
                done();
            });
            \(steps)
        });
        """, ["url": url, "extra": extra])
    return (text ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

@Suite("WebSocket in the page", .timeLimit(.minutes(3)))
struct WebSocketPageTests {
    @Test func textAndBinaryEchoThroughPythonsWebsockets() async throws {
        try await withPythonEchoServer { peer in
            try await withSocketPage { page in
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/", protocols: "['superchat', 'chat']", """
                    var step = 0;
                    ws.onopen = function () {
                        log.push('open ' + ws.readyState + ' ' + ws.protocol + ' ' + ws.extensions);
                        ws.send('héllo 😀');
                    };
                    ws.onmessage = function (e) {
                        step++;
                        if (step === 1) {
                            log.push('text ' + e.data + ' ' + (e instanceof MessageEvent) + ' ' + e.origin);
                            ws.binaryType = 'arraybuffer';
                            ws.send(new Uint8Array([0, 1, 2, 255]));
                        } else if (step === 2) {
                            log.push('arraybuffer ' + (e.data instanceof ArrayBuffer) + ' ' + Array.prototype.join.call(new Uint8Array(e.data)));
                            ws.binaryType = 'blob';
                            ws.send(new Blob(['blob ', new Uint8Array([65, 66])]));
                        } else if (step === 3) {
                            e.data.text().then(function (text) {
                                log.push('blob ' + (e.data instanceof Blob) + ' ' + e.data.size + ' ' + text);
                                ws.send(new Uint16Array([0x4241, 0x4443]).subarray(1));
                            });
                        } else if (step === 4) {
                            e.data.arrayBuffer().then(function (buffer) {
                                log.push('view ' + Array.prototype.join.call(new Uint8Array(buffer)));
                                ws.close(4000, 'bye');
                                log.push('closing ' + ws.readyState);
                            });
                        }
                    };
                    """)
                #expect(log == [
                    "open 1 superchat permessage-deflate",
                    "text héllo 😀 true ws://127.0.0.1:\(peer.port)",
                    "arraybuffer true 0,1,2,255",
                    "blob true 7 blob AB",
                    "view 67,68",
                    "closing 2",
                    "close 4000 \"bye\" true 3",
                ])
            }
        }
    }

    /// The events the host dispatches (a socket's open, message and close, a document's load)
    /// are trusted, as a browser's own are; a MessageEvent's other members are the standard's
    /// defaults, and its ports array is the same object on each read.
    @Test func theHostsEventsAreTrusted() async throws {
        try await withPythonEchoServer { peer in
            try await withSocketPage { page in
                try await page.load(html: "<script>addEventListener('load', function (e) { window.loadTrusted = e.isTrusted })</script>",
                                    baseURL: URL(string: "http://127.0.0.1/page.html"))
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/", """
                    // A script's Object.prototype changes nothing of the host's events.
                    Object.defineProperty(Object.prototype, 'source', { value: 0, configurable: true });
                    Object.defineProperty(Object.prototype, 'data', { set: function () { throw new Error('inherited setter'); }, configurable: true });
                    ws.onopen = function (e) { log.push('open ' + e.isTrusted + ' ' + window.loadTrusted); ws.send('x'); };
                    ws.onmessage = function (e) {
                        log.push('message ' + e.isTrusted + ' ' + JSON.stringify(e.lastEventId) + ' ' + e.source + ' ' +
                            Array.isArray(e.ports) + ' ' + e.ports.length + ' ' + (e.ports === e.ports) + ' ' + Object.isFrozen(e.ports) + ' ' +
                            e.origin + ' ' + e.data);
                        delete Object.prototype.source;
                        delete Object.prototype.data;
                        ws.close();
                    };
                    ws.addEventListener('close', function (e) { window.closeTrusted = e.isTrusted; });
                    """)
                #expect(log == ["open true true", "message true \"\" null true 0 true true ws://127.0.0.1:\(peer.port) x", "close 1005 \"\" true 3"])
                #expect(try await page.evaluateJavaScript("[window.closeTrusted, new MessageEvent('m').isTrusted].join()") as? String == "true,false")
            }
        }
    }

    /// A string is sent as a USVString: its lone surrogates as U+FFFD, its pairs as the
    /// character they make (the echo shows what went on the wire).
    @Test func loneSurrogatesAreSentAsReplacementCharacters() async throws {
        try await withPythonEchoServer { peer in
            try await withSocketPage { page in
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/", """
                    ws.onopen = function () {
                        ws.send('a\\uD800b\\uDC00\\uD83D\\uDE00');
                        log.push('buffered ' + ws.bufferedAmount);  // UTF-8 bytes, as sent
                    };
                    ws.onmessage = function (e) {
                        log.push(Array.prototype.map.call(e.data, function (c) { return c.charCodeAt(0).toString(16); }).join(' '));
                        ws.close();
                    };
                    """)
                #expect(log == ["buffered 12", "61 fffd 62 fffd d83d de00", "close 1005 \"\" true 3"])
            }
        }
    }

    /// What is neither a string nor bytes is sent as its string (WebIDL's USVString), a symbol
    /// throws, and `send` reads its argument's `toString` once, before anything is sent.
    @Test func otherValuesAreSentAsTheirStrings() async throws {
        try await withPythonEchoServer { peer in
            try await withSocketPage { page in
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/", """
                    var echoed = [];
                    ws.onopen = function () {
                        ws.send(42);
                        ws.send({ toString: function () { return 'obj'; } });
                        ws.send(null);
                        try { ws.send(Symbol('s')); } catch (e) { log.push(e.name); }
                        log.push('buffered ' + ws.bufferedAmount);
                    };
                    ws.onmessage = function (e) {
                        echoed.push(typeof e.data + ' ' + e.data);
                        if (echoed.length === 3) { log.push(echoed.join()); ws.close(); }
                    };
                    """)
                #expect(log == ["TypeError", "buffered 9", "string 42,string obj,string null", "close 1005 \"\" true 3"])
            }
        }
    }

    /// A message the page's memory limit has no room for, text or binary, fails its connection
    /// (an error, then a close with 1006 and the reason), and the page runs on.
    @Test(arguments: ["text", "binary"])
    func aMessageTooLargeForThePagesMemoryFailsItsConnectionOnly(_ kind: String) async throws {
        try await withPythonEchoServer { peer in
            try await withSocketPage(configure: { $0.memoryLimit = 24 << 20 }) { page in
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/", """
                    ws.onopen = function () { ws.send(extra + ':' + (40 << 20)); };
                    ws.onmessage = function (e) { log.push('message ' + (e.data.length || e.data.size)); };
                    """, extra: kind)
                #expect(log == ["error true", "close 1006 \"no memory for a message of \(40 << 20) bytes (the page's memory limit)\" false 3"])
                #expect(try await page.callAsyncJavaScript("return 1 + 1") as? Int == 2)
            }
        }
    }

    @Test func serverCommandsFragmentsPingsAndCloseCodes() async throws {
        try await withPythonEchoServer { peer in
            try await withSocketPage { page in
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/path?q=1", """
                    var long = new Array(2001).join('ab');
                    ws.onopen = function () { ws.send('fragments:5:' + long); };
                    ws.onmessage = function (e) {
                        if (e.data === long) { log.push('reassembled ' + e.data.length); ws.send('ping:data'); }
                        else if (e.data === 'pong:data') { log.push(e.data); ws.send('binary:300000'); }
                        else if (typeof e.data !== 'string') {
                            e.data.arrayBuffer().then(function (b) {
                                var bytes = new Uint8Array(b), ok = bytes.length === 300000;
                                for (var i = 0; i < bytes.length; i++) if (bytes[i] !== i % 256) ok = false;
                                log.push('binary ' + ok);
                                ws.send('close:3001:going');
                            });
                        }
                    };
                    """)
                #expect(log == ["reassembled 4000", "pong:data", "binary true", "close 3001 \"going\" true 3"])
            }
        }
    }

    /// A reason without a code closes with 1000, as the standard says.
    @Test func aCloseReasonWithoutACodeIs1000() async throws {
        try await withPythonEchoServer { peer in
            try await withSocketPage { page in
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/", "ws.onopen = function () { ws.close(undefined, 'bye'); };")
                #expect(log == ["close 1000 \"bye\" true 3"])
            }
        }
    }

    @Test func theHandshakeCarriesTheOriginCookiesAndUserAgent() async throws {
        try await withPythonEchoServer(compression: false) { peer in
            try await withSocketPage(configure: { configuration in
                configuration.cookieStore = CookieStore()
                configuration.userAgent = "TestAgent/1"
            }) { page in
                page.configuration.cookieStore?.receive(["session=abc; Path=/"], from: URL(string: "http://127.0.0.1:\(peer.port)/")!)
                let log = try await socketLog(page, url: "ws://127.0.0.1:\(peer.port)/", """
                    ws.onopen = function () { log.push('extensions ' + JSON.stringify(ws.extensions)); ws.send('headers'); };
                    ws.onmessage = function (e) {
                        var h = JSON.parse(e.data);
                        log.push(h.origin + ' ' + h.cookie + ' ' + h['user-agent'] + ' ' + h['sec-websocket-extensions']);
                        ws.close();
                    };
                    """)
                #expect(log == [
                    "extensions \"\"",
                    "http://127.0.0.1 session=abc TestAgent/1 permessage-deflate; client_max_window_bits",
                    "close 1005 \"\" true 3",
                ])
            }
        }
    }

    /// wss: the TLS handshake runs, and a certificate the system does not trust (a self-signed
    /// one, made for the test) fails the connection as browsers fail it: error, then close with
    /// 1006, the reason naming TLS.
    @Test func wssVerifiesTheServersCertificate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wss-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        let made = try await onAThread {
            try PythonPeer.run(["-c", """
                import subprocess, sys
                r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", sys.argv[2], "-out", sys.argv[1],
                                    "-days", "1", "-subj", "/CN=127.0.0.1"], capture_output=True)
                print(r.returncode)
                """, cert, key])
        }
        #expect(made.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let peer = try await onAThread { try PythonPeer.server([PythonPeer.script("ws_peer.py"), "echo", "--tls", cert, key]) }
        defer { peer.stop() }
        try await withSocketPage { page in
            let log = try await socketLog(page, url: "wss://127.0.0.1:\(peer.port)/", "ws.onopen = function () { log.push('opened'); };")
            #expect(log.first == "error true")
            #expect(log.dropFirst().first?.hasPrefix("close 1006 ") == true)
            #expect(log.joined().lowercased().contains("tls") || log.joined().lowercased().contains("certificate"), "\(log)")
            #expect(!log.contains("opened"))
        }
    }

    @Test func constructorAndMethodErrorsAreTheStandardsExceptions() async throws {
        try await withSocketPage { page in
            let text = try await run(page, """
                var out = [];
                function attempt(f) { try { f(); out.push('ok'); } catch (e) { out.push(e.name); } }
                attempt(function () { new WebSocket('ftp://example.com/'); });
                attempt(function () { new WebSocket('ws://example.com/#frag'); });
                attempt(function () { new WebSocket('ws://exa mple.com:99999/'); });
                attempt(function () { new WebSocket('ws://127.0.0.1:9/', ['a b']); });
                attempt(function () { new WebSocket('ws://127.0.0.1:9/', ['x', 'x']); });
                attempt(function () { WebSocket('ws://127.0.0.1:9/'); });
                var ws = new WebSocket('/relative');
                out.push(ws.url, ws.readyState, ws.binaryType);
                attempt(function () { ws.send('early'); });
                attempt(function () { ws.close(1001); });
                attempt(function () { ws.close(1000, new Array(125).join('x')); });
                ws.binaryType = 'nonsense';
                out.push(ws.binaryType, WebSocket.CLOSED, ws.CONNECTING, new CloseEvent('close', { code: 4001 }).code);
                attempt(function () { ws.close(); });
                out.push(ws.readyState);
                return Promise.resolve(out.join(','));
                """)
            #expect(text == "SyntaxError,SyntaxError,SyntaxError,SyntaxError,SyntaxError,TypeError,ws://127.0.0.1/relative,0,blob,InvalidStateError,InvalidAccessError,SyntaxError,blob,3,0,4001,ok,2")
        }
    }

    @Test func refusedAndUnreachableEndpointsFailWithErrorThenClose() async throws {
        try await withSocketPage(configure: { $0.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1:9"]) }) { page in
            let refused = try await socketLog(page, url: "ws://localhost:1/", "")
            #expect(refused.prefix(2) == ["error true", "close 1006 \"ws://localhost:1/ is refused by the page's request policy: host localhost:1 is not in allowedHosts\" false 3"])
            let closed = try await socketLog(page, url: "ws://127.0.0.1:9/", "")
            #expect(closed.first == "error true")
            #expect(closed.dropFirst().first?.hasPrefix("close 1006 \"the connection to 127.0.0.1:9 was refused") == true)
        }
    }
}
