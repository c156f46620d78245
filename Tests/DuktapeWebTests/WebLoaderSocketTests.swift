import ChildProcess
import Crypto
import DuktapeCore
import Foundation
import TestServer
import Testing

@testable import DuktapeWeb

/// The messages a loader's WebSocket delivered, and a way to wait for one.
final class SocketMessages: Sendable {
    private struct Waiter {
        let id: Int
        let prefix: String
        let continuation: CheckedContinuation<Void, Never>
    }
    private let state = Guarded<(lines: [String], waiters: [Waiter], serial: Int)>(([], [], 0))

    /// A message as a line: its type, and its value where it has one.
    static func line(_ message: WebLoaderResponse) -> String {
        switch message.type {
        case .wsOpened: "opened"
        case .wsClosed(let code, let reason, let clean): "closed \(code) \(reason) \(clean)"
        case .plainText(let text): "text \(text)"
        case .data(let data): "data \(data.map { String(format: "%02x", $0) }.joined())"
        case .streamStart: "streamStart"
        case .streaming: "streaming"
        case .streamEnd(let file): "streamEnd \(file.path)"
        case .error(let text): "error \(text)"
        default: "other"
        }
    }

    func add(_ message: WebLoaderResponse) {
        let line = Self.line(message)
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.lines.append(line)
            let ready = state.waiters.filter { line.hasPrefix($0.prefix) }
            state.waiters.removeAll { line.hasPrefix($0.prefix) }
            return ready.map(\.continuation)
        }
        for waiter in woken { waiter.resume() }
    }

    var lines: [String] { state.withLock { $0.lines } }

    /// Returns once a message starting with `prefix` arrived after the `count` first ones, or
    /// once the task is cancelled (a test past its time limit ends instead of waiting on).
    func wait(for prefix: String, after count: Int = 0) async {
        let id = state.withLock { state in
            state.serial += 1
            return state.serial
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if Task.isCancelled || state.lines.dropFirst(count).contains(where: { $0.hasPrefix(prefix) }) { return true }
                    state.waiters.append(Waiter(id: id, prefix: prefix, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }
}

func sha256(ofFile url: URL) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hash = SHA256()
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
    return hash.finalize().map { String(format: "%02x", $0) }.joined()
}

/// A file of `size` pseudo-random bytes in the temporary directory.
func randomFile(size: Int) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("ws-file-\(UUID().uuidString)")
    var generator = SystemRandomNumberGenerator()
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var left = size
    while left > 0 {
        let count = min(left, 1 << 20)
        try handle.write(contentsOf: Data((0..<count / 8 + 1).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }.prefix(count)))
        left -= count
    }
    return url
}

/// The process's peak resident memory in bytes since `resetPeakMemory()`.
func peakMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}

func resetPeakMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

@Suite("WebLoader's WebSocket with WebSocketServer", .timeLimit(.minutes(5)))
struct WebLoaderSocketTests {
    /// Runs `body` with a loader whose WebSocket page is connected to `settings.url` (the
    /// server's Hello arrived) and the messages it delivers; shuts the loader down after, on
    /// every path.
    static func withConnectedLoader<Result>(
        _ settings: WebLoaderSocketSettings, configuration: WebLoaderConfiguration = WebLoaderConfiguration(),
        _ body: (WebLoader, SocketMessages) async throws -> Result
    ) async throws -> Result {
        try await using(WebLoader(configuration: configuration)) { loader in
            let messages = SocketMessages()
            try await loader.wsStart(settings) { message, _ in messages.add(message) }
            try await loader.wsConnect()
            await messages.wait(for: "opened")
            return try await body(loader, messages)
        }
    }

    /// `settings(server)`, for the tests that stream: a page busy with megabytes under a
    /// sanitizer on a loaded machine can miss its 5 s heartbeats past the server's 8 s watchdog
    /// (which `heartbeatsKeepTheClientPastTheWatchdogAndSilenceClosesIt` is about).
    static func streamingServer(_ configuration: inout WebSocketServerConfiguration) {
        configuration.heartbeatTimeout = 120
    }

