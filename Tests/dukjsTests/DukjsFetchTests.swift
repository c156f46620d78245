import ChildProcess
import Foundation
import TestServer
import Testing

/// `dukjs fetch` end to end, against the loopback test server.
@Suite("dukjs fetch", .timeLimit(.minutes(5)))
struct DukjsFetchTests {
    /// Runs dukjs on a thread of its own (the child is waited for with a blocking call, which
    /// must not hold one of Swift concurrency's few threads).
    func dukjs(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try ChildProcess.run(DukjsTests.executable, arguments) })
            }.start()
        }
    }

    func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("dukjs-fetch-\(UUID().uuidString)")
    }

    @Test func downloadsToAFileWithProgressLines() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await dukjs(["fetch", server.baseURL + "/bytes?n=300000&chunk=30000", "-o", file.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try Data(contentsOf: file) == Data((0..<300_000).map { TestHTTPServer.pattern[$0 % TestHTTPServer.pattern.count] }))
        // Not a terminal: plain lines, the last one complete.
        #expect(output.stderr.split(separator: "\n").last?.hasPrefix("100% 300.0 KB of 300.0 KB, ") == true, "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test func writesToStandardOutputAndSendsMethodHeadersAndData() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let output = try await dukjs(["fetch", server.baseURL + "/echo", "--method", "put", "-H", "Content-Type: text/x-test",
                                      "--header", "X-Extra: yes", "--data", "payload"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == "payload")
        let request = try #require(server.received.first)
        #expect(request.method == "PUT" && request.header("x-extra") == "yes" && request.header("content-type") == "text/x-test")
        #expect(request.body == Data("payload".utf8))
    }

    @Test func failuresExitWithAMessageAndLeaveNoFile() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let closed = try await TestHTTPServer.start()
        await closed.shutdown()
        let file = temporaryFile()
        let missing = try await dukjs(["fetch", server.baseURL + "/status?code=404", "-o", file.path])
        #expect(missing.status == 1 && missing.stderr.contains("HTTP 404"), "\(missing.stderr)")
        let refused = try await dukjs(["fetch", "http://127.0.0.1:\(closed.port)/x", "-o", file.path])
        #expect(refused.status == 1 && refused.stderr.contains("Failed to fetch"), "\(refused.stderr)")
        let cut = try await dukjs(["fetch", server.baseURL + "/close-mid-stream", "-o", file.path])
        #expect(cut.status == 1, "\(cut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let invalid = try await dukjs(["fetch", "ftp://example.com/x"])
        #expect(invalid.status == 64 && invalid.stderr.contains("is not an http or https URL"))
        let badHeader = try await dukjs(["fetch", server.baseURL + "/json", "-H", "no colon"])
        #expect(badHeader.status == 64 && badHeader.stderr.contains("is not a header"))
    }
}
