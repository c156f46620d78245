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
        try await onAThread { try ChildProcess.run(DukjsTests.executable, arguments) }
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
        let closed = try RefusingPort()
        defer { closed.close() }
        let file = temporaryFile()
        let missing = try await dukjs(["fetch", server.baseURL + "/status?code=404", "-o", file.path])
        #expect(missing.status == 1 && missing.stderr == "dukjs: fetch \(server.baseURL)/status?code=404: the server answered HTTP 404\n",
                "\(missing.stderr)")
        let refused = try await dukjs(["fetch", "http://127.0.0.1:\(closed.port)/x", "-o", file.path])
        // One sentence: what, where, why.
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr == """
            dukjs: fetch http://127.0.0.1:\(closed.port)/x: the connection to 127.0.0.1:\(closed.port) was refused (nothing listens there)

            """)
        let cut = try await dukjs(["fetch", server.baseURL + "/close-mid-stream", "-o", file.path])
        #expect(cut.status == 1, "\(cut.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let invalid = try await dukjs(["fetch", "ftp://example.com/x"])
        #expect(invalid.status == 64 && invalid.stderr.contains("is not an http or https URL"))
        let badHeader = try await dukjs(["fetch", server.baseURL + "/json", "-H", "no colon"])
        #expect(badHeader.status == 64 && badHeader.stderr.contains("is not a header"))
    }

    // MARK: - Issue 32, class 3: the destination is never destroyed

    /// A scratch directory of the test's own.
    func scratchDirectory() throws -> URL {
        let directory = temporaryFile()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func entries(of directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func aDirectoryIsRefusedBeforeAnythingIsSent() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("keep me".utf8).write(to: directory.appendingPathComponent("inside.txt"))
        for path in [directory.path, directory.path + "/", directory.path + "/."] {
            let output = try await dukjs(["fetch", server.baseURL + "/json", "-o", path])
            #expect(output.status == 1 && output.stderr.contains("is a directory"), "\(path): \(output.stderr)")
        }
        #expect(entries(of: directory) == ["inside.txt"])
        #expect(try String(contentsOf: directory.appendingPathComponent("inside.txt"), encoding: .utf8) == "keep me")
        #expect(server.received.isEmpty)
    }

    @Test func anUnwritableDestinationFailsBeforeTheTransfer() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("plain"))
        for path in ["/nonexistent-\(UUID())/dir/out.json", directory.path + "/plain/out.json", directory.path + "/missing/out.json"] {
            let output = try await dukjs(["fetch", server.baseURL + "/bytes?n=1000000", "-o", path])
            #expect(output.status == 1 && output.stderr.contains("cannot write"), "\(path): \(output.stderr)")
        }
        #expect(server.received.isEmpty)
    }

    @Test func aRegularFileIsReplacedOnlyOnSuccessKeepingItsMode() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.bin")
        try Data("old".utf8).write(to: file)
        chmod(file.path, 0o640)
        // A failure leaves the old file as it was, and nothing beside it.
        for url in ["/status?code=500", "/close-mid-stream", "/truncated"] {
            let failed = try await dukjs(["fetch", server.baseURL + url, "-o", file.path])
            #expect(failed.status == 1, "\(url)")
            #expect(try Data(contentsOf: file) == Data("old".utf8))
            #expect(entries(of: directory) == ["out.bin"], "\(url)")
        }
        let output = try await dukjs(["fetch", server.baseURL + "/bytes?n=70000", "-o", file.path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try Data(contentsOf: file).count == 70000)
        var info = stat()
        stat(file.path, &info)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(entries(of: directory) == ["out.bin"])
        // Through a symbolic link, the file it names is replaced and the link stays.
        let link = directory.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "out.bin")
        let linked = try await dukjs(["fetch", server.baseURL + "/json", "-o", link.path])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "out.bin")
        #expect(try String(contentsOf: file, encoding: .utf8).contains("hello"))
        // A new file gets the usual mode (0666 less the umask), not the download's private 0600.
        let fresh = directory.appendingPathComponent("fresh.json")
        #expect(try await dukjs(["fetch", server.baseURL + "/json", "-o", fresh.path]).status == 0)
        let mask = umask(0)
        umask(mask)
        stat(fresh.path, &info)
        #expect(info.st_mode & 0o777 == 0o666 & ~mask)
    }

    /// Something other than a regular file (a FIFO here; /dev/null is the same case) is written
    /// to as a stream and stays what it was.
    @Test func aFIFOIsWrittenToAndStaysAFIFO() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = LockedData()
        let reader = Thread {
            let descriptor = open(fifo, O_RDONLY)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                received.append(buffer[..<count])
            }
        }
        reader.start()
        let output = try await dukjs(["fetch", server.baseURL + "/bytes?n=200000", "-o", fifo])
        #expect(output.status == 0, "\(output.stderr)")
        var info = stat()
        lstat(fifo, &info)
        #expect(info.st_mode & S_IFMT == S_IFIFO)
        #expect(received.count == 200000)
        #expect(entries(of: directory) == ["pipe"])
    }
}

