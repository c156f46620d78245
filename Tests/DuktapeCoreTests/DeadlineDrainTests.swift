import Foundation
import Testing

@testable import DuktapeCore

/// Issue 32, class 1: once a script is stopped by the time limit, the queue of promise jobs that
/// its entry drains must stop too, however the engine noticed the deadline (the interrupt, a
/// refused allocation, or the native stack check, which fails every protected call after it),
/// and whatever keeps the queue going (jobs queued before the timeout, jobs that queue jobs,
/// a rejection handler that makes new rejections). Each script runs on a thread of its own, so
/// that a regression fails here instead of hanging the run; the VM stays usable afterwards.
@Suite("Deadline-bounded draining", .serialized)
struct DeadlineDrainTests {
    /// What keeps the engine busy past the deadline: bytecode, a backtracking regexp (native,
    /// seen only by the native stack check), a native built-in that allocates as it goes.
    static let stallers = [
        "for (;;) { Math.abs(1) }",
        "/(a+)+b/.test('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')",
        "var a = []; a.length = 4294967295; a.join('')",
    ]

    /// What is queued before the stall.
    static let queues = [
        "Promise.resolve().then(function () {});",
        "queueMicrotaskLike(function () {});",
        "function again() { Promise.resolve().then(again) } again();",
        "Promise.reject(new Error('nobody handles this'));",
        "for (var i = 0; i < 1000; i++) Promise.resolve(i).then(function (v) { return v + 1 });",
    ]

    static func limitedContext(_ limit: TimeInterval = 0.1) -> JSContext {
        let vm = JSVirtualMachine()!
        vm.executionTimeLimit = limit
        return prepared(JSContext(virtualMachine: vm)!)
    }

    static func prepared(_ context: JSContext) -> JSContext {
        context.evaluateScript("function queueMicrotaskLike(f) { Promise.resolve().then(f) }")
        return context
    }

    /// Runs `script` (expected to time out) in `context` within `margin` seconds, then checks
    /// that the VM is usable and its queue runs again.
    private func endsInTime(
        _ script: String, in context: JSContext, margin: Double = 20, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let outcome = ExceptionBox()
        let returned = finishes(within: margin) {
            do {
                _ = try context.evaluate(script)
            } catch {
                outcome.set(error)
            }
        }
        #expect(returned, "did not end within \(margin) s: \(script)", sourceLocation: sourceLocation)
        guard returned else { return }
        #expect(outcome.exception?.message == "execution timeout", sourceLocation: sourceLocation)
        // The checks that the VM is usable get more time than 0.1 s: on a loaded machine (the
        // sanitized runs) any entry can take that long.
        context.virtualMachine.executionTimeLimit = 30
        #expect(context.evaluateScript("[1, 2, 3].join()").toString() == "1,2,3", sourceLocation: sourceLocation)
        // Jobs queued by a later entry run as usual.
        context.evaluateScript("var later = 0; Promise.resolve(5).then(function (v) { later = v })")
        #expect(context.evaluateScript("later").toInt32() == 5, sourceLocation: sourceLocation)
        #expect(fatalErrorCount == 0, sourceLocation: sourceLocation)
    }

    @Test(arguments: stallers, queues)
    func aStallAfterQueuedJobsEndsTheEntry(staller: String, queue: String) {
        endsInTime(queue + staller, in: Self.limitedContext())
    }

    /// A job that stalls times out after the script's own code returned: the call succeeds, and
    /// the timeout goes to the exception handler, once.
    @Test(arguments: stallers)
    func aStallInsideAJobEndsTheEntry(staller: String) {
        let context = Self.limitedContext()
        let reported = LockedStrings()
        context.exceptionHandler = { _, exception in reported.append(exception?.toString() ?? "nil") }
        let returned = finishes(within: 20) {
            context.evaluateScript(
                "Promise.resolve().then(function () { \(staller) }); function again() { Promise.resolve().then(again) } again();")
        }
        #expect(returned)
        #expect(reported.values == ["RangeError: execution timeout"])
        #expect(context.evaluateScript("[1, 2, 3].join()").toString() == "1,2,3")
    }

    @Test(arguments: stallers)
    func aSandboxedContextEndsTheEntry(staller: String) {
        let context = Self.prepared(JSContext(sandbox: JSSandbox(memoryLimit: 16 << 20, executionTimeLimit: 0.1))!)
        endsInTime("Promise.resolve().then(function () {}); " + staller, in: context)
    }

    /// A rejection handler that makes a new unhandled rejection every time it is called: without
    /// a time limit that runs forever (as in Node); with one, it stops at the deadline.
    @Test func aRejectionHandlerThatRejectsAgainStopsAtTheDeadline() {
        let context = Self.limitedContext()
        let calls = Counter()
        context.unhandledRejectionHandler = { context, _ in
            calls.increment()
            context.evaluateScript("Promise.reject(new Error('again'))")
        }
        let returned = finishes(within: 20) {
            context.evaluateScript("Promise.reject(new Error('first'))")
        }
        #expect(returned)
        #expect(calls.value > 1)
        #expect(context.evaluateScript("1 + 1").toInt32() == 2)
    }

    /// The same from JavaScript: the handler is a script function.
    @Test func aScriptRejectionHandlerThatRejectsAgainStopsAtTheDeadline() {
        let context = Self.limitedContext()
        let handler = context.evaluateScript("(function (p, r) { Promise.reject(r) })")!
        context.unhandledRejectionHandler = { _, rejection in
            handler.call(withArguments: [rejection.promise, rejection.reason])
        }
        // The handler holds a value of its context: cleared at the end, or the two keep each other.
        defer { context.unhandledRejectionHandler = nil }
        let returned = finishes(within: 20) {
            context.evaluateScript("Promise.reject(new Error('first'))")
        }
        #expect(returned)
        #expect(context.evaluateScript("2 + 2").toInt32() == 4)
    }

    /// Explicit draining (`drainMicrotasks`) is bounded the same way.
    @Test(arguments: stallers)
    func explicitDrainingIsBounded(staller: String) {
        let context = Self.limitedContext()
        context.virtualMachine.drainsMicrotasksAutomatically = false
        context.evaluateScript("Promise.resolve().then(function () { \(staller) }); Promise.resolve().then(function () {});")
        let returned = finishes(within: 20) { _ = context.virtualMachine.drainMicrotasks() }
        #expect(returned)
        context.virtualMachine.drainsMicrotasksAutomatically = true
        #expect(context.evaluateScript("3 + 3").toInt32() == 6)
    }
}

/// A thread-safe count.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
