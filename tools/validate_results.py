#!/usr/bin/env python3
"""Checks every results file in a folder (default docs/results): schema, device, consistent
medians, GFLOPS recomputed from the times, no FAIL verdict in what ships."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_lib  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "docs", "results"))
    parser.add_argument("--allow-fail", action="store_true", help="accept FAIL verdicts (local runs)")
    args = parser.parse_args()
    if not os.path.isdir(args.folder):
        print(f"validate_results: no folder {args.folder}", file=sys.stderr)
        return 2
    files = results_lib.results_files(args.folder)
    failed = 0
    for path in files:
        problems = results_lib.validate(results_lib.load(path), require_pass=not args.allow_fail)
        for problem in problems:
            print(f"{path}: {problem}")
        failed += bool(problems)
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
