#!/usr/bin/env python3
"""The ladder on one screen: every GEMM step of a results file at 4096³ (the pages' size; the largest
square shape where a file has no 4096³), in order, with
its GFLOPS, the gain over the step before from the same run, its fraction of cuBLAS from the same
run, its fraction of the peak, and a bar.

    tools/ladder.py                                  # build/results/*.json if there, else docs/results
    tools/ladder.py docs/results/nvidia-h100-80gb-hbm3.json
    tools/ladder.py --shape 8192 FILE                # another shape
    tools/ladder.py --pairs docs/results/paired-21-22/nvidia-h100-80gb-hbm3.json FILE
    tools/ladder.py --sizes FILE                     # the last step of each ladder at the sizes people run

Three ladders, each climbing against its own cuBLAS: the fp32 steps (CUDA cores, against SGEMM),
the 16-bit tensor-core steps (f16 inputs, f32 output, layout NN, against cublasGemmEx with the same
types), and the FP8 steps (e4m3 inputs, bf16 output, layout NT, against cuBLASLt with fast
accumulation off). A gain is a ratio of two runs' medians, so it is shown only where both runs come
from one run of the benchmarks (one bench_all call: the same commit, minutes apart); a results file
keeps each step's latest run, which may be from another session than the step before's, and then
the gain is "–" with the reason. --pairs names files that hold such a pair from one run (e.g.
docs/results/paired-21-22/), used where the main file has none. The % of peak is of the peak of
the run's inputs (fp32, dense 16-bit or FP8 tensor cores) at the file's clock (docs/ladder.md).
--sizes shows instead the last step of each ladder at the mid and narrow sizes
(results_lib.SIZES_PEOPLE_RUN): per shape, its worst and best fraction of cuBLAS over every layout
and output type it ran, and how many reach results_lib.AT_CUBLAS_SPEED. The
bank demos (03, 04) are not GEMMs and step 00 runs on the CPU: neither is on the ladder. Every figure
is read from the files (docs/results/README.md); nothing is measured here. Files that hold no timed
runs (results_lib.OTHER_FILES: sweeps, FP8 accuracy, ceilings), as a glob of build/results/ finds
them, are skipped with a note. Exit codes: 0, 2 for a missing or unreadable file or none to show.
"""
import argparse
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BAR_WIDTH = 36
PAGE_SIZE = 4096  # docs/ladder.md's size: the ladder's default where a file has it


def default_size(runs):
    """The pages' size where these runs have it, so that a file of 1024-4096 (tools/run) and a shipped
    file of 1024-8192 show the same shape; else the largest square shape."""
    sizes = square_sizes(runs)
    return PAGE_SIZE if PAGE_SIZE in sizes else max(sizes or {0})


def square_sizes(runs):
    return {s["m"] for run in runs for s in run["shapes"] if s["m"] == s["n"] == s["k"]}


def bar(value, top):
    filled = 0 if top <= 0 else round(BAR_WIDTH * min(value / top, 1.0))
    return "█" * filled + "·" * (BAR_WIDTH - filled)


def render(document, path, size=None, pairs=()):
    """The ladder of one results file as text; pairs: [(path, document)] holding runs of two steps
    from one run of the benchmarks."""
    device = document["device"]
    lines = [f"The ladder on {device['name']} ({device.get('sms', '?')} SMs, {device.get('clock_mhz', '?')} MHz), "
             f"from {os.path.relpath(path)}"]
    not_in_one_run, paired_from = [], set()
    for kind, title, runs in results_lib.ladder_runs(document):
        if not runs:
            continue
        chosen = size or default_size(runs)
        rows = results_lib.ladder_rows(document, runs, chosen, kind, pairs, fallback=True)
        if not rows:
            continue
        top = max([r["gflops"] for r in rows] + [r["cublas"] or 0 for r in rows])
        lines += ["", f"{title}, at {chosen}³ (bars: GFLOPS, | marks cuBLAS; % of peak: the "
                  f"{results_lib.PEAK_NAMES[kind]})",
                  f"{'step':<22} {'GFLOPS':>9} {'× before':>9} {'of cuBLAS':>10} {'of peak':>8}"]
        for r in rows:
            if r["gain"]:
                gain = f"{r['gain']:.2f}×" + ("*" if r["gain_from"] else "")
                if r["gain_from"]:
                    paired_from.add(os.path.relpath(r["gain_from"]))
            else:
                gain = "–" if r["gain_note"] == "not in one run" else ""
                if r["gain_note"] == "not in one run":
                    not_in_one_run.append(r["step"])
            fraction = f"{100 * r['fraction']:.0f}%" if r["fraction"] is not None else "  ?"
            peak = f"{100 * r['peak_fraction']:.0f}%" if r["peak_fraction"] is not None else "?"
            drawn = bar(r["gflops"], top)
            if r["cublas"]:
                mark = min(BAR_WIDTH - 1, round(BAR_WIDTH * r["cublas"] / top) - 1)
                drawn = drawn[:mark] + "|" + drawn[mark + 1:]
            size_note = "" if r["m"] == chosen else f"  (at {r['m']}³)"
            verdict = "" if r["verdict"] == "PASS" else f"  {r['verdict'] or 'unchecked'}"
            lines.append(f"{r['step']:<22} {r['gflops']:>9.0f} {gain:>9} {fraction:>10} {peak:>8}  "
                         f"{drawn}{size_note}{verdict}")
    if not_in_one_run:
        lines += ["", f"–: not measured in one run with the step before ({', '.join(not_in_one_run)}): the file keeps "
                  "each step's latest run, from another session; run both in one call "
                  "(tools/bench_all.py --steps A,B), or give such a pair with --pairs."]
    if paired_from:
        lines += [f"*: the gain from a pair of runs in one run, in {', '.join(sorted(paired_from))}."]
    return "\n".join(lines)


