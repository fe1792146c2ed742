// XY plots: one field against another (a position's x against its y, or
// any two fields), their samples paired by time, over the time view that
// every plot shares.

import { el, fmtNum, fmtSecs, lowerBound, niceTicks } from './format.js';
import { onCursor, onScreen, register, sizeCanvas, view } from './timeaxis.js';
import { nearest, yRange } from './plot.js';

/**
 * A field as an XY plot reads it.
 * @typedef {object} XyField
 * @property {number[]} t seconds from the log's start, in order
 * @property {(number | null)[]} v values (null: NaN)
 * @property {string} label `channel/field`
 */

/**
 * Points of `xs` against `ys` with times in t0..t1: for each sample of
 * `xs`, the sample of `ys` nearest in time, when it is within the larger
 * of the two fields' mean sample intervals (samples of one message pair
 * exactly; a field that stopped pairs with nothing).
 * @param {XyField} xs
 * @param {XyField} ys
 * @param {number} t0
 * @param {number} t1
 * @returns {{t: number[], x: number[], y: number[]}}
 */
export function pairByTime(xs, ys, t0, t1) {
  /** @param {number[]} t */
  const interval = (t) => t.length > 1 ? (t[t.length - 1] - t[0]) / (t.length - 1) : Infinity;
  const most = Math.max(interval(xs.t), interval(ys.t));
  /** @type {{t: number[], x: number[], y: number[]}} */
  const out = { t: [], x: [], y: [] };
  const a = lowerBound(xs.t, t0), b = lowerBound(xs.t, t1 + 1e-12);
  for (let i = a; i < b; i++) {
    const x = xs.v[i], t = xs.t[i];
    if (x === null || !isFinite(x)) { continue; }
    const j = nearest(ys.t, t);
    if (j < 0 || Math.abs(ys.t[j] - t) > most) { continue; }
    const y = ys.v[j];
    if (y === null || !isFinite(y)) { continue; }
    out.t.push(t); out.x.push(x); out.y.push(y);
  }
  return out;
}

/**
 * Whether two fields are coordinates of one frame (`x` and `y`, or
 * `position.x` and `position.y`), drawn with one scale on both axes.
 * @param {string} a
 * @param {string} b
 */
function sameFrame(a, b) {
  /** @param {string} n */
  const axis = (n) => (n.split(/[./]/).pop() || '').replace(/\[\d+\]$/, '');
  return ['x', 'y', 'z'].indexOf(axis(a)) >= 0 && ['x', 'y', 'z'].indexOf(axis(b)) >= 0;
}

