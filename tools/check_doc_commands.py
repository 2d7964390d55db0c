#!/usr/bin/env python3
"""Runs every example command the docs give for a step program and checks that the program accepts
it: its options, tunables and shapes pass the program's own checks. A command is a line of a ```sh
block that starts with build/bin/NN_, or runs one under tools/clock_watch.py (after its "--"); lines
starting with "$ " are transcripts, often of a refused command, and are left alone. The programs run
with no GPU visible, so a GPU step stops right after its checks with exit 77 instead of measuring;
the CPU step 00 runs for real. Exit 0 or 77 passes, anything else (2: a tunable that is not compiled
in, a shape a rule refuses) fails.

    tools/check_doc_commands.py --build build
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMAND = re.compile(r"^build/bin/(\d\d_\w+)(.*)$")
WATCHED = re.compile(r"^tools/clock_watch\.py\b.*?\s--\s+(build/bin/.*)$")  # the command it runs


def doc_commands(docs_dir):
    """(doc file, line number, program, arguments) for every example command in the docs."""
    found = []
    for path in sorted(glob.glob(os.path.join(docs_dir, "*.md"))):
        in_sh = False
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                stripped = line.strip()
                if stripped.startswith("```"):
                    in_sh = not in_sh and stripped in ("```sh", "```bash")
                    continue
                watched = WATCHED.match(stripped)
                if watched:
                    stripped = watched.group(1)
                match = COMMAND.match(stripped) if in_sh else None
                if match:
                    arguments = shlex.split(match.group(2), comments=True)
                    found.append((os.path.relpath(path, ROOT), number, match.group(1), arguments))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    environment = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    commands = doc_commands(args.docs)
    if not commands:
        print(f"check_doc_commands: no example commands in {args.docs}", file=sys.stderr)
        return 1
    failed = checked = 0
    for doc, number, program, arguments in commands:
        executable = os.path.join(bin_dir, program)
        shown = " ".join(["build/bin/" + program] + arguments)
        if not os.path.exists(executable):
            print(f"{doc}:{number}: {program} is not built here; not checked")
            continue
        checked += 1
        try:
            result = subprocess.run([executable] + arguments, capture_output=True, text=True, timeout=120,
                                    env=environment)
        except subprocess.TimeoutExpired:
            print(f"{doc}:{number}: {shown}: still running after 120 s")
            failed += 1
            continue
        if result.returncode in (0, 77):
            continue
        failed += 1
        message = (result.stderr.strip() or result.stdout.strip()).splitlines()
        print(f"{doc}:{number}: {shown}: exit {result.returncode}: {message[-1] if message else ''}")
    print(f"check_doc_commands: {checked - failed} of {checked} doc commands accepted")
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
