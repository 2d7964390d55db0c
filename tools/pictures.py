#!/usr/bin/env python3
"""Regenerates every picture in docs/images/: the viewer's pictures (its headless --docs mode, under
xvfb-run when there is no display), the concept diagrams (build/bin/draw_diagrams, SVG) and the
plots of shipped results (tools/plot_fp8_accuracy.py, SVG). Each is computed from the steps' own
code and the shipped results files; nothing is drawn by hand.

    tools/pictures.py [--build build]              regenerate them all
    tools/pictures.py --check [--only diagrams|viewer|links]
                                                   regenerate into a temporary folder and compare
                                                   with the committed ones (exit 1 when one is stale)
    tools/pictures.py --links                      link every viewer picture in docs/*.md to the live
                                                   view (--check --only links: exit 1 when one is
                                                   missing or stale; needs no build)

Next to each viewer picture NAME.png lies NAME.json: the command, the selection and what the panel
showed (its counts and labels). Software OpenGL may draw a pixel differently from one machine to
another, so --check compares those sidecars, not the pixels; the SVG diagrams and plots are compared
byte for byte (--only diagrams takes both; they need no display). A step that is not traced in this checkout (no steps/NN_name/traced.hpp in the traced registry) is skipped with a
message, its committed picture left as it is.

Each viewer picture on a page links to the same selection in the viewer in a browser
(`[![...](images/NAME.png)](../build-web/index.html?QUERY)`, tools/web builds the page): the query is
made here from the picture's arguments, as viewer/link.hpp makes the page's own, and --links writes
it into the pages, so that the link cannot drift from the picture.
"""
import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_fp8_accuracy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGES = os.path.join(ROOT, "docs", "images")
SKIP = 77

