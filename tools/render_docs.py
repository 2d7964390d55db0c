#!/usr/bin/env python3
"""Fills the measured tables in docs/*.md from the results files in docs/results/.

A table lives between two markers; everything between them is generated:

    <!-- results-table steps=01_naive,02_gmem_coalescing -->
    <!-- end results-table -->                   (a row per run and shape; % of the peak of the run's
                                                  inputs: fp32, dense 16-bit or FP8 tensor cores)

    <!-- speedup-table base=01_naive step=02_gmem_coalescing -->
    <!-- end speedup-table -->                    (out=bf16: the runs of that output type, else f32;
                                                  digits=2: the speedup to 2 decimals, else 1)

    <!-- tf32-table step=11_split_k_tail -->    (the step, cuBLAS in fp32 and cuBLAS in TF32)
    <!-- end tf32-table -->

    <!-- fp8-table step=19_fp8 -->               (an FP8 step, cuBLASLt with and without fast
    <!-- end fp8-table -->                        accumulation, and the step's variants beside it)

    <!-- fp8-accuracy-table -->                  (the FP8 step's error against K for each PROMOTE,
    <!-- end fp8-accuracy-table -->               from fp8-accuracy-<gpu>.json)

    <!-- model-table steps=14_mma_ldmatrix -->  (a line: the cases, the counters, how close or which
    <!-- end model-table -->                      differ; the full table folded under it)

    <!-- ladder-table kind=16-bit min_arch=90 size=4096 pairs=paired,paired-21-22 -->
    <!-- end ladder-table -->                   (the map of the ladder, docs/ladder.md: a row per step
                                                  of a kind (fp32, 16-bit, fp8) with its idea, its rate,
                                                  the gain over the step before from one run, % of
                                                  cuBLAS and % of the peak; min_arch=90 / below_arch=90:
                                                  the steps whose declared minimum compute capability
                                                  is at least / below 90 (BUILD/steps.json, --build);
                                                  steps=12-14: those steps alone; pairs= subfolders
                                                  holding two steps from one run, for gains the main
                                                  file lacks)

    <!-- ceiling instruction=wgmma -->          (one line: an instruction's measured ceiling per SM and
    <!-- end ceiling -->                          clock, from ceilings-<gpu>.json; ffma, mma_sync,
                                                  wgmma, wgmma_fp8; "not measured yet" without the file)

    <!-- ceilings-table -->                      (every instruction's ceiling)
    <!-- end ceilings-table -->

    <!-- frame-times-table -->                   (the viewer's frame time, from viewer-frame-times.json,
    <!-- end frame-times-table -->                tools/frame_times.py; "not measured yet" without it)

Optional attributes: gpu=<results file name without .json> (default: every results file that has
the steps), shapes=1024,4096x4096x4096 (default: every measured shape), dir=sustained (the results
files of a subfolder of docs/results instead, e.g. the long runs under sustained load). A results-
or fp8-table shows the squares 1024, 2048, 4096 and 8192 and the shapes named by show=4088x4104x4096
(a step's odd shapes), of the runs named by types=nn:bf16:f32,nn:f16:f16 (layout:inputs:output;
default every run); its other rows are folded in a <details> section under it.
--check exits 1 when a doc is not what the results files give (a CTest test runs it), so no
figure in the docs can be typed by hand.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BLOCK = re.compile(r"(<!-- (results-table|speedup-table|tf32-table|fp8-table|fp8-accuracy-table|demo-table|model-table|"
                   r"repeat-table|sweep-table|ladder-table|sizes-table|ceilings-table|ceiling|tile-table|code|frame-times-table)([^>]*)-->\n)(.*?)(<!-- end \2 -->)",
                   re.S)
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


# The squares every step page's tables show; other shapes (odd ones, and sizes between) are folded
# under the table unless the marker names them with show=.
STANDARD_SQUARES = (1024, 2048, 4096, 8192)


def shown_shapes(attributes):
    """The shapes a table shows unfolded: the standard squares and those named by show=."""
    wanted = {(n, n, n) for n in STANDARD_SQUARES}
    return wanted | (shape_filter({"shapes": attributes["show"]}) if "show" in attributes else set())


def shown_types(attributes):
    """The runs a table shows unfolded, by types=nn:bf16:f32,nt:f16:f16 (layout:inputs:output); None: all."""
    if "types" not in attributes:
        return None
    return {tuple(item.lower().split(":")) for item in attributes["types"].split(",")}


def is_shown(attributes, run, key):
    types = shown_types(attributes)
    return key in shown_shapes(attributes) and (
        types is None or (run.get("layout", "nn"), run.get("dtype", "f32"), run.get("out", "f32")) in types)


def fold(header, shown, more, what="row"):
    """A table whose rows `more` are one click away: the shown rows, then the rest in a <details>
    section with the same header (GitHub renders Markdown inside <details> after a blank line)."""
    out = header + shown
    if more:
        labels = []
        for row in more:
            label = row.split(" | ")[1] if row.count(" | ") > 1 else row
            label = label.split(" (")[0]
            if label not in labels:
                labels.append(label)
        out += ["", f"<details><summary>{len(more)} more {what}{'s' if len(more) > 1 else ''}: "
                f"{', '.join(labels)}</summary>", ""] + header + more + ["", "</details>"]
    return out


def peak_kinds(runs):
    """The kinds of peak the runs are measured against, in ladder order."""
    order = ("fp32", "16-bit", "fp8")
    return sorted({results_lib.input_kind(run.get("dtype")) for run in runs}, key=order.index)


def peak_header(kinds):
    names = {"fp32": "% of fp32 peak", "16-bit": "% of tensor-core peak", "fp8": "% of FP8 peak"}
    return names[kinds[0]] if len(kinds) == 1 else "% of peak"


def peak_cell(device, run, gflops):
    peak = results_lib.peak_gflops(device, results_lib.input_kind(run.get("dtype")))
    return f"{100 * gflops / peak:.1f}%" if peak else "–"


def peak_caption(device, kinds):
    return " ".join(results_lib.peak_formula(device, kind) + "." for kind in kinds) + \
        ("" if kinds == ["fp32"] else " ([peaks](ladder.md#peaks-and-ceilings))")


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
    """The runs of the steps named, a row per shape: time, rate, % of the peak the run's inputs are
    measured against (fp32, dense 16-bit or FP8 tensor cores), cuBLAS, error and verdict. The
    standard squares and the shapes named by show= are shown, the rest folded under the table."""
    steps = attributes.get("steps", "").split(",")
    wanted = shape_filter(attributes)
    out = []
    for path, document in documents:
        runs = [run for step in steps for run in find_runs(document, step)]
        if not runs:
            continue
        device, kinds = document["device"], peak_kinds(runs)
        header = [f"| step | M×N×K | median ms | GFLOPS | {peak_header(kinds)} | cuBLAS GFLOPS | % of cuBLAS | "
                  "rel. error | check |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---|"]
        shown, more = [], []
        for run in runs:
            name = run["step"] + (f" ({run['variant']})" if run.get("variant") else "")
            if run.get("dtype", "f32") != "f32":  # a tensor-core run: its layout and types
                name += " " + types_label(run)
            for shape in run["shapes"]:
                key = (shape["m"], shape["n"], shape["k"])
                if wanted and key not in wanted:
                    continue
                timing, cublas, check = shape.get("time"), shape.get("cublas"), shape.get("check")
                error = check["relative_frobenius"] if check else None
                row = "| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                    name, row_label(run, shape),
                    fmt(timing["median_ms"], 3) if timing else "–",
                    fmt(timing["gflops"]) if timing else "–",
                    peak_cell(device, run, timing["gflops"]) if timing else "–",
                    fmt(cublas["gflops"]) if cublas else "–",
                    f"{100 * shape['fraction_of_cublas']:.1f}%" if cublas else "–",
                    f"{error:.1e}" if error is not None else "–",
                    shape["verdict"])
                (shown if is_shown(attributes, run, key) else more).append(row)
        out += fold(header, shown, more)
        out.append("")
        out.append(source_line(document, path, runs) + " " + peak_caption(device, kinds))
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
        if not results_lib.same_run(base_run, step_run):
            # A ratio of two sessions' medians would carry the clocks and the card of each: the pages
            # promise a speedup from one run of the benchmarks, as the ladder does.
            out.append(f"*{document['device']['name']}: its file's runs of {base} and {step} are not from one run "
                       f"of the benchmarks ({run_stamp(base_run)}; {run_stamp(step_run)}): no speedup is given.*")
            out.append("")
            continue
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
            # The runs compared, named in the header: a page with several types has several tables.
            out.append(f"| M×N×K ({types_label(step_run)}) | {base} GFLOPS | {step} GFLOPS | speedup |")
            out.append("|---|---:|---:|---:|")
            out.extend(rows)
            out.append("")
            out.append(source_line(document, path, [base_run, step_run]))
            out.append("")
    return "\n".join(out) if out else NO_RESULTS


def run_stamp(run):
    return f"{run.get('date', '?')[:10]}, commit {short_commit(run.get('commit', '?'))}"


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
        header = ("| types | M×N×K | TFLOPS | % of FP8 peak | cuBLASLt TFLOPS | % of cuBLASLt | "
                  "cuBLASLt fast accum. TFLOPS |")
        rule = "|---|---|---:|---:|---:|---:|---:|"
        for name in variants:
            header += f" {name} TFLOPS | {name} % of cuBLASLt |"
            rule += "---:|---:|"
        rows, more = [], []
        for run in mains:
            name = (f"{run['variant']}: " if run.get("variant") else "") + types_label(run)
            for shape in run["shapes"]:
                key = (shape["m"], shape["n"], shape["k"])
                if "time" not in shape or (wanted and key not in wanted):
                    continue
                cublas, fast = shape.get("cublas"), shape.get("cublas_fast_accum")
                cells = [name, row_label(run, shape), tflops(shape["time"]),
                         peak_cell(document["device"], run, shape["time"]["gflops"]),
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
                (rows if is_shown(attributes, run, key) else more).append("| " + " | ".join(cells) + " |")
        if not rows and not more:
            continue
        shown = mains + [v for listed in beside.values() for v in listed]
        out += fold([header, rule], rows, more) + [""]
        caption = source_line(document, path, shown) + " " + peak_caption(document["device"], ["fp8"])
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
        # The profiler's check is per GPU: say whether this file's GPU profiled this step.
        comparison = os.path.join(os.path.dirname(path), "model-vs-ncu-" + os.path.basename(path))
        profiled = os.path.exists(comparison) and any(
            case.get("step") == step for case in results_lib.load(comparison).get("cases", []))
        checked = ("checked against the profiler below" if profiled else
                   "the profiler's check below was made on another GPU; the model does not depend on the GPU")
        out.append("")
        out.append(f"*{device['name']}, driver {device['driver']}; run {runs[0].get('date', '?')[:10]}, commit "
                   f"{short_commit(runs[0].get('commit', '?'))}; {runs[0]['blocks']} blocks × {runs[0]['repeats']} "
                   f"repetitions per launch, median of {', '.join(map(str, reps))} launches; wavefronts from the "
                   f"access model ({checked}); from `{os.path.relpath(path, ROOT)}`.*")
        out.append("")
    return "\n".join(out) if out else NO_RESULTS


def model_summary(rows):
    """One line for a model-vs-profiler table: how many cases and counters, and either how close every
    counter came or which differ (by counter: in how many cases, by how much, whether held to the
    rule). rows: (case label, counter, predicted, measured, agree, held)."""
    cases = len({row[0] for row in rows})
    head = f"**{cases} case{'s' if cases != 1 else ''}, {len(rows)} counters:"
    def off(row):
        return (row[3] - row[2]) / max(abs(row[2]), 1)
    differ = [row for row in rows if not row[4]]
    if not differ:
        worst = max((abs(off(row)) for row in rows), default=0.0)
        closeness = "is the model's exactly" if worst == 0 else f"within {100 * worst:.1f}% of the model's"
        return f"{head} every counter {closeness}** (Nsight Compute against the access model; the table below)."
    parts = []
    for counter in dict.fromkeys(row[1] for row in differ):
        mine = [row for row in differ if row[1] == counter]
        low, high = min(off(row) for row in mine), max(off(row) for row in mine)
        spread = f"{100 * low:+.1f}%" + (f" to {100 * high:+.1f}%" if high != low else "")
        held = sum(row[5] for row in mine)
        parts.append(f"{counter} in {len(mine)} case{'s' if len(mine) != 1 else ''} ({spread}"
                     + (", not held to the rule" if held == 0 else f", {held} held to the rule") + ")")
    return f"{head} all agree with the model but {len(differ)}**: {'; '.join(parts)} (the table below)."


def model_table(attributes, results_dir):
    """Predicted against measured counters, from model-vs-ncu-*.json: a line that sums them up, the
    full table folded under it."""
    steps = attributes["steps"].split(",")
    names = sorted(n for n in os.listdir(results_dir) if n.startswith("model-vs-ncu-") and n.endswith(".json"))
    out = []
    for name in names:
        document = results_lib.load(os.path.join(results_dir, name))
        cases = [c for c in document["cases"] if c["step"] in steps]
        if not cases:
            continue
        rows, facts = [], []
        for case in cases:
            label = case["variant"] or f"{case['shape']}, β={case['beta']:g}"
            for counter, values in case["counters"].items():
                if counter.endswith("requests") and not counter.startswith("shared"):
                    continue
                if values["predicted"] == 0 and values["measured"] == 0:
                    continue
                held = case.get("held", True) and values.get("held", True)
                verdict = "yes" if values["agree"] else ("**no**" if held else "no (not held)")
                rows.append(f"| {case['step']} | {label} | {counter} | {values['predicted']:,} | "
                            f"{values['measured']:,} | {verdict} |")
                facts.append((f"{case['step']} {label}", counter, values["predicted"], values["measured"],
                              values["agree"], held))
        commits = ", ".join(sorted({short_commit(c.get("commit", document["commit"])) for c in cases}))
        out += [model_summary(facts), "", "<details><summary>The counters, case by case</summary>", "",
                "| step | case | counter | predicted | measured | agree |", "|---|---|---|---:|---:|---|"] + rows
        out += ["", "</details>", ""]
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
        # Results per thread is TM x TN, the register tile of the fp32 steps; a tensor-core step's
        # accumulators follow its instruction's layout, and the sweep does not count them.
        per_thread = any(key in keys for key in ("TM", "TN"))
        columns = keys + (["results / thread"] if per_thread else []) + [
            "registers", "local B", "blocks / SM", "occupancy", "GFLOPS", "% of cuBLAS", "check"]
        out.append("| " + " | ".join(columns) + " |")
        out.append("|" + "---:|" * (len(columns) - 1) + "---|")  # every column right-aligned but the last
        for row in rows:
            kernel = row["kernel"]
            cells = [str(row["params"][k]) for k in keys] + ([str(row["results_per_thread"])] if per_thread else [])
            cells += [str(kernel["registers"]), str(kernel["local_bytes"]), str(kernel["blocks_per_sm"]),
                      "{:.0f}%".format(100 * kernel["occupancy"]), fmt(row["time"]["gflops"]),
                      "{:.1f}%".format(100 * row["cublas"]["median_ms"] / row["time"]["median_ms"]), row["verdict"]]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out.append(f"*{document['device']['name']}, {rows[0]['m']}×{rows[0]['n']}×{rows[0]['k']}, run "
                   f"{document['date'][:10]}, commit {short_commit(document['commit'])}; from `docs/results/{name}` "
                   f"(tools/sweep_params.py).*")
        out.append("")
    return "\n".join(out) if out else "*Not swept yet: run `tools/sweep_params.py` on a GPU.*\n"


# The ladder's instructions whose ceilings tools/experiments/instruction_ceilings.cu measures: what a
# line calls each, and the peak its rate per SM and clock is a fraction of.
CEILING_INSTRUCTIONS = {
    "ffma": ("FFMA", "fp32"),
    "mma_sync": ("mma.sync m16n8k16", "16-bit"),
    "mma_sync_ldmatrix": ("step 14's loop: ldmatrix and mma.sync", "16-bit"),
    "mma_sync_ldmatrix_barrier": ("step 14's loop with its barrier", "16-bit"),
    "wgmma": ("wgmma m64n256k16", "16-bit"),
    "wgmma_fp8": ("FP8 wgmma m64n192k32", "fp8"),
}
CEILING_COMMAND = ("run `tools/experiments/instruction_ceilings.cu` on a GPU ([how](ladder.md#peaks-and-ceilings))")


def best_ceiling(document, instruction, phase):
    """The configuration of an instruction that measured the most FLOP per SM per clock in a phase."""
    entries = [c for c in document["ceilings"] if c["instruction"] == instruction and c["phase"] == phase]
    return max(entries, key=lambda c: c["flop_per_sm_clock"]) if entries else None


def ceiling_source(document, path):
    device = document["device"]
    return (f"{device['name']}, {device['sms']} SMs, driver {device['driver']}, runtime {device['runtime']}; run "
            f"{document['date'][:10]}, commit {short_commit(document['commit'])}; from "
            f"`{os.path.relpath(path, ROOT)}` (tools/experiments/instruction_ceilings.cu)")


def ceiling_line(attributes, results_dir):
    """One line: an instruction's measured ceiling per SM and clock, as a fraction of its peak."""
    instruction = attributes["instruction"]
    if instruction not in CEILING_INSTRUCTIONS:
        raise RuntimeError(f"ceiling: unknown instruction {instruction!r} (one of {', '.join(CEILING_INSTRUCTIONS)})")
    label, kind = CEILING_INSTRUCTIONS[instruction]
    lines = []
    for path in results_lib.ceilings_files(results_dir):
        document = results_lib.load(path)
        short, sustained = best_ceiling(document, instruction, "short"), best_ceiling(document, instruction, "sustained")
        if short is None:
            continue
        device = document["device"]
        per_clock = results_lib.flop_per_sm_clock(device["compute_capability"], kind)
        share = f", {100 * short['flop_per_sm_clock'] / per_clock:.1f}% of the {results_lib.PEAK_NAMES[kind]}'s {per_clock}" \
            if per_clock else ""
        held = (f"; over {sustained['launches']} longer launches, at the power limit: "
                f"{sustained['flop_per_sm_clock']:,.0f} at a median {sustained['clock_mhz']:,.0f} MHz") if sustained else ""
        if sustained and per_clock and sustained["flop_per_sm_clock"] >= 0.995 * per_clock:
            # Each launch's rate is divided by the clock block 0 read over its own run, not the
            # clock of every SM over the whole launch: a rate at the peak is the peak, within that.
            held += " (the peak, within the clock reading)"
        lines.append(f"**Ceiling of {label}** alone, with no memory traffic: {short['flop_per_sm_clock']:,.0f} FLOP per "
                     f"SM per clock{share} ({short['config']}, {short['launches']} launches back to back, "
                     f"{short['tflops']:,.1f} TFLOPS at a median {short['clock_mhz']:,.0f} MHz{held}). "
                     f"*{ceiling_source(document, path)}.*")
    return "\n\n".join(lines) if lines else f"**Ceiling of {label}:** not measured yet: {CEILING_COMMAND}.\n"


