import Foundation
import Testing

@testable import DuktapeCore

/// Runs `script` (which pushes to a global `log` array, declared here) and returns the log once
/// the call has returned, so after its jobs ran: `log.join(' ')`.
private func logAfter(_ script: String, in context: JSContext = JSContext()!, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    eval(context, "var log = [];", sourceLocation: sourceLocation)
    eval(context, script, sourceLocation: sourceLocation)
    return eval(context, "log.join(' ')", sourceLocation: sourceLocation).toString()
}

/// Promises/A+ 1.1, clause by clause (https://promisesaplus.com), each written as the clause
/// reads. Every expected log below is derived from the clause, not from running it.
@Suite("Promises/A+")
struct PromisesAPlusTests {
    // 2.1 Promise states

    @Test func clause2_1_1_pendingMayBecomeFulfilledOrRejected() {
        #expect(logAfter("""
            var f, r;
            var a = new Promise(function (res) { f = res }), b = new Promise(function (_, rej) { r = rej });
            a.then(function (v) { log.push('a:' + v) }); b.then(null, function (e) { log.push('b:' + e) });
            log.push('pending'); f(1); r(2);
            """) == "pending a:1 b:2")
    }

    @Test func clause2_1_2_fulfilledNeverChanges() {
        #expect(logAfter("""
            var p = new Promise(function (res, rej) { res('first'); rej('no'); res('second') });
            p.then(function (v) { log.push('f:' + v) }, function (e) { log.push('r:' + e) });
            """) == "f:first")
    }

    @Test func clause2_1_3_rejectedNeverChanges() {
        #expect(logAfter("""
            var p = new Promise(function (res, rej) { rej('first'); res('no'); rej('second') });
            p.then(function (v) { log.push('f:' + v) }, function (e) { log.push('r:' + e) });
            """) == "r:first")
    }

    // 2.2 The then method

    @Test func clause2_2_1_nonFunctionArgumentsAreIgnored() {
        #expect(logAfter("""
            Promise.resolve(1).then(5, null).then(undefined, {}).then(function (v) { log.push('v' + v) });
            Promise.reject(2).then(null, 'x').then({}, undefined).then(null, function (e) { log.push('e' + e) });
            """) == "v1 e2")
    }

    @Test func clause2_2_2_onFulfilledOnceWithTheValueAfterFulfillment() {
        #expect(logAfter("""
            var resolve, calls = 0;
            var p = new Promise(function (res) { resolve = res });
            p.then(function (v) { calls++; log.push('value:' + v + ' calls:' + calls) });
            log.push('before');
            resolve('x'); resolve('y');
            """) == "before value:x calls:1")
    }

    @Test func clause2_2_3_onRejectedOnceWithTheReasonAfterRejection() {
        #expect(logAfter("""
            var reject, calls = 0;
            var p = new Promise(function (_, rej) { reject = rej });
            p.then(null, function (e) { calls++; log.push('reason:' + e + ' calls:' + calls) });
            log.push('before');
            reject('x'); reject('y');
            """) == "before reason:x calls:1")
    }

    @Test func clause2_2_4_handlersRunOnlyWithPlatformCodeOnTheStack() {
        // A then on an already-settled promise still runs after the current script.
        #expect(logAfter("""
            var done = false;
            Promise.resolve().then(function () { log.push('handler sees done=' + done) });
            Promise.reject().then(null, function () { log.push('rejected sees done=' + done) });
            done = true;
            """) == "handler sees done=true rejected sees done=true")
    }

    @Test func clause2_2_5_handlersAreCalledAsFunctions() {
        #expect(logAfter("""
            Promise.resolve().then(function () { 'use strict'; log.push(String(this)) });
            Promise.reject().then(null, function () { 'use strict'; log.push(String(this)) });
            Promise.resolve().then(function () { log.push(this === globalThis) });
            """) == "undefined undefined true")
    }

    @Test func clause2_2_6_handlersRunInRegistrationOrder() {
        #expect(logAfter("""
            var f, r;
            var a = new Promise(function (res) { f = res }), b = new Promise(function (_, rej) { r = rej });
            a.then(function () { log.push('a1') }); a.then(function () { log.push('a2') }); a.then(function () { log.push('a3') });
            b.catch(function () { log.push('b1') }); b.then(null, function () { log.push('b2') });
            f(); r();
            """) == "a1 a2 a3 b1 b2")
    }

    @Test func clause2_2_7_thenReturnsAPromiseSettledByTheHandler() {
        #expect(logAfter("""
            var p2 = Promise.resolve(1).then(function (v) { return v + 1 });
            log.push(p2 instanceof Promise);
            p2.then(function (v) { log.push('returned:' + v) });
            Promise.resolve().then(function () { throw 'boom' }).then(null, function (e) { log.push('thrown:' + e) });
            Promise.resolve('same').then(null, function () {}).then(function (v) { log.push('passed:' + v) });
            Promise.reject('why').then(function () {}).then(null, function (e) { log.push('passed reason:' + e) });
            """) == "true returned:2 thrown:boom passed:same passed reason:why")
    }

    // 2.3 The Promise Resolution Procedure

    @Test func clause2_3_1_resolvingWithItselfRejectsWithTypeError() {
        #expect(logAfter("""
            var p = Promise.resolve().then(function () { return p });
            p.then(null, function (e) { log.push(e instanceof TypeError) });
            var q = new Promise(function (res) { Promise.resolve().then(function () { res(q) }) });
            q.catch(function (e) { log.push(e.name) });
            """) == "true TypeError")
    }

    @Test func clause2_3_2_aPromiseIsAdopted() {
        // Jobs [a, b, c, d]: a, b and c each queue a thenable job (T) for the promise they
        // return; d fulfills `pending` before T_a runs. [T_a, T_b, T_c] each queue the returned
        // promise's reaction, which settles the derived promise and queues the logging handler.
        #expect(logAfter("""
            var later;
            var pending = new Promise(function (res) { later = res });
            Promise.resolve().then(function () { return pending }).then(function (v) { log.push('adopted:' + v) });
            Promise.resolve().then(function () { return Promise.resolve('f') }).then(function (v) { log.push('fulfilled:' + v) });
            Promise.resolve().then(function () { return Promise.reject('r') }).then(null, function (e) { log.push('rejected:' + e) });
            Promise.resolve().then(function () { later('late') });
            """) == "adopted:late fulfilled:f rejected:r")
    }

    @Test func clause2_3_3_1_thenIsReadOnce() {
        #expect(logAfter("""
            var reads = 0, thenable = {};
            Object.defineProperty(thenable, 'then', { get: function () { reads++; return function (res) { res(reads) } } });
            Promise.resolve().then(function () { return thenable }).then(function (v) { log.push('reads:' + v) });
            """) == "reads:1")
    }

    @Test func clause2_3_3_2_aThrowingThenGetterRejects() {
        #expect(logAfter("""
            var thenable = {};
            Object.defineProperty(thenable, 'then', { get: function () { throw new RangeError('getter') } });
            Promise.resolve().then(function () { return thenable }).catch(function (e) { log.push(e.name + ':' + e.message) });
            Promise.resolve(thenable).catch(function (e) { log.push('static ' + e.message) });
            """) == "static getter RangeError:getter")
    }

    @Test func clause2_3_3_3_thenIsCalledWithXAsThis() {
        #expect(logAfter("""
            var thenable = { then: function (res, rej) { log.push(this === thenable, typeof res, typeof rej); res('ok') } };
            Promise.resolve(thenable).then(function (v) { log.push(v) });
            """) == "true function function ok")
    }

    @Test func clause2_3_3_3_1_nestedThenablesAreFollowed() {
        #expect(logAfter("""
            function nest(depth) {
                return { then: function (res) { res(depth === 0 ? 'bottom' : nest(depth - 1)) } };
            }
            Promise.resolve(nest(5)).then(function (v) { log.push(v) });
            var rejecting = { then: function (res) { res({ then: function (_, rej) { rej('deep') } }) } };
            Promise.resolve(rejecting).catch(function (e) { log.push(e) });
            """) == "deep bottom")
    }

    @Test func clause2_3_3_3_3_firstCallWinsWhenThenCallsBackTwice() {
        #expect(logAfter("""
            var twice = { then: function (res, rej) { res('first'); rej('second'); res('third') } };
            Promise.resolve(twice).then(function (v) { log.push('f:' + v) }, function (e) { log.push('r:' + e) });
            var twiceRejecting = { then: function (res, rej) { rej('first'); res('second') } };
            Promise.resolve(twiceRejecting).then(function (v) { log.push('f:' + v) }, function (e) { log.push('r:' + e) });
            """) == "f:first r:first")
    }

    @Test func clause2_3_3_3_4_aThenThatThrowsAfterResolvingIsIgnored() {
        #expect(logAfter("""
            var afterResolve = { then: function (res) { res('kept'); throw new Error('ignored') } };
            Promise.resolve(afterResolve).then(function (v) { log.push(v) }, function (e) { log.push('wrong:' + e.message) });
            var beforeResolve = { then: function () { throw new Error('used') } };
            Promise.resolve(beforeResolve).then(function (v) { log.push('wrong') }, function (e) { log.push(e.message) });
            """) == "kept used")
    }

    @Test func clause2_3_3_4_aNonFunctionThenFulfillsWithX() {
        #expect(logAfter("""
            var x = { then: 42 };
            Promise.resolve(x).then(function (v) { log.push(v === x) });
            var fn = function () {}; fn.then = function (res) { res('function thenable') };
            Promise.resolve(fn).then(function (v) { log.push(v) });
            """) == "true function thenable")
    }

    @Test func clause2_3_4_nonObjectsFulfill() {
        #expect(logAfter("""
            [1, 'two', true, null, undefined].forEach(function (x) {
                Promise.resolve().then(function () { return x }).then(function (v) { log.push(String(v)) });
            });
            """) == "1 two true null undefined")
    }
}

/// ECMAScript's job ordering. Each expected order is worked out from the spec's jobs (comments
/// show the queue), not taken from an engine.
@Suite("Promise job ordering")
struct PromiseOrderingTests {
    @Test func interleavedChains() {
        // Queue: [a1, b1] -> [a2, b2] -> [a3, b3]
        #expect(logAfter("""
            Promise.resolve().then(function () { log.push('a1') }).then(function () { log.push('a2') }).then(function () { log.push('a3') });
            Promise.resolve().then(function () { log.push('b1') }).then(function () { log.push('b2') }).then(function () { log.push('b3') });
            log.push('sync');
            """) == "sync a1 b1 a2 b2 a3 b3")
    }

    @Test func returningAPromiseCostsTwoJobs() {
        // a1 returns a promise P: resolving a2's promise with P queues a thenable job T, T queues
        // P's reaction R, R settles it: queue [a1,b1] [T,b2] [R,b3] [a2,b4].
        #expect(logAfter("""
            Promise.resolve().then(function () { log.push('a1'); return Promise.resolve() }).then(function () { log.push('a2') });
            Promise.resolve().then(function () { log.push('b1') }).then(function () { log.push('b2') })
                .then(function () { log.push('b3') }).then(function () { log.push('b4') });
            """) == "a1 b1 b2 b3 a2 b4")
    }

    @Test func promiseResolveOfAThenable() {
        // Promise.resolve(thenable) reads then now and queues T; x1 is queued after it:
        // [T, x1] -> T calls then, which fulfills: [x1, f] -> [f, x2].
        #expect(logAfter("""
            var thenable = { then: function (res) { log.push('then called'); res('t') } };
            Promise.resolve(thenable).then(function (v) { log.push(v) });
            Promise.resolve().then(function () { log.push('x1') }).then(function () { log.push('x2') });
            log.push('sync');
            """) == "sync then called x1 t x2")
    }

    @Test func thenGetterIsReadDuringResolution() {
        #expect(logAfter("""
            var thenable = {};
            Object.defineProperty(thenable, 'then', { get: function () { log.push('get'); return function (res) { log.push('call'); res() } } });
            Promise.resolve(thenable);
            log.push('after resolve');
            """) == "get after resolve call")
    }

    @Test func aThenAddedByAJobRunsAfterEarlierJobs() {
        #expect(logAfter("""
            var p = Promise.resolve();
            p.then(function () { log.push(1); p.then(function () { log.push(4) }) });
            p.then(function () { log.push(2) });
            p.then(function () { log.push(3) });
            """) == "1 2 3 4")
    }

    @Test func finallyOnARejection() {
        // [cf, x1]: cf logs f and returns Q2 = Q.then(thrower) (queues thr), so finally's promise
        // D waits on Q2 (queues T): [x1, thr, T] -> [thr, T, x2] -> thr rejects Q2 -> T queues R
        // -> [x2, R] -> R rejects D, queuing c -> [x3, c] -> [c, x4] -> [x4, x5].
        #expect(logAfter("""
            Promise.reject('r').finally(function () { log.push('f') }).catch(function (e) { log.push('c' + e) });
            Promise.resolve().then(function () { log.push('x1') }).then(function () { log.push('x2') })
                .then(function () { log.push('x3') }).then(function () { log.push('x4') }).then(function () { log.push('x5') });
            """) == "f x1 x2 x3 cr x4 x5")
    }

    @Test func promiseAllSettlesAfterItsElements() {
        // [E1, E2, x1]: E2 brings the count to 0 and fulfills the result: [x1, all] -> [all, x2].
        #expect(logAfter("""
            Promise.all([1, 2]).then(function (v) { log.push('all' + v.join('+')) });
            Promise.resolve().then(function () { log.push('x1') }).then(function () { log.push('x2') });
            """) == "x1 all1+2 x2")
    }

    @Test func allSettledCountsPendingAndSettledElementsInTheQueuesOrder() {
        // [E0, E2, x1]: E0 and E2 bring the count to 1; x1 fulfills the pending element (queues
        // E1) and its own promise (queues x2): [E1, x2]. E1 brings the count to 0 and fulfills
        // the result: [x2, S] -> S, then x3.
        #expect(logAfter("""
            var r, pending = new Promise(function (res) { r = res });
            Promise.allSettled([Promise.resolve(1), pending, Promise.reject(2)]).then(function (v) {
                log.push('settled:' + v.map(function (e) { return e.status + '=' + (e.value || e.reason) }).join(','));
            });
            Promise.resolve().then(function () { log.push('x1'); r('p') })
                .then(function () { log.push('x2') }).then(function () { log.push('x3') });
            """) == "x1 x2 settled:fulfilled=1,fulfilled=p,rejected=2 x3")
    }

    @Test func anyRejectsOnlyOnceEveryElementRejected() {
        // [E0, x1]: E0 leaves one element; x1 rejects the pending one (queues E1) and queues x2:
        // [E1, x2]. E1 rejects the result with an AggregateError: [x2, C] -> C, then x3.
        #expect(logAfter("""
            var r, pending = new Promise(function (_, rej) { r = rej });
            Promise.any([Promise.reject('a'), pending]).catch(function (e) {
                log.push('any:' + (e instanceof AggregateError) + ':' + e.errors.join('+'));
            });
            Promise.resolve().then(function () { log.push('x1'); r('b') })
                .then(function () { log.push('x2') }).then(function () { log.push('x3') });
            """) == "x1 x2 any:true:a+b x3")
    }

    @Test func aCombinatorsValuesNeverRunArrayPrototypeSetters() {
        // The values are a list until the result is made (CreateArrayFromList): an index setter
        // on Array.prototype sees none of them, and the result is an ordinary array.
        // (`log` is replaced, not pushed to: a push would run the setter too.)
        #expect(logAfter("""
            var seen = '';
            Object.defineProperty(Array.prototype, '0', { set: function () { seen += 'setter' }, configurable: true });
            Promise.all([Promise.resolve('a'), 'b']).then(function (v) {
                delete Array.prototype[0];
                log = [seen + v[0] + v[1] + ':' + Array.isArray(v) + ':' + (Object.getPrototypeOf(v) === Array.prototype)
                    + ':' + v.hasOwnProperty(0) + ':' + v.length];
            });
            """) == "ab:true:true:true:2")
    }

    @Test func raceSettlesWithTheFirstInIterationOrderAmongSettled() {
        #expect(logAfter("""
            Promise.race([new Promise(function () {}), Promise.reject('second'), Promise.resolve('third')])
                .then(function (v) { log.push('f:' + v) }, function (e) { log.push('r:' + e) });
            """) == "r:second")
    }

    @Test func executorRunsSynchronously() {
        #expect(logAfter("""
            log.push('before');
            new Promise(function (res) { log.push('executor'); res() }).then(function () { log.push('then') });
            log.push('after');
            """) == "before executor after then")
    }
}

/// The rest of the ES2021 surface.
@Suite("Promise API surface")
struct PromiseSurfaceTests {
    let context = JSContext()!

    @Test func shapeOfTheBuiltIns() {
        let checks = [
            "typeof Promise === 'function'",
            "Promise.name === 'Promise' && Promise.length === 1",
            "Object.prototype.toString.call(Promise.resolve()) === '[object Promise]'",
            "Promise.prototype.constructor === Promise",
            "Object.getOwnPropertyDescriptor(Promise, 'prototype').writable === false",
            "!Object.getOwnPropertyDescriptor(globalThis, 'Promise').enumerable",
            "['then', 'catch', 'finally'].every(function (m) { return typeof Promise.prototype[m] === 'function' && Promise.prototype[m].name === m })",
            "['resolve', 'reject', 'all', 'allSettled', 'any', 'race'].every(function (m) { return typeof Promise[m] === 'function' })",
            "Promise.resolve(1) instanceof Promise",
            "typeof AggregateError === 'function' && new AggregateError([1, 2], 'm') instanceof Error",
            "new AggregateError([1, 2], 'm').errors.length === 2 && new AggregateError('ab').errors.join() === 'a,b'",
            "new AggregateError([], 'm').message === 'm' && new AggregateError([]).name === 'AggregateError'",
            "!Object.prototype.hasOwnProperty.call(new AggregateError([]), 'message')",
        ]
        for check in checks {
            #expect(eval(context, check).toBool(), "\(check)")
        }
    }

    @Test func constructorMisuseThrows() throws {
        #expect(try #require(thrown(context, "Promise(function () {})")).name == "TypeError")
        #expect(try #require(thrown(context, "new Promise()")).name == "TypeError")
        #expect(try #require(thrown(context, "new Promise(42)")).name == "TypeError")
        #expect(try #require(thrown(context, "Promise.prototype.then.call({}, function () {})")).name == "TypeError")
        #expect(try #require(thrown(context, "var r = Promise.resolve; r(1)")).name == "TypeError")
        #expect(try #require(thrown(context, "Promise.all.call(undefined, [])")).name == "TypeError")
    }

    @Test func anExecutorThatThrowsRejects() {
        #expect(logAfter("""
            new Promise(function () { throw new Error('in executor') }).catch(function (e) { log.push(e.message) });
            new Promise(function (res) { res('kept'); throw new Error('ignored') }).then(function (v) { log.push(v) });
            """, in: context) == "in executor kept")
    }

    @Test func promiseResolveReturnsTheSamePromise() {
        #expect(eval(context, "var p = Promise.resolve(1); Promise.resolve(p) === p").toBool())
        // A promise whose constructor is something else is wrapped.
        #expect(eval(context, "var q = Promise.resolve(1); q.constructor = Object; Promise.resolve(q) !== q").toBool())
    }

    @Test func combinatorsOverIterablesDuktapeHas() {
        #expect(logAfter("""
            Promise.all([]).then(function (v) { log.push('empty:' + v.length) });
            Promise.all('a\\uD83D\\uDE00b').then(function (v) { log.push('string:' + v.length + ':' + (v[1] === '\\uD83D\\uDE00')) });
            Promise.all({ length: 2, 0: 'x', 1: Promise.resolve('y') }).then(function (v) { log.push('array-like:' + v.join('')) });
            Promise.all(42).catch(function (e) { log.push('number:' + e.name) });
            Promise.all(undefined).catch(function (e) { log.push('undefined:' + e.name) });
            Promise.race([]).then(function () { log.push('never') });
            Promise.any([]).catch(function (e) { log.push('any empty:' + (e instanceof AggregateError) + e.errors.length) });
            """, in: context) == "empty:0 number:TypeError undefined:TypeError any empty:true0 string:3:true array-like:xy")
    }

    @Test func allSettledAndAnyShapes() {
        #expect(logAfter("""
            Promise.allSettled([Promise.resolve(1), Promise.reject('no'), 3]).then(function (r) { log.push(JSON.stringify(r)) });
            Promise.any([Promise.reject('a'), Promise.resolve('b'), Promise.reject('c')]).then(function (v) { log.push('any:' + v) });
            Promise.any([Promise.reject('a'), Promise.reject('b')]).catch(function (e) {
                log.push(e.constructor === AggregateError, e instanceof Error, JSON.stringify(e.errors));
            });
            """, in: context) == #"[{"status":"fulfilled","value":1},{"status":"rejected","reason":"no"},{"status":"fulfilled","value":3}] any:b true true ["a","b"]"#)
    }

    @Test func allRejectsWithTheFirstRejection() {
        #expect(logAfter("""
            Promise.all([Promise.resolve(1), Promise.reject('first'), Promise.reject('second')])
                .then(function () { log.push('wrong') }, function (e) { log.push(e) });
            """, in: context) == "first")
    }

    @Test func finallyPassesValuesThrough() {
        // [F1, F2, F3, F4]: F2's onFinally throws, rejecting at once (queues "replaced"); F4 is
        // a pass-through (queues "nonfn"); F1 and F3 return the promise of a value thunk, which
        // costs a thunk job, a thenable job and a reaction: "v" and "e" come last.
        #expect(logAfter("""
            Promise.resolve('v').finally(function () { return 'ignored' }).then(function (v) { log.push(v) });
            Promise.resolve('v').finally(function () { throw 'replaced' }).catch(function (e) { log.push(e) });
            Promise.reject('e').finally(function () { return Promise.resolve('ignored') }).catch(function (e) { log.push(e) });
            Promise.resolve('nonfn').finally(7).then(function (v) { log.push(v) });
            """, in: context) == "replaced nonfn v e")
    }

    @Test func catchAndFinallyInvokeThenOnThenables() {
        #expect(logAfter("""
            var thenable = { then: function (a, b) { log.push('then(' + typeof a + ',' + typeof b + ')'); return 'result' } };
            log.push(Promise.prototype.catch.call(thenable, function () {}));
            Promise.prototype.finally.call(thenable, function () {});
            """, in: context) == "then(undefined,function) result then(function,function)")
    }
}

/// A promise's slots are reached by position (they are its first own properties) and the job
/// queue's slots are written in place: whatever a script does to a promise object or however
/// the queue grows and compacts, the results are the lookups' results.
@Suite("Promise slots and the job queue")
struct PromiseSlotTests {
    @Test func promisesWithManyOwnPropertiesAddedAndDeletedStillSettle() {
        #expect(logAfter("""
            var resolve, p = new Promise(function (res) { resolve = res });
            // Enough properties for a hash part, some deleted, then a collection (which may
            // compact the property table), and a frozen promise besides.
            for (var i = 0; i < 200; i++) p['k' + i] = i;
            for (var i = 0; i < 200; i += 2) delete p['k' + i];
            Duktape.gc(); Duktape.compact(p);
            p.then(function (v) { log.push('p:' + v + ':' + p.k1 + ':' + Object.keys(p).length) });
            resolve('ok');
            var q = Object.freeze(Promise.resolve('frozen'));
            q.then(function (v) { log.push('q:' + v) });
            """) == "p:ok:1:100 q:frozen")
    }

    /// The first promise of a heap interns its slot keys: at the memory limit, a failure part way
    /// must leave no key half-published (which would be used after the failure freed it). The
    /// script fills the heap, then frees a little at a time and tries again, so that some
    /// attempt fails inside the interning; afterwards promises work.
    @Test func thePromiseKeysSurviveFailuresAtTheMemoryLimit() throws {
        let vm = try #require(JSVirtualMachine())
        vm.memoryLimit = 4 * 1024 * 1024
        let context = try #require(JSContext(virtualMachine: vm))
        eval(context, """
            var hog = [], made = 0, failed = 0;
            try { for (;;) hog.push('x' + hog.length + new Array(64).join('y')) } catch (e) {}
            while (hog.length > 0) {
                hog.length = Math.max(0, hog.length - 8);
                try { new Promise(function () {}); made++; break } catch (e) { failed++ }
            }
            hog = null;
            """)
        #expect(eval(context, "made").toInt32() == 1)
        #expect(logAfter("""
            Promise.all([Promise.resolve(1), 2, new Promise(function (r) { r(3) })])
                .then(function (v) { log.push(v.join('+')) });
            """, in: context) == "1+2+3")
    }

    @Test func objectsThatOnlyLookLikePromisesAreRefused() {
        #expect(logAfter("""
            [Object.create(Promise.prototype), {}, function () {}].forEach(function (o, i) {
                try { Promise.prototype.then.call(o, function () {}); log.push('accepted' + i) }
                catch (e) { log.push(e instanceof TypeError ? 'refused' + i : 'other' + i) }
            });
            """) == "refused0 refused1 refused2")
    }

    /// Jobs that queue jobs keep the queue from emptying; it compacts past 1,024 slots and
    /// grows for bursts: every job runs once, in order.
    @Test func theQueueKeepsOrderWhileItGrowsAndCompacts() {
        #expect(logAfter("""
            var order = [], expected = [];
            // A burst of 3,000 reactions, each queueing one more behind the rest.
            var ps = [];
            for (var i = 0; i < 3000; i++) {
                (function (i) {
                    ps.push(Promise.resolve(i).then(function (v) {
                        order.push(v);
                        return Promise.resolve().then(function () { order.push(-v - 1) });
                    }));
                })(i);
            }
            for (var i = 0; i < 3000; i++) expected.push(i);
            for (var i = 0; i < 3000; i++) expected.push(-i - 1);
            Promise.all(ps).then(function (values) {
                log.push(values.length + ':' + (order.join(',') === expected.join(',')));
            });
            """) == "3000:true")
    }
}
