// A mocha-like runner for the Promises/A+ compliance suite (promises-aplus/promises-tests),
// in ES5, for `dukjs run`: describe/specify/it with `done`, beforeEach/afterEach, mocha's
// per-test timeout (200 ms, as the suite's own runner sets it; PROMISES_TIMEOUT_MS overrides
// it), a test failed by an exception thrown in a callback ('uncaughtException', as mocha does),
// by an assertion failing in a promise reaction ('unhandledRejection' of an AssertionError,
// which mocha would only see as a timeout), or by `done` called twice. The adapter is the
// engine's own Promise.
//
//     dukjs run runner.js DIR FILE...   (DIR holds the suite's test files and node_modules/)
'use strict';

var timeoutMs = +(process.env.PROMISES_TIMEOUT_MS || 200);
var root = { title: '', suites: [], tests: [], before: [], after: [], parent: null };
var current = root;

global.describe = function (title, body) {
    var suite = { title: title, suites: [], tests: [], before: [], after: [], parent: current };
    current.suites.push(suite);
    var saved = current;
    current = suite;
    try { body(); } finally { current = saved; }
};
global.specify = global.it = function (title, body) { current.tests.push({ title: title, body: body, suite: current }); };
global.beforeEach = function (body) { current.before.push(body); };
global.afterEach = function (body) { current.after.push(body); };

global.adapter = {
    resolved: function (value) { return Promise.resolve(value); },
    rejected: function (reason) { return Promise.reject(reason); },
    deferred: function () {
        var result = {};
        result.promise = new Promise(function (resolve, reject) { result.resolve = resolve; result.reject = reject; });
        return result;
    }
};

var directory = process.argv[2];
process.argv.slice(3).forEach(function (file) { require(directory + '/' + file); });

// Every test, in order, with its hooks (outermost first for beforeEach, innermost first after).
var queue = [];
(function collect(suite) {
    suite.tests.forEach(function (test) { queue.push(test); });
    suite.suites.forEach(collect);
})(root);

function titleOf(test) {
    var parts = [test.title];
    for (var suite = test.suite; suite && suite.parent; suite = suite.parent) parts.unshift(suite.title);
    return parts.join(' › ');
}
function hooks(test, kind) {
    var list = [];
    for (var suite = test.suite; suite; suite = suite.parent) {
        if (kind === 'before') list = suite.before.concat(list);
        else list = list.concat(suite.after);
    }
    return list;
}

// The running test, and the last one that ended (a late error is reported against it).
var passed = 0, failures = [], running = null, lastEnded = null;

function fail(test, error) {
    var text = error && error.message !== undefined ? (error.name || 'Error') + ': ' + error.message : String(error);
    failures.push(titleOf(test) + '\n      ' + text);
}

// An exception thrown by a callback of the running test fails it; one thrown after it ended is
// reported against it too (mocha does the same).
process.on('uncaughtException', function (error) {
    if (running) running.finish(error);
    else if (lastEnded) lastEnded.finish(error);
    else failures.push('(before the first test)\n      ' + error);
});
// A rejection nobody handles: deliberate in many tests; an AssertionError from a reaction is a
// failed test.
process.on('unhandledRejection', function (reason) {
    if (!reason || reason.name !== 'AssertionError') return;
    if (running) running.finish(reason);
    else if (lastEnded) lastEnded.finish(reason);
    else failures.push('(before the first test)\n      ' + reason);
});

function runTest(index) {
    if (index >= queue.length) { report(); return; }
    var test = queue[index], settled = false, calls = 0, timer = null;
    function finish(error) {
        if (settled) {
            // After the test ended: its pass is taken back.
            if (error) {
                fail(test, error);
                if (!test.failed) { test.failed = true; passed--; }
            }
            return;
        }
        settled = true;
        clearTimeout(timer);
        running = null;
        lastEnded = { finish: finish };
        try { hooks(test, 'after').forEach(function (hook) { hook(); }); } catch (hookError) { error = error || hookError; }
        if (error) { fail(test, error); test.failed = true; } else passed++;
        setTimeout(function () { runTest(index + 1); }, 0);
    }
    running = { finish: finish };
    timer = setTimeout(function () { finish(new Error('timeout of ' + timeoutMs + 'ms exceeded')); }, timeoutMs);
    try {
        hooks(test, 'before').forEach(function (hook) { hook(); });
        if (test.body.length > 0) {
            test.body(function done(error) {
                calls++;
                if (calls > 1) { finish(new Error('done() called multiple times')); return; }
                finish(error);
            });
        } else {
            test.body();
            finish();
        }
    } catch (error) {
        finish(error);
    }
}

function report() {
    failures.forEach(function (failure, index) { console.log((index + 1) + ') ' + failure); });
    console.log(passed + ' passing, ' + failures.length + ' failing (' + queue.length + ' tests)');
    process.exitCode = failures.length === 0 && passed === queue.length ? 0 : 1;
}

runTest(0);