def frame_times_table(results_dir):
    """The viewer's median frame time per selection, on the machine tools/frame_times.py ran on."""
    path = os.path.join(results_dir, "viewer-frame-times.json")
    if not os.path.exists(path):
        return "*Not measured yet: run `tools/frame_times.py --build build`.*\n"
    document = results_lib.load(path)
    out = ["| what | median frame time | frames | vertices | indices | command |", "|---|---:|---:|---:|---:|---|"]
    for case in document["cases"]:
        out.append(f"| {case['what']} | {case['median_ms']:.2f} ms | {case['frames']} | {case['vertices']:,} | "
                   f"{case['indices']:,} | `{case['command']}` |")
    machine = document["machine"]
    out += ["", f"*{machine['cpu']}, {machine['cores']} cores, load average {machine['load_before']} before the run, "
                f"{machine['display']}; run {document['date'][:10]}, commit {short_commit(document['commit'])}; from "
                f"`{os.path.relpath(path, ROOT)}` (tools/frame_times.py).*"]
    return "\n".join(out) + "\n"


def ceilings_table(attributes, results_dir):
    """Every instruction's ceiling, short and sustained, per clock and as a fraction of its peak."""
    out = []
    for path in results_lib.ceilings_files(results_dir):
        document = results_lib.load(path)
        device = document["device"]
        out += ["| instruction | configuration | TFLOPS | MHz | FLOP / SM / clock | of the peak per clock | "
                "sustained: TFLOPS | MHz | FLOP / SM / clock |",
                "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for instruction, (label, kind) in CEILING_INSTRUCTIONS.items():
            short, sustained = best_ceiling(document, instruction, "short"), best_ceiling(document, instruction, "sustained")
            if short is None:
                continue
            per_clock = results_lib.flop_per_sm_clock(device["compute_capability"], kind)
            out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                label, short["config"], fmt(short["tflops"]), f"{short['clock_mhz']:,.0f}",
                f"{short['flop_per_sm_clock']:,.0f}",
                f"{100 * short['flop_per_sm_clock'] / per_clock:.1f}% of {per_clock}" if per_clock else "–",
                fmt(sustained["tflops"]) if sustained else "–",
                f"{sustained['clock_mhz']:,.0f}" if sustained else "–",
                f"{sustained['flop_per_sm_clock']:,.0f}" if sustained else "–"))
        out += ["", f"*{ceiling_source(document, path)}. The best configuration of each instruction; "
                "the median of 20 launches back to back, and of 400 ten times longer ones (sustained); each "
                "launch's rate per SM and clock is over the clock it measured.*", ""]
    return "\n".join(out) if out else f"*Not measured yet: {CEILING_COMMAND}.*\n"


