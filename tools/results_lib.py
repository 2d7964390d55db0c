"""Reading, merging and checking results files (schema: docs/results/README.md).

Shared by bench_all.py, render_docs.py, validate_results.py and their tests. Python standard
library only.
"""
import json
import math
import os

SCHEMA = "gemm-steps-results/1"
VERDICTS = ("PASS", "FAIL", "unchecked")


# Files in a results folder that are not step results: the profiler comparisons, the tunable
# sweeps, the FP8 steps' accuracy against K and the instructions' measured ceilings.
# The files of docs/results that are not results of runs (the viewer skips the same: viewer_model.cpp
# results_files_in, viewer/web/web.cmake).
OTHER_FILES = ("model-vs-ncu-", "sweep-", "fp8-accuracy-", "ceilings-", "viewer-frame-times")

# The peaks every "% of peak" figure is taken of (render_docs.py's tables, ladder.py, docs/ladder.md),
# each per SM and per clock, so that a results file's SM count and clock give the card's peak at the
# clock the run reports. Named here once.
#
# FP32 lanes per SM by compute capability, each an FFMA (2 FLOP) per clock: the CUDA C++ Programming
# Guide's table of arithmetic instruction throughput (32-bit floating-point multiply-add).
FP32_LANES = {"7.5": 64, "8.0": 64, "8.6": 128, "8.7": 128, "8.9": 128, "9.0": 128}
# Dense tensor-core FLOP per SM per clock (2 per FMA, no sparsity), by compute capability and the
# inputs' width. 8.0 (A100): 4 Tensor Cores x 256 16-bit FMA per clock (NVIDIA A100 Tensor Core GPU
# Architecture whitepaper). 9.0 (H100, H200): twice A100's per SM and clock on the same types, and FP8
# twice again (NVIDIA, "NVIDIA Hopper Architecture In-Depth",
# https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/, and the H100 whitepaper it
# links): 4 Tensor Cores x 512 16-bit FMA per clock. The datasheet's dense figures are SMs x these
# rates x the boost clock it assumes (989.4 TFLOPS 16-bit for the H100 SXM5's 132 SMs: 1830 MHz);
# https://forums.developer.nvidia.com/t/how-to-calculate-the-tensor-core-fp16-performance-of-h100/244727
# works the same arithmetic. Other capabilities are left out rather than guessed.
TENSOR_FLOP_PER_SM_CLOCK = {"8.0": {"16-bit": 2048}, "9.0": {"16-bit": 4096, "fp8": 8192}}
PEAK_NAMES = {"fp32": "fp32 peak", "16-bit": "dense 16-bit tensor-core peak", "fp8": "dense FP8 tensor-core peak"}


def input_kind(dtype):
    """"fp32" (the CUDA-core steps), "16-bit" (f16, bf16) or "fp8" (e4m3, e5m2): what a peak is of."""
    dtype = dtype or "f32"
    if dtype == "f32":
        return "fp32"
    return "fp8" if dtype.startswith("e") else "16-bit"


def flop_per_sm_clock(compute_capability, kind):
    """The peak's FLOP per SM per clock, or None where the tables above do not know the GPU."""
    if kind == "fp32":
        lanes = FP32_LANES.get(compute_capability)
        return None if lanes is None else 2 * lanes
    return TENSOR_FLOP_PER_SM_CLOCK.get(compute_capability, {}).get(kind)


def peak_gflops(device, kind, clock_mhz=None):
    """SMs x FLOP per SM per clock x the clock (the results file's, unless given); None if unknown."""
    per_clock = flop_per_sm_clock(device["compute_capability"], kind)
    if per_clock is None:
        return None
    return device["sms"] * per_clock * (clock_mhz or device["clock_mhz"]) / 1000.0


