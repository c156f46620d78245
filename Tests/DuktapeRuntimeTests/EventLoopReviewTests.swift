import DuktapeCore
@testable import DuktapeRuntime
import Foundation
import Testing

/// Classes of problems an outside review of the loop raised: bounded host memory under hostile
/// scheduling, id exhaustion, shutdown paths that must end every wait.
@Suite("JSEventLoop: review cases")
struct EventLoopReviewTests {
    @Test func immediatesThatQueueImmediatesKeepTheQueueBounded() throws {
        let context = JSContext()!
        let loop = JSEventLoop(context: context, clock: ManualClock())
        context.evaluateScript("""
            var runs = 0;
            function a() { if (++runs < 20000) setImmediate(a) }
            function b() { if (runs < 20000) setImmediate(b) }
            setImmediate(a); setImmediate(b);
            """)
        var largest = 0
        try loop.run(while: {
            largest = max(largest, loop.immediates.storedCount)
            return true
        })
        #expect(context.evaluateScript("runs").toInt32() == 20000)
        #expect(largest < 4096)
    }

    @Test func clearedFarTimersDoNotAccumulate() throws {
        let context = JSContext()!
        let loop = JSEventLoop(context: context, clock: ManualClock())
        context.evaluateScript("for (var i = 0; i < 50000; i++) clearTimeout(setTimeout(function () {}, 2147483647))")
        #expect(loop.state.withLock { $0.timers.nodeCount } < 1000)
        #expect(!loop.hasPendingWork)
    }

    @Test func idsWrapAfterTheLargestLongSkippingIdsInUse() throws {
        let context = JSContext()!
        let loop = JSEventLoop(context: context, clock: ManualClock())
        context.evaluateScript("var log = []; var first = setTimeout(function () { log.push('first') }, 10)")  // id 1, still pending
        loop.immediates.nextID = JSEventLoop.largestID - 1
        context.evaluateScript("""
            var ids = [setTimeout(function () { log.push('a') }, 5), setImmediate(function () { log.push('b') }),
                       setTimeout(function () { log.push('c') }, 5), setTimeout(function () { log.push('d') }, 5)];
            clearTimeout(ids[3]);
            """)
        // 2^31 - 2, 2^31 - 1, then 1 is in use (first): 2, 3.
        #expect(context.evaluateScript("ids.join()").toString() == "\(JSEventLoop.largestID - 1),\(JSEventLoop.largestID),2,3")
        try loop.run()
        #expect(context.log == "b a c first")
    }

    @Test func evaluateFailsWhenTheLoopStopsBeforeThePromiseSettles() async throws {
        let context = JSContext()!
        let loop = JSEventLoop(context: context)
        try loop.start()
        let pending = Task { try await loop.evaluate("new Promise(function (resolve) { setTimeout(resolve, 1e9) })") }
        // The evaluation has run once its timer exists.
        let deadline = ContinuousClock.now + .seconds(10)
        while loop.state.withLock({ $0.timers.isEmpty }) && ContinuousClock.now < deadline { await Task.yield() }
        loop.stop()
        await #expect(throws: JSEventLoopError.stopped) { _ = try await pending.value }
    }

    @Test func waitingForTheStopCanBeCancelled() async {
        let loop = JSEventLoop(context: JSContext()!)
        let waiter = Task { await loop.waitUntilStopped() }
        waiter.cancel()
        await waiter.value
        #expect(!loop.isStopped)
    }

    @Test func workPostedBeforeAStopInTheSameBatchFails() async throws {
        let context = JSContext()!
        let loop = JSEventLoop(context: context)
        let ran = LiveCounter()
        loop.post { _ in loop.stop() }
        let second = Task { try await loop.submit { _ in ran.increment() } }
        let deadline = ContinuousClock.now + .seconds(10)
        while loop.state.withLock({ $0.posted.count }) < 2 && ContinuousClock.now < deadline { await Task.yield() }
        try loop.runReady()
        await #expect(throws: JSEventLoopError.stopped) { try await second.value }
        #expect(ran.value == 0)
    }

    @Test func stopInsideACallbackDoesNotWaitForTheLoopThread() async throws {
        // The caller holds the VM's lock; the loop's thread may be waiting for it (a timer due
        // now): stop() must not wait for that thread.
        let context = JSContext()!
        let loop = JSEventLoop(context: context)
        context.setObject(JSValue(newFunctionIn: context) { () in loop.stop() }, forKeyedSubscript: "stopLoop" as NSString)
        try loop.start()
        context.evaluateScript("setInterval(function () {}, 0); var spin = Date.now() + 20; while (Date.now() < spin) {} stopLoop()")
        await loop.waitUntilStopped()
        #expect(loop.isStopped)
    }

    @Test func aScriptDeletingTheGlobalsDoesNotStopTheLoop() async throws {
        let context = JSContext()!
        let loop = JSEventLoop(context: context)
        try loop.start()
        defer { loop.stop() }
        context.evaluateScript("""
            delete globalThis.setTimeout; delete globalThis.clearTimeout; delete globalThis.setInterval;
            delete globalThis.clearInterval; delete globalThis.setImmediate; delete globalThis.clearImmediate;
            delete globalThis.queueMicrotask;
            """)
        context.virtualMachine.garbageCollect()
        #expect(try await loop.submit { context in context.evaluateScript("typeof setTimeout").toString() } == "undefined")
        #expect(!loop.isStopped)
    }
}