# (file name, viewer arguments). Every one is drawn with --docs (light theme, large font, the one
# panel across the window); the page that shows it says what it shows.
PICTURES = [
    # 01 vs 02: who computes what, and a warp's load of A (01: 32 sectors) or B (02: 4 sectors).
    ("viewer-01-thread-map.png", ["--panel", "thread", "--step", "01_naive", "--shape", "64x64x16", "--colour", "warp",
                                  "--size", "1100x1300"]),
    ("viewer-01-access.png", ["--panel", "access", "--step", "01_naive", "--shape", "64x64x16", "--instruction", "0"]),
    ("viewer-02-thread-map.png", ["--panel", "thread", "--step", "02_gmem_coalescing", "--shape", "64x64x16",
                                  "--colour", "warp", "--size", "1100x1300"]),
    ("viewer-02-access.png", ["--panel", "access", "--step", "02_gmem_coalescing", "--shape", "64x64x16",
                              "--instruction", "1"]),
    # 03 and 04: the column load that conflicts, and the padded tile that does not.
    ("viewer-03-row-col.png", ["--panel", "access", "--step", "03_smem_banks_square", "--variant", "row_col",
                               "--instruction", "1"]),
    ("viewer-03-padded.png", ["--panel", "access", "--step", "03_smem_banks_square", "--variant", "padded_row_col",
                              "--instruction", "1"]),
    ("viewer-04-row-col.png", ["--panel", "access", "--step", "04_smem_banks_rectangular", "--variant", "row_col",
                               "--instruction", "1"]),
    ("viewer-04-padded.png", ["--panel", "access", "--step", "04_smem_banks_rectangular", "--variant",
                              "padded1_row_col", "--instruction", "1"]),
    # 05: a warp's read of one row of the shared B tile.
    ("viewer-05-access.png", ["--panel", "access", "--step", "05_smem_tiling", "--shape", "64x64x64",
                              "--iteration", "0", "--instruction", "5"]),
    # 06 and 07: each thread's results (a column, then a block), coloured by thread.
    ("viewer-06-thread-map.png", ["--panel", "thread", "--step", "06_1d_blocktiling", "--shape", "64x64x32",
                                  "--colour", "thread", "--size", "1100x1300"]),
    ("viewer-07-thread-map.png", ["--panel", "thread", "--step", "07_2d_blocktiling", "--shape", "128x128x32",
                                  "--colour", "thread", "--size", "1100x1300"]),
    # 08: the transposed store of A into shared memory, 4 wavefronts.
    ("viewer-08-access.png", ["--panel", "access", "--step", "08_vectorized", "--shape", "128x128x32",
                              "--iteration", "0", "--instruction", "1"]),
    # 09: the warp tiles, and a 16-byte load of the B tile at 2 wavefronts.
    ("viewer-09-thread-map.png", ["--panel", "thread", "--step", "09_warptiling", "--shape", "128x128x32",
                                  "--colour", "warp", "--size", "1100x1300"]),
    ("viewer-09-access.png", ["--panel", "access", "--step", "09_warptiling", "--shape", "128x128x32",
                              "--iteration", "0", "--instruction", "16"]),
    # 10: the cp.async pipeline's write of A into its padded transposed tile (step 11 traces the same kernel).
    ("viewer-10-access.png", ["--panel", "access", "--step", "10_cp_async_pipeline", "--shape", "128x256x32",
                              "--iteration", "0", "--instruction", "1"]),
    # 12: WMMA in TN: a transposed 2-byte store of A.
    ("viewer-12-access-tn.png", ["--panel", "access", "--step", "12_wmma", "--layout", "tn", "--shape", "128x128x32",
                                 "--iteration", "0", "--instruction", "1"]),
    # 13: the WMMA pipeline's copy of A.
    ("viewer-13-access.png", ["--panel", "access", "--step", "13_wmma_pipeline", "--shape", "128x128x32",
                              "--iteration", "0", "--instruction", "1"]),
    # 14: ldmatrix.x4.trans of two B fragments from the swizzled tile, the default tile (--defaults:
    # at so small a shape the step would choose its 64 x 64 tile).
    ("viewer-14-access.png", ["--panel", "access", "--step", "14_mma_ldmatrix", "--shape", "128x256x64",
                              "--defaults", "--iteration", "0", "--instruction", "28"]),
    # 14: the shared-memory panel: one ldmatrix.x4 of A from the swizzled stage, its 4 phases of 8
    # 16-byte rows each over all 32 banks (NN, the default tile, k-tile 0).
    ("viewer-14-shared-ldmatrix.png", ["--panel", "shared", "--step", "14_mma_ldmatrix", "--shape", "128x256x64",
                                       "--defaults", "--layout", "nn", "--operand", "a", "--k-tile", "0",
                                       "--shared-item", "6", "--size", "1500x2400"]),
    # 15: the data path of A (NN, k-tile 1): the TMA box landing in the swizzled stage beside the box
    # as stored; then one wgmma k-step's reads through the kernel's descriptor (k-step 1).
    ("viewer-15-shared-tma.png", ["--panel", "shared", "--step", "15_tma_wgmma", "--shape", "128x256x128",
                                  "--layout", "nn", "--operand", "a", "--k-tile", "1", "--shared-item", "1"]),
    ("viewer-15-shared-wgmma.png", ["--panel", "shared", "--step", "15_tma_wgmma", "--shape", "128x256x128",
                                    "--layout", "nn", "--operand", "a", "--k-tile", "1", "--shared-item", "3"]),
    # 15: the epilogue straight from the accumulators: a warp's first 8-byte store of C, 8 rows of 32 bytes.
    ("viewer-15-access.png", ["--panel", "access", "--step", "15_tma_wgmma", "--shape", "128x256x64",
                              "--warp", "0", "--iteration", "0", "--instruction", "0"]),
    # 18: a consumer warp's first staging write of the epilogue.
    ("viewer-18-access.png", ["--panel", "access", "--step", "18_tma_store_epilogue", "--shape", "128x256x64",
                              "--warp", "4", "--iteration", "0", "--instruction", "0"]),
    # 19: the same staging write in the FP8 step (its one layout, NT; the default tile, 128 x 192),
    # after the warp's two loads of the scales.
    ("viewer-19-access.png", ["--panel", "access", "--step", "19_fp8", "--layout", "nt", "--shape", "128x192x128",
                              "--defaults", "--warp", "4", "--iteration", "0", "--instruction", "2"]),
    # 19: FP8 in the shared-memory panel: a 128-byte row holds 128 k's; wgmma k-step 1 of consumer 0
    # reads k 32-63, the same 32 bytes of each of its 64 rows as a 16-bit k-step's 16 k's.
    ("viewer-19-shared-wgmma.png", ["--panel", "shared", "--step", "19_fp8", "--layout", "nt", "--shape",
                                    "128x192x256", "--defaults", "--operand", "a", "--k-tile", "1",
                                    "--shared-item", "3"]),
    # 21: the same k-step, its descriptor now stage 0's plus descriptor_offset (the uniform datapath):
    # the reads are where step 19's were.
    ("viewer-21-shared-wgmma.png", ["--panel", "shared", "--step", "21_uniform_datapath", "--layout", "nt",
                                    "--shape", "128x192x256", "--defaults", "--operand", "a", "--k-tile", "1",
                                    "--shared-item", "3"]),
    # 12-22: who holds each element of C when the k-loop ends (the thread map of the tensor-core
    # steps), the element named below the map. 12: each warp's WMMA fragments (the API leaves their
    # lanes unspecified); 14: one mma.sync m16n8k16 accumulator fragment pair by lane; 15: one
    # warpgroup's wgmma m64n256 accumulators by warp, and by lane; 18 and 22 (persistent, the H100's
    # 132 SMs): which block (SM) took each tile, and the two consumer warpgroups of each tile.
    ("viewer-12-thread-map.png", ["--panel", "thread", "--step", "12_wmma", "--shape", "128x128x32", "--colour",
                                  "thread", "--element", "40,70", "--size", "1100x1300"]),
    ("viewer-14-thread-map.png", ["--panel", "thread", "--step", "14_mma_ldmatrix", "--shape", "16x16x16", "--colour",
                                  "thread", "--element", "9,3", "--size", "1100x1300"]),
    ("viewer-15-thread-map-warps.png", ["--panel", "thread", "--step", "15_tma_wgmma", "--shape", "64x256x64",
                                        "--colour", "warp", "--element", "20,133", "--size", "1500x1000"]),
    ("viewer-15-thread-map-lanes.png", ["--panel", "thread", "--step", "15_tma_wgmma", "--shape", "64x32x64",
                                        "--colour", "thread", "--element", "20,13", "--size", "1100x1500"]),
    ("viewer-18-thread-map-blocks.png", ["--panel", "thread", "--step", "18_tma_store_epilogue", "--shape",
                                         "4096x4096x64", "--sms", "132", "--colour", "block", "--element", "2000,3000",
                                         "--size", "1500x1800"]),
    ("viewer-18-thread-map-warpgroups.png", ["--panel", "thread", "--step", "18_tma_store_epilogue", "--shape",
                                             "512x1024x64", "--sms", "132", "--defaults", "--colour", "warpgroup",
                                             "--element", "200,300", "--size", "1500x1100"]),
    ("viewer-22-thread-map-blocks.png", ["--panel", "thread", "--step", "22_tile_width", "--shape", "4096x4096x128",
                                         "--sms", "132", "--colour", "block", "--element", "2000,3000", "--size",
                                         "1500x1800"]),
    ("viewer-22-thread-map-warpgroups.png", ["--panel", "thread", "--step", "22_tile_width", "--shape",
                                             "512x1024x128", "--sms", "132", "--colour", "warpgroup", "--element",
                                             "200,300", "--size", "1500x1100"]),
    # The timeline: one block's stages over its k-tiles (10: cp.async groups and waits; 16: the producer
    # and the consumers on full and empty barriers), and the persistent grid's rounds (17: GROUP_M and
    # clusters, with a short K so that the chart shows tiles end to end; 22: the width its rounds choose).
    ("viewer-10-timeline.png", ["--panel", "timeline", "--step", "10_cp_async_pipeline", "--shape", "256x256x128",
                                "--size", "1500x1000"]),
    ("viewer-16-timeline.png", ["--panel", "timeline", "--step", "16_warp_specialized", "--shape", "256x512x640",
                                "--size", "1500x1100"]),
    ("viewer-17-timeline.png", ["--panel", "timeline", "--step", "17_persistent_clusters", "--shape", "4096x4096x512",
                                "--sms", "132", "--size", "1500x2200"]),
    ("viewer-22-timeline.png", ["--panel", "timeline", "--step", "22_tile_width", "--layout", "nt", "--shape",
                                "4096x4096x4096", "--sms", "132", "--size", "1500x2400"]),
    # 13: the WMMA pipeline's cp.async groups: STAGES - 1 k-tiles in flight, one barrier a k-tile.
    ("viewer-13-timeline.png", ["--panel", "timeline", "--step", "13_wmma_pipeline", "--shape", "128x256x256",
                                "--size", "1500x1000"]),
    # 20: the FP8 step with the epilogue under the next tile's first k-tile (bf16 out, beta = 0, TMA
    # stores C): two tiles of one block, the slices' stores overlapping the next tile's products.
    ("viewer-20-timeline.png", ["--panel", "timeline", "--step", "20_overlapped_epilogue", "--layout", "nt",
                                "--shape", "256x256x512", "--sms", "2", "--out", "bf16", "--size", "1500x1400"]),
    ("viewer-24-timeline.png", ["--panel", "timeline", "--step", "24_overlapped_promotion", "--layout", "nt",
                                "--shape", "64x128x1024", "--sms", "2", "--out", "bf16", "--size", "1500x1400"]),
    # 25: the narrow units in pairs at 4088 x 4104 (K short, so that a block's tiles show end to end):
    # block 116, of cluster 58, the first to take a pair: three whole units, then two narrow ones.
    ("viewer-25-timeline.png", ["--panel", "timeline", "--step", "25_narrow_pairs", "--layout", "nt", "--shape",
                                "4088x4104x128", "--sms", "132", "--block", "116,0", "--size", "1500x2400"]),
    # 26: an N-major B's tail box (NN; 1536^3 takes the 128 x 144 tile): its TMA box landing with the
    # 32-byte swizzle (item 3: B's third box), and k-step 1's n = 16 wgmma reading it through its
    # own descriptor (item 7: each k-step is two reads, n 0-127 and n 128-143).
    ("viewer-26-shared-tail-tma.png", ["--panel", "shared", "--step", "26_fitted_tile", "--shape", "1536x1536x128",
                                       "--layout", "nn", "--operand", "b", "--k-tile", "1", "--shared-item", "3"]),
    ("viewer-26-shared-tail-wgmma.png", ["--panel", "shared", "--step", "26_fitted_tile", "--shape", "1536x1536x128",
                                         "--layout", "nn", "--operand", "b", "--k-tile", "1", "--shared-item", "7"]),
    # docs/viewer.md: the whole window, and the performance panel.
    ("viewer-all.png", ["--panel", "all", "--step", "09_warptiling", "--shape", "128x128x32", "--warp", "1",
                        "--iteration", "0", "--instruction", "11", "--theme", "light", "--font-scale", "1.5",
                        "--size", "2700x1350"]),
    # The performance panel follows the selected step: its group of runs, its bars highlighted.
    ("viewer-performance.png", ["--panel", "performance", "--step", "11_split_k_tail", "--size", "1300x1500"]),
    ("viewer-performance-tensor.png", ["--panel", "performance", "--step", "18_tma_store_epilogue", "--size",
                                       "1300x1500"]),
    ("viewer-performance-fp8.png", ["--panel", "performance", "--step", "22_tile_width", "--size", "1300x1500"]),
]


