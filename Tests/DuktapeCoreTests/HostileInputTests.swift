import CDuktape
import Foundation
import Testing

@testable import DuktapeCore

/// Scripts and inputs that try to crash or hang the host. Each ends in a clear exception and
/// leaves the VM usable.
@Suite("Hostile input")
struct HostileInputTests {
    let vm: JSVirtualMachine
    let context: JSContext

    init() {
        vm = JSVirtualMachine()
        vm.executionTimeLimit = 2
        context = JSContext(virtualMachine: vm)
    }

    private func expectUsable(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(context.evaluateScript("[1, 2, 3].map(function (x) { return x * 2 }).join()").toString() == "2,4,6",
                sourceLocation: sourceLocation)
        #expect(cduk_fatal_count() == 0, sourceLocation: sourceLocation)
    }

    @Test(arguments: ["1 +", "}", "var 1x = 2", "function (", "'unterminated", "/[/", "\u{0}\u{1}\u{2}", "\u{FEFF}+", "return 1", "a b c"])
    func syntaxErrors(source: String) throws {
        let exception = try #require(thrown(context, source))
        #expect(exception.name == "SyntaxError")
        expectUsable()
    }

    @Test func randomBytesAsSource() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let scalars = (0..<Int.random(in: 0..<64, using: &generator)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0..<0x11_0000, using: &generator))
            }
            var source = ""
            source.unicodeScalars.append(contentsOf: scalars)
            _ = try? context.evaluate(source)
        }
        expectUsable()
    }

    @Test(arguments: ["throw null", "throw undefined", "throw 0", "throw ''", "throw {}", "throw []", "throw function () {}", "throw Symbol()", "throw new Proxy({}, {})"])
    func throwingAnything(script: String) throws {
        let exception = try #require(thrown(context, script))
        _ = exception.description
        context.evaluateScript(script)
        _ = context.exception?.description
        expectUsable()
    }

    @Test(arguments: [
        "(function f() { return f() + 1 })()",
        "(function g() { return g.apply(null, []) + 1 })()",
        "function a() { return b() + 1 } function b() { return a() + 1 } a()",
        "var o = {toString: function () { return '' + o }}; '' + o",
        "(function h() { return [1].map(h) })()",
        "(function j() { return JSON.parse('1', function () { return j() }) })()",
    ])
    func runawayRecursionEndsInARangeError(script: String) throws {
        let exception = try #require(thrown(context, script))
        #expect(exception.name == "RangeError")
        #expect(exception.message != "execution timeout", "must hit a stack limit, not the clock")
        expectUsable()
    }

    @Test func tailCallRecursionIsALoopStoppedByTheTimeLimit() throws {
        // Duktape does proper tail calls: these run in constant space, like `while (true)`.
        vm.executionTimeLimit = 0.1
        for script in ["(function f() { return f() })()", "(function g() { return g.apply(null, []) })()"] {
            #expect(thrown(context, script)?.message == "execution timeout")
        }
        vm.executionTimeLimit = 2
        expectUsable()
    }

    @Test func deeplyNestedSource() throws {
        let nested = String(repeating: "(", count: 50_000) + "1" + String(repeating: ")", count: 50_000)
        let exception = try #require(thrown(context, nested))
        #expect(exception.name == "RangeError")
        let arrays = String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)
        #expect(thrown(context, arrays) != nil)
        let json = "JSON.parse(" + "'" + String(repeating: "[", count: 50_000) + "'" + ")"
        #expect(thrown(context, json) != nil)
        expectUsable()
    }

    @Test func infiniteLoopsUnderATimeLimit() throws {
        vm.executionTimeLimit = 0.05
        for script in [
            "while (true) {}",
            "for (;;) { try { for (;;) {} } finally { continue } }",
            "var s = ''; while (true) { s += 'x'; if (s.length > 1000) s = '' }",
            "(function f() { try { while (true) {} } catch (e) { f() } })()",
        ] {
            let started = Date()
            let exception = try #require(thrown(context, script))
            #expect(exception.message == "execution timeout")
            #expect(Date().timeIntervalSince(started) < 5)
        }
        vm.executionTimeLimit = 2
        expectUsable()
    }

    /// Found by fuzz-evaluate: native built-ins loop without running bytecode, so Duktape's
    /// deadline check never ran (`join` of a 2^32 - 1 long sparse array took minutes under a
    /// 0.1 s limit). Past the deadline the allocator now refuses memory.
    @Test(arguments: [
        "var a = []; a.length = 4294967295; a.join().length",
        "var a = []; a.length = 4294967295; String(a)",
        "Object.defineProperty([], 'length', { value: 4294967295 }).toString()",
        "var a = []; a.length = 4294967295; a.join('abc')",
        "var a = []; a.length = 4294967295; try { a.join() } catch (e) { } while (true) {}",
    ])
    func nativeLoopsStopAtTheDeadline(script: String) throws {
        vm.executionTimeLimit = 0.1
        let started = Date()
        let exception = try #require(thrown(context, script))
        #expect(exception.name == "RangeError")
        #expect(exception.message == "execution timeout")
        #expect(Date().timeIntervalSince(started) < 5)
        vm.executionTimeLimit = 2
        expectUsable()
    }

    @Test func allocationPastTheMemoryLimit() throws {
        vm.memoryLimit = vm.memoryUsage + (2 << 20)
        for script in [
            "(function () { var s = 'ab'; for (;;) s += s })()",
            "(function () { var a = []; for (;;) a.push([a.length]) })()",
            "(function () { var b = []; for (;;) b.push(new Uint8Array(65536)) })()",
            "(function () { var n = {}, cur = n; for (;;) { cur.next = {}; cur = cur.next } })()",
            "(function () { var d = []; for (;;) d = [d, d.length] })()",
            "'x'.repeat(1 << 30)",
            "new Uint8Array(1 << 30)",
            "JSON.parse('[' + new Array(1 << 22).join('1,') + '1]')",
        ] {
            let exception = try #require(thrown(context, script))
            #expect(exception.name == "RangeError", "\(script): \(exception)")
            expectUsable()
        }
        vm.memoryLimit = nil
        expectUsable()
    }

    @Test func contextCreationUnderMemoryPressureFailsCleanly() {
        vm.memoryLimit = vm.memoryUsage + 1024
        #expect(JSContext(virtualMachine: vm) == nil)
        vm.memoryLimit = nil
        #expect(JSContext(virtualMachine: vm) != nil)
        expectUsable()
    }

    @Test func cyclicObjectsEverywhere() throws {
        let cyclic = context.evaluateScript("var c = {}; c.c = c; c.arr = [c]; c")!
        _ = cyclic.toObject()
        _ = cyclic.toDictionary()
        _ = cyclic.forProperty("arr").toArray()
        _ = cyclic.description
        #expect(thrown(context, "JSON.stringify(c)")?.name == "TypeError")
        expectUsable()
    }

    @Test func engineInternalsAreNotReachableByKey() {
        // Hidden-symbol keys start with 0xFF, which is not valid UTF-8: a Swift key can never
        // name one. The bytes of U+00FF are C3 BF, a different key.
        let object = context.evaluateScript("({})")!
        #expect(object.forProperty("\u{FF}Value").isUndefined)
        #expect(context.evaluateScript("Object.getOwnPropertyNames(this).join()").toString()?.contains("\u{FFFD}") == false)
        expectUsable()
    }

    @Test func reentrantUseFromTheExceptionHandler() {
        var depth = 0
        context.exceptionHandler = { context, _ in
            depth += 1
            if depth < 50 {
                context?.evaluateScript("throw new Error('again')")
            }
        }
        context.evaluateScript("throw new Error('first')")
        #expect(depth == 50)
        context.exceptionHandler = nil
        expectUsable()
    }

    /// Found by fuzz-evaluate: a handler that always fails again recursed until the stack
    /// overflowed. Nesting is bounded; the innermost exception is stored instead.
    @Test func aHandlerThatAlwaysFailsAgainStopsAt64Levels() {
        var calls = 0
        context.exceptionHandler = { context, exception in
            calls += 1
            _ = exception?.call(withArguments: [])   // an Error is not callable: TypeError, again
        }
        context.evaluateScript("throw new Error('first')")
        #expect(calls == JSContext.maximumHandlerDepth)
        #expect(context.exception?.forProperty("name").toString() == "TypeError")
        context.exceptionHandler = nil
        expectUsable()
    }

    @Test func valuesReleasedOnAnotherThreadWhileTheVMIsBusy() async {
        let vm = self.vm
        vm.executionTimeLimit = nil  // sanitizer builds are slow; this test is not about time
        let context = self.context
        let baseline = vm.pinnedValueCount
        final class Holder: @unchecked Sendable { var values: [JSValue] = [] }
        let holder = Holder()
        holder.values = (0..<500).map { JSValue(object: ["i": $0], in: context)! }
        #expect(vm.pinnedValueCount == baseline + 500)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                context.evaluateScript("var t = 0; for (var i = 0; i < 300000; i++) t += i;")
            }
            group.addTask {
                holder.values.removeAll()  // the last references die here, on another thread
            }
        }
        #expect(vm.pinnedValueCount == baseline)
        #expect(context.evaluateScript("t").toDouble() == 44_999_850_000)
        expectUsable()
    }
}