def step_range(text):
    """"12-14" or "12,14,15" -> {"12", "13", "14"} (step numbers as two digits)."""
    numbers = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        numbers |= {f"{n:02d}" for n in range(int(first), int(last or first) + 1)}
    return numbers


# The steps' declarations (gemm_add_step), as CMake writes them into BUILD/steps.json: read when a
# table selects steps by what they declare (a ladder-table's min_arch=, below_arch=).
MANIFEST_PATH = os.path.join(ROOT, "build", "steps.json")
_manifest = None


class ManifestMissing(Exception):
    pass


def declared_steps():
    """{name: the step's entry of BUILD/steps.json}."""
    global _manifest
    if _manifest is None:
        if not os.path.exists(MANIFEST_PATH):
            raise ManifestMissing(f"no {MANIFEST_PATH}, which a ladder-table's min_arch= or below_arch= reads: "
                                  "configure the build first (cmake -S . -B build), or pass --build DIR")
        with open(MANIFEST_PATH, encoding="utf-8") as handle:
            _manifest = {step["name"]: step for step in json.load(handle)["steps"]}
    return _manifest


def ladder_selects(attributes, step, declared=None):
    """Whether a ladder-table shows the step (its folder name) among the rows of its kind: every step
    of the kind, or those its steps= names, or those whose declared minimum compute capability is at
    least min_arch= or below below_arch= (the tensor-core steps before Hopper and the Hopper ones)."""
    if "steps" in attributes and step[:2] not in step_range(attributes["steps"]):
        return False
    if "min_arch" in attributes or "below_arch" in attributes:
        entry = (declared if declared is not None else declared_steps()).get(step)
        if entry is None:
            return False
        arch = entry.get("min_arch") or 0
        if "min_arch" in attributes and arch < int(attributes["min_arch"]):
            return False
        if "below_arch" in attributes and arch >= int(attributes["below_arch"]):
            return False
    return True


