import Foundation
import Testing

@testable import DuktapeCore

/// Attacks on the limits that once got past them (issue 13): each must end within its limit plus
/// a margin (generous, for sanitizer builds), with the VM usable afterwards. Every test runs its
/// script on a thread of its own, so that a regression fails instead of hanging the run.
@Suite("Hostile limits")
struct HostileLimitsTests {
    /// A native loop that runs no bytecode and allocates as it goes: `join` of a sparse array of
    /// length 2^32 - 1, which takes minutes when nothing stops it.
    static let sparseJoin = "var a = []; a.length = 4294967295; a.join('')"

    /// Runs `script` in a fresh context with a 0.1 s limit (or in `context`), expecting it to end
    /// with an exception within `margin` seconds; returns that exception.
    private func endsInTime(
        _ script: String, in made: @autoclosure () -> JSContext = HostileLimitsTests.limitedContext(),
        margin: Double = 20, sourceLocation: SourceLocation = #_sourceLocation
    ) -> JSException? {
        let context = made()
        let outcome = ExceptionBox()
        let returned = finishes(within: margin) {
            do {
                _ = try context.evaluate(script)
            } catch {
                outcome.set(error)
            }
        }
        #expect(returned, "did not end within \(margin) s: \(script)", sourceLocation: sourceLocation)
        guard returned else { return nil }
        #expect(context.evaluateScript("[1, 2, 3].join()").toString() == "1,2,3", sourceLocation: sourceLocation)
        #expect(fatalErrorCount == 0, sourceLocation: sourceLocation)
        return outcome.exception
    }

    static func limitedContext(limit: TimeInterval = 0.1) -> JSContext {
        let vm = JSVirtualMachine()!
        vm.executionTimeLimit = limit
        return JSContext(virtualMachine: vm)!
    }

    // MARK: - Hole 2: a thrown value's getters and toString, read past the deadline

    @Test(arguments: [
        "throw { get message() { \(sparseJoin); return 'm' } }",
        "throw { get name() { \(sparseJoin); return 'n' } }",
        "throw { toString: function () { \(sparseJoin); return 't' } }",
        "var e = new Error('x'); Object.defineProperty(e, 'stack', { get: function () { \(sparseJoin) } }); throw e",
        "var e = new TypeError('x'); Object.defineProperty(e, 'lineNumber', { get: function () { \(sparseJoin) } }); throw e",
        "throw { get message() { while (true) {} } }",
        "throw { get message() { var s = 'x'; for (;;) s += s; } }",
    ])
    func readingAThrownValueIsBounded(script: String) {
        _ = endsInTime(script)
    }

    @Test func readingAThrownValueIsBoundedInASandbox() {
        let sandboxed = JSContext(sandbox: JSSandbox(memoryLimit: 4 << 20, executionTimeLimit: 0.1))!
        _ = endsInTime("throw { toString: function () { \(Self.sparseJoin); return 't' } }", in: sandboxed)
        _ = endsInTime("throw { get message() { \(Self.sparseJoin); return 'm' } }", in: sandboxed)
    }

    @Test func theErrorCreationHookIsBounded() {
        // Duktape calls errCreate for every error made, the library's own included (here a
        // TypeError made by toArray() on a number, in the window where errors are made).
        let context = Self.limitedContext()
        let returned = finishes(within: 20) {
            context.evaluateScript("Duktape.errCreate = function (e) { \(Self.sparseJoin); return e }")
            _ = JSValue(double: 1, in: context).toArray()
            _ = context.evaluateScript("null.x")
        }
        #expect(returned)
        context.evaluateScript("Duktape.errCreate = undefined")
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }

    @Test func theLibrarysOwnErrorsSkipTheErrorCreationHook() {
        // Found by fuzz-evaluate: with a hook that spends the whole time limit, every API call
        // that failed spent it again inside the library's own error. Scripts' errors still go
        // through the hook; the library's (caller mistakes, limits) do not.
        let context = JSContext()!
        eval(context, "Duktape.errCreate = function (e) { if (e instanceof Error) e.hooked = true; return e }")
        #expect(eval(context, "try { null.x } catch (e) { e.hooked }").toBool())
        #expect(JSValue(newErrorFromMessage: "made by Swift", in: context).forProperty("hooked").isUndefined)
        _ = JSValue(double: 1, in: context).toArray()
        #expect(context.exception.forProperty("hooked").isUndefined)
    }

