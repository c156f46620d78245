import DuktapeCore
import DuktapeRuntime
import Foundation
import Testing

/// The loop's first slice: timers on a manual clock, immediates, microtasks, posted work.
@Suite("EventLoop (first slice)")
struct EventLoopTests {
    let clock = ManualClock()
    let context = JSContext()!
    let loop: EventLoop

    init() {
        loop = EventLoop(context: context, clock: clock)
        context.evaluateScript("var log = []")
    }

    private var log: String { context.evaluateScript("log.join(' ')").toString() }

    @Test func timersRunInDueOrderThenCreationOrder() {
        context.evaluateScript("""
            setTimeout(function () { log.push('b') }, 20);
            setTimeout(function (x, y) { log.push('a' + x + y) }, 10, 1, 2);
            setTimeout(function () { log.push('c') }, 20);
            setTimeout(function () { log.push('zero') });
            setTimeout(function () { log.push('negative') }, -5);
            setTimeout(function () { log.push('nan') }, NaN);
            """)
        #expect(log == "")
        loop.advance(by: .milliseconds(5))
        #expect(log == "zero negative nan")
        loop.advance(by: .milliseconds(20))
        #expect(log == "zero negative nan a12 b c")
    }

    @Test func clearingAndIds() {
        context.evaluateScript("""
            var a = setTimeout(function () { log.push('a') }, 10), b = setTimeout(function () { log.push('b') }, 10);
            clearTimeout(a); clearTimeout(12345); clearTimeout('x'); clearTimeout();
            var ids = [a, b, setTimeout(function () {}, 1)];
            """)
        loop.advance(by: .milliseconds(10))
        #expect(log == "b")
        #expect(context.evaluateScript("ids[0] < ids[1] && ids[1] < ids[2]").toBool())
    }

    @Test func intervalsDoNotDriftOrBunch() {
        context.evaluateScript("var n = 0; var i = setInterval(function () { log.push(n++) }, 10)")
        loop.advance(by: .milliseconds(35))
        #expect(log == "0 1 2")
        // Behind schedule by a long stretch: one run, then back on its 10 ms grid.
        context.evaluateScript("clearInterval(i); log = []; var j = setInterval(function () { log.push('t') }, 10)")
        clock.advance(by: .milliseconds(100))
        loop.runReady()
        #expect(log == "t")
    }

    @Test func immediatesMicrotasksAndTimers() {
        // Microtasks run after each macrotask; immediates after the timers due in that turn.
        context.evaluateScript("""
            setTimeout(function () { log.push('timeout'); Promise.resolve().then(function () { log.push('job after timeout') }) }, 0);
            setImmediate(function (x) { log.push('immediate ' + x) }, 'arg');
            queueMicrotask(function () { log.push('microtask') });
            log.push('sync');
            """)
        #expect(log == "sync microtask")
        loop.advance(by: .zero)
        #expect(log == "sync microtask immediate arg timeout job after timeout")
    }

    @Test func stringCallbacksAreRefused() {
        context.exceptionHandler = { context, exception in context?.exception = exception }
        context.evaluateScript("setTimeout('log.push(1)', 0)")
        #expect(context.exception != nil)
        loop.advance(by: .milliseconds(1))
        #expect(log == "")
    }

    @Test func postedWorkRunsOnTheLoop() async {
        let loop = self.loop
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask { loop.post { context in context.evaluateScript("log.push(\(index))") } }
            }
        }
        loop.runReady()
        #expect(context.evaluateScript("log.length").toInt32() == 8)
    }
}
