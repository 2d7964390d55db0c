#!/usr/bin/env python3
"""Measures how long the viewer takes to draw a frame, and writes it down.

Runs build/bin/gemm_viewer --screenshot ... --frames N for a few selections (the thread map at a
256 x 256 shape, the shared-memory panel, the timeline), under Xvfb where there is no display, and
reads what the viewer prints: the median frame time of the N frames and what the last frame asked
of the renderer (vertices, indices). Writes docs/results/viewer-frame-times.json (schema
gemm-steps-frame-times/1), which tools/render_docs.py renders into docs/viewer.md's
<!-- frame-times-table -->. A measurement, never a test: the time depends on the machine and on
what else runs on it, which the file records (CPU, cores, load average before the run).

    tools/frame_times.py --build build                      # measure, print, write the file
    tools/frame_times.py --build build --out /tmp --frames 120

Exit codes: 0 measured, 1 a run failed or printed no frame time, 2 usage, 77 no viewer or no
display (nor xvfb-run).
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCHEMA = "gemm-steps-frame-times/1"
FILE_NAME = "viewer-frame-times.json"

# (what it shows, the viewer's arguments): the selections docs/viewer.md's commands name.
CASES = (
    ("thread map, 256 x 256", ["--step", "05_smem_tiling", "--shape", "256x256x64"]),
    ("thread map of a tensor-core step", ["--step", "18_tma_store_epilogue"]),
    ("shared memory", ["--panel", "shared", "--step", "15_tma_wgmma"]),
    ("timeline", ["--panel", "timeline", "--step", "17_persistent_clusters"]),
)

FRAME_TIME = re.compile(r"frame time: ([0-9.]+) ms \(median of ([0-9]+) frames\)")
DRAW_DATA = re.compile(r"draw data: ([0-9]+) vertices, ([0-9]+) indices")


def parse_output(text):
    """(median ms, frames, vertices, indices) from the viewer's output, or None where it lacks one."""
    time, data = FRAME_TIME.search(text), DRAW_DATA.search(text)
    if not time or not data:
        return None
    return float(time.group(1)), int(time.group(2)), int(data.group(1)), int(data.group(2))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build folder (its bin/gemm_viewer)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "results"), help="where to write " + FILE_NAME)
    parser.add_argument("--frames", type=int, default=60, help="frames per selection (default 60)")
    args = parser.parse_args()
    if args.frames < 1:
        parser.error("--frames must be at least 1")

    viewer = os.path.join(args.build, "bin", "gemm_viewer")
    if not os.access(viewer, os.X_OK):
        print(f"frame_times: no viewer at {viewer}: build it (cmake --build {args.build} --target gemm_viewer)",
              file=sys.stderr)
        return 77
    prefix = []
    if not os.environ.get("DISPLAY"):
        xvfb = shutil.which("xvfb-run")
        if not xvfb:
            print("frame_times: no display and no xvfb-run: install xvfb (apt-get install xvfb)", file=sys.stderr)
            return 77
        prefix = [xvfb, "-a"]

    load_before = os.getloadavg()[0]
    cases = []
    with tempfile.TemporaryDirectory() as scratch:
        for what, arguments in CASES:
            command = [viewer, "--screenshot", os.path.join(scratch, "frame.png"), *arguments,
                       "--frames", str(args.frames)]
            run = subprocess.run(prefix + command, capture_output=True, text=True, timeout=600)
            measured = parse_output(run.stdout + run.stderr)
            if run.returncode != 0 or measured is None:
                print(f"frame_times: {' '.join(command)} exited {run.returncode} without a frame time:\n"
                      f"{(run.stdout + run.stderr)[-2000:]}", file=sys.stderr)
                return 1
            median_ms, frames, vertices, indices = measured
            shown = ("xvfb-run -a " if prefix else "") + "build/bin/gemm_viewer --screenshot /tmp/frame.png " + \
                " ".join(arguments) + f" --frames {args.frames}"
            print(f"{what:35s} {median_ms:8.2f} ms (median of {frames} frames), {vertices} vertices, {indices} indices")
            cases.append({"what": what, "command": shown, "median_ms": median_ms, "frames": frames,
                          "vertices": vertices, "indices": indices})

    document = {
        "schema": SCHEMA,
        "program": "tools/frame_times.py",
        "commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "load_before": round(load_before, 2),
                    "display": "Xvfb (Mesa's software OpenGL)" if prefix else os.environ.get("DISPLAY", "")},
        "cases": cases,
    }
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, FILE_NAME)
    with open(path, "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
