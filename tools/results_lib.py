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
# sweeps and the FP8 step's accuracy against K.
OTHER_FILES = ("model-vs-ncu-", "sweep-", "fp8-accuracy-")


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


def results_files(directory):
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.endswith(".json") and not name.startswith(OTHER_FILES))
