import ArgumentParser
import DuktapeCore
import DuktapeRuntime
import DuktapeWeb
import Foundation

extension DukJS {
    /// `dukjs fetch URL [-o FILE]`: a download through WebLoader's stream method.
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download a URL through WebLoader (a page running loader.html), with progress.",
            discussion: """
                The body is written to FILE, or to standard output (also with -o -). A regular \
                file is replaced only once the whole body has arrived (it is downloaded beside \
                it, then renamed); a directory is refused; standard output, a device or a FIFO \
                gets the body as it arrives (a closed pipe stops the download). \
                Progress goes to standard error: a bar on a terminal (bytes, percentage when the \
                length is known, rate, time left), else a line every second. A failure, or a \
                response with a status of 400 or more, prints a message and exits with status 1 \
                (no output file is left behind, also when interrupted by SIGINT, SIGTERM or SIGHUP; \
                what already went to standard output stays there).
                """)

        @Argument(help: "The http or https URL to fetch.")
        var url: String

        @Option(name: [.short, .long], help: ArgumentHelp("Write the body to this file.", valueName: "file"))
        var output: String?

        @Option(name: [.customShort("H"), .long], help: ArgumentHelp("A request header, 'Name: value' (repeatable).", valueName: "header"))
        var header: [String] = []

        @Option(name: [.customShort("X"), .long], help: "The HTTP method (GET by default; POST when --data is given).")
        var method: String?

        @Option(name: [.short, .long], help: "A request body (text).")
        var data: String?

        @Option(name: .long, help: ArgumentHelp("Give up after this many seconds without data.", valueName: "seconds"))
        var timeout: Double = 60

        func validate() throws {
            guard let address = URL(string: url), let scheme = address.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  address.host != nil else {
                throw ValidationError("'\(url)' is not an http or https URL.")
            }
            for line in header where Self.splitHeader(line) == nil {
                throw ValidationError("'\(line)' is not a header (expected 'Name: value').")
            }
            guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds.") }
        }

        /// A download passes megabyte buffers from the network to the page to the file, each
        /// freed on another thread than the one that made it. glibc gave such memory back to
        /// the kernel as soon as it was free, so every buffer was faulted in and zeroed again:
        /// a seventh of a 1 GiB download's time (the W12 benchmark). The process keeps up to
        /// 32 MiB of freed memory for reuse instead, and takes buffers under 4 MiB from its heap.
        /// (`mallopt` is looked up by name: Swift's Glibc module leaves out malloc.h. -1 and -3
        /// are its M_TRIM_THRESHOLD and M_MMAP_THRESHOLD, part of glibc's ABI.)
        static func keepFreedBuffers() {
            #if os(Linux)
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            _ = mallopt(-1, 32 << 20)
            _ = mallopt(-3, 4 << 20)
            #endif
        }

        static func splitHeader(_ line: String) -> (String, String)? {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else { return nil }
            return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }

        func run() throws {
            do {
                try download()
            } catch let error as RuntimeError {
                // One line, as the README shows it: "dukjs: fetch URL: why".
                FileHandle.standardError.write(Data("dukjs: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }

        private func download() throws {
            guard let address = URL(string: url) else { throw ValidationError("'\(url)' is not a URL.") }
            // Where the body goes is settled before the transfer starts: a destination that
            // cannot be written fails now, not after the whole body was downloaded.
            let destination = try output.map(Destination.init(path:)) ?? .standardOutput
            let signalSources = Self.exitOnSignals()
            defer { withExtendedLifetime(signalSources) {} }
            Self.keepFreedBuffers()
            var body = WebLoader.body(url: address, method: .downloadStream)
            for line in header {
                if let (name, value) = Self.splitHeader(line) { body.headers[name] = value }
            }
            body.httpMethod = method?.uppercased()
            body.httpBody = data.map { Data($0.utf8) }
            var configuration = WebLoaderConfiguration()
            configuration.timeout = timeout
            configuration.page.consoleOutput = .standardStreams
            // A 404 page is never saved as the download.
            configuration.httpErrorsFail = true
            if case .file(_, let directory, _) = destination { configuration.streamDirectory = directory }
            let loader = WebLoader(configuration: configuration)
            defer { Self.shutDown(loader) }
            let progress = ProgressReporter(terminal: isatty(STDERR_FILENO) == 1)
            let finished = Finished()
            // Standard output and devices get the body as it arrives: each chunk is in the file
            // before its `streaming` message, which wakes the relay's thread to copy what is new.
            let relay = StreamRelay(destination: destination)
            defer { relay?.abandon() }
            // A closed output (EPIPE) stops the download: nobody would read the rest.
            relay?.whenFailing { [requestID = body.requestID] in loader.cancel(requestID: requestID) }
            loader.evaluate(body) { response, error in
                switch response.type {
                case .streamStart(let total, _, let file):
                    relay?.open(file)
                    progress.start(total: total)
                case .streaming:
                    relay?.copyNewBytes()
                    progress.update(received: response.received, total: response.total)
                case .streamEnd:
                    relay?.copyNewBytes()
                default: break
                }
                if response.isTerminal { finished.set(response, error) }
            }
            let (response, error) = finished.wait()
            progress.finish()
            // A closed output cancelled the download: its failure is the one to report.
            if error != nil, let failure = relay?.failureSoFar { throw failure }
            if case .timedOut? = error as? WebLoaderError {
                throw RuntimeError("fetch \(url): nothing arrived for \(timeout.formatted()) seconds (--timeout)")
            }
            if let error = error as? WebLoaderError { throw RuntimeError("fetch \(url): \(error.reason)") }
            if let error { throw RuntimeError("fetch \(url): \(error)") }
            guard case .streamEnd(let file) = response.type else { throw RuntimeError("fetch \(url): no body was saved") }
            // The downloaded file is this command's: removed unless it was renamed into place.
            defer { unlink(file.path) }
            try relay?.close()
            try destination.take(file)
        }
    }
}

extension DukJS.Fetch {
    /// Where `dukjs fetch` puts the body. Nothing that is at the destination is ever deleted:
    /// a directory is refused (as curl refuses it), a regular file is replaced by `rename` only
    /// once the whole body is in a temporary file beside it, and anything else (a character
    /// device such as /dev/null, a FIFO, a socket) is opened and written to, as a stream.
    enum Destination {
        case standardOutput
        /// A regular file, or a new one: the download is made in `directory` (the destination's
        /// own, so the final rename cannot cross file systems), given `mode`, and renamed.
        case file(path: String, directory: URL, mode: mode_t)
        /// Something other than a regular file, opened for writing before the transfer.
        case stream(path: String, descriptor: Int32)

        init(path: String) throws {
            guard path != "-" else {
                self = .standardOutput
                return
            }
            var info = stat()
            if stat(path, &info) == 0 {
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    throw RuntimeError("cannot write \(path): is a directory")
                case S_IFREG:
                    // Through a symbolic link, the file it names is replaced, not the link.
                    guard let real = realpath(path, nil) else { throw RuntimeError("cannot write \(path): \(Self.reason())") }
                    let resolved = String(cString: real)
                    free(real)
                    guard access(resolved, W_OK) == 0 else { throw RuntimeError("cannot write \(path): \(Self.reason())") }
                    let directory = URL(fileURLWithPath: resolved).deletingLastPathComponent()
                    guard access(directory.path, W_OK | X_OK) == 0 else {
                        throw RuntimeError("cannot write \(path): its directory: \(Self.reason())")
                    }
                    self = .file(path: resolved, directory: directory, mode: info.st_mode & 0o7777)
                default:
                    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
                    guard descriptor >= 0 else { throw RuntimeError("cannot write \(path): \(Self.reason())") }
                    self = .stream(path: path, descriptor: descriptor)
                }
                return
            }
            guard errno == ENOENT else { throw RuntimeError("cannot write \(path): \(Self.reason())") }
            var link = stat()
            if lstat(path, &link) == 0 { throw RuntimeError("cannot write \(path): a symbolic link to nothing") }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            var directoryInfo = stat()
            guard stat(directory.path, &directoryInfo) == 0 else {
                throw RuntimeError("cannot write \(path): \(Self.reason())")
            }
            guard directoryInfo.st_mode & S_IFMT == S_IFDIR else {
                throw RuntimeError("cannot write \(path): \(directory.path) is not a directory")
            }
            guard access(directory.path, W_OK | X_OK) == 0 else { throw RuntimeError("cannot write \(path): \(Self.reason())") }
            let mask = umask(0)
            umask(mask)
            self = .file(path: path, directory: directory, mode: 0o666 & ~mask)
        }

        /// The descriptor a body is written to as it arrives (standard output, a device, a
        /// FIFO), and its name in errors; nil for a file, renamed into place at the end.
        var output: (descriptor: Int32, name: String)? {
            switch self {
            case .standardOutput: (STDOUT_FILENO, "standard output")
            case .stream(let path, let descriptor): (descriptor, path)
            case .file: nil
            }
        }

        /// Renames the downloaded `file` into place (a file destination: the others were
        /// written to as the body arrived).
        func take(_ file: URL) throws {
            guard case .file(let path, _, let mode) = self else { return }
            guard chmod(file.path, mode) == 0, rename(file.path, path) == 0 else {
                throw RuntimeError("cannot write \(path): \(Self.reason())")
            }
        }

        /// Copies what `handle` has from its offset on to `descriptor`, in megabyte parts.
        static func copyRest(of handle: FileHandle, to descriptor: Int32, naming name: String, copied: (UInt64) -> Void = { _ in }) throws {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                defer { copied(handle.offsetInFile) }
                try chunk.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count, let base = bytes.baseAddress {
                        let written = write(descriptor, base + offset, bytes.count - offset)
                        if written < 0 {
                            if errno == EINTR { continue }
                            throw RuntimeError("cannot write \(name): \(reason())")
                        }
                        offset += written
                    }
                }
            }
        }

        static func reason() -> String { String(cString: strerror(errno)) }
    }

    /// SIGINT, SIGTERM and SIGHUP end the command through `exit` (status 128 + the signal's
    /// number, as a shell reports it), which runs the exit handlers: the download's unfinished
    /// file is removed by one of them. (Without a handler the process would die at once and
    /// leave it behind.) SIGPIPE is ignored: a closed standard output fails the write instead.
    /// Returns the signal sources, which must be kept while the command runs.
    static func exitOnSignals() -> [any DispatchSourceSignal] {
        signal(SIGPIPE, SIG_IGN)
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Glibc.exit(128 + number) }
            source.resume()
            return source
        }
    }

    /// Closes `loader` and waits until its page has shut down (its thread ended, its connections
    /// closed), as a program must before it exits: `close()` alone left the page's teardown
    /// racing the process's exit, which the leak checker caught as a weak reference's side table
    /// left behind.
    /// Shuts `loader` down and returns once nothing but the caller holds it: the task that
    /// awaited the shutdown has let go of it before the caller is woken (the process exits just
    /// after, and a loader still held then is memory the exit leaves behind).
    static func shutDown(_ loader: WebLoader) {
        let done = DispatchSemaphore(value: 0)
        let held = Guarded<WebLoader?>(loader)
        Task {
            await shutDown(taking: held)
            done.signal()
        }
        done.wait()
    }

    private static func shutDown(taking held: Guarded<WebLoader?>) async {
        let loader = held.withLock { loader -> WebLoader? in
            defer { loader = nil }
            return loader
        }
        await loader?.shutdown()
    }
}

