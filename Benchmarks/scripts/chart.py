#!/usr/bin/env python3
"""Draws Benchmarks/RESULTS.svg from a run's ratios.json (scripts/report.py): per workload, ours
÷ raw protected (paired) and ours ÷ JavaScriptCore on a log scale, with lines at 1.0 and 1.3.
Needs matplotlib (Debian's python3-matplotlib, which `make bench` installs)."""
import json
import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

results, output = sys.argv[1], sys.argv[2]
ratios = json.load(open(os.path.join(results, "ratios.json")))
rows = [(name, values) for name, values in ratios.items() if values["protected"] or values["jsc"]]
names = [name for name, _ in rows]
height = 0.38
figure, axes = plt.subplots(figsize=(10, 0.42 * len(rows) + 1.6))
positions = range(len(rows))
protected = [values["protected"] or 0 for _, values in rows]
jsc = [values["jsc"] or 0 for _, values in rows]
# Bars grow from 1.0 (parity) to the ratio, rightwards when ours is slower, leftwards when faster.
def from_parity(values):
    return [value - 1 if value else 0 for value in values]


axes.barh([p - height / 2 for p in positions], from_parity(protected), height, left=1,
          label="ours ÷ raw protected (paired)", color="#3b6ea5")
axes.barh([p + height / 2 for p in positions], from_parity(jsc), height, left=1,
          label="ours ÷ JavaScriptCore", color="#d08c2c")
axes.set_xscale("log")
axes.axvline(1.0, color="black", linewidth=1)
axes.axvline(1.3, color="#b03030", linewidth=1, linestyle="--", label="1.3 (target against raw protected)")
axes.set_yticks(list(positions))
axes.set_yticklabels(names, fontsize=8)
axes.invert_yaxis()
axes.set_xlabel("ratio (log scale; below 1: ours is faster)")
axes.legend(loc="lower right", fontsize=8)
axes.set_title("DuktapeCore against its protected floor and JavaScriptCore (one `make bench` run)", fontsize=10)
figure.tight_layout()
figure.savefig(output, metadata={"Date": None})
