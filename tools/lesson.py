#!/usr/bin/env python3
"""The lesson of a step: what its code changes against the step before, kernel and mapping together.

    tools/lesson.py 09 10          # the diff of steps/09_*/ against steps/10_*/, as a learner reads it
    tools/lesson.py 10             # the same: step 10 against the step before it (05: against 02, 25: against 18; BASE)
    tools/lesson.py --stat         # the size of every lesson, one line a step
    tools/lesson.py --check        # exits 1 where a lesson after step 09 is larger than its bound

A step's lesson is its mapping.hpp, kernel.cuh and any other header of its folder (e.g. a generated header)
against the same files of the step before; main.cu is the step's description, and traced.hpp its
registration in the traced registry (what the host tools and the viewer are told of it), not its lesson. The
step's own number (namespace stepNN, "Step NN" in comments) is written `stepNN` on both sides, so
that renaming alone shows nothing. Exit codes: 0, 1 (--check: a lesson over its bound), 2 bad usage.
"""
import argparse
import difflib
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
STEPS = os.path.join(ROOT, "steps")
LESSON_FILES = ("mapping.hpp", "kernel.cuh")
NOT_LESSON_FILES = ("traced.hpp",)  # the step's registration in the traced registry (steps/traced_steps.hpp)
# The ladder's bound on a lesson after step 09: about 350 changed lines of the step's headers (a
# tenth over is "about"). A step that brings a new family of instructions may exceed it; its page
# says why, and it is named here.
BOUND = 385
NEW_INSTRUCTION_FAMILY = {
    "10": "cp.async arrives: asynchronous copies, and with them a pipeline of shared buffers",
    "12": "tensor cores arrive (the WMMA API): a new kind of kernel, not a change of step 11's",
    "13": "cp.async reaches the tensor-core kernel and cannot transpose: step 12's copy mapping is replaced "
          "(tiles kept as stored, transposed operands read as col_major fragments)",
    "14": "mma.sync and ldmatrix replace the WMMA API: fragments and swizzled tiles by hand",
    "15": "Hopper arrives: TMA copies, mbarriers and wgmma replace cp.async, ldmatrix and mma.sync",
    "18": "TMA stores arrive (cp.async.bulk.tensor shared -> global, bulk groups, the proxy fence): the epilogue "
          "through shared memory, with the tile chosen by shape",
}


# Steps whose lesson is against another step than the one numbered before: the 16-bit ladder goes
# on at step 25 from its last step before it, 18 (19-24 are the FP8 ladder, which starts from 18).
BASE = {"05": "02", "25": "18"}


def usage_error(message):
    print(f"lesson: {message}", file=sys.stderr)
    sys.exit(2)


def step_folders():
    return sorted(p for p in glob.glob(os.path.join(STEPS, "[0-9][0-9]_*")) if os.path.isdir(p))


def folder_of(number):
    matches = [p for p in step_folders() if os.path.basename(p).startswith(number.zfill(2) + "_")]
    if not matches:
        usage_error(f"no step {number} under steps/ (tools/lesson.py --stat lists them)")
    return matches[0]


def previous_of(folder):
    number = os.path.basename(folder)[:2]
    if number in BASE:
        return folder_of(BASE[number])
    folders = step_folders()
    index = folders.index(folder)
    if index == 0:
        usage_error(f"{os.path.basename(folder)} is the first step: nothing comes before it")
    return folders[index - 1]


def headers(folder):
    """The files of a step's lesson, mapping and kernel first."""
    names = [n for n in LESSON_FILES if os.path.exists(os.path.join(folder, n))]
    others = sorted(n for n in os.listdir(folder)
                    if n.endswith((".cuh", ".hpp")) and n not in names and n not in NOT_LESSON_FILES)
    return names + others


def normalized(folder, name):
    """The file's lines with the step's own number written stepNN."""
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return []
    number = os.path.basename(folder)[:2]
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    text = re.sub(rf"\bstep{number}\b", "stepNN", text)
    text = re.sub(rf"\b([Ss]tep) {number}\b", r"\1 NN", text)
    return text.splitlines(keepends=True)


def lesson_diff(before, after):
    """The unified diff of the two steps' lesson files, as lines."""
    out = []
    for name in sorted(set(headers(before)) | set(headers(after)), key=lambda n: (LESSON_FILES.index(n) if n in LESSON_FILES else len(LESSON_FILES), n)):
        out += difflib.unified_diff(normalized(before, name), normalized(after, name),
                                    fromfile=os.path.relpath(os.path.join(before, name), ROOT),
                                    tofile=os.path.relpath(os.path.join(after, name), ROOT), n=3)
    return out


def changed_lines(diff):
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


def colour(line):
    if not sys.stdout.isatty():
        return line
    codes = {"+": "32", "-": "31", "@": "36"}
    code = codes.get(line[:1])
    return f"\033[{code}m{line.rstrip(chr(10))}\033[0m\n" if code and not line.startswith(("+++", "---")) else line


def stat_rows():
    rows = []
    for folder in step_folders()[1:]:
        before = previous_of(folder)
        if not os.path.exists(os.path.join(folder, "kernel.cuh")) or not os.path.exists(os.path.join(before, "kernel.cuh")):
            continue
        rows.append((os.path.basename(before), os.path.basename(folder), changed_lines(lesson_diff(before, folder))))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("steps", nargs="*", help="one step number (against the one before) or two")
    parser.add_argument("--stat", action="store_true", help="the size of every lesson")
    parser.add_argument("--check", action="store_true", help="exit 1 where a lesson after step 09 exceeds its bound")
    args = parser.parse_args(argv)
    if args.stat or args.check:
        over = []
        for before, after, lines in stat_rows():
            number = after[:2]
            bounded = int(number) > 9 and number not in NEW_INSTRUCTION_FAMILY
            note = f"  (bound about 350: {BOUND})" if bounded else ""
            if number in NEW_INSTRUCTION_FAMILY:
                note = f"  (no bound: {NEW_INSTRUCTION_FAMILY[number]})"
            if bounded and lines > BOUND:
                over.append(after)
                note += "  OVER"
            if args.stat or (bounded and lines > BOUND):
                print(f"{before} -> {after}: {lines} changed lines{note}")
        if args.check:
            print(f"lesson: {len(over)} lesson(s) over the bound" if over else "lesson: every lesson within its bound")
            return 1 if over else 0
        return 0
    if len(args.steps) not in (1, 2):
        parser.print_usage(sys.stderr)
        print("lesson: give one step number (e.g. 10) or two (e.g. 09 10)", file=sys.stderr)
        return 2
    after = folder_of(args.steps[-1])
    before = folder_of(args.steps[0]) if len(args.steps) == 2 else previous_of(after)
    diff = lesson_diff(before, after)
    sys.stdout.writelines(colour(line) for line in diff)
    print(f"# {os.path.basename(before)} -> {os.path.basename(after)}: {changed_lines(diff)} changed lines "
          f"in {', '.join(headers(after))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