def peak_formula(device, kind):
    """The peak worked out in words, for a table's caption: "dense 16-bit tensor-core peak = 132 SMs
    x 4096 FLOP/clock x 1980 MHz = 1,070.5 TFLOPS" (the fp32 one as lanes x 2)."""
    per_clock = flop_per_sm_clock(device["compute_capability"], kind)
    if per_clock is None:
        return f"{PEAK_NAMES[kind]}: not known for compute capability {device['compute_capability']}"
    middle = (f"{FP32_LANES[device['compute_capability']]} lanes × 2" if kind == "fp32"
              else f"{per_clock} FLOP/clock")
    return (f"{PEAK_NAMES[kind]} = {device['sms']} SMs × {middle} × {device['clock_mhz']} MHz = "
            f"{peak_gflops(device, kind) / 1000:,.1f} TFLOPS")


# Runs of one bench_all invocation share its commit and follow each other within minutes; a run
# measured in another session (another commit, or the same commit hours apart) met another card
# state, so a ratio of the two is not a measurement. A "session" field, where a writer records one,
# decides alone.
ONE_RUN_WINDOW_S = 3 * 3600


def _seconds(date):
    import datetime
    return datetime.datetime.strptime(date[:19], "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def same_run(a, b):
    """True when runs a and b come from one run of the benchmarks (docs/results/README.md)."""
    if a.get("session") is not None or b.get("session") is not None:
        return a.get("session") == b.get("session")
    if a.get("commit") is None or a.get("commit") != b.get("commit"):
        return False
    try:
        return abs(_seconds(a["date"]) - _seconds(b["date"])) <= ONE_RUN_WINDOW_S
    except (KeyError, ValueError):
        return False


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def run_key(run):
    """Runs of the same step, variant, types and layout replace each other when merged, whatever their
    tunables: a results file describes each step as it is now (bench_all runs the defaults; when a
    default changes, the run of the old one must not linger). Other configurations live in the
    sweep files."""
    return (run["step"], run.get("variant", ""), run.get("dtype", ""), run.get("layout", ""), run.get("out", ""))


def merge(existing, new_runs, device):
    """Returns a document holding `existing`'s runs with every run of `new_runs` added or replaced."""
    if existing is not None and existing.get("device", {}).get("name") != device.get("name"):
        raise ValueError("results file is for %r, these runs are for %r"
                         % (existing.get("device", {}).get("name"), device.get("name")))
    runs = list(existing["runs"]) if existing else []
    index = {run_key(run): i for i, run in enumerate(runs)}
    for run in new_runs:
        key = run_key(run)
        if key in index:
            runs[index[key]] = run
        else:
            index[key] = len(runs)
            runs.append(run)
    runs.sort(key=run_key)
    return {"schema": SCHEMA, "device": device, "runs": runs}


def gflops(m, n, k, ms):
    return 2.0 * m * n * k / (ms * 1e-3) / 1e9 if ms > 0 else 0.0


def validate(document, require_pass=True):
    """Returns a list of problems (empty when the document is consistent)."""
    problems = []
    if document.get("schema") != SCHEMA:
        problems.append(f"schema is {document.get('schema')!r}, expected {SCHEMA!r}")
    device = document.get("device", {})
    for field in ("name", "compute_capability", "sms", "clock_mhz", "driver", "runtime"):
        if field not in device:
            problems.append(f"device lacks {field}")
    runs = document.get("runs")
    if not isinstance(runs, list) or not runs:
        problems.append("no runs")
        return problems
    for run in runs:
        label = f"{run.get('step')}{'/' + run['variant'] if run.get('variant') else ''}"
        for field in ("step", "shapes", "commit", "date"):
            if field not in run:
                problems.append(f"{label}: lacks {field}")
        if run.get("kind") == "bank_demo":
            if run.get("verdict") not in VERDICTS or (require_pass and run.get("verdict") == "FAIL"):
                problems.append(f"{label}: verdict {run.get('verdict')!r}")
            timing = run.get("time")
            if timing and not timing["min_ms"] <= timing["median_ms"] <= timing["max_ms"]:
                problems.append(f"{label}: median outside [min, max]")
            for field in ("shared_load_wavefronts", "shared_store_wavefronts"):
                if field not in run.get("predicted", {}):
                    problems.append(f"{label}: lacks predicted {field}")
            continue
        for shape in run.get("shapes", []):
            where = f"{label} {shape.get('m')}x{shape.get('n')}x{shape.get('k')}"
            verdict = shape.get("verdict")
            if verdict not in VERDICTS:
                problems.append(f"{where}: verdict {verdict!r}")
            if require_pass and verdict == "FAIL":
                problems.append(f"{where}: verdict FAIL in a shipped results file")
            for part in ("time", "cublas", "cublas_tf32", "cublas_fast_accum"):
                timing = shape.get(part)
                if timing is None:
                    continue
                if not timing["min_ms"] <= timing["median_ms"] <= timing["max_ms"]:
                    problems.append(f"{where}: {part} median outside [min, max]")
                if timing["reps"] < 1:
                    problems.append(f"{where}: {part} has no repetitions")
                expected = gflops(shape["m"], shape["n"], shape["k"], timing["median_ms"])
                if not math.isclose(expected, timing["gflops"], rel_tol=1e-6):
                    problems.append(f"{where}: {part} gflops {timing['gflops']} != 2MNK/median {expected}")
            if "time" in shape and "cublas" in shape:
                expected = shape["cublas"]["median_ms"] / shape["time"]["median_ms"]
                if not math.isclose(expected, shape.get("fraction_of_cublas", -1), rel_tol=1e-6):
                    problems.append(f"{where}: fraction_of_cublas inconsistent with the medians")
            if "cublas_tf32" in shape and "cublas_tf32_call" not in run:
                problems.append(f"{where}: a TF32 reference without the run's cublas_tf32_call")
            if "cublas_fast_accum" in shape and "cublas_fast_accum_call" not in run:
                problems.append(f"{where}: a fast-accumulation reference without the run's cublas_fast_accum_call")
            check = shape.get("check")
            if verdict in ("PASS", "FAIL") and check is None:
                problems.append(f"{where}: a verdict without a check")
    return problems


def ceilings_files(directory):
    """The instructions' measured ceilings (tools/experiments/instruction_ceilings.cu --out)."""
    if not os.path.isdir(directory):
        return []
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.startswith("ceilings-") and name.endswith(".json"))


