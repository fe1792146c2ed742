"""`cargo xtask report`: `robolog report` pages checked in a real browser
and against the decoded values.

The manifest: ``out_dir`` (where the pages go) and ``entries``: ``{"id",
"name", "logs": [paths...], "values": bool, "extremes": bool}``;
``--robolog``: the executable. For each entry the page is written with
`robolog report` (the next page is written while the browser checks this
one), opened from disk in headless Chromium (Playwright driving the
system's Chromium: $CHROMIUM or /usr/bin/chromium), and checked:

- no console error and no uncaught exception, and nothing in the page's
  #errors line once it has loaded (its module script runs before the load
  event); the page has no test hooks: what it drew is read from the
  aria-label of each canvas (points drawn, the value axis, values beyond
  it) and from its elements;
- one section and one timeline per log, one channel section per channel that
  has numeric fields (past 200 of them, the first 300 listed to be opened), every plot panel has points (unless its series are all
  NaN), one map per track, path and scene in the data;
- a screenshot is written next to the page (NAME.png);
- sensor views, on every page whose data has them: each camera strip's
  thumbnails loaded (naturalWidth > 0, as many as the data holds), each
  cloud or scan canvas drawn (coloured pixels; at most the data's points
  drawn), moving its slider draws the next message (another picture where
  the two messages' points differ), each track drawn (coloured pixels);
- plots and state plots: hovering one shows the same time on every plot on
  screen; the header's field search opens a drawn plot of the first field,
  and of the first field not plotted at load (an extra one) where there is
  one; the XY button draws a position pair offered (or two fields of a
  channel typed in) as an XY plot with points;
- with "extremes", a plot shows 0..49 on its axis with at least two values
  (the largest doubles) marked beyond it;
- with "values", every series (plotted or extra) of every channel whose topic is unique is compared
  with `robolog cat --json` of the same log: a series that is not reduced has
  exactly the decoded values at their times; a reduced one has only decoded
  points, its smallest and largest values are the decoded extremes, and it has
  at most --max-points points.

- with "injection": MARK (logs whose every string is a script injection
  that sets the global MARK, see crates/robolog-report/tests/hostile/mod.rs):
  nothing ran (``window[MARK]`` undefined), no element came from the data (the page's two scripts, no
  ``img``, ``svg`` or ``on*`` attribute), and the log's texts are shown
  literally: every event's text, metadata key and value, channel name
  and type, parameter name and log name is the textContent of a cell.
- the renderer's memory (renderer_memory.py): its peak resident set while
  the page loaded and the checks above ran, under RENDERER_BUDGET_MB, and
  the page's JS heap.

Each page records its sizes and times: ``{"name", "bytes", "write_s",
"open_s", "series_compared", "renderer_peak_mb", "js_heap_mb", ...}``.
"""

import json
import math
import os
import re
import struct
import subprocess
import time

import pytest
import renderer_memory
from playwright.sync_api import sync_playwright

MAX_POINTS = 1000
# Past MANY_CHANNELS channels of plots, the page lists the first MAX_ROWS
# of them (report.js).
MANY_CHANNELS = 200
MAX_ROWS = 300
# The largest peak resident set of the renderer for a page (the pages are
# under 10 MB; the largest of the gate's take about 300 MB).
RENDERER_BUDGET_MB = 1024


def page_data(html):
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def path_parts(name):
    out = []
    for part in name.split("."):
        m = re.match(r"^([^\[]*)((?:\[\d+\])*)$", part)
        if not m:
            return None
        if m.group(1):
            out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def lookup(data, parts):
    v = data
    for p in parts:
        if isinstance(p, int):
            # Arrays of more than 16 elements are not plotted.
            if not isinstance(v, list) or p >= len(v) or len(v) > 16:
                return None
            v = v[p]
        else:
            if not isinstance(v, dict) or p not in v:
                return None
            v = v[p]
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    return None


