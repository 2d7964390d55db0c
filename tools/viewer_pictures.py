#!/usr/bin/env python3
"""Regenerates the viewer pictures in docs/images/ with the viewer's headless mode (under
xvfb-run when there is no display). Each picture is the viewer's own rendering of the shipped
results and the steps' traces; docs/viewer.md shows them.

    tools/viewer_pictures.py [--build build]
"""
import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (file name, viewer arguments)
PICTURES = [
    ("viewer-all.png", ["--step", "09_warptiling", "--shape", "128x128x32", "--warp", "1", "--iteration", "0",
                        "--instruction", "11"]),
    ("viewer-thread-map-01.png", ["--panel", "thread", "--step", "01_naive", "--shape", "64x64x16", "--colour", "warp"]),
    ("viewer-thread-map-02.png", ["--panel", "thread", "--step", "02_gmem_coalescing", "--shape", "64x64x16",
                                  "--colour", "warp"]),
    ("viewer-thread-map-09.png", ["--panel", "thread", "--step", "09_warptiling", "--shape", "128x128x32",
                                  "--colour", "warp"]),
    ("viewer-access-01.png", ["--panel", "access", "--step", "01_naive", "--shape", "64x64x16", "--instruction", "0"]),
    ("viewer-access-02.png", ["--panel", "access", "--step", "02_gmem_coalescing", "--shape", "64x64x16",
                              "--instruction", "1"]),
    ("viewer-access-03-col.png", ["--panel", "access", "--step", "03_smem_banks_square", "--variant", "row_col",
                                  "--instruction", "1"]),
    ("viewer-access-03-padded.png", ["--panel", "access", "--step", "03_smem_banks_square", "--variant",
                                     "padded_row_col", "--instruction", "1"]),
    ("viewer-access-09.png", ["--panel", "access", "--step", "09_warptiling", "--shape", "128x128x32",
                              "--iteration", "0", "--instruction", "16"]),
    ("viewer-access-10.png", ["--panel", "access", "--step", "11_split_k_tail", "--shape", "128x256x32",
                              "--iteration", "0", "--instruction", "1"]),
    ("viewer-access-11-tn.png", ["--panel", "access", "--step", "12_wmma", "--layout", "tn", "--shape", "128x128x32",
                                 "--iteration", "0", "--instruction", "1"]),
    # The default tile (--defaults): at so small a shape the step would choose its 64 x 64 tile.
    ("viewer-access-12.png", ["--panel", "access", "--step", "14_mma_ldmatrix", "--shape", "128x256x64",
                              "--defaults", "--iteration", "0", "--instruction", "28"]),
    ("viewer-access-13.png", ["--panel", "access", "--step", "15_hopper_wgmma", "--shape", "128x256x64",
                              "--warp", "4", "--iteration", "0", "--instruction", "0"]),
    ("viewer-performance.png", ["--panel", "performance"]),
    ("viewer-performance-tensor.png", ["--panel", "performance", "--perf", "tensor"]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    viewer = os.path.join(args.build, "bin", "gemm_viewer")
    if not os.access(viewer, os.X_OK):
        print(f"viewer_pictures: {viewer} not built (see CMake's message about the viewer's packages)", file=sys.stderr)
        return 2
    prefix = []
    if not os.environ.get("DISPLAY"):
        xvfb = shutil.which("xvfb-run")
        if not xvfb:
            print("viewer_pictures: no display and no xvfb-run (Debian: apt-get install xvfb libgl1-mesa-dri)",
                  file=sys.stderr)
            return 77
        prefix = [xvfb, "-a", "-s", "-screen 0 1920x1080x24"]
    out_dir = os.path.join(ROOT, "docs", "images")
    os.makedirs(out_dir, exist_ok=True)
    for name, arguments in PICTURES:
        path = os.path.join(out_dir, name)
        geometry = os.path.join(args.build, name + ".json")
        command = prefix + [viewer, "--screenshot", path, "--geometry", geometry,
                            "--results", os.path.join(ROOT, "docs", "results")] + arguments
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"viewer_pictures: {' '.join(command)} exited {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
            return 1
        print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