def step_idea(step, docs_dir, run):
    """The step's page and its one idea, as the page's title says it ("10 · A cp.async pipeline");
    without the page, the program's own description."""
    pages = sorted(n for n in os.listdir(docs_dir) if n.startswith(step[:2] + "-") and n.endswith(".md")) \
        if os.path.isdir(docs_dir) else []
    if pages:
        with open(os.path.join(docs_dir, pages[0]), encoding="utf-8") as handle:
            title = handle.readline().lstrip("# ").strip()
        return f"[{step[:2]}]({pages[0]})", title.split(" · ", 1)[-1]
    return step[:2], run.get("description", "")


def ladder_table(attributes, documents, results_dir):
    """The map of the ladder for one kind of step (fp32, 16-bit, fp8): a row per step at size^3 with
    its idea, its rate, the gain over the step before from one run, % of cuBLAS and % of the peak."""
    kind, size = attributes.get("kind", "fp32"), int(attributes.get("size", "4096"))
    pairs = []
    for folder in attributes.get("pairs", "").split(",") if attributes.get("pairs") else []:
        pairs += [(f, results_lib.load(f)) for f in results_lib.results_files(os.path.join(results_dir, folder))]
    docs_dir = os.path.normpath(os.path.join(results_dir, ".."))
    tera = kind != "fp32"
    out = []
    for path, document in documents:
        title, runs = next((title, runs) for k, title, runs in results_lib.ladder_runs(document) if k == kind)
        rows = [r for r in results_lib.ladder_rows(document, runs, size, kind, pairs)
                if ladder_selects(attributes, r["step"])]
        if not rows:
            continue
        out += [f"| step | the idea | {'TFLOPS' if tera else 'GFLOPS'} at {size}³ | × the step before | "
                f"% of {'cuBLASLt' if kind == 'fp8' else 'cuBLAS'} | % of peak |",
                "|---|---|---:|---:|---:|---:|"]
        used = set()
        for r in rows:
            link, idea = step_idea(r["step"], docs_dir, r["run"])
            if r["gain"]:
                gain = f"{r['gain']:.2f}×" + ("†" if r["gain_from"] else "")
                if r["gain_from"]:
                    used.add(os.path.relpath(r["gain_from"], ROOT))
            else:
                gain = "–, not in one run" if r["gain_note"] == "not in one run" else "–"
            rate = fmt(r["gflops"] / 1000.0) if tera else fmt(r["gflops"], 0)
            out.append(f"| {link} | {idea} | {rate} | {gain} | "
                       + (f"{100 * r['fraction']:.1f}%" if r["fraction"] is not None else "–") + " | "
                       + (f"{100 * r['peak_fraction']:.1f}%" if r["peak_fraction"] is not None else "–") + " |")
        caption = source_line(document, path, [r["run"] for r in rows]) + f" Runs: {title}. " + \
            results_lib.peak_formula(document["device"], kind) + "."
        caption += (" A gain is the ratio of two runs' medians from one run of the benchmarks (the same commit "
                    "within three hours, `same_run`); where the file's run of the step before is from another "
                    "session it is not given")
        caption += (f"; †: from the pair measured in one run in `{'`, `'.join(sorted(used))}`." if used else ".")
        out += ["", caption, ""]
    return "\n".join(out) if out else NO_RESULTS