    @Test func aReplacedRangeErrorIsNeverCalledByTheLibrary() {
        let sandboxed = JSContext(sandbox: JSSandbox(memoryLimit: 4 << 20, executionTimeLimit: 0.1))!
        let exception = endsInTime("""
            RangeError = function () { \(Self.sparseJoin) };
            var hog = []; for (;;) hog.push([hog.length, hog.length, hog.length])
            """, in: sandboxed)
        #expect(exception?.name == "RangeError")
        #expect(exception?.message == "memory limit exceeded" || exception?.message == "execution timeout")
    }

    // MARK: - Hole 3: backtracking regular expressions

    /// 'aaaa…' of `count` characters, without String.prototype.repeat (not in Duktape 2.7).
    static func run(_ count: Int) -> String { "new Array(\(count + 1)).join('a')" }

    @Test(arguments: [
        "/(?:a+)+b/.test(\(run(40)))",
        "/(a|a)*b/.test(\(run(40)))",
        "/(a*)*b/.exec(\(run(40)))",
        "\(run(40)).replace(/(a+a+)+b/, '')",
        "\(run(40)).split(/(a|aa)+b/)",
        "\(run(40)).match(/(a+)+b/g)",
        "for (;;) { try { /(?:a+)+b/.test(\(run(40))) } catch (e) {} }",
    ])
    func backtrackingRegularExpressionsStopAtTheDeadline(script: String) throws {
        let exception = endsInTime(script)
        #expect(exception?.name == "RangeError")
        // Duktape's own recursion limit, or the native stack guard (larger frames under ASan),
        // may stop a pattern before the deadline: each is a clean RangeError.
        #expect(["execution timeout", "regexp executor recursion limit", "C stack depth limit"].contains(exception?.message))
    }

    @Test func backtrackingStopsInASandboxToo() {
        let sandboxed = JSContext(sandbox: JSSandbox(memoryLimit: 8 << 20, executionTimeLimit: 0.1))!
        let exception = endsInTime("/(x+x+)+y/.test(new Array(50).join('x'))", in: sandboxed)
        #expect(exception?.message == "execution timeout")
    }

    @Test func ordinaryRegularExpressionsStillWork() {
        let context = Self.limitedContext(limit: 5)
        #expect(context.evaluateScript("'2026-11-23'.replace(/(\\d+)-(\\d+)-(\\d+)/, '$3.$2.$1')").toString() == "23.11.2026")
        #expect(context.evaluateScript("/^(a+)+$/.test(\(Self.run(20)))").toBool())
    }
}

extension HostileLimitsTests {
    // MARK: - Hole 5: API calls inside a callback that runs in a coroutine

    @Test func apiCallsInsideACoroutinesCallbackWork() throws {
        let context = JSContext()!
        let seen = ExceptionRecorder()
        seen.install(on: context)
        let results = LockedStrings()
        // The closures find their context through JSContext.current(): capturing `context` would
        // be the documented retain cycle (context → function → closure → context).
        context["swift"] = JSValue(newFunctionIn: context) { this, arguments in
            let context: JSContext = JSContext.current()
            // Every kind of API call, from a callback running on the coroutine's thread.
            results.append((try? context.evaluate("6 * 7"))?.toString() ?? "evaluate failed")
            results.append(context.evaluateScript("'evaluateScript ok'").toString() ?? "nil")
            results.append(arguments.first?.forProperty("x").toString() ?? "nil")
            results.append(arguments.first?.toString() ?? "nil")
            results.append((arguments.first?.toDictionary()?["x"] as? Int).map(String.init) ?? "nil")
            results.append(context.globalObject.forProperty("marker").toString() ?? "nil")
            context.evaluateScript("throw new Error('reported from the coroutine')")
            return try context.evaluate("'returned from Swift'")
        }
        let result = eval(context, """
            var marker = 'global of this realm';
            var t = new Duktape.Thread(function () { return swift({ x: 5, toString: function () { return 'arg' } }) });
            Duktape.Thread.resume(t)
            """)
        #expect(result.toString() == "returned from Swift")
        #expect(results.values == ["42", "evaluateScript ok", "5", "arg", "5", "global of this realm"])
        #expect(seen.messages == ["Error: reported from the coroutine"])
        // Nested: a coroutine resumed from a callback of another coroutine.
        context["inner"] = JSValue(newFunctionIn: context) { () -> Int in
            let context: JSContext = JSContext.current()
            let value = try? context.evaluate("Duktape.Thread.resume(new Duktape.Thread(function () { return swiftDepth() }))")
            return Int(value?.toInt32() ?? -1)
        }
        context["swiftDepth"] = JSValue(newFunctionIn: context) { () -> Int in
            let context: JSContext = JSContext.current()
            return Int((try? context.evaluate("7"))?.toInt32() ?? -1)
        }
        #expect(eval(context, "Duktape.Thread.resume(new Duktape.Thread(function () { return inner() }))").toInt32() == 7)
        // And after the coroutines, the context's own thread works as before.
        #expect(eval(context, "marker").toString() == "global of this realm")
    }

