import DuktapeWeb
import Foundation
import ExampleSupport
import NIOHTTP1

// WebLoader end to end: a local HTTP server (below, on 127.0.0.1), then GET JSON, POST JSON, a
// multipart upload, an in-memory download and a streamed download with progress, each through a
// headless page running loader.html.

func say(_ text: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
}

func runExample(with loader: WebLoader, base: String) async throws {

    // GET JSON: the value arrives parsed.
    let user = try await loader.evaluate(WebLoader.body(url: URL(string: base + "/api/user.json"), method: .getData))
    if case .json(let value) = user.type, let object = value as? [String: Any] {
        say("GET /api/user.json → \(user.status), name: \(object["name"] ?? "?"), languages: \(object["languages"] ?? "?")")
    }

    // POST: postData is sent as JSON; the server echoes it.
    let echoed = try await loader.evaluate(WebLoader.body(url: URL(string: base + "/api/echo"), method: .postData,
                                                          postData: ["greeting": "olá"]))
    if case .json(let value) = echoed.type { say("POST /api/echo → \(echoed.contentType): \(value)") }

    // Upload: the bytes as the "file" part, the other fields as parts of their own.
    let upload = try await loader.evaluate(WebLoader.body(
        url: URL(string: base + "/api/upload"), method: .uploadData,
        postData: ["filename": "notes.txt", "album": "travel"], uploadData: Data("hello, upload".utf8)))
    if case .plainText(let text) = upload.type { say("upload → \(text)") }

    // In memory: bytes as Data.
    let download = try await loader.evaluate(WebLoader.body(url: URL(string: base + "/files/small.bin"), method: .downloadFile))
    if case .data(let data) = download.type { say("downloadFile → \(data.count) bytes, first \(Array(data.prefix(4)))") }

    // Streamed to a file as it arrives, with progress (printed here at each quarter).
    var quarter = 0
    for try await message in loader.stream(WebLoader.body(url: URL(string: base + "/files/big.bin"), method: .downloadStream)) {
        switch message.type {
        case .streamStart:
            say("stream started, \(message.total.map(String.init) ?? "unknown") bytes")
        case .streaming(let progress?):
            while quarter < 4, progress >= Double(quarter + 1) / 4 {
                quarter += 1
                say("progress: \(quarter * 25)%")
            }
        case .streamEnd(let file):
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
            say("stream ended: \(size) bytes in a file")
            try? FileManager.default.removeItem(at: file)
        default:
            break
        }
    }
}

/// Runs the example, then shuts the loader down: `shutdown()` returns once its pages (and
/// their threads) are gone, so nothing of it is left running when the program ends.
func main() async throws {
    let server = try await ExampleServer.start(answer)
    let loader = WebLoader()
    var failure: (any Error)?
    do {
        try await runExample(with: loader, base: "http://127.0.0.1:\(server.port)")
    } catch {
        failure = error
    }
    await loader.shutdown()
    try? await server.stop()
    if let failure { throw failure }
}

try await main()

/// The example server's answers, by path.
@Sendable
func answer(_ head: HTTPRequestHead, _ body: [UInt8]) -> (String, [UInt8]) {
    switch head.uri {
    case "/api/user.json":
        return ("application/json", Array(#"{"name":"Ada","languages":["en","fr"]}"#.utf8))
    case "/api/echo":
        return (head.headers.first(name: "content-type") ?? "application/octet-stream", body)
    case "/api/upload":
        let type = head.headers.first(name: "content-type") ?? ""
        let text = String(decoding: body, as: UTF8.self)
        let parts = text.components(separatedBy: "Content-Disposition: form-data; name=\"").dropFirst()
            .map { $0.prefix { $0 != "\"" } }
        return ("text/plain", Array("\(body.count) bytes of \(type.prefix(19)), parts: \(parts.joined(separator: ", "))".utf8))
    case "/files/small.bin":
        return ("application/octet-stream", (0..<1024).map { UInt8($0 % 256) })
    case "/files/big.bin":
        return ("application/octet-stream", [UInt8](repeating: 7, count: 4 << 20))
    default:
        return ("text/plain", Array("not found".utf8))
    }
}
