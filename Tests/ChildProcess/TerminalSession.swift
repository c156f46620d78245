import Foundation

/// An executable running on a pseudo-terminal, in a session of its own (so Ctrl-C reaches it as
/// SIGINT): tests type into it and wait, with a deadline, for what it prints.
///
/// ```swift
/// let session = try TerminalSession(url, ["repl"])
/// try session.waitFor("> ")
/// session.send("1 + 1\r")
/// try session.waitFor("2")
/// ```
public final class TerminalSession {
    private let master: Int32
    private let pid: pid_t
    private var exited: Int32?
    /// Everything read so far, and how much of it earlier waits consumed.
    public private(set) var transcript = ""
    private var consumed: String.Index

    public enum Failure: Error, CustomStringConvertible {
        case terminal(String, errno: Int32)
        case spawn(errno: Int32)
        case timeout(waitingFor: String, transcript: String)

        public var description: String {
            switch self {
            case .terminal(let call, let errno): "\(call) failed: \(String(cString: strerror(errno)))"
            case .spawn(let errno): "posix_spawn failed: \(String(cString: strerror(errno)))"
            case .timeout(let text, let transcript): "timed out waiting for \(text.debugDescription); output so far: \(transcript.debugDescription)"
            }
        }
    }

    /// Starts `executable` on a new terminal of `columns` × 24.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], columns: UInt16 = 100) throws {
        // posix_openpt and friends are not in Swift's Glibc module: the Linux ioctls they wrap.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw Failure.terminal("open /dev/ptmx", errno: errno) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
        guard ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
            close(master)
            throw Failure.terminal("ioctl(TIOCSPTLCK/TIOCGPTN)", errno: errno)
        }
        let slave = "/dev/pts/\(number)"
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new session (POSIX_SPAWN_SETSID, 0x80): opening the terminal then makes it the
        // controlling terminal. The test runner's threads block signals, and a spawned process
        // inherits that mask: it is reset (POSIX_SPAWN_SETSIGMASK) and SIGINT's action is the
        // default (POSIX_SPAWN_SETSIGDEF), so that Ctrl-C reaches the child as it would from a shell.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &interrupt)
        posix_spawnattr_setflags(&attributes, Int16(0x80 | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, master)
        posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)

        var merged = ProcessInfo.processInfo.environment
        merged["TERM"] = "xterm"
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            close(master)
            throw Failure.spawn(errno: spawned)
        }
        self.pid = pid
        consumed = transcript.startIndex
    }

    deinit {
        if exited == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
    }

    /// Resizes the terminal, as a terminal window does: the child gets SIGWINCH.
    public func resize(columns: UInt16, rows: UInt16 = 24) {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    /// Types `text` (use "\r" for Enter, "\u{3}" for Ctrl-C, "\u{4}" for Ctrl-D).
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// Reads until `text` appears after what earlier waits consumed; returns the output up to
    /// and including it. Fails after `timeout`.
    @discardableResult
    public func waitFor(_ text: String, timeout: Duration = .seconds(20)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let range = transcript[consumed...].range(of: text) {
                let output = String(transcript[consumed..<range.upperBound])
                consumed = range.upperBound
                return output
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, readAvailable(timeout: remaining) else {
                throw Failure.timeout(waitingFor: text, transcript: transcript)
            }
        }
    }

    /// Waits for the process to exit; returns its status (128 + signal when killed).
    public func waitForExit(timeout: Duration = .seconds(20)) throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7f
                let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
                exited = code
                return code
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { throw Failure.timeout(waitingFor: "exit", transcript: transcript) }
            // Drain output meanwhile (a full terminal buffer would block the child).
            if !readAvailable(timeout: min(remaining, .milliseconds(50))) { continue }
        }
    }

    /// Reads what is available within `timeout`; false when nothing came (or the terminal
    /// closed).
    private func readAvailable(timeout: Duration) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&descriptor, 1, max(milliseconds, 1)) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        let offset = transcript.distance(from: transcript.startIndex, to: consumed)
        transcript += String(decoding: buffer[..<count], as: UTF8.self)
        consumed = transcript.index(transcript.startIndex, offsetBy: offset)
        return true
    }
}
