// Plots of series against the shared time axis.

import { COLORS, el, fmtNum, fmtSecs, lowerBound, niceTicks } from './format.js';
import { onCursor, onScreen, register, setCursor, sizeCanvas, timeAxisEvents, view } from './timeaxis.js';

/**
 * A series as a plot draws it.
 * @typedef {object} PlotSeries
 * @property {number[]} t seconds from the log's start
 * @property {(number | null)[]} v values (null: NaN, not drawn)
 * @property {string} color
 * @property {string} label
 * @property {boolean} on shown (its legend box ticked)
 * @property {number} count values the field had
 * @property {boolean} [reduced] a min/max reduction
 * @property {number[] | null} [dash] line dash (a second log's series)
 */

/**
 * Spans drawn behind a plot, coloured by their label.
 * @typedef {object} PlotBand
 * @property {[number, number, string][]} spans start and end in seconds, label
 * @property {Map<string, string>} colors by label
 */

/**
 * Beyond this many times the span or size of the bulk of a plot's
 * values, extremes are drawn at the edge of its axis.
 */
const OUTLIER = 20;

/**
 * The value axis of a plot, padded by 5%: the range of every value,
 * unless a few extremes would squeeze the others into a sliver of the
 * plot (beyond OUTLIER times their span or size; with fewer than 20
 * values, a million times) or the span overflows. Then the range of the
 * values without the 1% (at least one) smallest and largest, and the
 * values beyond are drawn at the edge, marked with their value.
 * @param {number[]} vals finite numbers
 * @returns {{lo: number, hi: number, clipped: boolean}}
 */
export function yRange(vals) {
  const n = vals.length;
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < n; i++) { if (vals[i] < lo) { lo = vals[i]; } if (vals[i] > hi) { hi = vals[i]; } }
  if (!n) { return { lo: 0, hi: 1, clipped: false }; }
  let clipped = false;
  if (n >= 3) {
    const s = Float64Array.from(vals).sort();
    const k = Math.max(1, Math.floor(n * 0.01)), qlo = s[k], qhi = s[n - 1 - k];
    const scale = Math.max(qhi - qlo, Math.abs(qlo), Math.abs(qhi));
    const overflow = !isFinite(hi - lo), far = (n >= 20 ? OUTLIER : 1e6) * scale;
    const cutLo = scale > 0 ? !(qlo - lo <= far) : overflow;
    const cutHi = scale > 0 ? !(hi - qhi <= far) : overflow;
    if (cutLo) { lo = qlo; clipped = true; }
    if (cutHi) { hi = qhi; clipped = true; }
  }
  if (lo === hi) { const w = Math.abs(lo) * 0.05 || 0.5; lo -= w; hi += w; }
  const pad = (hi / 2 - lo / 2) * 0.1;
  return { lo: Math.max(-Number.MAX_VALUE, lo - pad), hi: Math.min(Number.MAX_VALUE, hi + pad), clipped };
}

/**
 * The index of the point of `t` nearest to `x`, or -1 when empty.
 * @param {number[]} t
 * @param {number} x
 */
export function nearest(t, x) {
  if (!t.length) { return -1; }
  let i = lowerBound(t, x);
  if (i > 0 && (i >= t.length || x - t[i - 1] < t[i] - x)) { i--; }
  return i;
}

