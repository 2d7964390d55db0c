#!/usr/bin/env python3
"""The kernels of a step whose wgmma ptxas serialises, with its reason (notes C7509..C7515).

A change to the Hopper steps' kernels can push one past its registers with no sign but its time:
ptxas then serialises that kernel's wgmma and says so in a note of its own ("Potential
Performance Loss: wgmma.mma_async instructions are serialized due to ..."). A build that ccache
serves from its cache prints no note at all, so this tool compiles the step's kernels again, with
the build's own command (compile_commands.json), and lists the notes kernel by kernel. Compare
main's list with a change's before timing the change (docs/performance-log.md, step 23, "the
128 x 64 tile's clusters side by side"):

    tools/ptxas_notes.py --build build-h200 22 23 > notes-main.txt
    (change the kernels)
    tools/ptxas_notes.py --build build-h200 22 23 --against notes-main.txt

Exit codes: 0; 1 with --against, where a kernel has a note the file does not list; 2 bad usage, or
a step that does not compile.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized
# due to insufficient register resources for the wgmma pipeline in the function '_ZN...'
NOTE = re.compile(r"\((C75\d\d)\) Potential Performance Loss: (.*?) in the function '([^']+)'")


def usage_error(message):
    print(f"ptxas_notes: {message}", file=sys.stderr)
    sys.exit(2)


def parse_notes(text):
    """(code, mangled kernel, reason) for each serialisation note in ptxas's output, in order."""
    return [(m.group(1), m.group(3), m.group(2)) for m in NOTE.finditer(text)]


def demangle(names):
    """The kernels' C++ names (c++filt, where the machine has it), else the mangled ones."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return dict(zip(names, names))
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else dict(zip(names, names))


def compile_command(build, step):
    """The build's command for the step's main.cu, and the folder it runs in."""
    path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(path):
        usage_error(f"{path} not found: configure the build first (cmake --preset ...)")
    for entry in json.load(open(path)):
        parts = os.path.normpath(entry["file"]).split(os.sep)
        if len(parts) >= 3 and parts[-3] == "steps" and parts[-2].startswith(step.zfill(2) + "_") and parts[-1] == "main.cu":
            return entry["command"], entry["directory"], parts[-2]
    usage_error(f"no step {step} in {path} (is it built for an architecture that has it?)")


def notes_of(build, step):
    """Compile the step's kernels again (into a scratch object) and return (folder, notes)."""
    command, directory, folder = compile_command(build, step)
    args = shlex.split(command)
    with tempfile.TemporaryDirectory() as scratch:
        if "-o" in args:
            args[args.index("-o") + 1] = os.path.join(scratch, "main.o")
        run = subprocess.run(args, cwd=directory, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        usage_error(f"step {folder} did not compile")
    return folder, parse_notes(run.stdout + run.stderr)


def lines_of(folder, notes):
    names = demangle(sorted({kernel for _, kernel, _ in notes}))
    return sorted({f"{folder} {code} {names[kernel]}" for code, kernel, _ in notes})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("steps", nargs="+", help="step numbers, e.g. 22 23")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="a configured build folder")
    parser.add_argument("--against", help="an earlier list (this tool's output): exit 1 where a kernel gains a note")
    args = parser.parse_args(argv)
    if args.against and not os.path.exists(args.against):
        usage_error(f"{args.against} not found")  # before the steps are compiled, which takes a minute each
    lines = []
    for step in args.steps:
        if not step.isdigit():
            usage_error(f"'{step}' is not a step number")
        lines += lines_of(*notes_of(args.build, step))
    for line in lines:
        print(line)
    if not args.against:
        return 0
    before = {line.strip() for line in open(args.against) if line.strip()}
    new = [line for line in lines if line not in before]
    for line in new:
        print(f"ptxas_notes: new: {line}", file=sys.stderr)
    print(f"ptxas_notes: {len(new)} kernel note(s) not in {args.against}" if new else
          f"ptxas_notes: no kernel note that {args.against} does not list", file=sys.stderr)
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