def sizes_table(attributes, documents, results_dir):
    """The last step of each ladder (fp32, 16-bit, FP8) at the shapes named by shapes= (default:
    results_lib.SIZES_PEOPLE_RUN), in that order: a row per shape, a column per ladder, each cell
    the step's worst and best fraction of cuBLAS (cuBLASLt for FP8) over every layout and output
    type it ran there, and how many of them reach results_lib.AT_CUBLAS_SPEED (last_steps_at)."""
    order = [tuple(int(p) for p in (item.split("x") if "x" in item else [item] * 3))
             for item in attributes["shapes"].split(",")] if "shapes" in attributes else results_lib.SIZES_PEOPLE_RUN
    docs_dir = os.path.normpath(os.path.join(results_dir, ".."))
    target = f"{100 * results_lib.AT_CUBLAS_SPEED:.0f}%"
    out = []
    for path, document in documents:
        columns = results_lib.last_steps_at(document, order)
        if not columns:
            continue
        out += ["| M×N×K | " + " | ".join(
                    f"{kind}, step {step_idea(step, docs_dir, runs[0])[0]}: % of {'cuBLASLt' if kind == 'fp8' else 'cuBLAS'}"
                    for kind, step, runs, _ in columns) + " |",
                "|---|" + "---:|" * len(columns)]
        for key in order:
            cells = []
            for _, _, _, at in columns:
                if at[key] is None:
                    cells.append("not measured")
                    continue
                low, high, reach, count = at[key]
                span = f"{100 * low:.1f}%" if count == 1 else f"{100 * low:.1f}–{100 * high:.1f}%"
                cells.append(f"{span} ({reach} of {count} ≥ {target})")
            out.append(f"| {key[0]}×{key[1]}×{key[2]} | " + " | ".join(cells) + " |")
        timed = [r for _, _, runs, at in columns for r in runs
                 if any((s["m"], s["n"], s["k"]) in at for s in r["shapes"])]
        out += ["", source_line(document, path, timed or [r for _, _, runs, _ in columns for r in runs]) +
                " Each cell: the worst and the best of the step's runs at that shape (every layout and output type "
                "it offers), each against cuBLAS timed in turn in the same process.", ""]
    return "\n".join(out) if out else NO_RESULTS


