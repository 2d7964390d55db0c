#!/usr/bin/env python3
"""Each timed run of an experiment log, grouped by (program, shape, layout, input, output, params):
its median times in µs and fractions of cuBLAS, in the log's order.   summarize.py LOG..."""
import collections, re, sys

for log in sys.argv[1:]:
    runs, cur = collections.defaultdict(list), None
    for line in open(log):
        if line.startswith("### "):
            words = line.split()
            prog = words[1].split("/")[-1]
            shape = re.search(r"--(?:size|shapes) (\S+)", line)
            lay = re.search(r"--layout (\S+)", line)
            dt = re.search(r"--dtype (\S+)", line)
            out = re.search(r"--out (\S+)", line)
            params = " ".join(p for p in re.findall(r"--param (\S+)", line) if p.startswith(("BN", "BK", "BM")))
            cur = None if "--check-only" in line else (prog, shape.group(1) if shape else "", lay.group(1) if lay else "nn",
                                                       dt.group(1) if dt else "", out.group(1) if out else "",
                                                       "--defaults" if "--defaults" in line else params)
        elif cur and re.match(r"\s+\d+\s+\d+\s+\d+ \|", line) and "%" in line:
            ms = float(line.split("|")[1].split()[0])
            pct = float(re.search(r"([\d.]+)%", line).group(1))
            dims = "x".join(line.split("|")[0].split())
            runs[cur[:1] + (dims,) + cur[2:]].append((ms * 1000, pct))
    print(f"# {log}")
    for key, values in runs.items():
        print(" ".join(k for k in key if k), "|", "  ".join(f"{us:.1f} µs {pct:.1f}%" for us, pct in values))
