#!/usr/bin/env python3
"""Checks the access model against the hardware: profiles every traced program with Nsight Compute
at small shapes, compares the measured counters with model_predict's, and writes
<out>/model-vs-ncu-<gpu>.json (the shipped one: docs/results/).

Agreement: exact for the bank demos, within 2% for the GEMM steps. Exits 0 when all agree, 1 when
one does not, 77 when there is no GPU or no ncu (CTest: skipped). A program the GPU cannot run (it
exits 77: the Hopper steps need compute capability 9.0) is skipped and listed as such in the file.
What each step is profiled at follows from its declaration (steps/NN_name/CMakeLists.txt), read from
BUILD/steps.json.

    tools/check_model_ncu.py --build build --out docs/results
    tools/check_model_ncu.py --build build --out docs/results --steps 21,22   # these steps' cases only,
                                                                   # merged into the file there
    tools/check_model_ncu.py --build build --check-shipped docs/results   # no GPU: is the file current?
    tools/check_model_ncu.py --build build --dry-run    # the profiler runs, profiled nothing
"""
import argparse
import concurrent.futures
import csv
import io
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_all import git_commit, slug  # noqa: E402

# Each model counter and the profiler metrics that add up to it. The model prices the memory
# instructions a warp issues, so every shared-memory metric is one Nsight Compute attributes to SASS
# instructions (smsp__sass_*): the wavefronts of those instructions, and the instructions executed
# with at least one thread predicated on. The unit-level counters (l1tex__data_pipe_lsu_wavefronts_*,
# smsp__inst_executed_op_*) also count what no instruction of the kernel's shared-memory accesses
# issues: traffic of the Hopper steps' mbarriers and TMA, a small run-to-run excess in
# the bank demos, and instructions that ptxas predicates off for every thread (@!PT LDS RZ, [RZ];
# the last k-tile's ldmatrix in step 14). docs/access-model.md, "Checked against the hardware".
# cp.async (SASS LDGSTS) is one instruction that reads global memory and writes shared memory; the
# traces list its two halves. Its global sectors are already in the global-load metric (its request
# count rises by one per cp.async: tools/experiments/ldgsts_counts.cu), so only its shared side is
# added, from the profiler's own "ldgsts" metrics, to the shared-store wavefronts and instructions.
SASS_SHARED = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
COUNTERS = {
    "global_load_sectors": ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
    "global_store_sectors": ["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"],
    "shared_load_wavefronts": [SASS_SHARED + "ld.sum", SASS_SHARED + "ldsm.sum"],
    "shared_store_wavefronts": [SASS_SHARED + "st.sum", SASS_SHARED + "ldgsts.sum"],
    # Warp-level shared instructions: the model's request counts. They separate "more instructions
    # than the trace says" from "more wavefronts per instruction". ldmatrix has its own metric.
    "shared_load_requests": ["smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_ldsm.sum"],
    "shared_store_requests": ["smsp__sass_inst_executed_op_shared_st.sum", "smsp__sass_inst_executed_op_ldgsts.sum"],
}
# The six counters the agreement rule is about (the request counts must match exactly).
CHECKED = ["global_load_sectors", "global_store_sectors", "shared_load_wavefronts", "shared_store_wavefronts",
           "shared_load_requests", "shared_store_requests"]