def quote_definition(lines, name):
    """The lines of a definition of `name` in a C++ source, with the comment right above it: a
    function (through its closing brace) or a constant (one statement)."""
    head = re.compile(r"^(?:(?:inline|GEMM_HD|constexpr|static|template\s*<[^>]*>)\s+)*[\w:<>,&*\s]*?\b"
                      + re.escape(name) + r"\s*(\(|=|\{)")
    for index, line in enumerate(lines):
        match = head.match(line)
        if not match or line.startswith((" ", "\t", "//")):
            continue
        start = index
        while start > 0 and lines[start - 1].lstrip().startswith("//"):
            start -= 1
        end, depth = index, 0
        if match.group(1) == "(":
            opened = False
            for end in range(index, len(lines)):
                depth += lines[end].count("{") - lines[end].count("}")
                opened = opened or "{" in lines[end]
                if opened and depth <= 0:
                    break
        else:
            while not lines[end].split("//")[0].rstrip().endswith(";"):
                end += 1
        return lines[start:end + 1]
    raise RuntimeError(f"code: no top-level definition of {name!r}")


def code_quote(attributes):
    """Definitions quoted from a source file of the checkout (names=, in that order), so that a
    page's quote is the code as it is: --check fails when the code changes."""
    path = os.path.join(ROOT, attributes["file"])
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    quoted = []
    for name in attributes["names"].split(","):
        quoted += ([""] if quoted else []) + quote_definition(lines, name)
    return "\n".join([f"From `{attributes['file']}`:", "", "```cpp"] + quoted + ["```"])


