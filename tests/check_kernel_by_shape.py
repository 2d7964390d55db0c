#!/usr/bin/env python3
"""check_kernel_by_shape.py STEP [ARG...] -- SHAPE[:own]...: runs a step on the given shapes, checked
but not timed, with --json and the arguments given (--defaults, so that every shape runs the same
tunables, and a layout), and checks that the resource report follows the compiled instance each
shape launched. The run's report is the first shape's kernel; a shape marked `:own` launches another
instance of the kernel (step 11: B's and C's rows not 16-byte aligned; step 14: a shape of whole
tiles or not), so its row must record that kernel's report, without tunables of its own, and a line
above the row must say so; an unmarked shape must record neither. Every shape must pass its check.
Exit 77 when the step finds no GPU it can run on (CTest: skipped).

    tests/check_kernel_by_shape.py build/bin/14_mma_ldmatrix --defaults --layout nn -- 4096x4096x72 4096x4096x64:own
"""
import os
import sys

from step_json import passed_rows, run_with_json, verdict


def main():
    if "--" not in sys.argv[2:] or len(sys.argv) < 4:
        print("usage: check_kernel_by_shape.py STEP [ARG...] -- SHAPE[:own]...", file=sys.stderr)
        return 2
    split = sys.argv.index("--", 2)
    step, arguments, marked = sys.argv[1], sys.argv[2:split], sys.argv[split + 1:]
    if not os.access(step, os.X_OK):
        print(f"check_kernel_by_shape.py: {step} is not an executable (build the project first)", file=sys.stderr)
        return 2
    shapes = [item.partition(":")[0] for item in marked]
    own = {item.partition(":")[0] for item in marked if item.endswith(":own")}
    code, done, document = run_with_json([step, "--check-only", "--shapes", ",".join(shapes)] + arguments)
    if code is not None:
        return code
    print(done.stdout + done.stderr)
    run = document["runs"][0]
    problems = []
    if "registers" not in run.get("kernel", {}):
        problems.append("the run records no resource report")
    for shape, row in passed_rows(run, shapes, problems):
        if row.get("params"):
            problems.append(f"{shape}: records tunables {row['params']}, although every shape runs the run's")
        said = f"{shape} launches another compiled instance" in done.stdout
        if shape in own:
            if "registers" not in row.get("kernel", {}):
                problems.append(f"{shape}: launched another instance, and its row records no resource report")
            if not said:
                problems.append(f"{shape}: no line above the row says it launched another instance")
        else:
            if "kernel" in row:
                problems.append(f"{shape}: records a resource report of its own, although it ran the run's kernel")
            if said:
                problems.append(f"{shape}: a line says it launched another instance, although it ran the run's")
    return verdict(problems, f"{len(shapes)} shapes, {len(own)} launching another instance than the first")


if __name__ == "__main__":
    sys.exit(main())
