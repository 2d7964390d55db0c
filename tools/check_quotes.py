#!/usr/bin/env python3
"""Checks that the C++/CUDA code the docs show is the code as it is: every ```cpp, ```cuda or ```c++
block of docs/*.md is a quote of one source file of the checkout (under steps/, common/, viewer/,
tools/ or tests/), or says that it is not one. A page marks each such block on the nearest
non-blank line above its opening fence:

    <!-- quote steps/15_tma_wgmma/kernel.cuh -->
    ```cuda
    for (int kt = 0; kt < k_tile_count; ++kt) {
      gemm::barrier_wait(full(stage), phase);
      // ... the wgmma of the k-tile
      gemm::wgmma_commit();
    ```
        A quote: its lines are consecutive lines of that file (blank lines and indentation aside,
        so a quote may be dedented), except where a line `// ...` (words may follow it) stands for
        lines left out. Keep a quote short: the lines that carry the step's idea.

    <!-- sketch -->
    ```cpp
    acc += a[row][k] * b[k][col];
    ```
        Not a quote: a sketch, pseudo-code, a wrong version shown for contrast; the page's text
        says so.

    <!-- code file=steps/22_tile_width/mapping.hpp names=counted_time -->
        Whole definitions with the comment above them, filled in by tools/render_docs.py (which
        cannot go stale while docs.tables_current passes); the block is checked against what
        render_docs.py would write.

A block without a marker, a quote of a file that is not there, or a quoted line that is not where
the quote says (a line the code no longer has, or not after the lines before it) is stale.

    tools/check_quotes.py [PAGE.md...]   exit 0 when every block is current, 1 with a line per
                                         stale block: page:line, the line, the file it should be in
"""
import argparse
import functools
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render_docs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FENCE = re.compile(r"^\s*```\s*(cpp|cuda|c\+\+)\s*$")
QUOTE = re.compile(r"^\s*<!--\s*quote\s+(\S+)\s*-->\s*$")
SKETCH = re.compile(r"^\s*<!--\s*sketch\b.*-->\s*$")
RENDERED = re.compile(r"^\s*<!--\s*code\s+([^>]*)-->\s*$")
ELISION = re.compile(r"^//\s*\.\.\.")
# Where quoted code may come from.
SOURCE_FOLDERS = ("steps/", "common/", "viewer/", "tools/", "tests/")


def normalise(line):
    return " ".join(line.split())


def blocks(text):
    """(fence line number, the marker, the block's lines as (line number, text)) for every C++/CUDA
    block of a page. The marker: ('quote', file), ('sketch', None), ('rendered', the attributes of
    render_docs.py's code marker the block is under) or (None, None)."""
    lines = text.split("\n")
    found, index, rendered = [], 0, None
    while index < len(lines):
        line = lines[index]
        if RENDERED.match(line):
            rendered = dict(re.findall(r"(\w+)=(\S+)", RENDERED.match(line).group(1)))
        elif line.strip() == "<!-- end code -->":
            rendered = None
        if line.lstrip().startswith("```"):
            end = index + 1
            while end < len(lines) and not lines[end].lstrip().startswith("```"):
                end += 1
            if FENCE.match(line):
                above = index - 1
                while above >= 0 and not lines[above].strip():
                    above -= 1
                marker = (None, None)
                if rendered:
                    marker = ("rendered", rendered)
                elif above >= 0 and QUOTE.match(lines[above]):
                    marker = ("quote", QUOTE.match(lines[above]).group(1))
                elif above >= 0 and SKETCH.match(lines[above]):
                    marker = ("sketch", None)
                found.append((index + 1, marker, [(n + 1, lines[n]) for n in range(index + 1, end)]))
            index = end + 1
            continue
        index += 1
    return found


