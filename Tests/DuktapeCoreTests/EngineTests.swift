import Foundation
import Testing

@testable import DuktapeCore

/// Something a Swift closure captures, so that its release is counted.
final class EngineProbe: @unchecked Sendable {
    static let live = LiveCounter()
    init() { EngineProbe.live.increment() }
    deinit { EngineProbe.live.decrement() }
}

/// The one entry into the engine: the deadline on an injectable clock, and the limits on every
/// path that runs script code (API calls, JSValue release, garbage collection, heap destruction).
@Suite("Engine", .serialized)
struct EngineTests {
    /// A context whose VM measures time on `clock`, with `tick()` in JavaScript advancing it.
    /// So that a regression fails instead of hanging, the 1,000,000th tick throws (the engine
    /// checks its deadline every 256 Ki bytecode instructions: some 50,000 ticks).
    private func manualContext(limit: TimeInterval, step: Duration = .milliseconds(300)) -> (JSContext, ManualClock) {
        let clock = ManualClock()
        let vm = JSVirtualMachine(clock: clock)!
        vm.executionTimeLimit = limit
        let context = JSContext(virtualMachine: vm)!
        let ticks = LiveCounter()
        context["tick"] = JSValue(newFunctionIn: context) { () throws in
            ticks.increment()
            if ticks.value >= 1_000_000 { throw RunawayScript() }
            clock.advance(by: step)
        }
        return (context, clock)
    }


    // MARK: - The clock

    @Test func theDeadlineIsReadOnTheManualClock() throws {
        let (context, clock) = manualContext(limit: 1)
        // 0.3 s a tick against a 1 s limit: the fourth tick passes the deadline, whatever the
        // wall clock says; the loop never ends on its own.
        let exception = thrown(context, "var ticks = 0; for (;;) { tick(); ticks++ }")
        #expect(exception?.name == "RangeError")
        #expect(exception?.message == "execution timeout")
        let ticks = try #require(context["ticks"] as Int?)
        #expect(ticks >= 3)
        #expect(clock.now >= .seconds(1))
        // The next entry has a new deadline, on the same clock.
        #expect(eval(context, "tick(); tick(); tick(); 'done'").toString() == "done")
    }

    @Test func wallClockTimeDoesNotCountOnAManualClock() {
        // A 1 ms limit that the wall clock would pass many times over: the manual clock does not
        // move, so the script runs to its end.
        let (context, _) = manualContext(limit: 0.001)
        #expect(eval(context, "var s = 0; for (var i = 0; i < 300000; i++) s += i; s").toDouble() == 44_999_850_000)
    }

    @Test func anotherThreadAdvancingTheClockStopsALoop() async throws {
        let clock = ManualClock()
        let vm = JSVirtualMachine(clock: clock)!
        vm.executionTimeLimit = 5
        let context = JSContext(virtualMachine: vm)!
        let started = DispatchSemaphore(value: 0)
        context["started"] = JSValue(newFunctionIn: context) { () in started.signal() }
        let finished = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        Thread {
            outcome.set(Result { try context.evaluate("started(); while (true) {}") })
            finished.signal()
        }.start()
        #expect(started.wait(timeout: .now() + 30) == .success)
        clock.advance(by: .seconds(4))  // still inside the limit
        clock.advance(by: .seconds(2))
        #expect(finished.wait(timeout: .now() + 30) == .success)
        let error = try #require(outcome.error as? JSException)
        #expect(error.message == "execution timeout")
    }

    @Test func theClockNeverGoesBack() {
        let clock = ManualClock(startingAt: .seconds(5))
        clock.advance(by: .seconds(-3))
        #expect(clock.now == .seconds(5))
        clock.advance(by: .milliseconds(1500))
        #expect(clock.now == .milliseconds(6500))
        clock.advance(by: .seconds(Int64.max))  // saturates, never traps
        #expect(clock.now > .seconds(1_000_000))
    }

