#!/usr/bin/env python3
"""Fills the measured tables in docs/*.md from the results files in docs/results/.

A table lives between two markers; everything between them is generated:

    <!-- results-table steps=01_naive,02_gmem_coalescing -->
    <!-- end results-table -->

    <!-- speedup-table base=01_naive step=02_gmem_coalescing -->
    <!-- end speedup-table -->                    (out=bf16: the runs of that output type, else f32;
                                                  digits=2: the speedup to 2 decimals, else 1)

    <!-- tf32-table step=11_split_k_tail -->    (the step, cuBLAS in fp32 and cuBLAS in TF32)
    <!-- end tf32-table -->

    <!-- fp8-table step=19_fp8 -->               (the FP8 step, cuBLASLt with and without fast
    <!-- end fp8-table -->                        accumulation, and the step's variants beside it)

    <!-- fp8-accuracy-table -->                  (the FP8 step's error against K for each PROMOTE,
    <!-- end fp8-accuracy-table -->               from fp8-accuracy-<gpu>.json)

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
BLOCK = re.compile(r"(<!-- (results-table|speedup-table|tf32-table|fp8-table|fp8-accuracy-table|demo-table|model-table|"
                   r"repeat-table|sweep-table)([^>]*)-->\n)(.*?)(<!-- end \2 -->)", re.S)
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


def input_types(run):
    """The inputs' types as a row names them: the run's dtype, or for an FP8 run, whose A and B may be
    of different types, the two as its cuBLASLt call names them ("e5m2 × e4m3")."""
    match = re.match(r"cublasLtMatmul \((\w+) x (\w+),", run.get("cublas_call", ""))
    return f"{match.group(1)} × {match.group(2)}" if match else run.get("dtype", "f32")


def types_label(run):
    """A tensor-core run's layout and types: "NN, bf16 → f32", "NT, e5m2 × e4m3 → bf16"."""
    return f"{run.get('layout', 'nn').upper()}, {input_types(run)} → {run.get('out', 'f32')}"


def own_params(run, shape):
    """The tunables a shape ran that differ from its run's (a step choosing its tile by shape)."""
    return {key: value for key, value in shape.get("params", {}).items() if run["params"].get(key) != value}


def params_text(params):
    return " ".join(f"{key}={value}" for key, value in params.items())


def row_label(run, shape):
    """M×N×K, the tunables the shape ran where they differ from the run's, and "(general path)" where
    a tensor-core step ran it on padded copies (timed with it)."""
    own = own_params(run, shape)
    label = shape_label(shape) + (f" ({params_text(own)})" if own else "")
    return label + (" (general path)" if shape.get("path") else "")


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
                name += " " + types_label(run)
            for shape in run["shapes"]:
                if wanted and (shape["m"], shape["n"], shape["k"]) not in wanted:
                    continue
                timing, cublas, check = shape.get("time"), shape.get("cublas"), shape.get("check")
                error = check["relative_frobenius"] if check else None
                label = row_label(run, shape)
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


def compared_runs(base_runs, step_runs, out="f32"):
    """The two runs a speedup table compares: the base's first run with this output (f32 unless the
    table says; a results file keeps its runs sorted, and a 16-bit output such as bf16 -> bf16 sorts
    before bf16 -> f32), and the step's run of the same types and layout (its first run where it has
    none). A variant run (e.g. step 19's no-promotion) is compared only where nothing else is."""
    base_runs = [run for run in base_runs if not run.get("variant")] or base_runs
    step_runs = [run for run in step_runs if not run.get("variant")] or step_runs
    base_run = next((run for run in base_runs if types_of(run)[2] == out), base_runs[0])
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
        base_run, step_run = compared_runs(base_runs, step_runs, attributes.get("out", "f32"))
        base_times = {(s["m"], s["n"], s["k"]): s for s in base_run["shapes"] if "time" in s}
        digits = int(attributes.get("digits", "1"))
        rows = []
        for shape in step_run["shapes"]:
            key = (shape["m"], shape["n"], shape["k"])
            if key not in base_times or "time" not in shape or (wanted and key not in wanted):
                continue
            before = base_times[key]
            rows.append("| {} | {} | {} | {:.{}f}× |".format(
                shape_label(shape), fmt(before["time"]["gflops"]), fmt(shape["time"]["gflops"]),
                before["time"]["median_ms"] / shape["time"]["median_ms"], digits))
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
                       "`, timed alone after the step and cuBLAS.")
            out.append("")
    return "\n".join(out) if out else NO_RESULTS


def tflops(timing):
    return fmt(timing["gflops"] / 1000.0)