/// A download to standard output (or a pipe, a device) goes through a file in the temporary
/// directory that the relay copies from: what it copied is given back to the file system as it
/// goes, so the file takes the room of what the reader has not taken, not of the whole body (an
/// outside review saw 2.3 GB in 7 s of an endless body).
@Suite("dukjs fetch: the temporary file", .timeLimit(.minutes(5)))
struct DukjsFetchSpaceTests {
    @Test func aDownloadToStandardOutputKeepsOnlyWhatIsNotCopiedYet() async throws {
        let size = 96 << 20
        let server = try await TestHTTPServer.start { _, responder in
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n")
            let block = [UInt8](repeating: 7, count: 1 << 20)
            for _ in 0..<(size >> 20) { try await responder.send(block) }
            await responder.waitForClose()
        }
        defer { server.stop() }
        let temporary = try DukjsFetchTests().scratchDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        let child = try ChildProcess.start(DukjsTests.executable, ["fetch", server.baseURL + "/big"], environment: ["TMPDIR": temporary.path])
        // The largest room the partial file took (its allocated blocks), read until it is gone.
        let largest = LockedMaximum()
        let ended = await ChildProcess.waitUntil(within: 120) {
            let names = DukjsFetchTests().entries(of: temporary)
            for name in names {
                var info = stat()
                if stat(temporary.appendingPathComponent(name).path, &info) == 0 { largest.record(Int(info.st_blocks) * 512) }
            }
            return largest.value > 0 && names.isEmpty
        }
        let output = try await onAThread { try child.wait(deadline: 60) }
        #expect(ended && output.status == 0, "\(output.stderr)")
        #expect(output.stdout.utf8.count == size)
        #expect(largest.value > 0 && largest.value < size / 3, "the partial file took \(largest.value) bytes of \(size)")
    }
}

/// The largest value recorded, from any thread.
final class LockedMaximum: @unchecked Sendable {
    private let lock = NSLock()
    private var largest = 0
    func record(_ value: Int) { lock.withLock { largest = max(largest, value) } }
    var value: Int { lock.withLock { largest } }
}

/// Issue 32, class 4: an interrupted download leaves nothing behind. One child at a time: each
/// downloads until it is signalled.
@Suite("dukjs fetch: signals", .serialized, .timeLimit(.minutes(5)))
struct DukjsFetchSignalTests {

