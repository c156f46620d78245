import Foundation
import Testing

@testable import DuktapeCore

/// JavaScriptCore's JSScript with a bytecode cache: written by cacheBytecode, used by a later
/// script of the same source, rejected (never loaded) when stale or corrupt.
@Suite("JSScript")
struct JSScriptTests {
    private func temporaryCache() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jsscript-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("script.dukbc")
    }

    @Test func aCachedScriptRunsFromItsBytecode() throws {
        let vm = try #require(JSVirtualMachine())
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(at: cache.deletingLastPathComponent()) }
        let source = "var total = 0; for (var i = 1; i <= 10; i++) total += i; total"
        let url = URL(fileURLWithPath: "/srv/sum.js")
        let script = try JSScript(of: .program, withSource: source, andSourceURL: url, andBytecodeCache: cache, inVirtualMachine: vm)
        #expect(!script.isUsingBytecodeCache)
        let context = try #require(JSContext(virtualMachine: vm))
        #expect(context.evaluateJSScript(script).toInt32() == 55)
        try script.cacheBytecode()
        #expect(script.isUsingBytecodeCache)
        #expect(FileManager.default.fileExists(atPath: cache.path))
        // A new script of the same source finds the cache, and runs it in another context.
        let again = try JSScript(of: .program, withSource: source, andSourceURL: url, andBytecodeCache: cache, inVirtualMachine: vm)
        #expect(again.isUsingBytecodeCache)
        #expect(try #require(JSContext(virtualMachine: vm)).evaluateJSScript(again).toInt32() == 55)
    }

    @Test(.enabled(if: JSTranspiler.isAvailable, "node-typescript is not installed"))
    func modernSourceIsCachedLowered() throws {
        let vm = try #require(JSVirtualMachine())
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(at: cache.deletingLastPathComponent()) }
        let source = "const twice = (x) => x * 2;\nclass K { get v() { return twice(21) } }\nnew K().v"
        let url = URL(fileURLWithPath: "/srv/modern.js")
        try JSScript(of: .program, withSource: source, andSourceURL: url, andBytecodeCache: cache, inVirtualMachine: vm).cacheBytecode()
        let script = try JSScript(of: .program, withSource: source, andSourceURL: url, andBytecodeCache: cache, inVirtualMachine: vm)
        #expect(script.isUsingBytecodeCache)
        #expect(try #require(JSContext(virtualMachine: vm)).evaluateJSScript(script).toInt32() == 42)
    }

    @Test func staleAndCorruptCachesAreRejected() throws {
        let vm = try #require(JSVirtualMachine())
        let cache = try temporaryCache()
        defer { try? FileManager.default.removeItem(at: cache.deletingLastPathComponent()) }
        let url = URL(fileURLWithPath: "/srv/a.js")
        try JSScript(of: .program, withSource: "'a'.length + 1", andSourceURL: url, andBytecodeCache: cache, inVirtualMachine: vm).cacheBytecode()
        let good = try Data(contentsOf: cache)
        func uses(_ bytes: Data, source: String = "'a'.length + 1", sourceURL: URL = url) throws -> Bool {
            try bytes.write(to: cache)
            let script = try JSScript(of: .program, withSource: source, andSourceURL: sourceURL, andBytecodeCache: cache, inVirtualMachine: vm)
            // Whatever the cache, the script runs right.
            #expect(try #require(JSContext(virtualMachine: vm)).evaluateJSScript(script).toString() == (source == "'a'.length + 1" ? "2" : "changed"))
            return script.isUsingBytecodeCache
        }
        #expect(try uses(good))
        #expect(try !uses(good, source: "'changed'"))                       // another source
        #expect(try !uses(good, sourceURL: URL(fileURLWithPath: "/srv/b.js"))) // another URL
        #expect(try !uses(good.prefix(good.count - 1)))                       // truncated
        #expect(try !uses(good + Data([0])))                                  // trailing bytes
        #expect(try !uses(Data()))                                            // empty
        var flipped = good
        flipped[flipped.count - 3] ^= 0x40                                    // a bytecode byte
        #expect(try !uses(flipped))
        // Another engine build: its fingerprint (version, architecture, value layout) differs.
        let engine = String(decoding: BytecodeImage.engine, as: UTF8.self)
        #expect(engine.contains("duktape 20700") && engine.contains("pointer 8"))
        let fingerprint = try #require(good.range(of: Data(BytecodeImage.engine)))
        var otherBuild = good
        otherBuild.replaceSubrange(fingerprint, with: Data(engine.replacingOccurrences(of: "pointer 8", with: "pointer 4").utf8))
        #expect(try !uses(otherBuild))
        // Random garbage of every length up to 200 bytes: rejected, never loaded.
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            #expect(try !uses(Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })))
        }
    }

    @Test func misuseIsReported() throws {
        let vm = try #require(JSVirtualMachine())
        let url = URL(fileURLWithPath: "/srv/m.js")
        #expect(throws: JSScriptError.modulesUnsupported) {
            try JSScript(of: .module, withSource: "export default 1", andSourceURL: url, andBytecodeCache: nil, inVirtualMachine: vm)
        }
        let script = try JSScript(of: .program, withSource: "1", andSourceURL: url, andBytecodeCache: nil, inVirtualMachine: vm)
        #expect(throws: JSScriptError.noCachePath) { try script.cacheBytecode() }
        // A cache path in a directory that cannot be made.
        let unwritable = try JSScript(
            of: .program, withSource: "1", andSourceURL: url,
            andBytecodeCache: URL(fileURLWithPath: "/proc/no/such/dir/x.dukbc"), inVirtualMachine: vm)
        #expect(throws: JSScriptError.cacheNotWritten) { try unwritable.cacheBytecode() }
        // A syntax error surfaces when caching, as the compile's exception.
        let broken = try JSScript(of: .program, withSource: "1 +", andSourceURL: url, andBytecodeCache: try temporaryCache(), inVirtualMachine: vm)
        #expect(throws: JSException.self) { try broken.cacheBytecode() }
        // A script of another VM is a TypeError in the context.
        let other = try #require(JSContext())
        let recorder = ExceptionRecorder()
        recorder.install(on: other)
        other.evaluateJSScript(script)
        #expect(recorder.messages.first?.hasPrefix("TypeError") == true)
    }

    @Test(.enabled(if: JSTranspiler.isAvailable, "node-typescript is not installed"))
    func theCompilerImageIsWrittenAndValid() throws {
        // The compiler VM has started in this process by now, or starts here; its image is in
        // the cache directory afterwards (unless none is configured).
        _ = try JSTranspiler.transpile("let x = 1")
        guard let directory = JSTranspiler.cacheDirectory else { return }
        let images = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("typescript-") && $0.hasSuffix(".dukbc") }
        #expect(!images.isEmpty)
    }
}
