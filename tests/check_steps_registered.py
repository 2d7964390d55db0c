#!/usr/bin/env python3
"""check_steps_registered.py --build BUILD: every step folder is declared and has each place a step
needs outside its folder (docs/design.md, "Checklist: adding a step"), so that a step added without
one of them fails a test instead of going unnoticed:

- its declaration: steps/NN_name/CMakeLists.txt calls gemm_add_step, so the step is in the manifest
  CMake writes (BUILD/steps.json), and every step there is a folder;
- its page docs/NN-name.md (underscores as dashes), showing a picture;
- a row of the step table in README.md and a line in docs/README.md that link to the page;
- a link from the page of the step before (each page leads to the next);
- its line on the map of the ladder (docs/ladder.md): a ladder-table of its kind that selects it (every
  step of the kind, or by what the step declares: min_arch=, below_arch=; tools/render_docs.py's
  ladder_selects) (a GEMM step);
- its host test tests/host/test_mapping_NN.cpp (or a file named for it and its neighbours, such as
  test_mapping_01_02.cpp), for every GEMM step (not the CPU reference or the bank demos, whose index
  math common/host/bank_demo.hpp holds and test_traces.cpp checks);
- its registration in the traced registry, steps/NN_name/traced.hpp (which CMake gathers into
  build/generated/traced_registry.hpp), including its own mapping and defining add_stepNN, when its
  mapping.hpp has a trace_warp;
- main.cu's min_cc, the compute capability the program demands, equal to the declared minimum, and
  only_cc set where the step is built for an architecture-specific target (sm_90a);
- its README row's "needs" and "state" cells as declared and measured: "needs" begins with the
  architecture it is built for alone (sm_90a) or else its minimum (sm_75, sm_80), and "state" says
  `ready` where a shipped results file (docs/results/*.json) holds its runs, `untested` where none
  does (a GPU step; the CPU reference is `ready` with "CPU").

Prints one line per missing place, naming it; exit 0 when none is missing, 1 otherwise, 2 when the
manifest is missing (configure the build first).
"""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from render_docs import ladder_selects  # noqa: E402  which steps a ladder-table shows, as the renderer reads it
import results_lib  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
GEMM_KINDS = {"fp32", "tensor_core", "fp8"}
# The ladder-table kind (tools/render_docs.py) of each GEMM kind of step.
LADDER_KIND = {"fp32": "fp32", "tensor_core": "16-bit", "fp8": "fp8"}


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


def page_of(name):
    """docs/NN-name.md for steps/NN_name."""
    return f"{name[:2]}-{name[3:].replace('_', '-')}.md"


def host_test_of(number):
    """The host test files whose name names the step: test_mapping_NN.cpp, test_mapping_01_02.cpp."""
    found = []
    for path in glob.glob(os.path.join(ROOT, "tests", "host", "test_mapping_*.cpp")):
        numbers = os.path.basename(path)[len("test_mapping_"):-len(".cpp")].split("_")
        if number in numbers:
            found.append(path)
    return found


def on_the_ladder(step, ladder, declared):
    """Whether a ladder-table of docs/ladder.md shows the step: one of its kind that selects it."""
    for attributes in re.findall(r"<!-- ladder-table ([^>]*?) -->", ladder):
        fields = dict(field.split("=", 1) for field in attributes.split() if "=" in field)
        if fields.get("kind") == LADDER_KIND[step["kind"]] and ladder_selects(fields, step["name"], declared):
            return True
    return False


def readme_row(readme, page):
    """The cells of README.md's step-table row that links to docs/<page>, or None."""
    for line in readme.splitlines():
        if line.startswith("|") and f"(docs/{page})" in line:
            return [cell.strip() for cell in line.strip().strip("|").split("|")]
    return None


def measured_steps():
    """The steps the shipped results files (gemm-steps-results/1, docs/results/*.json) hold runs of."""
    found = set()
    for path in results_lib.results_files(os.path.join(ROOT, "docs", "results")):
        found |= {run.get("step") for run in results_lib.load(path).get("runs", [])}
    return found


def row_problems(step, readme, measured):
    """README's "needs" and "state" cells (# | step | what changes | needs | state) against the
    declaration and the shipped results."""
    row = readme_row(readme, page_of(step["name"]))
    if row is None or len(row) < 5:
        return []  # the missing row is reported by problems_of
    needs, state = row[3], row[4]
    if step["kind"] == "cpu":
        expected_needs, expected_state = "CPU", "ready"
    else:
        specific = [arch for arch in step["architectures"] if arch.endswith("a")]
        expected_needs = f"sm_{specific[0]}" if specific else f"sm_{step['min_arch']}"
        expected_state = "ready" if step["name"] in measured else "untested"
    problems = []
    if not re.match(rf"{re.escape(expected_needs)}\b", needs):
        problems.append(f"README.md's row says it needs \"{needs}\", its declaration {expected_needs} "
                        f"(gemm_add_step in steps/{step['name']}/CMakeLists.txt)")
    if state != expected_state:
        why = ("a shipped results file holds its runs" if expected_state == "ready" else
               "no shipped results file (docs/results/*.json) holds its runs")
        problems.append(f"README.md's row says \"{state}\", and {why}: \"{expected_state}\"")
    return problems


