import CDuktape
import Foundation
import Testing

@testable import DuktapeCore

@Suite("JSVirtualMachine")
struct JSVirtualMachineTests {
    @Test func contextsShareTheHeapAndExchangeValues() throws {
        let vm = try #require(JSVirtualMachine())
        let a = try #require(JSContext(virtualMachine: vm))
        let b = try #require(JSContext(virtualMachine: vm))
        #expect(a.virtualMachine === vm && b.virtualMachine === vm)
        let object = eval(a, "({answer: 42, list: [1, 2]})")
        b.setObject(object, forKeyedSubscript: "fromA")
        #expect(eval(b, "fromA.answer + fromA.list.length").toInt32() == 44)
        // Each context is its own realm: separate globals and built-ins.
        eval(a, "var onlyInA = 1")
        #expect(eval(b, "typeof onlyInA").toString() == "undefined")
        #expect(eval(b, "fromA.list instanceof Array").toBool() == false)
        #expect(eval(b, "Array.isArray(fromA.list)").toBool())
        // The same object is the same object in both.
        b["again"] = object
        #expect(eval(b, "fromA === again").toBool())
    }

    @Test func valuesFromAnotherVMAreRefused() throws {
        let one = try #require(JSContext())
        let other = try #require(JSContext())
        let foreign = eval(other, "({x: 1})")
        let recorder = ExceptionRecorder()
        recorder.install(on: one)
        one.setObject(foreign, forKeyedSubscript: "foreign")
        #expect(recorder.messages.count == 1)
        #expect(recorder.messages.first?.contains("different JSVirtualMachine") == true)
        #expect(eval(one, "typeof foreign").toString() == "undefined")
        #expect(eval(one, "({})").isEqual(to: foreign) == false)
        #expect(JSValue(object: [foreign], in: one).isUndefined)
        #expect(throws: JSException.self) { try eval(one, "(function (x) { return x })").call(foreign) }
        // Both VMs keep working.
        #expect(eval(one, "1 + 1").toInt32() == 2)
        #expect(foreign.forProperty("x").toInt32() == 1)
    }

    @Test func executionTimeLimitStopsRunawayScriptsAndTheVMStaysUsable() throws {
        let vm = try #require(JSVirtualMachine())
        vm.executionTimeLimit = 0.05
        #expect(vm.executionTimeLimit == 0.05)
        let context = try #require(JSContext(virtualMachine: vm))
        for script in ["while (true) {}", "for (;;) { try { while (true) {} } catch (e) {} }", "var a = []; while (true) { a.push(1); a.pop(); }"] {
            let exception = try #require(thrown(context, script))
            #expect(exception.name == "RangeError")
            #expect(exception.message == "execution timeout")
        }
        #expect(eval(context, "6 * 7").toInt32() == 42)
        vm.executionTimeLimit = nil
        #expect(vm.executionTimeLimit == nil)
        #expect(eval(context, "var n = 0; for (var i = 0; i < 100000; i++) n += i; n").toDouble() == 4_999_950_000)
    }