# ---- The live view: a link's query is the viewer's command line (viewer/link.hpp) ---------------
# From a page in docs/ to the page tools/web builds (docs/viewer.md, "In a browser").
LIVE_PAGE = "../build-web/index.html"
# What shapes a picture but not the selection (its window, theme and font), left out of its link.
PICTURE_ONLY = {"--size", "--theme", "--font-scale"}
_PLAIN = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~,=:")


def _encode(text):
    return "".join(c if c in _PLAIN else "".join(f"%{b:02X}" for b in c.encode()) for c in text)


def query_from_arguments(arguments):
    """["--step", "05_smem_tiling", "--defaults"] -> "step=05_smem_tiling&defaults" (link.hpp's rule)."""
    parts, i = [], 0
    while i < len(arguments):
        key = arguments[i][2:] if arguments[i].startswith("--") else arguments[i]
        if i + 1 < len(arguments) and not arguments[i + 1].startswith("--"):
            parts.append(_encode(key) + "=" + _encode(arguments[i + 1]))
            i += 2
        else:
            parts.append(_encode(key))
            i += 1
    return "&".join(parts)


def arguments_from_query(query):
    """The reverse (a leading '?' allowed; a value keeps every '=' after the first)."""
    from urllib.parse import unquote_plus
    arguments = []
    for part in query.lstrip("?").split("&"):
        if part:
            key, eq, value = part.partition("=")
            arguments.append("--" + unquote_plus(key))
            if eq:
                arguments.append(unquote_plus(value))
    return arguments


