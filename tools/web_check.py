#!/usr/bin/env python3
"""The viewer in a browser against the native viewer (tools/web --check runs this).

Opens the page tools/web built (build-web/index.html) in headless Chromium (software WebGL) through
the DevTools protocol, and for each selection below compares what the page drew with what the
native viewer draws for the same selection (gemm_viewer --screenshot, under Xvfb without a display):

  - the selection and what the panels showed (the geometry file's "selection" and "shown": the
    thread map's size and owners' digest, the instruction's counts, the launch's totals, the results
    file and its bars), from gemm_web_report(), which returns the geometry file's content;
  - the pixels: every cell of the thread map, the warp-access grid and (step 15) the shared-memory
    stage has the colour the native viewer drew for that element (the native screenshot tests
    check those against the steps' traces), and every bar of the performance panel its run's colour;
  - the link: the page shows the selection in its URL, and that URL, opened again, and run natively,
    gives the same selection; a click on the thread map selects another warp and the URL follows;
  - a malformed results file opened in the page, and a bad link, get the native viewer's messages.

Prints the page's frame time at the default shape (the median of the page's own per-frame work,
as the native --frames measures it, and the frames per second the browser ran the page at).
No figure is asserted: the frame time is reported, not checked.

    tools/web_check.py --page build-web --build build [--screenshot FILE] [--chromium PATH]

Exit: 0 all agree, 1 a difference (each printed), 77 what it needs is missing (Chromium, the native
viewer, a display or xvfb-run).
"""
import argparse
import base64
import http.client
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pictures  # noqa: E402  (the docs' picture arguments, and the link rule of viewer/link.hpp)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77
WIDTH, HEIGHT = 1600, 900  # the native viewer's default window, and the page's here


def picture(name):
    return dict(pictures.PICTURES)[name]


# (name, the viewer's arguments). Steps 01, 05, 09, 14, 18 and 22, each with its thread map, one
# warp's access and the performance panel in view (the fp32, 16-bit and FP8 runs); the first three
# are docs pictures' links. Shapes small enough for a thread-map cell of 2 pixels or more.
CASES = [
    ("01 (docs: viewer-01-thread-map)", pictures.live_arguments(picture("viewer-01-thread-map.png"))),
    ("05 (docs: viewer-05-access)", pictures.live_arguments(picture("viewer-05-access.png"))),
    ("09 (docs: viewer-all)", pictures.live_arguments(picture("viewer-all.png"))),
    ("14, 16-bit runs", ["--step", "14_mma_ldmatrix", "--shape", "128x128x64", "--layout", "tn", "--warp", "1",
                         "--iteration", "0", "--instruction", "3", "--perf", "tensor"]),
    ("18, coloured by warp", ["--step", "18_tma_store_epilogue", "--shape", "128x128x64", "--warp", "4", "--iteration",
                              "0", "--instruction", "1", "--perf", "tensor", "--colour", "warp"]),
    ("22, FP8 runs", ["--step", "22_tile_width", "--layout", "nt", "--shape", "128x176x128", "--beta", "0.5",
                      "--warp", "5", "--iteration", "0", "--instruction", "2", "--perf", "fp8"]),
    ("15's shared memory (docs: viewer-15-shared-tma)", pictures.live_arguments(picture("viewer-15-shared-tma.png"))),
    ("16's timeline (docs: viewer-16-timeline)", pictures.live_arguments(picture("viewer-16-timeline.png"))),
]
# The grids each case must draw with cells of 2 pixels or more; any other grid both drew is compared
# where its cells are that large (at 128 x 256 in four columns the thread map's are one pixel).
REQUIRED_GRIDS = {"15's shared memory (docs: viewer-15-shared-tma)": ("shared", "shared_source"),
                  "16's timeline (docs: viewer-16-timeline)": ()}
DEFAULT_GRIDS = ("thread_map", "operand")


class Failures:
    def __init__(self):
        self.lines = []

    def __call__(self, case, text):
        self.lines.append(f"{case}: {text}")
        print(f"  FAIL {text}")


