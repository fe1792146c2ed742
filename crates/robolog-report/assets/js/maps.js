// Positions from above: paths and scenes (x/y), GPS tracks in metres, and
// the metre axes and scale bars the sensor views share.

import { COLORS, el, fmtNum, fmtSecs, lowerBound, niceTicks, secs } from './format.js';
import { register, sizeCanvas } from './timeaxis.js';
import { chLabel } from './data.js';

/** @typedef {import('./data.js').Log} LogData */
/** @typedef {import('./types.js').TrackData} TrackData */

/**
 * A line of a map: times in seconds, coordinates `a` and `b` (x and y, or
 * latitude and longitude).
 * @typedef {object} MapLine
 * @property {number[]} t
 * @property {(number | null)[]} a
 * @property {(number | null)[]} b
 * @property {string} [color]
 * @property {number} [id]
 */

/**
 * A round length (1, 2 or 5 times a power of ten) near `m` metres, and
 * its label.
 * @param {number} m
 */
function scaleLength(m) {
  const p = Math.pow(10, Math.floor(Math.log10(m))), n = m / p;
  const v = (n >= 5 ? 5 : n >= 2 ? 2 : 1) * p;
  return { v, s: v >= 1000 ? (v / 1000) + ' km' : (v >= 1 ? String(v) : v.toPrecision(1)) + ' m' };
}

/**
 * A scale bar of about a fifth of the plot's width, `s` pixels a metre,
 * at the bottom right of the plot area (right edge rx, baseline by).
 * @param {CanvasRenderingContext2D} g
 * @param {number} s
 * @param {number} plotWidth
 * @param {number} rx
 * @param {number} by
 */
export function drawScaleBar(g, s, plotWidth, rx, by) {
  const len = scaleLength(plotWidth / 5 / s), px = len.v * s;
  g.strokeStyle = '#1d2330'; g.lineWidth = 2;
  g.beginPath(); g.moveTo(rx - px, by - 4); g.lineTo(rx - px, by); g.lineTo(rx, by); g.lineTo(rx, by - 4); g.stroke();
  g.fillStyle = '#1d2330'; g.font = '11px sans-serif'; g.textAlign = 'center';
  g.fillText(len.s, rx - px / 2, by - 6);
  return px;
}

/**
 * Axes in metres around the plot area (L, T, w, h) for x in x0..x1 and y
 * in y0..y1 (y up).
 * @param {CanvasRenderingContext2D} g
 * @param {number} L
 * @param {number} T
 * @param {number} w
 * @param {number} h
 * @param {number} x0
 * @param {number} x1
 * @param {number} y0
 * @param {number} y1
 * @param {string} xName
 * @param {string} yName
 */
export function drawMetreAxes(g, L, T, w, h, x0, x1, y0, y1, xName, yName) {
  g.strokeStyle = '#d9dde5'; g.lineWidth = 1; g.fillStyle = '#5b6475'; g.font = '11px sans-serif';
  g.textAlign = 'center';
  for (const tk of niceTicks(x0, x1, 6)) {
    const x = L + (tk.v - x0) / (x1 - x0) * w;
    g.beginPath(); g.moveTo(x, T); g.lineTo(x, T + h); g.stroke();
    g.fillText(tk.s, x, T + h + 13);
  }
  g.textAlign = 'right';
  for (const tk of niceTicks(y0, y1, 5)) {
    const y = T + h - (tk.v - y0) / (y1 - y0) * h;
    g.beginPath(); g.moveTo(L, y); g.lineTo(L + w, y); g.stroke();
    g.fillText(tk.s, L - 4, y + 4);
  }
  g.textAlign = 'left';
  g.fillText(xName + ' (m) \u2192', L + 4, T + h + 26);
  g.save(); g.translate(12, T + h - 4); g.rotate(-Math.PI / 2); g.fillText(yName + ' (m) \u2192', 0, 0); g.restore();
}

/**
 * Equal scales on both axes: the view of x0..x1, y0..y1 in a plot area of
 * w x h pixels, centred; the metres shown and pixels a metre.
 * @param {number} x0
 * @param {number} x1
 * @param {number} y0
 * @param {number} y1
 * @param {number} w
 * @param {number} h
 */
