// W10's two pure-JavaScript workloads on Node, in process (no start-up), for RESULTS.md:
// the same script text as Baselines/polyfill.h's W10_SCRIPTS, on Node's own Promise. Prints
// {"chain": [ms...], "all": [ms...]}, one figure per sample after warm-up.
function inc(v) { return v + 1 }
function chain(n) { var p = Promise.resolve(0); for (var i = 0; i < n; i++) p = p.then(inc); return p }
function allOf(n) { var a = []; for (var i = 0; i < n; i++) a.push(Promise.resolve(i)); return Promise.all(a) }

async function samples(run, count) {
    const times = [];
    for (let i = 0; i < count + 2; i++) {
        const start = process.hrtime.bigint();
        await run();  // the microtask queue drains before this resumes
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        if (i >= 2) times.push(ms);  // two warm-up runs
    }
    return times;
}

(async () => {
    const chainTimes = await samples(() => chain(100000), 20);
    const allTimes = await samples(() => allOf(10000), 50);
    console.log(JSON.stringify({ chain: chainTimes, all: allTimes, version: process.version }));
})();
