/*
 * kvbench report plots, drawn with d3 (Debian node-d3, inlined in the page
 * before this script). Every <figure class="kvb-plot"> holds a
 * <script type="application/json"> plot spec written by src/report/page*.c, plot_*.c:
 *   dotbox : {groups: [{name, values[], boots[]}]}  a box (quartiles, 1.5 IQR
 *            whiskers) per group with every value as a dot coloured by boot
 *   cdf    : {series: [{name, values[]}], xlog?, vline?: {x, label}}  empirical CDF per
 *            series; xlog: log x axis (latency tails); vline: a threshold (16.7 ms)
 *   lines  : {series: [{name, t[], y[], lo[], hi[]}], points?}  y over t with a lo..hi band
 *   stack  : {bars: [{name, parts: [{name, value}]}]}  stacked bars (frequency residency, %)
 * and, from forest.js (registered in window.kvbKinds before this runs): forest, scatter, along.
 * Data marks carry class kvb-mark (one circle per value, one rect per stacked
 * part, or one path whose vertices are the points) so a test can count them
 * against the spec. Every text is fitted to the room it has (measured on a
 * canvas, so plots inside closed <details> fit too): cut with "…" and the whole
 * text in a <title> tooltip. Axes use d3's nice domains and SI ticks ("-90k")
 * spaced by the width their labels need; a plot's y range holds every value
 * and band with 5 % to spare, so no line lies on the frame.
 */
