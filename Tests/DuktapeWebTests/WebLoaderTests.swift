import Crypto
import DuktapeCore
import Foundation
import Logging
import TestServer
import Testing

@testable import DuktapeWeb
import LoaderConsumer

/// Every message of a request, and its terminal one, collected from the completion handler.
final class Messages: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [WebLoaderResponse] = []
    private var errors: [(any Error)?] = []
    private var waiter: CheckedContinuation<Void, Never>?
    private var finished = false

    var handler: @Sendable (WebLoaderResponse, (any Error)?) -> Void {
        { [self] response, error in
            let resume = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                all.append(response)
                errors.append(error)
                guard response.isTerminal else { return nil }
                finished = true
                return waiter.take()
            }
            resume?.resume()
        }
    }

    /// Whether the terminal message has arrived.
    var isFinished: Bool {
        lock.withLock { finished }
    }

    /// The request id of the messages so far ("" before the first).
    var requestID: String {
        lock.withLock { all.first?.requestID ?? "" }
    }

    /// Returns once the terminal message arrived (the test has its time limit).
    func terminal() async -> (responses: [WebLoaderResponse], error: (any Error)?) {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if finished { return true }
                waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
        return lock.withLock { (all, errors.last ?? nil) }
    }
}

/// A temporary directory for stream files, removed at the end.
func withDirectory(_ body: (URL) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loader-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory)
}

/// Whether `error` is the cancellation of the request `id`.
func cancelled(_ error: (any Error)?, _ id: String) -> Bool {
    guard case .cancelled(let requestID, _)? = error as? WebLoaderError else { return false }
    return requestID == id
}

func files(in directory: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
}

/// The bytes `/bytes?n=count` serves.
func patternBytes(_ count: Int) -> Data {
    var data = Data(capacity: count)
    while data.count < count { data.append(contentsOf: TestHTTPServer.pattern.prefix(count - data.count)) }
    return data
}

@Suite("WebLoader", .timeLimit(.minutes(5)))
struct WebLoaderTests {
    func loader(_ configure: (inout WebLoaderConfiguration) -> Void = { _ in }) -> WebLoader {
        var configuration = WebLoaderConfiguration()
        configuration.page.consoleOutput = ConsoleLines().output
        // The watchdog a test does not set itself: generous, for the sanitized runs, where the
        // whole suite shares two cores and a page can wait a minute for its turn.
        configuration.timeout = 240
        configure(&configuration)
        return WebLoader(configuration: configuration)
    }

    /// A loader for `body`, shut down and awaited when `body` returns or throws (`using`).
    func withLoader<R>(
        _ configure: (inout WebLoaderConfiguration) -> Void = { _ in }, _ body: (WebLoader) async throws -> R
    ) async throws -> R {
        try await using(loader(configure), body)
    }

