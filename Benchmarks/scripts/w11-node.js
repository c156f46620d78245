// W11's event-loop workloads on Node, in process: 100k setTimeout(f, 0) callbacks, 100k
// setImmediate callbacks, and 10k messages posted from another thread (a worker) to the main
// thread, each handled by a JavaScript callback. Prints {"timeouts": [ms...], "immediates":
// [ms...], "posts": [ms...], "version": ...}: the samples after two warm-up runs, and each
// workload's first run in the process as "<key>First".
const { Worker } = require('worker_threads');

function timeouts(n) {
    return new Promise((resolve) => {
        let fired = 0;
        function tick() { if (++fired === n) resolve(); }
        for (let i = 0; i < n; i++) setTimeout(tick, 0);
    });
}

function immediates(n) {
    return new Promise((resolve) => {
        let fired = 0;
        function tick() { if (++fired === n) resolve(); }
        for (let i = 0; i < n; i++) setImmediate(tick);
    });
}

const worker = new Worker(
    "const { parentPort } = require('worker_threads');" +
    "parentPort.on('message', (n) => { for (let i = 0; i < n; i++) parentPort.postMessage(i); });",
    { eval: true });

function posts(n) {
    return new Promise((resolve) => {
        let received = 0;
        function onPost() {
            if (++received === n) { worker.off('message', onPost); resolve(); }
        }
        worker.on('message', onPost);
        worker.postMessage(n);
    });
}

async function samples(run, count) {
    const times = [];
    for (let i = 0; i < count + 2; i++) {
        const start = process.hrtime.bigint();
        await run();
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return { first: times[0], warm: times.slice(2) };
}

(async () => {
    const result = { version: process.version };
    for (const [key, run, count] of [
        ['timeouts', () => timeouts(100000), 20],
        ['immediates', () => immediates(100000), 20],
        ['posts', () => posts(10000), 30],
    ]) {
        const times = await samples(run, count);
        result[key] = times.warm;
        result[key + 'First'] = times.first;
    }
    await worker.terminate();
    console.log(JSON.stringify(result));
})();
