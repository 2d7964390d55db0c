#!/usr/bin/env python3
"""Summarizes the perf-ab-*.log (one per folder) of this folder, or of the trial folder given as the argument: for each program, arguments and shape, the kernel's
median ms before (old) and after (new) in each round, and new / old. Writes perf-ab-summary.md."""
import glob
import os
import re
import sys
from collections import defaultdict

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
runs = defaultdict(dict)  # (program args, shape) -> {(round, version): ms}
key = None
(log,) = glob.glob(os.path.join(HERE, "perf-ab-*.log"))
for line in open(log):
    head = re.match(r"== round (\d) (new|old) (.*)", line)
    if head:
        key = (int(head.group(1)), head.group(2), head.group(3).strip())
        continue
    row = re.match(r"\s+(\d+)\s+(\d+)\s+(\d+) \|\s+([\d.]+)", line)
    if row and key:
        shape = "x".join(row.group(i) for i in (1, 2, 3))
        runs[(key[2], shape)][(key[0], key[1])] = float(row.group(4))
out = ["| run | shape | round 1 old / new ms | round 2 old / new ms | new / old, rounds 1 and 2 |",
       "|---|---|---|---|---|"]
for (program, shape), times in runs.items():
    cells, ratios = [], []
    for rnd in (1, 2):
        old, new = times.get((rnd, "old")), times.get((rnd, "new"))
        cells.append(f"{old:.4f} / {new:.4f}" if old and new else "-")
        ratios.append(f"{new / old:.3f}" if old and new else "-")
    out.append(f"| `{program}` | {shape} | {cells[0]} | {cells[1]} | {', '.join(ratios)} |")
with open(os.path.join(HERE, "perf-ab-summary.md"), "w") as handle:
    handle.write("\n".join(out) + "\n")
print("\n".join(out))