export function fitMetres(x0, x1, y0, y1, w, h) {
  const sx = x1 - x0 || 1, sy = y1 - y0 || 1;
  const s = Math.min(w / sx, h / sy);
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  return { x0: cx - w / s / 2, x1: cx + w / s / 2, y0: cy - h / s / 2, y1: cy + h / s / 2, s };
}

/**
 * Paths and scenes from above, with equal scales on both axes; a scene
 * has a slider that places its objects at a time.
 */
export class MapView {
  /**
   * @param {HTMLElement} parent
   * @param {string} title
   * @param {string} cls `path` or `scene`
   * @param {MapLine[]} lines
   * @param {number | null} slider the span of the slider, seconds (none: null)
   */
  constructor(parent, title, cls, lines, slider) {
    this.lines = lines; this.linked = false; this.dirty = false;
    /** @type {number | null} */
    this.at = null;
    const box = el('div', { cls: 'panel map ' + cls });
    box.appendChild(el('div', { cls: 'title', text: title }, el('span', { cls: 'sub', text: 'x/y, seen from above' })));
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { style: 'height:360px', role: 'img' }));
    box.appendChild(this.canvas);
    if (slider) {
      const range = /** @type {HTMLInputElement} */ (el('input', { type: 'range', min: '0', max: '1000', value: '1000' }));
      const label = el('span', { cls: 'hint' });
      range.addEventListener('input', () => {
        this.at = +range.value / 1000 * slider; label.textContent = 't = ' + fmtSecs(this.at); this.draw();
      });
      box.appendChild(range); box.appendChild(label);
    }
    parent.appendChild(box);
    register(this);
  }

  /** Draws the lines, and the objects at the slider's time. */
  draw() {
    this.dirty = false;
    const c = sizeCanvas(this.canvas, 360), g = c.g, at = this.at;
    let minx = Infinity, maxx = -Infinity, miny = Infinity, maxy = -Infinity, points = 0;
    for (const l of this.lines) {
      for (let i = 0; i < l.t.length; i++) {
        const x = l.a[i], y = l.b[i];
        if (x === null || y === null) { continue; }
        points++;
        if (x < minx) { minx = x; } if (x > maxx) { maxx = x; }
        if (y < miny) { miny = y; } if (y > maxy) { maxy = y; }
      }
    }
    g.clearRect(0, 0, c.w, c.h);
    this.canvas.setAttribute('aria-label', this.lines.length + ' lines of ' + points + ' points from above');
    if (minx === Infinity) { return; }
    const span = Math.max(maxx - minx, maxy - miny) || 1, m = 12;
    const s = Math.min((c.w - 2 * m) / span, (c.h - 2 * m) / span);
    const ox = (c.w - (maxx - minx) * s) / 2, oy = (c.h - (maxy - miny) * s) / 2;
    /** @param {number} x */
    const X = (x) => ox + (x - minx) * s;
    /** @param {number} y */
    const Y = (y) => c.h - oy - (y - miny) * s;
    this.lines.forEach((l, li) => {
      const color = l.color || COLORS[li % COLORS.length];
      g.strokeStyle = color; g.lineWidth = at === null ? 1.5 : 1;
      g.globalAlpha = at === null ? 1 : 0.35;
      g.beginPath();
      let pen = false;
      for (let i = 0; i < l.t.length; i++) {
        const x = l.a[i], y = l.b[i];
        if (x === null || y === null) { pen = false; continue; }
        if (pen) { g.lineTo(X(x), Y(y)); } else { g.moveTo(X(x), Y(y)); pen = true; }
      }
      g.stroke(); g.globalAlpha = 1;
      if (at !== null) {
        const j = lowerBound(l.t, at + 1e-9) - 1;
        const x = l.a[j], y = l.b[j];
        if (j >= 0 && at - l.t[j] < 1 && x !== null && y !== null) {
          g.fillStyle = color; g.beginPath(); g.arc(X(x), Y(y), 3.5, 0, 7); g.fill();
        }
      }
    });
    g.fillStyle = '#5b6475'; g.font = '11px sans-serif'; g.textAlign = 'left';
    g.fillText(fmtNum(span) + ' units across', 6, c.h - 6);
  }
}

