import DuktapeCore
import DuktapeRuntime
import Foundation
import Testing

/// Issue 32's attacks on the runtime's globals.
@Suite("Hostile runtime scripts", .serialized, .timeLimit(.minutes(5)))
struct HostileRuntimeTests {
    /// Class 7: running out of memory inside a native global (a timer or an immediate that
    /// cannot be queued), or inside the engine itself (an array, a string or an object that
    /// cannot grow, even when the engine cannot make its own error), reaches the script's `catch`
    /// as a RangeError, and the host's exception handler as the memory-limit error, never as
    /// `undefined` or Duktape's "error in error handling".
    @Test(arguments: sanitized ? [4 << 20] : [4 << 20, 8 << 20], [
        "for (;;) setTimeout(function () {}, 1e9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)",
        "for (;;) setInterval(function () {}, 1e9, 'x')",
        "for (;;) setImmediate(function () {}, 1, 2)",
        "var list = []; for (;;) list.push(setTimeout(function () {}, 1e9))",
        "var list = []; for (;;) list.push(setImmediate(function () {}))",
        "var list = []; for (;;) list.push({ a: 1 })",
        "var o = {}, i = 0; for (;;) o['k' + i++] = i",
        "var s = 'x'; for (;;) s += s",
        "var list = []; for (;;) list.push(new Uint8Array(4096))",
    ])
    func outOfMemoryIsARangeError(limit: Int, script: String) async {
        await onAThreadOfItsOwn { check in
            let (vm, context, reported) = Self.limitedContext(limit)
            let loop = JSEventLoop(context: context)
            // What the script's own catch saw is kept in a preallocated slot (the catch cannot
            // count on more memory: what filled the heap is still held there), read afterwards.
            context.evaluateScript("var seen = [undefined]; seen.length = 1")
            context.evaluateScript("try { \(script) } catch (e) { seen[0] = e }")
            // The loops fail at once, in this one call (scripts that reach the limit over many
            // turns, by immediates that double, run through dukjs in DukjsMemoryLimitTests); what
            // they queued is dropped with the loop.
            loop.stop()
            // Let go of what filled the heap without compiling anything (a full heap may have no
            // room for that).
            for name in ["list", "o", "s"] { context.setObject(JSValue(undefinedIn: context), forKeyedSubscript: name) }
            vm.garbageCollect()
            let caught = context.evaluateScript("seen[0]")
            if let caught, !caught.isUndefined {
                check(caught.forProperty("message")?.toString() == "memory limit exceeded", "\(script)")
                check(context.evaluateScript("seen[0] instanceof RangeError")?.toBool() == true, "\(script)")
            }
            check(reported.values.allSatisfy { $0 == "RangeError: memory limit exceeded" }, "\(script): \(reported.values.prefix(3))")
            check(caught?.isUndefined == false || !reported.values.isEmpty, "\(script): nothing reported")
            // The realm still works.
            check(context.evaluateScript("[1, 2, 3].map(function (x) { return x * 2 }).join()")?.toString() == "2,4,6")
        }
    }

    /// Only errors made while the heap refuses memory become the limit's error: the calls after
    /// an out-of-memory get their own (a TypeError is a TypeError). And a script that changes
    /// the limit error it caught changes nothing for the next failure (it is one frozen object).
    @Test func theCallsAfterOutOfMemoryGetTheirOwnErrors() async {
        await onAThreadOfItsOwn { check in
            let (_, context, reported) = Self.limitedContext(4 << 20)
            let fill = context.evaluateScript("""
                (function () {
                    var list = [];
                    try { for (;;) list.push({}) }
                    catch (e) { list = undefined; e.message = 'changed'; e.extra = 1; delete e.message; throw e }
                })
                """)
            let fails = context.evaluateScript("(function () { return null.x })")
            for _ in 0..<3 {
                fill?.call(withArguments: [])
                fails?.call(withArguments: [])
            }
            check(reported.values.count == 6)
            for (index, text) in reported.values.enumerated() {
                check(text.hasPrefix(index % 2 == 0 ? "RangeError: memory limit exceeded" : "TypeError: "), "\(reported.values)")
            }
            context.setObject(fill, forKeyedSubscript: "fill")
            check(context.evaluateScript("var caught; try { fill() } catch (e) { caught = e }; [caught.message, caught.extra].join()")?.toString() == "memory limit exceeded,")
        }
    }

    /// A context of a VM with `limit`, and what its exception handler saw ("Name: message", or
    /// "undefined").
    static func limitedContext(_ limit: Int) -> (JSVirtualMachine, JSContext, LockedList) {
        let vm = JSVirtualMachine()!
        vm.memoryLimit = limit
        let context = JSContext(virtualMachine: vm)!
        let reported = LockedList()
        context.exceptionHandler = { _, exception in
            guard let exception, !exception.isUndefined else { return reported.append("undefined") }
            reported.append((exception.forProperty("name")?.toString() ?? "?") + ": " + (exception.forProperty("message")?.toString() ?? "?"))
        }
        return (vm, context, reported)
    }

    /// What timers and immediates charge is given back when they go (cleared, run, or dropped
    /// with the loop): a script can fill the limit with timers, clear them, and fill it again.
    @Test func chargesAreGivenBackWhenTimersGo() async {
        await onAThreadOfItsOwn { check in
            let (vm, context, _) = Self.limitedContext(8 << 20)
            let loop = JSEventLoop(context: context)
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
            check(first > 1000)
            check(abs(Int(second) - Int(first)) <= first / 10, "\(first) then \(second)")
            // Immediates that ran gave theirs back too.
            context.evaluateScript("for (var i = 0; i < 5000; i++) setImmediate(function () {}, i)")
            try? loop.run(until: Date().addingTimeInterval(20))
            check(!loop.hasPendingWork)
            vm.garbageCollect()
            let third = context.evaluateScript(fill)?.toInt32() ?? 0
            check(abs(Int(third) - Int(first)) <= first / 10, "\(first) then \(third)")
            loop.stop()
        }
    }
}

/// True in the suite's sanitized runs (`make test-sanitize` sets these for the test process),
/// where filling a heap costs ten times as much: the limits that show nothing new are left out.
let sanitized: Bool = {
    let environment = ProcessInfo.processInfo.environment
    return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
}()

/// Runs `body` on a thread of its own, not on one of Swift concurrency's (under a sanitizer a
/// heap filled to its limit takes this suite minutes of CPU, which the web host's tasks need),
/// then records what its checks found.
func onAThreadOfItsOwn(_ body: @escaping @Sendable (_ check: Checks) -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
    let checks = Checks()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let thread = Thread {
            body(checks)
            continuation.resume()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    let failures = checks.failures
    #expect(failures.isEmpty, Comment(rawValue: failures.joined(separator: "\n")), sourceLocation: sourceLocation)
}

/// Expectations checked off Swift Testing's tasks, recorded when the body is done.
final class Checks: @unchecked Sendable {
    private let lock = NSLock()
    private var found: [String] = []
    var failures: [String] { lock.withLock { found } }

    func callAsFunction(_ condition: Bool, _ comment: @autoclosure () -> String = "", line: Int = #line) {
        if !condition { let text = "line \(line): " + comment(); lock.withLock { found.append(text) } }
    }
}

/// Strings appended from callbacks.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ string: String) { lock.withLock { list.append(string) } }
    var values: [String] { lock.withLock { list } }
}