/// Copies a streamed download to standard output (or a device) as it arrives, on a thread of
/// its own: the loader's handler only says that bytes are in the file, and never waits for the
/// reader. A reader that is slow (a paused `less`) therefore never stalls the download into a
/// timeout; the file on disk holds what it has not taken yet: what was copied is given back to
/// the file system (`CopiedSpace`). A write that fails (a closed pipe) ends the relay and
/// cancels the download (`onFailure`).
private final class StreamRelay: @unchecked Sendable {
    // @unchecked: behind `condition`.
    private let condition = NSCondition()
    private let descriptor: Int32
    private let name: String
    private let closesDescriptor: Bool
    private var onFailure: (@Sendable () -> Void)?
    private var file: URL?
    /// Bytes arrived since the relay last looked; the stream ended; the relay's thread ended.
    private var pending = false
    private var ended = false
    private var finished = false
    private var started = false
    private var closed = false
    private var failure: RuntimeError?

    init?(destination: DukJS.Fetch.Destination) {
        guard let output = destination.output else { return nil }
        descriptor = output.descriptor
        name = output.name
        if case .stream = destination { closesDescriptor = true } else { closesDescriptor = false }
    }

    /// Calls `body` once, from the relay's thread, when a write fails.
    func whenFailing(_ body: @escaping @Sendable () -> Void) {
        condition.withLock { onFailure = body }
    }