def render_sizes(document, path):
    """The last step of each ladder at results_lib.SIZES_PEOPLE_RUN, as text (docs/ladder.md's table)."""
    device = document["device"]
    columns = results_lib.last_steps_at(document, results_lib.SIZES_PEOPLE_RUN)
    target = f"{100 * results_lib.AT_CUBLAS_SPEED:.0f}%"
    lines = [f"The last step of each ladder at the sizes people run, on {device['name']}, from {os.path.relpath(path)}",
             f"(worst–best fraction of cuBLAS over the step's layouts and outputs; n/m: how many reach {target})", ""]
    width = 24
    lines.append(f"{'M×N×K':<16}" + "".join(f"{kind + ' ' + step[:2]:>{width}}" for kind, step, _, _ in columns))
    for key in results_lib.SIZES_PEOPLE_RUN:
        cells = []
        for _, _, _, at in columns:
            if at[key] is None:
                cells.append(f"{'–':>{width}}")
                continue
            low, high, reach, count = at[key]
            cells.append(f"{f'{100 * low:.0f}–{100 * high:.0f}%  {reach}/{count}':>{width}}")
        lines.append(f"{'×'.join(map(str, key)):<16}" + "".join(cells))
    return "\n".join(lines)


def default_files():
    local = sorted(glob.glob(os.path.join(ROOT, "build", "results", "*.json")))
    local = [f for f in local if not os.path.basename(f).startswith(results_lib.OTHER_FILES)]
    return local or results_lib.results_files(os.path.join(ROOT, "docs", "results"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="results files (default: build/results, else docs/results)")
    parser.add_argument("--shape", type=int, default=None,
                        help=f"the square size to show (default: {PAGE_SIZE}, else the largest in the file)")
    parser.add_argument("--pairs", action="append", default=[], metavar="FILE",
                        help="a results file holding two steps from one run, for the gains the main file "
                             "cannot give (may be repeated)")
    parser.add_argument("--sizes", action="store_true",
                        help="the last step of each ladder at the mid and narrow sizes, not the ladder")
    parser.add_argument("--viewer", default=os.path.join("build", "bin", "gemm_viewer"),
                        help="the viewer's path, for the closing hint")
    args = parser.parse_args(argv)
    if args.sizes and (args.shape is not None or args.pairs):
        parser.error("--sizes shows its own shapes and no gains: leave out --shape and --pairs")
    files = args.files or default_files()
    for path in [f for f in files if os.path.basename(f).startswith(results_lib.OTHER_FILES)]:
        print(f"ladder: skipping {os.path.relpath(path)}: not a file of timed runs (docs/results/README.md)",
              file=sys.stderr)
    files = [f for f in files if not os.path.basename(f).startswith(results_lib.OTHER_FILES)]
    if not files:
        print("ladder: no results files (run tools/bench_all.py on a GPU, or give a file)", file=sys.stderr)
        return 2
    try:
        pairs = [(path, results_lib.load(path)) for path in args.pairs]
    except (OSError, ValueError) as error:
        print(f"ladder: cannot read --pairs file: {error}", file=sys.stderr)
        return 2
    for number, path in enumerate(files):
        try:
            document = results_lib.load(path)
        except (OSError, ValueError) as error:
            print(f"ladder: cannot read {path}: {error}", file=sys.stderr)
            return 2
        text = render_sizes(document, path) if args.sizes else render(document, path, args.shape, pairs)
        print(("\n" if number else "") + text)
    folder = os.path.relpath(os.path.dirname(os.path.abspath(files[0])))
    print(f"\nSee why in the viewer: {args.viewer} --results {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