    @Test(arguments: [-1.0, 0, .nan, .infinity, -.infinity, 1e300, .leastNonzeroMagnitude])
    func anyTimeLimitIsAccepted(limit: Double) {
        let vm = JSVirtualMachine()!
        let context = JSContext(virtualMachine: vm)!
        vm.executionTimeLimit = limit
        // Zero, negative and NaN limits mean "no time at all"; the call still returns.
        _ = context.evaluateScript("1 + 1")
        #expect(vm.executionTimeLimit != nil)
        vm.executionTimeLimit = nil
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }

    @Test(arguments: [Int.min, -1, 0, 1, Int.max])
    func anyMemoryLimitIsAccepted(limit: Int) {
        let vm = JSVirtualMachine()!
        vm.memoryLimit = limit
        #expect(vm.memoryLimit == max(1, limit))
        vm.memoryLimit = nil
        #expect(JSContext(virtualMachine: vm)!.evaluateScript("[1, 2].length").toInt32() == 2)
    }

    // MARK: - Finalizers run under the limits, on every path

    /// A script finalizer that never ends: `while (true) tick()` (the manual clock moves 0.3 s a
    /// tick), attached to a new object.
    private static let endlessFinalizer = """
        function endless() { for (;;) tick() }
        function finalizable() { var o = { tag: 'doomed' }; Duktape.fin(o, endless); return o }
        """

    @Test func releasingAJSValueRunsItsFinalizerUnderTheDeadline() {
        let (context, clock) = manualContext(limit: 1)
        eval(context, Self.endlessFinalizer)
        var value: JSValue? = context.evaluateScript("finalizable()")
        #expect(value?.forProperty("tag").toString() == "doomed")
        let before = clock.now
        value = nil  // the last reference: Duktape runs the finalizer inline, in this release
        // It ran, and was stopped at the deadline (not by the runaway guard).
        #expect(clock.now - before >= .seconds(1))
        #expect(clock.now - before < .seconds(299_000))
        #expect(eval(context, "6 * 7").toInt32() == 42)
    }

    @Test func garbageCollectionRunsFinalizersUnderTheDeadline() {
        let (context, clock) = manualContext(limit: 1)
        eval(context, Self.endlessFinalizer)
        // Cycles: only mark-and-sweep frees them, in garbageCollect().
        eval(context, "for (var i = 0; i < 3; i++) { var o = finalizable(); o.self = o }; o = null")
        let before = clock.now
        context.virtualMachine.garbageCollect()
        #expect(clock.now - before >= .seconds(1))
        #expect(clock.now - before < .seconds(299_000))
        #expect(eval(context, "6 * 7").toInt32() == 42)
    }

    @Test func heapDestructionRunsFinalizersUnderTheDeadlineAndReleasesEveryBox() throws {
        // On the wall clock: at destruction the library's own finalizers release host functions
        // (a `tick` could be gone before the script's finalizer runs), so nothing but time can
        // stop `while (true) {}` there.
        #expect(EngineProbe.live.value == 0)
        let returned = finishes(within: 30) {
            let vm = JSVirtualMachine()!
            vm.executionTimeLimit = 0.2
            let context = JSContext(virtualMachine: vm)!
            let probe = EngineProbe()
            context["probe"] = JSValue(newFunctionIn: context) { () in _ = probe }
            // Reachable at destruction: a hostile finalizer on an object, and on the very function
            // whose box holds the probe (the library's finalizer runs after the script's).
            eval(context, """
                function endless() { while (true) {} }
                var kept = {}; Duktape.fin(kept, endless); Duktape.fin(probe, endless)
                """)
        }
        // The context and VM are gone: destruction returned within the limit (plus a generous
        // margin for sanitizer builds), and released the closure's box.
        #expect(returned)
        #expect(EngineProbe.live.value == 0)
    }