def decoded(exe, log, args=()):
    """Messages by topic: [(log_time_ns, data)] from `robolog cat --json`
    (with `args`: a time range)."""
    out = subprocess.run([exe, "cat", "--json", *args, log], capture_output=True, text=True)
    by_topic = {}
    for line in out.stdout.splitlines():
        m = json.loads(line)
        by_topic.setdefault(m["topic"], []).append((m["log_time_ns"], m["data"]))
    return by_topic


def same(a, b, is_f32):
    if is_f32:
        return f32(a) == f32(b)
    return a == b


# Counts a canvas's coloured pixels (points, tracks and markers; axes and
# text are grey) and gives a digest of its pixels.
CANVAS_STATS = """c => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let coloured = 0, digest = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] > 0 && (Math.abs(d[i] - d[i + 1]) > 24 || Math.abs(d[i + 1] - d[i + 2]) > 24)) { coloured++; }
    digest = (digest * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2] + d[i + 3]) >>> 0;
  }
  return [coloured, digest];
}"""


# The page's canvases carry what they show as text (their aria-label,
# for screen readers): the checks read it there.
def label_of(canvas):
    return canvas.get_attribute("aria-label") or ""


def drawn_points(canvas):
    """Points a plot or cloud view says it drew."""
    m = re.search(r"(\d+) points drawn", label_of(canvas))
    return int(m.group(1)) if m else 0


def value_axis(canvas):
    """(low, high, values beyond) of a plot's value axis."""
    label = label_of(canvas)
    m = re.search(r"value axis (\S+) to (\S+?)(?:;|$)", label)
    b = re.search(r"(\d+) values beyond", label)
    return (float(m.group(1)), float(m.group(2)), int(b.group(1)) if b else 0) if m else (0.0, 0.0, 0)


def map_points(canvas):
    """Points a map or track says it holds."""
    m = re.search(r"of (\d+) (?:points|fixes)", label_of(canvas))
    return int(m.group(1)) if m else 0


# The plots and state plots in the viewport: whether each shows its
# read-out, and the read-out's first line (the time).
READOUTS = """() => [...document.querySelectorAll('.panel.plot, .panel.states')].filter(p => {
  const r = p.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight;
}).map(p => { const o = p.querySelector('.readout');
  return [o.style.display === 'block', o.textContent.split('\\n')[0]]; })"""


def check_cursor(page, where, failures):
    """Hovering a plot moves the time cursor of every plot on screen: each
    shows the same time; leaving hides them."""
    first = page.query_selector(".panel.plot canvas[role=img], .panel.states canvas[role=img]")
    first.scroll_into_view_if_needed()
    # The page learns what is on screen from an IntersectionObserver, a
    # frame or two after a scroll.
    page.wait_for_timeout(200)
    box = first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    shown = page.evaluate(READOUTS)
    times = {t for on, t in shown if on}
    if not shown or not all(on for on, _ in shown) or len(times) != 1 or not next(iter(times)).startswith("t = "):
        failures.append(f"{where}: hovering a plot did not show one time on every plot on screen: {shown[:4]}")
    page.mouse.move(1, 1)
    if any(on for on, _ in page.evaluate(READOUTS)):
        failures.append(f"{where}: the time cursor stayed after the pointer left")
    page.evaluate("window.scrollTo(0, 0)")