    /// SIGINT, SIGTERM and SIGHUP during a download end dukjs with 128 + the signal, and its
    /// partial file is gone, whether it was beside the destination or in the temporary directory.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP], [true, false])
    func aSignalRemovesThePartialDownload(signal: Int32, toFile: Bool) async throws {
        let server = try await TestHTTPServer.start { _, responder in
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\n")
            try await responder.send(Array(repeating: UInt8(7), count: 300_000))
            await responder.waitForClose()
        }
        defer { server.stop() }
        let directory = try DukjsFetchTests().scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let temporary = try DukjsFetchTests().scratchDirectory()
        defer { try? FileManager.default.removeItem(at: temporary) }
        var arguments = ["fetch", server.baseURL + "/big"]
        if toFile { arguments += ["-o", directory.appendingPathComponent("out.bin").path] }
        var environment = ["TMPDIR": temporary.path]
        // Ended by a signal mid-transfer, the child exits with its page's threads still running:
        // LeakSanitizer's exit check (the sanitized runs) would count what they hold.
        if let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = options + ":detect_leaks=0" }
        let child = try ChildProcess.start(DukjsTests.executable, arguments, environment: environment)
        // The first progress line is written once the first chunk is in the partial file.
        _ = await ChildProcess.waitUntil(within: 60) { child.stderrSoFar.contains("KB") }
        let partial = toFile ? directory : temporary
        #expect(DukjsFetchTests().entries(of: partial).count == 1, "no partial file to remove: \(child.stderrSoFar)")
        child.send(signal)
        let output = try await onAThread { try child.wait(deadline: 60) }
        #expect(output.status == 128 + signal, "\(output.stderr)")
        #expect(DukjsFetchTests().entries(of: directory).isEmpty)
        #expect(DukjsFetchTests().entries(of: temporary).isEmpty)
    }
}

/// Bytes appended from a reader thread.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ bytes: ArraySlice<UInt8>) { lock.withLock { data.append(contentsOf: bytes) } }
    var count: Int { lock.withLock { data.count } }
}

/// A server route that holds its response until the test opens the gate.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool in
                if isOpen { return true }
                waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        for waiter in lock.withLock({ () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiters = [] }
            return waiters
        }) { waiter.resume() }
    }
}