def live_arguments(arguments):
    """A picture's arguments without what only shapes the picture."""
    out, i = [], 0
    while i < len(arguments):
        if arguments[i] in PICTURE_ONLY:
            i += 2
            continue
        out.append(arguments[i])
        i += 1
    return out


def live_link(arguments):
    return LIVE_PAGE + "?" + query_from_arguments(live_arguments(arguments))


_LINKED = re.compile(r"\[(!\[[^\]]*\]\(images/([\w.\-]+\.png)\))\]\(" + re.escape(LIVE_PAGE) + r"\?[^)\s]*\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\(images/([\w.\-]+\.png)\)")


def linked_page(text):
    """A page's text with every viewer picture of PICTURES linked to its live view (and nothing else)."""
    links = {name: live_link(arguments) for name, arguments in PICTURES}
    # Unlinked first, so that a link is rewritten rather than nested (a picture not of PICTURES, such
    # as tools/web's own, keeps the link its page gives it).
    text = _LINKED.sub(lambda m: m.group(1) if m.group(2) in links else m.group(0), text)
    return _IMAGE.sub(lambda m: f"[{m.group(0)}]({links[m.group(1)]})" if m.group(1) in links else m.group(0), text)


def doc_pages():
    docs = os.path.join(ROOT, "docs")
    return sorted(os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))


