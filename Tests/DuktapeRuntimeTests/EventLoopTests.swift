import DuktapeCore
import DuktapeRuntime
import Foundation
import Testing

/// The timer globals, with browsers' argument rules, on a manual clock.
@Suite("JSEventLoop: timers")
struct EventLoopTimerTests {
    let clock = ManualClock()
    let context = JSContext()!
    let loop: JSEventLoop

    init() {
        loop = JSEventLoop(context: context, clock: clock)
        context.evaluateScript("var log = []")
    }

    @Test func timersRunInDueOrderThenCreationOrderWithTheirArguments() throws {
        context.evaluateScript("""
            setTimeout(function () { log.push('b') }, 20);
            setTimeout(function (x, y) { log.push('a' + x + y) }, 10, 1, 2);
            setTimeout(function () { log.push('c') }, 20);
            setTimeout(function () { log.push('zero') });
            setTimeout(function () { log.push('negative') }, -5);
            setTimeout(function () { log.push('nan') }, NaN);
            setTimeout(function () { log.push('string delay') }, '15');
            setTimeout(function () { log.push('object delay') }, { valueOf: function () { return 12 } });
            """)
        #expect(context.log == "")
        try loop.advance(by: .milliseconds(5))
        #expect(context.log == "zero negative nan")
        try loop.advance(by: .milliseconds(20))
        #expect(context.log == "zero negative nan a12 object delay string delay b c")
    }

    @Test func callbacksGetExactlyTheExtraArgumentsPassed() throws {
        // Explicit undefined arguments count; missing ones do not (the globals read the extra
        // arguments only when the call has them).
        context.evaluateScript("""
            function report(label) { return function () { log.push(label + arguments.length) } }
            setTimeout(report('t'));
            setTimeout(report('t'), 0);
            setTimeout(report('t'), 0, undefined);
            var interval = setInterval(function (a, b) { log.push('i' + arguments.length + a + b); clearInterval(interval) }, 0, 'x', undefined);
            setImmediate(report('m'));
            setImmediate(report('m'), undefined);
            setImmediate(report('m'), 1, 2, 3);
            """)
        try loop.advance(by: .milliseconds(1))
        #expect(context.log == "t0 t0 t1 i2xundefined m0 m1 m3")
    }

