// W10's two pure-JavaScript workloads on Node, in process (no start-up), for RESULTS.md:
// the same script text as Baselines/polyfill.h's W10_SCRIPTS, on Node's own Promise. Prints
// {"chain": [ms...], "all": [ms...], "chainFirst": ms, "allFirst": ms}: the samples after two
// warm-up runs, and each workload's first run in the process (before the JIT has warmed up, as a
// script run once is).
function inc(v) { return v + 1 }
function chain(n) { var p = Promise.resolve(0); for (var i = 0; i < n; i++) p = p.then(inc); return p }
function allOf(n) { var a = []; for (var i = 0; i < n; i++) a.push(Promise.resolve(i)); return Promise.all(a) }

async function samples(run, count) {
    const times = [];
    for (let i = 0; i < count + 2; i++) {
        const start = process.hrtime.bigint();
        await run();  // the microtask queue drains before this resumes
        times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    return { first: times[0], warm: times.slice(2) };
}

(async () => {
    const chainTimes = await samples(() => chain(100000), 20);
    const allTimes = await samples(() => allOf(10000), 50);
    console.log(JSON.stringify({
        chain: chainTimes.warm, all: allTimes.warm, chainFirst: chainTimes.first, allFirst: allTimes.first,
        version: process.version,
    }));
})();
