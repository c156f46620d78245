import Foundation
import NIOConcurrencyHelpers

/// A peer written in Python by others (Python's `websockets`, `http.server`): a child process
/// started with `posix_spawn` (see ChildProcess for why not Foundation's `Process`), for the
/// tests that check this package against an implementation not written here. The scripts are in
/// Tests/Peers.
public final class PythonPeer: @unchecked Sendable {
    public let pid: pid_t
    /// The port a server said it listens on (its first line, "PORT <n>", or `http.server`'s).
    public let port: Int
    private let output: Int32

    public enum Failure: Error, CustomStringConvertible {
        case spawn(Int32)
        case noPort(String)

        public var description: String {
            switch self {
            case .spawn(let code): "cannot start python3: \(String(cString: strerror(code)))"
            case .noPort(let output): "the Python peer did not say its port: \(output)"
            }
        }
    }

    private init(pid: pid_t, port: Int, output: Int32) {
        self.pid = pid
        self.port = port
        self.output = output
    }

    /// Tests/Peers/`name`.
    public static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers").appendingPathComponent(name).path
    }

    /// Starts `python3 -u arguments…` with its standard output on a pipe (standard error on
    /// /dev/null); returns its pid and the pipe's reading end.
    static func spawn(_ arguments: [String]) throws -> (pid_t, Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure.spawn(errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of this process goes to the child: swift-nio opens its sockets without
        // close-on-exec, and a child holding a server's listening socket keeps its port bound
        // after the server closed it (a test that restarts a server on its port then fails).
        closeDescriptors(from: 3, in: &actions)
        var argv = (["/usr/bin/env", "python3", "-u"] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/usr/bin/env", &actions, nil, &argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw Failure.spawn(status)
        }
        return (pid, fds[0])
    }

    /// One line of `fd` (blocking).
    static func readLine(_ fd: Int32) -> String {
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    /// Starts a server script and returns once it said its port: the first line's last number.
    public static func server(_ arguments: [String]) throws -> PythonPeer {
        let (pid, fd) = try spawn(arguments)
        let line = readLine(fd)
        guard let port = line.split(whereSeparator: { !$0.isNumber }).compactMap({ Int($0) }).first(where: { $0 > 0 }) else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            close(fd)
            throw Failure.noPort(line)
        }
        return PythonPeer(pid: pid, port: port, output: fd)
    }

    /// Runs a script to its end and returns what it printed (blocking: call it off the
    /// cooperative pool). A script that runs past `seconds` is killed.
    public static func run(_ arguments: [String], seconds: Int = 60) throws -> String {
        let (pid, fd) = try spawn(arguments)
        // The deadline kills the child only while it is not reaped: its pid is its own until
        // then (exited, it is a zombie that holds the pid), never another process's.
        let reaped = NIOLockedValueBox(false)
        let killer = DispatchWorkItem { reaped.withLockedValue { if !$0 { kill(pid, SIGKILL) } } }
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds), execute: killer)
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        close(fd)
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        reaped.withLockedValue { $0 = true }
        killer.cancel()
        waitpid(pid, nil, 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// Stops the server and waits for it to exit. SIGKILL: the child inherits the spawning
    /// thread's signal mask, in which Dispatch's threads block SIGTERM.
    public func stop() {
        kill(pid, SIGKILL)
        waitpid(pid, nil, 0)
        close(output)
    }
}

/// Runs `body` on a thread of its own and returns what it returns (for blocking calls that must
/// not hold one of Swift concurrency's few threads).
///
/// The result passes through a lock, not through the continuation: a continuation resumed before
/// its task suspends is an edge ThreadSanitizer does not see (swiftlang/swift#57803).
public func onAThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result = NIOLockedValueBox<Result<T, any Error>?>(nil)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            let outcome = Result { try body() }
            result.withLockedValue { $0 = outcome }
            continuation.resume()
        }.start()
    }
    guard let outcome = result.withLockedValue({ $0 }) else { throw CancellationError() }
    return try outcome.get()
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
/// module does not export: the child gets no descriptor from `lowest` up.
func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
    _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
}