    /// The stream's file exists: the relay's thread starts copying from it.
    func open(_ file: URL) {
        condition.withLock {
            guard !started else { return }
            started = true
            self.file = file
        }
        Thread { [self] in copyUntilEnd() }.start()
    }

    /// More bytes are in the file.
    func copyNewBytes() {
        condition.withLock {
            pending = true
            condition.signal()
        }
    }

    /// The first failure so far (a write that failed).
    var failureSoFar: RuntimeError? { condition.withLock { failure } }

    /// The download failed: the relay stops without waiting for its reader (whose output the
    /// process's exit ends), and closes a device it opened.
    func abandon() {
        condition.withLock {
            onFailure = nil
            guard !closed else { return }
            closed = true
            ended = true
            pending = true
            condition.broadcast()
            if closesDescriptor && !started { Glibc.close(descriptor) }
        }
    }

    private func copyUntilEnd() {
        let reader: FileHandle
        do {
            reader = try FileHandle(forReadingFrom: condition.withLock { file } ?? URL(fileURLWithPath: "/dev/null"))
        } catch {
            stop(RuntimeError("cannot read the download: \(error)"))
            return
        }
        defer { try? reader.close() }
        var space = CopiedSpace(file: condition.withLock { file })
        defer { space.close() }
        while true {
            let last = condition.withLock { () -> Bool in
                while !pending { condition.wait() }
                pending = false
                return ended
            }
            do {
                try DukJS.Fetch.Destination.copyRest(of: reader, to: descriptor, naming: name) { space.release(upTo: $0) }
            } catch {
                stop(error as? RuntimeError ?? RuntimeError("cannot write \(name): \(error)"))
                return
            }
            if last { break }
        }
        stop(nil)
    }

