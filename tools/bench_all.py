#!/usr/bin/env python3
"""Runs every built GPU GEMM step at the standard sizes and merges their results into one results
file per GPU: <out>/<gpu-slug>.json (default out: build/results; the shipped ones live in
docs/results). Each run is stamped with the git commit and the date.

    tools/bench_all.py                      # every step, standard shapes, into build/results
    tools/bench_all.py --out docs/results   # what the H100 figures in docs/ come from
    tools/bench_all.py --steps 01,02 --shapes 1024,2048
    tools/bench_all.py --dry-run            # the command of every run, nothing run

What each step runs follows from its declaration in steps/NN_name/CMakeLists.txt (gemm_add_step),
read from BUILD/steps.json: configure the build folder first.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# What a step runs follows from its declaration (gemm_add_step in steps/NN_name/CMakeLists.txt), which
# CMake writes into BUILD/steps.json: its kind, its aligned-rows rule, and the shapes and runs it
# adds (BENCH_SHAPES, BENCH_RUNS). What every step of a kind runs is here, since it follows from the
# kind's shape rule and types, which the kind's runner (run_step, run_tc_step, run_fp8_step) fixes:
# - fp32: the standard shapes;
STANDARD_SHAPES = "1024,2048,4096,8192,1000x999x1001,4095x4097x4093"
# - tensor_core: K a multiple of 8, so the odd shapes keep K even, and one more shape, odd in every
#   extent, runs the general path (padded copies, timed with the step); every layout with f16 and
#   bf16 inputs (f32 out), and NN with the inputs' type out (f16 -> f16, bf16 -> bf16);
TENSOR_CORE_SHAPES = "1024,2048,4096,8192,1000x999x1000,4095x4097x4096,4095x4097x4093"
TENSOR_CORE_RUNS = ([["--layout", layout, "--dtype", dtype, "--out", "f32"] for dtype in ("f16", "bf16")
                     for layout in ("nn", "nt", "tn")] +
                    [["--layout", "nn", "--dtype", dtype, "--out", dtype] for dtype in ("f16", "bf16")])
#   and those that copy whole 16-byte chunks (ALIGNED_ROWS: cp.async, TMA) need stored rows that are
#   multiples of 8 elements in every layout: their odd shapes are ragged against the tiles, not 8;
ALIGNED_ROWS_SHAPES = "1024,2048,4096,8192,1000x1000x1000,4088x4104x4096,4095x4097x4093"
# - fp8: layout NT only (FP8 wgmma reads K-major operands), K a multiple of 16, so the ragged shape
#   keeps K so and one more runs the general path; and the mid and narrow sizes practitioners run,
#   where a persistent grid's rounds are few or ragged (1536^3, 3072^3, a few hundred rows against a
#   4096-wide weight, a deep K, deeper still as in a weight gradient); e4m3 with every output and
#   e5m2 x e4m3;
FP8_SHAPES = ("1024,1536,2048,3072,4096,6144,8192,1000x1000x1008,4088x4104x4096,4095x4097x4093,512x4096x4096,"
              "1024x1024x8192,1024x1024x16384")
FP8_RUNS = ([["--dtype", "e4m3", "--out", out] for out in ("bf16", "f16", "f32")] +
            [["--dtype", "e5m2", "--out", "bf16"]])
# - demo: the bank demos, with their own fixed shapes and variants;
# - cpu: the CPU reference, not benchmarked here.
SHAPES_OF_KIND = {"fp32": STANDARD_SHAPES, "tensor_core": TENSOR_CORE_SHAPES, "fp8": FP8_SHAPES}
RUNS_OF_KIND = {"fp32": [[]], "tensor_core": TENSOR_CORE_RUNS, "fp8": FP8_RUNS}


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


def load_manifest(build):
    """The steps as declared (BUILD/steps.json, written by CMake at configure time), in order."""
    path = os.path.join(build, "steps.json")
    if not os.path.exists(path):
        raise SystemExit(f"bench_all: no {path}: configure the build (cmake -S . -B {build}), then build it")
    with open(path, encoding="utf-8") as handle:
        return sorted(json.load(handle)["steps"], key=lambda step: step["name"])


def find_steps(build, steps, selected):
    """(step, program) for every declared step that is benchmarked and built, of the numbers selected."""
    programs = []
    for step in steps:
        path = os.path.join(build, "bin", step["name"])
        if step["kind"] == "cpu" or not os.access(path, os.X_OK):
            continue
        if selected and step["number"] not in selected:
            continue
        programs.append((step, path))
    return programs


def runs_of(step, shapes, extra, only_out):
    """The step's runs, each (arguments after --json FILE, variant label or ""): its kind's at its kind's
    shapes (or the shapes given), with the shapes and runs its declaration adds."""
    kind = step["kind"]
    if kind == "demo":
        return [([], "")]
    if shapes is None:
        standard = ALIGNED_ROWS_SHAPES if step["aligned_rows"] else SHAPES_OF_KIND[kind]
        shapes = ",".join([standard] + step["bench_shapes"])
    runs = [(arguments, "") for arguments in RUNS_OF_KIND[kind]]
    runs += [(run["args"], run["label"]) for run in step["bench_runs"]]
    if kind == "tensor_core" and only_out:
        runs = [(arguments, label) for arguments, label in runs if arguments[-1] == only_out]
    return [(["--shapes", shapes] + arguments + extra, label) for arguments, label in runs]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None, help="folder for the merged results file (default BUILD/results)")
    parser.add_argument("--steps", default="", help="comma-separated step numbers, e.g. 01,02 (default: all)")
    parser.add_argument("--shapes", default=None,
                        help="shapes for every step (default: each kind's standard ones and the step's own)")
    parser.add_argument("--extra", default="", help="extra arguments for every step, e.g. '--reps 10'")
    parser.add_argument("--only-out", default="", choices=("", "f32", "f16", "bf16"),
                        help="tensor-core steps: only the runs with this output type")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the command of every run (and its variant, if any), run nothing")
    args = parser.parse_args()
    out_dir = args.out or os.path.join(args.build, "results")
    selected = {s.strip().zfill(2) for s in args.steps.split(",") if s.strip()}
    programs = find_steps(args.build, load_manifest(args.build), selected)
    if not programs:
        print(f"bench_all: no GPU steps built under {args.build}/bin: build first (see README)", file=sys.stderr)
        return 2

    commit, runs, device, failed = git_commit(), [], None, []
    with tempfile.TemporaryDirectory() as scratch:
        for index, (step, program) in enumerate(programs):
            name = step["name"]
            print(f"bench_all: step {index + 1} of {len(programs)}: {name}", flush=True)
            for number, (variant, label) in enumerate(runs_of(step, args.shapes, args.extra.split(), args.only_out)):
                json_path = os.path.join(scratch, f"{name}-{number}.json")
                command = [program, "--json", json_path] + variant
                shown = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in command)
                print("$ " + shown + (f"    # variant {label}" if label else ""), flush=True)
                if args.dry_run:
                    continue
                started = time.monotonic()
                code = subprocess.run(command).returncode
                # How long each run takes, to plan a session's time on a lent GPU.
                print(f"bench_all: {name} ran {time.monotonic() - started:.0f} s", flush=True)
                if code == 77:
                    print(f"bench_all: {name} skipped (no suitable GPU)")
                    # An architecture-specific step (sm_90a) runs on no other GPU in any variant: its
                    # other runs would be refused the same way. Other steps may refuse one variant
                    # alone (step 12's bf16 below compute capability 8.0), so they go on.
                    if any(arch.endswith("a") for arch in step.get("architectures", [])):
                        print(f"bench_all: {name} is built for {', '.join(step['architectures'])} alone: "
                              "its other runs are skipped too", flush=True)
                        break
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
                    if label:
                        run["variant"] = label
                    runs.append(run)
    if args.dry_run:
        return 0
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
