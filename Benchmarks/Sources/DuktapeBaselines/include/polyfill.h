/*
 * W10's scripts, the same text for every engine, and the Promise a raw Duktape program would
 * have to bring: Duktape 2.7 has none. The polyfill is ES5, spec-shaped where W10 reaches
 * (then, resolve with thenable adoption, all; reactions as jobs in a queue the host drains
 * after each call, as an embedder of raw Duktape would), without the rest of the API.
 */
#ifndef BASELINES_POLYFILL_H
#define BASELINES_POLYFILL_H

/* The JavaScript of W2-W9, the same text for every engine (and in the Swift benchmarks).
 * makeString doubles a string (Duktape's join over a sparse array takes ~270 ms a MiB), and
 * `bigFromJS` is made once: W8 times reading it into the host, not making it. */
#define BASELINE_PRELUDE \
    "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }" \
    "function jsAdd(a, b) { return a + b }" \
    "function callHost(n) { var s = 0; for (var i = 0; i < n; i++) s = add(s, 1); return s }" \
    "function useCounter(c, n) { var s = 0; for (var i = 0; i < n; i++) { c.add(1); s += c.value } return s }" \
    "function makeString(n) { var s = 'x'; while (s.length < n) s += s; return s.substring(0, n) }" \
    "var bigFromJS = makeString(1048576);"

#define W10_SCRIPTS \
    "function inc(v) { return v + 1 }" \
    "function chain(n) { var p = Promise.resolve(0); for (var i = 0; i < n; i++) p = p.then(inc);" \
    "  p.then(function (v) { chainResult = v }) }" \
    "function allOf(n) { var a = []; for (var i = 0; i < n; i++) a.push(Promise.resolve(i));" \
    "  Promise.all(a).then(function (v) { allResult = v.length }) }" \
    "var chainResult = 0, allResult = 0;"

#define W10_POLYFILL \
    "var PromiseJobs = [];" \
    "function drainPromiseJobs() { for (var i = 0; i < PromiseJobs.length; i++) PromiseJobs[i](); PromiseJobs = [] }" \
    "function Promise(executor) { var self = this, done = false; this.s = 0; this.v = undefined; this.r = [];" \
    "  try { executor(function (x) { if (!done) { done = true; polyResolve(self, x) } }," \
    "                 function (e) { if (!done) { done = true; polySettle(self, 2, e) } }) }" \
    "  catch (e) { if (!done) { done = true; polySettle(self, 2, e) } } }" \
    "function polySettle(p, s, v) { if (p.s) return; p.s = s; p.v = v; var r = p.r; p.r = null;" \
    "  for (var i = 0; i < r.length; i++) polyQueue(r[i], s, v) }" \
    "function polyQueue(reaction, s, v) { PromiseJobs.push(function () {" \
    "  var h = s === 1 ? reaction.f : reaction.j, d = reaction.d;" \
    "  if (typeof h !== 'function') { if (s === 1) polyResolve(d, v); else polySettle(d, 2, v); return }" \
    "  try { polyResolve(d, h(v)) } catch (e) { polySettle(d, 2, e) } }) }" \
    "function polyResolve(p, x) { if (x === p) return polySettle(p, 2, new TypeError('cycle'));" \
    "  if (x !== null && (typeof x === 'object' || typeof x === 'function')) { var then;" \
    "    try { then = x.then } catch (e) { return polySettle(p, 2, e) }" \
    "    if (typeof then === 'function') { PromiseJobs.push(function () { var done = false;" \
    "      try { then.call(x, function (y) { if (!done) { done = true; polyResolve(p, y) } }," \
    "                         function (e) { if (!done) { done = true; polySettle(p, 2, e) } }) }" \
    "      catch (e) { if (!done) { done = true; polySettle(p, 2, e) } } }); return } }" \
    "  polySettle(p, 1, x) }" \
    "Promise.prototype.then = function (f, j) { var d = new Promise(function () {}), reaction = { f: f, j: j, d: d };" \
    "  if (this.s === 0) this.r.push(reaction); else polyQueue(reaction, this.s, this.v); return d };" \
    "Promise.resolve = function (x) { return x instanceof Promise ? x : new Promise(function (r) { r(x) }) };" \
    "Promise.all = function (a) { return new Promise(function (res, rej) { var n = a.length, out = new Array(n), left = n;" \
    "  if (!n) return res(out);" \
    "  a.forEach(function (x, i) { Promise.resolve(x).then(function (v) { out[i] = v; if (--left === 0) res(out) }, rej) }) }) };" \
    "function makeDeferred() { var d = {}; d.promise = new Promise(function (r) { d.resolve = r }); return d }"

#endif