def check_field_search(page, logs, where, failures):
    """Typing a channel/field into the header's search and pressing Enter
    opens a plot of it, drawn, at the top of the page."""
    ch, s = next((c, x) for lg in logs for c in lg["channels"] for x in c.get("series", []) if x["t"])
    key = ch["label"] + "/" + s["name"]
    page.fill("input.field-search", key)
    page.press("input.field-search", "Enter")
    opened = page.query_selector_all("section.picked .panel canvas[role=img]")
    label = label_of(opened[0]) if opened else ""
    if len(opened) != 1 or not label.startswith(key + ":") or not re.search(r"[1-9]\d* (points|spans) drawn", label):
        failures.append(f"{where}: searching {key!r} did not open one drawn plot: {len(opened)} opened, {label!r}")
    page.evaluate("window.scrollTo(0, 0)")
    # A field not plotted at load (an extra one, carried min/max reduced)
    # opens the same way.
    extra = next(((c, x) for lg in logs for c in lg["channels"] for x in c.get("extra", []) if x["t"]), None)
    if extra:
        key = extra[0]["label"] + "/" + extra[1]["name"]
        plotted = [c["label"] + "/" + x["name"] for lg in logs for c in lg["channels"] for x in c.get("series", [])]
        page.fill("input.field-search", key)
        page.press("input.field-search", "Enter")
        opened = page.query_selector_all("section.picked .panel canvas[role=img]")
        label = label_of(opened[-1]) if opened else ""
        if key in plotted or len(opened) != 2 or not label.startswith(key + ":") \
                or not re.search(r"[1-9]\d* (points|spans) drawn", label):
            failures.append(f"{where}: searching the extra field {key!r} did not open one drawn plot: {label!r}")
        page.evaluate("window.scrollTo(0, 0)")
    return bool(extra)


def check_xy(page, logs, where, failures):
    """The header's XY button: a position pair offered (when the page has
    one), or the first two fields of a channel typed in, draws one XY plot
    with points; returns how many were drawn."""
    page.click("button.xy-open")
    before = len(page.query_selector_all(".panel.xy canvas[role=img]"))
    pair = page.query_selector("button.xy-pair")
    if pair:
        what = pair.inner_text()
        pair.click()
    else:
        ch = next((c for lg in logs for c in lg["channels"]
                   if len([x for x in c.get("series", []) + c.get("extra", []) if x["t"]]) >= 2), None)
        if ch is None:
            return 0
        a, b = [x for x in ch.get("series", []) + ch.get("extra", []) if x["t"]][:2]
        what = ch["label"] + "/" + b["name"] + " against " + ch["label"] + "/" + a["name"]
        fields = page.query_selector_all("input.xy-field")
        fields[0].fill(ch["label"] + "/" + a["name"])
        fields[1].fill(ch["label"] + "/" + b["name"])
        page.click("button.xy-draw")
    drawn = page.query_selector_all(".panel.xy canvas[role=img]")
    label = label_of(drawn[-1]) if drawn else ""
    # One plot per log that has the fields (several on a page of several);
    # points where the first field has a sample in the log's span (a field
    # whose samples all lie outside it, outliers, draws none).
    first = what.split(" against ")[1]
    inside = any(0 <= t <= lg["duration"] for lg in logs for c in lg["channels"]
                 for x in c.get("series", []) + c.get("extra", [])
                 if c["label"] + "/" + x["name"] == first for t in x["t"])
    if len(drawn) == before or not re.search(r"[1-9]\d* points drawn" if inside else r"\d+ points drawn", label):
        failures.append(f"{where}: the XY plot of {what!r} was not drawn: {len(drawn) - before} opened, {label!r}")
    page.click("button.xy-open")
    page.evaluate("window.scrollTo(0, 0)")
    return len(drawn) - before


# What of the page did not come from its own code: whether a payload ran
# (it sets __pwned), script elements, images and SVG made from text, and
# attributes of event handlers.
INJECTED = """mark => [typeof window[mark], document.querySelectorAll('script').length,
  document.querySelectorAll('img:not([src^="data:"]), svg, iframe, object, embed').length,
  [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length]"""