    /// A test server, and a loader writing its streams to a temporary directory; all closed
    /// (and removed) at the end.
    func withStreamingLoader(
        timeout: TimeInterval = 240, _ body: (TestHTTPServer, WebLoader, URL) async throws -> Void
    ) async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withDirectory { directory in
            try await withLoader({ $0.streamDirectory = directory; $0.timeout = timeout }) { loader in
                try await body(server, loader, directory)
            }
        }
    }

    func url(_ server: TestHTTPServer, _ path: String) throws -> URL {
        try #require(URL(string: server.baseURL + path))
    }

    // MARK: - One-shot methods

    @Test func getDataClassifiesByTheParsedContentType() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            let json = try await loader.evaluate(WebLoader.body(url: try url(server, "/json"), method: .getData))
            guard case .json(let value) = json.type, let object = value as? [String: Any] else {
                Issue.record("not JSON: \(json.type)")
                return
            }
            #expect(object["hello"] as? String == "world")
            #expect(json.status == 200 && json.contentType == "application/json")
            let cases: [(String, String)] = [
                ("application/problem+json", "json"), ("Application/JSON; charset=utf-8", "json"), ("text/csv", "text"),
                ("application/xml", "text"), ("image/svg+xml", "text"), ("application/javascript", "text"),
                ("application/octet-stream", "data"), ("video/context-text", "data"),
            ]
            for (type, expected) in cases {
                let body = expected == "json" ? "[1]" : "x"
                let path = "/typed?type=\(type.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&body=\(body.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                let response = try await loader.evaluate(WebLoader.body(url: try url(server, path), method: .getData))
                switch (response.type, expected) {
                case (.json(let value), "json"): #expect(value as? [Int] == [1], "\(type)")
                case (.plainText(let text), "text"): #expect(text == "x", "\(type)")
                case (.data(let data), "data"): #expect(data == Data("x".utf8), "\(type)")
                default: Issue.record("\(type) gave \(response.type)")
                }
            }
            // JSON is read as json() reads it: UTF-8, a UTF-8 BOM dropped, invalid sequences
            // replaced; a UTF-16 BOM decodes as UTF-16; text that is not JSON is a bad response.
            let encodings: [(String, Any)] = [
                ("EFBBBF5B315D", [1]), ("5B22E282AC225D", ["\u{20AC}"]), ("5B22FF225D", ["\u{FFFD}"]),
                ("FFFE5B0031005D00", [1]), ("FEFF005B0032005D", [2]), ("5B22F09F9880225D", ["\u{1F600}"]),
            ]
            for (hex, expected) in encodings {
                let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/hex?type=application%2Fjson&body=\(hex)"), method: .getData))
                guard case .json(let value) = response.type else { Issue.record("\(hex): \(response.type)"); continue }
                #expect((value as? NSArray)?.isEqual(to: expected as? [Any] ?? []) == true, "\(hex): \(value)")
            }
            for hex in ["5B31", "EFBBBF", "7B2261223A7D"] {
                do {
                    let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/hex?type=application%2Fjson&body=\(hex)"), method: .getData))
                    Issue.record("\(hex): \(response.type)")
                } catch let error as WebLoaderError {
                    guard case .badResponse = error else { Issue.record("\(hex): \(error)"); continue }
                }
            }
            let untyped = try await loader.evaluate(WebLoader.body(url: try url(server, "/untyped"), method: .downloadFile))
            guard case .data(let bytes) = untyped.type else { Issue.record("\(untyped.type)"); return }
            #expect(bytes == Data([1, 2, 3]) && untyped.contentType == "")
        }
    }

    @Test func nonSuccessStatusesReachSwift() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/status?code=404"), method: .getData))
            guard case .plainText(let text) = response.type else { Issue.record("\(response.type)"); return }
            #expect(text == "status 404" && response.status == 404)
        }
    }

    @Test func postDataSendsJSONOrAForm() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/echo?k=json"), method: .postData,
                                                         postData: ["name": "\u{5F20}\u{4E09}", "n": 1]))
            _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/echo?k=form"), method: .postData,
                                                         contentType: "application/x-www-form-urlencoded", postData: ["b": "x y", "a": 1]))
            let json = try #require(server.received.first { $0.query["k"] == "json" })
            #expect(json.method == "POST" && json.header("content-type") == "application/json")
            let decoded = try JSONSerialization.jsonObject(with: json.body) as? [String: Any]
            #expect(decoded?["name"] as? String == "\u{5F20}\u{4E09}" && decoded?["n"] as? Int == 1)
            let form = try #require(server.received.first { $0.query["k"] == "form" })
            #expect(form.body == Data("a=1&b=x+y".utf8) && form.header("content-type") == "application/x-www-form-urlencoded")
            await #expect(throws: WebLoaderError.self) {
                _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/echo"), method: .postData, postData: ["d": Date()]))
            }
        }
    }

    @Test(arguments: [WebLoaderConfiguration.BinaryEncoding.bytes, .base64])
    func uploadDataSendsTheFileAndTheExtraFields(encoding: WebLoaderConfiguration.BinaryEncoding) async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader({ $0.binaryEncoding = encoding }) { loader in
            let file = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let response = try await loader.evaluate(WebLoader.body(
                url: try url(server, "/echo"), method: .uploadData, contentType: "application/json",
                postData: ["filename": "photo.bin", "album": "summer", "tags": ["a", "b"]], uploadData: file))
            #expect(response.status == 200)
            let request = try #require(server.received.first)
            let contentType = try #require(request.header("content-type"))
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
            var expected = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            expected += file
            expected += Data("\r\n".utf8)
            // The extra fields follow in the order of the dictionary's keys in the page (any order).
            let text = String(decoding: request.body, as: UTF8.self)
            #expect(request.body.starts(with: expected))
            #expect(text.contains("--\(boundary)\r\nContent-Disposition: form-data; name=\"album\"\r\n\r\nsummer\r\n"))
            #expect(text.contains("--\(boundary)\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\n[\"a\",\"b\"]\r\n"))
            #expect(!text.contains("name=\"filename\""))
            #expect(text.hasSuffix("--\(boundary)--\r\n"))
        }
    }

    @Test(arguments: [WebLoaderConfiguration.BinaryEncoding.bytes, .base64])
    func downloadFileDeliversTheBytes(encoding: WebLoaderConfiguration.BinaryEncoding) async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader({ $0.binaryEncoding = encoding }) { loader in
            let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/bytes?n=200000"), method: .downloadFile))
            guard case .data(let data) = response.type else { Issue.record("\(response.type)"); return }
            #expect(data == patternBytes(200_000))
            #expect(server.received.first?.header("requestid") == response.requestID)
        }
    }

    @Test func staticFilesFromPythonsServer() async throws {
        try await withDirectory { root in
            try Data(#"{"from": "python"}"#.utf8).write(to: root.appendingPathComponent("data.json"))
            try Data("<p>static</p>".utf8).write(to: root.appendingPathComponent("page.html"))
            let image = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
            try image.write(to: root.appendingPathComponent("image.bin"))
            let server = try StaticFileServer.start(directory: root)
            defer { server.stop() }
            try await withDirectory { downloads in
                try await withLoader({ $0.streamDirectory = downloads }) { loader in
                    let json = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/data.json"), method: .getData))
                    guard case .json(let value) = json.type else { Issue.record("\(json.type)"); return }
                    #expect((value as? [String: Any])?["from"] as? String == "python")
                    let page = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/page.html"), method: .getData))
                    guard case .plainText(let text) = page.type else { Issue.record("\(page.type)"); return }
                    #expect(text == "<p>static</p>")
                    let stream = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/image.bin"), method: .downloadStream))
                    guard case .streamEnd(let file) = stream.type else { Issue.record("\(stream.type)"); return }
                    #expect(try Data(contentsOf: file) == image && stream.total == 300_000)
                    let missing = try await loader.evaluate(WebLoader.body(url: URL(string: server.baseURL + "/missing"), method: .getData))
                    #expect(missing.status == 404)
                }
            }
        }
    }

    // MARK: - Streams

    @Test func downloadStreamWritesTheFileWithProgress() async throws {
        try await withStreamingLoader { server, loader, directory in
            let messages = Messages()
            loader.evaluate(WebLoader.body(url: try url(server, "/bytes?n=1000000&chunk=50000"), method: .downloadStream),
                            completionHandler: messages.handler)
            let (responses, error) = await messages.terminal()
            #expect(error == nil)
            guard case .streamStart = responses.first?.type, case .streamEnd(let file)? = responses.last?.type else {
                Issue.record("\(responses.map(\.type))")
                return
            }
            let progress = responses.compactMap { response -> Double? in
                if case .streaming(let value) = response.type { return value } else { return nil }
            }
            #expect(progress.count == responses.count - 2)
            #expect(progress == progress.sorted() && progress.last == 1.0)
            #expect(try Data(contentsOf: file) == patternBytes(1_000_000))
            #expect(responses.last?.received == 1_000_000 && responses.last?.total == 1_000_000)
            #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        }
    }

    /// No Content-Length (a chunked body), or one that is not the length read (a compressed
    /// body, which arrives decoded): progress is nil, never a wrong fraction.
    @Test(arguments: [("/chunked", "first,second,third"), ("/gzip", String(repeating: "hello gzip ", count: 100))])
    func streamsWithoutAUsableLengthHaveNoProgress(path: String, body: String) async throws {
        try await withStreamingLoader { server, loader, directory in
            var progress: [Double?] = []
            var file: URL?
            for try await message in loader.stream(WebLoader.body(url: try url(server, path), method: .downloadStream)) {
                if case .streaming(let value) = message.type { progress.append(value) }
                if case .streamEnd(let url) = message.type { file = url }
            }
            #expect(!progress.isEmpty && progress.allSatisfy { $0 == nil })
            #expect(try Data(contentsOf: try #require(file)) == Data(body.utf8))
        }
    }

    /// Issue 32, class 4: leaving the loop over `stream(_:)` early (a `break`, as a consumer
    /// that has seen enough writes it) cancels the request: its connection is closed and its
    /// partial file removed, instead of the download running to its end.
    @Test func breakingOutOfAStreamCancelsItsRequest() async throws {
        try await withStreamingLoader { server, loader, directory in
            for try await message in loader.stream(WebLoader.body(url: try url(server, "/slow-body"), method: .downloadStream)) {
                if case .streaming = message.type { break }
            }
            try await server.wait { $0.closedByClient.contains("/slow-body") }
            let started = ContinuousClock.now
            while !((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty,
                  ContinuousClock.now - started < .seconds(30) {
                await Task.yield()
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test func aSixtyFourMegabyteStreamHasTheRightDigest() async throws {
        try await withStreamingLoader { server, loader, directory in
            let size = 64 << 20
            let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/bytes?n=\(size)"), method: .downloadStream))
            guard case .streamEnd(let file) = response.type else { Issue.record("\(response.type)"); return }
            var expected = SHA256()
            for _ in 0..<(size / TestHTTPServer.pattern.count) { expected.update(data: TestHTTPServer.pattern) }
            var actual = SHA256()
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { actual.update(data: chunk) }
            #expect(actual.finalize() == expected.finalize())
        }
    }

    // MARK: - Failures

    /// With `httpErrorsFail`, a status of 400 or more ends the request with `.httpStatus` (its
    /// body not delivered, no stream file kept), also when reading its body failed; by default
    /// it is delivered with its status.
    @Test func anErrorStatusFailsWhenTheConfigurationSaysSo() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withDirectory { directory in
            // The body ("status 503") is also longer than the limit: the status is the failure.
            try await withLoader({ $0.streamDirectory = directory; $0.httpErrorsFail = true; $0.maximumBodySize = 5 }) { loader in
                for method in [WebLoaderMethod.getData, .downloadFile, .downloadStream] {
                    let url = try url(server, "/status?code=503")
                    do {
                        let response = try await loader.evaluate(WebLoader.body(url: url, method: method))
                        Issue.record("\(method): \(response.type)")
                    } catch let error as WebLoaderError {
                        #expect(error == .httpStatus(requestID: error.requestID, url: url, status: 503), "\(method)")
                        #expect(error.description == "\(url.absoluteString): the server answered HTTP 503")
                    }
                }
                let ok = try await loader.evaluate(WebLoader.body(url: try url(server, "/status?code=204"), method: .getData))
                #expect(ok.status == 204)
                #expect(files(in: directory).isEmpty)
            }
        }
    }

    /// `streamStart` carries the length, the content type and the file, which is new, mode 0600,
    /// in the request's own directory when it names one.
    @Test func streamStartSaysWhatIsComingAndWhere() async throws {
        try await withStreamingLoader { server, loader, directory in
            try await withDirectory { own in
                var body = WebLoader.body(url: try url(server, "/bytes?n=300000"), method: .downloadStream)
                body.streamDirectory = own
                let messages = Messages()
                loader.evaluate(body, completionHandler: messages.handler)
                let (responses, error) = await messages.terminal()
                #expect(error == nil)
                guard case .streamStart(let total, let contentType, let file)? = responses.first?.type,
                      case .streamEnd(let ended)? = responses.last?.type
                else {
                    Issue.record("\(responses.map(\.type))")
                    return
                }
                #expect(total == 300_000 && contentType == "application/octet-stream" && file == ended)
                #expect(file.deletingLastPathComponent().path == own.path)
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
                #expect(files(in: directory).isEmpty)
                try FileManager.default.removeItem(at: file)
            }
        }
    }

    /// A `@MainActor` handler runs on the main actor, one message at a time and in order, so
    /// an LWWebLoader-style controller (LoaderConsumer, compiled as a consumer's code with
    /// warnings as errors) updates its state from it under Swift 6.
    @MainActor @Test func handlersRunInTheirIsolation() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("consumer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = loader()
        let controller = ItemsController(loader: loader)
        let changes = ChangeLog()
        controller.onChange = { changes.record(controller) }
        defer { controller.onChange = nil }  // it holds the controller: the cycle would outlive the test
        controller.reload(from: try url(server, "/json"))
        await changes.wait(until: { $0.status.hasPrefix("loaded") })
        #expect(controller.items == ["hello", "list", "n"] && controller.status == "loaded 200")
        controller.download(try url(server, "/bytes?n=2000000&chunk=100000"), into: directory)
        await changes.wait(until: { $0.downloaded != nil || $0.status.hasPrefix("download failed") })
        #expect(controller.progress.first == 0 && controller.progress.count > 2 && controller.progress.last == 1)
        #expect(controller.progress == controller.progress.sorted())
        if let file = controller.downloaded { #expect(try Data(contentsOf: file).count == 2_000_000) }
        controller.reload(from: URL(string: "127.0.0.1:8765/items.json"))
        await changes.wait(until: { $0.status.hasPrefix("invalid") })
        #expect(controller.status.contains("needs its scheme"), "\(controller.status)")
        await controller.load(from: try url(server, "/status?code=404"))
        #expect(controller.status == "loaded 404")
        #expect(changes.allOnTheMainQueue)
        await loader.shutdown()
    }

    /// Each kind of failure is a case of its own, with the request's URL and a reason in words,
    /// for every method: one terminal message, no file left.
    @Test func eachKindOfFailureIsItsOwnCase() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let closed = try RefusingPort()
        defer { closed.close() }
        try await withDirectory { directory in
            try await withLoader({
                $0.streamDirectory = directory
                $0.maximumBodySize = 1000
                $0.page.requestPolicy = RequestPolicy(allowedHosts: ["127.0.0.1", "localhost", String(repeating: "b", count: 64) + ".invalid"])
            }) { loader in
                typealias Kind = (WebLoaderError) -> Bool
                let refused: Kind = { if case .connectionFailed = $0 { true } else { false } }
                let cases: [(String, [WebLoaderMethod], Kind, String)] = [
                    ("http://127.0.0.1:\(closed.port)/x", [.getData, .downloadStream, .postData], refused,
                     "the connection to 127.0.0.1:\(closed.port) was refused"),
                    ("http://\(String(repeating: "b", count: 64)).invalid/x", [.getData], refused, "could not be resolved"),
                    ("http://example.com/x", [.getData, .downloadStream], { if case .refusedByPolicy = $0 { true } else { false } },
                     "request policy"),
                    (server.baseURL + "/bad-json", [.getData], { if case .badResponse = $0 { true } else { false } }, "invalid json"),
                    (server.baseURL + "/close-mid-stream", [.downloadStream], { if case .badResponse = $0 { true } else { false } },
                     "before the response was complete"),
                    (server.baseURL + "/truncated", [.getData, .downloadStream], { if case .badResponse = $0 { true } else { false } },
                     "before the response was complete"),
                    (server.baseURL + "/bytes?n=5000", [.getData, .downloadFile], { if case .tooLarge = $0 { true } else { false } },
                     "longer than 1000 bytes"),
                    ("items.json", [.getData], { if case .invalidRequest = $0 { true } else { false } }, "relative URL"),
                ]
                for (address, methods, isKind, says) in cases {
                    for method in methods {
                        let messages = Messages()
                        let url = URL(string: address)
                        loader.evaluate(WebLoader.body(url: url, method: method, postData: [:]), completionHandler: messages.handler)
                        let (responses, error) = await messages.terminal()
                        guard let error = error as? WebLoaderError, isKind(error) else {
                            Issue.record("\(address) \(method): \(String(describing: error))")
                            continue
                        }
                        #expect(error.url == url && error.reason.contains(says), "\(address) \(method): \(error.reason)")
                        #expect(error.description.contains(says) && error.localizedDescription == error.description)
                        guard case .error(let message)? = responses.last?.type else { Issue.record("\(responses.map(\.type))"); continue }
                        #expect(message == error.description)
                        #expect(responses.filter(\.isTerminal).count == 1)
                    }
                }
                // A page script sees the kind too, as Node's fetch gives it: the TypeError's cause.
                let (page, _) = try await loader.page(for: try url(server, "/json"))
                let code = try await page.callAsyncJavaScript(
                    "return fetch(url).then(function () { return 'no error' }, function (e) { return e.name + ' ' + e.cause.code + ': ' + e.cause.message })",
                    arguments: ["url": "http://127.0.0.1:\(closed.port)/x"])
                #expect(code as? String == "TypeError ECONNREFUSED: the connection to 127.0.0.1:\(closed.port) was refused (nothing listens there)")
                #expect(files(in: directory).isEmpty)
                let ftp = try? await loader.evaluate(WebLoader.body(url: URL(string: "ftp://127.0.0.1/x"), method: .getData))
                #expect(ftp == nil)
            }
            // The loader's timeout (its own loader: a second is too short for a loaded machine to
            // make a page and answer, which the cases above must not depend on).
            try await withLoader({ $0.streamDirectory = directory; $0.timeout = 1 }) { loader in
                for method in [WebLoaderMethod.getData, .downloadStream] {
                    let url = try url(server, "/hang")
                    do {
                        let response = try await loader.evaluate(WebLoader.body(url: url, method: method))
                        Issue.record("\(method): \(response.type)")
                    } catch let error as WebLoaderError {
                        guard case .timedOut(_, url, let reason) = error else { Issue.record("\(method): \(error)"); continue }
                        #expect(reason.contains("timed out"), "\(reason)")
                    }
                }
            }
        }
    }

    /// A missing, relative or non-http(s) URL is an invalid request that names what was given
    /// (it once went to http://localhost), checked before any page is made; nothing is sent.
    @Test func aMissingOrRelativeURLIsAnInvalidRequestNamingIt() async throws {
        let base = try #require(URL(string: "http://127.0.0.1:9/dir/"))
        let cases: [(url: URL?, says: String)] = [
            (nil, "the request has no URL"),
            (URL(string: "127.0.0.1:8765/items.json"), "127.0.0.1:8765/items.json"),
            (URL(string: "items.json"), "'items.json' is a relative URL"),
            (URL(string: "/api/items"), "'/api/items' is a relative URL"),
            (URL(string: "ftp://127.0.0.1/x"), "'ftp://127.0.0.1/x' is not an http or https URL"),
            (URL(string: "file:///etc/passwd"), "'file:///etc/passwd' is not an http or https URL"),
            (URL(string: "javascript:alert(1)"), "is not an http or https URL"),
            (URL(string: "http:items.json"), "'http:items.json' has no host"),
            (URL(string: "http://"), "has no host"),
        ]
        try await withLoader { loader in
            for (url, says) in cases {
                for method in [WebLoaderMethod.getData, .postData, .downloadStream] {
                    do {
                        _ = try await loader.evaluate(WebLoader.body(url: url, method: method, postData: ["a": 1]))
                        Issue.record("\(String(describing: url)) \(method): no error")
                    } catch let error as WebLoaderError {
                        guard case .invalidRequest(_, _, let message) = error else { Issue.record("\(error)"); continue }
                        #expect(message.contains(says), "\(String(describing: url)): \(message)")
                    }
                }
            }
            #expect(loader.pooledPageCount == 0)
            // A relative URL with its base is absolute.
            let relative = WebLoader.body(url: URL(string: "items.json", relativeTo: base), method: .getData)
            #expect(try WebLoader.target(of: relative).absoluteString == "http://127.0.0.1:9/dir/items.json")
        }
    }

    @Test func headersGoWithTheRequestAndTheNamedParametersWin() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            let body = WebLoader.body(url: try url(server, "/echo"), method: .postData, userAgent: "Named/1", postData: ["a": 1],
                                      headers: ["Authorization": "Bearer t0ken", "X-Trace": "abc", "User-Agent": "Dictionary/1"])
            _ = try await loader.evaluate(body)
            let sent = try #require(server.received.first { $0.path == "/echo" })
            #expect(sent.header("authorization") == "Bearer t0ken")
            #expect(sent.header("x-trace") == "abc")
            #expect(sent.header("user-agent") == "Named/1")
        }
    }

    /// JSON numbers are NSNumbers of doubles (printed `1.0` on Linux) that read as Ints; a
    /// response can be made by hand, for fakes.
    @Test func jsonNumbersReadAsIntsAndResponsesCanBeMadeByHand() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/json"), method: .getData))
            guard case .json(let value) = response.type, let object = value as? [String: Any] else {
                Issue.record("\(response.type)")
                return
            }
            #expect(object["n"] as? Int == 1)
            #expect((object["list"] as? [Any])?.compactMap { $0 as? Int } == [1, 2, 3])
        }
        let fake = WebLoaderResponse(requestID: "r1", type: .plainText("hi"), status: 201, contentType: "text/plain")
        #expect(fake.isTerminal && fake.status == 201 && fake.received == 0 && fake.total == nil)
        #expect(!WebLoaderResponse(requestID: "r2", type: .streamStart(total: nil, contentType: "", file: URL(fileURLWithPath: "/tmp/x"))).isTerminal)
    }

    @Test func cancellingARequestEndsItOnceAndClosesItsConnection() async throws {
        try await withStreamingLoader { server, loader, directory in
            let messages = Messages()
            let body = WebLoader.body(url: try url(server, "/slow-body"), method: .downloadStream)
            loader.evaluate(body) { response, error in
                messages.handler(response, error)
                if case .streaming = response.type { loader.cancel(requestID: body.requestID) }
            }
            let (responses, error) = await messages.terminal()
            #expect(cancelled(error, body.requestID))
            #expect(responses.filter(\.isTerminal).count == 1)
            try await server.wait { $0.closedByClient.contains("/slow-body") }
            #expect(files(in: directory).isEmpty)
            // cancelAll, and a request after close.
            let first = Messages(), second = Messages()
            loader.evaluate(WebLoader.body(url: try url(server, "/hang"), method: .getData), completionHandler: first.handler)
            loader.evaluate(WebLoader.body(url: try url(server, "/hang"), method: .downloadStream), completionHandler: second.handler)
            try await server.wait { $0.received.filter { $0.path == "/hang" }.count == 2 }
            loader.cancelAll()
            #expect(await first.terminal().error is WebLoaderError)
            #expect(await second.terminal().error is WebLoaderError)
            loader.close()
            await #expect(throws: WebLoaderError.self) { _ = try await loader.evaluate(body) }
        }
    }

    @Test(.timeLimit(.minutes(3))) func shutdownReturnsOnceThePagesAreGone() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        weak var page: WebPage?
        weak var context: JSContext?
        weak var dropped: WebLoader?
        do {
            let loader = loader()
            dropped = loader
            let (made, _) = try await loader.page(for: try url(server, "/"))
            page = made
            context = made.context
            _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/json"), method: .getData))
            let hanging = Messages()
            loader.evaluate(WebLoader.body(url: try url(server, "/hang"), method: .getData), completionHandler: hanging.handler)
            try await server.wait { $0.received.contains { $0.path == "/hang" } }
            await loader.shutdown()
            #expect(hanging.isFinished)  // its terminal message was handed over first
            #expect(made.network.activity.isIdle)
            await #expect(throws: WebPageError.closed) { try await made.evaluateJavaScript("1") }
            #expect(cancelled(await hanging.terminal().error, hanging.requestID))
            await loader.shutdown()  // a second call returns at once
            await #expect(throws: WebLoaderError.self) {
                _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/json"), method: .getData))
            }
        }
        // Nothing the loader ran still holds it, its page or its context once shutdown() returned
        // (a process that exits then leaves nothing behind).
        #expect(dropped == nil && page == nil && context == nil)
    }

    /// Whatever the page ran (streams hold chunks, turns and files while they run), it is
    /// released once the loader is shut down.
    @Test(.timeLimit(.minutes(3)), arguments: [WebLoaderMethod.getData, .downloadFile, .downloadStream])
    func aPageIsReleasedAfterShutdownWhateverItRan(method: WebLoaderMethod) async throws {
        try await withStreamingLoader { server, loader, directory in
            let url = try url(server, "/bytes?n=300000&chunk=30000")
            weak var page: WebPage?
            do {
                let (made, _) = try await loader.page(for: url)
                page = made
            }
            _ = try await loader.evaluate(WebLoader.body(url: url, method: method))
            var streamed = 0
            for try await message in loader.stream(WebLoader.body(url: url, method: method)) where message.isTerminal {
                streamed += 1
                if case .streamEnd(let file) = message.type { try? FileManager.default.removeItem(at: file) }
            }
            #expect(streamed == 1)
            await loader.shutdown()
            #expect(page == nil)
        }
    }

    @Test func aRequestIDCanBeReusedOnceItsRequestEnded() async throws {
        try await withStreamingLoader { server, loader, directory in
            let stream = WebLoaderRequest(url: try url(server, "/slow-body"), requestID: "same", method: .downloadStream)
            let first = Messages()
            loader.evaluate(stream) { response, error in
                first.handler(response, error)
                if case .streaming = response.type { loader.cancel(requestID: "same") }
            }
            #expect(cancelled(await first.terminal().error, "same"))
            // The first request's page may still post its late messages: they never reach the second.
            let second = try await loader.evaluate(WebLoaderRequest(url: try url(server, "/json"), requestID: "same", method: .getData))
            guard case .json = second.type else { Issue.record("\(second.type)"); return }
            #expect(files(in: directory).isEmpty)
        }
    }

    @Test func aTaskCancelledBeforehandSendsNothing() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            let body = WebLoader.body(url: try url(server, "/echo?k=cancelled"), method: .postData, postData: ["a": 1])
            let task = Task { () async throws -> WebLoaderResponse in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await loader.evaluate(body)
            }
            await #expect { try await task.value } throws: { cancelled($0, body.requestID) }
            _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/echo?k=after"), method: .postData, postData: [:]))
            #expect(server.received.map { $0.query["k"] } == ["after"])
        }
    }

    @Test func aHandlerThatBlocksDoesNotBlockCancellation() async throws {
        try await withStreamingLoader { server, loader, directory in
            let body = WebLoader.body(url: try url(server, "/bytes?n=4000000&chunk=10000"), method: .downloadStream)
            let messages = Messages()
            let release = DispatchSemaphore(value: 0)
            let once = Once()
            loader.evaluate(body) { response, error in
                messages.handler(response, error)
                guard case .streaming = response.type, once.first() else { return }
                // Another thread cancels while this handler waits for it.
                Thread {
                    loader.cancel(requestID: body.requestID)
                    release.signal()
                }.start()
                release.wait()
            }
            let (responses, error) = await messages.terminal()
            #expect(cancelled(error, body.requestID))
            #expect(responses.filter(\.isTerminal).count == 1)
            #expect(files(in: directory).isEmpty)
        }
    }

    @Test func aMissingStreamDirectoryIsAFileError() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        _ = try await withLoader({ $0.streamDirectory = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)") }) { loader in
            await #expect {
                _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/bytes?n=1000"), method: .downloadStream))
            } throws: { error in
                if case WebLoaderError.fileError = error { return true } else { return false }
            }
        }
    }

    @Test func aSilentRequestTimesOut() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader({ $0.timeout = 0.3 }) { loader in
            for method in [WebLoaderMethod.getData, .downloadStream] {
                let messages = Messages()
                loader.evaluate(WebLoader.body(url: try url(server, "/hang"), method: method), completionHandler: messages.handler)
                let (responses, error) = await messages.terminal()
                #expect(responses.count == 1 && error is WebLoaderError, "\(method)")
            }
        }
    }

    @Test func aDuplicateRequestIDIsRefusedWithoutDisturbingTheFirst() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            let body = WebLoader.body(url: try url(server, "/json"), method: .getData)
            let first = Messages(), second = Messages()
            loader.evaluate(body, completionHandler: first.handler)
            loader.evaluate(body, completionHandler: second.handler)
            let refused = await second.terminal()
            #expect(refused.error as? WebLoaderError == .invalidRequest(
                requestID: body.requestID, url: body.url, reason: "a request with the id \(body.requestID) is already running"))
            guard case .json = await first.terminal().responses.last?.type else { Issue.record("first request failed"); return }
        }
    }

    @Test func nativeLogWritesToTheLogger() async throws {
        let lines = LogLines()
        try await withLoader({ $0.logger = Logger(label: "test") { _ in lines } }) { loader in
            let response = try await loader.evaluate(WebLoader.body(url: nil, method: .nativeLog, methodArguments: "it's \"quoted\"\n\u{2028}"))
            guard case .plainText(let text) = response.type else { Issue.record("\(response.type)"); return }
            #expect(text == "it's \"quoted\"\n\u{2028}")
            await lines.wait(for: 1)
            #expect(lines.all == ["it's \"quoted\"\n\u{2028}"])
        }
    }

    // MARK: - Concurrency and hostile pages

    @Test func twoHundredConcurrentMixedRequestsNeverCross() async throws {
        // The loader's watchdog counts a request's wait behind the others (8 connections, 32
        // transfers): under ThreadSanitizer on two cores the last ones waited past 60 seconds
        // (the helpers' watchdog is 240 s).
        try await withStreamingLoader { server, loader, directory in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        switch index % 4 {
                        case 0:
                            let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/bytes?n=\(1000 + index)"), method: .downloadFile))
                            guard case .data(let data) = response.type else { throw WebLoaderError.failed(requestID: "", url: nil, reason: "\(response.type)") }
                            #expect(data == patternBytes(1000 + index))
                        case 1:
                            let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/echo"), method: .postData, postData: ["index": index]))
                            guard case .json(let value) = response.type else { throw WebLoaderError.failed(requestID: "", url: nil, reason: "\(response.type)") }
                            #expect((value as? [String: Any])?["index"] as? Int == index)
                        case 2:
                            let response = try await loader.evaluate(WebLoader.body(url: try url(server, "/bytes?n=\(20000 + index)&chunk=3000"), method: .downloadStream))
                            guard case .streamEnd(let file) = response.type else { throw WebLoaderError.failed(requestID: "", url: nil, reason: "\(response.type)") }
                            #expect(try Data(contentsOf: file) == patternBytes(20000 + index))
                            try FileManager.default.removeItem(at: file)
                        default:
                            let upload = Data(repeating: UInt8(index), count: index)
                            _ = try await loader.evaluate(WebLoader.body(url: try url(server, "/echo?i=\(index)"), method: .uploadData,
                                                                         postData: ["filename": "f\(index)"], uploadData: upload))
                            let request = try #require(server.received.first { $0.query["i"] == "\(index)" })
                            let marker = Data("filename=\"f\(index)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8) + upload + Data("\r\n".utf8)
                            #expect(request.body.range(of: marker) != nil)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(files(in: directory).isEmpty)
        }
    }

    @Test func aHostilePageScriptCannotBreakTheBridge() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        try await withLoader { loader in
            let target = try url(server, "/json")
            let (page, _) = try await loader.page(for: target)
            _ = try await page.evaluateJavaScript("""
                fetch = function () { throw new Error('hijacked') }; JSON = null; webkit = null; window.loader = null;
                Promise.prototype.then = function () { throw new Error('hijacked then') };
                Uint8Array.prototype.set = null; Reflect.apply = null; Object.keys = null; 1
                """)
            let response = try await loader.evaluate(WebLoader.body(url: target, method: .getData))
            guard case .json(let value) = response.type else { Issue.record("\(response.type)"); return }
            #expect((value as? [String: Any])?["hello"] as? String == "world")
        }
    }

    /// A page script's setters on Object.prototype never see a message (whose token would let
    /// the script post chunks of its own), and a Headers.prototype.get that throws ends each
    /// request with that error at once, never with silence until the timeout.
    @Test func hostileOverridesCannotStealTokensOrSilenceARequest() async throws {
        try await withStreamingLoader { server, loader, _ in
            let target = try url(server, "/json")
            let (page, _) = try await loader.page(for: target)
            _ = try await page.evaluateJavaScript("""
                window.stolen = [];
                ['requestId', 'token', 'type', 'value', 'status', 'contentType', 'total', 'received', 'done', 'chrunkOrder']
                    .forEach(function (name) {
                        var descriptor = Object.create(null);  // else it would inherit the 'value' accessor
                        descriptor.configurable = true;
                        descriptor.set = function () { if (typeof this.token === 'string') stolen.push(this.token) };
                        Object.defineProperty(Object.prototype, name, descriptor);
                    });
                1
                """)
            for method in [WebLoaderMethod.getData, .downloadStream] {
                let body = WebLoader.body(url: try url(server, "/bytes?n=300000&chunk=10000"), method: method)
                let response = try await loader.evaluate(body)
                #expect(response.received == 300_000 || method == .getData, "\(method)")
                if case .streamEnd(let file) = response.type { try? FileManager.default.removeItem(at: file) }
            }
            #expect(try await page.evaluateJavaScript("stolen.length") as? Int == 0)
            _ = try await page.evaluateJavaScript("Headers.prototype.get = function () { throw new Error('hostile get') }; 1")
            for method in [WebLoaderMethod.getData, .downloadStream] {
                let messages = Messages()
                loader.evaluate(WebLoader.body(url: target, method: method), completionHandler: messages.handler)
                let (responses, error) = await messages.terminal()
                guard case .failed(_, _, let message)? = error as? WebLoaderError else {
                    Issue.record("\(method): \(String(describing: error))")
                    continue
                }
                #expect(message.contains("hostile get") && responses.count == 1, "\(method): \(message)")
            }
        }
    }
}