def write_links():
    for page in doc_pages():
        with open(page, encoding="utf-8") as f:
            text = f.read()
        linked = linked_page(text)
        if linked != text:
            with open(page, "w", encoding="utf-8") as f:
                f.write(linked)
            print(f"linked the viewer pictures of {os.path.relpath(page, ROOT)} to the live view")
    return 0


def check_links():
    stale = []
    for page in doc_pages():
        with open(page, encoding="utf-8") as f:
            text = f.read()
        if linked_page(text) != text:
            stale.append(os.path.relpath(page, ROOT))
    if stale:
        print("pictures: viewer pictures without their live view's link, or with a stale one, in: " + ", ".join(stale) +
              "\n  link them with: tools/pictures.py --links", file=sys.stderr)
        return 1
    print("pictures: every viewer picture links to its live view")
    return 0


def step_of(arguments):
    return arguments[arguments.index("--step") + 1] if "--step" in arguments else None


def traced_steps(build):
    """The steps this checkout traces (model_predict --list: a line per program, the step first)."""
    predict = os.path.join(build, "bin", "model_predict")
    if not os.access(predict, os.X_OK):
        raise SystemExit(f"pictures: {predict} not built: cmake --build {build} --target model_predict")
    listed = subprocess.run([predict, "--list"], capture_output=True, text=True, check=True).stdout.splitlines()
    return {line.split()[0] for line in listed if line.strip()}


def sidecar(arguments, geometry_path):
    """What a viewer picture shows, without pixel positions or paths of this machine."""
    with open(geometry_path) as f:
        geometry = json.load(f)
    return {"viewer_arguments": arguments, "selection": geometry.get("selection", {}),
            "shown": shown_of(geometry.get("shown", {}))}


def shown_of(shown):
    """What the panels showed (a geometry file's "shown"), without pixel positions or paths of this
    machine (tools/web_check.py compares the browser's page by it too)."""
    shown = json.loads(json.dumps(shown))
    if "results" in shown:
        shown["results"]["path"] = os.path.basename(shown["results"]["path"])
    if "bars" in shown:
        shown["bars"] = [{"label": bar["label"], "gflops": bar["gflops"], "highlighted": bar.get("highlighted", False)}
                         for bar in shown["bars"]]
    if "timeline" in shown:  # what the timeline drew (row, kind, k-tile), not where
        timeline = shown["timeline"]
        timeline["bars"] = [[bar["row"], bar["kind"], bar["j"]] for bar in timeline.get("bars", [])]
        timeline["rows"] = [row["name"] for row in timeline.get("rows", [])]
        for key in ("t0", "t1"):
            timeline.pop(key, None)
        if "rounds" in timeline:
            timeline["rounds"] = {key: timeline["rounds"][key] for key in ("blocks", "rounds", "rounds_shown")}
    return shown


def viewer_prefix():
    if os.environ.get("DISPLAY"):
        return []
    xvfb = shutil.which("xvfb-run")
    if not xvfb:
        return None
    return [xvfb, "-a", "-s", "-screen 0 2600x2000x24"]