# ---- PNG (8-bit RGB or RGBA, not interlaced: what Chromium and stb write) ------------------------
class Image:
    def __init__(self, data):
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("not a PNG")
        pos, idat, header = 8, [], None
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b"IHDR":
                header = struct.unpack(">IIBBBBB", body)
            elif kind == b"IDAT":
                idat.append(body)
            pos += 12 + length
        self.width, self.height, depth, colour, _, _, interlace = header
        if depth != 8 or colour not in (2, 6) or interlace:
            raise ValueError(f"PNG of depth {depth}, colour type {colour}, interlace {interlace}: not read here")
        self.channels = 3 if colour == 2 else 4
        raw = zlib.decompress(b"".join(idat))
        stride = self.width * self.channels
        rows, previous, pos = [], bytearray(stride), 0
        for _ in range(self.height):
            kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
            pos += 1 + stride
            c = self.channels
            for i in range(stride):
                left = line[i - c] if i >= c else 0
                up = previous[i]
                upper_left = previous[i - c] if i >= c else 0
                if kind == 1:
                    line[i] = (line[i] + left) & 255
                elif kind == 2:
                    line[i] = (line[i] + up) & 255
                elif kind == 3:
                    line[i] = (line[i] + (left + up) // 2) & 255
                elif kind == 4:
                    p = left + up - upper_left
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                    line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else upper_left)) & 255
            rows.append(bytes(line))
            previous = line
        self.rows = rows

    def at(self, x, y):
        i = x * self.channels
        return tuple(self.rows[y][i:i + 3])


def rgb(rgba):  # the viewer's packed colour (R in the low byte)
    return (rgba & 255, (rgba >> 8) & 255, (rgba >> 16) & 255)


# ---- The DevTools protocol over a WebSocket (RFC 6455, client side), standard library only -------
class DevTools:
    def __init__(self, url):
        rest = url[len("ws://"):]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("DevTools closed the connection during the handshake")
            response += chunk
        if b" 101 " not in response.split(b"\r\n", 1)[0]:
            raise ConnectionError("DevTools refused the WebSocket: " + response.split(b"\r\n", 1)[0].decode())
        self.buffer = response.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0
        self.events = []

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _message(self):
        payload = b""
        while True:
            first, second = self._read(2)
            length = second & 127
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if second & 128 else None
            data = self._read(length)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            opcode = first & 15
            if opcode == 8:
                raise ConnectionError("DevTools closed the WebSocket")
            if opcode in (0, 1, 2):
                payload += data
                if first & 128:
                    return json.loads(payload)

    def call(self, method, **params):
        self.next_id += 1
        body = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        header = bytes([0x81])
        if len(body) < 126:
            header += bytes([0x80 | len(body)])
        elif len(body) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(body))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(body))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(body)))
        while True:
            message = self._message()
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"the page threw: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")


CHROMIUM_START_S = 180  # the longest wait for headless Chromium to listen on its DevTools port

# Frames the page has drawn (-1 while its WebAssembly is still loading).
FRAMES = "(() => { try { return Module._gemm_web_frames(); } catch (e) { return -1; } })()"