    @Test func timeLimitAlsoCoversCallsFromSwift() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        let spin = eval(context, "(function () { while (true) {} })")
        vm.executionTimeLimit = 0.05
        #expect(throws: JSException.self) { try spin.call() }
        #expect(spin.call(withArguments: []).isUndefined)
        #expect(context.exception.toString() == "RangeError: execution timeout")
    }

    @Test func memoryLimitFailsAllocationsAndTheVMStaysUsable() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        vm.memoryLimit = vm.memoryUsage + 2 << 20
        // Runaway allocation inside a function: its garbage dies with it.
        let bombs = [
            "(function () { var s = 'x'; while (true) s = s + s; })()",
            "(function () { var a = []; while (true) a.push({payload: [1, 2, 3]}); })()",
            "(function () { var o = {}; for (var i = 0; ; i++) o['k' + i] = i; })()",
            "(function () { var n = {}, c = n; for (;;) { c.next = {}; c = c.next } })()",
            "new Array(1e9).join('x')",
        ]
        for bomb in bombs {
            let exception = try #require(thrown(context, bomb))
            #expect(exception.name == "RangeError", "\(bomb)")
            #expect(exception.message == "memory limit exceeded", "\(bomb): \(exception)")
            #expect(vm.memoryUsage <= vm.memoryLimit ?? 0)
            #expect(eval(context, "[1, 2, 3].join('-')").toString() == "1-2-3")
        }
        #expect(vm.peakMemoryUsage >= vm.memoryUsage)
        vm.memoryLimit = nil
        #expect(eval(context, "new Array(100000).join('x').length").toInt32() == 99_999)
    }

    @Test func garbageKeptInGlobalsMustBeReleasedByTheHost() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        vm.memoryLimit = vm.memoryUsage + 1 << 20
        #expect(thrown(context, "var keep = []; for (;;) keep.push('item ' + keep.length)")?.message == "memory limit exceeded")
        // The heap is still full of `keep`: the host clears it (no script needed) and collects.
        context.globalObject.setValue(nil, forProperty: "keep")
        vm.garbageCollect()
        #expect(eval(context, "typeof keep + ' ' + [1, 2].length").toString() == "undefined 2")
    }

    @Test func garbageCollectionFreesUnreachableObjects() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        vm.garbageCollect()
        let before = vm.memoryUsage
        eval(context, "var big = []; for (var i = 0; i < 20000; i++) big.push({i: i, s: 'item' + i}); big.length")
        let grown = vm.memoryUsage
        #expect(grown > before + 500_000)
        eval(context, "big = null")
        vm.garbageCollect()
        // Most of it is returned (tables the engine grew, like the string table, stay larger).
        #expect(vm.memoryUsage < before + (grown - before) / 4)
    }

    /// Closures that capture a megabyte each and are dropped at once: every function is in a
    /// cycle (with its prototype), so only a mark-and-sweep frees them, and Duktape's own
    /// trigger counts allocations, not bytes. The heap is collected as it grows instead: at the
    /// end of each call from Swift, and between the jobs of one drain.
    @Test func garbageInCyclesIsCollectedAsTheHeapGrows() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        eval(context, "var keep; function make() { var big = new Uint8Array(1 << 20); big[0] = 1; keep = function () { return big[0] } }")
        let make = try #require(context.objectForKeyedSubscript("make"))
        let start = vm.memoryUsage
        let bound = start + Int(CDUK_COLLECTION_HEADROOM) + (8 << 20)
        for _ in 0..<256 { make.call(withArguments: []) }
        #expect(vm.peakMemoryUsage < bound, "256 MiB made, \(vm.peakMemoryUsage - start) bytes held at most")
        eval(context, "var p = Promise.resolve(); for (var i = 0; i < 256; i++) p = p.then(make); 1")
        #expect(vm.peakMemoryUsage < bound, "256 MiB made in jobs, \(vm.peakMemoryUsage - start) bytes held at most")
        #expect(context.evaluateScript("keep()").toInt32() == 1)
    }

    /// The pacing after a peak: a large value that lived through a collection and is then
    /// released leaves no room for twice its size in garbage. And jobs of another realm (a
    /// second context of the VM) are paced as the default realm's are.
    @Test func aReleasedPeakAndOtherRealmsArePacedToo() throws {
        let vm = try #require(JSVirtualMachine())
        let first = try #require(JSContext(virtualMachine: vm))
        let second = try #require(JSContext(virtualMachine: vm))
        let source = "var keep; function make() { var big = new Uint8Array(1 << 20); big[0] = 1; keep = function () { return big[0] } }"
        eval(first, source)
        eval(second, source)
        let start = vm.memoryUsage
        eval(first, "var peak = new Uint8Array(128 << 20); for (var i = 0; i < 40; i++) make(); 1")  // collected with the peak alive
        eval(first, "peak = null; 1")
        let released = vm.memoryUsage
        let make = try #require(first.objectForKeyedSubscript("make"))
        for _ in 0..<256 { make.call(withArguments: []) }
        let bound = released + Int(CDUK_COLLECTION_HEADROOM) + (8 << 20)
        #expect(vm.memoryUsage < bound, "\(vm.memoryUsage - released) bytes over the heap after the peak")
        #expect(released < start + (48 << 20))
        let beforeJobs = vm.memoryUsage
        eval(second, "var p = Promise.resolve(); for (var i = 0; i < 256; i++) p = p.then(make); 1")
        #expect(vm.memoryUsage < beforeJobs + Int(CDUK_COLLECTION_HEADROOM) + (8 << 20), "after 256 MiB made in another realm's jobs")
    }

    @Test func pinnedValuesAreReleasedWithTheirJSValues() throws {
        let vm = try #require(JSVirtualMachine())
        let context = try #require(JSContext(virtualMachine: vm))
        let baseline = vm.pinnedValueCount
        do {
            var values: [JSValue] = []
            for index in 0..<1000 { values.append(JSValue(object: ["i": index], in: context)) }
            #expect(vm.pinnedValueCount == baseline + 1000)
        }
        #expect(vm.pinnedValueCount == baseline)
        // Primitives never take a slot.
        let numbers = (0..<100).map { JSValue(double: Double($0), in: context)! }
        #expect(vm.pinnedValueCount == baseline)
        #expect(numbers.count == 100)
    }

    @Test func contextsAndVirtualMachinesAreReleased() throws {
        weak var weakVM: JSVirtualMachine?
        weak var weakContext: JSContext?
        do {
            let context = try #require(JSContext())
            weakContext = context
            weakVM = context.virtualMachine
            context.evaluateScript("throw new Error('kept in context.exception')")
            #expect(context.exception != nil)
            _ = eval(context, "({a: [1, 2, 3]})").toObject()
        }
        #expect(weakContext == nil)
        #expect(weakVM == nil)
    }

    @Test func aValueKeepsItsContextAndVMAlive() throws {
        let value: JSValue = try {
            let context = try #require(JSContext())
            return eval(context, "({greeting: 'hi'})")
        }()
        #expect(value.forProperty("greeting").toString() == "hi")
        #expect(value.context.evaluateScript("1 + 1").toInt32() == 2)
    }

    @Test func commonAbuseNeverReachesTheFatalHandler() {
        // Every other test in this suite runs hostile scripts; none may reach the fatal handler
        // (which would abort the process). This checks the counter at the end of a batch here.
        let context = JSContext()!
        for script in ["throw null", "(function f() { f() })()", "1 +", "undefined.x", "new Array(-1)"] {
            context.evaluateScript(script)
        }
        #expect(fatalErrorCount == 0)
    }

    #if os(Linux) || os(macOS)
    @Test func theFatalHandlerReportsBeforeAborting() async {
        // An uncaught error outside any protected call is what a bug in this library would cause.
        // The process must say why it stops instead of aborting silently (Duktape's default).
        await #expect(processExitsWith: .signal(SIGABRT), observing: [\.standardErrorContent]) {
            let vm = JSVirtualMachine()!
            duk_push_int(vm.engine.heapContext, 42)
            duk_throw_raw(vm.engine.heapContext)
        }.map { result in
            let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(stderr.contains("DuktapeCore: fatal Duktape error"))
            #expect(stderr.contains("uncaught"))
        }
    }
    #endif
}