def match_quote(quoted, source):
    """How many of the quote's lines (normalised, no blanks; None for an elision) can be matched, in
    order, against consecutive lines of the source (normalised, no blanks), an elision skipping any
    number of them. len(quoted) when the whole quote is found."""
    at_lines = {}
    for index, line in enumerate(source):
        at_lines.setdefault(line, []).append(index)

    @functools.lru_cache(maxsize=None)
    def longest(q, s):
        # The quote's line q is to be matched at source line s (or, after an elision, anywhere from s).
        if q == len(quoted):
            return q
        if quoted[q] is None:
            if q + 1 == len(quoted) or quoted[q + 1] is None:
                return longest(q + 1, s)
            return max([q + 1] + [longest(q + 1, at) for at in at_lines.get(quoted[q + 1], []) if at >= s])
        if s < len(source) and source[s] == quoted[q]:
            return longest(q + 1, s + 1)
        return q

    if quoted and quoted[0] is None:
        return longest(0, 0)
    return max([0] + [longest(0, start) for start in at_lines.get(quoted[0], [])])


def source_lines(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return tuple(normalise(line) for line in handle.read().split("\n") if line.strip())


def quote_lines(body):
    """The block's non-blank lines as (line number, text), and their normalised forms (None: `// ...`)."""
    numbered = [(number, text) for number, text in body if text.strip()]
    return numbered, tuple(None if ELISION.match(normalise(text)) else normalise(text) for _, text in numbered)


def quoted_file(body, root=ROOT):
    """The first source file the block is a whole quote of, for a block that names none."""
    _, quoted = quote_lines(body)
    for folder in SOURCE_FOLDERS:
        for base, _, names in sorted(os.walk(os.path.join(root, folder))):
            for name in sorted(names):
                if name.endswith((".hpp", ".cuh", ".cu", ".cpp", ".h")):
                    path = os.path.join(base, name)
                    if match_quote(quoted, source_lines(path)) == len(quoted):
                        return os.path.relpath(path, root)
    return None


def check_rendered(page, fence, attributes, body):
    """A block filled by render_docs.py from whole definitions: the definitions as they are now."""
    try:
        rendered = render_docs.code_quote(attributes).split("\n")
    except (KeyError, OSError, RuntimeError) as error:
        return f"{page}:{fence}: the code marker above the block cannot be rendered: {error}"
    code = rendered[rendered.index("```cpp") + 1:-1]
    for (number, text), expected in zip(body, code):
        if text != expected:
            return f"{page}:{number}: `{text.strip()}` is not the definition in {attributes['file']} (run tools/render_docs.py)"
    if len(body) != len(code):
        return f"{page}:{fence}: the definitions in {attributes['file']} changed length (run tools/render_docs.py)"
    return None


def check_block(page, fence, marker, body, root=ROOT):
    """A line naming what is stale in one block, or None when it is current."""
    kind, path = marker
    if kind == "sketch":
        return None
    if kind == "rendered":
        return check_rendered(page, fence, path, body)
    if kind is None:
        found = quoted_file(body, root)
        return (f"{page}:{fence}: a C++ block with neither <!-- quote FILE --> nor <!-- sketch --> on the line "
                "above it" + (f" (it quotes {found})" if found else "") + " (tools/check_quotes.py --help)")
    if not path.startswith(SOURCE_FOLDERS) or not os.path.isfile(os.path.join(root, path)):
        return f"{page}:{fence}: the quote names {path}, which is not a source file of the checkout"
    source = source_lines(os.path.join(root, path))
    numbered, quoted = quote_lines(body)
    if not any(line is not None for line in quoted):
        return f"{page}:{fence}: an empty quote of {path}"
    matched = match_quote(quoted, source)
    if matched == len(quoted):
        return None
    number, text = numbered[matched]
    where = "not in" if normalise(text) not in source else "in, but not after the lines before it in"
    return f"{page}:{number}: `{text.strip()}` is {where} {path}"


def check_page(path, root=ROOT):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    page = os.path.relpath(path, root)
    problems = []
    for fence, marker, body in blocks(text):
        problem = check_block(page, fence, marker, body, root)
        if problem:
            problems.append(problem)
    return problems, len(blocks(text))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="*", help="the pages to check (default: docs/*.md)")
    args = parser.parse_args()
    docs = os.path.join(ROOT, "docs")
    pages = args.pages or sorted(os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))
    problems, count = [], 0
    for page in pages:
        found, blocks_on_page = check_page(page)
        problems += found
        count += blocks_on_page
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_quotes: {len(problems)} of {count} C++ blocks stale (re-quote them from the file, or mark "
              "a deliberate sketch <!-- sketch -->)")
        return 1
    print(f"check_quotes: every one of the {count} C++ blocks of {len(pages)} pages is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