/** A plot of series against time, with legends to switch them. */
export class Plot {
  /**
   * @param {HTMLElement} parent
   * @param {string} title
   * @param {string | null} sub
   * @param {PlotSeries[]} series
   * @param {PlotBand[]} [bands]
   * @param {number} [height] CSS pixels (200)
   */
  constructor(parent, title, sub, series, bands, height) {
    this.series = series; this.bands = bands || []; this.linked = true; this.dirty = false;
    this.title = title; this.height = height || 200;
    this.y0 = 0; this.y1 = 1;
    /** The plot area's time and value to pixels, as last drawn. */
    this.X = (/** @type {number} */ t) => t;
    this.Y = (/** @type {number} */ v) => v;
    const box = el('div', { cls: 'panel plot' });
    box.appendChild(el('div', { cls: 'title', text: title }, sub ? el('span', { cls: 'sub', text: sub }) : null));
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { style: 'height:' + this.height + 'px', role: 'img' }));
    // The time cursor, drawn over the plot.
    this.overlay = /** @type {HTMLCanvasElement} */ (el('canvas', { cls: 'overlay', 'aria-hidden': 'true', style: 'height:' + this.height + 'px' }));
    this.overlayStale = true;
    box.appendChild(el('div', { cls: 'area' }, this.canvas, this.overlay));
    const legend = el('div', { cls: 'legend' });
    for (const s of series) {
      const cb = /** @type {HTMLInputElement} */ (el('input', { type: 'checkbox' }));
      cb.checked = s.on;
      cb.addEventListener('change', () => { s.on = cb.checked; this.draw(); });
      legend.appendChild(el('label', { title: s.count + ' values' + (s.reduced ? ', reduced per pixel column (extremes kept)' : '') },
        cb, el('span', { cls: 'sw', style: 'background:' + s.color }), s.label));
    }
    box.appendChild(legend);
    this.readout = el('div', { cls: 'readout' });
    box.appendChild(this.readout);
    parent.appendChild(box);
    this.L = 58; this.R = 10; this.T = 6; this.B = 20;
    timeAxisEvents(this.canvas, this.L, this.R);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => setCursor(null));
    onCursor((t) => { if (onScreen(this)) { this.cursor(t); } });
    register(this);
  }

  /** Draws the series in the view, on a value axis that fits them. */
  draw() {
    this.dirty = false;
    // The cursor's canvas is sized when a cursor is first drawn on it.
    this.overlayStale = true;
    const c = sizeCanvas(this.canvas, this.height), g = c.g, L = this.L, R = this.R, T = this.T, B = this.B;
    const pw = c.w - L - R, ph = c.h - T - B, x0 = view.x0, x1 = view.x1;
    /** @type {number[]} */
    const vals = [];
    for (const s of this.series) {
      if (!s.on) { continue; }
      const a = Math.max(0, lowerBound(s.t, x0) - 1), b = Math.min(s.t.length, lowerBound(s.t, x1) + 1);
      for (let i = a; i < b; i++) { const v = s.v[i]; if (v !== null && isFinite(v)) { vals.push(v); } }
    }
    const range = yRange(vals), lo = range.lo, hi = range.hi;
    this.y0 = lo; this.y1 = hi;
    /** @param {number} t */
    const X = (t) => L + (t - x0) / (x1 - x0) * pw;
    // Halves: no overflow whatever the finite values; beyond the axis, at
    // its edge.
    /** @param {number} v */
    const Y = (v) => {
      if (v > hi) { return T; }
      if (v < lo) { return T + ph; }
      return T + (1 - (v / 2 - lo / 2) / (hi / 2 - lo / 2)) * ph;
    };
    this.X = X; this.Y = Y;
    /** @type {{x: number, v: number, color: string}[]} */
    const beyond = [];
    g.clearRect(0, 0, c.w, c.h);
    for (const band of this.bands) {
      for (const sp of band.spans) {
        const a = Math.max(L, X(sp[0])), b = Math.min(L + pw, X(sp[1]));
        if (b > a) { g.fillStyle = band.colors.get(sp[2]) || '#eeeeee'; g.fillRect(a, T, b - a, ph); }
      }
    }
    g.strokeStyle = '#d9dde5'; g.fillStyle = '#5b6475'; g.font = '11px sans-serif'; g.lineWidth = 1;
    for (const tk of niceTicks(lo, hi, 4)) {
      const y = Math.round(Y(tk.v)) + 0.5;
      g.beginPath(); g.moveTo(L, y); g.lineTo(L + pw, y); g.stroke();
      g.textAlign = 'right'; g.fillText(tk.s, L - 4, y + 3);
    }
    for (const tk of niceTicks(x0, x1, 8)) {
      const x = Math.round(X(tk.v)) + 0.5;
      g.beginPath(); g.moveTo(x, T); g.lineTo(x, T + ph); g.stroke();
      g.textAlign = 'center'; g.fillText(tk.s + ' s', x, c.h - 6);
    }
    g.save(); g.beginPath(); g.rect(L, T, pw, ph); g.clip();
    let drawn = 0;
    for (const s of this.series) {
      if (!s.on) { continue; }
      g.strokeStyle = s.color; g.lineWidth = 1.25; g.setLineDash(s.dash || []);
      const a = Math.max(0, lowerBound(s.t, x0) - 1), b = Math.min(s.t.length, lowerBound(s.t, x1) + 1);
      if (s.reduced) { envelope(g, s, a, b, X, Y); }
      g.beginPath();
      let pen = false;
      for (let i = a; i < b; i++) {
        const v = s.v[i];
        if (v === null) { pen = false; continue; }
        const x = X(s.t[i]), y = Y(v);
        if (pen) { g.lineTo(x, y); } else { g.moveTo(x, y); pen = true; }
        if (!(v >= lo && v <= hi)) { beyond.push({ x, v, color: s.color }); }
        drawn++;
      }
      g.stroke();
      if (b - a <= 2) {
        for (let j = a; j < b; j++) {
          const v = s.v[j];
          if (v !== null) { g.fillStyle = s.color; g.fillRect(X(s.t[j]) - 2, Y(v) - 2, 4, 4); }
        }
      }
    }
    // Values beyond the axis: a triangle at the edge pointing out, and
    // the value (the first few) beside it.
    beyond.forEach((p, k) => {
      const up = p.v > hi, y = up ? T : T + ph;
      g.fillStyle = p.color; g.beginPath();
      g.moveTo(p.x, y); g.lineTo(p.x - 4, up ? y + 7 : y - 7); g.lineTo(p.x + 4, up ? y + 7 : y - 7); g.closePath(); g.fill();
      if (k < 12) {
        g.fillStyle = '#1d2330'; g.textAlign = p.x > L + pw - 80 ? 'right' : 'left';
        g.fillText(fmtNum(p.v), p.x + (g.textAlign === 'left' ? 6 : -6), up ? y + 10 : y - 3);
      }
    });
    g.restore(); g.setLineDash([]);
    // What the picture shows, as text (for screen readers).
    this.canvas.setAttribute('aria-label', this.title + ': ' + this.series.filter((s) => s.on).length + ' series, ' +
      drawn + ' points drawn from ' + fmtSecs(x0) + ' to ' + fmtSecs(x1) + '; value axis ' + lo + ' to ' + hi +
      (beyond.length ? '; ' + beyond.length + ' values beyond it, marked at its edge' : ''));
  }

  /**
   * Moves every plot's time cursor to the time under the pointer.
   * @param {MouseEvent} e
   */
  hover(e) {
    const r = this.canvas.getBoundingClientRect(), px = e.clientX - r.left;
    const pw = r.width - this.L - this.R;
    setCursor(px < this.L || px > this.L + pw ? null : view.x0 + (px - this.L) / pw * (view.x1 - view.x0));
  }

  /**
   * The time cursor at `t` seconds: a line across the plot, a dot on each
   * shown series at its point nearest `t`, and their values beside it
   * (null: hidden).
   * @param {number | null} t
   */
  cursor(t) {
    if (this.overlayStale) { sizeCanvas(this.overlay, this.height); this.overlayStale = false; }
    const g = /** @type {CanvasRenderingContext2D} */ (this.overlay.getContext('2d'));
    g.clearRect(0, 0, this.overlay.width, this.overlay.height);
    const w = this.overlay.width / (window.devicePixelRatio || 1);
    if (t === null || t < view.x0 || t > view.x1) { this.readout.style.display = 'none'; return; }
    const x = this.X(t), T = this.T, ph = this.height - this.T - this.B;
    g.strokeStyle = 'rgba(29,35,48,0.6)'; g.lineWidth = 1;
    g.beginPath(); g.moveTo(Math.round(x) + 0.5, T); g.lineTo(Math.round(x) + 0.5, T + ph); g.stroke();
    const lines = ['t = ' + fmtSecs(t)];
    for (const s of this.series) {
      const i = s.on ? nearest(s.t, t) : -1;
      if (i < 0) { continue; }
      const v = s.v[i];
      lines.push(s.label + ': ' + fmtNum(v) + (Math.abs(s.t[i] - t) > (view.x1 - view.x0) / 200 ? '  (at ' + fmtSecs(s.t[i]) + ')' : ''));
      if (v !== null && isFinite(v)) {
        g.fillStyle = s.color; g.beginPath(); g.arc(this.X(s.t[i]), this.Y(v), 3, 0, 7); g.fill();
      }
    }
    this.readout.textContent = lines.join('\n');
    this.readout.style.display = 'block';
    this.readout.style.top = (T + 28) + 'px';
    this.readout.style.left = (x + 240 > w ? Math.max(0, x - 240) : x + 14) + 'px';
  }
}