    static func settings(_ server: WebSocketServer) -> WebLoaderSocketSettings {
        var settings = WebLoaderSocketSettings()
        settings.url = URL(string: "ws://127.0.0.1:\(server.port)/service")!
        settings.reconnectDelay = 0.05
        settings.maximumReconnectDelay = 0.2
        return settings
    }

    @Test func helloTextDataBothWays() async throws {
        try await withWebSocketServer { server in
            try await Self.withConnectedLoader(Self.settings(server)) { loader, messages in
                try await loader.wsSendString("héllo `${x}` \u{2028} \"q\"")
                try await loader.wsSendData(Data([0, 1, 0xFF]))
                var events = server.events.makeAsyncIterator()
                var lines: [String] = []
                while lines.count < 3, let event = await events.next() { lines.append(line(event)) }
                #expect(lines == ["connected 1", "message 1 6 héllo `${x}` \u{2028} \"q\"", "data 1 7 0001ff"])
                let client = try #require(server.clients.first)
                try await server.send(text: "raw text", to: client)
                try await server.send(data: Data([9, 8]), to: client)
                try await server.send(data: Data("as string".utf8), type: .string, to: client)
                try await server.send(data: Data([1]), type: WebSocketMessageType(rawValue: 99), to: client)
                await messages.wait(for: "error a binary frame of the unknown type 99")
                #expect(messages.lines == ["opened", "text raw text", "data 0908", "text as string", "error a binary frame of the unknown type 99"])
                await loader.wsClose()
                while let event = await events.next() {
                    if case .disconnected(_, let code, _, let clean) = event {
                        #expect(code == 1000 && clean)
                        break
                    }
            }
            }
        }
    }

    /// Streams `file` from the server to the loader and back; returns the peak memory growth of
    /// each direction.
    static func streamEachWay(_ file: URL, size: Int, server: WebSocketServer, client: WebSocketServer.Client, loader: WebLoader,
                              messages: SocketMessages, events: inout WebSocketServer.Events.AsyncIterator) async throws -> (Int, Int) {
        let expected = try sha256(ofFile: file)
        let count = messages.lines.count
        resetPeakMemory()
        var before = peakMemory()
        try await server.send(fileAt: file, to: client)
        await messages.wait(for: "streamEnd", after: count)
        let received = try #require(messages.lines.last { $0.hasPrefix("streamEnd ") }.map { URL(fileURLWithPath: String($0.dropFirst(10))) })
        defer { try? FileManager.default.removeItem(at: received) }
        #expect(try sha256(ofFile: received) == expected)
        #expect(messages.lines.dropFirst(count).filter { $0 == "streaming" }.count == (size + 10_239) / 10_240)
        let toLoader = peakMemory() - before

        resetPeakMemory()
        before = peakMemory()
        let sending = Task {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try await loader.wsSendStreamStart()
            while let chunk = try handle.read(upToCount: 256 << 10), !chunk.isEmpty { try await loader.wsSendStreaming(chunk) }
            try await loader.wsSendStreamEnd()
        }
        var written: URL?, others: [String] = []
        while let event = await events.next() {
            if case .streamEnd(_, let url) = event { written = url; break }
            if case .streamFailed(_, let reason) = event { Issue.record("stream failed: \(reason)"); break }
            if case .streaming = event { continue }
            others.append(line(event))
            if case .disconnected = event { break }
        }
        try await sending.value
        let stored = try #require(written, "the server's other events: \(others); the loader's: \(messages.lines.suffix(10))")
        defer { try? FileManager.default.removeItem(at: stored) }
        #expect(try sha256(ofFile: stored) == expected)
        return (toLoader, peakMemory() - before)
    }

    /// Set in the process `a64MBFileStreamsEachWayWithItsHashAndFlatMemory` starts to measure in.
    static let memoryChildVariable = "DUKTAPEWEB_STREAM_MEMORY_CHILD"

