import CDuktape
import Foundation
import Synchronization

/// The compiler VM behind `JSTranspiler`: one per process, started on the first lowering, used
/// by one caller at a time, under limits of its own (never a caller's sandbox). Lowered sources
/// are kept in memory, up to `cacheBytes`, and on disk (`DiskEntry`).
///
/// Lock order: a caller may hold its own VM's lock when it takes these (`Guarded`, which
/// ThreadSanitizer sees); holding the compiler's, the transpiler enters only the compiler VM,
/// which never calls back here nor into another VM, and takes the memory cache's: no cycle.
/// (Unlike the loop's `Guarded` state, the compiler's lock is held while JavaScript runs.)
final class Transpiler: Sendable {
    static let shared = Transpiler()

    /// The most bytes of lowered code kept in memory (sources and outputs); the oldest go first.
    static let cacheBytes = 32 << 20

    private struct Compiler {
        let vm: JSVirtualMachine
        let context: JSContext
        let transpile: JSValue
    }

    struct CacheKey: Hashable {
        let source: String
        let typed: Bool
    }

    /// A lowered source: its code, and whether the original was one parenthesized function
    /// expression and nothing else.
    struct Lowered {
        let code: String
        let isOneFunction: Bool
    }

    /// Lowered sources kept in memory, oldest first.
    private struct Memory {
        var entries: [CacheKey: Lowered] = [:]
        var order: [CacheKey] = []
        var bytes = 0
    }

    /// Two locks: the compiler's, held while it lowers (seconds for a large source), and the
    /// memory cache's, held only to look up or store. A source already lowered (in memory or on
    /// disk) never waits for another caller's lowering. Order: compiler, then memory.
    private let compiler = Guarded<Result<Compiler, JSTranspiler.Failure>?>(nil)
    private let memory = Guarded(Memory())

    /// The helpers' library (`helperLibrary()`), once read.
    private let library = Guarded<String?>(nil)

    /// Lowerings running now (0 or 1): tests wait for one to start before they contend.
    let lowerings = Atomic<Int>(0)

    /// The lowered form of `source` (see `JSTranspiler.transpile`). `within`: the caller's own
    /// time limit (a sandbox's), which caps `JSTranspiler.timeLimit` for this source, so that
    /// source from a sandboxed script cannot keep the host busier than the script itself could.
    func lower(_ source: String, fileName: String?, within callerLimit: TimeInterval? = nil) throws(JSTranspiler.Failure) -> String {
        try lowering(source, fileName: fileName, within: callerLimit).code
    }

    /// `lower`, with whether the source was one function expression.
    func lowering(_ source: String, fileName: String?, within callerLimit: TimeInterval? = nil) throws(JSTranspiler.Failure) -> Lowered {
        let typed = fileName.map { $0.hasSuffix(".ts") || $0.hasSuffix(".mts") || $0.hasSuffix(".cts") } ?? false
        let key = CacheKey(source: source, typed: typed)
        if let remembered = remembered(key) { return remembered }
        let configuration = JSTranspiler.configuration.withLock { $0 }
        let disk = configuration.cacheDirectory.flatMap { DiskEntry(key: key, directory: $0, typeScriptPath: configuration.typeScriptPath) }
        if let disk, let stored = disk.read() {
            remember(key, stored)
            return stored
        }
        // Lowered by another caller while this one waited: remembered.
        let result = usingCompiler(unless: { remembered(key) }) { compiler -> Result<Lowered, JSTranspiler.Failure> in
            let timeLimit = min(configuration.timeLimit, callerLimit ?? .infinity)
            lowerings.add(1, ordering: .sequentiallyConsistent)
            defer { lowerings.subtract(1, ordering: .sequentiallyConsistent) }
            let lowered = Self.run(
                compiler, source: source, fileName: typed ? (fileName ?? "script.ts") : "script.js",
                memoryLimit: configuration.memoryLimit, timeLimit: timeLimit)
            if case .success(let code) = lowered {
                remember(key, code)
                disk?.write(code, limit: configuration.diskCacheBytes)
            }
            return lowered
        }
        return try result.get()
    }

