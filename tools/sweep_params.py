#!/usr/bin/env python3
"""Measures every compiled configuration of a tunable step on the GPU present and writes
<out>/sweep-<step>-<gpu>.json: per configuration the params, results per thread, registers,
local memory, occupancy and the measured GFLOPS next to cuBLAS (same run). The configurations come
from the step's own mapping.hpp (through model_predict --configs), so the list is defined once.

    tools/sweep_params.py --steps 06,07 --size 4096 --out docs/results
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402
from bench_all import ROOT, git_commit, slug  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", default="06,07,08,09,10,11")
    parser.add_argument("--size", default="4096")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out_dir = args.out or os.path.join(args.build, "results")
    bin_dir = os.path.join(args.build, "bin")
    listing = subprocess.run([os.path.join(bin_dir, "model_predict"), "--list"], capture_output=True, text=True,
                             check=True).stdout.split()
    steps = [name for name in listing[::4] if name[:2] in args.steps.split(",")]
    if not steps:
        print(f"sweep_params: no tunable step among {args.steps}", file=sys.stderr)
        return 2
    commit, failed = git_commit(), 0
    for step in steps:
        configs = subprocess.run([os.path.join(bin_dir, "model_predict"), "--configs", step], capture_output=True,
                                 text=True, check=True).stdout.splitlines()
        rows, device = [], None
        for config in configs:
            params = dict(item.split("=") for item in config.split())
            with tempfile.TemporaryDirectory() as scratch:
                path = os.path.join(scratch, "run.json")
                command = [os.path.join(bin_dir, step), "--size", args.size, "--json", path]
                for key, value in params.items():
                    command += ["--param", f"{key}={value}"]
                code = subprocess.run(command, capture_output=True, text=True).returncode
                if code == 77:
                    print("sweep_params: no suitable GPU: skipped")
                    return 77
                if code != 0 or not os.path.exists(path):
                    print(f"sweep_params: {step} {config} exited {code}", file=sys.stderr)
                    failed += 1
                    continue
                document = results_lib.load(path)
            device = document["device"]
            run = document["runs"][0]
            shape = run["shapes"][0]
            results = 1
            for key in ("TM", "TN"):
                results *= int(params.get(key, 1))
            rows.append({"params": {k: int(v) for k, v in params.items()}, "results_per_thread": results,
                         "kernel": run.get("kernel"), "m": shape["m"], "n": shape["n"], "k": shape["k"],
                         "time": shape["time"], "cublas": shape["cublas"], "verdict": shape["verdict"]})
            print(f"{step} {config:36s} results/thread {results:3d}  regs {run['kernel']['registers']:3d}  "
                  f"occupancy {100 * run['kernel']['occupancy']:5.1f}%  {shape['time']['gflops']:9.1f} GFLOPS  "
                  f"{shape['verdict']}", flush=True)
        if not rows:
            continue
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, f"sweep-{step}-{slug(device['name'])}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"schema": "gemm-steps-sweep/1", "step": step, "device": device, "commit": commit,
                       "date": document["date"], "configs": rows}, handle, indent=2)
            handle.write("\n")
        print(f"sweep_params: {len(rows)} configurations written to {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
