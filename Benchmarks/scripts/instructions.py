#!/usr/bin/env python3
"""Instructions per operation under callgrind, for ours and the Duktape baselines.

    instructions.py PROBE                      prints a table (and JSON with --json FILE)
    instructions.py PROBE --check THRESHOLDS   exits 1 when a gated workload of ours costs more
                                               than its threshold plus the tolerance

Each measurement runs `PROBE WORKLOAD ENGINE N` under callgrind for two N and divides the
difference of the instruction totals by the difference of N, so that start-up, set-up and
tear-down cancel out. Callgrind counts the instructions the program executes, whatever else the
machine does: the figures repeat to a few instructions, which makes them a gate where wall time
on a shared VM cannot be.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# workload -> (the two counts, engines measured); whole-object workloads (W7) do one object per
# operation, so they run fewer.
WORKLOADS = {
    "W1": ((20, 40), ("ours", "raw")),
    "W4": ((2000, 4000), ("ours", "raw", "rawp")),
    "W4-untyped": ((2000, 4000), ("ours",)),
    "W5": ((2000, 4000), ("ours", "raw", "rawp")),
    "W5b": ((2000, 4000), ("ours", "raw", "rawp")),
    "W5-typed": ((2000, 4000), ("ours",)),
    "W6": ((2000, 4000), ("ours", "raw", "rawp")),
    "W6b": ((2000, 4000), ("ours",)),
    "W6-typed": ((2000, 4000), ("ours",)),
    "W7-to-js": ((2, 4), ("ours", "raw", "rawp")),
    "W7-to-host": ((2, 4), ("ours", "raw", "rawp")),
    "W8-to-js": ((4, 8), ("ours", "raw", "rawp")),
    "W8-to-host": ((4, 8), ("ours", "raw", "rawp")),
    "W9": ((2000, 4000), ("ours", "raw", "rawp")),
    "W16-to-js": ((2, 4), ("ours",)),
    "W16-to-host": ((2, 4), ("ours",)),
    "W10-chain": ((2000, 4000), ("ours",)),
    "W10-all": ((2000, 4000), ("ours",)),
    "W11-timeout": ((2000, 4000), ("ours",)),
    "W11-immediate": ((2000, 4000), ("ours",)),
}


def instructions(probe, workload, engine, count):
    with tempfile.TemporaryDirectory() as directory:
        out = os.path.join(directory, "callgrind.out")
        environment = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", probe, workload, engine, str(count)],
            capture_output=True, text=True, env=environment)
        if run.returncode != 0:
            sys.exit(f"{workload} {engine} {count}: exit {run.returncode}\n{run.stderr[-2000:]}")
        match = re.search(r"Collected : (\d+)", run.stderr)
        if not match:
            sys.exit(f"{workload} {engine} {count}: no instruction total in callgrind's output")
        return int(match.group(1))


def per_operation(probe, workload, engine):
    (low, high), _ = WORKLOADS[workload]
    return (instructions(probe, workload, engine, high) - instructions(probe, workload, engine, low)) / (high - low)


def stripped_copy(probe, directory):
    """A copy without debug information: valgrind 3.19 (Debian 12) cannot read the DWARF 5 that
    Swift 6 emits; the symbol table, which is all callgrind needs here, stays."""
    copy = os.path.join(directory, "instruction-probe")
    subprocess.run(["strip", "--strip-debug", "-o", copy, probe], check=True)
    return copy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    parser.add_argument("--check", help="thresholds file (JSON); exit 1 on a regression")
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument("--only", nargs="*", help="these workloads only")
    options = parser.parse_args()

    scratch = tempfile.TemporaryDirectory()
    options.probe = stripped_copy(options.probe, scratch.name)
    thresholds = None
    if options.check:
        with open(options.check) as file:
            thresholds = json.load(file)
    names = options.only or (list(thresholds["ours"]) if thresholds else list(WORKLOADS))
    results = {}
    for name in names:
        engines = ("ours",) if thresholds else WORKLOADS[name][1]
        results[name] = {engine: round(per_operation(options.probe, name, engine)) for engine in engines}
        row = results[name]
        extra = ""
        if "rawp" in row:
            extra = f"  ours/raw {row['ours'] / row['raw']:.2f}  ours/rawp {row['ours'] / row['rawp']:.2f}"
        print(f"{name:12} " + "  ".join(f"{engine} {value:,}" for engine, value in row.items()) + extra, flush=True)
    if options.json:
        with open(options.json, "w") as file:
            json.dump(results, file, indent=2)
    if thresholds:
        tolerance = thresholds["tolerance"]
        failed = []
        for name, limit in thresholds["ours"].items():
            measured = results[name]["ours"]
            if measured > limit * (1 + tolerance):
                failed.append(f"{name}: {measured:,} instructions per operation, threshold {limit:,} (+{tolerance:.0%})")
        if failed:
            print("Instruction counts regressed:\n  " + "\n  ".join(failed), file=sys.stderr)
            sys.exit(1)
        print(f"All {len(thresholds['ours'])} workloads within {tolerance:.0%} of their thresholds.")


if __name__ == "__main__":
    main()