def results_files(directory):
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.endswith(".json") and not name.startswith(OTHER_FILES))


# The ladder: every GEMM step of a results file in step order, in three kinds, each climbing against
# its own cuBLAS (tools/ladder.py prints it, tools/render_docs.py's ladder-table renders it). A kind
# is shown by one run per step, the same types for every step of the kind.
LADDER_KINDS = (
    ("fp32", "fp32 on the CUDA cores, against cuBLAS SGEMM", {"dtype": "f32"}),
    ("16-bit", "tensor cores, f16 in, f32 out, NN, against cublasGemmEx", {"dtype": "f16", "layout": "nn", "out": "f32"}),
    ("fp8", "FP8 tensor cores, e4m3 in, bf16 out, NT, against cuBLASLt (fast accumulation off)",
     {"dtype": "e4m3", "layout": "nt", "out": "bf16"}),
)


def ladder_runs(document):
    """[(kind, title, runs in step order)] for the fp32, 16-bit and FP8 ladders. The bank demos (not
    GEMMs) and variant runs (e.g. no-promotion) are not on it."""
    ladders = []
    for kind, title, types in LADDER_KINDS:
        runs = [run for run in document["runs"]
                if run.get("kind") != "bank_demo" and not run.get("variant")
                and all(run.get(key, "f32" if key == "dtype" else None) == value for key, value in types.items())]
        ladders.append((kind, title, sorted(runs, key=lambda run: run["step"])))  # folders number the ladder
    return ladders


# The sizes the last step of each ladder is held to (#53): squares from 1024 up, a ragged shape, and
# the narrow ones real programs run (a few hundred rows against 4096-wide weights, a deep K); and the
# fraction of cuBLAS each should reach (docs/ladder.md, tools/ladder.py --sizes).
SIZES_PEOPLE_RUN = ((1024, 1024, 1024), (1536, 1536, 1536), (2048, 2048, 2048), (3072, 3072, 3072),
                    (4096, 4096, 4096), (8192, 8192, 8192), (4088, 4104, 4096), (512, 4096, 4096),
                    (1024, 1024, 8192))
AT_CUBLAS_SPEED = 0.95