    /// 64 MB each way with the right SHA-256, in memory that does not grow with the file: the
    /// peak's growth for 64 MB is that of 8 MB, within noise (a host holding the file would
    /// grow by 56 MB more).
    ///
    /// Peak resident memory is the process's: beside the suite's other tests (a 64 MiB gzip
    /// bomb, other streams) it measured theirs too, so the test runs itself again in a process
    /// of its own and checks there. Under AddressSanitizer that process keeps no quarantine of
    /// freed memory (which would make the peak grow with every byte allocated). Under
    /// ThreadSanitizer (a run for the interleavings, whose shadow memory says nothing of ours)
    /// 16 MB go each way in this process, and only the hashes are checked.
    @Test func a64MBFileStreamsEachWayWithItsHashAndFlatMemory() async throws {
        let environment = ProcessInfo.processInfo.environment
        if environment[Self.memoryChildVariable] == nil && !runsUnderThreadSanitizer {
            var childEnvironment = [Self.memoryChildVariable: "1"]
            if let options = environment["ASAN_OPTIONS"] { childEnvironment["ASAN_OPTIONS"] = options + ":quarantine_size_mb=0" }
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            let arguments = ["--testing-library", "swift-testing", "--filter", "a64MBFileStreamsEachWayWithItsHashAndFlatMemory"]
            let output = try await withCheckedThrowingContinuation { continuation in
                // `wait` blocks: on a thread of its own, never one of Swift concurrency's few.
                Thread { [childEnvironment] in
                    continuation.resume(with: Result { try ChildProcess.run(executable, arguments, environment: childEnvironment, deadline: 240) })
                }.start()
            }
            // (Swift Testing reports on standard error.)
            let report = output.stdout + output.stderr
            #expect(output.status == 0, "the measuring process: \(report.suffix(4000))")
            #expect(report.contains("Test run with 1 test"), "it ran the test: \(report.suffix(1000))")
            return
        }
        let measures = !runsUnderThreadSanitizer
        let largeSize = measures ? 64 << 20 : 16 << 20
        let small = try randomFile(size: 8 << 20), large = try randomFile(size: largeSize)
        defer {
            try? FileManager.default.removeItem(at: small)
            try? FileManager.default.removeItem(at: large)
        }
        try await withWebSocketServer(configure: Self.streamingServer) { server in
            try await Self.withConnectedLoader(Self.settings(server)) { loader, messages in
                var events = server.events.makeAsyncIterator()
                guard case .connected(let client)? = await events.next() else { Issue.record("no client"); return }
                let base = try await Self.streamEachWay(small, size: 8 << 20, server: server, client: client, loader: loader, messages: messages, events: &events)
                let grown = try await Self.streamEachWay(large, size: largeSize, server: server, client: client, loader: loader, messages: messages, events: &events)
                if measures {
                    #expect(grown.0 - base.0 < 32 << 20, "server → loader: \(base.0) bytes of growth for 8 MB, \(grown.0) for 64 MB")
                    #expect(grown.1 - base.1 < 32 << 20, "loader → server: \(base.1) bytes of growth for 8 MB, \(grown.1) for 64 MB")
                }
            }
        }
    }

    /// With base64 as the wire format of the page's messages, the same bytes arrive.
    @Test func base64WireFormatStreamsTheSameBytes() async throws {
        let file = try randomFile(size: 4 << 20)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withWebSocketServer(configure: Self.streamingServer) { server in
            var configuration = WebLoaderConfiguration()
            configuration.binaryEncoding = .base64
            try await Self.withConnectedLoader(Self.settings(server), configuration: configuration) { loader, messages in
                var events = server.events.makeAsyncIterator()
                guard case .connected(let client)? = await events.next() else { Issue.record("no client"); return }
                _ = try await Self.streamEachWay(file, size: 4 << 20, server: server, client: client, loader: loader, messages: messages, events: &events)
                try await server.send(data: Data([1, 2, 250]), to: client)
                await messages.wait(for: "data")
                #expect(messages.lines.last == "data 0102fa")
            }
        }
    }