    /// The source of one function expression that returns the lowering's helpers (TypeScript's
    /// and transpiler.js's; see `helperLibrary` there): from memory, the disk cache, or the
    /// compiler VM (started for it if need be: a process whose lowered sources all came from the
    /// disk cache finds the library there too).
    func helperLibrary(within callerLimit: TimeInterval? = nil) throws(JSTranspiler.Failure) -> String {
        if let known = library.withLock({ $0 }) { return known }
        let configuration = JSTranspiler.configuration.withLock { $0 }
        let disk = configuration.cacheDirectory.flatMap { LibraryEntry(directory: $0, typeScriptPath: configuration.typeScriptPath) }
        if let disk, let stored = disk.read() {
            library.withLock { $0 = stored }
            return stored
        }
        let result = usingCompiler(unless: { library.withLock { $0 } }) { compiler -> Result<String, JSTranspiler.Failure> in
            compiler.vm.executionTimeLimit = min(configuration.timeLimit, callerLimit ?? .infinity)
            guard let made = try? compiler.context.objectForKeyedSubscript("helperLibrary")?.call(), made.isString else {
                return .failure(.failed("transpiler.js gave no helper library"))
            }
            let source: String = made.toString()
            library.withLock { $0 = source }
            disk?.write(source)
            return .success(source)
        }
        return try result.get()
    }

    /// `body` with the compiler VM (started on first need), under the compiler's lock; unless
    /// `done` gives the result first (made by another caller while this one waited).
    private func usingCompiler<T>(
        unless done: () -> T?, _ body: (Compiler) -> Result<T, JSTranspiler.Failure>
    ) -> Result<T, JSTranspiler.Failure> {
        compiler.withLock { started in
            if let made = done() { return .success(made) }
            switch started ?? Self.start() {
            case .success(let running):
                started = .success(running)
                return body(running)
            case .failure(let failure):
                started = .failure(failure)
                return .failure(failure)
            }
        }
    }

    /// Empties the in-memory caches (tests of the disk cache).
    func forgetRemembered() {
        memory.withLock { $0 = Memory() }
        library.withLock { $0 = nil }
    }

    private func remembered(_ key: CacheKey) -> Lowered? {
        memory.withLock { $0.entries[key] }
    }

    private func remember(_ key: CacheKey, _ lowered: Lowered) {
        let bytes = key.source.utf8.count + lowered.code.utf8.count
        guard bytes <= Self.cacheBytes else { return }
        memory.withLock { (memory: inout Memory) -> Void in
            guard memory.entries.updateValue(lowered, forKey: key) == nil else { return }
            memory.order.append(key)
            memory.bytes += bytes
            while memory.bytes > Self.cacheBytes, !memory.order.isEmpty {
                let oldest = memory.order.removeFirst()
                if let lowered = memory.entries.removeValue(forKey: oldest) {
                    memory.bytes -= oldest.source.utf8.count + lowered.code.utf8.count
                }
            }
        }
    }