/** Pixels of each column of a reduced series' envelope. */
const ENVELOPE_PX = 3;

/**
 * The min/max envelope of a reduced series (points a..b): the band
 * between the smallest and the largest value of each column of
 * ENVELOPE_PX pixels, shaded in the series' colour. Where the view is
 * zoomed in past the reduction's buckets a column holds one point and
 * the band is the line itself.
 * @param {CanvasRenderingContext2D} g
 * @param {PlotSeries} s
 * @param {number} a
 * @param {number} b
 * @param {(t: number) => number} X
 * @param {(v: number) => number} Y
 */
function envelope(g, s, a, b, X, Y) {
  /** @type {number[]} */
  const xs = [];
  /** @type {number[]} */
  const lo = [];
  /** @type {number[]} */
  const hi = [];
  for (let i = a; i < b; i++) {
    const v = s.v[i];
    if (v === null || !isFinite(v)) { continue; }
    const x = Math.floor(X(s.t[i]) / ENVELOPE_PX) * ENVELOPE_PX, k = xs.length - 1;
    if (k >= 0 && xs[k] === x) { lo[k] = Math.min(lo[k], v); hi[k] = Math.max(hi[k], v); } else { xs.push(x); lo.push(v); hi.push(v); }
  }
  if (xs.length < 2) { return; }
  g.save(); g.globalAlpha = 0.25; g.fillStyle = s.color; g.beginPath();
  for (let k = 0; k < xs.length; k++) { g.lineTo(xs[k] + ENVELOPE_PX / 2, Y(hi[k]) - 0.5); }
  for (let k = xs.length - 1; k >= 0; k--) { g.lineTo(xs[k] + ENVELOPE_PX / 2, Y(lo[k]) + 0.5); }
  g.closePath(); g.fill(); g.restore();
}