    /// A stream the connection's end interrupts ends too, failed, before the disconnection; its
    /// partial file is removed.
    @Test func aStreamCutByTheConnectionsEndFailsAndLeavesNoFile() async throws {
        try await withDirectory { directory in
            try await withWebSocketServer(configure: { $0.streamDirectory = directory }) { server in
                var settings = Self.settings(server)
                settings.reconnectAttempts = 0
                try await Self.withConnectedLoader(settings) { loader, _ in
                    var events = server.events.makeAsyncIterator()
                    try await loader.wsSendStreamStart()
                    try await loader.wsSendStreaming(Data(repeating: 7, count: 1000))
                    var lines: [String] = []
                    while let event = await events.next() {
                        lines.append(line(event))
                        if lines.count == 3 {
                            #expect(files(in: directory).count == 1)
                            await loader.wsClose()
                        }
                        if case .disconnected = event { break }
                    }
                    #expect(lines == ["connected 1", "streamStart 1", "streaming 1 1000",
                                      "streamFailed 1 the connection closed before the stream ended (1000)", "disconnected 1 1000  true"])
                    #expect(files(in: directory).isEmpty)
                }
            }
        }
    }

    /// A shortened clock: a 3 s watchdog and a heartbeat every 0.3 s (margins a loaded machine
    /// needs), instead of 8 s and 5 s.
    @Test func heartbeatsKeepTheClientPastTheWatchdogAndSilenceClosesIt() async throws {
        try await withWebSocketServer(configure: { $0.heartbeatTimeout = 3 }) { server in
            var settings = Self.settings(server)
            settings.heartbeatInterval = 0.3
            settings.reconnectAttempts = 0
            try await Self.withConnectedLoader(settings) { loader, messages in
                var events = server.events.makeAsyncIterator()
                _ = await events.next()  // connected
                // Alive for 3 watchdog periods: the server answers its own message at the end.
                let start = ContinuousClock.now
                let client = try #require(server.clients.first)
                while ContinuousClock.now - start < .seconds(6.5) {
                    let count = messages.lines.count
                    try await server.send(text: "tick", to: client)
                    await messages.wait(for: "text tick", after: count)
                }
                #expect(!messages.lines.contains { $0.hasPrefix("closed") })

                // A silent client (its heartbeat every 1000 s) is closed at the watchdog's time.
                settings.heartbeatInterval = 1000
                let quiet = SocketMessages()
                try await using(WebLoader()) { silent in
                    try await silent.wsStart(settings) { message, _ in quiet.add(message) }
                    try await silent.wsConnect()
                    await quiet.wait(for: "opened")
                    let opened = ContinuousClock.now
                    await quiet.wait(for: "closed")
                    let elapsed = ContinuousClock.now - opened
                    #expect(quiet.lines.contains("closed 1008 no heartbeat for 3 s true"))
                    // (The watchdog starts at the server's Hello; "opened" reaches the test later on a
                    // loaded machine, so only the upper bound is checked here: the reason names it.)
                    #expect(elapsed < .seconds(20), "closed after \(elapsed)")
                }
            }
        }
    }

    /// The server comes back on the same port: one above the ephemeral range (32768–60999), so
    /// that no client socket of another test can hold it meanwhile.
    @Test func theClientReconnectsAfterTheServerRestarts() async throws {
        var configuration = WebSocketServerConfiguration()
        var started: WebSocketServer?
        for _ in 0..<20 where started == nil {
            configuration.port = Int.random(in: 61_000..<65_000)
            started = try? await WebSocketServer(configuration: configuration)
        }
        let first = try #require(started)
        var settings = Self.settings(first)
        settings.reconnectAttempts = 20  // about 4 s of attempts at most 0.2 s apart
        try await Self.withConnectedLoader(settings) { loader, messages in
            await first.shutdown()
            await messages.wait(for: "closed 1001")
            // The port is free at once: the server closed it, and no child process holds a copy
            // (the test spawners close inherited descriptors).
            try await withWebSocketServer(configure: { $0 = configuration }) { second in
                await messages.wait(for: "opened", after: 1)
                try await loader.wsSendString("again")
                var events = second.events.makeAsyncIterator()
                _ = await events.next()
                if let event = await events.next() { #expect(line(event) == "message 1 6 again") }
            }
        }
    }
}