    /// Starts the compiler VM: TypeScript's compiler, then transpiler.js.
    private static func start() -> Result<Compiler, JSTranspiler.Failure> {
        let configuration = JSTranspiler.configuration.withLock { $0 }
        let path = configuration.typeScriptPath
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(.unavailable(
                "ES2015+ syntax needs TypeScript's compiler, which is not at \(path): install Debian's node-typescript "
                    + "(make deps does), or set JSTranspiler.typeScriptPath"))
        }
        guard let vm = JSVirtualMachine(), let context = JSContext(virtualMachine: vm) else {
            return .failure(.failed("the compiler VM could not be made"))
        }
        vm.engine.lowersModernSyntax = false
        vm.memoryLimit = configuration.memoryLimit
        // Loading the compiler is the VM's longest call; the per-source limit applies after.
        vm.executionTimeLimit = max(configuration.timeLimit, 120)
        do {
            try load(typeScript: data, path: path, into: context, cacheDirectory: configuration.cacheDirectory)
            var length = 0
            let script = cduk_transpiler_script(&length)
            let driver = String(decoding: UnsafeRawBufferPointer(start: script, count: length), as: UTF8.self)
            try context.evaluate(driver, sourceName: "duktapecore:transpiler.js")
        } catch {
            return .failure(.unavailable(
                "TypeScript's compiler at \(path) did not load in Duktape (\(error)); it must be version 4.x"))
        }
        vm.executionTimeLimit = configuration.timeLimit
        guard let transpile = context.objectForKeyedSubscript("transpile"), transpile.isObject else {
            return .failure(.failed("transpiler.js did not define transpile"))
        }
        return .success(Compiler(vm: vm, context: context, transpile: transpile))
    }

    /// Runs typescript.js in the compiler VM: from its bytecode image in `cacheDirectory` when
    /// one was made from these same bytes (by this engine), else compiled from source, and the
    /// image written for the next process. Program code: typescript.js is strict, and its
    /// `var ts` must become a global.
    private static func load(typeScript data: Data, path: String, into context: JSContext, cacheDirectory: URL?) throws {
        let hash = BytecodeImage.hash(data)
        let key = BytecodeImage.key([
            Array("typescript".utf8), Array(String(data.count).utf8),
            withUnsafeBytes(of: hash.littleEndian) { Array($0) },
        ])
        let image = cacheDirectory?.appendingPathComponent("typescript-\(String(hash, radix: 16)).dukbc")
        if let image, let bytecode = BytecodeImage.read(from: image, key: key) {
            try context.withStack { stack throws(JSException) in
                try stack.loadFunction(bytecode)
                try stack.callAsGlobalCode()
            }
            return
        }
        try context.withStack { stack throws(JSException) in
            try stack.compileLowering(String(decoding: data, as: UTF8.self), sourceURL: path, asProgram: true)
            if let image {
                try stack.reserve(1)
                duk_dup_top(stack.ctx)
                BytecodeImage.write(try stack.dumpFunction(), key: key, to: image)
            }
            try stack.callAsGlobalCode()
        }
    }

    private static func run(
        _ compiler: Compiler, source: String, fileName: String, memoryLimit: Int, timeLimit: TimeInterval
    ) -> Result<Lowered, JSTranspiler.Failure> {
        compiler.vm.memoryLimit = memoryLimit
        compiler.vm.executionTimeLimit = timeLimit
        let result: JSValue
        do {
            result = try compiler.transpile.call(source, fileName)
        } catch {
            // A limit (memory, time) or the compiler's own failure; the VM stays usable.
            compiler.vm.garbageCollect()
            return .failure(.failed("the transpiler stopped: \(error)"))
        }
        if let diagnostics = result.forProperty("diagnostics"), diagnostics.isArray,
            let first = diagnostics.atIndex(0), first.isObject
        {
            return .failure(.syntax(
                message: first.forProperty("message")?.toString() ?? "syntax error",
                line: Int(first.forProperty("line")?.toInt32() ?? 0),
                column: Int(first.forProperty("column")?.toInt32() ?? 0),
                atEnd: first.forProperty("atEnd")?.toBool() ?? false))
        }
        guard let code = result.forProperty("code"), code.isString else {
            return .failure(.failed("the transpiler gave no code"))
        }
        return .success(Lowered(code: code.toString(), isOneFunction: result.forProperty("oneFunction")?.toBool() ?? false))
    }
}

extension Transpiler {
    /// A lowered source on disk, in `<cacheDirectory>/lowered/`: the lowered code (and whether the
    /// source was one function) in a BytecodeImage file, keyed by the source (all of it, and
    /// whether it is TypeScript), the compiler (typescript.js's hash, transpiler.js's) and the
    /// engine. A process whose sources are all there never starts the compiler VM. Written through
    /// a temporary file renamed into place; an entry that does not match is ignored (and written
    /// again); the directory is kept under `JSTranspiler.diskCacheBytes` (oldest entries go).
    struct DiskEntry {
        let url: URL
        let key: [UInt8]

        init?(key: CacheKey, directory: URL, typeScriptPath: String) {
            guard let compiler = Transpiler.compilerIdentity(typeScriptPath) else { return nil }
            // The whole source is in the key (compared when read): a hash alone could be matched
            // by a crafted source, whose lowering would then stand for another's.
            self.key = BytecodeImage.key([
                Array("lowered".utf8), compiler, Array((key.typed ? "ts" : "js").utf8), Array(key.source.utf8),
            ])
            url = directory.appendingPathComponent("lowered")
                .appendingPathComponent(String(BytecodeImage.hash(self.key), radix: 16) + ".dukc")
        }

