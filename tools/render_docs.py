#!/usr/bin/env python3
"""Fills the measured tables in docs/*.md from the results files in docs/results/.

A table lives between two markers; everything between them is generated:

    <!-- results-table steps=01_naive,02_gmem_coalescing -->
    <!-- end results-table -->

    <!-- speedup-table base=01_naive step=02_gmem_coalescing -->
    <!-- end speedup-table -->

    <!-- tf32-table step=11_split_k_tail -->    (the step, cuBLAS in fp32 and cuBLAS in TF32)
    <!-- end tf32-table -->

Optional attributes: gpu=<results file name without .json> (default: every results file that has
the steps), shapes=1024,4096x4096x4096 (default: every measured shape), dir=sustained (the results
files of a subfolder of docs/results instead, e.g. the long runs under sustained load).
--check exits 1 when a doc is not what the results files give (a CTest test runs it), so no
figure in the docs can be typed by hand.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BLOCK = re.compile(r"(<!-- (results-table|speedup-table|tf32-table|demo-table|model-table|repeat-table|sweep-table)([^>]*)-->\n)(.*?)(<!-- end \2 -->)", re.S)
NO_RESULTS = "*No measured results yet: run `tools/bench_all.py` on a GPU (see README).*\n"


def short_commit(commit):
    """A commit stamp for a caption: the hash to 10 characters, and the -dirty mark where there is one."""
    base, dirty, _ = commit.partition("-dirty")
    return base[:10] + dirty


def parse_attributes(text):
    return dict(re.findall(r"(\w+)=(\S+)", text))


def shape_label(shape):
    return f"{shape['m']}×{shape['n']}×{shape['k']}"


def shape_filter(attributes):
    if "shapes" not in attributes:
        return None
    wanted = set()
    for item in attributes["shapes"].split(","):
        parts = item.split("x")
        wanted.add(tuple(int(p) for p in (parts * 3 if len(parts) == 1 else parts)))
    return wanted


def source_line(document, path, runs):
    device = document["device"]
    dates = sorted({run.get("date", "?")[:10] for run in runs})
    commits = sorted({short_commit(run.get("commit", "?")) for run in runs})
    reps = sorted({s["time"]["reps"] for run in runs for s in run["shapes"] if "time" in s})
    rep_text = f"{reps[0]}–{reps[-1]}" if len(reps) > 1 else (str(reps[0]) if reps else "?")
    return (f"*{device['name']} (cc {device['compute_capability']}, {device['sms']} SMs, "
            f"{device['clock_mhz']} MHz), driver {device['driver']}, runtime {device['runtime']}, "
            f"cuBLAS {device.get('cublas', '?')}; run {', '.join(dates)}, commit {', '.join(commits)}; "
            f"median of {rep_text} timed launches, each after an L2 flush; "
            f"from `{os.path.relpath(path, ROOT)}`.*")


# FP32 lanes per SM by compute capability (the CUDA programming guide's arithmetic throughput table).
FP32_LANES = {"7.5": 64, "8.0": 64, "8.6": 128, "8.7": 128, "8.9": 128, "9.0": 128}


def fp32_peak_gflops(device):
    """SMs x FP32 lanes x 2 flops (an FFMA) x clock: the fp32 floor of a GEMM on this GPU."""
    lanes = FP32_LANES.get(device["compute_capability"], 128)
    return device["sms"] * lanes * 2 * device["clock_mhz"] / 1000.0


def find_runs(document, step):
    return [run for run in document["runs"] if run["step"] == step]


def fmt(value, digits=1):
    return f"{value:,.{digits}f}"


def results_table(attributes, documents):
    steps = attributes.get("steps", "").split(",")
    wanted = shape_filter(attributes)
    out = []
    for path, document in documents:
        runs = [run for step in steps for run in find_runs(document, step)]
        if not runs:
            continue
        peak = fp32_peak_gflops(document["device"])
        out.append("| step | M×N×K | median ms | GFLOPS | % of fp32 peak | cuBLAS GFLOPS | % of cuBLAS | rel. error | check |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
        for run in runs:
            name = run["step"] + (f" ({run['variant']})" if run.get("variant") else "")
            if run.get("dtype", "f32") != "f32":  # a tensor-core run: its layout and types
                name += f" {run.get('layout', 'nn').upper()}, {run['dtype']} → {run.get('out', 'f32')}"
            for shape in run["shapes"]:
                if wanted and (shape["m"], shape["n"], shape["k"]) not in wanted:
                    continue
                timing, cublas, check = shape.get("time"), shape.get("cublas"), shape.get("check")
                error = check["relative_frobenius"] if check else None
                # A shape that ran tunables of its own (a step choosing by shape) names those that differ.
                own = {key: value for key, value in shape.get("params", {}).items() if run["params"].get(key) != value}
                label = shape_label(shape) + (" (" + " ".join(f"{k}={v}" for k, v in own.items()) + ")" if own else "")
                if shape.get("path"):  # a tensor-core shape its kernels do not take: padded copies, timed with it
                    label += " (general path)"
                out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                    name, label,
                    fmt(timing["median_ms"], 3) if timing else "–",
                    fmt(timing["gflops"]) if timing else "–",
                    f"{100 * timing['gflops'] / peak:.1f}%" if timing and run.get("dtype") == "f32" else "–",
                    fmt(cublas["gflops"]) if cublas else "–",
                    f"{100 * shape['fraction_of_cublas']:.1f}%" if cublas else "–",
                    f"{error:.1e}" if error is not None else "–",
                    shape["verdict"]))
        out.append("")
        out.append(source_line(document, path, runs) + f" fp32 peak = {document['device']['sms']} SMs × "
                   f"{FP32_LANES.get(document['device']['compute_capability'], 128)} lanes × 2 × "
                   f"{document['device']['clock_mhz']} MHz = {fmt(peak / 1000, 1)} TFLOPS.")
        out.append("")
    return "\n".join(out) if out else NO_RESULTS


def types_of(run):
    return run.get("dtype", "f32"), run.get("layout", "nn"), run.get("out", "f32")


def compared_runs(base_runs, step_runs):
    """The two runs a speedup table compares: the base's first run with f32 output (a results file
    keeps its runs sorted, and a 16-bit output such as bf16 -> bf16 sorts before bf16 -> f32), and
    the step's run of the same types and layout (its first run where it has none)."""
    base_run = next((run for run in base_runs if types_of(run)[2] == "f32"), base_runs[0])
    step_run = next((run for run in step_runs if types_of(run) == types_of(base_run)), step_runs[0])
    return base_run, step_run


