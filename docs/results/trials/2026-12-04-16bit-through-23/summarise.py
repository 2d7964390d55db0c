#!/usr/bin/env python3
"""Prints a runNN.log's bench section as one line of "% of cuBLAS" per binary and types, a column per
shape, the two rounds' figures side by side (round 1/round 2): python3 summarise.py run04.log"""
import collections
import re
import sys

SHAPES = ["1024x1024x1024", "1536x1536x1536", "2048x2048x2048", "3072x3072x3072", "4088x4104x4096",
          "512x4096x4096", "1024x1024x8192", "4096x4096x4096", "8192x8192x8192"]


def main(path):
    table = collections.OrderedDict()
    current = None
    in_bench = False
    for line in open(path):
        if line.startswith("# --- bench.log"):
            in_bench = True
        if not in_bench:
            continue
        if line.startswith("=="):
            m = re.match(r"== round (\d) (.*), (\S+) nt (\S+)", line.strip())
            current = (m.group(2).replace("--param ", ""), m.group(3) + " > " + m.group(4))
            table.setdefault(current, collections.defaultdict(list))
            continue
        fields = line.split()
        if current and len(fields) > 8 and fields[0].isdigit():
            table[current]["x".join(fields[:3])].append(fields[8].rstrip("%"))
    print("%-48s" % "% of cuBLAS", " ".join("%14s" % s for s in SHAPES))
    for key in sorted(table, key=lambda k: (k[1], k[0])):
        print("%-48s" % (key[0][:38] + ", " + key[1]),
              " ".join("%14s" % "/".join(table[key].get(s, [])) for s in SHAPES))


if __name__ == "__main__":
    main(sys.argv[1])