        func read() -> Lowered? {
            guard let payload = BytecodeImage.read(from: url, key: key), let flag = payload.first, flag <= 1 else { return nil }
            return Lowered(code: String(decoding: payload.dropFirst(), as: UTF8.self), isOneFunction: flag == 1)
        }

        func write(_ lowered: Lowered, limit: Int) {
            let payload = [UInt8(lowered.isOneFunction ? 1 : 0)] + Array(lowered.code.utf8)
            guard payload.count <= limit, BytecodeImage.write(payload, key: key, to: url) else { return }
            Transpiler.trim(url.deletingLastPathComponent(), to: limit)
        }
    }

    /// The helpers' library on disk, `<cacheDirectory>/lowered/helpers-<hash>.dukc`, keyed by the
    /// compiler (the library is TypeScript's helpers and transpiler.js's).
    struct LibraryEntry {
        let url: URL
        let key: [UInt8]

        init?(directory: URL, typeScriptPath: String) {
            guard let compiler = Transpiler.compilerIdentity(typeScriptPath) else { return nil }
            key = BytecodeImage.key([Array("helpers".utf8), compiler])
            url = directory.appendingPathComponent("lowered")
                .appendingPathComponent("helpers-" + String(BytecodeImage.hash(key), radix: 16) + ".dukc")
        }

        func read() -> String? {
            BytecodeImage.read(from: url, key: key).map { String(decoding: $0, as: UTF8.self) }
        }

        func write(_ source: String) {
            _ = BytecodeImage.write(Array(source.utf8), key: key, to: url)
        }
    }

    /// typescript.js's hash and length, and transpiler.js's hash: what a lowering depends on
    /// (computed once per path).
    static func compilerIdentity(_ path: String) -> [UInt8]? {
        identities.withLock { known -> [UInt8]? in
            if let identity = known[path] { return identity }
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            var length = 0
            let script = cduk_transpiler_script(&length)
            let driver = cduk_hash64(script, length, 0)
            let identity = BytecodeImage.key([
                withUnsafeBytes(of: BytecodeImage.hash(data).littleEndian) { Array($0) }, Array(String(data.count).utf8),
                withUnsafeBytes(of: driver.littleEndian) { Array($0) },
            ])
            known[path] = identity
            return identity
        }
    }

    private static let identities = Guarded<[String: [UInt8]]>([:])

    /// Removes the oldest entries of `directory` (by modification date) until it holds at most
    /// 80 % of `limit` bytes, when it holds more than `limit`.
    static func trim(_ directory: URL, to limit: Int) {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
        else { return }
        var entries: [(url: URL, size: Int, date: Date)] = []
        var total = 0
        for file in files where file.pathExtension == "dukc" {
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
            let size = values.fileSize ?? 0
            entries.append((file, size, values.contentModificationDate ?? .distantPast))
            total += size
        }
        guard total > limit else { return }
        for entry in entries.sorted(by: { $0.date < $1.date }) where total > limit * 4 / 5 {
            // unlink(2): the file that was listed, or a link put there since, never a directory.
            if unlink(entry.url.path) == 0 {
                total -= entry.size
            }
        }
    }

    /// Whether `source` calls a helper as lowered code does (`__duktapeLowering.__`, a byte
    /// search: a script's own `var __duktapeLowering` is not a call). True of lowered code that
    /// needs them, and of `JSTranspiler.transpile`'s output.
    static func namesLoweringHelpers(_ source: String) -> Bool {
        var source = source
        return source.withUTF8 { contains(UnsafeRawBufferPointer($0), helperCall) }
    }

    /// Whether `bytecode` names the helpers' global (cached lowered code calls them).
    static func bytecodeCallsHelpers(_ bytecode: [UInt8]) -> Bool {
        bytecode.withUnsafeBytes { contains($0, helpersGlobal) }
    }