/**
 * The value of a step series at `t`: that of its last point at or
 * before `t` (the first point's before it), or -1 when empty.
 * @param {number[]} ts
 * @param {number} t
 */
function stepIndex(ts, t) {
  if (!ts.length) { return -1; }
  return Math.max(0, lowerBound(ts, t + 1e-12) - 1);
}

/** Colours of the states of a state plot, by the order they appear. */
const STATE_COLORS = ['#c6dbef', '#fdd0a2', '#c7e9c0', '#dadaeb', '#fcbba1', '#d9d9d9', '#9ecae1', '#fdae6b'];

/**
 * Booleans and enums (integer fields of a few values) as bands of
 * colour, one row per field, each value its colour and label, on the
 * shared time axis.
 */
export class StatePlot {
  /**
   * @param {HTMLElement} parent
   * @param {string} title
   * @param {PlotSeries[]} series
   */
  constructor(parent, title, series) {
    this.series = series; this.linked = true; this.dirty = false; this.title = title;
    this.L = 160; this.R = 10; this.T = 4; this.row = 20; this.B = 20;
    this.height = this.T + series.length * this.row + this.B;
    /** @type {Map<number, string>[]} the colour of each value, per series */
    this.colors = series.map((s) => {
      /** @type {Map<number, string>} */
      const m = new Map();
      for (const v of s.v) { if (v !== null && !m.has(v)) { m.set(v, STATE_COLORS[m.size % STATE_COLORS.length]); } }
      return m;
    });
    this.X = (/** @type {number} */ t) => t;
    const box = el('div', { cls: 'panel states' });
    box.appendChild(el('div', { cls: 'title', text: title }, el('span', { cls: 'sub', text: 'fields of a few integer values, as states' })));
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { style: 'height:' + this.height + 'px', role: 'img' }));
    this.overlay = /** @type {HTMLCanvasElement} */ (el('canvas', { cls: 'overlay', 'aria-hidden': 'true', style: 'height:' + this.height + 'px' }));
    this.overlayStale = true;
    box.appendChild(el('div', { cls: 'area' }, this.canvas, this.overlay));
    this.readout = el('div', { cls: 'readout' });
    box.appendChild(this.readout);
    parent.appendChild(box);
    timeAxisEvents(this.canvas, this.L, this.R);
    this.canvas.addEventListener('mousemove', (e) => {
      const r = this.canvas.getBoundingClientRect(), px = e.clientX - r.left, pw = r.width - this.L - this.R;
      setCursor(px < this.L || px > this.L + pw ? null : view.x0 + (px - this.L) / pw * (view.x1 - view.x0));
    });
    this.canvas.addEventListener('mouseleave', () => setCursor(null));
    onCursor((t) => { if (onScreen(this)) { this.cursor(t); } });
    register(this);
  }

  /** Draws each field's states in the view. */
  draw() {
    this.dirty = false;
    // The cursor's canvas is sized when a cursor is first drawn on it.
    this.overlayStale = true;
    const c = sizeCanvas(this.canvas, this.height), g = c.g, L = this.L, R = this.R, T = this.T, row = this.row;
    const pw = c.w - L - R, x0 = view.x0, x1 = view.x1;
    /** @param {number} t */
    const X = (t) => L + (t - x0) / (x1 - x0) * pw;
    this.X = X;
    g.clearRect(0, 0, c.w, c.h);
    g.font = '11px sans-serif';
    let spans = 0;
    this.series.forEach((s, k) => {
      const y = T + k * row, colors = this.colors[k];
      g.fillStyle = '#1d2330'; g.textAlign = 'right';
      g.fillText(s.label.length > 24 ? s.label.slice(0, 23) + '\u2026' : s.label, L - 6, y + 14);
      const a = Math.max(0, lowerBound(s.t, x0) - 1), b = Math.min(s.t.length, lowerBound(s.t, x1) + 1);
      for (let i = a; i < b;) {
        const v = s.v[i];
        let j = i + 1;
        while (j < b && s.v[j] === v) { j++; }
        // A state lasts until the next value; the last one to the end of
        // the view (at least 2 pixels wide, so that a state met only at
        // the end shows).
        const end = j < s.t.length ? s.t[j] : Math.max(x1, s.t[i]);
        const xa = Math.max(L, X(s.t[i])), xb = Math.min(L + pw, X(end));
        if (v !== null && xb >= xa && xa <= L + pw && xb >= L) {
          const wide = Math.max(2, xb - xa);
          g.fillStyle = colors.get(v) || '#eeeeee'; g.fillRect(Math.min(xa, L + pw - wide), y + 2, wide, row - 4);
          const text = fmtNum(v);
          if (xb - xa > g.measureText(text).width + 6) { g.fillStyle = '#1d2330'; g.textAlign = 'left'; g.fillText(text, xa + 3, y + 14); }
          spans++;
        }
        i = j;
      }
    });
    g.fillStyle = '#5b6475'; g.textAlign = 'center';
    for (const tk of niceTicks(x0, x1, 8)) { g.fillText(tk.s + ' s', X(tk.v), c.h - 6); }
    this.canvas.setAttribute('aria-label', this.title + ': ' + this.series.length + ' fields as states, ' + spans + ' spans drawn from ' +
      fmtSecs(x0) + ' to ' + fmtSecs(x1));
  }

  /**
   * The time cursor at `t` seconds and each field's state there.
   * @param {number | null} t
   */
  cursor(t) {
    if (this.overlayStale) { sizeCanvas(this.overlay, this.height); this.overlayStale = false; }
    const g = /** @type {CanvasRenderingContext2D} */ (this.overlay.getContext('2d'));
    g.clearRect(0, 0, this.overlay.width, this.overlay.height);
    const w = this.overlay.width / (window.devicePixelRatio || 1);
    if (t === null || t < view.x0 || t > view.x1) { this.readout.style.display = 'none'; return; }
    const x = this.X(t);
    g.strokeStyle = 'rgba(29,35,48,0.6)'; g.lineWidth = 1;
    g.beginPath(); g.moveTo(Math.round(x) + 0.5, this.T); g.lineTo(Math.round(x) + 0.5, this.height - this.B); g.stroke();
    const lines = ['t = ' + fmtSecs(t)];
    for (const s of this.series) {
      const i = stepIndex(s.t, t);
      if (i >= 0) { lines.push(s.label + ': ' + fmtNum(s.v[i])); }
    }
    this.readout.textContent = lines.join('\n');
    this.readout.style.display = 'block';
    this.readout.style.top = '24px';
    this.readout.style.left = (x + 240 > w ? Math.max(0, x - 240) : x + 14) + 'px';
  }
}

