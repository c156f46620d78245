import DuktapeWeb
import Foundation

// W14's own half (scripts/ws_bench.py runs it beside Python's websockets on the same load): a
// WebSocketServer in this process echoes envelopes (as raw text) and type-7 frames; a WebPage's
// `WebSocket` drives the load through it. `ws-bench text COUNT SIZE WINDOW`,
// `ws-bench binary COUNT SIZE WINDOW`: COUNT round trips of SIZE-byte messages with WINDOW in
// flight; `ws-bench stream BYTES`: the server streams a file of BYTES (send(fileAt:), 10,240-byte
// chunks) to the page, which counts them. Prints one JSON object: {"seconds": …}.

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data((text + "\n").utf8))
    exit(1)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func run() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 3, let first = Int(arguments[2]) else { fail("usage: ws-bench text|binary COUNT SIZE WINDOW | stream BYTES") }
    let server = try await WebSocketServer()
    let echo = Task {
        for await event in server.events {
            switch event {
            case .message(let client, _, let text): try? await server.send(text: text, to: client)
            case .data(let client, .data, let data): try? await server.send(data: data, to: client)
            default: break
            }
        }
    }
    var configuration = WebPageConfiguration()
    configuration.httpCache = nil
    let page = try WebPage(configuration: configuration)
    try await page.load(html: "", baseURL: URL(string: "http://127.0.0.1/"))
    let url = "ws://127.0.0.1:\(server.port)/service"
    let clock = ContinuousClock()
    var elapsed = Duration.zero
    switch arguments[1] {
    case "text", "binary":
        guard arguments.count >= 5, let size = Int(arguments[3]), let window = Int(arguments[4]) else { fail("COUNT SIZE WINDOW") }
        let result = try await page.callAsyncJavaScript("""
            return new Promise(function (resolve, reject) {
                var ws = new WebSocket(url), sent = 0, received = 0, start = 0, payload;
                ws.binaryType = 'arraybuffer';
                if (binary) {
                    payload = new Uint8Array(4 + size);
                    payload[0] = 7;
                    for (var i = 4; i < payload.length; i++) payload[i] = (i * 7919) & 255;
                } else {
                    payload = JSON.stringify({ messageType: 6, messageBody: new Array(size + 1).join('x') });
                }
                function send() { sent++; ws.send(payload); }
                ws.onmessage = function (e) {
                    if (start === 0) {  // the Hello: the load begins
                        start = Date.now();
                        while (sent < window && sent < count) send();
                        return;
                    }
                    received++;
                    if (sent < count) send();
                    if (received === count) { resolve(Date.now() - start); ws.close(); }
                };
                ws.onerror = function () { reject(new Error('the WebSocket failed')); };
            });
            """, arguments: ["url": url, "count": first, "size": size, "window": window, "binary": arguments[1] == "binary"])
        elapsed = .milliseconds((result as? Double) ?? Double((result as? Int) ?? 0))
    case "stream":
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ws-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        for _ in 0..<(first >> 20) { try handle.write(contentsOf: block) }
        try handle.close()
        let done = Task { () -> Double in
            let counted = try await page.callAsyncJavaScript("""
                return new Promise(function (resolve, reject) {
                    var ws = new WebSocket(url), bytes = 0;
                    ws.binaryType = 'arraybuffer';
                    ws.onmessage = function (e) {
                        var type = new DataView(e.data).getUint32(0, true);
                        if (type === 4) bytes += e.data.byteLength - 4;
                        if (type === 5) { resolve(bytes); ws.close(); }
                    };
                    ws.onerror = function () { reject(new Error('the WebSocket failed')); };
                });
                """, arguments: ["url": url])
            return (counted as? Double) ?? Double((counted as? Int) ?? -1)
        }
        var events = server.events.makeAsyncIterator()
        echo.cancel()
        var client: WebSocketServer.Client?
        while client == nil, let event = await events.next() { if case .connected(let c) = event { client = c } }
        guard let client else { fail("no client") }
        elapsed = try await clock.measure { try await server.send(fileAt: file, to: client) }
        let bytes = try await done.value
        guard Int(bytes) == first else { fail("the page counted \(bytes) bytes of \(first)") }
    default:
        fail("usage: ws-bench text|binary COUNT SIZE WINDOW | stream BYTES")
    }
    echo.cancel()
    await page.shutdown()
    await server.shutdown()
    print("{\"seconds\": \(seconds(elapsed))}")
}

do { try await run() } catch { fail("\(error)") }