    @Test func aCoroutineCallbackInASandboxCannotExist() {
        // The sandbox removes Duktape.Thread: nothing to test but that it stays removed.
        let sandboxed = JSContext(sandbox: JSSandbox())!
        #expect(thrown(sandboxed, "new Duktape.Thread(function () {})")?.name == "ReferenceError")
    }
}

extension HostileLimitsTests {
    // MARK: - Hole 4: shared structures and huge conversions

    @Test func sharedArraysConvertOncePerConversion() throws {
        let context = JSContext()!
        // 22 levels, each array twice in its parent: 2^21 paths through 22 distinct arrays.
        let shared = eval(context, "var x = [1]; for (var i = 0; i < 21; i++) x = [x, x]; x")
        let converted = try #require(finishes(within: 20) { _ = shared.toArray() } ? shared.toArray() : nil)
        var level: [Any] = converted
        var depth = 0
        while level.count == 2, let first = level[0] as? [Any], let second = level[1] as? [Any] {
            #expect(first.count == second.count)
            level = first
            depth += 1
        }
        #expect(depth == 21)
        #expect((level.first as? Int) == 1)
    }

    @Test func sharedObjectsConvertOncePerConversion() throws {
        let context = JSContext()!
        let shared = eval(context, "var x = { v: 1 }; for (var i = 0; i < 21; i++) x = { a: x, b: [x, { c: x }] }; x")
        #expect(finishes(within: 20) {
            _ = shared.toDictionary()
            _ = shared.toObject()
            _ = [String: JSValue].fromJSValue(shared)
        })
        let top = try #require(shared.toDictionary())
        let a = try #require(top["a"] as? [String: Any])
        let b = try #require(top["b"] as? [Any])
        #expect((b[0] as? [String: Any])?.keys.sorted() == a.keys.sorted())
    }

    @Test func cyclesThroughSharedObjectsStillComeBackAsValues() throws {
        let context = JSContext()!
        let value = eval(context, "var a = [1]; var b = [a, a]; a.push(b); b")
        let converted = try #require(value.toArray())
        let first = try #require(converted[0] as? [Any])
        #expect(first.count == 2)
        #expect(first[1] is JSValue)  // the back-reference to b
        #expect((converted[1] as? [Any])?.count == 2)
    }

    @Test func aConversionStopsAtTheDeadline() throws {
        let clock = ManualClock()
        let vm = JSVirtualMachine(clock: clock)!
        vm.executionTimeLimit = 1
        let context = JSContext(virtualMachine: vm)!
        context["tick"] = JSValue(newFunctionIn: context) { () in clock.advance(by: .seconds(2)) }
        // A getter early in a large array moves the clock past the deadline; what is left of the
        // conversion runs no script code, so the conversion itself must notice.
        let value = eval(context, """
            var big = []; for (var i = 0; i < 200000; i++) big.push([i]);
            Object.defineProperty(big, 5, { get: function () { tick(); return 5 } }); big
            """)
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(value.toArray() == nil)
        #expect(recorder.messages == ["RangeError: execution timeout"])
        #expect(eval(context, "big.length").toInt32() == 200_000)
    }

    @Test func aConversionStopsAtTheMemoryLimit() throws {
        let vm = JSVirtualMachine()!
        let context = JSContext(virtualMachine: vm)!
        vm.memoryLimit = vm.memoryUsage + (1 << 20)
        // Sparse: no heap memory, but 16 million Swift elements if converted.
        let sparse = eval(context, "var s = []; s.length = 16000000; s")
        let recorder = ExceptionRecorder()
        recorder.install(on: context)
        #expect(sparse.toArray() == nil)
        #expect(recorder.messages.first?.hasPrefix("RangeError: memory limit exceeded") == true)
        #expect(sparse.toObject() == nil)
    }
}

/// Instances made only by the resurrection tests.
final class Phoenix: JSExport {
    static let live = LiveCounter()
    var name = "phoenix"
    init() { Phoenix.live.increment() }
    deinit { Phoenix.live.decrement() }
    static let jsClass = JSClass(Phoenix.self) { c in
        c.constructor { () in Phoenix() }
        c.property("name", \.name)
        c.method("greet()") { (phoenix: Phoenix) in "hello from \(phoenix.name)" }
    }
}