class Browser:
    """Headless Chromium with software WebGL (SwiftShader), no network but this machine's."""

    def __init__(self, chromium, profile):
        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
             "--enable-unsafe-swiftshader", "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile,
             f"--window-size={WIDTH},{HEIGHT}", "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # A first start with a fresh profile on a shared, busy machine (CI's two cores, right after the
        # browser build) has taken more than 30 s: this is a wait for readiness, not a timing, so it
        # is generous.
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + CHROMIUM_START_S
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if self.process.poll() is not None:
                raise RuntimeError(f"Chromium exited with {self.process.returncode} before it listened")
            if time.time() > deadline:
                self.process.kill()
                raise RuntimeError(f"Chromium did not open its DevTools port in {CHROMIUM_START_S} s")
            time.sleep(0.1)
        port = int(open(port_file).read().split("\n")[0])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/json/list")
        page = next(t for t in json.loads(connection.getresponse().read()) if t["type"] == "page")
        self.tools = DevTools(page["webSocketDebuggerUrl"])
        self.tools.call("Page.enable")
        self.tools.call("Runtime.enable")
        self.tools.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1,
                        mobile=False)

    def open(self, url, frames=40, timeout=120):
        """Loads the page and waits until it has drawn `frames` frames."""
        self.tools.call("Page.navigate", url=url)
        time.sleep(0.3)
        return self.wait_frames(frames, timeout)

    def wait_frames(self, frames, timeout=120):
        deadline = time.time() + timeout
        seen = 0
        while time.time() < deadline:
            seen = self.tools.evaluate(FRAMES)
            if seen is not None and seen >= frames:
                return True
            time.sleep(0.2)
        raise RuntimeError(f"the page drew {seen} frames in {timeout} s (its console may say why)")

    def report(self):
        return json.loads(self.tools.evaluate("Module.ccall('gemm_web_report', 'string', [], [])"))

    def screenshot(self):
        return base64.b64decode(self.tools.call("Page.captureScreenshot", format="png")["data"])

    def close(self):
        try:
            self.tools.call("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def serve(folder):
    """The page's folder over http on this machine (browsers load WebAssembly from http, not file:)."""
    handler = partial(QuietHandler, directory=folder)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm"}

    def log_message(self, *args):
        pass


# ---- The native viewer ---------------------------------------------------------------------------
def display_prefix():
    if os.environ.get("DISPLAY"):
        return []
    xvfb = shutil.which("xvfb-run")
    return [xvfb, "-a", "-s", "-screen 0 1920x1080x24"] if xvfb else None


def native(viewer, arguments, scratch, name, cwd=None, results=None):
    """gemm_viewer --screenshot for these arguments: (geometry, image, output)."""
    png = os.path.join(scratch, name + ".png")
    results = results or [os.path.join(ROOT, "docs", "results")]
    command = display_prefix() + [viewer, "--screenshot", png, "--size", f"{WIDTH}x{HEIGHT}"]
    for path in results:
        command += ["--results", path]
    # The whole window, as the page draws it (--panel crops a screenshot), but where --panel opens a
    # panel (the shared memory, the timeline): then its crop, and only the grids inside it compared.
    opens = "--panel" in arguments and arguments[arguments.index("--panel") + 1:][:1] in (["shared"], ["timeline"])
    whole = [] if opens else ["--panel", "all"]
    done = subprocess.run(command + arguments + whole, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        raise RuntimeError(f"native viewer exited {done.returncode}: {done.stdout}{done.stderr}".strip())
    with open(png + ".json") as f:
        geometry = json.load(f)
    with open(png, "rb") as f:
        return geometry, Image(f.read()), done.stdout


def normalised_shown(shown):
    """What the panels showed, without positions on screen or this machine's paths (as the docs'
    pictures' sidecars hold it), and each bar's colour."""
    normal = pictures.shown_of(shown)
    if "bars" in shown:
        normal["bar_colours"] = [[bar["label"], bar["colour"]] for bar in shown["bars"]]
    return normal


def grid(geometry, name):
    return next((g for g in geometry.get("grids", []) if g["name"] == name), None)


def cell_colour(image, g, row, col):
    x = int(g["x"] + (col - g["col0"] + 0.5) * g["cell"])
    y = int(g["y"] + (row - g["row0"] + 0.5) * g["cell"])
    return image.at(x, y)


def compare_grids(case, fail, web, web_image, nat, nat_image):
    """Every cell the page drew against the native viewer's colour for the same element."""
    counts = {}
    required = REQUIRED_GRIDS.get(case, DEFAULT_GRIDS)
    names = sorted({g["name"] for g in web.get("grids", []) + nat.get("grids", [])} | set(required))
    for name in names:
        w, n = grid(web, name), grid(nat, name)
        if w is None or n is None:
            fail(case, f"grid {name}: drawn by the page {w is not None}, natively {n is not None}")
            continue
        inside = n["x"] >= 0 and n["y"] >= 0 and n["x"] + n["cols"] * n["cell"] <= nat_image.width and \
            n["y"] + n["rows"] * n["cell"] <= nat_image.height
        if w["cell"] < 2 or n["cell"] < 2 or not inside:
            if name in required:
                fail(case, f"grid {name}: cells too small to compare ({w['cell']:.1f} and {n['cell']:.1f} px)")
            continue
        compared = differ = 0
        first = None
        for row in range(w["row0"], w["row0"] + w["rows"]):
            if not n["row0"] <= row < n["row0"] + n["rows"]:
                continue
            for col in range(w["col0"], w["col0"] + w["cols"]):
                if not n["col0"] <= col < n["col0"] + n["cols"]:
                    continue
                compared += 1
                a, b = cell_colour(web_image, w, row, col), cell_colour(nat_image, n, row, col)
                if a != b:
                    differ += 1
                    first = first or (row, col, a, b)
        if compared == 0:
            fail(case, f"grid {name}: no cell in common with the native viewer's")
        elif differ:
            row, col, a, b = first
            fail(case, f"grid {name}: {differ} of {compared} cells differ, first ({row}, {col}): page {a}, native {b}")
        counts[name] = compared
    return counts


def compare_bars(case, fail, web, web_image):
    """Each bar's centre pixel is its run's colour. A bar the performance panel scrolls out of view
    (its centre outside the panel's rectangle, or the page's) or draws thinner than 3 pixels is not
    compared; where the panel is wide enough for one bar, at least one must be."""
    bars = web.get("shown", {}).get("bars", [])
    panel = web.get("panels", {}).get("performance")
    checked = 0
    for bar in bars:
        if bar["y1"] - bar["y0"] < 3 or bar["x1"] - bar["x0"] < 3:
            continue  # too thin to have a centre pixel of its own (a narrow panel's 56 bars)
        x, y = int((bar["x0"] + bar["x1"]) / 2), int((bar["y0"] + bar["y1"]) / 2)
        if panel and not (panel[0] <= x < panel[0] + panel[2] and panel[1] <= y < panel[1] + panel[3]):
            continue
        if not (0 <= x < web_image.width and 0 <= y < web_image.height):
            continue
        if web_image.at(x, y) != rgb(bar["colour"]):
            fail(case, f"bar {bar['label']}: drawn {web_image.at(x, y)}, its colour is {rgb(bar['colour'])}")
        checked += 1
    if not checked and any(bar["x1"] - bar["x0"] >= 3 and bar["y1"] - bar["y0"] >= 3 for bar in bars):
        fail(case, f"none of the {len(bars)} bars lies in view on the page")
    return checked


def check_case(browser, base, viewer, scratch, case, arguments, fail):
    query = pictures.query_from_arguments(arguments)
    print(f"{case}: ?{query}")
    browser.open(f"{base}?{query}")
    web = browser.report()
    web_image = Image(browser.screenshot())
    nat, nat_image, _ = native(viewer, arguments, scratch, "case")
    if web.get("link_error"):
        fail(case, f"the page refused its link: {web['link_error']}")
    if web["selection"] != nat["selection"]:
        fail(case, f"selection: page {web['selection']}, native {nat['selection']}")
    a, b = normalised_shown(web["shown"]), normalised_shown(nat["shown"])
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            fail(case, f"shown[{key}]: page {json.dumps(a.get(key))[:300]}, native {json.dumps(b.get(key))[:300]}")
    cells = compare_grids(case, fail, web, web_image, nat, nat_image)
    bars = compare_bars(case, fail, web, web_image)
    # The link: the URL shows the selection; opened again, and natively, it is the same selection.
    search = browser.tools.evaluate("location.search")
    if search != "?" + web["query"]:
        fail(case, f"the URL shows {search}, the selection is ?{web['query']}")
    browser.open(f"{base}?{web['query']}", frames=5)
    again = browser.report()
    if again["selection"] != web["selection"] or again["query"] != web["query"]:
        fail(case, f"its own link opened again: {again['selection']} (?{again['query']})")
    drawn = ", ".join(f"{count} {name} cells" for name, count in cells.items()) or "no grid"
    print(f"  the selection, what {len(a)} parts of the panels showed, {drawn}, {bars} bars: as natively; "
          "the link reopens it")
    return web


def check_click(browser, base, viewer, scratch, fail):
    """A click on the thread map selects the warp there; the URL follows, and natively it is that warp."""
    case = "click"
    arguments = pictures.live_arguments(picture("viewer-all.png"))
    browser.open(f"{base}?{pictures.query_from_arguments(arguments)}")
    before = browser.report()
    g = grid(before, "thread_map")
    # The last element of the map: another warp than the first (step 09 at 128 x 128 has 8 per block).
    row, col = g["row0"] + g["rows"] - 1, g["col0"] + g["cols"] - 1
    x, y = g["x"] + (col - g["col0"] + 0.5) * g["cell"], g["y"] + (row - g["row0"] + 0.5) * g["cell"]
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        browser.tools.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
        browser.wait_frames(browser.tools.evaluate(FRAMES) + 3)
    after = browser.report()
    print(f"{case}: element ({row}, {col}) of the thread map -> ?{after['query']}")
    if after["selection"] == before["selection"]:
        fail(case, "the click changed nothing")
    search = browser.tools.evaluate("location.search")
    if search != "?" + after["query"]:
        fail(case, f"the URL shows {search}, the selection is ?{after['query']}")
    nat, _, _ = native(viewer, pictures.arguments_from_query(after["query"]), scratch, "click")
    if after["selection"] != nat["selection"]:
        fail(case, f"selection: page {after['selection']}, native from its URL {nat['selection']}")
    else:
        print(f"  warp {before['selection']['warp']} -> {after['selection']['warp']}, block "
              f"{after['selection']['block']}: the URL follows, and natively it is the same selection")


def check_link_options(browser, base, viewer, scratch, fail):
    """What the link carries besides the panels' own selection: the GPU a step plans its tile for
    (--sms: on 16 SMs step 14 takes another tile at 1024^3 than on the shipped results' GPU) and a
    beta that is not 0.5; the link the page shows keeps both."""
    case = "link options"
    arguments = ["--step", "14_mma_ldmatrix", "--shape", "1024x1024x64", "--sms", "16", "--beta", "0.3"]
    browser.open(f"{base}?{pictures.query_from_arguments(arguments)}", frames=5)
    web = browser.report()
    nat, _, _ = native(viewer, arguments, scratch, "options")
    browser.open(f"{base}?{web['query']}", frames=5)
    again = browser.report()
    if web["selection"] != nat["selection"] or again["selection"] != nat["selection"]:
        fail(case, f"selection: page {web['selection']}, its link reopened {again['selection']}, native {nat['selection']}")
    else:
        print(f"{case}: ?{web['query']}: the tile for 16 SMs ({web['selection']['params']}) and beta "
              f"{web['selection']['beta']}, as natively, and again from the link the page shows")


def check_messages(browser, base, viewer, scratch, fail):
    """A malformed results file opened in the page, and a bad link, say what the native viewer says."""
    case = "messages"
    browser.open(base)
    broken = '{"device": {"name": "broken"'
    browser.tools.evaluate(f"openResultsFile(new File([{json.dumps(broken)}], 'broken.json'))")
    time.sleep(0.5)
    browser.wait_frames(browser.tools.evaluate(FRAMES) + 3)
    web = browser.report()
    folder = os.path.join(scratch, "opened")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "broken.json"), "w") as f:
        f.write(broken)
    nat, _, _ = native(viewer, [], scratch, "broken", cwd=folder, results=["broken.json"])
    said, expected = web["shown"].get("results", {}).get("error"), nat["shown"]["results"]["error"]
    if said != expected or web["message"] != expected:
        fail(case, f"a malformed file: the page said {said!r} (message {web['message']!r}), natively {expected!r}")
    else:
        print(f"{case}: a malformed file opened in the page: {said!r}, as natively")
    for link, arguments in (("step=99_nothing", ["--step", "99_nothing"]), ("shape=0x4x4", ["--shape", "0x4x4"]),
                            ("step=09_warptiling&warp=99", ["--step", "09_warptiling", "--warp", "99"])):
        browser.open(f"{base}?{link}", frames=3)
        web = browser.report()
        done = subprocess.run([viewer] + arguments, capture_output=True, text=True)
        expected = done.stderr.strip().removeprefix("gemm_viewer: ").removesuffix(" (see --help)")
        if done.returncode != 2 or web["link_error"] != expected:
            fail(case, f"link ?{link}: the page said {web['link_error']!r}, natively (exit {done.returncode}) {expected!r}")
        elif browser.tools.evaluate("location.search") != "?" + link:
            fail(case, f"link ?{link}: the URL was rewritten before the reader changed anything")
        else:
            print(f"{case}: link ?{link}: {expected!r}, as natively; the page shows the defaults")