/** The mean radius of the Earth, metres. */
const EARTH_RADIUS = 6371008.8;

/**
 * A latitude/longitude track on a plane: equirectangular around the
 * track's mean latitude and longitude, in metres east and north, with a
 * scale bar and its start and end marked.
 */
export class TrackView {
  /**
   * @param {HTMLElement} parent
   * @param {LogData} log
   * @param {TrackData} track
   */
  constructor(parent, log, track) {
    this.linked = false; this.dirty = false;
    const p = track.points;
    /** @type {number[]} */
    const keep = [];
    for (let i = 0; i < p.t.length; i++) { if (p.a[i] !== null && p.b[i] !== null) { keep.push(i); } }
    const n = keep.length;
    let lat0 = 0, lon0 = 0;
    for (const i of keep) { lat0 += Number(p.a[i]); lon0 += Number(p.b[i]); }
    lat0 /= n || 1; lon0 /= n || 1;
    const m = Math.PI / 180 * EARTH_RADIUS, k = Math.cos(lat0 * Math.PI / 180);
    this.x = new Float64Array(n); this.y = new Float64Array(n); this.t = keep.map((i) => p.t[i]);
    keep.forEach((i, j) => { this.x[j] = (Number(p.b[i]) - lon0) * k * m; this.y[j] = (Number(p.a[i]) - lat0) * m; });
    const box = el('div', { cls: 'panel map track' });
    box.appendChild(el('div', { cls: 'title', text: 'Track: ' + chLabel(log, track.channel) },
      el('span', { cls: 'sub', text: 'metres east and north of ' + lat0.toFixed(6) + ', ' + lon0.toFixed(6) + ' (mean position; equirectangular, north up)' })));
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { style: 'height:380px', role: 'img' }));
    box.appendChild(this.canvas);
    parent.appendChild(box);
    register(this);
  }

  /** Draws the track, its start and end. */
  draw() {
    this.dirty = false;
    const c = sizeCanvas(this.canvas, 380), g = c.g, n = this.x.length, xs = this.x, ys = this.y;
    g.clearRect(0, 0, c.w, c.h);
    this.canvas.setAttribute('aria-label', 'track of ' + n + ' fixes');
    if (!n) { return; }
    const L = 60, T = 8, R = 12, B = 34, w = Math.max(10, c.w - L - R), h = c.h - T - B;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let i = 0; i < n; i++) {
      x0 = Math.min(x0, xs[i]); x1 = Math.max(x1, xs[i]); y0 = Math.min(y0, ys[i]); y1 = Math.max(y1, ys[i]);
    }
    const pad = Math.max(x1 - x0, y1 - y0, 1) * 0.05;
    const fit = fitMetres(x0 - pad, x1 + pad, y0 - pad, y1 + pad, w, h);
    drawMetreAxes(g, L, T, w, h, fit.x0, fit.x1, fit.y0, fit.y1, 'east', 'north');
    /** @param {number} x */
    const X = (x) => L + (x - fit.x0) * fit.s;
    /** @param {number} y */
    const Y = (y) => T + h - (y - fit.y0) * fit.s;
    g.strokeStyle = COLORS[0]; g.lineWidth = 2;
    g.beginPath();
    for (let j = 0; j < n; j++) { if (j) { g.lineTo(X(xs[j]), Y(ys[j])); } else { g.moveTo(X(xs[j]), Y(ys[j])); } }
    g.stroke();
    g.font = '11px sans-serif'; g.textAlign = 'left';
    g.fillStyle = '#2ca02c'; g.beginPath(); g.arc(X(xs[0]), Y(ys[0]), 5, 0, 7); g.fill();
    g.fillText('start ' + fmtSecs(secs(this.t[0])), X(xs[0]) + 8, Y(ys[0]) - 6);
    g.fillStyle = '#d62728'; g.fillRect(X(xs[n - 1]) - 4, Y(ys[n - 1]) - 4, 8, 8);
    g.fillText('end ' + fmtSecs(secs(this.t[n - 1])), X(xs[n - 1]) + 8, Y(ys[n - 1]) + 14);
    drawScaleBar(g, fit.s, w, L + w - 8, T + h - 8);
  }
}
