import DuktapeCore
import DuktapeRuntime
import Foundation
import Testing

/// Issue 32's attacks on the runtime's globals.
@Suite("Hostile runtime scripts", .serialized, .timeLimit(.minutes(5)))
struct HostileRuntimeTests {
    /// Class 7: running out of memory inside a native global (a timer or an immediate that
    /// cannot be queued) reaches the script's `catch` as a RangeError, and the host's exception
    /// handler as the memory-limit error, never as `undefined`.
    @Test(arguments: [
        "for (;;) setTimeout(function () {}, 1e9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)",
        "for (;;) setInterval(function () {}, 1e9, 'x')",
        "for (;;) setImmediate(function () {}, 1, 2)",
        "var list = []; for (;;) list.push(setTimeout(function () {}, 1e9))",
    ])
    func outOfMemoryInANativeGlobalIsARangeError(script: String) throws {
        let vm = JSVirtualMachine()!
        vm.memoryLimit = 8 << 20
        let context = JSContext(virtualMachine: vm)!
        let loop = EventLoop(context: context)
        let reported = LockedList()
        context.exceptionHandler = { _, exception in
            reported.append((exception?.isUndefined ?? true) ? "undefined" : (exception?.forProperty("name")?.toString() ?? "?") + ": " + (exception?.forProperty("message")?.toString() ?? "?"))
        }
        // What the script's own catch saw is kept in a preallocated slot, read afterwards.
        context.evaluateScript("var seen = [undefined, undefined]; seen.length = 2")
        context.evaluateScript("try { \(script) } catch (e) { seen[0] = e; seen[1] = (e instanceof RangeError) }")
        // The loops fail at once (scripts that reach the limit over many turns, by immediates
        // that double, run through dukjs in DukjsMemoryLimitTests).
        try? loop.run(until: Date().addingTimeInterval(1))
        loop.stop()
        let seen = context.objectForKeyedSubscript("seen")
        let caught = seen?.atIndex(0)
        if let caught, !caught.isUndefined {
            #expect(caught.forProperty("message")?.toString() == "memory limit exceeded", "\(script)")
            #expect(seen?.atIndex(1)?.toBool() == true, "\(script)")
        }
        #expect(!reported.values.contains("undefined"), "\(script): \(reported.values.prefix(3))")
        #expect(caught?.isUndefined == false || !reported.values.isEmpty, "\(script): nothing reported")
    }

    /// What timers and immediates charge is given back when they go (cleared, run, or dropped
    /// with the loop): a script can fill the limit with timers, clear them, and fill it again.
    @Test func chargesAreGivenBackWhenTimersGo() throws {
        let vm = JSVirtualMachine()!
        vm.memoryLimit = 8 << 20
        let context = JSContext(virtualMachine: vm)!
        let loop = EventLoop(context: context)
        let fill = """
            (function () {
                var ids = [], n = 0;
                ids.length = 100000;
                try { for (;;) { ids[n] = setTimeout(function () {}, 1e9, 1, 2); n++ } } catch (e) {}
                for (var i = 0; i < n; i++) clearTimeout(ids[i]);
                return n
            })()
            """
        // Collected before each fill: the callbacks of the last are garbage in cycles (each
        // function with its prototype), which only a mark-and-sweep frees.
        vm.garbageCollect()
        let first = context.evaluateScript(fill)?.toInt32() ?? 0
        vm.garbageCollect()
        let second = context.evaluateScript(fill)?.toInt32() ?? 0
        #expect(first > 1000)
        #expect(abs(Int(second) - Int(first)) <= first / 10, "\(first) then \(second)")
        // Immediates that ran gave theirs back too.
        context.evaluateScript("for (var i = 0; i < 5000; i++) setImmediate(function () {}, i)")
        try loop.run(until: Date().addingTimeInterval(20))
        #expect(!loop.hasPendingWork)
        vm.garbageCollect()
        let third = context.evaluateScript(fill)?.toInt32() ?? 0
        #expect(abs(Int(third) - Int(first)) <= first / 10, "\(first) then \(third)")
        loop.stop()
    }
}

/// Strings appended from callbacks.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ string: String) { lock.withLock { list.append(string) } }
    var values: [String] { lock.withLock { list } }
}