    private func stop(_ error: RuntimeError?) {
        let failed = condition.withLock { () -> (@Sendable () -> Void)? in
            failure = failure ?? error
            finished = true
            condition.broadcast()
            return error == nil ? nil : onFailure
        }
        failed?()
    }

    /// Ends the relay (once): waits until it has copied everything (after `end()`), closes a
    /// device it opened, and throws the first failure.
    func close() throws {
        try condition.withLock {
            onFailure = nil
            guard !closed else { return }
            closed = true
            if started {
                ended = true
                pending = true
                condition.broadcast()
                while !finished { condition.wait() }
            }
            if closesDescriptor { Glibc.close(descriptor) }
            if let failure { throw failure }
        }
    }
}

/// The blocks of a download's file that the relay has copied, given back to the file system
/// (a hole punched in the file, its size kept), a MiB at a time: the file then takes the room
/// of what the reader has not taken, not of the whole download. Where the file system cannot
/// punch holes, the file keeps everything until it is removed.
private struct CopiedSpace {
    private var descriptor: Int32
    private var released: Int64 = 0
    private static let step: Int64 = 1 << 20
    /// glibc's fallocate(2), which its Swift module does not export (it is a GNU extension); its
    /// 64-bit-offset name, which 32-bit platforms need too.
    private static let fallocate: (@convention(c) (Int32, Int32, Int64, Int64) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate64") else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, Int64, Int64) -> Int32).self)
    }()

    init(file: URL?) {
        descriptor = file.map { open($0.path, O_WRONLY | O_CLOEXEC) } ?? -1
    }

    mutating func release(upTo offset: UInt64) {
        let end = Int64(clamping: offset) / Self.step * Self.step
        guard descriptor >= 0, end > released else { return }
        // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE (linux/falloc.h).
        guard let punch = Self.fallocate else { return close() }
        if punch(descriptor, 0x02 | 0x01, released, end - released) == 0 {
            released = end
        } else if errno != EINTR {
            close()
        }
    }

    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}

/// The terminal message of the download, awaited by the (synchronous) command.
private final class Finished: @unchecked Sendable {
    // @unchecked: behind `condition`.
    private let condition = NSCondition()
    private var result: (WebLoaderResponse, (any Error)?)?

    func set(_ response: WebLoaderResponse, _ error: (any Error)?) {
        condition.withLock {
            result = (response, error)
            condition.signal()
        }
    }

    func wait() -> (WebLoaderResponse, (any Error)?) {
        condition.withLock {
            while true {
                if let result { return result }
                condition.wait()
            }
        }
    }
}

