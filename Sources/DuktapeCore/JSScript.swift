import Foundation

/// A script with its source, its URL and, optionally, a bytecode cache file: JavaScriptCore's
/// `JSScript`. `cacheBytecode()` writes the compiled script (modern syntax already lowered) to the
/// cache; a later `JSScript` of the same source finds it there and `evaluateJSScript` runs it
/// without compiling (or transpiling) again.
///
/// ```swift
/// let vm = JSVirtualMachine()!
/// let cache = FileManager.default.temporaryDirectory.appendingPathComponent("rules.dukbc")
/// let script = try JSScript(of: .program, withSource: "const f = (x) => x * 2; f(21)",
///                           andSourceURL: URL(fileURLWithPath: "/srv/rules.js"),
///                           andBytecodeCache: cache, inVirtualMachine: vm)
/// try script.cacheBytecode()
/// print(JSContext(virtualMachine: vm)!.evaluateJSScript(script)!.toInt32())   // prints: 42
/// ```
///
/// A cache file is used only when it was made by this engine version from this same source and
/// URL, and its bytes hash as written; a stale, truncated or altered file is ignored (and
/// replaced by the next `cacheBytecode()`), never loaded. Differences from JavaScriptCore: only
/// `.program` scripts (Duktape has no ES modules); the cache file is Duktape's bytecode with a
/// header, not JavaScriptCore's.
public final class JSScript: @unchecked Sendable {
    // @unchecked: the fields are immutable except `bytecode`, guarded by `lock`.

    /// JavaScriptCore's script kinds.
    public enum ScriptType: Sendable {
        /// A classic script (global code).
        case program
        /// An ES module: not supported by Duktape (`JSScript(of: .module, ...)` throws).
        case module
    }

    /// The kind of script (always `.program` here).
    public let type: ScriptType
    /// The script's source text.
    public let source: String
    /// The URL errors and stacks name.
    public let sourceURL: URL
    /// The bytecode cache file, if any.
    public let cachePath: URL?
    /// The VM the script was made for.
    public let virtualMachine: JSVirtualMachine

    private let lock = NSLock()
    private var bytecode: [UInt8]?

    /// Makes a script; reads its bytecode cache when `cachePath` names a valid one.
    ///
    /// ```swift
    /// let script = try JSScript(of: .program, withSource: "1 + 1", andSourceURL: url,
    ///                           andBytecodeCache: nil, inVirtualMachine: vm)
    /// ```
    ///
    /// - Throws: `JSScriptError.modulesUnsupported` for `.module`.
    public init(
        of type: ScriptType, withSource source: String, andSourceURL sourceURL: URL, andBytecodeCache cachePath: URL?,
        inVirtualMachine vm: JSVirtualMachine
    ) throws {
        guard type == .program else { throw JSScriptError.modulesUnsupported }
        self.type = type
        self.source = source
        self.sourceURL = sourceURL
        self.cachePath = cachePath
        self.virtualMachine = vm
        if let cachePath {
            bytecode = BytecodeImage.read(from: cachePath, key: cacheKey)
        }
    }

    /// Reads the source from a file (JavaScriptCore's `memoryMappedFromASCIIFile`: here read,
    /// and any UTF-8 is accepted).
    ///
    /// ```swift
    /// let script = try JSScript(of: .program, memoryMappedFromASCIIFile: file, withSourceURL: file,
    ///                           andBytecodeCache: cache, inVirtualMachine: vm)
    /// ```
    public convenience init(
        of type: ScriptType, memoryMappedFromASCIIFile filePath: URL, withSourceURL sourceURL: URL,
        andBytecodeCache cachePath: URL?, inVirtualMachine vm: JSVirtualMachine
    ) throws {
        let data = try Data(contentsOf: filePath)
        try self.init(
            of: type, withSource: String(decoding: data, as: UTF8.self), andSourceURL: sourceURL,
            andBytecodeCache: cachePath, inVirtualMachine: vm)
    }

    /// True when evaluating the script runs bytecode from its cache (read when the script was
    /// made, or written by `cacheBytecode()`).
    ///
    /// ```swift
    /// if !script.isUsingBytecodeCache { try script.cacheBytecode() }
    /// ```
    public var isUsingBytecodeCache: Bool { lock.withLock { bytecode != nil } }

    /// Compiles the script (lowering modern syntax) and writes its bytecode to `cachePath`.
    ///
    /// ```swift
    /// try script.cacheBytecode()
    /// ```
    ///
    /// - Throws: `JSScriptError.noCachePath`, the compilation's `JSException` (a syntax error), or
    ///   `JSScriptError.cacheNotWritten`.
    public func cacheBytecode() throws {
        guard let cachePath else { throw JSScriptError.noCachePath }
        guard let context = JSContext(virtualMachine: virtualMachine) else { throw JSScriptError.cacheNotWritten }
        let made = try context.rethrowingSwiftErrors { () throws(JSException) -> [UInt8] in
            try context.withStack { stack throws(JSException) -> [UInt8] in
                try stack.compileLowering(source, sourceURL: sourceURL.absoluteString)
                return try stack.dumpFunction()
            }
        }
        guard BytecodeImage.write(made, key: cacheKey, to: cachePath) else { throw JSScriptError.cacheNotWritten }
        lock.withLock { bytecode = made }
    }

    /// The script's bytecode, if it has a valid cache.
    var cachedBytecode: [UInt8]? { lock.withLock { bytecode } }

    /// What a cache file must have been made from: this source (all of it: a hash could be
    /// matched by a crafted one) and URL, and the compiler that would lower it (another
    /// TypeScript or transpiler.js makes new bytecode).
    private var cacheKey: [UInt8] {
        BytecodeImage.key([
            Array("program".utf8), Array(sourceURL.absoluteString.utf8), Array(source.utf8),
            Transpiler.compilerIdentity(JSTranspiler.typeScriptPath) ?? [],
        ])
    }
}

/// Why a `JSScript` could not be made or cached.
public enum JSScriptError: Error, Equatable, Sendable {
    /// `.module` scripts: Duktape has no ES modules.
    case modulesUnsupported
    /// `cacheBytecode()` on a script made without a cache path.
    case noCachePath
    /// The cache file could not be written (its directory is missing or read-only).
    case cacheNotWritten
}
