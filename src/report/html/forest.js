/*
 * kvbench report: the summary (forest) plot and the anchors' views, registered
 * in window.kvbKinds for plots.js (which passes its helpers as lib):
 *   forest  : {baseline, rows: [{workload, metric, units, cls, cls_full, variant, diff_pct,
 *             same_ci95_lo, same_ci95_hi, change_ci_of, margin_pct, verdict, n, boots,
 *             base_n, base_boots, p, cliffs_delta, cliffs_magnitude, unit, verdict_text, href}]}
 *             one row per compared cell with the numbers of `kvbench diff --format json`
 *             as they are (src/report/plot_forest.c), what changed first: a dot at diff_pct
 *             (circle.kvb-forest-mark), a whisker same_ci95_lo..hi (line.kvb-whisker; an
 *             unbounded side runs to the edge, class open), the +-margin_pct band
 *             (rect.kvb-margin), coloured by verdict; the row is a link to its detail. A CI
 *             end beyond 3 times the span of the dots and margins is cut at the axis's
 *             edge (class clipped; data-lo/hi keep the number). The row's label is whole,
 *             wrapped over as many lines as it needs (text.kvb-row-label, a tspan a line),
 *             never cut; beside the dot its change, verdict and why (verdict_text: the CI and
 *             boots of an undecided cell, or why it has no CI: text.kvb-row-value), wrapped too.
 *             Nothing is computed here but pixel positions.
 *   scatter : {points: [{name, x, xlo, xhi, y, ylo, yhi}]}  one circle.kvb-mark per point
 *             with its CIs as whiskers (line.kvb-ci)
 *   along   : {series: [{name, x[], y[]}], changes?: [x], xfull?: {x: text}, xorder?: [x]}
 *             values along commits (circle.kvb-mark each), change points dashed (line.kvb-change)
 */
