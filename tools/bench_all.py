#!/usr/bin/env python3
"""Runs every built GPU GEMM step at the standard sizes and merges their results into one results
file per GPU: <out>/<gpu-slug>.json (default out: build/results; the shipped ones live in
docs/results). Each run is stamped with the git commit and the date.

    tools/bench_all.py                      # every step, standard shapes, into build/results
    tools/bench_all.py --out docs/results   # what the H100 figures in docs/ come from
    tools/bench_all.py --steps 01,02 --shapes 1024,2048
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STANDARD_SHAPES = "1024,2048,4096,8192,1000x999x1001,4095x4097x4093"
# The CPU reference is not benchmarked here; the bank demos run with their own (fixed) shapes.
NOT_BENCHMARKED = {"00"}
DEMOS = {"03", "04"}
# Tensor-core steps: their kernels take K a multiple of 8, so their odd shapes keep K even, and one
# more shape, odd in every extent, runs the general path (padded copies, timed with the step); each
# runs every layout with f16 and bf16 inputs (f32 out), and NN with the inputs' type out (f16 -> f16,
# bf16 -> bf16).
TENSOR_CORE = {"12", "13", "14", "15", "16", "17", "18"}
TENSOR_CORE_SHAPES = "1024,2048,4096,8192,1000x999x1000,4095x4097x4096,4095x4097x4093"
# Steps that copy whole 16-byte chunks (cp.async, TMA) need stored rows that are multiples of 8
# elements in every layout: their odd shapes are ragged against the tiles, not against 8.
ALIGNED_ROWS = {"13", "14", "15", "16", "17", "18"}
ALIGNED_ROWS_SHAPES = "1024,2048,4096,8192,1000x1000x1000,4088x4104x4096,4095x4097x4093"
# Step 18 chooses its tile by shape (config_for_shape): two mid sizes where that choice decides.
MID_SHAPES = {"18": "1536,3072"}
# The FP8 steps (19-22): layout NT only (FP8 wgmma reads K-major operands); their kernels take K a
# multiple of 16, so the ragged shape keeps K so and one more runs the general path. Each run is
# (arguments, variant): e4m3 with every output, e5m2 x e4m3, and for step 19 e4m3 -> bf16 without
# promotion (variant "no-promotion": what promotion costs; the later FP8 steps change nothing there).
FP8 = {"19", "20", "21", "22"}
FP8_SHAPES = "1024,2048,4096,6144,8192,1000x1000x1008,4088x4104x4096,4095x4097x4093"
FP8_RUNS = ([(["--dtype", "e4m3", "--out", out], "") for out in ("bf16", "f16", "f32")] +
            [(["--dtype", "e5m2", "--out", "bf16"], "")])
FP8_RUNS_OF = {"19": FP8_RUNS + [(["--dtype", "e4m3", "--out", "bf16", "--param", "PROMOTE=0"], "no-promotion")],
               "20": FP8_RUNS, "21": FP8_RUNS, "22": FP8_RUNS}
TENSOR_CORE_RUNS = ([["--layout", layout, "--dtype", dtype, "--out", "f32"] for dtype in ("f16", "bf16")
                     for layout in ("nn", "nt", "tn")] +
                    [["--layout", "nn", "--dtype", dtype, "--out", dtype] for dtype in ("f16", "bf16")])


def git_commit():
    given = os.environ.get("GEMM_COMMIT")  # set where the tree travels without .git (a lent GPU machine)
    if given:
        if not re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?", given):
            raise SystemExit(f"bench_all: GEMM_COMMIT must be a commit hash, got {given!r}")
        return given
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def slug(name):
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", name.lower())).strip("-") or "unknown-gpu"


def find_steps(build, selected):
    programs = []
    for path in sorted(glob.glob(os.path.join(build, "bin", "[0-9][0-9]_*"))):
        number = os.path.basename(path)[:2]
        if number in NOT_BENCHMARKED or not os.access(path, os.X_OK):
            continue
        if selected and number not in selected:
            continue
        programs.append(path)
    return programs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None, help="folder for the merged results file (default BUILD/results)")
    parser.add_argument("--steps", default="", help="comma-separated step numbers, e.g. 01,02 (default: all)")
    parser.add_argument("--shapes", default=STANDARD_SHAPES)
    parser.add_argument("--extra", default="", help="extra arguments for every step, e.g. '--reps 10'")
    parser.add_argument("--only-out", default="", choices=("", "f32", "f16", "bf16"),
                        help="tensor-core steps: only the runs with this output type")
    args = parser.parse_args()
    out_dir = args.out or os.path.join(args.build, "results")
    selected = {s.strip().zfill(2) for s in args.steps.split(",") if s.strip()}
    programs = find_steps(args.build, selected)
    if not programs:
        print(f"bench_all: no GPU steps built under {args.build}/bin: build first (see README)", file=sys.stderr)
        return 2

    commit, runs, device, failed = git_commit(), [], None, []
    with tempfile.TemporaryDirectory() as scratch:
        for index, program in enumerate(programs):
            name = os.path.basename(program)
            print(f"bench_all: step {index + 1} of {len(programs)}: {name}", flush=True)
            labels = {}  # variant number -> the run's variant name in the results file
            if name[:2] in DEMOS:
                variants = [[]]
            elif name[:2] in FP8:
                shapes = args.shapes if args.shapes != STANDARD_SHAPES else FP8_SHAPES
                fp8_runs = FP8_RUNS_OF[name[:2]]
                variants = [["--shapes", shapes] + extra + args.extra.split() for extra, _ in fp8_runs]
                labels = {number: label for number, (_, label) in enumerate(fp8_runs) if label}
            elif name[:2] in TENSOR_CORE:
                standard = ALIGNED_ROWS_SHAPES if name[:2] in ALIGNED_ROWS else TENSOR_CORE_SHAPES
                if name[:2] in MID_SHAPES:
                    standard += "," + MID_SHAPES[name[:2]]
                shapes = args.shapes if args.shapes != STANDARD_SHAPES else standard
                runs_of_step = [r for r in TENSOR_CORE_RUNS if not args.only_out or r[-1] == args.only_out]
                variants = [["--shapes", shapes] + extra + args.extra.split() for extra in runs_of_step]
            else:
                variants = [["--shapes", args.shapes] + args.extra.split()]
            for number, variant in enumerate(variants):
                json_path = os.path.join(scratch, f"{name}-{number}.json")
                command = [program, "--json", json_path] + variant
                print("$ " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in command), flush=True)
                code = subprocess.run(command).returncode
                if code == 77:
                    print(f"bench_all: {name} skipped (no suitable GPU)")
                    continue
                if code not in (0, 1) or not os.path.exists(json_path):
                    print(f"bench_all: {name} exited {code} without results", file=sys.stderr)
                    failed.append(name)
                    continue
                if code == 1:
                    failed.append(name)
                document = results_lib.load(json_path)
                device = device or document["device"]
                for run in document["runs"]:
                    run["commit"], run["date"] = commit, document["date"]
                    if number in labels:
                        run["variant"] = labels[number]
                    runs.append(run)
    if not runs:
        print("bench_all: nothing ran (no suitable GPU?)", file=sys.stderr)
        return 77
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, slug(device["name"]) + ".json")
    existing = results_lib.load(path) if os.path.exists(path) else None
    merged = results_lib.merge(existing, runs, device)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(merged, handle, indent=2)
        handle.write("\n")
    print(f"bench_all: {len(runs)} run(s) merged into {os.path.relpath(path, ROOT)}")
    if failed:
        print(f"bench_all: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
