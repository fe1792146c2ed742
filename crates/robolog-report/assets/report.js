// The report page: reads the JSON in #report-data and draws it. Times in
// the data are integer nanoseconds from each log's start (its first
// message, or the start of the time range shown); every time axis shows
// seconds from that start, and all of them share one view (zoom and pan in
// any plot or timeline moves them all).
(function () {
  'use strict';
  var errors = [];
  function recordError(text) {
    errors.push(text);
    var box = document.getElementById('errors');
    if (box) { box.textContent = errors.join('\n'); }
    document.body.setAttribute('data-errors', String(errors.length));
  }
  window.addEventListener('error', function (e) { recordError('error: ' + e.message); });
  var consoleError = console.error;
  console.error = function () {
    recordError('console: ' + Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };

  var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
  var BAND_COLORS = ['#e3f2fd', '#fff3e0', '#e8f5e9', '#fce4ec', '#ede7f6', '#e0f7fa', '#fffde7', '#efebe9', '#f1f8e9', '#fbe9e7'];
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var app = document.getElementById('app');
  var many = data.logs.length > 1;
  // Past these, channels are listed (with a filter) and drawn when opened,
  // and tables and timelines show the first rows.
  var MANY_CHANNELS = 200, MAX_ROWS = 300;
  // What the data leaves out when empty; infinities, written as strings.
  function numeric(v) { return v === 'Infinity' ? Infinity : (v === '-Infinity' ? -Infinity : v); }
  data.logs.forEach(function (log) {
    log.buckets = log.buckets || 400;
    log.channels_omitted = log.channels_omitted || 0;
    log.strips = log.strips || []; log.clouds = log.clouds || [];
    log.channels.forEach(function (ch) {
      ch.density = ch.density || []; ch.gaps = ch.gaps || []; ch.jumps = ch.jumps || [];
      ch.series = ch.series || []; ch.skipped = ch.skipped || 0;
    });
  });

  function el(tag, attrs) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === 'text') { e.textContent = attrs[k]; } else if (k === 'cls') { e.className = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) { continue; }
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  function secs(ns) { return ns / 1e9; }
  function fmtSecs(s) {
    var a = Math.abs(s);
    if (a >= 3600) { return (s / 3600).toFixed(2) + ' h'; }
    if (a >= 100) { return s.toFixed(1) + ' s'; }
    if (a >= 1) { return s.toFixed(3) + ' s'; }
    return (s * 1000).toFixed(3) + ' ms';
  }
  function fmtBytes(n) {
    var u = ['B', 'kB', 'MB', 'GB', 'TB'], i = 0;
    while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
    return (i ? n.toFixed(1) : String(n)) + ' ' + u[i];
  }
  function fmtNum(v) {
    if (v === null || v === undefined) { return '-'; }
    if (v === Infinity) { return '+inf'; }
    if (v === -Infinity) { return '-inf'; }
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) { return v.toExponential(4); }
    return String(Math.round(v * 1e6) / 1e6);
  }
  // Round tick values between lo and hi, about n of them, with their
  // labels (as many decimals as the step needs).
  function niceTicks(lo, hi, n) {
    var span = hi - lo;
    if (!(span > 0)) { return [{ v: lo, s: fmtNum(lo) }]; }
    if (!isFinite(span)) { return [lo, lo / 2 + hi / 2, hi].map(function (v) { return { v: v, s: fmtNum(v) }; }); }
    var step = Math.pow(10, Math.floor(Math.log10(span / n)));
    var err = span / n / step;
    if (err >= 7.5) { step *= 10; } else if (err >= 3.5) { step *= 5; } else if (err >= 1.5) { step *= 2; }
    var decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    var big = Math.max(Math.abs(lo), Math.abs(hi)) >= 1e7;
    var out = [];
    for (var k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; k++) {
      var v = k * step;
      out.push({ v: v, s: big ? v.toExponential(2) : (Math.abs(v) < step / 2 ? '0' : v.toFixed(Math.min(decimals, 12))) });
    }
    return out;
  }
  // The value axis of a plot, padded by 5%: the range of every value,
  // unless a few extremes would squeeze the others into a sliver of the
  // plot (beyond OUTLIER times their span or size; with fewer than 20
  // values, a million times) or the span overflows.
  // Then the range of the values without the 1% (at least one) smallest
  // and largest, and the values beyond are drawn at the edge, marked with
  // their value. `vals`: finite numbers.
  var OUTLIER = 20;
  function yRange(vals) {
    var n = vals.length, lo = Infinity, hi = -Infinity;
    for (var i = 0; i < n; i++) { if (vals[i] < lo) { lo = vals[i]; } if (vals[i] > hi) { hi = vals[i]; } }
    if (!n) { return { lo: 0, hi: 1, clipped: false }; }
    var clipped = false;
    if (n >= 3) {
      var s = Float64Array.from(vals).sort();
      var k = Math.max(1, Math.floor(n * 0.01)), qlo = s[k], qhi = s[n - 1 - k];
      var scale = Math.max(qhi - qlo, Math.abs(qlo), Math.abs(qhi));
      var overflow = !isFinite(hi - lo), far = (n >= 20 ? OUTLIER : 1e6) * scale;
      var cutLo = scale > 0 ? !(qlo - lo <= far) : overflow;
      var cutHi = scale > 0 ? !(hi - qhi <= far) : overflow;
      if (cutLo) { lo = qlo; clipped = true; }
      if (cutHi) { hi = qhi; clipped = true; }
    }
    if (lo === hi) { var w = Math.abs(lo) * 0.05 || 0.5; lo -= w; hi += w; }
    var pad = (hi / 2 - lo / 2) * 0.1;
    return { lo: Math.max(-Number.MAX_VALUE, lo - pad), hi: Math.min(Number.MAX_VALUE, hi + pad), clipped: clipped };
  }
  // The first index with t[i] >= x.
  function lowerBound(t, x) {
    var lo = 0, hi = t.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (t[m] < x) { lo = m + 1; } else { hi = m; } }
    return lo;
  }

  // The shared view, in seconds from each log's start.
  var fullEnd = 0;
  data.logs.forEach(function (l) { fullEnd = Math.max(fullEnd, secs(l.duration)); });
  if (!(fullEnd > 0)) { fullEnd = 1; }
  var view = { x0: 0, x1: fullEnd };
  var drawables = [];
  var visible = new Set();
  // The drawable of each observed canvas.
  var drawableOf = new WeakMap();
  var observer = 'IntersectionObserver' in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      var d = drawableOf.get(e.target);
      if (!d) { return; }
      if (e.isIntersecting) { visible.add(d); if (d.dirty) { d.draw(); } } else { visible.delete(d); }
    });
  }, { rootMargin: '200px' }) : null;
  // Everything is drawn once at load; after a zoom or pan, only what is
  // on screen is drawn again, the rest when it scrolls into view.
  function register(d) {
    drawables.push(d);
    d.draw();
    if (observer) { drawableOf.set(d.canvas, d); observer.observe(d.canvas); }
  }
  var viewLabel;
  function setView(x0, x1) {
    var w = x1 - x0;
    if (!(w > 1e-9)) { return; }
    view.x0 = x0; view.x1 = x1;
    if (viewLabel) { viewLabel.textContent = 'view ' + fmtSecs(x0) + ' to ' + fmtSecs(x1); }
    drawables.forEach(function (d) {
      if (!d.linked) { return; }
      d.dirty = true;
      if (!observer || visible.has(d)) { d.draw(); }
    });
  }
  function sizeCanvas(canvas, h) {
    var w = canvas.parentNode.clientWidth || 800;
    var r = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * r); canvas.height = Math.round(h * r);
    canvas.style.height = h + 'px';
    var g = canvas.getContext('2d');
    g.setTransform(r, 0, 0, r, 0, 0);
    return { g: g, w: w, h: h };
  }
  // Zoom with the wheel, pan by dragging, reset with a double click, on
  // any time axis.
  function timeAxisEvents(canvas, left, right) {
    var drag = null;
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      var r = canvas.getBoundingClientRect();
      var f = Math.min(1, Math.max(0, (e.clientX - r.left - left) / (r.width - left - right)));
      var at = view.x0 + f * (view.x1 - view.x0);
      var k = e.deltaY > 0 ? 1.25 : 0.8;
      setView(at - (at - view.x0) * k, at + (view.x1 - at) * k);
    }, { passive: false });
    canvas.addEventListener('mousedown', function (e) { drag = { x: e.clientX, x0: view.x0, x1: view.x1 }; });
    window.addEventListener('mouseup', function () { drag = null; });
    window.addEventListener('mousemove', function (e) {
      if (!drag) { return; }
      var r = canvas.getBoundingClientRect();
      var dx = (e.clientX - drag.x) / (r.width - left - right) * (drag.x1 - drag.x0);
      setView(drag.x0 - dx, drag.x1 - dx);
    });
    canvas.addEventListener('dblclick', function () { setView(0, fullEnd); });
  }

  // A plot of series against time: {t: seconds, v: values, color, label, on}.
  function Plot(parent, title, sub, series, bands) {
    var self = this;
    this.series = series; this.bands = bands || []; this.linked = true;
    var box = el('div', { cls: 'panel plot' });
    var points = 0;
    series.forEach(function (s) { points += s.t.length; });
    box.setAttribute('data-points', String(points));
    box.setAttribute('data-series', String(series.length));
    box.appendChild(el('div', { cls: 'title', text: title }, sub ? el('span', { cls: 'sub', text: sub }) : null));
    this.canvas = el('canvas', { style: 'height:200px' });
    box.appendChild(this.canvas);
    var legend = el('div', { cls: 'legend' });
    series.forEach(function (s) {
      var cb = el('input', { type: 'checkbox' });
      cb.checked = s.on;
      cb.addEventListener('change', function () { s.on = cb.checked; self.draw(); });
      legend.appendChild(el('label', { title: s.count + ' values' + (s.reduced ? ', reduced per pixel column (extremes kept)' : '') },
        cb, el('span', { cls: 'sw', style: 'background:' + s.color }), s.label));
    });
    box.appendChild(legend);
    this.readout = el('div', { cls: 'readout' });
    box.appendChild(this.readout);
    parent.appendChild(box);
    this.L = 58; this.R = 10; this.T = 6; this.B = 20;
    timeAxisEvents(this.canvas, this.L, this.R);
    this.canvas.addEventListener('mousemove', function (e) { self.hover(e); });
    this.canvas.addEventListener('mouseleave', function () { self.readout.style.display = 'none'; });
    register(this);
  }
  Plot.prototype.draw = function () {
    this.dirty = false;
    var c = sizeCanvas(this.canvas, 200), g = c.g, L = this.L, R = this.R, T = this.T, B = this.B;
    var pw = c.w - L - R, ph = c.h - T - B, x0 = view.x0, x1 = view.x1;
    var vals = [];
    this.series.forEach(function (s) {
      if (!s.on) { return; }
      var a = Math.max(0, lowerBound(s.t, x0) - 1), b = Math.min(s.t.length, lowerBound(s.t, x1) + 1);
      for (var i = a; i < b; i++) { var v = s.v[i]; if (v !== null && isFinite(v)) { vals.push(v); } }
    });
    var range = yRange(vals), lo = range.lo, hi = range.hi;
    this.y0 = lo; this.y1 = hi;
    this.canvas.parentNode.setAttribute('data-y0', String(lo));
    this.canvas.parentNode.setAttribute('data-y1', String(hi));
    var X = function (t) { return L + (t - x0) / (x1 - x0) * pw; };
    // Halves: no overflow whatever the finite values; beyond the axis, at
    // its edge.
    var Y = function (v) {
      if (v > hi) { return T; }
      if (v < lo) { return T + ph; }
      return T + (1 - (v / 2 - lo / 2) / (hi / 2 - lo / 2)) * ph;
    };
    var beyond = [];
    g.clearRect(0, 0, c.w, c.h);
    this.bands.forEach(function (band) {
      band.spans.forEach(function (sp) {
        var a = Math.max(L, X(sp[0])), b = Math.min(L + pw, X(sp[1]));
        if (b > a) { g.fillStyle = band.colors[sp[2]]; g.fillRect(a, T, b - a, ph); }
      });
    });
    g.strokeStyle = '#d9dde5'; g.fillStyle = '#5b6475'; g.font = '11px sans-serif'; g.lineWidth = 1;
    niceTicks(lo, hi, 4).forEach(function (tk) {
      var y = Math.round(Y(tk.v)) + 0.5;
      g.beginPath(); g.moveTo(L, y); g.lineTo(L + pw, y); g.stroke();
      g.textAlign = 'right'; g.fillText(tk.s, L - 4, y + 3);
    });
    niceTicks(x0, x1, 8).forEach(function (tk) {
      var x = Math.round(X(tk.v)) + 0.5;
      g.beginPath(); g.moveTo(x, T); g.lineTo(x, T + ph); g.stroke();
      g.textAlign = 'center'; g.fillText(tk.s + ' s', x, c.h - 6);
    });
    g.save(); g.beginPath(); g.rect(L, T, pw, ph); g.clip();
    var drawn = 0;
    this.series.forEach(function (s) {
      if (!s.on) { return; }
      g.strokeStyle = s.color; g.lineWidth = 1.25; g.setLineDash(s.dash || []);
      var a = Math.max(0, lowerBound(s.t, x0) - 1), b = Math.min(s.t.length, lowerBound(s.t, x1) + 1);
      g.beginPath();
      var pen = false;
      for (var i = a; i < b; i++) {
        var v = s.v[i];
        if (v === null) { pen = false; continue; }
        var x = X(s.t[i]), y = Y(v);
        if (pen) { g.lineTo(x, y); } else { g.moveTo(x, y); pen = true; }
        if (!(v >= lo && v <= hi)) { beyond.push({ x: x, v: v, color: s.color }); }
        drawn++;
      }
      g.stroke();
      if (b - a <= 2) {
        for (var j = a; j < b; j++) { if (s.v[j] !== null) { g.fillStyle = s.color; g.fillRect(X(s.t[j]) - 2, Y(s.v[j]) - 2, 4, 4); } }
      }
    });
    // Values beyond the axis: a triangle at the edge pointing out, and
    // the value (the first few) beside it.
    beyond.forEach(function (p, k) {
      var up = p.v > hi, y = up ? T : T + ph;
      g.fillStyle = p.color; g.beginPath();
      g.moveTo(p.x, y); g.lineTo(p.x - 4, up ? y + 7 : y - 7); g.lineTo(p.x + 4, up ? y + 7 : y - 7); g.closePath(); g.fill();
      if (k < 12) {
        g.fillStyle = '#1d2330'; g.textAlign = p.x > L + pw - 80 ? 'right' : 'left';
        g.fillText(fmtNum(p.v), p.x + (g.textAlign === 'left' ? 6 : -6), up ? y + 10 : y - 3);
      }
    });
    g.restore(); g.setLineDash([]);
    this.canvas.parentNode.setAttribute('data-drawn', String(drawn));
    this.canvas.parentNode.setAttribute('data-beyond', String(beyond.length));
  };
  Plot.prototype.hover = function (e) {
    var r = this.canvas.getBoundingClientRect(), px = e.clientX - r.left;
    var pw = r.width - this.L - this.R;
    if (px < this.L || px > this.L + pw) { this.readout.style.display = 'none'; return; }
    var t = view.x0 + (px - this.L) / pw * (view.x1 - view.x0);
    var lines = ['t = ' + fmtSecs(t)];
    this.series.forEach(function (s) {
      if (!s.on || !s.t.length) { return; }
      var i = lowerBound(s.t, t);
      if (i > 0 && (i >= s.t.length || t - s.t[i - 1] < s.t[i] - t)) { i--; }
      lines.push(s.label + ': ' + fmtNum(s.v[i]) + '  (at ' + fmtSecs(s.t[i]) + ')');
    });
    this.readout.textContent = lines.join('\n');
    this.readout.style.display = 'block';
    this.readout.style.left = Math.min(px + 12, r.width - 220) + 'px';
    this.readout.style.top = (e.clientY - r.top + 24) + 'px';
  };

  // The timeline of a log: one row per channel, shaded by message density;
  // gaps in red, backward time steps as ticks, problems and bands on top.
  function Timeline(parent, log, li) {
    var self = this;
    this.log = log; this.linked = true;
    // The first MAX_ROWS channels.
    this.rows = log.channels.slice(0, MAX_ROWS);
    var box = el('div', { cls: 'panel timeline', 'data-channels': String(this.rows.length) });
    var more = log.channels.length + log.channels_omitted - this.rows.length;
    box.appendChild(el('div', { cls: 'title', text: 'Timeline' }, el('span', { cls: 'sub', text: 'message density per channel; red: gaps, black ticks: time going back, red triangles: problems' +
      (more > 0 ? '; the first ' + this.rows.length + ' channels of ' + (this.rows.length + more) : '') })));
    this.canvas = el('canvas');
    box.appendChild(this.canvas);
    this.readout = el('div', { cls: 'readout' });
    box.appendChild(this.readout);
    parent.appendChild(box);
    this.L = 200; this.R = 10; this.row = 14;
    this.bandRows = log.bands.length + (log.events.length ? 1 : 0); this.li = li;
    timeAxisEvents(this.canvas, this.L, this.R);
    this.canvas.addEventListener('mousemove', function (e) { self.hover(e); });
    this.canvas.addEventListener('mouseleave', function () { self.readout.style.display = 'none'; });
    register(this);
  }
  Timeline.prototype.draw = function () {
    this.dirty = false;
    var log = this.log, L = this.L, R = this.R, row = this.row, top = 14 + this.bandRows * row;
    var rows = this.rows, h = top + rows.length * row + 22;
    var c = sizeCanvas(this.canvas, h), g = c.g, pw = c.w - L - R, x0 = view.x0, x1 = view.x1, dur = secs(log.duration) || 1;
    var X = function (t) { return L + (t - x0) / (x1 - x0) * pw; };
    g.clearRect(0, 0, c.w, c.h);
    g.font = '11px sans-serif';
    log.bands.forEach(function (band, bi) {
      var y = 14 + bi * row;
      g.fillStyle = '#5b6475'; g.textAlign = 'right'; g.fillText(band.name, L - 6, y + 10);
      band.spans.forEach(function (sp) {
        var a = Math.max(L, X(secs(sp[0]))), b = Math.min(L + pw, X(secs(sp[1])));
        if (b > a) {
          g.fillStyle = band.colors[sp[2]]; g.fillRect(a, y, b - a, row - 2);
          if (b - a > 40) { g.fillStyle = '#1d2330'; g.textAlign = 'left'; g.fillText(sp[2], a + 3, y + 10); }
        }
      });
    });
    if (log.events.length) {
      var ey = 14 + log.bands.length * row;
      g.fillStyle = '#5b6475'; g.textAlign = 'right'; g.fillText('messages/events', L - 6, ey + 10);
      log.events.forEach(function (e) {
        var x = X(secs(e.t));
        if (x < L || x > L + pw) { return; }
        g.fillStyle = /ERROR|CRITICAL|ALERT|EMERGENCY|COLLISION/.test(e.level) ? '#c62828' : (e.level === 'WARNING' ? '#e69100' : '#1f77b4');
        g.fillRect(x - 1, ey, 3, row - 2);
      });
    }
    var n = log.buckets;
    rows.forEach(function (ch, i) {
      var y = top + i * row, max = 0;
      ch.density.forEach(function (d) { if (d > max) { max = d; } });
      g.fillStyle = '#1d2330'; g.textAlign = 'right';
      g.fillText(ch.label.length > 30 ? ch.label.slice(0, 29) + '\u2026' : ch.label, L - 6, y + 10);
      // Messages per bucket; -k: k empty buckets.
      var k = 0;
      ch.density.forEach(function (d) {
        if (d < 0) { k -= d; return; }
        var a = X(k / n * dur), b = X((k + 1) / n * dur);
        k++;
        if (!d || b < L || a > L + pw) { return; }
        a = Math.max(a, L); b = Math.min(b, L + pw);
        g.fillStyle = 'rgba(31,119,180,' + (0.25 + 0.75 * d / max).toFixed(3) + ')';
        g.fillRect(a, y + 1, Math.max(1, b - a), row - 3);
      });
      g.fillStyle = 'rgba(198,40,40,0.55)';
      ch.gaps.forEach(function (gp) {
        var a = Math.max(L, X(secs(gp[0]))), b = Math.min(L + pw, X(secs(gp[1])));
        if (b > a) { g.fillRect(a, y + row / 2 - 1, b - a, 3); }
      });
      g.fillStyle = '#000';
      ch.jumps.forEach(function (t) { var x = X(secs(t)); if (x >= L && x <= L + pw) { g.fillRect(x - 1, y, 2, row - 2); } });
    });
    g.fillStyle = '#c62828';
    log.problems.forEach(function (p) {
      if (p.t === null) { return; }
      var x = X(secs(p.t));
      if (x < L || x > L + pw) { return; }
      g.beginPath(); g.moveTo(x, 12); g.lineTo(x - 5, 2); g.lineTo(x + 5, 2); g.closePath(); g.fill();
    });
    g.fillStyle = '#5b6475'; g.textAlign = 'center'; g.strokeStyle = '#d9dde5';
    niceTicks(x0, x1, 8).forEach(function (tk) { g.fillText(tk.s + ' s', X(tk.v), h - 6); });
  };
  Timeline.prototype.hover = function (e) {
    var r = this.canvas.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
    var pw = r.width - this.L - this.R, top = 14 + this.bandRows * this.row;
    var i = Math.floor((py - top) / this.row), ch = this.rows[i];
    if (!ch || px < this.L) { this.readout.style.display = 'none'; return; }
    var t = view.x0 + (px - this.L) / pw * (view.x1 - view.x0);
    this.readout.textContent = ch.label + ' (' + ch.type + ')\n' + ch.count + ' messages; t = ' + fmtSecs(t) +
      (ch.gaps.length ? '\n' + ch.gaps.length + ' gaps' : '') + (ch.jumps.length ? '\n' + ch.jumps.length + ' times back' : '');
    this.readout.style.display = 'block';
    this.readout.style.left = Math.min(px + 12, r.width - 220) + 'px';
    this.readout.style.top = (py + 16) + 'px';
  };

  // Positions from above: tracks (lat/lon), paths and scenes, with equal
  // scales on both axes; a scene has a slider that places its objects at
  // a time.
  function MapView(parent, title, cls, lines, geo, slider) {
    var self = this;
    this.lines = lines; this.geo = geo; this.linked = false; this.at = null;
    var box = el('div', { cls: 'panel map ' + cls });
    var points = 0;
    lines.forEach(function (l) { points += l.t.length; });
    box.setAttribute('data-points', String(points));
    box.setAttribute('data-objects', String(lines.length));
    box.appendChild(el('div', { cls: 'title', text: title }, el('span', { cls: 'sub', text: geo ? 'latitude/longitude, north up' : 'x/y, seen from above' })));
    this.canvas = el('canvas', { style: 'height:360px' });
    box.appendChild(this.canvas);
    if (slider) {
      var range = el('input', { type: 'range', min: '0', max: '1000', value: '1000' });
      var label = el('span', { cls: 'hint' });
      range.addEventListener('input', function () {
        self.at = range.value / 1000 * slider; label.textContent = 't = ' + fmtSecs(self.at); self.draw();
      });
      box.appendChild(range); box.appendChild(label);
    }
    parent.appendChild(box);
    register(this);
  }
  MapView.prototype.draw = function () {
    this.dirty = false;
    var c = sizeCanvas(this.canvas, 360), g = c.g, geo = this.geo, at = this.at;
    var minx = Infinity, maxx = -Infinity, miny = Infinity, maxy = -Infinity;
    var k = 1;
    if (geo) {
      var lat = 0, n = 0;
      this.lines.forEach(function (l) { l.a.forEach(function (v) { lat += v; n++; }); });
      k = Math.cos((n ? lat / n : 0) * Math.PI / 180);
    }
    var P = function (l, i) { return geo ? [l.b[i] * k, l.a[i]] : [l.a[i], l.b[i]]; };
    this.lines.forEach(function (l) {
      for (var i = 0; i < l.t.length; i++) {
        var p = P(l, i);
        if (p[0] < minx) { minx = p[0]; } if (p[0] > maxx) { maxx = p[0]; }
        if (p[1] < miny) { miny = p[1]; } if (p[1] > maxy) { maxy = p[1]; }
      }
    });
    g.clearRect(0, 0, c.w, c.h);
    if (minx === Infinity) { return; }
    var span = Math.max(maxx - minx, maxy - miny) || 1, m = 12;
    var s = Math.min((c.w - 2 * m) / span, (c.h - 2 * m) / span);
    var ox = (c.w - (maxx - minx) * s) / 2, oy = (c.h - (maxy - miny) * s) / 2;
    var X = function (x) { return ox + (x - minx) * s; }, Y = function (y) { return c.h - oy - (y - miny) * s; };
    this.lines.forEach(function (l, li) {
      g.strokeStyle = l.color || COLORS[li % COLORS.length]; g.lineWidth = at === null ? 1.5 : 1;
      g.globalAlpha = at === null ? 1 : 0.35;
      g.beginPath();
      for (var i = 0; i < l.t.length; i++) { var p = P(l, i); if (i) { g.lineTo(X(p[0]), Y(p[1])); } else { g.moveTo(X(p[0]), Y(p[1])); } }
      g.stroke(); g.globalAlpha = 1;
      if (at !== null) {
        var j = lowerBound(l.t, at + 1e-9) - 1;
        if (j >= 0 && at - l.t[j] < 1) { var q = P(l, j); g.fillStyle = l.color || COLORS[li % COLORS.length]; g.beginPath(); g.arc(X(q[0]), Y(q[1]), 3.5, 0, 7); g.fill(); }
      }
    });
    g.fillStyle = '#5b6475'; g.font = '11px sans-serif'; g.textAlign = 'left';
    g.fillText((geo ? (span / k * 111.32).toFixed(3) + ' km' : fmtNum(span) + ' units') + ' across', 6, c.h - 6);
  };

  // Sensor views: camera thumbnails, clouds and scans from above, GPS
  // tracks in metres. Strings of the log (topics) go in as text only.

  // The f32 values of base64 text (packed little-endian, as the data holds
  // them).
  function sensorFloats(b64) {
    if (!b64) { return new Float32Array(0); }
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    var out = new Float32Array(bytes.length >> 2), dv = new DataView(bytes.buffer);
    for (var j = 0; j < out.length; j++) { out[j] = dv.getFloat32(j * 4, true); }
    return out;
  }
  // The value at fraction q of the finite values of `arrays` (sorted).
  function sensorQuantiles(arrays, qs) {
    var all = [];
    arrays.forEach(function (a) { for (var i = 0; i < a.length; i++) { if (isFinite(a[i])) { all.push(a[i]); } } });
    if (!all.length) { return qs.map(function () { return 0; }); }
    var s = Float64Array.from(all).sort();
    return qs.map(function (q) { return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))]; });
  }
  // A colour of the viridis map for f in 0..1.
  var VIRIDIS = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142], [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];
  function sensorColor(f) {
    var x = Math.min(1, Math.max(0, f)) * (VIRIDIS.length - 1), i = Math.min(VIRIDIS.length - 2, Math.floor(x)), k = x - i;
    var a = VIRIDIS[i], b = VIRIDIS[i + 1];
    return 'rgb(' + [0, 1, 2].map(function (c) { return Math.round(a[c] + (b[c] - a[c]) * k); }).join(',') + ')';
  }
  // A round length (1, 2 or 5 times a power of ten) near `m` metres, and
  // its label.
  function sensorScaleLength(m) {
    var p = Math.pow(10, Math.floor(Math.log10(m))), n = m / p;
    var v = (n >= 5 ? 5 : n >= 2 ? 2 : 1) * p;
    return { v: v, s: v >= 1000 ? (v / 1000) + ' km' : (v >= 1 ? String(v) : v.toPrecision(1)) + ' m' };
  }
  // A scale bar of about a fifth of the plot's width, `s` pixels a metre,
  // at the bottom right of the plot area (right edge rx, baseline by).
  function drawScaleBar(g, s, plotWidth, rx, by) {
    var len = sensorScaleLength(plotWidth / 5 / s), px = len.v * s;
    g.strokeStyle = '#1d2330'; g.lineWidth = 2;
    g.beginPath(); g.moveTo(rx - px, by - 4); g.lineTo(rx - px, by); g.lineTo(rx, by); g.lineTo(rx, by - 4); g.stroke();
    g.fillStyle = '#1d2330'; g.font = '11px sans-serif'; g.textAlign = 'center';
    g.fillText(len.s, rx - px / 2, by - 6);
    return px;
  }
  // Axes in metres around the plot area (L, T, w, h) for x in x0..x1 and
  // y in y0..y1 (y up).
  function drawMetreAxes(g, L, T, w, h, x0, x1, y0, y1, xName, yName) {
    g.strokeStyle = '#d9dde5'; g.lineWidth = 1; g.fillStyle = '#5b6475'; g.font = '11px sans-serif';
    g.textAlign = 'center';
    niceTicks(x0, x1, 6).forEach(function (tk) {
      var x = L + (tk.v - x0) / (x1 - x0) * w;
      g.beginPath(); g.moveTo(x, T); g.lineTo(x, T + h); g.stroke();
      g.fillText(tk.s, x, T + h + 13);
    });
    g.textAlign = 'right';
    niceTicks(y0, y1, 5).forEach(function (tk) {
      var y = T + h - (tk.v - y0) / (y1 - y0) * h;
      g.beginPath(); g.moveTo(L, y); g.lineTo(L + w, y); g.stroke();
      g.fillText(tk.s, L - 4, y + 4);
    });
    g.textAlign = 'left';
    g.fillText(xName + ' (m) \u2192', L + 4, T + h + 26);
    g.save(); g.translate(12, T + h - 4); g.rotate(-Math.PI / 2); g.fillText(yName + ' (m) \u2192', 0, 0); g.restore();
  }
  // Equal scales on both axes: the view of x0..x1, y0..y1 in a plot area
  // of w x h pixels, centred; returns the metres shown and pixels a metre.
  function sensorFit(x0, x1, y0, y1, w, h) {
    var sx = x1 - x0 || 1, sy = y1 - y0 || 1;
    var s = Math.min(w / sx, h / sy);
    var cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    return { x0: cx - w / s / 2, x1: cx + w / s / 2, y0: cy - h / s / 2, y1: cy + h / s / 2, s: s };
  }

  // The view of points whose bulk spans qx and qy: padded by 5% of the
  // larger span (at least 1 m across), and grown to the origin where it
  // lies within half that span of the box.
  function cloudBounds(qx, qy) {
    var span = Math.max(qx[1] - qx[0], qy[1] - qy[0], 1), pad = span * 0.05;
    var b = [qx[0] - pad, qx[1] + pad, qy[0] - pad, qy[1] + pad], near = span / 2;
    if (b[0] - near <= 0 && b[1] + near >= 0 && b[2] - near <= 0 && b[3] + near >= 0) {
      b = [Math.min(b[0], -pad), Math.max(b[1], pad), Math.min(b[2], -pad), Math.max(b[3], pad)];
    }
    return b;
  }

  // Camera thumbnails, each labelled with its time; a click shows it
  // larger.
  function thumbnailStrip(parent, log, strip) {
    var ch = log.channels[strip.channel] || { label: 'channel ' + strip.channel, count: 0 };
    var box = el('div', { cls: 'panel strip', 'data-frames': String(strip.frames.length) });
    var first = strip.frames[0];
    box.appendChild(el('div', { cls: 'title', text: 'Camera: ' + ch.label },
      el('span', { cls: 'sub', text: strip.frames.length + ' of ' + ch.count + ' frames, spread over the topic\'s time' +
        (first ? '; ' + first.src_w + ' \u00d7 ' + first.src_h + ' px' : '') + '; click one to enlarge' })));
    var row = el('div', { cls: 'thumbs' });
    strip.frames.forEach(function (f) {
      var img = el('img', { alt: ch.label + ' at ' + fmtSecs(secs(f.t)), width: String(f.w), height: String(f.h) });
      img.src = 'data:image/jpeg;base64,' + f.jpeg;
      var fig = el('figure', { cls: 'thumb' }, img, el('figcaption', { text: fmtSecs(secs(f.t)) }));
      fig.addEventListener('click', function () { fig.classList.toggle('big'); });
      row.appendChild(fig);
    });
    box.appendChild(row);
    parent.appendChild(box);
  }

  // A cloud or scan topic from above: one message at a time, chosen with
  // a slider; points coloured by z or intensity where there is one.
  function CloudViewer(parent, log, view) {
    var self = this;
    this.view = view; this.linked = false; this.at = 0;
    this.frames = view.frames.map(function (f) {
      return { t: f.t, points: f.points, x: sensorFloats(f.x), y: sensorFloats(f.y), c: f.c ? sensorFloats(f.c) : null };
    });
    var xs = this.frames.map(function (f) { return f.x; }), ys = this.frames.map(function (f) { return f.y; });
    // The frames share their bounds: those of the points, the farthest
    // percent on each side left outside (a few stray points do not
    // stretch the view), padded. The frame's origin (the sensor, for a
    // cloud in the sensor's frame) is taken in only when it is near: a
    // cloud in a map frame a kilometre away is shown at its own extent.
    var qx = sensorQuantiles(xs, [0.01, 0.99]), qy = sensorQuantiles(ys, [0.01, 0.99]);
    this.bounds = cloudBounds(qx, qy);
    this.crange = view.color ? sensorQuantiles(this.frames.map(function (f) { return f.c || new Float32Array(0); }), [0.02, 0.98]) : null;
    var ch = log.channels[view.channel] || { label: 'channel ' + view.channel };
    this.box = el('div', { cls: 'panel cloud', 'data-frames': String(this.frames.length) });
    this.box.appendChild(el('div', { cls: 'title', text: (view.scan ? 'Scan: ' : 'Cloud: ') + ch.label },
      el('span', { cls: 'sub', text: 'x/y seen from above, metres in the message\'s frame' + (view.color ? '; coloured by ' + view.color : '') })));
    this.canvas = el('canvas', { style: 'height:420px' });
    this.box.appendChild(this.canvas);
    this.slider = el('input', { type: 'range', min: '0', max: String(Math.max(0, this.frames.length - 1)), step: '1', value: '0' });
    this.label = el('span', { cls: 'hint' });
    this.slider.addEventListener('input', function () { self.at = +self.slider.value; self.draw(); });
    if (this.frames.length < 2) { this.slider.disabled = true; }
    this.box.appendChild(this.slider); this.box.appendChild(this.label);
    parent.appendChild(this.box);
    register(this);
  }
  CloudViewer.prototype.draw = function () {
    this.dirty = false;
    var c = sizeCanvas(this.canvas, 420), g = c.g, f = this.frames[this.at];
    g.clearRect(0, 0, c.w, c.h);
    if (!f) { return; }
    var L = 52, T = 8, R = 12, B = 34, w = Math.max(10, c.w - L - R), h = c.h - T - B;
    var b = this.bounds, fit = sensorFit(b[0], b[1], b[2], b[3], w, h);
    drawMetreAxes(g, L, T, w, h, fit.x0, fit.x1, fit.y0, fit.y1, 'x', 'y');
    var X = function (x) { return L + (x - fit.x0) * fit.s; }, Y = function (y) { return T + h - (y - fit.y0) * fit.s; };
    // Points in bins of colour: one fill style per bin.
    var BINS = 32, bins = [];
    for (var k = 0; k < BINS; k++) { bins.push([]); }
    var cr = this.crange, span = cr ? (cr[1] - cr[0]) || 1 : 1, drawn = 0;
    for (var i = 0; i < f.x.length; i++) {
      var px = X(f.x[i]), py = Y(f.y[i]);
      if (!(px >= L && px <= L + w && py >= T && py <= T + h)) { continue; }
      var bin = 0;
      if (f.c && cr) { var v = f.c[i]; bin = isFinite(v) ? Math.min(BINS - 1, Math.max(0, Math.floor((v - cr[0]) / span * BINS))) : 0; }
      bins[bin].push(px, py);
      drawn++;
    }
    var size = f.x.length > 5000 ? 1.5 : 2.5;
    bins.forEach(function (pts, bi) {
      if (!pts.length) { return; }
      g.fillStyle = cr ? sensorColor((bi + 0.5) / BINS) : COLORS[0];
      for (var j = 0; j < pts.length; j += 2) { g.fillRect(pts[j] - size / 2, pts[j + 1] - size / 2, size, size); }
    });
    // The frame's origin (the sensor), where it is in view; else how far.
    var ox = X(0), oy = Y(0), origin = ox >= L && ox <= L + w && oy >= T && oy <= T + h;
    if (origin) {
      g.strokeStyle = '#d62728'; g.lineWidth = 1.5;
      g.beginPath(); g.moveTo(ox - 6, oy); g.lineTo(ox + 6, oy); g.moveTo(ox, oy - 6); g.lineTo(ox, oy + 6); g.stroke();
    }
    drawScaleBar(g, fit.s, w, L + w - 8, T + h - 8);
    if (cr) {
      // The colour scale, top right.
      var gx = L + w - 170, gy = T + 6, short = function (v) { return String(Number(v.toPrecision(3))); };
      for (var q = 0; q < 140; q++) { g.fillStyle = sensorColor(q / 139); g.fillRect(gx + q, gy, 1, 8); }
      g.fillStyle = '#1d2330'; g.font = '10px sans-serif'; g.textAlign = 'left';
      g.fillText(short(cr[0]), gx, gy + 19); g.textAlign = 'right'; g.fillText(short(cr[1]), gx + 140, gy + 19);
      g.textAlign = 'center'; g.fillText(this.view.color, gx + 70, gy + 19);
    }
    this.label.textContent = 'message ' + (this.at + 1) + ' of ' + this.frames.length + ' shown, at ' + fmtSecs(secs(f.t)) +
      ': ' + f.x.length + (f.x.length < f.points ? ' of ' + f.points + ' points (evenly kept)' : ' points') +
      (origin ? '' : '; the origin (0, 0) is ' + fmtNum(Math.round(Math.hypot((b[0] + b[1]) / 2, (b[2] + b[3]) / 2))) + ' m from the centre of the view, out of it');
    this.box.setAttribute('data-frame', String(this.at));
    this.box.setAttribute('data-shown', String(f.x.length));
    this.box.setAttribute('data-drawn', String(drawn));
    this.box.setAttribute('data-origin', origin ? 'shown' : 'out of view');
  };

  // A latitude/longitude track on a plane: equirectangular around the
  // track's mean latitude and longitude, in metres east and north, with a
  // scale bar and its start and end marked.
  var EARTH_RADIUS = 6371008.8;
  function TrackView(parent, log, track) {
    this.linked = false;
    var p = track.points, n = p.t.length, lat0 = 0, lon0 = 0;
    for (var i = 0; i < n; i++) { lat0 += p.a[i]; lon0 += p.b[i]; }
    lat0 /= n || 1; lon0 /= n || 1;
    var m = Math.PI / 180 * EARTH_RADIUS, k = Math.cos(lat0 * Math.PI / 180);
    this.x = new Float64Array(n); this.y = new Float64Array(n); this.t = p.t;
    for (var j = 0; j < n; j++) { this.x[j] = (p.b[j] - lon0) * k * m; this.y[j] = (p.a[j] - lat0) * m; }
    var box = el('div', { cls: 'panel map track', 'data-points': String(n), 'data-objects': '1' });
    box.appendChild(el('div', { cls: 'title', text: 'Track: ' + chLabel(log, track.channel) },
      el('span', { cls: 'sub', text: 'metres east and north of ' + lat0.toFixed(6) + ', ' + lon0.toFixed(6) + ' (mean position; equirectangular, north up)' })));
    this.canvas = el('canvas', { style: 'height:380px' });
    box.appendChild(this.canvas);
    parent.appendChild(box);
    register(this);
  }
  TrackView.prototype.draw = function () {
    this.dirty = false;
    var c = sizeCanvas(this.canvas, 380), g = c.g, n = this.x.length, xs = this.x, ys = this.y;
    g.clearRect(0, 0, c.w, c.h);
    if (!n) { return; }
    var L = 60, T = 8, R = 12, B = 34, w = Math.max(10, c.w - L - R), h = c.h - T - B;
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (var i = 0; i < n; i++) {
      x0 = Math.min(x0, xs[i]); x1 = Math.max(x1, xs[i]); y0 = Math.min(y0, ys[i]); y1 = Math.max(y1, ys[i]);
    }
    var pad = Math.max(x1 - x0, y1 - y0, 1) * 0.05;
    var fit = sensorFit(x0 - pad, x1 + pad, y0 - pad, y1 + pad, w, h);
    drawMetreAxes(g, L, T, w, h, fit.x0, fit.x1, fit.y0, fit.y1, 'east', 'north');
    var X = function (x) { return L + (x - fit.x0) * fit.s; }, Y = function (y) { return T + h - (y - fit.y0) * fit.s; };
    g.strokeStyle = COLORS[0]; g.lineWidth = 2;
    g.beginPath();
    for (var j = 0; j < n; j++) { if (j) { g.lineTo(X(xs[j]), Y(ys[j])); } else { g.moveTo(X(xs[j]), Y(ys[j])); } }
    g.stroke();
    g.font = '11px sans-serif'; g.textAlign = 'left';
    g.fillStyle = '#2ca02c'; g.beginPath(); g.arc(X(xs[0]), Y(ys[0]), 5, 0, 7); g.fill();
    g.fillText('start ' + fmtSecs(secs(this.t[0])), X(xs[0]) + 8, Y(ys[0]) - 6);
    g.fillStyle = '#d62728'; g.fillRect(X(xs[n - 1]) - 4, Y(ys[n - 1]) - 4, 8, 8);
    g.fillText('end ' + fmtSecs(secs(this.t[n - 1])), X(xs[n - 1]) + 8, Y(ys[n - 1]) + 14);
    drawScaleBar(g, fit.s, w, L + w - 8, T + h - 8);
  };

  // A log's sensor views, into its section.
  function sensorViews(s, log) {
    log.tracks.forEach(function (tr) { new TrackView(s, log, tr); });
    log.strips.forEach(function (st) { thumbnailStrip(s, log, st); });
    log.clouds.forEach(function (cv) { new CloudViewer(s, log, cv); });
  }

  function section(title) {
    var s = el('section', {}, el('h2', { text: title }));
    app.appendChild(s);
    return s;
  }
  function table(head, rows, cls) {
    var t = el('table', cls ? { cls: cls } : null);
    t.appendChild(el('tr', {}, ...head.map(function (h) { return el('th', { text: h }); })));
    rows.forEach(function (r) {
      t.appendChild(el('tr', {}, ...r.map(function (c) {
        return typeof c === 'object' && c !== null ? el('td', { cls: c.cls || '', text: c.text }) : el('td', { text: String(c) });
      })));
    });
    return t;
  }
  // The band drawn behind a log's plots: its flight modes (other bands,
  // such as traffic lights, stay in the timeline).
  function plotBands(log) { return log.bands.filter(function (b) { return b.name === 'flight mode'; }); }
  function chLabel(log, i) { return log.channels[i] ? log.channels[i].label : 'channel ' + i; }
  function logTag(l) { return many ? ' (' + l.name + ')' : ''; }
  var NAMED_COLORS = { Red: '#ffcdd2', Yellow: '#fff59d', Green: '#c8e6c9', Off: '#eeeeee' };
  function bandColors(log) {
    log.bands.forEach(function (b) {
      b.colors = {};
      var names = [];
      b.spans.forEach(function (s) { if (names.indexOf(s[2]) < 0) { names.push(s[2]); } });
      names.forEach(function (n, i) { b.colors[n] = NAMED_COLORS[n] || BAND_COLORS[i % BAND_COLORS.length]; });
    });
  }

  // Header.
  var top = el('header', { cls: 'top' }, el('h1', { text: 'robolog report: ' + data.title }));
  viewLabel = el('span', { cls: 'view', text: 'view 0 s to ' + fmtSecs(fullEnd) });
  var reset = el('button', { text: 'reset zoom' });
  reset.addEventListener('click', function () { setView(0, fullEnd); });
  top.appendChild(viewLabel); top.appendChild(reset);
  top.appendChild(el('span', { cls: 'hint', text: 'wheel: zoom, drag: pan, double click: reset; time axes are seconds from each log\'s start' +
    (data.logs.some(function (l) { return l.range; }) ? ' (the start of its range, where one was asked for)' : '') }));
  document.body.insertBefore(top, app);

  data.logs.forEach(function (log, li) {
    bandColors(log);
    var s = section(log.name);
    s.setAttribute('class', 'log'); s.setAttribute('data-log', String(li));
    var over = el('div', { cls: 'overview' });
    over.appendChild(table(['', ''], [
      ['format', log.format + ' ' + log.version],
      ['path', log.path],
      ['size', fmtBytes(log.size) + ' (' + log.size + ' bytes)'],
      ['duration', fmtSecs(secs(log.duration)) + (log.range ? ' shown of ' + fmtSecs(secs(log.log_duration)) : '')]
    ].concat(log.range ? [
      ['range', { text: 'showing ' + fmtSecs(secs(log.offset)) + ' \u2013 ' + fmtSecs(secs(log.offset + log.duration)) +
        ' after the first message (asked: ' + log.range.asked + '); times on the plots count from ' + fmtSecs(secs(log.offset)), cls: 'range' }]
    ] : []).concat([
      ['start', (log.start / 1e9).toFixed(9) + ' s on the ' + log.clock + ' clock' + (log.start_utc ? ' = ' + log.start_utc : '')],
      ['messages', log.range ? log.range.messages + ' in the range (' + log.messages + ' in the log)' : String(log.messages)],
      ['channels', String(log.channels.length)],
      ['check', log.check_passed === null ? 'not run' : { text: log.check_passed ? 'passed' : 'found problems', cls: log.check_passed ? 'ok' : 'bad' }]
    ])));
    var rows = log.channels.slice(0, MAX_ROWS).map(function (ch) {
      var span = ch.end !== null && ch.start !== null ? (ch.end - ch.start) / 1e9 : 0;
      var rate = span > 0 && ch.count > 1 ? ((ch.count - 1) / span).toFixed(2) : '-';
      return [ch.label, ch.type, { text: String(ch.count), cls: 'num' }, { text: rate, cls: 'num' }];
    });
    over.appendChild(el('div', { cls: 'scroll' }, table(['channel', 'type', 'messages', 'rate (Hz)'], rows, 'channels')));
    s.appendChild(over);
    var listed = log.channels.length, bare = log.channels.filter(function (ch) { return ch.omitted; }).length;
    var notes = [];
    if (listed > MAX_ROWS) { notes.push('The table and the timeline show the first ' + MAX_ROWS + ' of ' + listed + ' channels; the list under Channels has every one, with a filter.'); }
    if (bare) { notes.push(bare + ' channels are listed without their data, which would take the page over its size budget: report them with --topic.'); }
    if (log.channels_omitted) { notes.push(log.channels_omitted + ' more channels are not listed (the page\'s size budget): report them with --topic.'); }
    if (notes.length) { s.appendChild(el('div', { cls: 'hint many', text: notes.join(' ') })); }
    if (log.metadata.length) {
      s.appendChild(el('details', {}, el('summary', { text: 'metadata (' + log.metadata.length + ')' }),
        el('div', { cls: 'scroll' }, table(['key', 'value'], log.metadata))));
    }
    new Timeline(s, log, li);
    var probs = el('div', { cls: 'problems' });
    probs.appendChild(el('h3', { text: 'Problems (' + (log.problems.length + log.problems_dropped) + ')' }));
    if (!log.problems.length) { probs.appendChild(el('div', { cls: 'ok', text: 'none found' })); }
    var ul = el('ul');
    log.problems.forEach(function (p) {
      var li2 = el('li', {}, p.t === null ? null : el('span', { cls: 't', text: fmtSecs(secs(p.t)) }), p.text);
      if (p.t !== null) {
        li2.style.cursor = 'pointer';
        li2.addEventListener('click', function () { var w = (view.x1 - view.x0) / 20; setView(secs(p.t) - w, secs(p.t) + w); });
      }
      ul.appendChild(li2);
    });
    if (log.problems_dropped) { ul.appendChild(el('li', { text: '... and ' + log.problems_dropped + ' more' })); }
    probs.appendChild(ul);
    s.appendChild(probs);
    if (log.events.length) {
      s.appendChild(el('h3', { text: 'Messages and events (' + log.events.length + ')' }));
      s.appendChild(el('div', { cls: 'scroll' }, table(['time', 'level', 'message'], log.events.map(function (e) {
        return [fmtSecs(secs(e.t)), { text: e.level, cls: 'level-' + e.level }, e.text];
      }), 'events')));
    }
    if (log.parameters) {
      s.appendChild(el('h3', { text: 'Parameters (' + log.parameters.list.length + ')' }));
      s.appendChild(el('div', { cls: 'hint', text: log.parameters.note }));
      s.appendChild(el('div', { cls: 'scroll' }, table(['name', 'value', 'default', 'changed at'], log.parameters.list.map(function (p) {
        return [p.name, p.value, p.default === null ? '-' : p.default, p.t === null ? '' : fmtSecs(secs(p.t))];
      }), 'parameters')));
    }
    var pts3 = function (p) { return { t: p.t.map(secs), a: p.a, b: p.b }; };
    sensorViews(s, log);
    log.paths.forEach(function (p) {
      new MapView(s, 'Path: ' + (p.title || chLabel(log, p.channel)), 'path', [pts3(p.points)], false, null);
    });
    log.scenes.forEach(function (sc) {
      var lines = sc.objects.map(function (o, i) { var l = pts3(o.points); l.color = COLORS[i % COLORS.length]; l.id = o.id; return l; });
      new MapView(s, 'Top-down: ' + chLabel(log, sc.channel) + ' (' + sc.objects.length + ' objects)', 'scene', lines, false, secs(log.duration));
    });
  });

  // Plots: the chosen panels, then one section per channel; with several
  // logs, a channel's series of every log share its panels.
  function seriesOf(log, li, ch, s, label, color) {
    return {
      t: s.t.map(secs), v: s.v.map(numeric), color: color, label: label + logTag(log), on: true,
      count: s.count, reduced: s.reduced, dash: li ? [5, 3] : null
    };
  }
  var panelsSection = null;
  data.logs.forEach(function (log, li) {
    log.panels.forEach(function (p) {
      if (!panelsSection) { panelsSection = section(log.format.indexOf('ULog') >= 0 ? 'Flight' : 'Overview plots'); }
      var series = p.series.map(function (x, i) {
        return seriesOf(log, li, log.channels[x[0]], log.channels[x[0]].series[x[1]], x[2], COLORS[i % COLORS.length]);
      }).concat(p.own.map(function (s, i) {
        return seriesOf(log, li, null, s, s.name, COLORS[(p.series.length + i) % COLORS.length]);
      }));
      new Plot(panelsSection, p.title + logTag(log), null, series, plotBands(log));
    });
  });
  var byLabel = new Map();
  // Series without a point (every value NaN) are named, not drawn.
  data.logs.forEach(function (log) {
    log.channels.forEach(function (ch) {
      ch.empty = ch.series.filter(function (s) { return !s.t.length; }).map(function (s) { return s.name; });
      ch.series = ch.series.filter(function (s) { return s.t.length > 0; });
    });
  });
  data.logs.forEach(function (log, li) {
    log.channels.forEach(function (ch) {
      if (!ch.series.length) { return; }
      if (!byLabel.has(ch.label)) { byLabel.set(ch.label, []); }
      byLabel.get(ch.label).push({ log: log, li: li, ch: ch });
    });
  });
  // A channel's plots, into `sec`.
  function channelPlots(sec, label, entries) {
    // Series grouped by their first name part when there are many.
    var names = [];
    entries.forEach(function (e) { e.ch.series.forEach(function (s) { if (names.indexOf(s.name) < 0) { names.push(s.name); } }); });
    var groups = [];
    if (names.length <= 8) { groups.push(names); } else {
      var byHead = new Map();
      names.forEach(function (n) { var h = n.split(/[.[:]/)[0]; if (!byHead.has(h)) { byHead.set(h, []); } byHead.get(h).push(n); });
      var small = [];
      byHead.forEach(function (g) {
        if (g.length >= 3) { groups.push(g); } else { small = small.concat(g); if (small.length >= 6) { groups.push(small); small = []; } }
      });
      if (small.length) { groups.push(small); }
    }
    groups.forEach(function (g) {
      var series = [];
      g.forEach(function (n, i) {
        entries.forEach(function (e) {
          var s = e.ch.series.find(function (x) { return x.name === n; });
          if (s) { var x = seriesOf(e.log, e.li, e.ch, s, n, COLORS[i % COLORS.length]); x.on = i < 8; series.push(x); }
        });
      });
      var notes = [];
      if (entries[0].ch.skipped) { notes.push(entries[0].ch.skipped + ' values of further fields not plotted'); }
      if (entries[0].ch.empty.length) { notes.push('only NaN: ' + entries[0].ch.empty.join(', ')); }
      var skipped = notes.length ? notes.join('; ') : null;
      new Plot(sec, g.length === names.length ? label : label + ': ' + g[0].split(/[.[:]/)[0] + (g.length > 1 ? ' \u2026' : ''), skipped, series, plotBands(entries[0].log));
    });
  }
  if (byLabel.size && byLabel.size <= MANY_CHANNELS) {
    var chSection = section('Channels');
    byLabel.forEach(function (entries, label) {
      var sec = el('section', { cls: 'channel', 'data-channel': label });
      sec.appendChild(el('h3', { text: label + ' \u2014 ' + entries[0].ch.type }));
      chSection.appendChild(sec);
      channelPlots(sec, label, entries);
    });
  } else if (byLabel.size) {
    // Many channels: a list with a filter; a channel's plots are drawn
    // when it is opened.
    var lazy = section('Channels');
    var all = Array.from(byLabel.entries());
    var filter = el('input', { type: 'search', cls: 'filter', placeholder: 'filter the ' + all.length + ' channels by name or type' });
    var count = el('div', { cls: 'hint' });
    var list = el('div', { cls: 'channel-list' });
    lazy.appendChild(filter); lazy.appendChild(count); lazy.appendChild(list);
    var show = function () {
      var q = filter.value.toLowerCase(), matched = 0, shown = 0;
      list.textContent = '';
      all.forEach(function (e) {
        var label = e[0], entries = e[1], type = entries[0].ch.type;
        if (q && label.toLowerCase().indexOf(q) < 0 && type.toLowerCase().indexOf(q) < 0) { return; }
        matched++;
        if (shown >= MAX_ROWS) { return; }
        shown++;
        var d = el('details', { cls: 'channel lazy', 'data-channel': label }, el('summary', { text: label + ' \u2014 ' + type }));
        var drawn = false;
        d.addEventListener('toggle', function () {
          if (d.open && !drawn) { drawn = true; channelPlots(d, label, entries); }
        });
        list.appendChild(d);
      });
      count.textContent = matched + ' of ' + all.length + ' channels' + (matched > shown ? ', the first ' + shown + ' listed: narrow the filter for the others' : '') + '; open one to draw its plots';
      lazy.setAttribute('data-listed', String(shown));
    };
    filter.addEventListener('input', show);
    show();
    lazy.setAttribute('class', 'channels-lazy');
  }
  document.body.setAttribute('data-errors', String(errors.length));
  document.body.setAttribute('data-ready', '1');
}());
