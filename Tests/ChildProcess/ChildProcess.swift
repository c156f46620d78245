import Foundation

/// Runs an executable to completion with `posix_spawn`, for tests of the command-line tool and
/// the examples.
///
/// Not Foundation's `Process`: its `run()` leaks a weak-reference side table per call (seen
/// with LeakSanitizer on swift-corelibs-foundation 6.3, `Process.run` → `swift_weakAssign`),
/// which fails the AddressSanitizer run of the suite. The child's standard streams are files,
/// so a chatty child can never block on a full pipe.
public struct ChildProcess: Sendable {
    /// What the child left behind.
    public struct Output: Sendable {
        /// The exit status, or 128 + the signal number if a signal ended the child.
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public enum Failure: Error, CustomStringConvertible {
        case spawn(path: String, errno: Int32)
        case wait(errno: Int32)
        case read(path: String, errno: Int32)

        public var description: String {
            switch self {
            case .spawn(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
            case .wait(let code): "waitpid failed: \(String(cString: strerror(code)))"
            case .read(let path, let code): "cannot read \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Runs `executable` with `arguments`, feeding it `input` on standard input, in this
    /// process's environment with `environment`'s variables set over it. A child still running
    /// after `deadline` seconds is killed (SIGKILL), so a test that hangs fails instead: its
    /// status is then 128 + 9.
    ///
    /// ```swift
    /// let output = try ChildProcess.run(url, ["eval", "1 + 1"])
    /// ```
    public static func run(
        _ executable: URL, _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        deadline: Double = 120
    ) throws -> Output {
        try start(executable, arguments, input: input, environment: environment).wait(deadline: deadline)
    }

    /// A child that was started and not yet waited for: the test may signal it while it runs.
    public final class Running: @unchecked Sendable {
        // @unchecked: immutable after init; `wait` is called once.
        public let pid: pid_t
        private let directory: URL

        fileprivate init(pid: pid_t, directory: URL) {
            self.pid = pid
            self.directory = directory
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Sends `signal` to the child.
        public func send(_ signal: Int32) {
            kill(pid, signal)
        }

        /// What the child wrote to standard output so far.
        public var stdoutSoFar: String { (try? ChildProcess.contents(of: directory.appendingPathComponent("stdout").path)) ?? "" }

        /// A field of the child's /proc/PID/status in kB (VmHWM: its peak resident memory since
        /// its exec), while it runs (Linux).
        /// Read it only once `hasExecuted`: until then its status shows the test process's memory.
        public func statusKilobytes(_ field: String) -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }

        /// False until the child has called `exec` (or after it was reaped): posix_spawn's
        /// vfork-like clone shares the test process's memory until then, and its /proc status
        /// shows that memory.
        public var hasExecuted: Bool {
            let own = try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8)
            guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return false }
            return name != own
        }

        /// The child's scheduler state (R running, S sleeping...) from /proc/PID/stat (Linux).
        public var schedulerState: Character? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            return stat[stat.index(after: close)...].first { $0 != " " }
        }

        /// What the child wrote to standard error so far.
        public var stderrSoFar: String { (try? ChildProcess.contents(of: directory.appendingPathComponent("stderr").path)) ?? "" }

        /// Waits for the child to end, killing it after `deadline` seconds.
        public func wait(deadline: Double = 120) throws -> Output {
            // waitpid blocks on a thread of its own; the deadline is the semaphore's.
            let ended = DispatchSemaphore(value: 0)
            let result = WaitResult()
            let pid = self.pid
            Thread {
                var status: Int32 = 0
                var failure: Int32 = 0
                while waitpid(pid, &status, 0) == -1 {
                    guard errno == EINTR else {
                        failure = errno
                        break
                    }
                }
                result.set(status: status, failure: failure)
                ended.signal()
            }.start()
            if ended.wait(timeout: .now() + deadline) == .timedOut {
                kill(pid, SIGKILL)
                ended.wait()
            }
            let (status, failure) = result.value
            if failure != 0 { throw Failure.wait(errno: failure) }
            let signal = status & 0x7f
            let exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            return Output(
                status: exit, stdout: try ChildProcess.contents(of: directory.appendingPathComponent("stdout").path),
                stderr: try ChildProcess.contents(of: directory.appendingPathComponent("stderr").path))
        }
    }

    /// Waits, on a thread of its own (never one of Swift concurrency's few), until `condition`
    /// holds or `seconds` have passed; returns whether it held. For a child's state (its
    /// output, its memory, whether it sleeps), which no event announces: it is read every 2 ms.
    public static func waitUntil(within seconds: Double, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                let end = Date().addingTimeInterval(seconds)
                var held = condition()
                while !held, Date() < end {
                    usleep(2_000)
                    held = condition()
                }
                continuation.resume(returning: held)
            }.start()
        }
    }

    /// Starts `executable` as `run` does, without waiting for it.
    public static func start(
        _ executable: URL, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
    ) throws -> Running {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let paths = ["stdin", "stdout", "stderr"].map { directory.appendingPathComponent($0).path }
        do {
            try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: paths[0]))
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, paths[0], O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, paths[1], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, paths[2], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of this process goes to the child: swift-nio opens its sockets without
        // close-on-exec, and a child holding a server's listening socket keeps its port bound
        // after the server closed it (a test that restarts a server on its port then fails).
        closeDescriptors(from: 3, in: &actions)

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw Failure.spawn(path: executable.path, errno: spawned)
        }
        return Running(pid: pid, directory: directory)
    }

    /// A file's text, read with POSIX calls: FoundationEssentials' `FileManager.contents(atPath:)`
    /// leaks its 4 KiB read buffer (LeakSanitizer, swift-foundation 6.3).
    fileprivate static func contents(of path: String) throws -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Failure.read(path: path, errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure.read(path: path, errno: errno)
            }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The status a waiting thread read.
private final class WaitResult: @unchecked Sendable {
    private let lock = NSLock()
    private var result: (Int32, Int32) = (0, 0)
    func set(status: Int32, failure: Int32) { lock.withLock { result = (status, failure) } }
    var value: (Int32, Int32) { lock.withLock { result } }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
/// module does not export: the child gets no descriptor from `lowest` up.
func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
    _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
}