def last_steps_at(document, shapes):
    """The last step of each ladder at the given shapes ([(m, n, k)]): [(kind, step, runs, cells)],
    where runs are the step's runs of every type (no variants) and cells maps each shape to None (not
    measured) or (worst, best, how many reach AT_CUBLAS_SPEED, how many runs timed it), each a
    fraction of cuBLAS (cuBLASLt for FP8) timed in turn in the same process."""
    columns = []
    for kind, _, ladder in ladder_runs(document):
        if not ladder:
            continue
        last = ladder[-1]["step"]
        runs = [r for r in document["runs"] if r["step"] == last and not r.get("variant")]
        cells = {}
        for key in shapes:
            fractions = [s["fraction_of_cublas"] for r in runs for s in r["shapes"]
                         if (s["m"], s["n"], s["k"]) == tuple(key) and "cublas" in s and "time" in s]
            cells[tuple(key)] = (min(fractions), max(fractions), sum(f >= AT_CUBLAS_SPEED for f in fractions),
                                 len(fractions)) if fractions else None
        columns.append((kind, last, runs, cells))
    return columns


def square_shape(run, size):
    """The run's timed shape size x size x size, or None."""
    return next((s for s in run["shapes"] if s["m"] == s["n"] == s["k"] == size and "time" in s), None)


def pair_from(documents, before, run, size):
    """Runs of `before`'s step and `run`'s step, of the same types, from one run of the benchmarks, in
    one of `documents` ([(path, document)]): (path, before's run, run's run) or None."""
    def same_types(a, b):
        return all(a.get(key) == b.get(key) for key in ("dtype", "layout", "out")) and not a.get("variant")
    for path, document in documents:
        first = [r for r in document["runs"] if r["step"] == before["step"] and same_types(r, before)]
        second = [r for r in document["runs"] if r["step"] == run["step"] and same_types(r, run)]
        for a in first:
            for b in second:
                if same_run(a, b) and square_shape(a, size) and square_shape(b, size):
                    return path, a, b
    return None


def largest_square(run):
    squares = [s for s in run["shapes"] if s["m"] == s["n"] == s["k"] and "time" in s]
    return max(squares, key=lambda s: s["m"]) if squares else None


def ladder_rows(document, runs, size, kind, pairs=(), fallback=False):
    """One row per run that timed size^3 (with fallback, a run without it shows its largest square):
    its rate, fraction of cuBLAS and of the kind's peak, and the gain over the row before, taken only
    where both rows are of one shape and the two runs come from one run of the benchmarks (same_run):
    from this document, else from a pair of the `pairs` documents ([(path, document)]), else None
    with `gain_note` saying why. A pair counts only from the same GPU as the document."""
    rows, previous = [], None
    pairs = [(path, other) for path, other in pairs if other["device"]["name"] == document["device"]["name"]]
    peak = peak_gflops(document["device"], kind)
    for run in runs:
        shape = square_shape(run, size) or (largest_square(run) if fallback else None)
        if shape is None:
            continue
        row = {"step": run["step"], "run": run, "m": shape["m"], "gflops": shape["time"]["gflops"],
               "cublas": shape.get("cublas", {}).get("gflops"), "fraction": shape.get("fraction_of_cublas"),
               "peak_fraction": shape["time"]["gflops"] / peak if peak else None,
               "verdict": shape.get("verdict", ""), "gain": None, "gain_from": None, "gain_note": None}
        if previous is None:
            row["gain_note"] = "first of its kind"
        elif previous["m"] != shape["m"]:
            row["gain_note"] = "another shape"
        elif same_run(previous["run"], run):
            row["gain"] = square_shape(previous["run"], shape["m"])["time"]["median_ms"] / shape["time"]["median_ms"]
        else:
            found = pair_from(pairs, previous["run"], run, shape["m"])
            if found:
                path, a, b = found
                row["gain"] = square_shape(a, shape["m"])["time"]["median_ms"] / square_shape(b, shape["m"])["time"]["median_ms"]
                row["gain_from"] = path
            else:
                row["gain_note"] = "not in one run"
        rows.append(row)
        previous = row
    return rows
