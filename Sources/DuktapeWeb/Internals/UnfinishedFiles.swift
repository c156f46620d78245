import DuktapeCore
import Foundation

/// The files this process is writing and has not handed over yet (streamed downloads in
/// progress), removed when the process exits before they are finished.
///
/// A download removes its own file when it fails or is cancelled; this registry covers the exits
/// that end no request: `exit()` from anywhere (a command-line tool's signal handler calls it,
/// see `dukjs fetch`), or the end of `main`. Only what was created by this process and is still
/// unfinished is removed; a file handed to the caller is unregistered first. A process killed by
/// a signal it does not handle (SIGKILL, or SIGINT with no handler) runs no exit handlers: a tool
/// that wants its partial files gone handles SIGINT and SIGTERM by calling `exit`.
enum UnfinishedFiles {
    private static let paths = Guarded<Set<String>>([])

    /// Registers `path` (installing the exit handler on first use).
    static func register(_ path: String) {
        _ = installExitHandler
        paths.withLock { _ = $0.insert(path) }
    }

    /// Forgets `path`: it was removed, or handed to its caller.
    static func unregister(_ path: String) {
        paths.withLock { _ = $0.remove(path) }
    }

    /// How many files are registered now (tests).
    static var count: Int { paths.withLock { $0.count } }

    /// Removes every registered file (the exit handler; also callable directly).
    static func removeAll() {
        let all = paths.withLock { paths -> Set<String> in
            defer { paths.removeAll() }
            return paths
        }
        for path in all { unlink(path) }
    }

    private static let installExitHandler: Void = {
        atexit { UnfinishedFiles.removeAll() }
    }()
}