# What each traced program is profiled at follows from its step's declaration (gemm_add_step in
# steps/NN_name/CMakeLists.txt, read from BUILD/steps.json): its kind's cases below, plus the shapes
# (NCU_SHAPES) and arguments (NCU_ARGS) the step declares. The cases are per kind since a kind's
# shape rule decides which shapes its kernels take without the general path:
# (beta, shapes), one profiler run each: an even shape that does not read C, and odd shapes that do.
GEMM_CASES = [(0.0, ["128x128x128"]), (0.5, ["33x17x45", "100x75x64"])]
# The tensor-core and FP8 steps' shapes obey a rule (K and the stored rows multiples of 8; for FP8, K
# a multiple of 16 and layout NT, its default): these take both.
TENSOR_CORE_CASES = [(0.0, ["128x128x128"]), (0.5, ["40x24x48", "104x72x64"])]
CASES_OF_KIND = {"fp32": GEMM_CASES, "tensor_core": TENSOR_CORE_CASES, "fp8": TENSOR_CORE_CASES}
GEMM_TOLERANCE = 0.02
# Arguments a kind's profiled runs need so that they run what the model draws: the FP8 steps write
# bf16 by default, and their traces are of f32 output, as the Hopper tensor-core steps' are. Besides
# these and the step's own (NCU_ARGS), every GEMM step's runs are given --defaults: the default
# tunables at every shape, which is what the model predicts with (the steps that choose their tile
# by shape would otherwise choose smaller ones at these shapes).
PROGRAM_ARGS_OF_KIND = {"fp8": ["--out", "f32"]}


def load_manifest(build):
    """The steps as declared (BUILD/steps.json, written by CMake at configure time), by name."""
    path = os.path.join(build, "steps.json")
    if not os.path.exists(path):
        raise SystemExit(f"check_model_ncu: no {path}: configure the build (cmake -S . -B {build}), then build it")
    with open(path, encoding="utf-8") as handle:
        return {step["name"]: step for step in json.load(handle)["steps"]}


def cases_of(step):
    """(beta, shapes) of a GEMM step's profiled runs: its kind's, each with the step's NCU_SHAPES."""
    return [(beta, shapes + step["ncu_shapes"]) for beta, shapes in CASES_OF_KIND[step["kind"]]]


def program_args_of(step):
    """What a GEMM step's profiled runs are given besides the case: --defaults, its kind's, its own."""
    return ["--defaults"] + PROGRAM_ARGS_OF_KIND.get(step["kind"], []) + step["ncu_args"]


# Counters of a held program that are recorded but not held to the rule, each with the reason.
COUNTERS_NOT_HELD = {
    "13_wmma_pipeline": {
        "global_load_sectors": "its copies go around the L1 (cp.async.cg) and the profiler counts more sectors for "
                               "them in the running kernel than their addresses take; the same kernel with its copies "
                               "through the L1 (.ca) is counted exactly the model's sectors "
                               "(docs/results/trials/2026-12-01-step13-copies-through-l1)",
        "shared_store_wavefronts": "its copies are cp.async.cg as step 14's, counted as step 14's are (below); through "
                                   "the L1 (.ca) the profiler counts exactly the model's wavefronts "
                                   "(docs/results/trials/2026-12-01-step13-copies-through-l1)",
    },
    "14_mma_ldmatrix": {
        "shared_store_wavefronts": "the cp.async copies around the L1 (.cg) are counted more wavefronts in the "
                                   "running kernel than their addresses need, by an amount that changes with the "
                                   "code around them; the same copies through the L1 (.ca) are counted exactly the "
                                   "model's (docs/access-model.md, \"cp.async\")",
    },
}
# Programs profiled and recorded but not held to the rule, each with the reason (an open item, not a
# pass): the file keeps their measured and predicted counters side by side.
NOT_HELD = {}