def fp8_table(attributes, documents):
    """The FP8 step against cuBLASLt with the same types, scales, output and layout (fast accumulation
    off: the yardstick), cuBLASLt with fast accumulation (a reference, timed alone after the step and cuBLAS),
    and beside each run the step's variants of the same types (e.g. no-promotion), each against the
    cuBLASLt of its own run. A variant with no run of its types to sit beside gets rows of its own."""
    step = attributes["step"]
    wanted = shape_filter(attributes)
    out = []
    for path, document in documents:
        runs = find_runs(document, step)
        mains = [run for run in runs if not run.get("variant")]
        beside = {id(run): [] for run in mains}
        for run in runs:
            if run.get("variant"):
                partner = next((main for main in mains if types_of(main) == types_of(run)), None)
                if partner is None:
                    mains.append(run)
                    beside[id(run)] = []
                else:
                    beside[id(partner)].append(run)
        if not mains:
            continue
        variants = sorted({variant["variant"] for listed in beside.values() for variant in listed})
        header = "| types | M×N×K | TFLOPS | cuBLASLt TFLOPS | % of cuBLASLt | cuBLASLt fast accum. TFLOPS |"
        rule = "|---|---|---:|---:|---:|---:|"
        for name in variants:
            header += f" {name} TFLOPS | {name} % of cuBLASLt |"
            rule += "---:|---:|"
        rows = []
        for run in mains:
            name = (f"{run['variant']}: " if run.get("variant") else "") + types_label(run)
            for shape in run["shapes"]:
                key = (shape["m"], shape["n"], shape["k"])
                if "time" not in shape or (wanted and key not in wanted):
                    continue
                cublas, fast = shape.get("cublas"), shape.get("cublas_fast_accum")
                cells = [name, row_label(run, shape), tflops(shape["time"]),
                         tflops(cublas) if cublas else "–",
                         f"{100 * shape['fraction_of_cublas']:.1f}%" if cublas else "–",
                         tflops(fast) if fast else "–"]
                for variant_name in variants:
                    variant = next((v for v in beside[id(run)] if v["variant"] == variant_name), None)
                    other = next((o for o in variant["shapes"] if (o["m"], o["n"], o["k"]) == key and "time" in o),
                                 None) if variant else None
                    if other is None:
                        cells += ["–", "–"]
                        continue
                    # Where the variant ran another tile than this row (a choice by shape it does not
                    # make), its cell names the tunables that differ, besides those the variant is about.
                    mine = dict(run["params"], **shape.get("params", {}))
                    its = dict(variant["params"], **other.get("params", {}))
                    differ = {k: v for k, v in its.items()
                              if mine.get(k) != v and run["params"].get(k) == variant["params"].get(k)}
                    cells += [tflops(other["time"]) + (f" ({params_text(differ)})" if differ else ""),
                              f"{100 * other['fraction_of_cublas']:.1f}%" if "cublas" in other else "–"]
                rows.append("| " + " | ".join(cells) + " |")
        if not rows:
            continue
        shown = mains + [v for listed in beside.values() for v in listed]
        out += [header, rule] + rows + [""]
        caption = source_line(document, path, shown)
        first = mains[0]
        if first.get("cublas_call"):
            caption += f" cuBLASLt: `{first['cublas_call']}`, each row with its own types and output"
            if first.get("cublas_fast_accum_call"):
                caption += (f"; fast accumulation: `{first['cublas_fast_accum_call']}`, timed alone after the step and cuBLAS, "
                            "a reference only")
            caption += "."
        for variant in sorted({id(v): v for listed in beside.values() for v in listed}.values(),
                              key=lambda v: v["variant"]):
            changed = {k: v for k, v in variant["params"].items() if first["params"].get(k) != v}
            by_shape = any(shape.get("params") for shape in variant["shapes"])
            caption += (f" {variant['variant']}: {params_text(changed) or 'the same tunables'}, with "
                        f"{params_text(variant['params'])} " + ("as the shapes name them" if by_shape else "at every shape") +
                        "; its % is of the cuBLASLt timed in its own run.")
        out += [caption, ""]
    return "\n".join(out) if out else NO_RESULTS


# The FP8 step's tolerance for f32 output, where the error is the accumulation's: read from the
# harness, so that the accuracy table's caption and the picture say what the verdicts were held to.
FP8_TOLERANCE_SOURCE = os.path.join(ROOT, "common", "harness", "run_tc_step.cu")
FP8_TOLERANCE_NAME = "kFp8F32OutTolerance"


def fp8_tolerance(source=FP8_TOLERANCE_SOURCE):
    """(relative Frobenius, max over rms) of kFp8F32OutTolerance, as the harness declares it."""
    with open(source, encoding="utf-8") as handle:
        match = re.search(FP8_TOLERANCE_NAME + r"\{\s*([0-9.eE+-]+)\s*,\s*([0-9.eE+-]+)\s*\}", handle.read())
    if not match:
        raise RuntimeError(f"{FP8_TOLERANCE_NAME} not found in {os.path.relpath(source, ROOT)}")
    return float(match.group(1)), float(match.group(2)), match.group(1), match.group(2)