/// True the first time only.
final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    func first() -> Bool { lock.withLock { defer { done = true }; return !done } }
}

/// Log lines captured by a swift-log handler.
final class LogLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    var all: [String] { lock.withLock { lines } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            lines.append(event.message.description)
            let ready = waiters.filter { $0.0 <= lines.count }.map(\.1)
            waiters.removeAll { $0.0 <= lines.count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if lines.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Whether the caller runs on the main queue, the main actor's executor. (Not
/// `Thread.isMainThread`: on Linux, once `dispatchMain()` runs, a worker thread drains the main
/// queue.)
func isOnTheMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueKey) == true
}

private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Records the controller's changes and whether each came on the main queue.
@MainActor final class ChangeLog {
    private(set) var allOnTheMainQueue = true
    private var waiter: (condition: (ItemsController) -> Bool, continuation: CheckedContinuation<Void, Never>)?
    private var latest: ItemsController?

    func record(_ controller: ItemsController) {
        allOnTheMainQueue = allOnTheMainQueue && isOnTheMainQueue()
        latest = controller
        if let waiter, waiter.condition(controller) {
            self.waiter = nil
            waiter.continuation.resume()
        }
    }

    func wait(until condition: @escaping (ItemsController) -> Bool) async {
        if let latest, condition(latest) { return }
        await withCheckedContinuation { waiter = (condition, $0) }
    }
}