    @Test func hostileDelaysAndIds() throws {
        let errors = ExceptionLog(context)
        // A delay whose ToNumber throws (a symbol, a throwing valueOf) throws to the script,
        // which schedules nothing; nothing reaches the exception handler.
        context.evaluateScript("""
            var thrown = [];
            function attempt(f) { try { f() } catch (e) { thrown.push(e.name) } }
            attempt(function () { setTimeout(function () { log.push('symbol') }, Symbol('d')) });
            attempt(function () { setTimeout(function () { log.push('throwing') }, { valueOf: function () { throw new RangeError('no') } }) });
            // A delay whose conversion schedules and clears a timer of its own.
            var inner = 0;
            setTimeout(function () { log.push('outer') }, { valueOf: function () {
                inner = setTimeout(function () { log.push('inner') }, 0); clearTimeout(inner); return 1 } });
            // A symbol names no timer; an object names the one its valueOf gives, in its own pool.
            var kept = setTimeout(function () { log.push('kept') }, 1);
            clearTimeout(Symbol('x')); clearImmediate({ valueOf: function () { return kept } });
            """)
        #expect(context.evaluateScript("thrown.join()").toString() == "TypeError,RangeError")
        #expect(context.evaluateScript("try { clearTimeout({ valueOf: function () { throw new URIError('id') } }) } catch (e) { e.name }")
            .toString() == "URIError")
        try loop.advance(by: .milliseconds(2))
        #expect(context.log == "outer kept")
        #expect(errors.all.isEmpty)
    }

    @Test func delaysAreConvertedAsWebIDLLongs() throws {
        // ToNumber, then modulo 2^32 into a signed 32-bit value; negative means 0.
        context.evaluateScript("""
            setTimeout(function () { log.push('wrapped') }, 4294967296 + 7);
            setTimeout(function () { log.push('negative after wrap') }, 2147483648);
            setTimeout(function () { log.push('infinity') }, Infinity);
            setTimeout(function () { log.push('fraction') }, 3.9);
            """)
        try loop.advance(by: .milliseconds(2))
        #expect(context.log == "negative after wrap infinity")
        try loop.advance(by: .milliseconds(1))
        #expect(context.log == "negative after wrap infinity fraction")
        try loop.advance(by: .milliseconds(4))
        #expect(context.log == "negative after wrap infinity fraction wrapped")
    }

    @Test func idsAreNeverReusedAndClearingUnknownIdsDoesNothing() throws {
        context.evaluateScript("""
            var a = setTimeout(function () { log.push('a') }, 10), b = setTimeout(function () { log.push('b') }, 10);
            clearTimeout(a); clearTimeout(12345); clearTimeout('x'); clearTimeout(); clearTimeout(null);
            clearTimeout({}); clearTimeout(-1); clearInterval(NaN); clearImmediate(undefined);
            var ids = [a, b];
            """)
        try loop.advance(by: .milliseconds(10))
        #expect(context.log == "b")
        context.evaluateScript("""
            clearTimeout(b);  // already ran
            for (var k = 0; k < 50; k++) ids.push(setTimeout(function () {}, 1), setImmediate(function () {}), setInterval(function () {}, 5));
            """)
        #expect(context.evaluateScript("ids.every(function (id, i) { return id === (id | 0) && id > 0 && (i === 0 || id > ids[i - 1]) })").toBool())
        // A numeric string names the same handle (WebIDL `long`), as in browsers.
        context.evaluateScript("var c = setTimeout(function () { log.push('c') }, 1); clearTimeout(String(c))")
        try loop.advance(by: .milliseconds(2))
        #expect(context.log == "b")
    }

    @Test func callbacksThatAreNotFunctionsAreTypeErrors() {
        for call in [
            "setTimeout('log.push(1)', 0)", "setInterval('log.push(1)', 0)", "setImmediate('log.push(1)')",
            "queueMicrotask('log.push(1)')", "setTimeout()", "setTimeout(null, 1)", "setImmediate({})",
            "queueMicrotask(42)",
        ] {
            let result = context.evaluateScript("try { \(call); 'no error' } catch (e) { e instanceof TypeError ? 'TypeError' : String(e) }")
            #expect(result?.toString() == "TypeError", "\(call)")
        }
        #expect(context.evaluateScript("try { setTimeout('x') } catch (e) { e.message }").toString().contains("strings are not evaluated"))
        try? loop.advance(by: .milliseconds(10))
        #expect(context.log == "")
        #expect(!loop.hasPendingWork)
    }

    @Test func intervalsKeepTheirGridWithoutDriftAndSkipMissedRuns() throws {
        context.evaluateScript("var n = 0; var i = setInterval(function (tag) { log.push(tag + n++) }, 10, 't')")
        try loop.advance(by: .milliseconds(35))
        #expect(context.log == "t0 t1 t2")
        // 100 ms behind schedule: one run now, then back on the 10 ms grid (at 140, not 145).
        clock.advance(by: .milliseconds(100))
        try loop.runReady()
        #expect(context.log == "t0 t1 t2 t3")
        try loop.advance(by: .milliseconds(4))
        #expect(context.log == "t0 t1 t2 t3")
        try loop.advance(by: .milliseconds(1))
        #expect(context.log == "t0 t1 t2 t3 t4")
        context.evaluateScript("clearInterval(i)")
        #expect(!loop.hasPendingWork)
    }

    @Test func aZeroIntervalRunsOncePerTurn() throws {
        context.evaluateScript("var turns = 0; var i = setInterval(function () { if (++turns === 5) clearInterval(i) }, 0)")
        try loop.runReady()
        // runReady turns until nothing is ready: the interval is due again at every turn.
        #expect(context.evaluateScript("turns").toInt32() == 5)
        context.evaluateScript("turns = 0; var j = setInterval(function () { turns++ }, 0)")
        var rounds = 0
        try loop.run(while: { rounds += 1; return rounds <= 3 })
        #expect(context.evaluateScript("turns").toInt32() == 3)
        context.evaluateScript("clearInterval(j)")
    }

    @Test func timersMadeDuringATurnWaitForTheNext() throws {
        // A zero-delay timer chain cannot starve the other phases.
        context.evaluateScript("""
            function chain(n) { log.push('t' + n); if (n < 3) setTimeout(chain, 0, n + 1) }
            setTimeout(chain, 0, 0);
            setImmediate(function () { log.push('i') });
            """)
        try loop.runReady()
        #expect(context.log == "t0 i t1 t2 t3")
    }

    @Test func clearingATimerFromAnEarlierCallbackOfTheSameTurn() throws {
        context.evaluateScript("""
            var second;
            setTimeout(function () { log.push('first'); clearTimeout(second) }, 5);
            second = setTimeout(function () { log.push('second') }, 5);
            var self = setInterval(function () { log.push('self'); clearInterval(self) }, 5);
            """)
        try loop.advance(by: .milliseconds(20))
        #expect(context.log == "first self")
        #expect(!loop.hasPendingWork)
    }

    @Test func virtualTimeRunsLongTimersAtOnceInOrder() throws {
        context.evaluateScript("""
            setTimeout(function () { log.push('hour') }, 3600000);
            setTimeout(function () { log.push('minute') }, 60000);
            """)
        try loop.run()
        #expect(context.log == "minute hour")
        #expect(clock.now == .seconds(3600))
    }

    @Test func manyTimersAtDistinctTimes() throws {
        // 20,000 timers in reverse due order: the heap runs them in order, in O(n log n).
        context.evaluateScript("""
            var order = [];
            for (var k = 20000; k > 0; k--) setTimeout(function (k) { order.push(k) }, k, k);
            """)
        try loop.run()
        #expect(context.evaluateScript("order.length === 20000 && order.every(function (v, i) { return v === i + 1 })").toBool())
    }

    @Test func advanceNeedsAManualClock() {
        let other = JSContext()!
        let realTime = JSEventLoop(context: other)
        #expect(throws: JSEventLoopError.noManualClock) { try realTime.advance(by: .seconds(1)) }
    }
}

