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
        case noPort(String)

        public var description: String {
            switch self {
            case .noPort(let output): "python3 -m http.server did not say its port: \(output)"
            }
        }
    }

    /// Starts the server on `directory` and returns once it listens (it prints its port).
    public static func start(directory: URL) throws -> StaticFileServer {
        let (pid, fd) = try PythonPeer.spawn(["-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path])
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        let text = PythonPeer.readLine(fd)
        close(fd)
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
