import DuktapeRuntime
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// Issue 32, classes 11 and 12: what a WebLoader keeps in memory is bounded. A body read by an
/// in-memory method has a maximum size (an endless body once passed 1.2 GB within seconds), the
/// loader's pages have a memory limit by default, and the page pool (a page and a thread per
/// origin) is bounded in count and idle time (300 origins left 324 threads behind).
@Suite("WebLoader limits", .timeLimit(.minutes(5)))
struct LoaderLimitsTests {
    /// A loader as WebLoaderTests make theirs (quiet console, the 240 s watchdog of the
    /// sanitized runs), changed by `configure`.
    func loader(_ configure: (inout WebLoaderConfiguration) -> Void = { _ in }) -> WebLoader {
        WebLoaderTests().loader(configure)
    }

    /// A server whose every response is an endless body (chunks until the client goes away),
    /// with `type` as its Content-Type; with `length`, a Content-Length that promises that much.
    static func endlessServer(type: String, length: Int? = nil) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { _, responder in
            let framing = length.map { "Content-Length: \($0)" } ?? "Transfer-Encoding: chunked"
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\n\(framing)\r\nConnection: close\r\n\r\n")
            let chunk = [UInt8](repeating: UInt8(ascii: "7"), count: 65536)
            let framed = length == nil ? Array("10000\r\n".utf8) + chunk + Array("\r\n".utf8) : chunk
            for _ in 0..<(1 << 14) { try await responder.send(framed) }  // at most 1 GiB: the client leaves long before
        }
    }

    @Test func theDefaultsBoundTheLoadersMemory() {
        let configuration = WebLoaderConfiguration()
        #expect(configuration.maximumBodySize == 32 << 20)
        #expect(configuration.page.memoryLimit == 256 << 20)
        #expect(configuration.maximumPages == 16)
        #expect(configuration.pageIdleTimeout == 30)
    }

    @Test(arguments: ["application/json", "text/plain; charset=utf-8", "application/octet-stream"], [false, true])
    func anEndlessBodyFailsAtTheMaximumBodySize(type: String, declared: Bool) async throws {
        let server = try await Self.endlessServer(type: type, length: declared ? 1 << 30 : nil)
        defer { server.stop() }
        try await using(loader { $0.maximumBodySize = 1 << 20 }) { loader in
            for method in [WebLoaderMethod.getData, .downloadFile] {
                do {
                    let response = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/endless"), method: method))
                    Issue.record("\(type) \(method): no error, got \(response.type)")
                } catch {
                    #expect("\(error)".contains("longer than 1048576 bytes"), "\(error)")
                    #expect("\(error)".contains("downloadStream"), "\(error)")
                }
            }
        }
    }

    @Test func aBodyWithinTheMaximumIsDeliveredAsBefore() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await using(loader { $0.maximumBodySize = 300_000 }) { loader in
            let bytes = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/bytes?n=300000"), method: .downloadFile))
            guard case .data(let data) = bytes.type else { Issue.record("\(bytes.type)"); return }
            #expect(data.count == 300_000)
            let json = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/json"), method: .getData))
            guard case .json(let value) = json.type else { Issue.record("\(json.type)"); return }
            #expect((value as? [String: Any])?["hello"] as? String == "world")
            let latin = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/latin1"), method: .getData))
            guard case .plainText(let text) = latin.type else { Issue.record("\(latin.type)"); return }
            #expect(text.hasPrefix("café"))  // decoded by its charset, as the response would be
            let tooLong = try? await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/bytes?n=300001"), method: .downloadFile))
            #expect(tooLong == nil)
        }
    }

    /// Class 12: one-shot requests to more origins than the pool holds leave at most
    /// `maximumPages` pages (and their threads) behind, each request answered.
    @Test func thePagePoolIsBoundedInCount() async throws {
        var servers: [TestHTTPServer] = []
        for _ in 0..<10 { servers.append(try await TestHTTPServer.start()) }
        defer { servers.forEach { $0.stop() } }
        try await using(loader { $0.maximumPages = 3 }) { loader in
            for round in 0..<2 {
                for server in servers {
                    let response = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/json"), method: .getData))
                    #expect(response.status == 200, "round \(round)")
                    #expect(loader.pooledPageCount <= 3)
                }
            }
        }
    }

    /// A page with no request running is closed after `pageIdleTimeout`; with a timeout of 0,
    /// as soon as its last request ends.
    @Test func idlePagesAreClosed() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await using(loader { $0.pageIdleTimeout = 0 }) { loader in
            let response = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/json"), method: .getData))
            #expect(response.status == 200)
            let started = ContinuousClock.now
            while loader.pooledPageCount > 0, ContinuousClock.now - started < .seconds(30) { await Task.yield() }
            #expect(loader.pooledPageCount == 0)
            // The next request makes a new page.
            let again = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/json"), method: .getData))
            #expect(again.status == 200)
        }
    }

    /// When every pooled page has a request running, a request to another origin fails with an
    /// error that says why, instead of growing the pool.
    @Test func aFullPoolOfBusyPagesRefusesANewOrigin() async throws {
        let slow = try await TestHTTPServer.start()
        defer { slow.stop() }
        let other = try await TestHTTPServer.start()
        defer { other.stop() }
        try await using(loader { $0.maximumPages = 1 }) { loader in
            let busy = WebLoader.body(url: URL(string: slow.baseURL + "/hang"), method: .getData)
            loader.evaluate(busy) { _, _ in }
            try await slow.wait { $0.received.contains { $0.path == "/hang" } }
            do {
                _ = try await loader.evaluate(WebLoader.body(url: URL(string: other.baseURL + "/json"), method: .getData))
                Issue.record("no error")
            } catch {
                #expect("\(error)".contains("maximumPages"), "\(error)")
            }
            #expect(loader.pooledPageCount == 1)
            loader.cancel(requestID: busy.requestID)
        }
    }
}