/// The order of callbacks: Node's phases (timers, then I/O (posted work), then immediates) with
/// microtasks after every callback, as Node 11+ and HTML both drain them.
@Suite("JSEventLoop: ordering")
struct EventLoopOrderingTests {
    let clock = ManualClock()
    let context = JSContext()!
    let loop: JSEventLoop

    init() {
        loop = JSEventLoop(context: context, clock: clock)
        context.evaluateScript("var log = []; function note(s) { return function () { log.push(s) } }")
    }

    @Test func scriptThenMicrotasksThenTimersThenImmediates() throws {
        // HTML: the script is a task; its microtasks (queueMicrotask and promise reactions, one
        // FIFO) run when it ends; then timer tasks. Node: the same, with immediates in the check
        // phase after the timers phase (with a 0 ms timer already due, as on our clock).
        context.evaluateScript("""
            setImmediate(note('immediate'));
            setTimeout(note('timeout'), 0);
            queueMicrotask(note('microtask 1'));
            Promise.resolve().then(note('promise'));
            queueMicrotask(note('microtask 2'));
            log.push('script');
            """)
        #expect(context.log == "script microtask 1 promise microtask 2")
        try loop.runReady()
        #expect(context.log == "script microtask 1 promise microtask 2 timeout immediate")
    }

    @Test func microtasksRunBetweenTimersAndBetweenImmediates() throws {
        // Node >= 11 and HTML: the microtask queue is drained after each callback.
        context.evaluateScript("""
            setTimeout(function () { log.push('t1'); Promise.resolve().then(note('p1')); queueMicrotask(note('m1')) }, 0);
            setTimeout(function () { log.push('t2'); Promise.resolve().then(note('p2')) }, 0);
            setImmediate(function () { log.push('i1'); Promise.resolve().then(note('p3')) });
            setImmediate(note('i2'));
            """)
        try loop.runReady()
        #expect(context.log == "t1 p1 m1 t2 p2 i1 p3 i2")
    }

    @Test func immediatesQueuedDuringTheCheckPhaseRunNextTurn() throws {
        // Node: an immediate queued by an immediate runs in the next loop iteration, after that
        // iteration's due timers. (Node gives a 0 ms timer 1 ms, so it may or may not be due
        // then; on this loop's manual clock it is.)
        context.evaluateScript("""
            setImmediate(function () { log.push('i1'); setImmediate(note('i3')); setTimeout(note('t'), 0) });
            setImmediate(note('i2'));
            """)
        try loop.runReady()
        #expect(context.log == "i1 i2 t i3")
    }

    @Test func postedWorkRunsBetweenTimersAndImmediates() throws {
        context.evaluateScript("setImmediate(note('immediate')); setTimeout(note('timeout'), 0)")
        loop.post { context in context.objectForKeyedSubscript("log").invokeMethod("push", withArguments: ["posted"]) }
        try loop.runReady()
        #expect(context.log == "timeout posted immediate")
    }

    @Test func promisesSettledByTimersRunTheirReactionsInThatTurn() throws {
        context.evaluateScript("""
            function delay(ms, v) { return new Promise(function (resolve) { setTimeout(resolve, ms, v) }) }
            delay(10, 'a').then(function (v) { log.push(v); return delay(5, v + 'b') }).then(function (v) { log.push(v) });
            setTimeout(note('t12'), 12);
            """)
        try loop.run()
        #expect(context.log == "a t12 ab")
        #expect(clock.now == .milliseconds(15))
    }
}
