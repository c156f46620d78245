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
    /// process's environment with `environment`'s variables set over it.
    ///
    /// ```swift
    /// let output = try ChildProcess.run(url, ["eval", "1 + 1"])
    /// ```
    public static func run(
        _ executable: URL, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
    ) throws -> Output {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = ["stdin", "stdout", "stderr"].map { directory.appendingPathComponent($0).path }
        try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: paths[0]))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, paths[0], O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, paths[1], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, paths[2], O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure.spawn(path: executable.path, errno: spawned) }

        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure.wait(errno: errno) }
        }
        let signal = status & 0x7f
        let exit = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return Output(status: exit, stdout: try contents(of: paths[1]), stderr: try contents(of: paths[2]))
    }

    /// A file's text, read with POSIX calls: FoundationEssentials' `FileManager.contents(atPath:)`
    /// leaks its 4 KiB read buffer (LeakSanitizer, swift-foundation 6.3).
    private static func contents(of path: String) throws -> String {
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
