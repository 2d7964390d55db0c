#!/usr/bin/env python3
"""Warp-state samples by how often an instruction ran, from an `ncu --page source --print-source sass
--csv` export (gzipped): the k-loop's instructions run once per k-tile and warp, the epilogue's once
per tile and warp, so the groups say what share of the sampled time each part of the kernel takes.

    sass_share.py ../2026-11-27-step19/ncu-8192-promote1-sass.csv.gz
"""
import csv
import gzip
import sys
from collections import defaultdict

rows = list(csv.reader(gzip.open(sys.argv[1], "rt")))
header, data = rows[1], rows[2:]
executed, samples = header.index("Instructions Executed"), header.index("Warp Stall Sampling (All Samples)")
groups = defaultdict(lambda: [0, 0])
for row in data:
    count = int(row[executed]) if row[executed].isdigit() else -1
    groups[count][0] += 1
    groups[count][1] += int(row[samples]) if row[samples].isdigit() else 0
total = sum(g[1] for g in groups.values())
print(f"{'executed':>10} {'instructions':>12} {'samples':>8} {'share':>6}")
for count, (instructions, sampled) in sorted(groups.items(), key=lambda g: -g[1][1])[:6]:
    print(f"{count:>10} {instructions:>12} {sampled:>8} {100 * sampled / total:>5.1f}%")