/** A plot of one field against another, paired by time. */
export class XyPlot {
  /**
   * @param {HTMLElement} parent
   * @param {XyField} xs
   * @param {XyField} ys
   * @param {string} color
   * @param {string} [tag] what tells the logs apart, on a page of several
   */
  constructor(parent, xs, ys, color, tag) {
    this.xs = xs; this.ys = ys; this.color = color; this.linked = true; this.dirty = false;
    this.title = ys.label + ' against ' + xs.label + (tag || '');
    this.height = 360; this.L = 64; this.R = 12; this.T = 8; this.B = 34;
    this.equal = sameFrame(xs.label, ys.label);
    /** @type {{t: number[], x: number[], y: number[]}} */
    this.pts = { t: [], x: [], y: [] };
    this.X = (/** @type {number} */ x) => x;
    this.Y = (/** @type {number} */ y) => y;
    const box = el('div', { cls: 'panel xy' });
    box.appendChild(el('div', { cls: 'title', text: this.title },
      el('span', { cls: 'sub', text: 'XY: each sample of ' + xs.label + ' with the sample of ' + ys.label + ' nearest in time, over the time view' })));
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { style: 'height:' + this.height + 'px', role: 'img' }));
    this.overlay = /** @type {HTMLCanvasElement} */ (el('canvas', { cls: 'overlay', 'aria-hidden': 'true', style: 'height:' + this.height + 'px' }));
    this.overlayStale = true;
    box.appendChild(el('div', { cls: 'area' }, this.canvas, this.overlay));
    this.readout = el('div', { cls: 'readout' });
    box.appendChild(this.readout);
    parent.appendChild(box);
    onCursor((t) => { if (onScreen(this)) { this.cursor(t); } });
    register(this);
  }

  /** Draws the pairs of the time view. */
  draw() {
    this.dirty = false;
    this.overlayStale = true;
    const c = sizeCanvas(this.canvas, this.height), g = c.g, L = this.L, R = this.R, T = this.T, B = this.B;
    const pw = c.w - L - R, ph = c.h - T - B;
    const p = pairByTime(this.xs, this.ys, view.x0, view.x1);
    this.pts = p;
    const rx = yRange(p.x), ry = yRange(p.y);
    let x0 = rx.lo, x1 = rx.hi, y0 = ry.lo, y1 = ry.hi;
    if (this.equal && p.t.length) {
      // One scale on both axes: the narrower range widened about its
      // middle.
      const s = Math.max((x1 - x0) / pw, (y1 - y0) / ph);
      const mx = x0 / 2 + x1 / 2, my = y0 / 2 + y1 / 2;
      x0 = mx - s * pw / 2; x1 = mx + s * pw / 2; y0 = my - s * ph / 2; y1 = my + s * ph / 2;
    }
    /** @param {number} x */
    const X = (x) => L + Math.min(1.02, Math.max(-0.02, (x / 2 - x0 / 2) / (x1 / 2 - x0 / 2))) * pw;
    /** @param {number} y */
    const Y = (y) => T + (1 - Math.min(1.02, Math.max(-0.02, (y / 2 - y0 / 2) / (y1 / 2 - y0 / 2)))) * ph;
    this.X = X; this.Y = Y;
    g.clearRect(0, 0, c.w, c.h);
    g.strokeStyle = '#d9dde5'; g.fillStyle = '#5b6475'; g.font = '11px sans-serif'; g.lineWidth = 1;
    for (const tk of niceTicks(y0, y1, 5)) {
      const y = Math.round(Y(tk.v)) + 0.5;
      g.beginPath(); g.moveTo(L, y); g.lineTo(L + pw, y); g.stroke();
      g.textAlign = 'right'; g.fillText(tk.s, L - 4, y + 3);
    }
    for (const tk of niceTicks(x0, x1, 8)) {
      const x = Math.round(X(tk.v)) + 0.5;
      g.beginPath(); g.moveTo(x, T); g.lineTo(x, T + ph); g.stroke();
      g.textAlign = 'center'; g.fillText(tk.s, x, T + ph + 14);
    }
    g.textAlign = 'center'; g.fillText(this.xs.label, L + pw / 2, c.h - 4);
    g.save(); g.beginPath(); g.rect(L, T, pw, ph); g.clip();
    g.strokeStyle = this.color; g.lineWidth = 1.25; g.beginPath();
    for (let i = 0; i < p.t.length; i++) {
      const x = X(p.x[i]), y = Y(p.y[i]);
      if (i) { g.lineTo(x, y); } else { g.moveTo(x, y); }
    }
    g.stroke();
    const n = p.t.length;
    if (!n) {
      g.fillStyle = '#5b6475'; g.textAlign = 'center';
      g.fillText('no pair of samples in the time view', L + pw / 2, T + ph / 2);
    } else {
      // The first pair a circle, the last a square.
      g.fillStyle = this.color;
      g.beginPath(); g.arc(X(p.x[0]), Y(p.y[0]), 4, 0, 7); g.fill();
      g.fillRect(X(p.x[n - 1]) - 4, Y(p.y[n - 1]) - 4, 8, 8);
    }
    g.restore();
    this.canvas.setAttribute('aria-label', this.title + ': ' + n + ' points drawn from ' + fmtSecs(view.x0) + ' to ' +
      fmtSecs(view.x1) + '; x axis ' + x0 + ' to ' + x1 + '; value axis ' + y0 + ' to ' + y1);
  }

  /**
   * The time cursor at `t` seconds: a dot on the pair nearest `t`, and
   * its values.
   * @param {number | null} t
   */
  cursor(t) {
    if (this.overlayStale) { sizeCanvas(this.overlay, this.height); this.overlayStale = false; }
    const g = /** @type {CanvasRenderingContext2D} */ (this.overlay.getContext('2d'));
    g.clearRect(0, 0, this.overlay.width, this.overlay.height);
    const i = t === null ? -1 : nearest(this.pts.t, t);
    if (i < 0) { this.readout.style.display = 'none'; return; }
    const x = this.X(this.pts.x[i]), y = this.Y(this.pts.y[i]);
    g.strokeStyle = '#1d2330'; g.lineWidth = 1.5;
    g.beginPath(); g.arc(x, y, 5, 0, 7); g.stroke();
    this.readout.textContent = ['t = ' + fmtSecs(this.pts.t[i]), this.xs.label + ': ' + fmtNum(this.pts.x[i]),
      this.ys.label + ': ' + fmtNum(this.pts.y[i])].join('\n');
    this.readout.style.display = 'block';
    this.readout.style.top = (this.T + 28) + 'px';
    const w = this.overlay.width / (window.devicePixelRatio || 1);
    this.readout.style.left = (x + 300 > w ? Math.max(0, x - 300) : x + 14) + 'px';
  }
}
