// W11 as a whole process: 100,000 setTimeout(f, 0) callbacks, then exit. The same file runs
// under `dukjs run` and `node` (make bench times both with hyperfine).
var count = 100000, fired = 0;
function tick() { fired++; }
for (var i = 0; i < count; i++) setTimeout(tick, 0);