def fp8_accuracy_files(results_dir):
    return sorted(os.path.join(results_dir, n) for n in os.listdir(results_dir)
                  if n.startswith("fp8-accuracy-") and n.endswith(".json"))


def promote_text(promote):
    """What a PROMOTE value does, in words."""
    if promote == 0:
        return "never"
    return "every k-tile" if promote == 1 else f"every {promote} k-tiles"


def check_fp8_verdicts(document, name, tolerance):
    """The verdicts must be the tolerance's: a file measured under another tolerance is stale."""
    frobenius, max_over_rms = tolerance[0], tolerance[1]
    for series in document["series"]:
        for point in series["points"]:
            within = point["relative_frobenius"] <= frobenius and point["max_over_rms"] <= max_over_rms
            if within != (point["verdict"] == "PASS"):
                raise RuntimeError(f"{name}: PROMOTE={series['promote']} K={point['k']} is {point['verdict']}, but "
                                   f"{FP8_TOLERANCE_NAME} says otherwise: re-run tools/fp8_accuracy.py")


def fp8_accuracy_table(attributes, results_dir, tolerance=None):
    """Rows K; for each PROMOTE value the relative error, max over rms and the verdict."""
    tolerance = tolerance or fp8_tolerance()
    out = []
    for path in fp8_accuracy_files(results_dir):
        name = os.path.basename(path)
        if "gpu" in attributes and name != f"fp8-accuracy-{attributes['gpu']}.json":
            continue
        document = results_lib.load(path)
        check_fp8_verdicts(document, name, tolerance)
        series = document["series"]
        header, rule = "| K |", "|---:|"
        for one in series:
            label = f"{promote_text(one['promote'])} (PROMOTE={one['promote']})"
            header += f" {label}: rel. error | max / rms | check |"
            rule += "---:|---:|---|"
        yardsticks = document.get("yardsticks", [])
        for one in yardsticks:
            header += f" {one['label']}: rel. error |"
            rule += "---:|"
        by_k = {}
        for index, one in enumerate(series):
            for point in one["points"]:
                by_k.setdefault(point["k"], [None] * (len(series) + len(yardsticks)))[index] = point
        for index, one in enumerate(yardsticks):
            for point in one["points"]:
                by_k.setdefault(point["k"], [None] * (len(series) + len(yardsticks)))[len(series) + index] = point
        out += [header, rule]
        for k in sorted(by_k):
            cells = [f"{k:,}"]
            for point in by_k[k][:len(series)]:
                cells += ([f"{point['relative_frobenius']:.1e}", f"{point['max_over_rms']:.1e}", point["verdict"]]
                          if point else ["–", "–", "–"])
            for point in by_k[k][len(series):]:
                cells.append(f"{point['relative_frobenius']:.1e}" if point else "–")
            out.append("| " + " | ".join(cells) + " |")
        device = document["device"]
        references = sorted({p["reference"] for one in series for p in one["points"]})
        out.append("")
        out.append(f"*{device['name']}, driver {device['driver']}, runtime {device['runtime']}; run "
                   f"{document['date'][:10]}, commit {short_commit(document['commit'])}; M = N = {document['m']}, "
                   f"A and B {document['dtype']}, {document['out']} out, against {', '.join(references)}; rel. error "
                   f"= ‖C − R‖_F / ‖R‖_F; PASS within the tolerance for {document['out']} output "
                   f"(`{FP8_TOLERANCE_NAME}` in `{os.path.relpath(FP8_TOLERANCE_SOURCE, ROOT)}`): rel. error ≤ "
                   f"{tolerance[2]} and max / rms ≤ {tolerance[3]}"
                   + ("; cuBLASLt on the same inputs, against the same reference" if yardsticks else "")
                   + f"; from `docs/results/{name}` (tools/fp8_accuracy.py).*")
        out.append("")
    return "\n".join(out) if out else "*Not measured yet: run `tools/fp8_accuracy.py --out docs/results` on an H100.*\n"


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
        commits = ", ".join(sorted({short_commit(c.get("commit", document["commit"])) for c in cases}))
        out.append(f"*{document['gpu']}, {document['ncu']}, commit {commits}; counters that are 0 "
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
        out.append("|" + "---:|" * (len(keys) + 7) + "---|")  # the named columns are 8, the last one left-aligned
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
        elif kind == "fp8-accuracy-table":
            body = fp8_accuracy_table(attributes, results_dir)
        elif kind == "repeat-table":
            body = repeat_table(results_dir)
        elif kind == "sweep-table":
            body = sweep_table(attributes, results_dir)
        else:
            documents = documents_for(attributes)
            body = {"results-table": results_table, "speedup-table": speedup_table, "tf32-table": tf32_table,
                    "fp8-table": fp8_table, "demo-table": demo_table}[kind](attributes, documents)
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