/// The progress bar on a terminal, and the body on standard output as it arrives.
@Suite("dukjs fetch: progress and streaming", .timeLimit(.minutes(5)))
struct DukjsFetchProgressTests {
    /// A server that sends `first` bytes of a `total`-byte text body, then the rest once `gate`
    /// opens.
    func heldServer(total: Int, first: Int, gate: Gate) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { _, responder in
            try await responder.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(total)\r\nConnection: close\r\n\r\n")
            try await responder.send(Array(repeating: UInt8(ascii: "a"), count: first))
            await gate.wait()
            try await responder.send(Array(repeating: UInt8(ascii: "b"), count: total - first))
        }
    }

    /// The progress lines drawn on a terminal: what follows each "\r ESC [K", without the end of line.
    func drawnLines(_ transcript: String) -> [String] {
        transcript.components(separatedBy: "\r\u{1B}[K").dropFirst().map {
            $0.replacingOccurrences(of: "\r\n", with: "").replacingOccurrences(of: "\n", with: "")
        }
    }

    /// At 40 and at 120 columns every line fits in the width (none wraps), the bar shows when
    /// there is room, and a resize redraws the line at the new width at once.
    @Test(arguments: [UInt16(40), 120])
    func theBarFitsTheTerminalAndFollowsItsSize(columns: UInt16) async throws {
        let gate = Gate()
        let server = try await heldServer(total: 10_000_000, first: 300_000, gate: gate)
        defer { server.stop() }
        let output = DukjsFetchTests().temporaryFile()
        defer { try? FileManager.default.removeItem(at: output) }
        // The terminal is read with blocking calls: on a thread of its own, never one of Swift
        // concurrency's (the test server's responses need those).
        let url = server.baseURL + "/held"
        try await onAThread {
            let session = try TerminalSession(DukjsTests.executable, ["fetch", url, "-o", output.path], columns: columns)
            try session.waitFor("KB of 10.0 MB", timeout: .seconds(60))
            let narrower: UInt16 = columns == 40 ? 30 : 60
            session.resize(columns: narrower)
            // Redrawn at once (no bytes arrive until the gate opens, so nothing else draws).
            try session.waitFor("\r\u{1B}[K", timeout: .seconds(20))
            try session.waitFor("10.0 MB", timeout: .seconds(20))
            gate.open()
            #expect(try session.waitForExit(timeout: .seconds(60)) == 0, "\(session.transcript)")
            let lines = drawnLines(session.transcript)
            #expect(lines.count >= 3, "\(session.transcript.debugDescription)")
            // The first line fits the terminal it was drawn on; every later one the narrower one.
            #expect((lines.first?.count ?? 0) < Int(columns), "\(lines)")
            for line in lines.dropFirst() { #expect(line.count < Int(narrower), "\(line.debugDescription)") }
            #expect(lines.last?.contains("100% 10.0 MB of 10.0 MB") == true, "\(lines)")
            // The bar is drawn where it fits (120 and 60 columns), left out where it does not (40, 30).
            #expect(lines.first?.hasPrefix("[") == (columns == 120), "\(lines)")
            #expect(lines.last?.hasPrefix("[") == (narrower == 60), "\(lines)")
            #expect(session.transcript.hasSuffix("\r\n"))
        }
        #expect(try Data(contentsOf: output).count == 10_000_000)
    }

    /// With standard error not a terminal: plain lines, the last one not repeated.
    @Test func plainProgressLinesAreNotRepeated() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let output = DukjsFetchTests().temporaryFile()
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await DukjsFetchTests().dukjs(["fetch", server.baseURL + "/bytes?n=1000", "-o", output.path])
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("100% 1.0 KB of 1.0 KB") == true, "\(result.stderr)")
        #expect(Set(lines).count == lines.count)
    }

    /// The download never waits for its reader: a reader that reads nothing until the whole
    /// body has arrived (the last progress line, "100%", is printed) still gets all of it
    /// (the relay waits for it on a thread of its own; the file on disk holds the rest). Before,
    /// such a reader stalled the page until the request timed out. A reader that goes away (a
    /// closed pipe) stops the download at once, saying so.
    @Test func aSlowReaderIsWaitedForAndAClosedOneStopsTheDownload() async throws {
        let server = try await TestHTTPServer.start()
        defer { server.stop() }
        let dukjs = DukjsTests.executable.path, url = server.baseURL + "/bytes?n=3000000&chunk=100000"
        let bash = URL(fileURLWithPath: "/bin/bash")
        let progress = DukjsFetchTests().temporaryFile()
        defer { try? FileManager.default.removeItem(at: progress) }
        let slow = try await onAThread {
            try ChildProcess.run(bash, ["-c", """
                '\(dukjs)' fetch '\(url)' -o - 2>'\(progress.path)' \
                  | (until grep -q '100%' '\(progress.path)' 2>/dev/null; do sleep 0.05; done; wc -c)
                exit ${PIPESTATUS[0]}
                """], deadline: 60)
        }
        #expect(slow.status == 0 && slow.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3000000",
                "\(slow.status) \(slow.stdout) \((try? String(contentsOf: progress, encoding: .utf8)) ?? "")")
        let closed = try await onAThread {
            try ChildProcess.run(bash, ["-c", "'\(dukjs)' fetch '\(url)' -o - | head -c 10 >/dev/null; exit ${PIPESTATUS[0]}"])
        }
        #expect(closed.status == 1 && closed.stderr.contains("dukjs: cannot write standard output: Broken pipe"), "\(closed.stderr)")
    }

    /// `-o -` writes the body to standard output as it arrives, not at the end.
    @Test func standardOutputGetsTheBodyAsItArrives() async throws {
        let gate = Gate()
        let server = try await heldServer(total: 400_000, first: 300_000, gate: gate)
        defer { server.stop() }
        let child = try ChildProcess.start(DukjsTests.executable, ["fetch", server.baseURL + "/held", "-o", "-"])
        let arrived = await ChildProcess.waitUntil(within: 60) { child.stdoutSoFar.utf8.count >= 300_000 }
        #expect(arrived, "\(child.stdoutSoFar.utf8.count) bytes before the end")
        gate.open()
        let result = try await onAThread { try child.wait(deadline: 60) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == String(repeating: "a", count: 300_000) + String(repeating: "b", count: 100_000))
    }
}