def tile_table(attributes, documents):
    """The tile a step ran at each measured shape, from the tunables its results file records (a
    step choosing its tile by shape records the shape's own), with the rate and % of cuBLAS."""
    step = attributes["step"]
    wanted = shape_filter(attributes)
    out = []
    for path, document in documents:
        runs = find_runs(document, step)
        kind_types = {k: types for k, _, types in results_lib.LADDER_KINDS}
        preferred = [r for r in runs if shown_types(attributes) and is_shown(attributes, r, None)
                     or all(r.get(key, "f32") == value for key, value in
                            kind_types[results_lib.input_kind(r.get("dtype"))].items())]
        run = next((r for r in preferred if not r.get("variant")), None)
        if run is None:
            continue
        tera = run.get("dtype", "f32") != "f32"
        out += [f"| M×N×K | tile (BM × BN) | chosen by shape | {'TFLOPS' if tera else 'GFLOPS'} | % of cuBLAS |",
                "|---|---|---|---:|---:|"]
        for shape in run["shapes"]:
            if "time" not in shape or (wanted and (shape["m"], shape["n"], shape["k"]) not in wanted):
                continue
            params = dict(run["params"], **shape.get("params", {}))
            own = own_params(run, shape)
            rate = shape["time"]["gflops"] / (1000.0 if tera else 1.0)
            out.append(f"| {shape_label(shape)} | {params.get('BM', '?')} × {params.get('BN', '?')} | "
                       + (params_text(own) if own else "no: the default") + f" | {fmt(rate, 1 if tera else 0)} | "
                       + (f"{100 * shape['fraction_of_cublas']:.1f}%" if "cublas" in shape else "–") + " |")
        out += ["", source_line(document, path, [run]) + f" The run: {step}"
                + (f", {types_label(run)}" if tera else "") + f"; its default {params_text(run['params'])}.", ""]
    return "\n".join(out) if out else NO_RESULTS


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
        elif kind == "code":
            body = code_quote(attributes)
        elif kind == "tile-table":
            body = tile_table(attributes, documents_for(attributes))
        elif kind == "ceiling":
            body = ceiling_line(attributes, results_dir)
        elif kind == "ceilings-table":
            body = ceilings_table(attributes, results_dir)
        elif kind == "frame-times-table":
            body = frame_times_table(results_dir)
        elif kind == "ladder-table":
            body = ladder_table(attributes, documents_for(attributes), results_dir)
        elif kind == "fp8-accuracy-table":
            body = fp8_accuracy_table(attributes, results_dir)
        elif kind == "repeat-table":
            body = repeat_table(results_dir)
        elif kind == "sweep-table":
            body = sweep_table(attributes, results_dir)
        elif kind == "sizes-table":
            body = sizes_table(attributes, documents_for(attributes), results_dir)
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
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="the configured build whose steps.json holds the steps' declarations (default build/)")
    args = parser.parse_args()
    global MANIFEST_PATH
    MANIFEST_PATH = os.path.join(args.build, "steps.json")
    stale = []
    for name in sorted(os.listdir(args.docs)):
        if not name.endswith(".md"):
            continue
        path = os.path.join(args.docs, name)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        try:
            rendered = render(text, args.results)
        except ManifestMissing as error:
            print(f"render_docs: docs/{name}: {error}", file=sys.stderr)
            return 2
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
