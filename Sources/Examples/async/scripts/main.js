// Runs on the example's event loop: timers, a promise chain, a Swift async function.
var greeting = require('./lib/greeting');

console.log(greeting.greet('timers'));

setTimeout(function () { console.log('timer: 20 ms'); }, 20);
setTimeout(function () { console.log('timer: 10 ms'); }, 10);
setImmediate(function () { console.log('immediate: after this script and its jobs'); });
Promise.resolve('job').then(function (v) { console.log('microtask: ' + v + ' (before any timer)'); });

function delay(ms, value) {
    return new Promise(function (resolve) { setTimeout(resolve, ms, value); });
}

// A promise chain, returned to Swift, which awaits it.
module.exports = delay(30, 2)
    .then(function (n) { return n * 21; })
    .then(function (n) { console.log('chain: ' + n); return n; });