def speedup_table(attributes, documents):
    base, step = attributes["base"], attributes["step"]
    wanted = shape_filter(attributes)
    out = []
    for path, document in documents:
        base_runs, step_runs = find_runs(document, base), find_runs(document, step)
        if not base_runs or not step_runs:
            continue
        base_run, step_run = compared_runs(base_runs, step_runs)
        base_times = {(s["m"], s["n"], s["k"]): s for s in base_run["shapes"] if "time" in s}
        rows = []
        for shape in step_run["shapes"]:
            key = (shape["m"], shape["n"], shape["k"])
            if key not in base_times or "time" not in shape or (wanted and key not in wanted):
                continue
            before = base_times[key]
            rows.append("| {} | {} | {} | {:.1f}× |".format(
                shape_label(shape), fmt(before["time"]["gflops"]), fmt(shape["time"]["gflops"]),
                before["time"]["median_ms"] / shape["time"]["median_ms"]))
        if rows:
            out.append(f"| M×N×K | {base} GFLOPS | {step} GFLOPS | speedup |")
            out.append("|---|---:|---:|---:|")
            out.extend(rows)
            out.append("")
            out.append(source_line(document, path, [base_run, step_run]))
            out.append("")
    return "\n".join(out) if out else NO_RESULTS


def tf32_table(attributes, documents):
    """An fp32 step against cuBLAS in fp32 (the yardstick) and in TF32 on the tensor cores (the
    reference line), for the shapes where the run timed both."""
    step = attributes["step"]
    wanted = shape_filter(attributes)
    out = []
    for path, document in documents:
        runs = find_runs(document, step)[:1]
        rows = []
        for shape in runs[0]["shapes"] if runs else []:
            if "cublas_tf32" not in shape or "time" not in shape or "cublas" not in shape:
                continue
            if wanted and (shape["m"], shape["n"], shape["k"]) not in wanted:
                continue
            rows.append("| {} | {} | {} | {} | {:.1f}× |".format(
                shape_label(shape), fmt(shape["time"]["gflops"]), fmt(shape["cublas"]["gflops"]),
                fmt(shape["cublas_tf32"]["gflops"]), shape["cublas_tf32"]["gflops"] / shape["cublas"]["gflops"]))
        if rows:
            out.append(f"| M×N×K | {step} GFLOPS | cuBLAS fp32 GFLOPS | cuBLAS TF32 GFLOPS | TF32 / fp32 |")
            out.append("|---|---:|---:|---:|---:|")
            out.extend(rows)
            out.append("")
            out.append(source_line(document, path, runs) + " TF32: `" + runs[0]["cublas_tf32_call"] +
                       "`, timed after the comparison.")
            out.append("")
    return "\n".join(out) if out else NO_RESULTS