    @Test func heapDestructionKeepsTheMemoryLimitForScriptFinalizers() throws {
        #expect(EngineProbe.live.value == 0)
        let engine: Engine
        do {
            let vm = JSVirtualMachine()!
            vm.memoryLimit = 8 << 20
            engine = vm.engine
            let context = JSContext(virtualMachine: vm)!
            let probe = EngineProbe()
            context["probe"] = JSValue(newFunctionIn: context) { () in _ = probe }
            // Doubling a string until something stops it: 2^28 characters unless the limit does.
            eval(context, """
                function greedy() { var s = 'x'; for (var i = 0; i < 28; i++) s = s + s; globalThis.s = s }
                var kept = {}; Duktape.fin(kept, greedy); Duktape.fin(probe, greedy)
                """)
        }
        // The engine outlives its VM here only to read its counters.
        #expect(engine.peakMemoryUsage <= (8 << 20) + (1 << 20))
        #expect(EngineProbe.live.value == 0)
    }

    // MARK: - Releases from other threads

    @Test func valuesReleasedWhileAnotherThreadIsInsideAreReleasedWhenItLeaves() async throws {
        let vm = JSVirtualMachine()!
        let context = JSContext(virtualMachine: vm)!
        let baseline = vm.pinnedValueCount
        var values: [JSValue] = (0..<100).map { JSValue(object: "value \($0)", in: context) }
        #expect(vm.pinnedValueCount == baseline + 100)
        let busy = BusyVM(context, running: "hold()")
        #expect(busy.entered)
        // The VM is busy on the other thread: these releases must not block this one; they wait
        // for it to leave (reading pinnedValueCount would take the VM lock, and wait too).
        values.removeAll()
        #expect(vm.engine.pendingWorkCount == 100)
        #expect(busy.finish())
        #expect(vm.pinnedValueCount == baseline)
    }

    @Test func workPostedWhileTheVMIsBusyRunsWhenItsOutermostCallEnds() async throws {
        let vm = JSVirtualMachine()!
        let context = JSContext(virtualMachine: vm)!
        let busy = BusyVM(context, running: "var log = []; hold(); log.push('script done')")
        #expect(busy.entered)
        // Posted from this thread while the other is inside: it must not run now (this thread
        // does not hold the lock), nor block; it runs under the lock when the call ends.
        let ran = LiveCounter()
        vm.engine.perform(.run { [context] in
            ran.increment()
            context.evaluateScript("log.push('posted work')")
        })
        #expect(ran.value == 0)
        #expect(busy.finish())
        #expect(ran.value == 1)
        #expect(eval(context, "log.join(', ')").toString() == "script done, posted work")
        // With the VM idle, posted work runs at once, on the posting thread.
        vm.engine.perform(.run { ran.increment() })
        #expect(ran.value == 2)
    }

