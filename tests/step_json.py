"""Runs a step program with --json into a temporary file, for the GPU tests that check what a run
wrote (check_tf32_reference.py, check_params_by_shape.py, check_kernel_by_shape.py)."""
import json
import os
import subprocess
import tempfile


def run_with_json(command):
    """Runs `command` (a step and its arguments) with --json. Returns (code, done, document): code is
    None when the step exited 0 and the document was read, else the code the test should exit with
    (77 when the step found no GPU it can run on, 1 otherwise), having printed the step's output."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "run.json")
        done = subprocess.run(list(command) + ["--json", out], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stdout + done.stderr)
            if done.returncode == 77:
                return 77, done, None
            print(f"the step exited {done.returncode}")
            return 1, done, None
        with open(out, encoding="utf-8") as handle:
            return None, done, json.load(handle)


def passed_rows(run, shapes, problems):
    """Yields (shape, row) for each shape ("MxNxK") that has a row in `run`, after adding to
    `problems` each shape without a row or whose check did not pass."""
    rows = {f"{row['m']}x{row['n']}x{row['k']}": row for row in run["shapes"]}
    for shape in shapes:
        row = rows.get(shape)
        if row is None:
            problems.append(f"{shape}: no row in the results file")
            continue
        if row.get("verdict") != "PASS":
            problems.append(f"{shape}: verdict {row.get('verdict')}")
        yield shape, row


def verdict(problems, summary):
    """Prints each problem, then `summary` with ok or FAILED; returns the test's exit code."""
    for problem in problems:
        print(problem)
    print(f"{summary}: {'ok' if not problems else 'FAILED'}")
    return 1 if problems else 0
