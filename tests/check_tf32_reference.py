#!/usr/bin/env python3
"""check_tf32_reference.py STEP: runs an fp32 step timed at a small size with --json and checks the
TF32 reference in what it wrote: on sm_80 and later every timed shape has cublas_tf32 and the run
names its call (and the file validates); before sm_80 neither is there. Exit 77 when the step finds
no GPU (CTest: skipped)."""
import os
import sys

from step_json import run_with_json, verdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import results_lib  # noqa: E402


def main():
    code, step, document = run_with_json([sys.argv[1], "--shapes", "256,100x60x70", "--reps", "3"])
    if code is not None:
        return code
    major, minor = (int(part) for part in document["device"]["compute_capability"].split("."))
    expected = major * 10 + minor >= 80
    run = document["runs"][0]
    shapes = [s for s in run["shapes"] if "time" in s]
    found = ["cublas_tf32" in s for s in shapes]
    problems = [] if found == [expected] * len(shapes) else [f"cublas_tf32 per shape {found}, expected {expected}"]
    if expected != ("cublas_tf32_call" in run):
        problems.append(f"cublas_tf32_call {'missing' if expected else 'present'}")
    if expected and step.stdout.count("cuBLAS in TF32") != len(shapes):
        problems.append("the reference line is not under every row")
    document.update({"runs": [dict(run, commit="test", date="test")]})
    problems += results_lib.validate(document)
    return verdict(problems, f"compute capability {major}.{minor}: TF32 reference "
                             f"{'expected' if expected else 'not expected'}")


if __name__ == "__main__":
    sys.exit(main())