def find_ncu():
    for candidate in (shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def have_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    except OSError:
        return False


class NoSuitableGpu(Exception):
    """The program exited 77: the GPU present cannot run it (the Hopper steps need compute capability 9.0)."""


def measure(ncu, program_args, kernel):
    """Profiles every launch of `kernel` in one run of the program; returns their counters in order."""
    metrics = [metric for parts in COUNTERS.values() for metric in parts]
    command = [ncu, "--csv", "--metrics", ",".join(metrics), "-k", f"regex:{kernel}"] + program_args
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 77:
        raise NoSuitableGpu(f"{os.path.basename(program_args[0])} exited 77 (this GPU cannot run it)")
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    text = done.stdout[done.stdout.find('"ID"'):]
    launches = {}
    for row in csv.DictReader(io.StringIO(text)):
        for name, parts in COUNTERS.items():
            if row.get("Metric Name") in parts:
                counters = launches.setdefault(int(row["ID"]), {})
                counters[name] = counters.get(name, 0) + int(float(row["Metric Value"].replace(",", "") or 0))
    if not launches:
        raise RuntimeError(f"ncu profiled no kernel matching {kernel}: {done.stderr.strip()[-300:]}")
    return [launches[i] for i in sorted(launches)]


def predict(build, step, variant, shape, beta):
    command = [os.path.join(build, "bin", "model_predict"), "--step", step]
    if variant:
        command += ["--variant", variant]
    else:
        command += ["--shape", shape, "--beta", str(beta)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def profile_commands(step, kernel, kind, variants, build, declared):
    """The program's profiler runs, each the program and its arguments: for a GEMM step one per case
    (cases_of), for a demo one of every variant and one of the first again."""
    binary = os.path.join(build, "bin", step)
    if kind == "fixed":
        return [[binary, "--check-only"], [binary, "--check-only", "--variant", variants[0]]]
    return [[binary, "--check-only", "--shapes", ",".join(shapes), "--beta", str(beta)] + program_args_of(declared)
            for beta, shapes in cases_of(declared)]


def profile_program(step, kernel, kind, variants, build, declared, ncu, compare, repeats):
    """Profiles one program's cases and hands each one's counters to compare()."""
    commands = profile_commands(step, kernel, kind, variants, build, declared)
    if kind == "fixed":
        # One run of the demo launches every variant once, in list order; then the first variant again.
        launches = measure(ncu, commands[0], kernel)
        if len(launches) != len(variants):
            raise RuntimeError(f"{step}: {len(launches)} launches profiled for {len(variants)} variants")
        for variant, measured in zip(variants, launches):
            compare(step, variant, None, None, measured, exact=True)
        again = measure(ncu, commands[1], kernel)[0]
        repeats.append({"step": step, "variant": variants[0], "first": launches[0], "second": again})
    else:
        for (beta, shapes), program_args in zip(cases_of(declared), commands):
            launches = measure(ncu, program_args, kernel)
            for shape, measured in zip(shapes, launches):
                compare(step, "", shape, beta, measured, exact=False)


def merge_steps(existing, new, steps):
    """The comparison file `existing` with the cases (and skips) of `steps` replaced by `new`'s. The
    file keeps its commit, GPU and profiler; each new case names the commit it was profiled at, and
    must come from the same GPU and profiler."""
    for key in ("gpu", "ncu"):
        if existing[key] != new[key]:
            raise SystemExit(f"check_model_ncu: the file in --out is of {key} {existing[key]!r}, this run of "
                             f"{new[key]!r}: profile every step (no --steps) to replace it")
    merged = dict(existing)
    merged["cases"] = [c for c in existing["cases"] if c["step"] not in steps] + [
        dict(c, commit=new["commit"]) for c in new["cases"]]
    merged["skipped"] = [s for s in existing["skipped"] if s["step"] not in steps] + new["skipped"]
    return merged


def unprofiled(steps, cases):
    """The traced steps (BUILD/steps.json) with no case in the comparison files: traced, never profiled."""
    profiled = {case["step"] for case in cases}
    return [step["name"] for step in steps if step.get("traced") and step["name"] not in profiled]


def check_shipped(build, folder):
    """The shipped comparisons must be of the model as it is now: every case's predicted counters
    equal what model_predict gives today, or the file is stale (the model changed and the
    profiler was not run again). Needs no GPU. Returns the exit code."""
    names = sorted(n for n in os.listdir(folder) if n.startswith("model-vs-ncu-") and n.endswith(".json"))
    if not names:
        print(f"check_model_ncu: no model-vs-ncu-*.json in {folder}: nothing to check (give the folder of the "
              "shipped results, e.g. docs/results)", file=sys.stderr)
        return 2
    keys, cases = [], []
    for name in names:
        with open(os.path.join(folder, name)) as f:
            for case in json.load(f)["cases"]:
                keys.append((case["step"], case["variant"], case["shape"], case["beta"]))
                cases.append((name, case))
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            now = list(pool.map(lambda key: predict(build, *key), keys))
    except subprocess.CalledProcessError as error:
        reason = ((error.stderr or "").strip().splitlines() or ["no message"])[-1]
        print(f"check_model_ncu: model_predict refused a case of the file ({' '.join(error.cmd[1:])}): {reason}",
              file=sys.stderr)
        return 2
    stale = 0
    for (name, case), predicted in zip(cases, now):
        label = f"{case['step']} {case['variant'] or case['shape'] + ' beta=' + str(case['beta'])}"
        for counter, values in case["counters"].items():
            if predicted[counter] != values["predicted"]:
                stale += 1
                print(f"{name}: {label}: {counter} is {predicted[counter]} by the model now, {values['predicted']} in "
                      "the file: run tools/check_model_ncu.py on a GPU again")
    print(f"{len(cases)} cases in {len(names)} file(s), {stale} stale counter(s)")
    # Not an error (a step is traced before a GPU has profiled it), but said, so that a page's
    # "every program agrees" can be checked against the files.
    if os.path.exists(os.path.join(build, "steps.json")):
        missing = unprofiled(load_manifest(build).values(), [case for _, case in cases])
        if missing:
            print("traced but not profiled yet (no case in the files): " + ", ".join(missing))
    return 1 if stale else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default=None, help="folder for the comparison file (default BUILD/results)")
    parser.add_argument("--steps", default="",
                        help="comma-separated step numbers (e.g. 21,22): profile only these programs and merge their "
                             "cases into the comparison file already in --out, each new case naming its commit")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the profiler run of every case (no GPU needed), profile nothing")
    parser.add_argument("--check-shipped", metavar="FOLDER", default=None,
                        help="no profiling: check that the comparison files in FOLDER predict what the model "
                             "predicts now")
    args = parser.parse_args()
    if args.check_shipped:
        if not os.path.isdir(args.check_shipped):
            print(f"check_model_ncu: no folder {args.check_shipped} (give the folder of the results files, "
                  "e.g. docs/results)", file=sys.stderr)
            return 2
        if not os.access(os.path.join(args.build, "bin", "model_predict"), os.X_OK):
            print(f"check_model_ncu: no {args.build}/bin/model_predict: build the project first "
                  "(cmake --build build), or pass --build", file=sys.stderr)
            return 2
        return check_shipped(args.build, args.check_shipped)
    ncu = find_ncu()
    if not args.dry_run and (not have_gpu() or ncu is None):
        print("check_model_ncu: skipped (needs an NVIDIA GPU and Nsight Compute's ncu)")
        return 77
    if not os.access(os.path.join(args.build, "bin", "model_predict"), os.X_OK):
        print(f"check_model_ncu: no {args.build}/bin/model_predict: build the project first "
              "(cmake --build build), or pass --build", file=sys.stderr)
        return 2
    declared = load_manifest(args.build)
    listing = subprocess.run([os.path.join(args.build, "bin", "model_predict"), "--list"], capture_output=True,
                             text=True, check=True).stdout.split("\n")
    selected = {s.strip().zfill(2) for s in args.steps.split(",") if s.strip()}
    programs = {}  # step -> (kernel, kind, [variants])
    for line in filter(None, listing):
        step, variant, kernel, kind = line.split()
        if selected and step[:2] not in selected:
            continue
        if step not in declared:
            print(f"check_model_ncu: {step} is traced but not declared in {args.build}/steps.json: reconfigure the "
                  "build", file=sys.stderr)
            return 2
        programs.setdefault(step, (kernel, kind, []))[2].append("" if variant == "-" else variant)
    if selected and not programs:
        print(f"check_model_ncu: no traced program of steps {args.steps} (model_predict --list names them)",
              file=sys.stderr)
        return 2
    if args.dry_run:
        for step, (kernel, kind, variants) in programs.items():
            for program_args in profile_commands(step, kernel, kind, variants, args.build, declared[step]):
                print(f"$ ncu --csv --metrics <the COUNTERS' metrics> -k regex:{kernel} " + " ".join(program_args))
        return 0
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip().splitlines()[0]

    # Every prediction, computed in parallel up front (the brute-force launch sums take seconds each).
    wanted = []
    for step, (kernel, kind, variants) in programs.items():
        if kind == "fixed":
            wanted += [(step, variant, None, None) for variant in variants]
        else:
            wanted += [(step, "", shape, beta) for beta, shapes in cases_of(declared[step]) for shape in shapes]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        predictions = dict(zip(wanted, pool.map(lambda key: predict(args.build, *key), wanted)))

    cases, disagreements = [], 0

    def compare(step, variant, shape, beta, measured, exact):
        nonlocal disagreements
        predicted = predictions[(step, variant, shape, beta)]
        counters, agree = {}, True
        for name in CHECKED:
            m, p = measured[name], predicted[name]
            ratio = (m / p) if p else (1.0 if m == 0 else float("inf"))
            if name.endswith("requests"):
                ok = m == p
            elif exact:
                ok = m == p
            else:
                ok = abs(ratio - 1.0) <= GEMM_TOLERANCE
            counters[name] = {"predicted": p, "measured": m, "ratio": ratio, "agree": ok}
            if name in COUNTERS_NOT_HELD.get(step, {}):
                counters[name].update(held=False, reason=COUNTERS_NOT_HELD[step][name])
            else:
                agree = agree and ok
        rule = "exact" if exact else f"within {GEMM_TOLERANCE:.0%}; instructions exact"
        rule += "".join(f"; {name} not held: {reason}" for name, reason in COUNTERS_NOT_HELD.get(step, {}).items())
        held = step not in NOT_HELD
        if held:
            disagreements += not agree
        else:
            rule = "not held to a rule: " + NOT_HELD[step]
        cases.append({"step": step, "variant": variant, "shape": shape, "beta": beta, "rule": rule, "agree": agree,
                      "held": held, "counters": counters})
        label = f"{step} {variant or shape + ' beta=' + str(beta)}"
        verdict = ("agree   " if agree else "DISAGREE") if held else "not held"
        print(f"{verdict} {label}: " + ", ".join(
            f"{name} {c['measured']}/{c['predicted']}" for name, c in counters.items()), flush=True)

    repeats = []  # the same demo kernel profiled twice: the run-to-run spread of each counter
    skipped = []  # programs this GPU cannot run, each with the reason
    for step, (kernel, kind, variants) in programs.items():
        try:
            profile_program(step, kernel, kind, variants, args.build, declared[step], ncu, compare, repeats)
        except NoSuitableGpu as reason:
            print(f"skipped  {step}: {reason}", flush=True)
            skipped.append({"step": step, "reason": str(reason)})
    out_dir = args.out or os.path.join(args.build, "results")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"model-vs-ncu-{slug(gpu)}.json")
    ncu_version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    document = {"schema": "gemm-steps-model-vs-ncu/1", "gpu": gpu, "ncu": ncu_version, "commit": git_commit(),
                "counters": COUNTERS, "cases": cases, "repeated_profiles": repeats, "skipped": skipped}
    if selected and os.path.exists(path):
        document = merge_steps(json.load(open(path, encoding="utf-8")), document, set(programs))
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
    held = sum(1 for case in cases if case["held"])
    not_held = f" ({', '.join(NOT_HELD)})" if NOT_HELD else ""
    print(f"{held - disagreements} passed, {disagreements} failed, {len(cases) - held} not held to a rule{not_held}, "
          f"{len(skipped)} program(s) skipped  ({path})")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
