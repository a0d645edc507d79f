/*
 * kvbench report plots, drawn with d3 (Debian node-d3, inlined in the page
 * before this script). Every <figure class="kvb-plot"> holds a
 * <script type="application/json"> plot spec written by src/report/report.c:
 *   dotbox : {groups: [{name, values[], boots[]}]}  a box (quartiles, 1.5 IQR
 *            whiskers) per group with every value as a dot coloured by boot
 *   cdf    : {series: [{name, values[]}]}  empirical CDF per series
 *   lines  : {series: [{name, t[], y[], lo[], hi[]}]}  y over t with a lo..hi band
 *   stack  : {bars: [{name, parts: [{name, value}]}]}  stacked bars (frequency residency, %)
 *   along  : {series: [{name, x[], y[]}]}  a metric along commits (series/bisect runs)
 * Data marks carry class kvb-mark (one circle per value, one rect per stacked
 * part, or one path whose vertices are the points) so a test can count them
 * against the spec.
 */
(function () {
  'use strict';
  var W = 560, H = 300, M = { t: 30, r: 110, b: 42, l: 64 };
  var colour = d3.scaleOrdinal(d3.schemeCategory10);

  function frame(fig, p) {
    var svg = d3.select(fig).insert('svg', 'figcaption').attr('class', 'kvb-svg')
      .attr('width', W).attr('height', H).attr('role', 'img').attr('aria-label', p.title || '');
    svg.append('text').attr('class', 'title').attr('x', M.l).attr('y', 16).text(p.title || '');
    return { svg: svg, g: svg.append('g').attr('transform', 'translate(' + M.l + ',' + M.t + ')'),
             w: W - M.l - M.r, h: H - M.t - M.b };
  }

  function axes(f, x, y, p) {
    f.g.append('g').attr('class', 'x axis').attr('transform', 'translate(0,' + f.h + ')').call(d3.axisBottom(x).ticks(8));
    f.g.append('g').attr('class', 'y axis').call(d3.axisLeft(y).ticks(6));
    f.g.append('text').attr('x', f.w / 2).attr('y', f.h + 34).attr('text-anchor', 'middle').text(p.x || '');
    f.g.append('text').attr('transform', 'rotate(-90)').attr('x', -f.h / 2).attr('y', -50)
      .attr('text-anchor', 'middle').text(p.y || '');
  }

  function legend(f, names, title) {
    var l = f.svg.append('g').attr('class', 'legend').attr('transform', 'translate(' + (W - M.r + 12) + ',' + M.t + ')');
    if (title) l.append('text').attr('y', 0).text(title);
    names.forEach(function (n, i) {
      l.append('rect').attr('y', 8 + i * 14).attr('width', 10).attr('height', 10).attr('fill', colour(n));
      l.append('text').attr('x', 14).attr('y', 17 + i * 14).text(n);
    });
  }

  function padded(ext) {
    if (ext[0] === ext[1]) return [ext[0] - 1, ext[1] + 1];
    return ext;
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

  function cdf(fig, p) {
    var f = frame(fig, p);
    var all = [].concat.apply([], p.series.map(function (s) { return s.values; }));
    var x = d3.scaleLinear().domain(padded(d3.extent(all))).nice().range([0, f.w]);
    var y = d3.scaleLinear().domain([0, 1]).range([f.h, 0]);
    axes(f, x, y, p);
    p.series.forEach(function (s) {
      var v = s.values.slice().sort(d3.ascending), n = v.length;
      pathOf(f, v.map(function (x, i) { return [x, (i + 1) / n]; }), s.name, x, y);
    });
    legend(f, p.series.map(function (s) { return s.name; }));
  }

  function lines(fig, p) {
    var f = frame(fig, p);
    var ts = [].concat.apply([], p.series.map(function (s) { return s.t; }));
    var ys = [].concat.apply([], p.series.map(function (s) { return (s.lo || s.y).concat(s.hi || s.y); }));
    var x = d3.scaleLinear().domain(padded(d3.extent(ts))).range([0, f.w]);
    var y = d3.scaleLinear().domain(padded(d3.extent(ys))).nice().range([f.h, 0]);
    axes(f, x, y, p);
    p.series.forEach(function (s) {
      if (s.lo && s.hi)
        f.g.append('path').attr('class', 'band').attr('fill', colour(s.name)).attr('fill-opacity', 0.2)
          .attr('d', d3.area().x(function (i) { return x(s.t[i]); }).y0(function (i) { return y(s.lo[i]); })
            .y1(function (i) { return y(s.hi[i]); })(d3.range(s.t.length)));
      pathOf(f, s.t.map(function (t, i) { return [t, s.y[i]]; }), s.name, x, y);
    });
    legend(f, p.series.map(function (s) { return s.name; }));
  }

  function along(fig, p) {
    var f = frame(fig, p);
    var xs = [].concat.apply([], p.series.map(function (s) { return s.x; }));
    var ys = [].concat.apply([], p.series.map(function (s) { return s.y; }));
    var x = d3.scalePoint().domain(xs.filter(function (v, i) { return xs.indexOf(v) === i; })).range([0, f.w]).padding(0.5);
    var y = d3.scaleLinear().domain(padded(d3.extent(ys))).nice().range([f.h, 0]);
    axes(f, x, y, p);
    p.series.forEach(function (s) {
      s.y.forEach(function (v, i) {
        f.g.append('circle').attr('class', 'kvb-mark').attr('r', 3).attr('cx', x(s.x[i])).attr('cy', y(v))
          .attr('fill', colour(s.name));
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

  var kinds = { dotbox: dotbox, cdf: cdf, lines: lines, along: along, stack: stack };
  var drawn = 0;
  document.querySelectorAll('figure.kvb-plot').forEach(function (fig) {
    var p = JSON.parse(fig.querySelector('script[type="application/json"]').textContent);
    kinds[p.kind](fig, p);
    fig.setAttribute('data-drawn', 'yes');
    drawn++;
  });
  document.body.setAttribute('data-plots-drawn', String(drawn));
})();