def frame_time(browser, base):
    browser.open(base, frames=150)
    report = browser.report()
    fps = browser.tools.evaluate(
        "new Promise((done) => { const t = []; const tick = (now) => { t.push(now); "
        "if (t.length < 121) requestAnimationFrame(tick); else done(120000 / (t[120] - t[0])); }; "
        "requestAnimationFrame(tick); })")
    print(f"frame time at the default selection ({report['selection']['step']}, "
          f"{'x'.join(map(str, report['selection']['shape']))}, a {WIDTH} x {HEIGHT} canvas): "
          f"{report['frame_ms_median']:.2f} ms (median of the last {report['frame_ms_count']} frames' work); "
          f"the browser ran the page at {fps:.1f} frames per second")
    return report


# The page as Chromium shows it, on docs/viewer.md ("In a browser"): tools/web --check --screenshot
# docs/images/viewer-web.png makes it and its sidecar; every check compares the sidecar (the link,
# the selection and what the panels showed, not pixels) with the page's now.
DOCS_PICTURE = os.path.join(ROOT, "docs", "images", "viewer-web.png")
DOCS_PICTURE_ARGUMENTS = CASES[2][1]


def docs_picture(browser, base, screenshot, fail):
    query = pictures.query_from_arguments(DOCS_PICTURE_ARGUMENTS)
    browser.open(f"{base}?{query}")
    report = browser.report()
    shown = pictures.shown_of(report["shown"])
    sidecar = {"link": "?" + query, "selection": report["selection"], "shown": shown}
    committed = DOCS_PICTURE[:-4] + ".json"
    # The page that shows the picture links it to the selection it shows.
    with open(os.path.join(ROOT, "docs", "viewer.md"), encoding="utf-8") as f:
        page = f.read()
    wanted = f"(images/{os.path.basename(DOCS_PICTURE)})]({pictures.LIVE_PAGE}?{query})"
    if os.path.basename(DOCS_PICTURE) in page and wanted not in page:
        fail("docs picture", f"docs/viewer.md links {os.path.basename(DOCS_PICTURE)} elsewhere than {pictures.LIVE_PAGE}?{query}")
    if screenshot:
        with open(screenshot, "wb") as f:
            f.write(browser.screenshot())
        with open(screenshot[:-4] + ".json", "w") as f:
            json.dump(sidecar, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {screenshot} (the page as Chromium shows it) and its sidecar")
    elif os.path.exists(committed):
        with open(committed) as f:
            if json.load(f) != json.loads(json.dumps(sidecar)):
                fail("docs picture", f"{os.path.relpath(DOCS_PICTURE, ROOT)} is stale (the page shows something else now):"
                     f" tools/web --check --screenshot {os.path.relpath(DOCS_PICTURE, ROOT)}")
                return
        print(f"docs picture: {os.path.relpath(DOCS_PICTURE, ROOT)} shows what the page shows now")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", default=os.path.join(ROOT, "build-web"), help="the folder tools/web built")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the native build (bin/gemm_viewer)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    parser.add_argument("--screenshot", help="also write the page, as Chromium shows it, to this PNG")
    args = parser.parse_args()
    viewer = os.path.join(os.path.abspath(args.build), "bin", "gemm_viewer")
    page = os.path.abspath(args.page)
    missing = [what for what, ok in (
        ("Chromium (Debian: apt-get install chromium)", args.chromium),
        (f"the native viewer {viewer} (cmake --build {args.build} --target gemm_viewer)", os.access(viewer, os.X_OK)),
        ("a display or xvfb-run (Debian: apt-get install xvfb)", display_prefix() is not None),
        (f"the page {page}/index.html (tools/web builds it)", os.path.exists(os.path.join(page, "gemm_viewer.wasm"))))
        if not ok]
    if missing:
        print("web_check: skipped: missing " + "; ".join(missing), file=sys.stderr)
        return SKIP
    fail = Failures()
    server = serve(page)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    with tempfile.TemporaryDirectory() as scratch:
        profile = os.path.join(scratch, "profile")
        os.makedirs(profile)
        browser = Browser(args.chromium, profile)
        try:
            for case, arguments in CASES:
                check_case(browser, base, viewer, scratch, case, arguments, fail)
            check_click(browser, base, viewer, scratch, fail)
            check_link_options(browser, base, viewer, scratch, fail)
            check_messages(browser, base, viewer, scratch, fail)
            frame_time(browser, base)
            docs_picture(browser, base, args.screenshot, fail)
        finally:
            browser.close()
            server.shutdown()
    if fail.lines:
        print(f"web_check: {len(fail.lines)} differences between the page and the native viewer", file=sys.stderr)
        return 1
    print(f"web_check: the page agrees with the native viewer ({len(CASES)} selections, a click, the messages, "
          "the docs picture)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
