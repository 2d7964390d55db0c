#!/usr/bin/env python3
"""check_params_by_shape.py STEP MODEL_PREDICT SHAPE...: runs a step that chooses its tunables by
shape (no --param) on the given shapes, checked but not timed, with --json, and checks that each
shape ran what the step's mapping chooses for it on this GPU (model_predict --run-params with the SM
count the results file records): a shape whose choice differs from the defaults has it recorded in
its row and named in a line above it, any other has none recorded. Every shape must pass its check.
Prints which shapes ran other tunables than the defaults. Tensor-core steps run (and are predicted)
in their default layout, NN. Exit 77 when the step finds no GPU it can
run on (CTest: skipped).

    tests/check_params_by_shape.py build/bin/18_tma_store_epilogue build/bin/model_predict 1000x1000x1000 2056x4104x64
"""
import os
import subprocess
import sys

from step_json import passed_rows, run_with_json, verdict


def as_params(text):
    return {key: int(value) for key, _, value in (pair.partition("=") for pair in text.split())}


def main():
    if len(sys.argv) < 4:
        print("usage: check_params_by_shape.py STEP MODEL_PREDICT SHAPE...", file=sys.stderr)
        return 2
    step, model_predict, shapes = sys.argv[1], sys.argv[2], sys.argv[3:]
    for program in (step, model_predict):
        if not os.access(program, os.X_OK):
            print(f"check_params_by_shape.py: {program} is not an executable (build the project first)",
                  file=sys.stderr)
            return 2
    name = os.path.basename(step)
    code, done, document = run_with_json([step, "--check-only", "--shapes", ",".join(shapes)])
    if code is not None:
        return code
    print(done.stdout + done.stderr)
    run, sms = document["runs"][0], document["device"]["sms"]
    defaults = as_params(subprocess.run([model_predict, "--defaults", name], capture_output=True, text=True,
                                        check=True).stdout)
    problems, chosen_here = [], []
    for shape, row in passed_rows(run, shapes, problems):
        expected = as_params(subprocess.run([model_predict, "--step", name, "--shape", shape, "--sms", str(sms),
                                             "--run-params"], capture_output=True, text=True, check=True).stdout)
        ran = dict(run["params"], **row.get("params", {}))
        if {key: ran.get(key) for key in expected} != expected:
            problems.append(f"{shape}: ran {ran}, the mapping chooses {expected} on {sms} SMs")
        if expected != defaults:
            chosen_here.append(shape)
            if f"{shape} runs " not in done.stdout:
                problems.append(f"{shape}: no line says which tunables it runs")
        elif row.get("params"):
            problems.append(f"{shape}: records {row['params']} although it ran the defaults")
    return verdict(problems, f"{len(shapes)} shapes on {sms} SMs, {len(chosen_here)} with tunables chosen for "
                             f"them ({', '.join(chosen_here) or 'none'})")


if __name__ == "__main__":
    sys.exit(main())
