"""The memory of Chromium's renderer processes while a page is shown.

Playwright starts the browser under this Python process; its renderers
are the descendants whose command line holds ``--type=renderer``. Before
a page is opened, each renderer's peak resident set (``VmHWM`` of
/proc/PID/status) is reset (writing 5 to /proc/PID/clear_refs); after it
has loaded and drawn, the largest peak among them is the page's (a
renderer started for it counts from its start). The JS heap is the page's
``JSHeapUsedSize`` from the DevTools protocol's ``Performance.getMetrics``.

Run by itself, it opens each page given and prints a line per page:

    python renderer_memory.py PAGE.html...   # $CHROMIUM or /usr/bin/chromium
"""

import os
import sys
import time


def _parents():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: fields after
        # its closing parenthesis.
        out[int(d)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def renderers():
    """The pids of the Chromium renderer processes under this process."""
    me, parents = os.getpid(), _parents()
    found = []
    for pid in parents:
        p = pid
        while p > 1 and p != me:
            p = parents.get(p, 0)
        if p != me or pid == me:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"--type=renderer" in f.read():
                    found.append(pid)
        except OSError:
            continue
    return found


def close_tab(page, timeout=3.0):
    """Closes a tab and waits (up to `timeout` s) for a renderer to end:
    its own, whose memory would otherwise count for the next page."""
    before = set(renderers())
    page.close()
    end = time.time() + timeout
    while time.time() < end and before and before <= set(renderers()):
        time.sleep(0.05)


def _status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_peaks():
    """Resets the peak resident set of every renderer to its current one."""
    for pid in renderers():
        try:
            with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as f:
                f.write("5")
        except OSError:
            pass


def renderer_peak_mb():
    """The largest peak resident set (MB) of the renderers since
    reset_peaks(), and their current resident sets summed (MB)."""
    pids = renderers()
    peak = max((_status_kb(p, "VmHWM") for p in pids), default=0)
    now = sum(_status_kb(p, "VmRSS") for p in pids)
    return peak / 1024, now / 1024


def js_heap_mb(page):
    """The page's JS heap in use (MB), from Performance.getMetrics."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Performance.enable")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    finally:
        cdp.detach()
    return metrics.get("JSHeapUsedSize", 0) / 1e6


def main(pages):
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for path in pages:
            page = b.new_page(viewport={"width": 1400, "height": 1800})
            errors = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            reset_peaks()
            t0 = time.time()
            page.goto("file://" + os.path.abspath(path), wait_until="load", timeout=120000)
            loaded = time.time() - t0
            # What is on screen is drawn a frame after load.
            page.wait_for_timeout(500)
            plots = page.eval_on_selector_all("canvas[role=img]", "els => els.length")
            peak, now = renderer_peak_mb()
            heap = js_heap_mb(page)
            shot = os.path.splitext(path)[0] + ".png"
            page.screenshot(path=shot)
            print(f"{os.path.basename(path)}: {os.path.getsize(path) / 1e6:.2f} MB page, loaded in {loaded:.2f} s, "
                  f"{plots} canvases, renderer peak RSS {peak:.0f} MB (now {now:.0f} MB), JS heap {heap:.1f} MB; "
                  f"errors: {errors or 'none'}; screenshot {shot}")
            close_tab(page)
        b.close()


if __name__ == "__main__":
    main(sys.argv[1:])
