#!/usr/bin/env python3
"""Checks that the docs point at things that exist: every relative link and image in README.md and
docs/*.md resolves to a file or folder of the checkout, every #anchor to a heading of the page it
names (GitHub's heading ids), every path of the checkout named in backticks (`steps/09_warptiling/
mapping.hpp`, `common/host/trace.hpp`, `tools/pictures.py`) exists, and every picture in docs/images/ is
shown by some page (a sidecar NAME.json belongs to NAME.png).

    tools/check_doc_links.py            exit 0 when all resolve, 1 with a line per broken one
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
# Paths of the checkout as the docs name them in backticks; build outputs are not in the checkout.
CHECKOUT_PATH = re.compile(r"^(?:steps|common|tools|tests|viewer|docs|cmake)/[\w.\-/]*$")


# A viewer picture linked to its live view: the page tools/web builds (build-web/, not in the
# checkout), whose links tools/pictures.py --check --only links holds. The picture inside is checked.
LIVE_VIEW = re.compile(r"\[(!\[[^\]]*\]\([^)\s]*\))\]\(\.\./build-web/index\.html\?[^)\s]*\)")

# NN, the step number in a pattern such as steps/NN_name/ or test_mapping_NN.cpp.
PLACEHOLDER = re.compile(r"(^|[/_.-])NN([/_.-]|$)")


def pages():
    found = [os.path.join(ROOT, "README.md")]
    docs = os.path.join(ROOT, "docs")
    found += sorted(os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))
    return found


def prose_lines(path):
    """(line number, text) outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line


def slug(heading):
    """GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*|_(?=\W)|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip())
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        ids, seen = set(), {}
        for _, line in prose_lines(path):
            match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if match:
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                ids.add(base if count == 0 else f"{base}-{count}")
            for name in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                ids.add(name)
        cache[path] = ids
    return cache[path]


def check_page(page, used_images):
    problems = []
    here = os.path.dirname(page)
    shown = os.path.relpath(page, ROOT)
    for number, line in prose_lines(page):
        # Links and images, outside inline code.
        for match in LINK.finditer(LIVE_VIEW.sub(r"\1", CODE_SPAN.sub("", line))):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.\-]*:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(here, path)) if path else page
            if not os.path.exists(resolved):
                problems.append(f"{shown}:{number}: link to {target}: {os.path.relpath(resolved, ROOT)} does not exist")
                continue
            if path and os.path.dirname(resolved) == os.path.join(ROOT, "docs", "images"):
                used_images.add(os.path.basename(resolved))
            if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                problems.append(f"{shown}:{number}: link to {target}: no heading with the id '{anchor}' in "
                                f"{os.path.relpath(resolved, ROOT)}")
        # Paths of the checkout named in backticks.
        for match in CODE_SPAN.finditer(line):
            text = match.group(1).strip()
            if not CHECKOUT_PATH.match(text):
                continue
            if PLACEHOLDER.search(text):  # a pattern a contributor fills in (steps/NN_name/), not a path
                continue
            if not os.path.exists(os.path.join(ROOT, text.rstrip("/"))):
                problems.append(f"{shown}:{number}: `{text}` does not exist in the checkout")
    return problems


def main():
    problems, used_images = [], set()
    for page in pages():
        problems += check_page(page, used_images)
    images = os.path.join(ROOT, "docs", "images")
    if os.path.isdir(images):
        for name in sorted(os.listdir(images)):
            stem, extension = os.path.splitext(name)
            if extension == ".json":
                if not os.path.exists(os.path.join(images, stem + ".png")):
                    problems.append(f"docs/images/{name}: a sidecar without its picture {stem}.png")
            elif name not in used_images:
                problems.append(f"docs/images/{name}: no page shows it (show it on a page, or delete it and its "
                                "entry in tools/pictures.py)")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check_doc_links: {len(problems)} broken", file=sys.stderr)
        return 1
    print(f"check_doc_links: every link, anchor, path and picture of {len(pages())} pages resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
