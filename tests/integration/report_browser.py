#!/usr/bin/env python3
"""Loads a kvbench report page in Debian's headless chromium and checks what it drew.

usage: report_browser.py PAGE ARTIFACT_DIR [--boxes JSON]

Checks, from chromium's own outputs (no page cooperation):
  - no console message at all (errors, CSP violations, uncaught exceptions): chromium's
    --enable-logging=stderr prints every console line as INFO:CONSOLE;
  - no network request made for the page: chromium's net log (--log-net-log) lists every
    URL request; those the page started carry its file:// site (the browser's own
    background traffic, if any, does not);
  - every <figure class="kvb-plot"> was drawn, and per plot the marks in the DOM after
    scripts ran equal the data points in its spec (dotbox: one circle.kvb-mark per value;
    stack: one rect.kvb-mark per part; cdf and lines: one path.kvb-mark per series with one
    vertex per point);
  - with --boxes, the box of each named (plot title, group) has the given q1, median, q3.
Writes ARTIFACT_DIR/<page name>.png (a screenshot) and .dom.html. Prints one line per
check and "N passed, M failed"; exits 1 on any failure.
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Chromium runs scripts in virtual time up to this budget before dumping; no wall-clock wait.
BUDGET_MS = "20000"
TIMEOUT_S = 600  # generous: the machine may be loaded; only a hang hits this


class Dom(html.parser.HTMLParser):
    """Collects each plot figure's spec and its drawn marks."""

    def __init__(self):
        super().__init__()
        self.figs = []
        self.in_fig = False     # figures do not nest
        self.in_json = False
        self.body = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        if tag == "figure" and "kvb-plot" in cls:
            self.figs.append({"id": a.get("id"), "drawn": a.get("data-drawn"), "json": "", "circles": 0, "rects": 0,
                              "paths": [], "boxes": []})
            self.in_fig = True
            return
        if not self.in_fig:
            return
        fig = self.figs[-1]
        if tag == "script" and a.get("type") == "application/json":
            self.in_json = True
        elif tag == "circle" and "kvb-mark" in cls:
            fig["circles"] += 1
        elif tag == "path" and "kvb-mark" in cls:
            fig["paths"].append({"series": a.get("data-series"), "d": a.get("d") or ""})
        elif tag == "rect" and "kvb-box" in cls:
            fig["boxes"].append(a)
        elif tag == "rect" and "kvb-mark" in cls:
            fig["rects"] += 1

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_json = False
        if tag == "figure":
            self.in_fig = False

    def handle_data(self, data):
        if self.in_fig and self.in_json:
            self.figs[-1]["json"] += data


def chromium(args, profile, log_path, out_path):
    with open(out_path, "wb") as out, open(log_path, "wb") as err:
        return subprocess.run(["chromium", *FLAGS, "--user-data-dir=" + profile, *args],
                              stdout=out, stderr=err, timeout=TIMEOUT_S).returncode


def page_requests(netlog_path, page_url):
    """URLs of requests the page made (not file: or data:), from chromium's net log."""
    with open(netlog_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # the browser may be killed before closing the JSON; close it ourselves
    try:
        log = json.loads(text)
    except json.JSONDecodeError:
        text = text.rstrip().rstrip(",")
        log = json.loads(text + "]}")
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = []
    for e in log.get("events", []):
        p = e.get("params") or {}
        if types.get(e.get("type")) != "URL_REQUEST_START_JOB":
            continue
        url = p.get("url", "")
        from_page = "file://" in (p.get("site_for_cookies", "") + p.get("network_isolation_key", "") +
                                  str(p.get("initiator", "")))
        if from_page and not url.startswith(("file:", "data:")):
            urls.append(url)
    return urls


def vertices(d):
    return len(re.findall(r"[ML]", d))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    page, art = os.path.abspath(sys.argv[1]), sys.argv[2]
    boxes = json.loads(sys.argv[sys.argv.index("--boxes") + 1]) if "--boxes" in sys.argv else {}
    os.makedirs(art, exist_ok=True)
    name = os.path.splitext(os.path.basename(page))[0]
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("ok   " if ok else "FAIL ") + what, file=sys.stderr)
        if ok:
            passed += 1
        else:
            failed += 1

    work = tempfile.mkdtemp(prefix="kvb-chromium.")
    try:
        url = "file://" + page
        dom_path = os.path.join(art, name + ".dom.html")
        log_path = os.path.join(work, "stderr")
        net_path = os.path.join(work, "net.json")
        rc = chromium(["--enable-logging=stderr", "--v=0", "--log-net-log=" + net_path,
                       "--virtual-time-budget=" + BUDGET_MS, "--dump-dom", url],
                      os.path.join(work, "profile1"), log_path, dom_path)
        check(rc == 0, "chromium --dump-dom exits 0 (got %d)" % rc)
        with open(log_path, encoding="utf-8", errors="replace") as f:
            console = [l.strip() for l in f if ":CONSOLE" in l]
        check(not console, "no console messages" + ("".join("\n      " + c for c in console)))
        reqs = page_requests(net_path, url)
        check(not reqs, "no network request from the page" + "".join("\n      " + u for u in reqs))
        dom = Dom()
        with open(dom_path, encoding="utf-8") as f:
            dom.feed(f.read())
        check(dom.body.get("data-plots-drawn") == str(len(dom.figs)),
              "every plot drawn (%s of %d)" % (dom.body.get("data-plots-drawn"), len(dom.figs)))
        for fig in dom.figs:
            spec = json.loads(fig["json"])
            title = "%s (%s %s)" % (fig["id"], spec["kind"], spec.get("title"))
            if spec["kind"] in ("dotbox",):
                want = sum(len(g["values"]) for g in spec["groups"])
                check(fig["circles"] == want, "%s: %d dots drawn for %d values" % (title, fig["circles"], want))
                check(len(fig["boxes"]) == len(spec["groups"]),
                      "%s: %d boxes for %d groups" % (title, len(fig["boxes"]), len(spec["groups"])))
            elif spec["kind"] == "stack":
                want = sum(len(b["parts"]) for b in spec["bars"])
                check(fig["rects"] == want, "%s: %d bar parts drawn for %d values" % (title, fig["rects"], want))
            elif spec["kind"] in ("cdf", "lines"):
                key = "values" if spec["kind"] == "cdf" else "t"
                want = [(s["name"], len(s[key])) for s in spec["series"]]
                got = [(p["series"], vertices(p["d"])) for p in fig["paths"]]
                check(got == want, "%s: vertices per series %s, points %s" % (title, got, want))
        for key, q in boxes.items():
            ptitle, group = key.split("|", 1)
            found = [b for f in dom.figs for b in f["boxes"]
                     if json.loads(f["json"]).get("title") == ptitle and b.get("data-group") == group]
            got = [float(found[0][k]) for k in ("data-q1", "data-median", "data-q3")] if found else None
            check(got is not None and all(abs(a - b) < 1e-9 for a, b in zip(got, q)),
                  "box %s: q1, median, q3 = %s (expected %s)" % (key, got, q))
        shot = os.path.join(art, name + ".png")
        rc = chromium(["--virtual-time-budget=" + BUDGET_MS, "--window-size=1280,4000", "--screenshot=" + shot, url],
                      os.path.join(work, "profile2"), os.path.join(work, "stderr2"), os.path.join(work, "out2"))
        check(rc == 0 and os.path.getsize(shot) > 10000, "screenshot kept: " + shot)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