    /// The global lowered code reaches its helpers through (CDuktape.h; transpiler.js's HOLDER).
    private static let helpersGlobal = Array(CDUK_LOWERING_GLOBAL.utf8)
    private static let helperCall = helpersGlobal + Array(".__".utf8)
    private static let constWord = Array("const".utf8)
    private static let protoWord = Array("__proto__".utf8)

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        needle.withUnsafeBytes { cduk_contains(bytes.baseAddress, bytes.count, $0.baseAddress, $0.count) != 0 }
    }

    /// The largest source (bytes) that is lowered though Duktape parses it (see
    /// `needsLoweringThoughParsed`): its lowering takes about a second.
    static let parsedLoweringLimit = 256 << 10

    /// True when `source`, though Duktape parses it, uses what Duktape's ES5 reading gets wrong:
    /// a `const` declaration (Duktape parses it as `var`: a `const` would stay assignable) or a
    /// `__proto__:` entry of an object literal (an own property to Duktape, the prototype in
    /// ES2015). Such source is lowered too. The word `const` counts where a declaration can be:
    /// not after a `.` and followed by a name or a pattern (`obj.const`, `{ const: 1 }` are ES5
    /// property names: TypeScript's own compiler has one, and lowering its 10 MB took 40 s);
    /// `__proto__:` (or `"__proto__":`) counts after `{` or `,`. Strings and comments are
    /// skipped (a regular expression holding a quote can make the rest of its line look like a
    /// string: a miss there only means a lowering that changes nothing); sources without either
    /// word are ruled out by a byte search first.
    ///
    /// Source over `parsedLoweringLimit` bytes is never lowered for these: a bundle that Duktape
    /// parses keeps Duktape's reading (tslib's `({ __proto__: [] } instanceof Array)` test is in
    /// many, and lowering TypeScript's 10 MB compiler took 40 s), as a `const` that is never
    /// assigned reads the same either way.
    static func needsLoweringThoughParsed(_ source: String) -> Bool {
        var source = source
        return source.withUTF8 { bytes -> Bool in
            // The byte search is C's (`cduk_contains`): _StringProcessing's generic `firstRange(of:)`
            // looks up generic metadata for every byte in an unspecialized build, behind one
            // runtime-wide lock that pages loading on many threads queue on.
            guard bytes.count >= 5, bytes.count <= parsedLoweringLimit,
                contains(UnsafeRawBufferPointer(bytes), constWord) || contains(UnsafeRawBufferPointer(bytes), protoWord)
            else { return false }
            let count = bytes.count
            var index = 0
            var previous: UInt8 = 0  // the last byte of code before `index` that is not a space
            func isIdentifier(_ byte: UInt8) -> Bool {
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x5F || byte == 0x24 || byte >= 0x80
            }
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
            func next(after end: Int) -> UInt8 {
                var after = end
                while after < count, isSpace(bytes[after]) { after += 1 }
                return after < count ? bytes[after] : 0
            }
            while index < count {
                let byte = bytes[index]
                let following = index + 1 < count ? bytes[index + 1] : 0
                if byte == 0x2F, following == 0x2F {  // line comment
                    while index < count, bytes[index] != 0x0A { index += 1 }
                } else if byte == 0x2F, following == 0x2A {  // block comment
                    index += 2
                    while index + 1 < count, !(bytes[index] == 0x2A && bytes[index + 1] == 0x2F) { index += 1 }
                    index += 2
                } else if byte == 0x27 || byte == 0x22 {  // string: to its quote or the line's end
                    let start = index + 1
                    index += 1
                    while index < count, bytes[index] != byte, bytes[index] != 0x0A {
                        index += bytes[index] == 0x5C ? 2 : 1
                    }
                    // `{ "__proto__": p }` sets the prototype as the bare name does.
                    if index < count, previous == 0x7B || previous == 0x2C,
                        UnsafeBufferPointer(rebasing: bytes[start..<index]).elementsEqual("__proto__".utf8),
                        next(after: index + 1) == 0x3A
                    {
                        return true
                    }
                    index += 1
                    previous = byte
                } else if isIdentifier(byte), !(byte >= 0x30 && byte <= 0x39) {
                    let start = index
                    while index < count, isIdentifier(bytes[index]) { index += 1 }
                    let word = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    if word.elementsEqual("const".utf8), previous != 0x2E {
                        let after = next(after: index)
                        if (isIdentifier(after) && !(after >= 0x30 && after <= 0x39)) || after == 0x5B || after == 0x7B { return true }
                    }
                    if word.elementsEqual("__proto__".utf8), previous == 0x7B || previous == 0x2C, next(after: index) == 0x3A {
                        return true
                    }
                    previous = bytes[index - 1]
                } else {
                    if !isSpace(byte) { previous = byte }
                    index += 1
                }
            }
            return false
        }
    }
}