    @Test func releasesFromManyThreadsAllLand() async {
        let vm = JSVirtualMachine()!
        let context = JSContext(virtualMachine: vm)!
        let baseline = vm.pinnedValueCount
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        let value = JSValue(object: ["thread": thread, "round": round], in: context)
                        _ = value?.forProperty("round")
                    }
                }
            }
        }
        #expect(vm.pinnedValueCount == baseline)
    }

    /// Values pinned in order append to the registry array (a fast path inside its capacity,
    /// Duktape's own put past it): each keeps its own object, the garbage collector keeps them,
    /// and released slots are taken again.
    @Test func manyValuesHeldAtOnceKeepTheirObjects() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        let make = try #require(context.evaluateScript("(function (i) { return { i: i, tag: 'v' + i } })"))
        let baseline = vm.pinnedValueCount
        var held = (0..<5_000).map { make.call(withArguments: [$0])! }
        context.evaluateScript("Duktape.gc(); Duktape.gc()")
        #expect(vm.pinnedValueCount == baseline + 5_000)
        #expect(held.indices.allSatisfy { held[$0].forProperty("i").toInt32() == Int32($0) })
        held.removeSubrange(1_000..<4_000)
        #expect(vm.pinnedValueCount == baseline + 2_000)
        held += (0..<3_000).map { make.call(withArguments: [10_000 + $0])! }
        context.evaluateScript("Duktape.gc()")
        #expect(vm.pinnedValueCount == baseline + 5_000)
        #expect(held[4_999].forProperty("tag").toString() == "v12999" && held[999].forProperty("i").toInt32() == 999)
        held = []
        #expect(vm.pinnedValueCount == baseline)
    }

    // MARK: - Built-ins the library uses

    @Test func replacedGlobalsDoNotChangeWhatTheLibraryMakes() throws {
        let context = JSContext()!
        eval(context, """
            var originals = { TypeError: TypeError, Error: Error };
            TypeError = function () { throw 'hijacked TypeError' };
            RangeError = function () { for (;;) {} };
            Error = function () { return { hijacked: true } };
            String = function () { return 'hijacked String' };
            Object = function () { return 'hijacked Object' };
            Object.defineProperty = function () { throw 'hijacked defineProperty' };
            Symbol = undefined; RegExp = undefined; Date = undefined;
            """)
        let error = try #require(JSValue(newErrorFromMessage: "made by Swift", in: context))
        #expect(error.toString() == "Error: made by Swift")
        #expect(error.isInstance(of: context.evaluateScript("originals.Error")))
        #expect(JSValue(newRegularExpressionFromPattern: "a+", flags: "g", in: context).toString() == "/a+/g")
        #expect(JSValue(newSymbolFromDescription: "tag", in: context).isSymbol)
        #expect(JSValue(object: Date(timeIntervalSince1970: 1), in: context).isDate)
        // Errors the library raises are the realm's own TypeError.
        context.exception = nil
        #expect(JSValue(double: 1, in: context).toArray() == nil)
        #expect(context.exception.isInstance(of: context.evaluateScript("originals.TypeError")))
        #expect(context.exception.forProperty("message").toString() == "Cannot convert primitive to NSArray")
        // Exported classes are built with the engine's own Symbol.toStringTag.
        context["EngineExported"] = EngineExported.self
        #expect(eval(context, "Object.prototype.toString.call(new EngineExported())").toString() == "[object EngineExported]")
        let object = JSValue(newObjectIn: context)!
        object.defineProperty("fixed", descriptor: [JSPropertyDescriptorValueKey: 7])
        #expect(object.forProperty("fixed").toInt32() == 7)
        // The exception setter boxes primitives with the realm's own Object.
        context.exception = JSValue(object: "thrown text", in: context)
        #expect(context.exception.isObject)
        #expect(context.exception.toString() == "thrown text")
        // Describing a symbol goes through the realm's own String.
        #expect(JSValue(newSymbolFromDescription: "d", in: context).description == "Symbol(d)")
    }
}

struct RunawayScript: Error {}

/// A context kept busy on a thread of its own: `script` calls `hold()`, which waits (30 s at
/// most) until `finish()`. The initializer returns once the thread is inside the VM.
private struct BusyVM {
    let release = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let entered: Bool

    init(_ context: JSContext, running script: String) {
        let inside = DispatchSemaphore(value: 0)
        let release = self.release, finished = self.finished
        context["hold"] = JSValue(newFunctionIn: context) { () in
            inside.signal()
            _ = release.wait(timeout: .now() + 30)
        }
        Thread {
            context.evaluateScript(script)
            finished.signal()
        }.start()
        entered = inside.wait(timeout: .now() + 30) == .success
    }

    /// Lets the script go on, and waits for its call to end.
    func finish() -> Bool {
        release.signal()
        return finished.wait(timeout: .now() + 30) == .success
    }
}

/// An exported class for the overwritten-globals test.
final class EngineExported: JSExport {
    static let jsClass = JSClass(EngineExported.self) { c in c.constructor { () in EngineExported() } }
}

/// The result of work done on another thread, read after it signalled.
private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<JSValue, any Error>?

    func set(_ result: Result<JSValue, any Error>) { lock.withLock { self.result = result } }

    var error: (any Error)? {
        lock.withLock {
            if case .failure(let error) = result { return error }
            return nil
        }
    }
}