def check_injection(page, logs, mark, where, failures):
    """A page of logs whose every string is a script injection that sets
    the global `mark` when it runs: nothing ran, nothing became markup,
    and the texts are shown as written: each event's text, metadata key
    and value, channel name and type (the overview's first rows),
    parameter name and log name is a cell's text."""
    ran, scripts, elements, handlers = page.evaluate(INJECTED, mark)
    if ran != "undefined" or scripts != 2 or elements or handlers:
        failures.append(f"{where}: injected: {mark} {ran}, {scripts} scripts, {elements} img/svg/iframe elements, "
                        f"{handlers} elements with on* attributes")
    cells = set(page.eval_on_selector_all("td", "els => els.map(e => e.textContent)"))
    want = [("log name", lg["name"]) for lg in logs]
    for lg in logs:
        want += [("event", e["text"]) for e in lg["events"]]
        want += [("metadata", x) for kv in lg["metadata"] for x in kv]
        want += [("channel", x) for c in lg["channels"][:MAX_ROWS] for x in (c["label"], c["type"])]
        want += [("parameter", p["name"]) for p in (lg.get("parameters") or {}).get("list", [])]
    hostile = [(k, t) for k, t in want if mark in t]
    missing = [(k, t) for k, t in hostile if t not in cells]
    if len(hostile) < 10 or missing:
        failures.append(f"{where}: {len(missing)} of {len(hostile)} hostile texts not shown literally: {missing[:3]}")
    return len(hostile)


def check_sensor_views(page, logs, where, failures):
    """The page's camera strips, cloud views and tracks, as drawn; returns
    (thumbnails, clouds, tracks) checked."""
    strips = [s for lg in logs for s in lg.get("strips", [])]
    clouds = [c for lg in logs for c in lg.get("clouds", [])]
    tracks = [t for lg in logs for t in lg["tracks"]]
    want_thumbs = sum(len(s["frames"]) for s in strips)
    if want_thumbs:
        try:
            page.wait_for_function(
                "n => { const i = [...document.querySelectorAll('.panel.strip img')];"
                " return i.length === n && i.every(e => e.complete); }", arg=want_thumbs, timeout=20000)
        except Exception:  # noqa: BLE001 - reported below
            pass
    imgs = page.eval_on_selector_all(".panel.strip img", "els => els.map(e => [e.complete, e.naturalWidth, e.naturalHeight])")
    if len(imgs) != want_thumbs:
        failures.append(f"{where}: {len(imgs)} thumbnails on the page for {want_thumbs} in the data")
    frames = [f for s in strips for f in s["frames"]]
    for (complete, w, h), f in zip(imgs, frames):
        if not complete or w == 0 or (w, h) != (f["w"], f["h"]):
            failures.append(f"{where}: a thumbnail did not load as {f['w']}x{f['h']}: {complete} {w}x{h}")
            break
    if page.eval_on_selector_all(".panel.strip", "els => els.length") != len(strips):
        failures.append(f"{where}: {len(strips)} camera strips in the data, not all drawn")
    views = page.query_selector_all(".panel.cloud")
    if len(views) != len(clouds):
        failures.append(f"{where}: {len(views)} cloud panels for {len(clouds)} cloud views")
    for box, view in zip(views, clouds):
        canvas = box.query_selector("canvas")
        coloured, digest = canvas.evaluate(CANVAS_STATS)
        drawn = drawn_points(canvas)
        shown = view["frames"][0]["shown"]
        if coloured < 20 or drawn == 0 or drawn > shown:
            failures.append(f"{where}: a cloud view looks blank: {coloured} coloured pixels, "
                            f"{drawn} of {shown} points drawn")
        if len(view["frames"]) > 1:
            slider = box.query_selector("input[type=range]")
            slider.evaluate("(e) => { e.value = '1'; e.dispatchEvent(new Event('input')); }")
            if not (canvas.get_attribute("aria-label") or "").startswith("message 2 "):
                failures.append(f"{where}: the cloud slider did not move to the second message")
            _, after = canvas.evaluate(CANVAS_STATS)
            differ = (view["frames"][0]["x"], view["frames"][0]["y"]) != (view["frames"][1]["x"], view["frames"][1]["y"])
            if differ and after == digest:
                failures.append(f"{where}: the cloud slider did not change the picture")
    maps = page.query_selector_all(".panel.track")
    if tracks and not maps:
        failures.append(f"{where}: {len(tracks)} tracks in the data, none drawn")
    for box in maps:
        coloured, _ = box.query_selector("canvas").evaluate(CANVAS_STATS)
        if coloured < 20:
            failures.append(f"{where}: a track looks blank ({coloured} coloured pixels)")
    return want_thumbs, len(clouds), len(maps)


