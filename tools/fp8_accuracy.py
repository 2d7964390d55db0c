#!/usr/bin/env python3
"""Measures the FP8 step's error as K grows, with and without promotion (docs/19-fp8.md).

For each PROMOTE value (k-tiles the tensor cores sum before the sum is added in f32; 0: never) it
runs 19_fp8 at M = N = 256 and K = 256 .. 16384, f32 output (so the error is the accumulation's,
not an output rounding), checked against the CPU's fp64 product of the same FP8 inputs, with
cuBLASLt's own error on the same inputs beside it (fast accumulation off and on), and writes one
file: <out>/fp8-accuracy-<gpu-slug>.json (default out: build/results; the shipped one lives in
docs/results). A run whose error passes the step's tolerance or not is recorded either way: the
growth without promotion is what this measures.

    tools/fp8_accuracy.py --out docs/results
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_all  # noqa: E402
import results_lib  # noqa: E402

ROOT = bench_all.ROOT
SCHEMA = "gemm-steps/fp8-accuracy/1"
K_VALUES = (256, 512, 1024, 2048, 4096, 8192, 16384)
PROMOTE_VALUES = (1, 4, 0)
# cuBLASLt's error, as the program's check reports it ("<key>_relative_frobenius"), and its label.
YARDSTICKS = (("cublas", "cuBLASLt, fast accumulation off"), ("cublas_fast_accum", "cuBLASLt, fast accumulation on"))
ROWS = 256  # M = N: the CPU fp64 reference takes 2 * 256 * 256 * 16384 flops at the longest K


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None, help="folder for the results file (default BUILD/results)")
    args = parser.parse_args()
    program = os.path.join(args.build, "bin", "19_fp8")
    if not os.access(program, os.X_OK):
        print(f"fp8_accuracy: {program} is not built: build first (see README)", file=sys.stderr)
        return 2
    shapes = ",".join(f"{ROWS}x{ROWS}x{k}" for k in K_VALUES)
    series, yardsticks, device, date = [], [], None, None
    with tempfile.TemporaryDirectory() as scratch:
        for promote in PROMOTE_VALUES:
            json_path = os.path.join(scratch, f"promote-{promote}.json")
            command = [program, "--check-only", "--out", "f32", "--param", f"PROMOTE={promote}", "--shapes", shapes,
                       "--json", json_path]
            print("$ " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in command), flush=True)
            code = subprocess.run(command).returncode
            if code == 77:
                print("fp8_accuracy: skipped (no suitable GPU)")
                return 77
            if code not in (0, 1) or not os.path.exists(json_path):
                print(f"fp8_accuracy: 19_fp8 exited {code} without results", file=sys.stderr)
                return 1
            document = results_lib.load(json_path)
            device, date = document["device"], document["date"]
            run = document["runs"][0]
            points = [{"k": shape["k"], "relative_frobenius": shape["check"]["relative_frobenius"],
                       "max_over_rms": shape["check"]["max_over_rms"], "reference": shape["check"]["reference"],
                       "verdict": shape["verdict"]} for shape in run["shapes"]]
            series.append({"promote": promote, "params": run["params"], "points": points})
            # cuBLASLt's own error on the same inputs, against the same reference (the program
            # measures it in every check; the first run's is kept).
            if not yardsticks:
                for key, label in YARDSTICKS:
                    found = [{"k": shape["k"], "relative_frobenius": shape["check"][key + "_relative_frobenius"]}
                             for shape in run["shapes"] if key + "_relative_frobenius" in shape["check"]]
                    if found:
                        yardsticks.append({"name": key, "label": label, "call": run.get(key + "_call", ""),
                                           "points": found})
    out_dir = args.out or os.path.join(args.build, "results")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "fp8-accuracy-" + bench_all.slug(device["name"]) + ".json")
    document = {"schema": SCHEMA, "device": device, "date": date, "commit": bench_all.git_commit(), "m": ROWS,
                "n": ROWS, "dtype": "e4m3", "out": "f32", "series": series, "yardsticks": yardsticks}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
    print(f"fp8_accuracy: written {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
