#!/usr/bin/env bash
# `make bench`: builds everything in release mode, runs the package-benchmark suite (W1-W11),
# with hyperfine W11's scripts as whole processes beside Node's and process start-up (W0), the
# memory probe (W1 memory) and the instruction counts (callgrind), then writes RESULTS.md and
# RESULTS.svg.
set -euo pipefail
cd "$(dirname "$0")/.."          # Benchmarks/
results=.results
rm -rf "$results" && mkdir -p "$results"

echo "== building (release)"
(cd .. && swift build -c release --product dukjs)
# dukjs also linked statically (Swift runtime and Foundation): how the CLI would be shipped.
(cd .. && swift build -c release --static-swift-stdlib --product dukjs --scratch-path .build-static)
swift build -c release --product startup-raw
swift build -c release --product startup-jsc
swift build -c release --product memory-probe
swift build -c release --product instruction-probe
swift build -c release --product web-requests
swift build -c release --product ws-bench
swift build -c release --product bridge-bench
swift build -c release --product modern-probe

echo "== W1-W11, W16: package-benchmark"
# One workload group at a time, so that ours, raw and jsc of a workload are measured close
# together: this machine's speed drifts over minutes, which would skew ratios across the run.
for group in W1 W2 W3 W4 W5 W5b W6 W6b W7 W8 W9 W10 W11 W16; do
    swift package --disable-sandbox benchmark --filter "$group .*" --format histogramPercentiles \
        --path "$results" --no-progress >> "$results/benchmark.log"
done

echo "== W10 on Node (the two pure-JavaScript workloads)"
if command -v node >/dev/null; then
    node scripts/w10-node.js > "$results/node-w10.json"
else
    echo "node not found: the W10 Node table is left out"
fi

echo "== W11 on Node (the event-loop workloads)"
if command -v node >/dev/null; then
    node scripts/w11-node.js > "$results/node-w11.json"
else
    echo "node not found: the W11 Node table is left out"
fi

echo "== W11 as whole processes: dukjs run and node on the same files (hyperfine)"
if command -v node >/dev/null; then
    commands=()
    for script in empty immediates timeouts; do
        commands+=(-n "ours $script" "../.build/release/dukjs run scripts/w11-process/$script.js")
        commands+=(-n "node $script" "node scripts/w11-process/$script.js")
    done
    hyperfine -N --warmup 3 --runs 20 --export-json "$results/w11-process.json" "${commands[@]}" > /dev/null
else
    echo "node not found: the W11 process table is left out"
fi

echo "== W0: process start-up (hyperfine)"
hyperfine -N --warmup 5 --runs 60 --export-json "$results/startup.json" \
    -n ours "../.build/release/dukjs eval 1+1" \
    -n ours-static "../.build-static/release/dukjs eval 1+1" \
    -n raw ".build/release/startup-raw" \
    -n jsc ".build/release/startup-jsc" > /dev/null

echo "== W1 memory: 1000 live VMs / contexts"
# One process per measurement: memory freed by an earlier measurement stays in the process
# (glibc keeps it) and would hide the next one's growth.
for engine in ours raw jsc; do
    for round in 1 2 3; do
        for kind in vm context; do
            echo "$kind $(.build/release/memory-probe "$engine" "$kind")"
        done
    done > "$results/memory-$engine.txt"
done

echo "== W12: the web host (1 GiB streamed download and 1,000 requests against curl)"
/usr/bin/python3 scripts/web_bench.py "$results" ../.build/release/dukjs .build/release/web-requests > "$results/web.log"

echo "== W14: WebSocket (the page's client and WebSocketServer, beside Python's websockets)"
python3 -c 'import websockets.asyncio.server' 2>/dev/null || python3 -m pip install -q 'websockets>=13' \
    || python3 -m pip install -q --break-system-packages 'websockets>=13'
python3 scripts/ws_bench.py "$results" .build/release/ws-bench > "$results/ws.log"

echo "== W15: the hybrid bridges beside the page host's postMessage with a reply"
.build/release/bridge-bench > "$results/bridges.json"

echo "== W13: modern JavaScript (compiler VM start, a 10 KB ES2017 module, Map and Set)"
/usr/bin/python3 scripts/modern/measure.py .build/release/modern-probe scripts/modern > "$results/modern.json"

echo "== instructions per operation (callgrind)"
/usr/bin/python3 scripts/instructions.py .build/release/instruction-probe --json "$results/instructions.json"

echo "== report"
/usr/bin/python3 scripts/report.py "$results" > RESULTS.md
/usr/bin/python3 scripts/chart.py "$results" RESULTS.svg
cat RESULTS.md