(function () {
  'use strict';
  var kinds = window.kvbKinds = window.kvbKinds || {};
  var VERDICT = { better: '#2ca02c', worse: '#d62728', same: '#1f77b4', undecided: '#ff7f0e' };

  function verdictColour(v) {
    var k = String(v || '').split(' ')[0];
    return VERDICT[k] || '#888';
  }

  function num(v, fmt) {
    return v === null || v === undefined ? '-' : d3.format(fmt)(v);
  }

  /* Words of s over lines of at most maxw px (a word longer than a line is its own line). */
  function wrap(lib, s, maxw, font) {
    var lines = [], cur = '';
    String(s).split(' ').forEach(function (w) {
      var t = cur ? cur + ' ' + w : w;
      if (cur && lib.textWidth(t, font) > maxw) { lines.push(cur); cur = w; } else cur = t;
    });
    if (cur || !lines.length) lines.push(cur);
    return lines;
  }

  /* lines as tspans of text element sel, LH px apart, the first at its y. */
  function lines(sel, ls, x, LH) {
    ls.forEach(function (l, k) { sel.append('tspan').attr('x', x).attr('dy', k ? LH : 0).text(l); });
    return sel;
  }

  kinds.forest = function (fig, p, lib) {
    var rows = p.rows, LH = 13, L = 330, R = 220, T = 44, B = 44, width = 1020, FONT = '11px sans-serif';
    /* each row as tall as its wrapped label or reason: tops[i] its top, hs[i] its height */
    var tops = [], hs = [], labels = [], values = [], acc = T;
    rows.forEach(function (r, i) {
      labels[i] = wrap(lib, r.workload + ' ' + r.metric + (r.cls_full ? ' ' + r.cls_full : '') + ' \u00b7 ' + r.variant,
        L - 16, FONT);
      values[i] = wrap(lib, num(r.diff_pct, '+.2f') + ' % ' + (r.verdict_text || r.verdict), R - 16, FONT);
      tops[i] = acc;
      hs[i] = Math.max(18, Math.max(labels[i].length, values[i].length) * LH + 5);
      acc += hs[i];
    });
    var body = acc - T, height = T + B + body;
    var svg = d3.select(fig).insert('svg', 'figcaption').attr('class', 'kvb-svg kvb-forest')
      .attr('width', width).attr('height', height).attr('role', 'img').attr('aria-label', p.title || '');
    lib.fit(svg.append('text').attr('class', 'title').attr('x', 8).attr('y', 16), p.title || '', width - 16,
      'bold 12px sans-serif');
    var w = width - L - R;
    /* the axis holds every dot and margin; a CI end further out than 3 times their span is
       cut at the edge (class clipped) so one wide CI does not squash every other row */
    var core = [0], ends = [];
    rows.forEach(function (r) {
      if (r.diff_pct !== null && r.diff_pct !== undefined) core.push(r.diff_pct);
      if (r.margin_pct !== null && r.margin_pct !== undefined) core.push(r.margin_pct, -r.margin_pct);
      [r.same_ci95_lo, r.same_ci95_hi].forEach(function (v) { if (v !== null && v !== undefined) ends.push(v); });
    });
    var ce = d3.extent(core), span = Math.max(ce[1] - ce[0], 1);
    var lim = [ce[0] - 3 * span, ce[1] + 3 * span];
    var vals = core.concat(ends.filter(function (v) { return v >= lim[0] && v <= lim[1]; }));
    var x = d3.scaleLinear().domain(lib.padded(d3.extent(vals))).nice().range([L, L + w]);
    var top = svg.append('g').attr('class', 'x axis top').attr('transform', 'translate(0,' + (T - 6) + ')');
    top.call(lib.linearAxis(d3.axisTop, x, w, false));
    svg.append('g').attr('class', 'x axis').attr('transform', 'translate(0,' + (T + body + 6) + ')')
      .call(lib.linearAxis(d3.axisBottom, x, w, false));
    lib.fit(svg.append('text').attr('class', 'axis-label').attr('x', L + w / 2).attr('y', height - 8)
      .attr('text-anchor', 'middle'), p.x || '', w);
    svg.append('line').attr('class', 'kvb-zero').attr('x1', x(0)).attr('x2', x(0)).attr('y1', T - 6)
      .attr('y2', T + body + 6).attr('stroke', '#555');
    rows.forEach(function (r, i) {
      var y = tops[i] + 9, col = verdictColour(r.verdict);
      var a = svg.append('a').attr('class', 'kvb-forest-row').attr('href', '#' + r.href).attr('data-row', i);
      var tip = r.workload + ' ' + r.metric + (r.units ? ' (' + r.units + ')' : '') +
        (r.cls_full ? ' ' + r.cls_full : '') + '\n' + r.variant + ' against ' + p.baseline + ': ' +
        num(r.diff_pct, '+.2f') + ' % (95 % CI ' + num(r.same_ci95_lo, '+.2f') + ' .. ' + num(r.same_ci95_hi, '+.2f') +
        ' %, of the ' + (r.change_ci_of || '-') + '; same within \u00b1' + num(r.margin_pct, '.3~g') + ' %)\n' +
        'verdict ' + r.verdict + (r.unit ? ' (unit: ' + r.unit + ')' : '') + '\n' +
        'n ' + r.n + ' vs ' + (r.base_n === undefined ? '-' : r.base_n) + ', boots ' + r.boots + ' vs ' +
        (r.base_boots === undefined ? '-' : r.base_boots) + ', p ' + num(r.p, '.3~g') +
        ', Cliff\'s delta ' + num(r.cliffs_delta, '+.2f') + (r.cliffs_magnitude ? ' (' + r.cliffs_magnitude + ')' : '');
      a.append('title').text(tip);
      a.append('rect').attr('class', 'kvb-row-hit').attr('x', 0).attr('y', tops[i]).attr('width', width)
        .attr('height', hs[i]).attr('fill', i % 2 ? '#fafafa' : '#fff');
      if (r.margin_pct !== null && r.margin_pct !== undefined)
        a.append('rect').attr('class', 'kvb-margin').attr('x', x(-r.margin_pct)).attr('y', tops[i] + 2)
          .attr('width', x(r.margin_pct) - x(-r.margin_pct)).attr('height', 14).attr('fill', '#ddd')
          .attr('data-margin', r.margin_pct);
      var lo = r.same_ci95_lo, hi = r.same_ci95_hi, d = x.domain();
      /* no whisker without a CI (n<2, untested), a dashed one across when it is unbounded (undecided) */
      if (r.diff_pct !== null && (lo !== null || hi !== null || /^undecided/.test(r.verdict))) {
        var open = lo === null || hi === null, cut = (lo !== null && lo < d[0]) || (hi !== null && hi > d[1]);
        a.append('line').attr('class', 'kvb-whisker' + (open ? ' open' : '') + (cut ? ' clipped' : ''))
          .attr('x1', x(lo === null ? d[0] : Math.max(lo, d[0]))).attr('x2', x(hi === null ? d[1] : Math.min(hi, d[1])))
          .attr('y1', y).attr('y2', y)
          .attr('stroke', col).attr('stroke-width', 2).attr('stroke-dasharray', open ? '3,2' : null)
          .attr('data-lo', lo === null ? '' : lo).attr('data-hi', hi === null ? '' : hi);
      }
      if (r.diff_pct !== null)
        a.append('circle').attr('class', 'kvb-forest-mark').attr('cx', x(r.diff_pct)).attr('cy', y).attr('r', 4)
          .attr('fill', col).attr('data-pct', r.diff_pct).attr('data-verdict', r.verdict);
      lines(a.append('text').attr('class', 'kvb-row-label').attr('x', 8).attr('y', y + 4), labels[i], 8, LH);
      lines(a.append('text').attr('class', 'kvb-row-value').attr('x', L + w + 8).attr('y', y + 4).attr('fill', col),
        values[i], L + w + 8, LH);
    });
  };

  kinds.scatter = function (fig, p, lib) {
    var f = lib.frame(fig, p);
    var xs = [], ys = [];
    p.points.forEach(function (q) { xs.push(q.x, q.xlo, q.xhi); ys.push(q.y, q.ylo, q.yhi); });
    var x = d3.scaleLinear().domain(lib.padded(d3.extent(xs))).nice().range([0, f.w]);
    var y = d3.scaleLinear().domain(lib.padded(d3.extent(ys))).nice().range([f.h, 0]);
    lib.axes(f, x, y, p);
    p.points.forEach(function (q) {
      var c = lib.colour(q.name);
      f.g.append('line').attr('class', 'kvb-ci').attr('x1', x(q.xlo)).attr('x2', x(q.xhi)).attr('y1', y(q.y))
        .attr('y2', y(q.y)).attr('stroke', c);
      f.g.append('line').attr('class', 'kvb-ci').attr('x1', x(q.x)).attr('x2', x(q.x)).attr('y1', y(q.ylo))
        .attr('y2', y(q.yhi)).attr('stroke', c);
      f.g.append('circle').attr('class', 'kvb-mark').attr('r', 4).attr('cx', x(q.x)).attr('cy', y(q.y)).attr('fill', c)
        .append('title').text(q.name + ': ' + p.x + ' ' + q.x + ' (95 % CI ' + q.xlo + ' .. ' + q.xhi + '), ' + p.y +
          ' ' + q.y + ' (95 % CI ' + q.ylo + ' .. ' + q.yhi + ')');
    });
    lib.legend(f, p.points.map(function (q) { return q.name; }));
  };

  kinds.along = function (fig, p, lib) {
    var f = lib.frame(fig, p);
    var xs = p.xorder || [].concat.apply([], p.series.map(function (s) { return s.x; }));
    var ys = [].concat.apply([], p.series.map(function (s) { return s.y; }));
    var x = d3.scalePoint().domain(xs.filter(function (v, i) { return xs.indexOf(v) === i; })).range([0, f.w]).padding(0.5);
    var y = d3.scaleLinear().domain(lib.padded(d3.extent(ys))).nice().range([f.h, 0]);
    lib.axes(f, x, y, p);
    (p.changes || []).forEach(function (c) {
      var at = x(c) - x.step() / 2;
      f.g.append('line').attr('class', 'kvb-change').attr('x1', at).attr('x2', at).attr('y1', 0).attr('y2', f.h)
        .attr('stroke', '#c00').attr('stroke-dasharray', '5,3').attr('data-x', c)
        .append('title').text('shift at ' + ((p.xfull && p.xfull[c]) || c));
    });
    p.series.forEach(function (s) {
      s.y.forEach(function (v, i) {
        f.g.append('circle').attr('class', 'kvb-mark').attr('r', 3).attr('cx', x(s.x[i]) + ((i * 7) % 5 - 2))
          .attr('cy', y(v)).attr('fill', lib.colour(s.name))
          .append('title').text(((p.xfull && p.xfull[s.x[i]]) || s.x[i]) + ': ' + v);
      });
    });
    lib.legend(f, p.series.map(function (s) { return s.name; }));
  };

  /* A link to a plot inside a closed <details> opens it first. */
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest && ev.target.closest('a[href^="#"]');
    if (!a) return;
    var t = document.getElementById((a.getAttribute('href') || '').slice(1));
    for (var e = t; e; e = e.parentElement) if (e.tagName === 'DETAILS') e.open = true;
  });
})();