def draw_viewer_pictures(build, out_dir, names=None):
    viewer = os.path.join(build, "bin", "gemm_viewer")
    if not os.access(viewer, os.X_OK):
        print(f"pictures: {viewer} not built (see CMake's message about the viewer's packages)", file=sys.stderr)
        return SKIP
    prefix = viewer_prefix()
    if prefix is None:
        print("pictures: no display and no xvfb-run (Debian: apt-get install xvfb libgl1-mesa-dri)", file=sys.stderr)
        return SKIP
    traced = traced_steps(build)
    with tempfile.TemporaryDirectory() as scratch:
        for name, arguments in PICTURES:
            if names is not None and name not in names:
                continue
            step = step_of(arguments)
            if step and step not in traced:
                print(f"pictures: skipped {name}: step {step} is not traced in this checkout (steps/{step}/traced.hpp)")
                continue
            path = os.path.join(out_dir, name)
            geometry = os.path.join(scratch, name + ".geometry.json")
            docs = [] if "all" in arguments else ["--docs"]
            command = prefix + [viewer, "--screenshot", path, "--geometry", geometry,
                                "--results", os.path.join(ROOT, "docs", "results")] + docs + arguments
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"pictures: {' '.join(command)} exited {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
                return 1
            with open(os.path.join(out_dir, name[:-4] + ".json"), "w") as f:
                json.dump(sidecar(arguments, geometry), f, indent=1, sort_keys=True)
                f.write("\n")
            if out_dir == IMAGES:
                print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


def draw_diagrams(build, out_dir):
    tool = os.path.join(build, "bin", "draw_diagrams")
    if not os.access(tool, os.X_OK):
        print(f"pictures: {tool} not built: cmake --build {build} --target draw_diagrams", file=sys.stderr)
        return 1
    done = subprocess.run([tool, "--out", out_dir], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"pictures: {tool} exited {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
        return 1
    if out_dir == IMAGES:
        print(done.stdout, end="")
    # The plots of shipped results: the FP8 step's error against K.
    for name in plot_fp8_accuracy.write(out_dir):
        if out_dir == IMAGES:
            print(f"wrote {os.path.join(out_dir, name)}")
    return 0


def check(build, only):
    if only == "links":
        return check_links()
    stale = []
    with tempfile.TemporaryDirectory() as fresh:
        if only in (None, "diagrams"):
            if draw_diagrams(build, fresh) != 0:
                return 1
            for name in sorted(os.listdir(fresh)):
                committed = os.path.join(IMAGES, name)
                if not os.path.exists(committed) or not filecmp.cmp(committed, os.path.join(fresh, name), shallow=False):
                    stale.append(name)
        if only in (None, "viewer"):
            status = draw_viewer_pictures(build, fresh)
            if status == SKIP and only == "viewer":
                return SKIP
            if status not in (0, SKIP):
                return 1
            for name, _ in PICTURES:
                made = os.path.join(fresh, name[:-4] + ".json")
                if not os.path.exists(made):
                    continue  # skipped: its step is not traced here
                committed = os.path.join(IMAGES, name[:-4] + ".json")
                if not os.path.exists(os.path.join(IMAGES, name)) or not os.path.exists(committed):
                    stale.append(name)
                    continue
                with open(committed) as a, open(made) as b:
                    if json.load(a) != json.load(b):
                        stale.append(name)
    if stale:
        print("pictures: stale (the code or the results changed what they show): " + ", ".join(stale) +
              "\n  regenerate with: tools/pictures.py --build " + os.path.relpath(build, ROOT), file=sys.stderr)
        return 1
    print("pictures: every picture is current")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--check", action="store_true", help="compare with the committed pictures instead of writing")
    parser.add_argument("--only", choices=["diagrams", "viewer", "links"],
                        help="only the diagrams, the viewer's pictures, or (with --check) their links to the live view")
    parser.add_argument("--links", action="store_true", help="link the viewer pictures in docs/*.md to the live view")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    if args.links:
        return write_links()
    if args.check:
        return check(build, args.only)
    os.makedirs(IMAGES, exist_ok=True)
    if args.only in (None, "diagrams") and draw_diagrams(build, IMAGES) != 0:
        return 1
    if args.only in (None, "viewer"):
        return draw_viewer_pictures(build, IMAGES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