/// Progress on standard error: a bar redrawn in place on a terminal (at most ten times a
/// second, and at once when the terminal is resized), always fitted to the terminal's width (a
/// line that wrapped would leave a trail of lines behind); or, when standard error is not a
/// terminal, a plain line every second, and a last one only if it says something new.
final class ProgressReporter: @unchecked Sendable {
    // @unchecked: behind `lock`.
    private let terminal: Bool
    private let columns: @Sendable () -> Int
    private let lock = NSLock()
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var received: Int64 = 0
    private var total: Int64?
    /// The bytes the last plain line reported.
    private var reported: Int64 = -1
    private var resizes: (any DispatchSourceSignal)?

    /// `columns` gives the terminal's width (read at each draw).
    init(terminal: Bool, columns: @escaping @Sendable () -> Int = ProgressReporter.standardErrorColumns) {
        self.terminal = terminal
        self.columns = columns
        guard terminal else { return }
        // SIGWINCH: the line is redrawn at the new width.
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { [weak self] in self?.redraw() }
        source.resume()
        resizes = source
    }

    deinit {
        resizes?.cancel()
    }

    /// The width of the terminal on standard error (80 when it does not say).
    @Sendable static func standardErrorColumns() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    func start(total: Int64?) {
        lock.withLock { self.total = total }
    }

    func update(received: Int64, total: Int64?) {
        lock.withLock {
            self.received = received
            self.total = total
            let now = ContinuousClock.now
            if let lastDraw, now - lastDraw < (terminal ? .milliseconds(100) : .seconds(1)) { return }
            lastDraw = now
            draw(final: false)
        }
    }

    func finish() {
        lock.withLock {
            resizes?.cancel()
            resizes = nil
            guard lastDraw != nil || received > 0 else { return }
            // A plain line for the same bytes was printed already.
            if !terminal && reported == received { return }
            draw(final: true)
        }
    }

    private func redraw() {
        lock.withLock {
            guard lastDraw != nil, resizes != nil else { return }
            draw(final: false)
        }
    }

    private func draw(final: Bool) {
        let elapsed = ContinuousClock.now - started
        if terminal {
            let line = Self.fitted(received: received, total: total, elapsed: elapsed, width: columns() - 1)
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line + (final ? "\n" : "")).utf8))
        } else {
            reported = received
            FileHandle.standardError.write(Data((Self.describe(received: received, total: total, elapsed: elapsed) + "\n").utf8))
        }
    }

    /// The progress line in at most `width` columns: a bar of up to 30 columns when the length
    /// is known and at least 10 fit, the figures (shortened from the end when they do not fit:
    /// time left, then rate, then cut).
    static func fitted(received: Int64, total: Int64?, elapsed: Duration, width: Int) -> String {
        let width = max(width, 1)
        let parts = figures(received: received, total: total, elapsed: elapsed)
        var text = parts.joined(separator: ", ")
        var kept = parts.count
        while text.count > width, kept > 1 {
            kept -= 1
            text = parts.prefix(kept).joined(separator: ", ")
        }
        if text.count > width { text = String(text.prefix(width)) }
        guard let total, total > 0 else { return text }
        let room = min(30, width - text.count - 3)  // "[", "] "
        guard room >= 10 else { return text }
        let fraction = min(max(Double(received) / Double(total), 0), 1)
        let filled = Int((fraction * Double(room)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: room - filled) + "] " + text
    }

    /// "45% 12.3 MB of 27.0 MB, 5.1 MB/s, 3s left", or "12.3 MB, 5.1 MB/s" without a length.
    static func describe(received: Int64, total: Int64?, elapsed: Duration) -> String {
        figures(received: received, total: total, elapsed: elapsed).joined(separator: ", ")
    }

    /// The parts of the line, most important first: amount, rate, time left.
    private static func figures(received: Int64, total: Int64?, elapsed: Duration) -> [String] {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(received) / seconds : 0
        var amount = bytes(received)
        if let total, total > 0 {
            let percent = Int((Double(received) / Double(total) * 100).rounded(.down))
            amount = "\(percent)% " + amount + " of " + bytes(total)
        }
        var parts = [amount, bytes(Int64(rate)) + "/s"]
        if let total, total > received, rate > 0 {
            parts.append("\(Int((Double(total - received) / rate).rounded(.up)))s left")
        }
        return parts
    }

    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count), unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