def problems_of(step, before, readme, index, ladder, declared):
    name, number, kind = step["name"], step["number"], step["kind"]
    page = page_of(name)
    problems = []
    if not os.path.exists(os.path.join(ROOT, "docs", page)):
        problems.append(f"no page docs/{page}")
    elif not re.search(r"!\[.*\]\(images/", read(os.path.join("docs", page))):
        problems.append(f"docs/{page} shows no picture from docs/images/")
    if not any(line.startswith("|") and f"(docs/{page})" in line for line in readme.splitlines()):
        problems.append(f"no row in README.md's step table links to docs/{page}")
    if f"({page})" not in index:
        problems.append(f"no line in docs/README.md links to {page}")
    if before is not None:
        previous = page_of(before["name"])
        previous_path = os.path.join("docs", previous)
        if os.path.exists(os.path.join(ROOT, previous_path)) and f"({page}" not in read(previous_path):
            problems.append(f"docs/{previous}, the page before, does not link to {page}")
    if kind in GEMM_KINDS and ladder is not None and not on_the_ladder(step, ladder, declared):
        problems.append(f"no ladder-table of docs/ladder.md shows it (none of its kind, {LADDER_KIND[kind]}, "
                        f"selects it: their min_arch=, below_arch= or steps= leave out {number})")
    if kind in GEMM_KINDS and not host_test_of(number):
        problems.append(f"no host test tests/host/test_mapping_{number}.cpp")
    registration = os.path.join("steps", name, "traced.hpp")
    if step["traced"]:
        if not os.path.exists(os.path.join(ROOT, registration)):
            problems.append(f"its mapping has a trace_warp, and it has no {registration} (its registration in "
                            "the traced registry: docs/design.md, \"Checklist: adding a step\")")
        else:
            text = read(registration)
            if f'#include "{name}/mapping.hpp"' not in text:
                problems.append(f"{registration} does not include {name}/mapping.hpp")
            if not re.search(rf"\bvoid add_step{number}\(", text):
                problems.append(f"{registration} does not define add_step{number}, which the generated registry calls")
    elif os.path.exists(os.path.join(ROOT, registration)):
        problems.append(f"{registration} registers a step whose mapping has no trace_warp")
    main = os.path.join("steps", name, "main.cu")
    if kind in GEMM_KINDS and os.path.exists(os.path.join(ROOT, main)):
        text = read(main)
        min_cc = re.search(r"\bmin_cc\s*=\s*(\d+)", text)
        if min_cc is None or int(min_cc.group(1)) != step["min_arch"]:
            problems.append(f"{main} demands compute capability {min_cc.group(1) if min_cc else '75 (the default)'} "
                            f"(min_cc), its declaration {step['min_arch']} (gemm_add_step in "
                            f"steps/{name}/CMakeLists.txt): make them one")
        specific = [arch for arch in step["architectures"] if arch.endswith("a")]
        only_cc = re.search(r"\bonly_cc\s*=\s*(\d+)", text)
        if specific and (only_cc is None or only_cc.group(1) != specific[0][:-1]):
            problems.append(f"{main} does not set only_cc = {specific[0][:-1]}, and the step is built for "
                            f"sm_{specific[0]} alone")
        if not specific and only_cc is not None:
            problems.append(f"{main} sets only_cc, and the step is built for no architecture-specific target")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    manifest_path = os.path.join(args.build, "steps.json")
    if not os.path.exists(manifest_path):
        print(f"check_steps_registered: no {manifest_path}: configure the build first (cmake -S . -B build)",
              file=sys.stderr)
        return 2
    with open(manifest_path, encoding="utf-8") as handle:
        steps = json.load(handle)["steps"]
    readme, index = read("README.md"), read(os.path.join("docs", "README.md"))
    by_name = {step["name"]: step for step in steps}
    ladder_path = os.path.join("docs", "ladder.md")
    ladder = read(ladder_path) if os.path.exists(os.path.join(ROOT, ladder_path)) else None

    failures = []
    declared = {step["name"] for step in steps}
    folders = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "steps", "[0-9][0-9]_*"))
                     if os.path.isdir(p))
    for folder in folders:
        if folder not in declared:
            failures.append(f"steps/{folder}: not declared: its CMakeLists.txt must call gemm_add_step({folder} ...) "
                            "(cmake/GemmSteps.cmake)")
    for name in sorted(declared - set(folders)):
        failures.append(f"{name}: declared in {manifest_path} but no folder steps/{name} (reconfigure the build)")
    before = None
    measured = measured_steps()
    for step in sorted(steps, key=lambda s: s["name"]):
        problems = problems_of(step, before, readme, index, ladder, by_name) + row_problems(step, readme, measured)
        failures += [f"steps/{step['name']}: {problem}" for problem in problems]
        before = step
    for failure in failures:
        print(failure)
    print(f"check_steps_registered: {len(steps)} steps, {len(failures)} missing place(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
