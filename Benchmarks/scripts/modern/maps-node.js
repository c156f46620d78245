// W13's Map and Set loops on Node (the same as modern-probe maps), first run of the process.
var N = 200000, i, keys = [], o = {}, m = new Map(), s = new Set(), sum = 0, out = {};
for (i = 0; i < 1000; i++) keys.push('k' + i);
function time(name, body) { var best = Infinity; for (var r = 0; r < 5; r++) { var t0 = process.hrtime.bigint(); body(); var t = Number(process.hrtime.bigint() - t0) / 1e6; if (t < best) best = t; } out[name] = best * 1e6 / N; }
time('object_set', function () { for (var i = 0; i < N; i++) o[keys[i % 1000]] = i; });
time('map_set', function () { for (var i = 0; i < N; i++) m.set(keys[i % 1000], i); });
time('object_get', function () { for (var i = 0; i < N; i++) sum += o[keys[i % 1000]]; });
time('map_get', function () { for (var i = 0; i < N; i++) sum += m.get(keys[i % 1000]); });
time('object_has', function () { for (var i = 0; i < N; i++) sum += (keys[i % 1000] in o) ? 1 : 0; });
time('set_add', function () { for (var i = 0; i < N; i++) s.add(keys[i % 1000]); });
time('set_has', function () { for (var i = 0; i < N; i++) sum += s.has(keys[i % 1000]) ? 1 : 0; });
time('native_call', function () { for (var i = 0; i < N; i++) sum += Math.abs(i); });
console.log(JSON.stringify(out));