@Suite("Resurrection", .serialized)
struct ResurrectionTests {
    // MARK: - Hole 6: a finalizer that rescues an object is not its death

    private func context() -> JSContext {
        let context = JSContext()!
        context["Phoenix"] = Phoenix.self
        return context
    }

    @Test func aManagedValueSurvivesItsObjectsRescue() throws {
        let context = context()
        let object = eval(context, """
            var rescues = 0;
            var o = { tag: 'alive' };
            Duktape.fin(o, function (x) { if (rescues++ === 0) globalThis.back = x });
            o
            """)
        let managed = try #require(JSManagedValue(value: object))
        _ = consume object
        eval(context, "o = null")
        context.virtualMachine.garbageCollect()
        #expect(eval(context, "rescues").toInt32() == 1)
        #expect(managed.value?.forProperty("tag").toString() == "alive")
        #expect(managed.value?.isEqual(to: eval(context, "back")) == true)
        // Its second death is final (the finalizer does not rescue it again).
        eval(context, "back = null")
        context.virtualMachine.garbageCollect()
        #expect(eval(context, "rescues").toInt32() == 2)
        #expect(managed.value == nil)
    }

    @Test func aWrapperRescuedByItsOwnFinalizerKeepsItsObject() throws {
        #expect(Phoenix.live.value == 0)
        do {
            let context = context()
            eval(context, """
                var rescues = 0;
                var p = new Phoenix(); p.name = 'first';
                Duktape.fin(p, function (x) { if (rescues++ === 0) globalThis.saved = x });
                p = null
                """)
            context.virtualMachine.garbageCollect()
            #expect(Phoenix.live.value == 1)
            #expect(eval(context, "saved.greet()").toString() == "hello from first")
            let object = try #require(eval(context, "saved").toObject() as? Phoenix)
            #expect(object.name == "first")
            eval(context, "saved = null")
            context.virtualMachine.garbageCollect()
            #expect(eval(context, "rescues").toInt32() == 2)
            #expect(Phoenix.live.value == 1)  // `object` is still held here
        }
        #expect(Phoenix.live.value == 0)
    }

    @Test func aWrapperRescuedByAnotherObjectsFinalizerKeepsWorking() throws {
        #expect(Phoenix.live.value == 0)
        let context = context()
        eval(context, """
            var w = new Phoenix(); w.name = 'held';
            var holder = { w: w }; holder.self = holder;   // a cycle: only mark-and-sweep frees it
            Duktape.fin(holder, function (h) { globalThis.saved = h.w });
            w = null; holder = null
            """)
        context.virtualMachine.garbageCollect()
        #expect(Phoenix.live.value == 1)
        #expect(eval(context, "saved.greet()").toString() == "hello from held")
        eval(context, "saved = null")
        context.virtualMachine.garbageCollect()
        context.virtualMachine.garbageCollect()
        #expect(Phoenix.live.value == 0)
    }

    @Test func cyclicGarbageWithFinalizersIsStillReleased() throws {
        #expect(Phoenix.live.value == 0)
        let context = context()
        let managed = try #require(JSManagedValue(value: eval(context, """
            var a = new Phoenix(); var b = new Phoenix(); a.other = b; b.other = a;
            Duktape.fin(a, function () {}); Duktape.fin(b, function () {});
            var watched = { a: a }; watched.self = watched; Duktape.fin(watched, function () {});
            a = b = null; watched
            """)))
        eval(context, "watched = null")
        context.virtualMachine.garbageCollect()
        context.virtualMachine.garbageCollect()
        #expect(Phoenix.live.value == 0)
        #expect(managed.value == nil)
    }

    @Test func aRescuedSwiftFunctionKeepsItsClosure() throws {
        #expect(EngineProbe.live.value == 0)
        do {
            let context = context()
            let probe = EngineProbe()
            context["f"] = JSValue(newFunctionIn: context) { () -> String in _ = probe; return "still here" }
            eval(context, "var n = 0; Duktape.fin(f, function (x) { if (n++ === 0) globalThis.g = x }); f = null")
            context.virtualMachine.garbageCollect()
            #expect(eval(context, "g()").toString() == "still here")
        }
        #expect(EngineProbe.live.value == 0)
    }
}

/// Strings appended from callbacks, read by the test.
final class LockedStrings: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ string: String) { lock.withLock { list.append(string) } }
    var values: [String] { lock.withLock { list } }
}

/// The error a script ended with, read after its thread signalled.
final class ExceptionBox: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?

    func set(_ error: any Error) { lock.withLock { self.error = error } }
    var exception: JSException? { lock.withLock { error as? JSException } }
}
