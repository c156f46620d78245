import Foundation
import Testing

@testable import DuktapeCore

/// An exported class whose instances are only made by `exceptionsInsideFinalizersAreContained`.
final class FinalizedThing: JSExport {
    static let live = LiveCounter()
    init() { FinalizedThing.live.increment() }
    deinit { FinalizedThing.live.decrement() }
    static let jsClass = JSClass(FinalizedThing.self) { c in c.constructor { () in FinalizedThing() } }
}

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
        #expect(fatalErrorCount == 0, sourceLocation: sourceLocation)
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
    /// overflowed. A chain of nested handler calls is bounded; later exceptions are stored.
    @Test func aHandlerThatAlwaysFailsAgainStopsAt64Calls() {
        var calls = 0
        context.exceptionHandler = { context, exception in
            calls += 1
            _ = exception?.call(withArguments: [])   // an Error is not callable: TypeError, again
        }
        context.evaluateScript("throw new Error('first')")
        #expect(calls == Engine.maximumHandlerCallsPerChain)
        #expect(context.exception?.forProperty("name").toString() == "TypeError")
        // The budget is per chain: the next failing call from Swift starts a new one.
        calls = 0
        context.evaluateScript("throw new Error('second')")
        #expect(calls == Engine.maximumHandlerCallsPerChain)
        context.exceptionHandler = nil
        expectUsable()
    }

    /// Found by fuzz-evaluate: an `errCreate` hook that returns undefined makes every read of
    /// the thrown `undefined` fail again, and a handler that makes several such reads then made
    /// k^depth handler calls (a depth bound alone does not bound the work). The chain's budget
    /// bounds the handler calls, whatever each one does; here each makes 8 failing reads.
    @Test func aHandlerThatFailsSeveralTimesPerCallMakesBoundedWork() throws {
        let context = try #require(JSContext(sandbox: JSSandbox(exposesEngineGlobals: true)))
        context.evaluateScript("Duktape.errCreate = function (e) { var ignored = e }")
        var calls = 0
        context.exceptionHandler = { _, exception in
            calls += 1
            for key in ["a", "b", "c", "d", "e", "f", "g", "h"] {
                _ = exception?.forProperty(key)  // a read of undefined: TypeError, made undefined
            }
        }
        #expect(finishes(within: 10) { context.evaluateScript("null.x") })
        #expect(calls == Engine.maximumHandlerCallsPerChain)
        context.exceptionHandler = nil
        #expect(context.evaluateScript("6 * 7")?.toInt32() == 42)
    }

    /// The budget is the VM's, not a context's: handlers of two contexts that call each other's
    /// failing code share one chain.
    @Test func handlersOfTwoContextsShareOneChain() {
        let other: JSContext = JSContext(virtualMachine: vm)
        var calls = 0
        context.exceptionHandler = { _, _ in
            calls += 1
            other.evaluateScript("throw 'ping'")
        }
        other.exceptionHandler = { [context] _, _ in
            calls += 1
            context.evaluateScript("throw 'pong'")
        }
        context.evaluateScript("throw 'start'")
        #expect(calls == Engine.maximumHandlerCallsPerChain)
        context.exceptionHandler = nil
        other.exceptionHandler = nil
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

    // MARK: - Depth

    @Test func javaScriptRecursion100000DeepIsARangeError() throws {
        eval(context, "function depth(n) { return n === 0 ? 0 : 1 + depth(n - 1) }")
        let exception = try #require(thrown(context, "depth(100000)"))
        #expect(exception.name == "RangeError")
        #expect(exception.message == "callstack limit")
        #expect(eval(context, "depth(5000)").toInt32() == 5000)
        expectUsable()
    }

    @Test func javaScriptToSwiftToJavaScriptRecursion100000DeepIsARangeError() throws {
        context["viaSwift"] = JSValue(newFunctionIn: context) { (n: Int) throws -> Int in
            guard n > 0 else { return 0 }
            return Int(try JSContext.current().objectForKeyedSubscript("down").call(n - 1).toInt32()) + 1
        }
        eval(context, "function down(n) { return viaSwift(n) }")
        let exception = try #require(thrown(context, "down(100000)"))
        #expect(exception.name == "RangeError")
        #expect(exception.message == "C stack depth limit", "\(exception)")
        #expect(eval(context, "down(50)").toInt32() == 50)
        expectUsable()
    }

    // MARK: - Structures

    @Test func cyclicAndSharedStructuresThroughEveryConversion() throws {
        let cyclic = eval(context, "var shared = {s: 1}; var c = {shared: shared, again: shared, list: [shared]}; c.self = c; c.list.push(c.list); c")
        // toObject/toDictionary: a back-reference comes back as its JSValue; shared parts twice.
        let object = try #require(cyclic.toObject() as? [String: Any])
        #expect((object["shared"] as? [String: Any])?["s"] as? Int == 1)
        #expect((object["again"] as? [String: Any])?["s"] as? Int == 1)
        #expect(object["self"] is JSValue)
        let list = try #require(object["list"] as? [Any])
        #expect(list.count == 2 && list[1] is JSValue)
        #expect(cyclic.toDictionary()?["self"] is JSValue)
        #expect(cyclic.forProperty("list").toArray()?.count == 2)
        // JSValueConvertible reads are strict: a cycle is not a [String: Int] or [[Int]].
        #expect([String: Int].fromJSValue(cyclic) == nil)
        #expect([[Double]].fromJSValue(cyclic.forProperty("list")) == nil)
        // As a callback argument, typed and untyped.
        context["takeDictionary"] = JSValue(newFunctionIn: context) { (value: [String: JSValue]) in value.count }
        context["takeAny"] = JSValue(newFunctionIn: context) { (this: JSValue, arguments: [JSValue]) -> Any? in arguments.first?.toObject() }
        #expect(eval(context, "takeDictionary(c)").toInt32() == 4)
        #expect(eval(context, "var back = takeAny(c); back.self === c && back.shared.s === 1").toBool())
        // Swift → JS of the converted (finite) graph, and the cycle back through a global.
        context.setObject(object, forKeyedSubscript: "fromSwift")
        #expect(eval(context, "fromSwift.self === c && fromSwift.shared !== fromSwift.again").toBool())
        _ = cyclic.description
        expectUsable()
    }

    @Test func proxiesAndAccessorsThatThrowOrMutateDuringConversion() throws {
        vm.executionTimeLimit = 0.2  // the growing Proxy below runs into it
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        let cases = [
            "new Proxy([1, 2, 3], { get: function (t, k) { if (k === '1') throw new Error('get trap'); return t[k] } })",
            "new Proxy({a: 1}, { ownKeys: function () { return ['a', 'a', 'ghost'] } })",
            "new Proxy({}, { getOwnPropertyDescriptor: function () { throw new Error('gopd trap') }, ownKeys: function () { return ['x'] } })",
            "var grow = [1]; new Proxy(grow, { get: function (t, k) { if (k === 'length') { t.push(t.length); return 1e6 } return t[k] } })",
            "var arr = [1, 2, 3]; Object.defineProperty(arr, 1, { get: function () { arr.length = 0; return 'gone' } }); arr",
            "({ get a() { delete this.b; this.z = 1; return 1 }, b: 2, valueOf: function () { throw 1 }, toString: function () { throw 2 } })",
            "({ toString: function () { return {} }, valueOf: function () { return {} } })",
        ]
        for script in cases {
            let value = eval(context, script)
            _ = value.toObject()
            _ = value.toArray()
            _ = value.toDictionary()
            _ = value.toString()
            _ = value.toDouble()
            _ = value.description
            _ = [Int].fromJSValue(value)
        }
        // Only what the traps and accessors throw is reported, and the time limit; nothing else.
        let expected: Set = ["Error: get trap", "Error: gopd trap", "RangeError: execution timeout", "1", "2",
                             "TypeError: coercion to primitive failed"]
        #expect(Set(recorder.messages).isSubset(of: expected), "\(recorder.messages)")
        #expect(recorder.messages.contains("RangeError: execution timeout"))
        context.exceptionHandler = nil
        vm.executionTimeLimit = 2
        expectUsable()
    }

    @Test func frozenAndSealedObjectsWrittenFromSwift() throws {
        let frozen = eval(context, "Object.freeze({ a: 1 })")
        frozen.setValue(2, forProperty: "a")
        frozen.setValue(3, forProperty: "added")
        #expect(frozen.forProperty("a").toInt32() == 1)
        #expect(frozen.forProperty("added").isUndefined)
        #expect(frozen.deleteProperty("a") == false)
        let sealed = eval(context, "Object.seal({ a: 1 })")
        sealed.setValue(5, forProperty: "a")
        sealed.setValue(6, forProperty: "added")
        #expect(sealed.forProperty("a").toInt32() == 5)
        #expect(sealed.forProperty("added").isUndefined)
        #expect(sealed.deleteProperty("a") == false)
        let frozenArray = eval(context, "Object.freeze([1, 2])")
        frozenArray.setValue(9, at: 0)
        frozenArray.setValue(9, at: 5)
        #expect(frozenArray.toArray()?.count == 2)
        #expect(frozenArray.atIndex(0).toInt32() == 1)
        // defineProperty on a frozen object is a TypeError reported to the handler.
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        frozen.defineProperty("b", descriptor: ["value": 1])
        #expect(recorder.messages.count == 1 && recorder.messages[0].hasPrefix("TypeError"))
        context.exceptionHandler = nil
        expectUsable()
    }

    @Test func symbolKeysAreSkippedByConversionsAndUnreachableByName() throws {
        let value = eval(context, "var sym = Symbol('k'); var o = { plain: 1 }; o[sym] = 2; o[Symbol.iterator] = function () {}; o")
        #expect(value.toObject() as? [String: Int] == ["plain": 1])
        #expect(value.toDictionary()?.count == 1)
        #expect(value.forProperty("Symbol(k)").isUndefined)
        #expect(value.forProperty("sym").isUndefined)
        #expect(eval(context, "o[sym]").toInt32() == 2)
        let symbol = eval(context, "sym")
        #expect(symbol.isSymbol)
        #expect(symbol.toObject() == nil)
        #expect(symbol.toString() == nil)
        #expect(symbol.toDouble().isNaN)
        expectUsable()
    }

    @Test func tenMegabyteStringsBothWays() throws {
        let unit = "a😀\u{0}é"  // 1 + 4 + 1 + 2 UTF-8 bytes, 5 UTF-16 units
        let big = String(repeating: unit, count: 1_250_000)  // 10,000,000 UTF-8 bytes
        context.setObject(big, forKeyedSubscript: "big")
        #expect(eval(context, "big.length").toInt32() == 6_250_000)
        #expect(eval(context, "big.charCodeAt(1) === 0xD83D && big.charCodeAt(3) === 0").toBool())
        #expect(context.objectForKeyedSubscript("big").toString() == big)
        let made = eval(context, "'\\uD83D\\uDE00'.repeat(2500000) + '\\uD800'")
        let text = try #require(made.toString())
        #expect(text.unicodeScalars.count == 2_500_001)
        #expect(text.unicodeScalars.last == "\u{FFFD}")
        expectUsable()
    }

    // MARK: - Finalizers and callbacks

    @Test func exceptionsInsideFinalizersAreContained() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        context["Thing"] = FinalizedThing.self
        eval(context, """
            var ran = 0;
            (function () {
                for (var i = 0; i < 10; i++) {
                    Duktape.fin({}, function () { ran++; throw new Error('plain finalizer') });
                    var t = new Thing();
                    Duktape.fin(t, function () { ran++; throw new Error('chained finalizer') });
                }
            })();
            """)
        vm.garbageCollect()
        #expect(eval(context, "ran").toInt32() == 20)
        #expect(FinalizedThing.live.value == 0)
        #expect(context.exception == nil)
        #expect(eval(context, "1 + 1").toInt32() == 2)
        #expect(fatalErrorCount == 0)
    }

    @Test func evaluatingFromInsideACallback() throws {
        context["nested"] = JSValue(newFunctionIn: context) { (code: String) throws -> JSValue in
            try JSContext.current().evaluate(code)
        }
        #expect(eval(context, "nested('nested(\"nested(\\\\\"6 * 7\\\\\")\")')").toInt32() == 42)
        let exception = try #require(thrown(context, "nested('throw new TypeError(\"inner\")')"))
        #expect(exception.name == "TypeError" && exception.message == "inner")
        #expect(eval(context, "try { nested('}') } catch (e) { e.name }").toString() == "SyntaxError")
        expectUsable()
    }

    /// Found by fuzz-callbacks: past the deadline everything nested fails, and an exception
    /// handler that converts each exception it gets (each conversion failing and calling it
    /// again) made a cascade that ran for minutes under a 20 ms limit. Failures nested in a call
    /// whose time is up are now stored, not handled; the outermost call reports once.
    ///
    /// The script nests 30 entries and spins at the bottom (and at each level after its nested
    /// call), so the deadline passes inside the nest whatever the machine's speed: unbounded
    /// recursion would reach the stack limit first on a fast one, whose nested RangeErrors are
    /// handled (up to the handler budget) as they should be.
    @Test(.timeLimit(.minutes(1))) func aTimeoutInsideCallbacksIsReportedOnce() throws {
        let context = try #require(JSContext(sandbox: JSSandbox(memoryLimit: 16 << 20, executionTimeLimit: 0.02)))
        var handled: [String] = []
        context.exceptionHandler = { _, exception in
            handled.append(exception?.toString() ?? "?")
            for _ in 0..<5 { _ = (exception?.toObject(), exception?.toDouble(), exception?.forProperty("stack")) }
        }
        context["reenter"] = JSValue(newFunctionIn: context) { (code: String) -> JSValue? in
            JSContext.current()?.evaluateScript(code)
        }
        context.evaluateScript("function r(n) { if (n) reenter('r(' + (n - 1) + ')'); for (;;) {} } r(30)")
        #expect(handled.count == 1 && handled.first?.hasPrefix("RangeError") == true, "\(handled)")
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }

    /// Found by fuzz-callbacks (LeakSanitizer): calling a finalizer allocates, and Duktape frees
    /// the object even when that fails. At the memory limit or past the deadline, wrappers died
    /// without releasing their Swift objects, and watched objects without telling their
    /// JSManagedValue (which then held a freed address).
    @Test func finalizersRunAtTheMemoryLimitAndPastTheDeadline() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        context["Probe"] = ReleaseProbe.self
        let managed = (0..<3).map { index in
            JSManagedValue(value: eval(context, "var watched = watched || [{}, {}, {}]; watched[\(index)]"))!
        }
        #expect(managed.allSatisfy { $0.value != nil })

        // Past the deadline: the loop allocates until the allocator refuses, and the wrappers
        // held by the dying frame are finalized while it unwinds.
        vm.executionTimeLimit = 0.05
        #expect(thrown(context, "(function () { var t = []; for (var i = 0; i < 50; i++) t.push(new Probe()); var s = ''; for (;;) s += 'xy' })()")?.message == "execution timeout")
        vm.executionTimeLimit = nil
        // At the memory limit: the heap is full when the wrappers and watched objects die.
        vm.memoryLimit = vm.memoryUsage + (1 << 20)
        eval(context, "var keep = []; for (var i = 0; i < 50; i++) keep.push(new Probe())")
        _ = thrown(context, "var hog = []; for (;;) hog.push([hog.length, hog.length])")
        eval(context, "keep = null; watched = null")
        vm.memoryLimit = nil
        eval(context, "hog = null")
        vm.garbageCollect()
        #expect(ReleaseProbe.live.value == 0)
        #expect(managed.allSatisfy { $0.value == nil })
        #expect(fatalErrorCount == 0)
    }
}

/// Instances made only by `finalizersRunAtTheMemoryLimitAndPastTheDeadline`.
final class ReleaseProbe: JSExport {
    static let live = LiveCounter()
    init() { ReleaseProbe.live.increment() }
    deinit { ReleaseProbe.live.decrement() }
    static let jsClass = JSClass(ReleaseProbe.self) { c in c.constructor { () in ReleaseProbe() } }
}
