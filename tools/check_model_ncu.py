#!/usr/bin/env python3
"""Checks the access model against the hardware: profiles every traced program with Nsight Compute
at small shapes, compares the measured counters with model_predict's, and writes
<out>/model-vs-ncu-<gpu>.json (the shipped one: docs/results/).

Agreement: exact for the bank demos, within 2% for the GEMM steps. Exits 0 when all agree, 1 when
one does not, 77 when there is no GPU or no ncu (CTest: skipped).

    tools/check_model_ncu.py --build build --out docs/results
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_all import git_commit, slug  # noqa: E402

COUNTERS = {
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "shared_load_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_store_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
# (shape, beta) for the GEMM steps: an even shape with beta = 0 and an odd one that reads C.
GEMM_CASES = [("128x128x128", 0.0), ("33x17x45", 0.5), ("100x75x64", 1.0)]
GEMM_TOLERANCE = 0.02


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


def measure(ncu, program_args, kernel):
    command = [ncu, "--csv", "--metrics", ",".join(COUNTERS.values()), "-k", f"regex:{kernel}"] + program_args
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    text = done.stdout[done.stdout.find('"ID"'):]
    totals = {name: 0 for name in COUNTERS}
    launches = set()
    for row in csv.DictReader(io.StringIO(text)):
        for name, metric in COUNTERS.items():
            if row.get("Metric Name") == metric:
                totals[name] += int(float(row["Metric Value"].replace(",", "") or 0))
                launches.add(row["ID"])
    if not launches:
        raise RuntimeError(f"ncu profiled no kernel matching {kernel}: {done.stderr.strip()[-300:]}")
    return totals, len(launches)


def predict(build, step, variant, shape, beta):
    command = [os.path.join(build, "bin", "model_predict"), "--step", step]
    if variant:
        command += ["--variant", variant]
    else:
        command += ["--shape", shape, "--beta", str(beta)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--out", default=None, help="folder for the comparison file (default BUILD/results)")
    args = parser.parse_args()
    ncu = find_ncu()
    if not have_gpu() or ncu is None:
        print("check_model_ncu: skipped (needs an NVIDIA GPU and Nsight Compute's ncu)")
        return 77
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip().splitlines()[0]
    listing = subprocess.run([os.path.join(args.build, "bin", "model_predict"), "--list"], capture_output=True,
                             text=True, check=True).stdout.split("\n")
    cases, disagreements = [], 0
    for line in filter(None, listing):
        step, variant, kernel, kind = line.split()
        variant = "" if variant == "-" else variant
        binary = os.path.join(args.build, "bin", step)
        runs = [(None, None)] if kind == "fixed" else GEMM_CASES
        for shape, beta in runs:
            program_args = [binary, "--check-only", "--warmup", "0"]
            program_args += ["--variant", variant] if variant else ["--shapes", shape, "--beta", str(beta)]
            measured, launches = measure(ncu, program_args, kernel)
            predicted = predict(args.build, step, variant, shape, beta)
            exact = kind == "fixed"
            counters, agree = {}, True
            for name in COUNTERS:
                m, p = measured[name], predicted[name]
                ratio = (m / p) if p else (1.0 if m == 0 else float("inf"))
                ok = (m == p) if exact else abs(ratio - 1.0) <= GEMM_TOLERANCE
                agree = agree and ok
                counters[name] = {"predicted": p, "measured": m, "ratio": ratio, "agree": ok}
            disagreements += not agree
            case = {"step": step, "variant": variant, "shape": shape, "beta": beta, "launches": launches,
                    "rule": "exact" if exact else f"within {GEMM_TOLERANCE:.0%}", "agree": agree,
                    "counters": counters}
            cases.append(case)
            label = f"{step} {variant or shape + ' beta=' + str(beta)}"
            print(f"{'agree   ' if agree else 'DISAGREE'} {label}: " + ", ".join(
                f"{name} {c['measured']}/{c['predicted']}" for name, c in counters.items()), flush=True)
    out_dir = args.out or os.path.join(args.build, "results")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"model-vs-ncu-{slug(gpu)}.json")
    ncu_version = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    document = {"schema": "gemm-steps-model-vs-ncu/1", "gpu": gpu, "ncu": ncu_version, "commit": git_commit(),
                "counters": COUNTERS, "cases": cases}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
    print(f"{len(cases) - disagreements} passed, {disagreements} failed  ({path})")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
