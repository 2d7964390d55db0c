#!/usr/bin/env python3
"""check_presets_doc.py: docs/your-gpu.md's table of CMake presets says what CMakePresets.json does.

Each row of the table (between the header "| preset | GPUs | `CMAKE_CUDA_ARCHITECTURES` |" and the
first line that is not a table row) names one or more presets in backticks and an architecture list
(its first number, then any words). For each preset named, the check follows the preset's `inherits`
chain to its CMAKE_CUDA_ARCHITECTURES and requires the row's first number to be it; and every
configure preset that sets an architecture, itself or through its parents, must have a row. So a
preset added, renamed or moved to another architecture fails the test until the page says so.

Prints one line per disagreement; exit 0 when there is none, 1 otherwise.
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HEADER = "| preset | GPUs | `CMAKE_CUDA_ARCHITECTURES` |"


def architectures(presets, name):
    """The CMAKE_CUDA_ARCHITECTURES a configure preset sets, itself or through the presets it inherits
    (the first parent that sets it wins, as CMake reads a list of parents); None where none does."""
    seen = set()
    pending = [name]
    while pending:
        current = pending.pop(0)
        if current in seen or current not in presets:
            continue
        seen.add(current)
        preset = presets[current]
        value = preset.get("cacheVariables", {}).get("CMAKE_CUDA_ARCHITECTURES")
        if value is not None:
            return value["value"] if isinstance(value, dict) else value
        parents = preset.get("inherits", [])
        pending.extend([parents] if isinstance(parents, str) else parents)
    return None


def table_rows(page_text):
    lines = page_text.splitlines()
    if HEADER not in lines:
        return None
    rows = []
    for line in lines[lines.index(HEADER) + 2:]:  # after the header and its |---| line
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        rows.append((re.findall(r"`([^`]+)`", cells[0]), cells[2]))
    return rows


def problems(presets_document, page_text):
    presets = {p["name"]: p for p in presets_document.get("configurePresets", [])}
    rows = table_rows(page_text)
    if rows is None:
        return [f"docs/your-gpu.md has no table headed {HEADER!r}"]
    found = []
    named = set()
    for names, cell in rows:
        match = re.match(r"\d+", cell)
        for name in names:
            named.add(name)
            if name not in presets:
                found.append(f"docs/your-gpu.md names preset {name!r}, which CMakePresets.json does not define")
                continue
            actual = architectures(presets, name)
            if match is None or actual is None or actual.split(";")[0] != match.group(0):
                found.append(f"docs/your-gpu.md gives preset {name!r} the architectures {cell!r}; "
                             f"CMakePresets.json sets {actual!r}")
    for name in presets:
        if architectures(presets, name) is not None and name not in named:
            found.append(f"preset {name!r} sets CMAKE_CUDA_ARCHITECTURES but has no row in docs/your-gpu.md's table")
    return found


def main():
    with open(os.path.join(ROOT, "CMakePresets.json"), encoding="utf-8") as handle:
        presets_document = json.load(handle)
    with open(os.path.join(ROOT, "docs", "your-gpu.md"), encoding="utf-8") as handle:
        page_text = handle.read()
    found = problems(presets_document, page_text)
    for line in found:
        print("check_presets_doc: " + line)
    if not found:
        print("check_presets_doc: every preset row of docs/your-gpu.md agrees with CMakePresets.json")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
