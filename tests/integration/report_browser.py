#!/usr/bin/env python3
"""Loads a kvbench report page in Debian's headless chromium and checks what it drew.

usage: report_browser.py PAGE ARTIFACT_DIR [--boxes JSON] [--diff-json FILE] [--forest-rows N]

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
  - with --boxes, the box of each named (plot title, group) has the given q1, median, q3;
  - laid out (a copy of the page with a probe script appended that opens every <details>
    and reads bounding boxes from the DOM): no title, tick, legend or label text reaches
    outside its <svg>, no two tick labels of an axis overlap, no line of a `lines` plot
    lies on its frame's top or bottom edge;
  - the summary (forest) plot: one row per compared cell of --diff-json (the output of
    `kvbench diff --format json` for the same selection; --forest-rows N: that many rows),
    each row's dot, whisker and margin band carrying diff_pct, same_ci95_lo/hi and
    margin_pct exactly as diff gives them, drawn where one linear x scale puts them
    (fitted over every row, residual < 0.5 px), coloured by verdict, linking to an
    element of the page.
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


# Appended to a copy of the page (inline scripts are allowed by its CSP): runs after the
# plots are drawn, opens every <details>, and writes what it measured into <pre id="kvb-probe">.
PROBE = r"""<script>
(function () {
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  var out = { overflow: [], overlap: [], onframe: [], forest: [], links: [] };
  function r(e) { return e.getBoundingClientRect(); }
  document.querySelectorAll('svg.kvb-svg').forEach(function (svg, si) {
    var s = r(svg), fig = svg.closest('figure'), id = fig ? fig.id : String(si);
    svg.querySelectorAll('text').forEach(function (t) {
      var b = r(t);
      if (!t.textContent || b.width === 0) return;
      if (b.left < s.left - 0.5 || b.right > s.right + 0.5 || b.top < s.top - 0.5 || b.bottom > s.bottom + 0.5)
        out.overflow.push(id + ': "' + t.textContent + '" [' + [b.left, b.right, b.top, b.bottom].map(Math.round) +
          '] outside [' + [s.left, s.right, s.top, s.bottom].map(Math.round) + ']');
    });
    svg.querySelectorAll('g.axis').forEach(function (ax) {
      var vertical = ax.classList.contains('y'), prev = null;
      var boxes = Array.prototype.map.call(ax.querySelectorAll('.tick text'), function (t) { return [t.textContent, r(t)]; })
        .filter(function (x) { return x[0] && x[1].width > 0; })
        .sort(function (a, b) { return vertical ? a[1].top - b[1].top : a[1].left - b[1].left; });
      boxes.forEach(function (x) {
        if (prev && (vertical ? x[1].top < prev[1].bottom - 0.5 : x[1].left < prev[1].right - 0.5))
          out.overlap.push(id + ': tick "' + prev[0] + '" runs into "' + x[0] + '"');
        prev = x;
      });
    });
    var spec = fig ? JSON.parse(fig.querySelector('script[type="application/json"]').textContent) : {};
    var fr = svg.querySelector('g.y.axis path.domain');  /* the plot area's vertical extent */
    if (spec.kind === 'lines' && fr) {
      var f = r(fr);
      svg.querySelectorAll('path.kvb-line').forEach(function (pth) {
        var b = r(pth);
        if (b.top <= f.top + 0.5 || b.bottom >= f.bottom - 0.5)
          out.onframe.push(id + ': series ' + pth.getAttribute('data-series') + ' [' + Math.round(b.top) + ', ' +
            Math.round(b.bottom) + '] touches the frame [' + Math.round(f.top) + ', ' + Math.round(f.bottom) + ']');
      });
    }
    if (spec.kind === 'forest') {
      svg.querySelectorAll('a.kvb-forest-row').forEach(function (a) {
        var c = a.querySelector('circle.kvb-forest-mark'), w = a.querySelector('line.kvb-whisker'),
            m = a.querySelector('rect.kvb-margin'), href = a.getAttribute('href');
        out.forest.push({ row: +a.getAttribute('data-row'), href: href,
          target: !!document.getElementById(href.slice(1)),
          cx: c ? +c.getAttribute('cx') : null, pct: c ? c.getAttribute('data-pct') : null,
          fill: c ? c.getAttribute('fill') : null, verdict: c ? c.getAttribute('data-verdict') : null,
          x1: w ? +w.getAttribute('x1') : null, x2: w ? +w.getAttribute('x2') : null,
          cut: w && w.classList.contains('clipped') ? ['x1', 'x2'].filter(function (k) {
            var v = w.getAttribute(k === 'x1' ? 'data-lo' : 'data-hi'), ax = svg.querySelector('g.x.axis path');
            var dom = ax ? ax.getBBox() : null;
            return v !== '' && dom && (Math.abs(+w.getAttribute(k) - dom.x) < 1 || Math.abs(+w.getAttribute(k) - dom.x - dom.width) < 1);
          }) : [],
          lo: w ? w.getAttribute('data-lo') : null, hi: w ? w.getAttribute('data-hi') : null,
          open: w ? w.classList.contains('open') : null,
          mx: m ? +m.getAttribute('x') : null, mw: m ? +m.getAttribute('width') : null,
          margin: m ? m.getAttribute('data-margin') : null,
          label: (a.querySelector('text.kvb-row-label') || {}).textContent || '',
          value: (a.querySelector('text.kvb-row-value') || {}).textContent || '',
          lines: a.querySelectorAll('text.kvb-row-label tspan').length,
          tip: (a.querySelector('title') || {}).textContent || '' });
      });
    }
  });
  var pre = document.createElement('pre');
  pre.id = 'kvb-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""

VERDICT_FILL = {"better": "#2ca02c", "worse": "#d62728", "same": "#1f77b4", "undecided": "#ff7f0e"}


def probe(page, work, art, name):
    """Loads a copy of page with PROBE appended; returns what it measured."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    copy = os.path.join(os.path.dirname(page), "." + name + ".probe.html")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", PROBE + "\n</body>"))
    try:
        dom = os.path.join(art, name + ".probe.dom.html")
        chromium(["--virtual-time-budget=" + BUDGET_MS, "--window-size=1280,4000", "--dump-dom", "file://" + copy],
                 os.path.join(work, "profile3"), os.path.join(work, "stderr3"), dom)
        with open(dom, encoding="utf-8") as f:
            m = re.search(r'<pre id="kvb-probe">(.*?)</pre>', f.read(), re.S)
        return json.loads(html.unescape(m.group(1))) if m else None
    finally:
        os.unlink(copy)


def check_forest(check, spec, rows, diff, want_rows):
    """The forest's rows against diff's JSON: same numbers, one linear x scale, verdict colours."""
    cells = {}
    for gi, g in enumerate(diff["groups"]):
        for v in g["variants"]:
            if "diff_pct" in v:
                cells[(gi, v["variant"])] = (g, v)
    if want_rows is not None:
        check(len(spec["rows"]) == want_rows, "forest: %d rows (expected %d)" % (len(spec["rows"]), want_rows))
    check(len(spec["rows"]) == len(cells), "forest: %d rows for %d compared cells in diff's JSON" %
          (len(spec["rows"]), len(cells)))
    pts, bad, clipped = [], [], []
    by_row = {r["row"]: r for r in rows}
    for i, sr in enumerate(spec["rows"]):
        g, v = cells.get((sr["group"], sr["variant"]), (None, None))
        d = by_row.get(i)
        if not v or not d:
            bad.append("row %d (%s %s %s): no such cell in diff or not drawn" % (i, sr["workload"], sr["metric"], sr["variant"]))
            continue
        if (g["workload"], g["metric"]) != (sr["workload"], sr["metric"]):
            bad.append("row %d: group %s/%s, diff has %s/%s" % (i, sr["workload"], sr["metric"], g["workload"], g["metric"]))
        for key, attr in (("diff_pct", "pct"), ("same_ci95_lo", "lo"), ("same_ci95_hi", "hi"), ("margin_pct", "margin")):
            want = v.get(key)
            got = d[attr]
            got = None if got in (None, "") else float(got)
            if (want is None) != (got is None) or (want is not None and got != want):
                bad.append("row %d %s: drawn %r, diff says %r" % (i, key, got, want))
        if VERDICT_FILL.get(v["verdict"].split(" ")[0], "#888") != d["fill"]:
            bad.append("row %d: colour %s for verdict %s" % (i, d["fill"], v["verdict"]))
        if not d["target"]:
            bad.append("row %d: link %s goes nowhere" % (i, d["href"]))
        for k in ("n", "boots"):
            if ("%s %d" % (k, v[k])) not in d["tip"]:
                bad.append("row %d: tooltip lacks %s %d" % (i, k, v[k]))
        if v.get("p") is not None and "p " not in d["tip"]:
            bad.append("row %d: tooltip lacks p" % i)
        if "Cliff" not in d["tip"]:
            bad.append("row %d: tooltip lacks Cliff's delta" % i)
        # issue 41.5: the whole label (wrapped in tspans, never cut) and the verdict with its reason
        nospace = lambda t: re.sub(r"\s+", "", t)
        want_label = sr["workload"] + " " + sr["metric"] + (" " + sr["cls_full"] if sr["cls_full"] else "") + " \u00b7 " + sr["variant"]
        if "\u2026" in d["label"] or nospace(d["label"]) != nospace(want_label):
            bad.append("row %d: label %r, not the whole %r" % (i, d["label"], want_label))
        if sr.get("verdict_text") and nospace(sr["verdict_text"]) not in nospace(d["value"]):
            bad.append("row %d: beside the dot %r, without the verdict's reason %r" % (i, d["value"], sr["verdict_text"]))
        if v["verdict"].startswith("undecided") and "(" not in sr.get("verdict_text", ""):
            bad.append("row %d: undecided without a reason (%r)" % (i, sr.get("verdict_text")))
        pts.append((v["diff_pct"], d["cx"]))
        # a CI end cut at the axis's edge is checked against the edge below, not the scale
        for key, px in (("same_ci95_lo", "x1"), ("same_ci95_hi", "x2")):
            if v.get(key) is not None:
                (clipped if px in d["cut"] else pts).append((v[key], d[px]))
        if d["mx"] is not None:
            pts.append((-v["margin_pct"], d["mx"]))
            pts.append((v["margin_pct"], d["mx"] + d["mw"]))
    rank = lambda vd: 0 if vd in ("better", "worse") else 2 if vd == "same" else 1
    grank = {}
    for r in spec["rows"]:  # a group's rank: the most telling of its variants' verdicts
        grank[r["group"]] = min(grank.get(r["group"], 3), rank(r["verdict"]))
    ranks = [grank[r["group"]] for r in spec["rows"]]
    check(ranks == sorted(ranks), "forest: what changed first, then undecided, then same (%s)" %
          " ".join(r["verdict"] for r in spec["rows"]))
    check(not bad, "forest: every row's numbers, colour, tooltip and link are diff's" + "".join("\n      " + b for b in bad[:20]))
    if len(pts) >= 2:
        n = len(pts)
        mx = sum(p[0] for p in pts) / n
        my = sum(p[1] for p in pts) / n
        sxx = sum((p[0] - mx) ** 2 for p in pts)
        a = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else 0
        b = my - a * mx
        worst = max(abs(a * p[0] + b - p[1]) for p in pts)
        check(a > 0 and worst < 0.5, "forest: dots, whisker ends and margins on one x scale (%d points, worst %.3f px)"
              % (n, worst))
        edges = [(a * x0 + b, px) for x0, px in clipped]
        lo_edge, hi_edge = min(p[1] for p in pts), max(p[1] for p in pts)
        check(all((want < lo_edge and px <= lo_edge + 0.5) or (want > hi_edge and px >= hi_edge - 0.5)
                  for want, px in edges),
              "forest: %d CI ends beyond the axis are cut at its edge" % len(edges))


def vertices(d):
    return len(re.findall(r"[ML]", d))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    page, art = os.path.abspath(sys.argv[1]), sys.argv[2]
    boxes = json.loads(sys.argv[sys.argv.index("--boxes") + 1]) if "--boxes" in sys.argv else {}
    diff = None
    if "--diff-json" in sys.argv:
        with open(sys.argv[sys.argv.index("--diff-json") + 1], encoding="utf-8") as f:
            diff = json.load(f)
    want_rows = int(sys.argv[sys.argv.index("--forest-rows") + 1]) if "--forest-rows" in sys.argv else None
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
            elif spec["kind"] in ("scatter",):
                check(fig["circles"] == len(spec["points"]),
                      "%s: %d points drawn for %d" % (title, fig["circles"], len(spec["points"])))
            elif spec["kind"] in ("along",):
                want = sum(len(x["y"]) for x in spec["series"])
                check(fig["circles"] == want, "%s: %d dots drawn for %d values" % (title, fig["circles"], want))
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
        m = probe(page, work, art, name)
        check(m is not None, "layout probe ran")
        if m:
            check(not m["overflow"], "no text outside its svg" + "".join("\n      " + x for x in m["overflow"][:20]))
            check(not m["overlap"], "no tick labels run together" + "".join("\n      " + x for x in m["overlap"][:20]))
            check(not m["onframe"], "no line drawn on its frame" + "".join("\n      " + x for x in m["onframe"][:20]))
        forests = [json.loads(f["json"]) for f in dom.figs if json.loads(f["json"])["kind"] == "forest"]
        if diff is not None or want_rows is not None:
            check(len(forests) == 1 and dom.figs and json.loads(dom.figs[0]["json"])["kind"] == "forest",
                  "the page's first plot is the summary forest (%d forests)" % len(forests))
            if forests and m and diff is not None:
                check_forest(check, forests[0], m["forest"], diff, want_rows)
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