def check_values(exe, logpath, log, failures, args=()):
    by_topic = decoded(exe, logpath, args)
    start = log["start"]
    compared = 0
    for ch in log["channels"]:
        if " #" in ch["label"] or not (ch.get("series") or ch.get("extra")):
            continue
        msgs = by_topic.get(ch["topic"], [])
        for s in ch["series"] + ch.get("extra", []):
            if ":" in s["name"]:
                continue  # derived (roll, pitch, yaw)
            parts = path_parts(s["name"])
            want = []
            for t, d in msgs:
                v = lookup(d, parts)
                if v is not None and math.isfinite(v):
                    want.append((t, v))
            # Infinities are written as the strings "Infinity" and "-Infinity".
            got = [(start + t, v) for t, v in zip(s["t"], s["v"]) if isinstance(v, (int, float))]
            where = f'{os.path.basename(logpath)}: {ch["label"]}.{s["name"]}'
            if not got and not want:
                compared += 1  # every value NaN: nothing drawn
                continue
            is_f32 = s.get("f32", False)
            if not s.get("reduced", False):
                if len(got) != len(want) or any(
                    g[0] != w[0] or not same(g[1], w[1], is_f32) for g, w in zip(got, want)
                ):
                    failures.append(f"{where}: {len(got)} points differ from the {len(want)} decoded values")
                    continue
            else:
                keys = {(t, f32(v) if is_f32 else v) for t, v in want}
                stray = [g for g in got if (g[0], f32(g[1]) if is_f32 else g[1]) not in keys]
                if stray:
                    failures.append(f"{where}: {len(stray)} reduced points are not decoded values, the first {stray[0]}")
                    continue
                if not got or not want:
                    if not got and not want:
                        compared += 1
                        continue
                    failures.append(f"{where}: {len(got)} points for {len(want)} decoded values")
                    continue
                lo, hi = min(v for _, v in want), max(v for _, v in want)
                glo, ghi = min(v for _, v in got), max(v for _, v in got)
                if not (same(lo, glo, is_f32) and same(hi, ghi, is_f32)):
                    failures.append(f"{where}: extremes {glo}..{ghi}, decoded {lo}..{hi}")
                    continue
                if len(got) > MAX_POINTS:
                    failures.append(f"{where}: {len(got)} points, more than {MAX_POINTS}")
                    continue
            compared += 1
    return compared


class Writer:
    """Writes the entries' pages with `robolog report`, each started when
    the page before it is taken, so writing and checking use a core each."""

    def __init__(self, exe, out_dir, entries):
        self.exe, self.out_dir, self.entries = exe, out_dir, entries
        self.running = {}

    def start(self, i):
        if i < len(self.entries) and i not in self.running:
            e = self.entries[i]
            html_path = os.path.join(self.out_dir, e["name"] + ".html")
            cmd = [self.exe, "report", *e["logs"], *e.get("args", []), "-o", html_path, "--force"]
            self.running[i] = (html_path, time.time(), subprocess.Popen(
                cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))

    def take(self, i):
        """(html path, seconds writing, exit code, stderr) of entry i."""
        self.start(i)
        html_path, t0, proc = self.running.pop(i)
        _, stderr = proc.communicate()
        written = time.time() - t0
        self.start(i + 1)
        return html_path, written, proc.returncode, stderr

    def close(self):
        for _, _, proc in self.running.values():
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def writer(manifest, robolog):
    w = Writer(robolog, manifest["out_dir"], manifest["entries"])
    yield w
    w.close()