def demo_table(attributes, documents):
    """The bank demos: per variant, the model's wavefronts per instruction and per launch, the time."""
    step = attributes["step"]
    out = []
    for path, document in documents:
        runs = find_runs(document, step)
        if not runs:
            continue
        out.append("| variant | store wavefronts / instr. | load wavefronts / instr. | "
                   "store wavefronts / launch | load wavefronts / launch | median µs | check |")
        out.append("|---|---:|---:|---:|---:|---:|---|")
        for run in runs:
            p = run["predicted"]
            out.append("| {} | {} | {} | {:,} | {:,} | {} | {} |".format(
                run["variant"], p["store_wavefronts_per_instruction"], p["load_wavefronts_per_instruction"],
                p["shared_store_wavefronts"], p["shared_load_wavefronts"],
                f"{run['time']['median_ms'] * 1000:.1f}" if run.get("time") else "–", run["verdict"]))
        reps = sorted({run["time"]["reps"] for run in runs if run.get("time")})
        device = document["device"]
        out.append("")
        out.append(f"*{device['name']}, driver {device['driver']}; run {runs[0].get('date', '?')[:10]}, commit "
                   f"{short_commit(runs[0].get('commit', '?'))}; {runs[0]['blocks']} blocks × {runs[0]['repeats']} "
                   f"repetitions per launch, median of {', '.join(map(str, reps))} launches; wavefronts from the "
                   f"access model (checked against the profiler below); from `{os.path.relpath(path, ROOT)}`.*")
        out.append("")
    return "\n".join(out) if out else NO_RESULTS


def model_table(attributes, results_dir):
    """Predicted against measured counters, from model-vs-ncu-*.json."""
    steps = attributes["steps"].split(",")
    names = sorted(n for n in os.listdir(results_dir) if n.startswith("model-vs-ncu-") and n.endswith(".json"))
    out = []
    for name in names:
        document = results_lib.load(os.path.join(results_dir, name))
        cases = [c for c in document["cases"] if c["step"] in steps]
        if not cases:
            continue
        out.append("| step | case | counter | predicted | measured | agree |")
        out.append("|---|---|---|---:|---:|---|")
        for case in cases:
            label = case["variant"] or f"{case['shape']}, β={case['beta']:g}"
            for counter, values in case["counters"].items():
                if counter.endswith("requests") and not counter.startswith("shared"):
                    continue
                if values["predicted"] == 0 and values["measured"] == 0:
                    continue
                held = case.get("held", True) and values.get("held", True)
                verdict = "yes" if values["agree"] else ("**no**" if held else "no (not held)")
                out.append(f"| {case['step']} | {label} | {counter} | {values['predicted']:,} | "
                           f"{values['measured']:,} | {verdict} |")
        out.append("")
        out.append(f"*{document['gpu']}, {document['ncu']}, commit {short_commit(document['commit'])}; counters that are 0 "
                   f"in both are left out; from `docs/results/{name}` (tools/check_model_ncu.py).*")
        out.append("")
    return "\n".join(out) if out else "*Not yet checked against the profiler: run `tools/check_model_ncu.py` on a GPU.*\n"


