// Plots of series against the shared time axis.

import { COLORS, el, fmtNum, fmtSecs, lowerBound, niceTicks } from './format.js';
import { register, sizeCanvas, timeAxisEvents, view } from './timeaxis.js';

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
   */
  constructor(parent, title, sub, series, bands) {
    this.series = series; this.bands = bands || []; this.linked = true; this.dirty = false;
    this.title = title;
    this.y0 = 0; this.y1 = 1;
    const box = el('div', { cls: 'panel plot' });
    box.appendChild(el('div', { cls: 'title', text: title }, sub ? el('span', { cls: 'sub', text: sub }) : null));
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { style: 'height:200px', role: 'img' }));
    box.appendChild(this.canvas);
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
    this.canvas.addEventListener('mouseleave', () => { this.readout.style.display = 'none'; });
    register(this);
  }

  /** Draws the series in the view, on a value axis that fits them. */
  draw() {
    this.dirty = false;
    const c = sizeCanvas(this.canvas, 200), g = c.g, L = this.L, R = this.R, T = this.T, B = this.B;
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
   * The values of the shown series nearest the time under the pointer.
   * @param {MouseEvent} e
   */
  hover(e) {
    const r = this.canvas.getBoundingClientRect(), px = e.clientX - r.left;
    const pw = r.width - this.L - this.R;
    if (px < this.L || px > this.L + pw) { this.readout.style.display = 'none'; return; }
    const t = view.x0 + (px - this.L) / pw * (view.x1 - view.x0);
    const lines = ['t = ' + fmtSecs(t)];
    for (const s of this.series) {
      const i = s.on ? nearest(s.t, t) : -1;
      if (i < 0) { continue; }
      lines.push(s.label + ': ' + fmtNum(s.v[i]) + '  (at ' + fmtSecs(s.t[i]) + ')');
    }
    this.readout.textContent = lines.join('\n');
    this.readout.style.display = 'block';
    this.readout.style.left = Math.min(px + 12, r.width - 220) + 'px';
    this.readout.style.top = (e.clientY - r.top + 24) + 'px';
  }
}
