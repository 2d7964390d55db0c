#!/usr/bin/env python3
"""The ladder on one screen: every GEMM step of a results file at its largest shape, in order, with
its GFLOPS, the gain over the step before, its fraction of cuBLAS from the same run, and a bar.

    tools/ladder.py                                  # build/results/*.json if there, else docs/results
    tools/ladder.py docs/results/nvidia-h100-80gb-hbm3.json
    tools/ladder.py --shape 4096 FILE                # another shape than the largest

Three ladders, each climbing against its own cuBLAS: the fp32 steps (CUDA cores, against SGEMM),
the tensor-core steps (f16 inputs, f32 output, layout NN, against cublasGemmEx with the same types),
and the FP8 step (e4m3 inputs, bf16 output, layout NT, against cuBLASLt with fast accumulation off).
The bank demos (03, 04) are not GEMMs and step 00 runs on the CPU: neither is on the ladder. Every
figure is read from the file (docs/results/README.md); nothing is measured here. Exit codes: 0,
2 for a missing or unreadable file.
"""
import argparse
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BAR_WIDTH = 36
# The tensor-core run each step is shown by: the same inputs, output and layout for every step.
TENSOR_CORE_RUN = {"dtype": "f16", "layout": "nn", "out": "f32"}
# The FP8 step's run on its ladder: e4m3 in, bf16 out (what FP8 layers write), the one layout it takes.
FP8_RUN = {"dtype": "e4m3", "layout": "nt", "out": "bf16"}


def is_tensor_core(run):
    return run.get("dtype", "f32") != "f32"


def ladder_runs(document):
    """The runs on the ladder, in step order: (title, [runs]) for the fp32 and tensor-core ladders."""
    fp32, tensor, fp8 = [], [], []
    for run in document["runs"]:
        if run.get("kind") == "bank_demo" or run.get("variant"):
            continue
        if not is_tensor_core(run):
            fp32.append(run)
        elif all(run.get(key) == value for key, value in TENSOR_CORE_RUN.items()):
            tensor.append(run)
        elif all(run.get(key) == value for key, value in FP8_RUN.items()):
            fp8.append(run)
    order = lambda run: run["step"]  # noqa: E731 (folders are numbered in ladder order)
    return [("fp32 on the CUDA cores, against cuBLAS SGEMM", sorted(fp32, key=order)),
            ("tensor cores, f16 in, f32 out, NN, against cublasGemmEx", sorted(tensor, key=order)),
            ("FP8 tensor cores, e4m3 in, bf16 out, NT, against cuBLASLt (fast accumulation off)", sorted(fp8, key=order))]


def square_sizes(runs):
    return {s["m"] for run in runs for s in run["shapes"] if s["m"] == s["n"] == s["k"]}


def pick_shape(run, size):
    """The run's shape of size³ if it has it, else its largest square shape (None without one)."""
    squares = [s for s in run["shapes"] if s["m"] == s["n"] == s["k"] and "time" in s]
    exact = [s for s in squares if s["m"] == size]
    if exact:
        return exact[0]
    return max(squares, key=lambda s: s["m"]) if squares else None


def bar(value, top):
    filled = 0 if top <= 0 else round(BAR_WIDTH * min(value / top, 1.0))
    return "█" * filled + "·" * (BAR_WIDTH - filled)


def rows_of(runs, size):
    """One row per step: the measured figures at size³ and the gain over the row before."""
    rows, previous = [], None
    for run in runs:
        shape = pick_shape(run, size)
        if shape is None:
            continue
        gflops = shape["time"]["gflops"]
        rows.append({"step": run["step"], "m": shape["m"], "gflops": gflops,
                     "cublas": shape.get("cublas", {}).get("gflops"),
                     "fraction": shape.get("fraction_of_cublas"), "verdict": shape.get("verdict", ""),
                     "gain": gflops / previous if previous else None})
        previous = gflops
    return rows


def render(document, path, size=None):
    """The ladder of one results file as text."""
    device = document["device"]
    lines = [f"The ladder on {device['name']} ({device.get('sms', '?')} SMs), from {os.path.relpath(path)}"]
    for title, runs in ladder_runs(document):
        if not runs:
            continue
        chosen = size or max(square_sizes(runs) or {0})
        rows = rows_of(runs, chosen)
        if not rows:
            continue
        top = max([r["gflops"] for r in rows] + [r["cublas"] or 0 for r in rows])
        lines += ["", f"{title}, at {chosen}³ (bars: GFLOPS, | marks cuBLAS)",
                  f"{'step':<22} {'GFLOPS':>9} {'× before':>9} {'of cuBLAS':>10}"]
        for r in rows:
            gain = f"{r['gain']:.2f}×" if r["gain"] else "     "
            fraction = f"{100 * r['fraction']:.0f}%" if r["fraction"] is not None else "  ?"
            drawn = bar(r["gflops"], top)
            if r["cublas"]:
                mark = min(BAR_WIDTH - 1, round(BAR_WIDTH * r["cublas"] / top) - 1)
                drawn = drawn[:mark] + "|" + drawn[mark + 1:]
            size_note = "" if r["m"] == chosen else f"  (at {r['m']}³)"
            verdict = "" if r["verdict"] == "PASS" else f"  {r['verdict'] or 'unchecked'}"
            lines.append(f"{r['step']:<22} {r['gflops']:>9.0f} {gain:>9} {fraction:>10}  {drawn}{size_note}{verdict}")
    return "\n".join(lines)


def default_files():
    local = sorted(glob.glob(os.path.join(ROOT, "build", "results", "*.json")))
    local = [f for f in local if not os.path.basename(f).startswith(results_lib.OTHER_FILES)]
    return local or results_lib.results_files(os.path.join(ROOT, "docs", "results"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="results files (default: build/results, else docs/results)")
    parser.add_argument("--shape", type=int, default=None, help="the square size to show (default: the largest)")
    parser.add_argument("--viewer", default=os.path.join("build", "bin", "gemm_viewer"),
                        help="the viewer's path, for the closing hint")
    args = parser.parse_args(argv)
    files = args.files or default_files()
    if not files:
        print("ladder: no results files (run tools/bench_all.py on a GPU, or give a file)", file=sys.stderr)
        return 2
    for number, path in enumerate(files):
        try:
            document = results_lib.load(path)
        except (OSError, ValueError) as error:
            print(f"ladder: cannot read {path}: {error}", file=sys.stderr)
            return 2
        print(("\n" if number else "") + render(document, path, args.shape))
    folder = os.path.relpath(os.path.dirname(os.path.abspath(files[0])))
    print(f"\nSee why in the viewer: {args.viewer} --results {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