/**
 * Whether a series is a boolean or an enum: every value an integer, at
 * most `STATES` different ones.
 * @param {(number | null)[]} v
 */
export function isState(v) {
  /** @type {Set<number>} */
  const seen = new Set();
  for (const x of v) {
    if (x === null) { continue; }
    if (!Number.isInteger(x) || Math.abs(x) > 2 ** 31) { return false; }
    seen.add(x);
    if (seen.size > STATES) { return false; }
  }
  return seen.size > 0;
}

/** Most values of a series drawn as states. */
const STATES = 8;

/**
 * The size of a series' values: the larger magnitude of its bulk (the
 * values without the 1% at either end), 0 when all are 0 or none.
 * @param {(number | null)[]} v
 */
export function magnitude(v) {
  /** @type {number[]} */
  const vals = [];
  const step = Math.max(1, Math.floor(v.length / 4000));
  for (let i = 0; i < v.length; i += step) { const x = v[i]; if (x !== null && isFinite(x)) { vals.push(x); } }
  if (!vals.length) { return 0; }
  const s = Float64Array.from(vals).sort(), n = s.length;
  const k = n >= 100 ? Math.floor(n * 0.01) : 0;
  return Math.max(Math.abs(s[k]), Math.abs(s[n - 1 - k]));
}

/**
 * Groups of series that share a value axis: each group's magnitudes
 * within `ratio` of its largest (series of 0 join the last group), in
 * their order within a group.
 * @template {{v: (number | null)[]}} S
 * @param {S[]} series
 * @param {number} ratio
 * @returns {S[][]}
 */
export function byMagnitude(series, ratio) {
  const sized = series.map((s, i) => ({ s, i, m: magnitude(s.v) }));
  const nonzero = sized.filter((x) => x.m > 0).sort((a, b) => b.m - a.m);
  /** @type {{s: S, i: number, m: number}[][]} */
  const groups = [];
  for (const x of nonzero) {
    const last = groups[groups.length - 1];
    if (last && last[0].m <= x.m * ratio) { last.push(x); } else { groups.push([x]); }
  }
  const zeros = sized.filter((x) => !(x.m > 0));
  if (zeros.length) { if (groups.length) { groups[groups.length - 1].push(...zeros); } else { groups.push(zeros); } }
  return groups.map((g) => g.sort((a, b) => a.i - b.i).map((x) => x.s));
}
