import CDuktape
import Foundation

/// Modern JavaScript (ES2015–ES2020) on Duktape, whose parser is ES5: source that Duktape cannot
/// parse is lowered to ES5 by TypeScript's compiler, running in a compiler VM of its own, then
/// compiled as usual. Every entry point that takes source does this by itself
/// (`evaluateScript`, `evaluate`, `require`, the page host, `dukjs`); this type configures it
/// and lowers source on request.
///
/// ```swift
/// let context = JSContext()!
/// context.evaluateScript("const twice = (x) => x * 2; twice(21)")!.toInt32()   // 42
/// let es5 = try JSTranspiler.transpile("let [a, b] = [1, 2]")                // "var _a = [1, 2], a = _a[0], b = _a[1];"
/// ```
///
/// What it costs: ES5 source (what Duktape parses) pays nothing. The first lowering in a process
/// starts the compiler VM (it reads and compiles TypeScript's 10 MB compiler); each lowered source
/// is then kept in memory, so evaluating it again costs its compilation only. Lowered code keeps
/// its line numbers: each line of the output sits on the line of the original it came from, so
/// errors, stacks and `JSException.line` name the original's lines.
///
/// TypeScript's compiler comes from Debian's `node-typescript` (`make deps` installs it); without
/// it, ES5 keeps working and ES2015+ syntax fails with a SyntaxError that says what to install.
public enum JSTranspiler {
    /// Where TypeScript's compiler (`typescript.js`, version 4.x: 5.x ships as ES2018, which
    /// Duktape cannot load) is read from. Defaults to the `DUKTAPECORE_TYPESCRIPT` environment
    /// variable, else Debian's `/usr/share/nodejs/typescript/lib/typescript.js`. Takes effect when
    /// the compiler VM starts (the first lowering).
    ///
    /// ```swift
    /// JSTranspiler.typeScriptPath = "/opt/typescript/lib/typescript.js"
    /// ```
    public static var typeScriptPath: String {
        get { configuration.withLock { $0.typeScriptPath } }
        set { configuration.withLock { $0.typeScriptPath = newValue } }
    }

    /// The most bytes the compiler VM's heap may hold (default 1 GiB): a source whose lowering
    /// needs more fails with an error instead of exhausting the host.
    ///
    /// ```swift
    /// JSTranspiler.memoryLimit = 256 << 20
    /// ```
    public static var memoryLimit: Int {
        get { configuration.withLock { $0.memoryLimit } }
        set { configuration.withLock { $0.memoryLimit = max(newValue, 64 << 20) } }
    }

    /// The longest one source's lowering may run (default 30 seconds), so that source crafted to
    /// make the compiler slow ends in an error.
    ///
    /// ```swift
    /// JSTranspiler.timeLimit = 5
    /// ```
    public static var timeLimit: TimeInterval {
        get { configuration.withLock { $0.timeLimit } }
        set { configuration.withLock { $0.timeLimit = max(newValue, 0.001) } }
    }

    /// Where the compiler VM keeps its bytecode image (TypeScript's compiler compiled once, then
    /// loaded in a fraction of the time by each later process), or nil for no image. Defaults to
    /// the `DUKTAPECORE_CACHE` environment variable, else `$XDG_CACHE_HOME/duktapecore`, else
    /// `~/.cache/duktapecore` (made with mode 0700). An image is used only when it was made from
    /// the same `typescript.js` by the same engine and its bytes hash as written.
    ///
    /// ```swift
    /// JSTranspiler.cacheDirectory = URL(fileURLWithPath: "/var/cache/myapp/js")
    /// ```
    public static var cacheDirectory: URL? {
        get { configuration.withLock { $0.cacheDirectory } }
        set { configuration.withLock { $0.cacheDirectory = newValue } }
    }

    /// The most bytes of lowered sources kept on disk, in `cacheDirectory/lowered` (default
    /// 64 MiB; the oldest entries go first). A process whose sources are all there does not start
    /// the compiler VM at all.
    ///
    /// ```swift
    /// JSTranspiler.diskCacheBytes = 16 << 20
    /// ```
    public static var diskCacheBytes: Int {
        get { configuration.withLock { $0.diskCacheBytes } }
        set { configuration.withLock { $0.diskCacheBytes = max(newValue, 0) } }
    }

    /// True when TypeScript's compiler is where `typeScriptPath` says.
    ///
    /// ```swift
    /// if !JSTranspiler.isAvailable { print("ES5 only: install node-typescript") }
    /// ```
    public static var isAvailable: Bool {
        FileManager.default.isReadableFile(atPath: typeScriptPath)
    }

    /// Lowers `source` to ES5 (the text `evaluateScript` would compile for it), with each line of
    /// the output on its original line. A `fileName` ending in `.ts` is read as TypeScript (types
    /// removed).
    ///
    /// ```swift
    /// let es5 = try JSTranspiler.transpile("const f = (a = 1) => a ** 2;")
    /// ```
    ///
    /// - Throws: `JSTranspiler.Failure`: the source's syntax errors (with the original's line and
    ///   column), no compiler, or a limit reached.
    public static func transpile(_ source: String, fileName: String? = nil) throws(Failure) -> String {
        try Transpiler.shared.lower(source, fileName: fileName)
    }

    /// Why a source could not be lowered.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The source is not valid JavaScript: the compiler's first message, at the original's
        /// line and column (1-based); `atEnd` when the source ends there (it is incomplete, as a
        /// REPL's first line of a block is).
        case syntax(message: String, line: Int, column: Int, atEnd: Bool)
        /// TypeScript's compiler is not installed (or did not load); the reason names what to do.
        case unavailable(String)
        /// The compiler ran into its memory or time limit, or failed.
        case failed(String)

        public var description: String {
            switch self {
            case .syntax(let message, let line, let column, let atEnd):
                atEnd ? "\(message) (line \(line), end of input)" : "\(message) (line \(line), column \(column))"
            case .unavailable(let reason): reason
            case .failed(let reason): reason
            }
        }
    }

    struct Configuration {
        var typeScriptPath = ProcessInfo.processInfo.environment["DUKTAPECORE_TYPESCRIPT"]
            ?? "/usr/share/nodejs/typescript/lib/typescript.js"
        var memoryLimit = 1 << 30
        var diskCacheBytes = 64 << 20
        var cacheDirectory: URL? = {
            let environment = ProcessInfo.processInfo.environment
            if let path = environment["DUKTAPECORE_CACHE"] {
                return path.isEmpty ? nil : URL(fileURLWithPath: path)
            }
            if let path = environment["XDG_CACHE_HOME"], !path.isEmpty {
                return URL(fileURLWithPath: path).appendingPathComponent("duktapecore")
            }
            return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/duktapecore")
        }()
        var timeLimit: TimeInterval = 30
    }

    static let configuration = Guarded(Configuration())
}
