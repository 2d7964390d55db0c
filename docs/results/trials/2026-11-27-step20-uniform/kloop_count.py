#!/usr/bin/env python3
"""Instructions in the k-loops of step 20's kernels, from `cuobjdump -sass` of a program: for each kernel whose
mangled name contains one of the given strings, every backward branch whose body holds four QGMMA and fewer than
kMaxLoop instructions (one k-tile: the narrow tile's loop with 32 FADD, the full tile's with BN / 2; the tile
loops around them are thousands long), with the body's length, its FADDs and the rest.

    kloop_count.py base.sass e4m3S1_13__nv_bfloat16Li3ELb0 e4m3S1_13__nv_bfloat16Li0ELb1 e4m3S1_fLi3ELb0
"""
import re
import sys

kMaxLoop = 400


def functions(path):
    out, current = {}, None
    for line in open(path):
        match = re.search(r"Function : (\S+)", line)
        if match:
            current = match.group(1)
            out[current] = []
            continue
        match = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if current and match:
            out[current].append((int(match.group(1), 16), match.group(2).strip()))
    return out


for name, code in functions(sys.argv[1]).items():
    if not any(key in name for key in sys.argv[2:]):
        continue
    at = {address: i for i, (address, _) in enumerate(code)}
    print(name)
    for i, (address, text) in enumerate(code):
        match = re.search(r"BRA (0x[0-9a-f]+)", text)
        if not match or int(match.group(1), 16) >= address or int(match.group(1), 16) not in at:
            continue
        body = [t for _, t in code[at[int(match.group(1), 16)]: i + 1]]
        qgmma = sum("QGMMA" in t for t in body)
        if qgmma == 4 and len(body) < kMaxLoop:
            fadd = sum(t.split()[0] == "FADD" for t in body)
            print(f"  loop at {match.group(1)}: {len(body)} instructions, {qgmma} QGMMA, {fadd} FADD, {len(body) - fadd} others")