class Tabs:
    """Headless Chromium, a new tab for each page (the tab before it
    closed, so that each page has a renderer of its own to measure)."""

    def __init__(self, browser):
        self.browser, self.page = browser, None

    def fresh(self):
        """A new tab, and the console errors and uncaught exceptions it
        reports."""
        if self.page is not None:
            renderer_memory.close_tab(self.page)
        self.page = self.browser.new_page(viewport={"width": 1400, "height": 1800})
        problems = []
        self.page.on("console", lambda m: problems.append("console: " + m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: problems.append("exception: " + str(e)))
        return self.page, problems


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (Tabs)."""
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield Tabs(b)
        b.close()


def test_page(entry, manifest, writer, browser, robolog, record):
    exe, out_dir, e = robolog, manifest["out_dir"], entry
    page, problems = browser.fresh()
    failures = []
    i = [x["id"] for x in manifest["entries"]].index(e["id"])
    html_path, written, code, stderr = writer.take(i)
    if code != 0:
        pytest.fail(f'{e["name"]}: robolog report exited {code}: {stderr.strip()}', pytrace=False)
    html = open(html_path, encoding="utf-8").read()
    data = page_data(html)
    problems.clear()
    renderer_memory.reset_peaks()
    t0 = time.time()
    try:
        # The page's module script runs before the load event: the page is
        # drawn when it fires.
        page.goto("file://" + os.path.abspath(html_path), wait_until="load", timeout=60000)
    except Exception as ex:  # noqa: BLE001 - reported as a failure
        pytest.fail(f'{e["name"]}: the page never loaded: {ex}; {problems}', pytrace=False)
    shown = time.time() - t0
    page.screenshot(path=os.path.join(out_dir, e["name"] + ".png"))
    where = e["name"]
    if problems:
        failures.append(f"{where}: {problems}")
    if page.inner_text("#errors").strip():
        failures.append(f'{where}: the page says it failed: {page.inner_text("#errors")}')
    logs = data["logs"]
    n = lambda sel: page.eval_on_selector_all(sel, "els => els.length")  # noqa: E731
    if n("section.log") != len(logs) or n(".panel.timeline") != len(logs):
        failures.append(f"{where}: {n('section.log')} log sections and {n('.panel.timeline')} timelines "
                        f"for {len(logs)} logs")
    # Several logs: a summary row each, linking to its section.
    if len(logs) > 1:
        links = page.eval_on_selector_all("table.summary td a", "els => els.map(e => e.getAttribute('href'))")
        if links != [f"#log-{i}" for i in range(len(logs))]:
            failures.append(f"{where}: summary links {links} for {len(logs)} logs")
    # Messages far outside a log's span: marked on its timeline, not on
    # its axis.
    outside = sum(o["count"] for lg in logs for o in lg.get("outliers", []))
    if outside:
        said = page.eval_on_selector_all(".panel.timeline canvas", "els => els.map(e => e.getAttribute('aria-label'))")
        if not any("messages after it" in s or "messages before it" in s for s in said):
            failures.append(f"{where}: {outside} messages outside the spans, none marked on a timeline: {said}")
    labels = {c["label"] for lg in logs for c in lg["channels"] if any(s["t"] for s in c.get("series", []))}
    if len(labels) > MANY_CHANNELS:
        # Listed with a filter, drawn when opened: the first rows.
        if n("details.channel.lazy") != min(len(labels), MAX_ROWS):
            failures.append(f"{where}: {n('details.channel.lazy')} channels listed for {len(labels)} "
                            "channels with numeric fields")
    elif n("section.channel") != len(labels):
        failures.append(f"{where}: {n('section.channel')} channel sections for {len(labels)} "
                        "channels with numeric fields")
    for kind, key in (("track", "tracks"), ("path", "paths"), ("scene", "scenes")):
        want = sum(len(lg[key]) for lg in logs)
        if n(".panel." + kind) != want:
            failures.append(f"{where}: {n('.panel.' + kind)} {kind} panels for {want} {key}")
    plots = [[drawn_points(c)] for c in page.query_selector_all(".panel.plot canvas[role=img]")]
    empty = [i for i, (pts,) in enumerate(plots) if pts == 0]
    states = [label_of(c) for c in page.query_selector_all(".panel.states canvas[role=img]")]
    # A channel whose every message lies outside its log's span (outliers,
    # marked on the timeline) draws nothing there until zoomed out.
    away = {c["label"] for lg in logs for c in lg["channels"]
            if c.get("series") and all(t < 0 or t > lg["duration"] for x in c["series"] for t in x["t"])}
    blank = [s for s in states if not re.search(r"[1-9]\d* spans drawn", s) and s.split(":")[0] not in away]
    if blank:
        failures.append(f"{where}: state plots without a span: {blank[:3]}")
    if plots or states:
        check_cursor(page, where, failures)
    extra_opened = xy = 0
    if labels:
        extra_opened = int(check_field_search(page, logs, where, failures))
        xy = check_xy(page, logs, where, failures)
    if empty:
        failures.append(f"{where}: plot panels {empty} have no points")
    if e.get("extremes"):
        # The largest doubles are drawn at the edge of an axis that
        # shows the rest.
        axes = [value_axis(c) for c in page.query_selector_all(".panel.plot canvas[role=img]")]
        if not any(b >= 2 and -10 < y0 < 0 and 49 < y1 < 60 for y0, y1, b in axes):
            failures.append(f"{where}: no plot shows 0..49 with the extremes marked beyond it: {axes}")
    maps = [map_points(c) for c in page.query_selector_all(".panel.map canvas[role=img]")]
    if any(m == 0 for m in maps):
        failures.append(f"{where}: a map has no points")
    size = os.path.getsize(html_path)
    if size > 10_000_000:
        failures.append(f"{where}: the page is {size} bytes, more than 10 MB")
    if "--start" in e.get("args", []):
        # A time range: each log's overview says which.
        said = page.eval_on_selector_all(".overview td.range", "els => els.map(e => e.textContent)")
        if len(said) != len(logs) or not all(s.startswith("showing ") for s in said):
            failures.append(f"{where}: the overviews say {said} of the range")
    thumbs, clouds, tracks = check_sensor_views(page, logs, where, failures)
    if thumbs or clouds:
        # A screenshot of the first sensor view too, for people to look at.
        first = page.query_selector(".panel.strip, .panel.cloud")
        if first:
            first.scroll_into_view_if_needed()
            page.screenshot(path=os.path.join(out_dir, e["name"] + "-sensors.png"))
    literal = check_injection(page, logs, e["injection"], where, failures) if e.get("injection") else 0
    # The renderer's peak while the page loaded and was checked.
    peak_mb, _ = renderer_memory.renderer_peak_mb()
    heap_mb = renderer_memory.js_heap_mb(page)
    if peak_mb > RENDERER_BUDGET_MB:
        failures.append(f"{where}: the renderer's peak resident set was {peak_mb:.0f} MB, "
                        f"more than {RENDERER_BUDGET_MB} MB")
    compared = 0
    if e.get("values"):
        for path, log in zip(e["logs"], logs):
            compared += check_values(exe, path, log, failures, e.get("cat_args", e.get("args", [])))
    record(name=where, logs=len(logs), bytes=size, plots=len(plots), points=sum(p[0] for p in plots),
           maps=len(maps), series_compared=compared,
           thumbnails=thumbs, clouds=clouds, tracks=tracks, extra_opened=extra_opened, xy_plots=xy, write_s=round(written, 2), open_s=round(shown, 2),
           renderer_peak_mb=round(peak_mb, 1), js_heap_mb=round(heap_mb, 1), literal_texts=literal)
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)
