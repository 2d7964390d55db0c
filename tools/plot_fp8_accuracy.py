#!/usr/bin/env python3
"""Draws the FP8 step's error against K, from the accuracy file that tools/fp8_accuracy.py writes
(docs/results/fp8-accuracy-<gpu>.json): the relative error (Frobenius) against K on log-log axes,
one line per PROMOTE value, cuBLASLt's error on the same inputs (fast accumulation off and on) as
dotted lines, and the step's tolerance for f32 output as a dashed line (read from the
harness, common/harness/run_tc_step.cu, as the accuracy table's caption is). Plain SVG text, Python's
standard library only, the same bytes on every machine. tools/pictures.py runs it with the diagrams
(docs/images/fp8-accuracy.svg; docs.diagrams_current checks it is current).

    tools/plot_fp8_accuracy.py [--results docs/results] [--out docs/images]
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render_docs  # noqa: E402
import results_lib  # noqa: E402

ROOT = render_docs.ROOT
RESULTS = os.path.join(ROOT, "docs", "results")
IMAGES = os.path.join(ROOT, "docs", "images")
PICTURE = "fp8-accuracy.svg"

# A colour and a marker per PROMOTE value (others take the spare ones in turn); the palette of
# tools/draw_diagrams.cpp.
STYLES = {1: ("#1f5fbf", "circle"), 4: ("#c85a00", "square"), 0: ("#c0392b", "triangle")}
SPARE = [("#2e8b57", "diamond"), ("#7b3fa0", "circle"), ("#555555", "square")]
INK, GRID, TOLERANCE = "#1a1a1a", "#e3e3e3", "#555555"
YARDSTICK_COLOURS = ["#000000", "#8c8c8c"]  # cuBLASLt with fast accumulation off, on


def num(value):
    return f"{value:.1f}"


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text(x, y, content, size=14, anchor="start", bold=False, fill=INK, extra=""):
    attributes = f' font-size="{size}"'
    if anchor != "start":
        attributes += f' text-anchor="{anchor}"'
    if bold:
        attributes += ' font-weight="bold"'
    if fill != INK:
        attributes += f' fill="{fill}"'
    return f'<text x="{num(x)}" y="{num(y)}"{attributes}{extra}>{escape(content)}</text>'


def line(x1, y1, x2, y2, stroke, width=1.0, extra=""):
    return (f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke="{stroke}" '
            f'stroke-width="{width}"{extra}/>')


def marker(shape, x, y, colour, hollow):
    fill = "#ffffff" if hollow else colour
    style = f'fill="{fill}" stroke="{colour}" stroke-width="2"'
    if shape == "circle":
        return f'<circle cx="{num(x)}" cy="{num(y)}" r="5.5" {style}/>'
    if shape == "square":
        return f'<rect x="{num(x - 5)}" y="{num(y - 5)}" width="10" height="10" {style}/>'
    if shape == "diamond":
        points = [(x, y - 7), (x + 7, y), (x, y + 7), (x - 7, y)]
    else:  # triangle
        points = [(x, y - 7), (x + 6.5, y + 5), (x - 6.5, y + 5)]
    return f'<polygon points="{" ".join(f"{num(a)},{num(b)}" for a, b in points)}" {style}/>'


def style_of(promote, index):
    return STYLES.get(promote, SPARE[index % len(SPARE)])


def tick_values(low, high):
    """1, 2 and 5 times the powers of ten between 10^low and 10^high."""
    values = []
    for decade in range(math.floor(low), math.ceil(high) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10.0 ** decade
            if low <= math.log10(value) <= high:
                values.append((value, f"{mantissa}e{decade}"))
    return values


def svg(document, name, tolerance):
    """The picture of one accuracy file, as SVG text."""
    series = document["series"]
    points = [p for one in series for p in one["points"]]
    ks = sorted({p["k"] for p in points})
    yardsticks = document.get("yardsticks", [])
    errors = [p["relative_frobenius"] for p in points] + [tolerance[0]]
    errors += [p["relative_frobenius"] for one in yardsticks for p in one["points"]]
    x0, y0, width, height = 110.0, 160.0, 620.0, 420.0
    depth = "/".join(sorted({str(one["params"]["BK"]) for one in series}))  # k's per k-tile
    k_low, k_high = math.log2(ks[0]) - 0.35, math.log2(ks[-1]) + 0.35
    e_low, e_high = math.log10(min(errors)) - 0.15, math.log10(max(errors)) + 0.15

    def at_x(k):
        return x0 + (math.log2(k) - k_low) / (k_high - k_low) * width

    def at_y(error):
        return y0 + height - (math.log10(error) - e_low) / (e_high - e_low) * height

    device = document["device"]
    references = ", ".join(sorted({p["reference"] for p in points}))
    body = [
        text(30, 34, "Step 19: the FP8 product's error against K, with and without promotion", 20, bold=True),
        text(30, 62, f"M = N = {document['m']}, A and B {document['dtype']}, {document['out']} output: the error is the "
             f"accumulation's, measured against {references}."),
        text(30, 82, f"Promotion: the tensor cores sum PROMOTE k-tiles ({depth} k's each), then the threads add that sum "
             "into f32 registers; 0: the tensor cores sum all of K."),
        text(30, 102, f"{device['name']}, run {document['date'][:10]}, commit "
             f"{render_docs.short_commit(document['commit'])}; from docs/results/{name}"),
        text(30, 122, "(tools/fp8_accuracy.py), drawn by tools/plot_fp8_accuracy.py."),
        f'<rect x="{num(x0)}" y="{num(y0)}" width="{num(width)}" height="{num(height)}" fill="#ffffff" '
        f'stroke="{INK}" stroke-width="1"/>',
    ]
    for value, label in tick_values(e_low, e_high):
        y = at_y(value)
        body.append(line(x0, y, x0 + width, y, GRID))
        body.append(text(x0 - 10, y + 5, label, 13, "end"))
    for k in ks:
        x = at_x(k)
        body.append(line(x, y0, x, y0 + height, GRID))
        body.append(text(x, y0 + height + 22, f"{k:,}", 13, "middle"))
    body.append(text(x0 + width / 2, y0 + height + 50, "K (the length of every dot product), log scale", 14, "middle"))
    centre = y0 + height / 2
    body.append(text(34, centre, "relative error ‖C − R‖_F / ‖R‖_F, log scale", 14, "middle",
                     extra=f' transform="rotate(-90 34 {num(centre)})"'))
    # The tolerance, then the series, the last drawn on top.
    y = at_y(tolerance[0])
    body.append(line(x0, y, x0 + width, y, TOLERANCE, 2, ' stroke-dasharray="9 6"'))
    body.append(text(x0 + 8, y - 8, f"tolerance for f32 output: {tolerance[2]}", 13, fill=TOLERANCE))
    for index, one in enumerate(series):
        colour, shape = style_of(one["promote"], index)
        ordered = sorted(one["points"], key=lambda p: p["k"])
        path = " ".join(f"{num(at_x(p['k']))},{num(at_y(p['relative_frobenius']))}" for p in ordered)
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.5"/>')
        for p in ordered:
            body.append(marker(shape, at_x(p["k"]), at_y(p["relative_frobenius"]), colour, p["verdict"] != "PASS"))
    # cuBLASLt on the same inputs: thin dashed lines under the same colours' meaning (off: as
    # promotion every k-tile would, on: as none).
    for index, one in enumerate(yardsticks):
        colour = YARDSTICK_COLOURS[index % len(YARDSTICK_COLOURS)]
        ordered = sorted(one["points"], key=lambda p: p["k"])
        path = " ".join(f"{num(at_x(p['k']))},{num(at_y(p['relative_frobenius']))}" for p in ordered)
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" '
                    f'stroke-dasharray="3 4"/>')
        for p in ordered:
            body.append(f'<circle cx="{num(at_x(p["k"]))}" cy="{num(at_y(p["relative_frobenius"]))}" r="3" '
                        f'fill="{colour}"/>')
    # The legend, right of the plot.
    lx, ly = x0 + width + 40, y0 + 10
    body.append(text(lx, ly, "the tensor cores' sum is added in f32", 14, bold=True))
    for index, one in enumerate(series):
        colour, shape = style_of(one["promote"], index)
        y = ly + 30 + 28 * index
        body.append(line(lx, y, lx + 40, y, colour, 2.5))
        body.append(marker(shape, lx + 20, y, colour, False))
        body.append(text(lx + 52, y + 5, f"{render_docs.promote_text(one['promote'])} (PROMOTE={one['promote']})"))
    for index, one in enumerate(yardsticks):
        colour = YARDSTICK_COLOURS[index % len(YARDSTICK_COLOURS)]
        y = ly + 30 + 28 * (len(series) + index)
        body.append(line(lx, y, lx + 40, y, colour, 2, ' stroke-dasharray="3 4"'))
        body.append(f'<circle cx="{num(lx + 20)}" cy="{num(y)}" r="3" fill="{colour}"/>')
        body.append(text(lx + 52, y + 5, one["label"]))
    y = ly + 30 + 28 * (len(series) + len(yardsticks))
    body.append(line(lx, y, lx + 40, y, TOLERANCE, 2, ' stroke-dasharray="9 6"'))
    body.append(text(lx + 52, y + 5, f"tolerance: rel. error ≤ {tolerance[2]}"))
    body.append(text(lx + 52, y + 23, f"({render_docs.FP8_TOLERANCE_NAME},", 13))
    body.append(text(lx + 52, y + 40, f"{os.path.relpath(render_docs.FP8_TOLERANCE_SOURCE, ROOT)})", 13))
    if any(p["verdict"] != "PASS" for p in points):
        y += 72
        body.append(marker("circle", lx + 20, y, INK, True))
        body.append(text(lx + 52, y + 5, "an open marker: outside the"))
        body.append(text(lx + 52, y + 23, "tolerance (FAIL)"))
    total_width, total_height = lx + 330, y0 + height + 80
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(total_width)}" height="{num(total_height)}" '
            f'viewBox="0 0 {num(total_width)} {num(total_height)}" font-family="DejaVu Sans, Arial, sans-serif">\n'
            f'<rect width="100%" height="100%" fill="#ffffff"/>\n' + "\n".join(body) + "\n</svg>\n")


def pictures(results_dir=RESULTS, tolerance=None):
    """{picture name: SVG text}: fp8-accuracy.svg from the one accuracy file, or with several files one
    picture each, named after the file's GPU."""
    files = render_docs.fp8_accuracy_files(results_dir)
    tolerance = tolerance or render_docs.fp8_tolerance()
    drawn = {}
    for path in files:
        name = os.path.basename(path)
        document = results_lib.load(path)
        render_docs.check_fp8_verdicts(document, name, tolerance)
        picture = PICTURE if len(files) == 1 else name[:-len(".json")] + ".svg"
        drawn[picture] = svg(document, name, tolerance)
    return drawn


def write(out_dir, results_dir=RESULTS):
    """Writes the pictures into out_dir; returns their names."""
    drawn = pictures(results_dir)
    for picture, content in drawn.items():
        with open(os.path.join(out_dir, picture), "w", encoding="utf-8") as handle:
            handle.write(content)
    return sorted(drawn)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=RESULTS)
    parser.add_argument("--out", default=IMAGES)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    written = write(args.out, args.results)
    if not written:
        print(f"plot_fp8_accuracy: no fp8-accuracy-*.json in {args.results}", file=sys.stderr)
        return 1
    for picture in written:
        print(f"wrote {os.path.relpath(os.path.join(args.out, picture), ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