def repeat_table(results_dir):
    """The same demo kernel profiled twice: the run-to-run spread of each counter."""
    out = []
    for name in sorted(n for n in os.listdir(results_dir) if n.startswith("model-vs-ncu-") and n.endswith(".json")):
        document = results_lib.load(os.path.join(results_dir, name))
        if not document.get("repeated_profiles"):
            continue
        out.append("| program | counter | first profile | second profile |")
        out.append("|---|---|---:|---:|")
        for repeat in document["repeated_profiles"]:
            for counter in ("shared_load_requests", "shared_load_wavefronts", "shared_store_wavefronts"):
                out.append(f"| {repeat['step']} {repeat['variant']} | {counter} | {repeat['first'][counter]:,} | "
                           f"{repeat['second'][counter]:,} |")
        out.append("")
        out.append(f"*{document['gpu']}, {document['ncu']}; from `docs/results/{name}`.*")
        out.append("")
    return "\n".join(out) if out else "*Not yet measured.*\n"


def sweep_table(attributes, results_dir):
    """Every compiled configuration of a tunable step, from sweep-<step>-<gpu>.json."""
    step = attributes["step"]
    out = []
    for name in sorted(n for n in os.listdir(results_dir) if n.startswith(f"sweep-{step}-") and n.endswith(".json")):
        document = results_lib.load(os.path.join(results_dir, name))
        rows = sorted(document["configs"], key=lambda r: (r["results_per_thread"], -r["time"]["gflops"]))
        keys = list(rows[0]["params"]) if rows else []
        out.append("| " + " | ".join(keys) + " | results / thread | registers | local B | blocks / SM | occupancy "
                   "| GFLOPS | % of cuBLAS | check |")
        out.append("|" + "---:|" * (len(keys) + 8) + "---|")
        for row in rows:
            kernel = row["kernel"]
            out.append("| " + " | ".join(str(row["params"][k]) for k in keys) + " | {} | {} | {} | {} | {:.0f}% | {} | "
                       "{:.1f}% | {} |".format(row["results_per_thread"], kernel["registers"], kernel["local_bytes"],
                                              kernel["blocks_per_sm"], 100 * kernel["occupancy"],
                                              fmt(row["time"]["gflops"]),
                                              100 * row["cublas"]["median_ms"] / row["time"]["median_ms"],
                                              row["verdict"]))
        out.append("")
        out.append(f"*{document['device']['name']}, {rows[0]['m']}×{rows[0]['n']}×{rows[0]['k']}, run "
                   f"{document['date'][:10]}, commit {short_commit(document['commit'])}; from `docs/results/{name}` "
                   f"(tools/sweep_params.py).*")
        out.append("")
    return "\n".join(out) if out else "*Not swept yet: run `tools/sweep_params.py` on a GPU.*\n"


def render(text, results_dir):
    def documents_for(attributes):
        folder = os.path.join(results_dir, attributes.get("dir", ""))  # dir=sustained: a subfolder
        files = results_lib.results_files(folder) if os.path.isdir(folder) else []
        if "gpu" in attributes:
            files = [f for f in files if os.path.basename(f) == attributes["gpu"] + ".json"]
        return [(f, results_lib.load(f)) for f in files]

    def replace(match):
        kind, attributes = match.group(2), parse_attributes(match.group(3))
        if kind == "model-table":
            body = model_table(attributes, results_dir)
        elif kind == "repeat-table":
            body = repeat_table(results_dir)
        elif kind == "sweep-table":
            body = sweep_table(attributes, results_dir)
        else:
            documents = documents_for(attributes)
            body = {"results-table": results_table, "speedup-table": speedup_table, "tf32-table": tf32_table,
                    "demo-table": demo_table}[kind](attributes, documents)
        return match.group(1) + body.rstrip("\n") + "\n" + match.group(5)

    return BLOCK.sub(replace, text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a doc is out of date")
    parser.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    parser.add_argument("--results", default=os.path.join(ROOT, "docs", "results"))
    args = parser.parse_args()
    stale = []
    for name in sorted(os.listdir(args.docs)):
        if not name.endswith(".md"):
            continue
        path = os.path.join(args.docs, name)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        rendered = render(text, args.results)
        if rendered != text:
            stale.append(name)
            if not args.check:
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(rendered)
    if args.check:
        for name in stale:
            print(f"docs/{name} is out of date with docs/results: run tools/render_docs.py")
        print(f"{0 if stale else 1} passed, {1 if stale else 0} failed")
        return 1 if stale else 0
    print(f"updated {len(stale)} doc(s): {', '.join(stale) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