(function () {
  'use strict';
  var W = 560, H = 300, M = { t: 30, r: 110, b: 42, l: 64 };
  var colour = d3.scaleOrdinal(d3.schemeCategory10);
  var canvas = document.createElement('canvas').getContext('2d');

  function textWidth(s, font) {
    canvas.font = font || '10px sans-serif';
    return canvas.measureText(String(s)).width;
  }

  /* Sets text of the d3 selection sel, cut to maxw px with a <title> holding the whole of it (or of tip). */
  function fit(sel, s, maxw, font, tip) {
    s = String(s == null ? '' : s);
    var t = s;
    if (textWidth(s, font) > maxw) {
      var lo = 0, hi = s.length;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (textWidth(s.slice(0, mid) + '\u2026', font) <= maxw) lo = mid; else hi = mid - 1;
      }
      t = s.slice(0, lo) + '\u2026';
    }
    sel.text(t);
    if (t !== s || tip) sel.append('title').text(tip || s);
    return sel;
  }

  function frame(fig, p, w, h) {
    var width = w || W, height = h || H;
    var svg = d3.select(fig).insert('svg', 'figcaption').attr('class', 'kvb-svg')
      .attr('width', width).attr('height', height).attr('role', 'img').attr('aria-label', p.title || '');
    fit(svg.append('text').attr('class', 'title').attr('x', 8).attr('y', 16), p.title || '', width - 16,
      'bold 12px sans-serif', p.tip);
    var f = { svg: svg, g: svg.append('g').attr('transform', 'translate(' + M.l + ',' + M.t + ')'),
              w: width - M.l - M.r, h: height - M.t - M.b, W: width, H: height };
    f.g.append('rect').attr('class', 'kvb-frame').attr('width', f.w).attr('height', f.h)
      .attr('fill', 'none').attr('stroke', 'none');
    return f;
  }

  /* Tick labels: SI prefixes for large values (-90k, not -90,000), else d3's own. */
  function tickFormat(scale, n) {
    var d = scale.domain(), m = d3.max(d, function (v) { return Math.abs(v); });
    return m >= 1e4 ? d3.format('~s') : scale.tickFormat(n);
  }

  /* A linear axis with as many ticks as labels fit in len px. */
  function linearAxis(axis, scale, len, vertical) {
    var n = Math.max(2, Math.floor(len / (vertical ? 40 : 70)));
    for (; n >= 2; n--) {
      var ticks = scale.ticks(n), fmt = tickFormat(scale, n);
      var widest = d3.max(ticks, function (v) { return textWidth(fmt(v)); }) || 0;
      var room = len / Math.max(1, ticks.length);
      if (vertical || widest + 8 <= room || n === 2) return axis(scale).ticks(n).tickFormat(fmt);
    }
    return axis(scale).ticks(2);
  }

  function logAxis(axis, scale, len) {
    var n = Math.max(2, Math.floor(len / 70));
    var fmt = scale.tickFormat(n, '~s'), ticks = scale.ticks(n).filter(function (v) { return fmt(v) !== ''; });
    var keep = [], last = -Infinity;
    ticks.forEach(function (v) {  /* drop labels that would run into the previous one */
      var x = scale(v), wdt = textWidth(fmt(v));
      if (x - wdt / 2 > last + 6) { keep.push(v); last = x + wdt / 2; }
    });
    return axis(scale).tickValues(keep).tickFormat(fmt);
  }

  /* Band or point scale: every label fitted to its step. */
  function ordinalAxis(g, scale, full) {
    var step = scale.step ? scale.step() : scale.bandwidth();
    g.selectAll('.tick text').each(function (d) {
      var t = d3.select(this);
      t.text('');
      fit(t, d, Math.max(12, step - 4), '10px sans-serif', full && full[d]);
    });
  }

  function axes(f, x, y, p) {
    var gx = f.g.append('g').attr('class', 'x axis').attr('transform', 'translate(0,' + f.h + ')');
    if (x.bandwidth) { gx.call(d3.axisBottom(x)); ordinalAxis(gx, x, p.xfull); }
    else if (p.xlog) gx.call(logAxis(d3.axisBottom, x, f.w));
    else gx.call(linearAxis(d3.axisBottom, x, f.w, false));
    f.g.append('g').attr('class', 'y axis').call(linearAxis(d3.axisLeft, y, f.h, true));
    fit(f.g.append('text').attr('class', 'axis-label').attr('x', f.w / 2).attr('y', f.h + 34)
      .attr('text-anchor', 'middle'), p.x || '', f.w);
    fit(f.g.append('text').attr('class', 'axis-label').attr('transform', 'rotate(-90)').attr('x', -f.h / 2)
      .attr('y', -50).attr('text-anchor', 'middle'), p.y || '', f.h);
  }

  function legend(f, names, title) {
    var l = f.svg.append('g').attr('class', 'legend').attr('transform', 'translate(' + (f.W - M.r + 12) + ',' + M.t + ')');
    var room = M.r - 12 - 14 - 4, rows = Math.max(1, Math.floor((f.h - 8) / 14));
    if (title) fit(l.append('text').attr('y', 0), title, room + 14);
    var shown = names.length > rows ? names.slice(0, rows - 1) : names;
    shown.forEach(function (n, i) {
      l.append('rect').attr('y', 8 + i * 14).attr('width', 10).attr('height', 10).attr('fill', colour(n));
      fit(l.append('text').attr('x', 14).attr('y', 17 + i * 14), n, room);
    });
    if (shown.length < names.length)
      fit(l.append('text').attr('x', 14).attr('y', 17 + shown.length * 14), '+' + (names.length - shown.length) + ' more',
        room).append('title').text(names.slice(shown.length).join(', '));
  }

  /* An extent with 5 % to spare each side (a constant: 5 % of its size), so no mark lies on the frame. */
  function padded(ext) {
    var lo = ext[0], hi = ext[1];
    if (lo === undefined || lo === null) return [0, 1];
    var d = hi - lo;
    if (d === 0) d = Math.abs(lo) || 1;
    return [lo - d * 0.05, hi + d * 0.05];
  }

  function dotbox(fig, p) {
    var f = frame(fig, p);
    var names = p.groups.map(function (g) { return g.name; });
    var all = [].concat.apply([], p.groups.map(function (g) { return g.values; }));
    var x = d3.scaleBand().domain(names).range([0, f.w]).padding(0.3);
    var y = d3.scaleLinear().domain(padded(d3.extent(all))).nice().range([f.h, 0]);
    var boots = [];
    axes(f, x, y, p);
    p.groups.forEach(function (g) {
      var s = g.values.slice().sort(d3.ascending), bw = x.bandwidth(), x0 = x(g.name);
      var q1 = d3.quantile(s, 0.25), med = d3.quantile(s, 0.5), q3 = d3.quantile(s, 0.75), iqr = q3 - q1;
      var lo = d3.min(s.filter(function (v) { return v >= q1 - 1.5 * iqr; }));
      var hi = d3.max(s.filter(function (v) { return v <= q3 + 1.5 * iqr; }));
      var b = f.g.append('g').attr('class', 'box');
      b.append('line').attr('class', 'whisker').attr('x1', x0 + bw / 2).attr('x2', x0 + bw / 2)
        .attr('y1', y(lo)).attr('y2', y(hi)).attr('stroke', '#888');
      b.append('rect').attr('class', 'kvb-box').attr('x', x0).attr('width', bw)
        .attr('y', y(q3)).attr('height', Math.max(1, y(q1) - y(q3))).attr('fill', '#f4f4f4').attr('stroke', '#888')
        .attr('data-group', g.name).attr('data-q1', q1).attr('data-median', med).attr('data-q3', q3)
        .attr('data-whisker-lo', lo).attr('data-whisker-hi', hi);
      b.append('line').attr('class', 'median').attr('x1', x0).attr('x2', x0 + bw)
        .attr('y1', y(med)).attr('y2', y(med)).attr('stroke', '#333').attr('stroke-width', 2);
      g.values.forEach(function (v, i) {
        var boot = String(g.boots ? g.boots[i] : 1);
        if (boots.indexOf(boot) < 0) boots.push(boot);
        f.g.append('circle').attr('class', 'kvb-mark').attr('r', 3)
          .attr('cx', x0 + bw / 2 + ((i * 7) % 11 - 5) / 11 * bw * 0.7).attr('cy', y(v))
          .attr('fill', colour('boot ' + boot)).attr('fill-opacity', 0.8)
          .append('title').text(g.name + ' boot ' + boot + ': ' + v);
      });
    });
    legend(f, boots.map(function (b) { return 'boot ' + b; }));
  }

  function pathOf(f, pts, name, x, y) {
    f.g.append('path').attr('class', 'kvb-mark kvb-line').attr('fill', 'none').attr('stroke', colour(name))
      .attr('stroke-width', 1.5).attr('data-series', name)
      .attr('d', d3.line().x(function (d) { return x(d[0]); }).y(function (d) { return y(d[1]); })(pts));
  }

  /* A vertical threshold line across the plot with its label at the top. */
  function vline(f, x, v) {
    if (!v) return;
    var d = x.domain(), at = x(v.x);
    if (!(v.x >= d3.min(d) && v.x <= d3.max(d))) return;
    f.g.append('line').attr('class', 'kvb-vline').attr('x1', at).attr('x2', at).attr('y1', 0).attr('y2', f.h)
      .attr('stroke', '#c00').attr('stroke-dasharray', '4,3').attr('data-x', v.x);
    var left = at > f.w / 2;
    fit(f.g.append('text').attr('class', 'kvb-vline-label').attr('x', left ? at - 4 : at + 4).attr('y', 10)
      .attr('text-anchor', left ? 'end' : 'start').attr('fill', '#c00'), v.label || String(v.x),
      left ? at - 8 : f.w - at - 8);
  }

  function cdf(fig, p) {
    var f = frame(fig, p);
    var all = [].concat.apply([], p.series.map(function (s) { return s.values; }));
    var x;
    if (p.xlog) {
      var pos = all.filter(function (v) { return v > 0; }), ext = d3.extent(pos.length ? pos : [1, 10]);
      if (ext[0] === ext[1]) ext = [ext[0] / 2, ext[1] * 2];
      x = d3.scaleLog().domain(ext).nice().clamp(true).range([0, f.w]);
    } else {
      var e = d3.extent(all);
      if (p.vline) e = d3.extent(e.concat([p.vline.x]));
      x = d3.scaleLinear().domain(padded(e)).nice().range([0, f.w]);
    }
    var y = d3.scaleLinear().domain([0, 1]).range([f.h, 0]);
    axes(f, x, y, p);
    vline(f, x, p.vline);
    p.series.forEach(function (s) {
      var v = s.values.slice().sort(d3.ascending), n = v.length;
      pathOf(f, v.map(function (x, i) { return [x, (i + 1) / n]; }), s.name, x, y);
    });
    legend(f, p.series.map(function (s) { return s.name; }));
  }

  function lines(fig, p) {
    var f = frame(fig, p);
    var ts = [].concat.apply([], p.series.map(function (s) { return s.t; }));
    var ys = [].concat.apply([], p.series.map(function (s) { return (s.lo || s.y).concat(s.hi || s.y, s.y); }));
    var x = d3.scaleLinear().domain(p.points ? padded(d3.extent(ts)) : d3.extent(ts).map(Number)).range([0, f.w]);
    if (x.domain()[0] === x.domain()[1]) x.domain(padded(x.domain()));
    var y = d3.scaleLinear().domain(padded(d3.extent(ys))).nice().range([f.h, 0]);
    axes(f, x, y, p);
    p.series.forEach(function (s) {
      if (s.lo && s.hi)
        f.g.append('path').attr('class', 'band').attr('fill', colour(s.name)).attr('fill-opacity', 0.2)
          .attr('d', d3.area().x(function (i) { return x(s.t[i]); }).y0(function (i) { return y(s.lo[i]); })
            .y1(function (i) { return y(s.hi[i]); })(d3.range(s.t.length)));
      pathOf(f, s.t.map(function (t, i) { return [t, s.y[i]]; }), s.name, x, y);
      if (p.points)
        s.t.forEach(function (t, i) {
          f.g.append('circle').attr('class', 'kvb-point').attr('r', 2.5).attr('cx', x(t)).attr('cy', y(s.y[i]))
            .attr('fill', colour(s.name)).append('title')
            .text(s.name + ' at ' + t + ': ' + s.y[i] + (s.lo ? ' (95 % CI ' + s.lo[i] + ' .. ' + s.hi[i] + ')' : ''));
        });
    });
    legend(f, p.series.map(function (s) { return s.name; }));
  }

  function stack(fig, p) {
    var f = frame(fig, p);
    var x = d3.scaleBand().domain(p.bars.map(function (b) { return b.name; })).range([0, f.w]).padding(0.3);
    var top = d3.max(p.bars, function (b) { return d3.sum(b.parts, function (q) { return q.value; }); });
    var y = d3.scaleLinear().domain([0, Math.max(100, top)]).range([f.h, 0]);
    var names = [];
    axes(f, x, y, p);
    p.bars.forEach(function (b) {
      var acc = 0;
      b.parts.forEach(function (q) {
        if (names.indexOf(q.name) < 0) names.push(q.name);
        f.g.append('rect').attr('class', 'kvb-mark').attr('x', x(b.name)).attr('width', x.bandwidth())
          .attr('y', y(acc + q.value)).attr('height', Math.max(0, y(acc) - y(acc + q.value)))
          .attr('fill', colour(q.name)).attr('data-part', q.name).attr('data-value', q.value)
          .append('title').text(b.name + ' ' + q.name + ': ' + q.value);
        acc += q.value;
      });
    });
    legend(f, names);
  }

  var lib = { W: W, H: H, M: M, colour: colour, fit: fit, textWidth: textWidth, frame: frame, axes: axes,
              legend: legend, padded: padded, linearAxis: linearAxis };
  var kinds = { dotbox: dotbox, cdf: cdf, lines: lines, stack: stack };
  var extra = window.kvbKinds || {};
  Object.keys(extra).forEach(function (k) { kinds[k] = extra[k]; });
  var drawn = 0;
  document.querySelectorAll('figure.kvb-plot').forEach(function (fig) {
    var p = JSON.parse(fig.querySelector('script[type="application/json"]').textContent);
    kinds[p.kind](fig, p, lib);
    fig.setAttribute('data-drawn', 'yes');
    drawn++;
  });
  document.body.setAttribute('data-plots-drawn', String(drawn));
})();
