import Foundation

/// Python's `http.server` serving a directory on 127.0.0.1 (an ephemeral port it reports), for
/// the tests that fetch static files from a server that is not ours. Started with
/// `posix_spawn` (see ChildProcess for why not Foundation's `Process`); `stop()` ends it.
public final class StaticFileServer: @unchecked Sendable {
    public let port: Int
    private let pid: pid_t

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(port: Int, pid: pid_t) {
        self.port = port
        self.pid = pid
    }

    public enum Failure: Error, CustomStringConvertible {
        case spawn(Int32)
        case noPort(String)

        public var description: String {
            switch self {
            case .spawn(let code): "cannot start python3 -m http.server: \(String(cString: strerror(code)))"
            case .noPort(let output): "python3 -m http.server did not say its port: \(output)"
            }
        }
    }

    /// Starts the server on `directory` and returns once it listens (it prints its port).
    public static func start(directory: URL) throws -> StaticFileServer {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure.spawn(errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = ["/usr/bin/env", "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/usr/bin/env", &actions, nil, &argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw Failure.spawn(status)
        }
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(fds[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        close(fds[0])
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: " port "), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            throw Failure.noPort(text)
        }
        return StaticFileServer(port: port, pid: pid)
    }

    /// Stops the server and waits for it to exit. SIGKILL: the child inherits the spawning
    /// thread's signal mask, in which Dispatch's threads block SIGTERM.
    public func stop() {
        kill(pid, SIGKILL)
        waitpid(pid, nil, 0)
    }
}
