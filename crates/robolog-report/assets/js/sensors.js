// Sensor views: camera thumbnails, and point clouds and scans from above.
// Strings of the log (topics) go in as text only.

import { COLORS, el, fmtNum, fmtSecs, secs } from './format.js';
import { register, sizeCanvas } from './timeaxis.js';
import { drawMetreAxes, drawScaleBar, fitMetres } from './maps.js';
import { chLabel } from './data.js';

/** @typedef {import('./data.js').Log} LogData */
/** @typedef {import('./types.js').StripData} StripData */
/** @typedef {import('./types.js').CloudData} CloudData */

/**
 * The f32 values of base64 text (packed little-endian, as the data holds
 * them).
 * @param {string | null} b64
 */
export function sensorFloats(b64) {
  if (!b64) { return new Float32Array(0); }
  const bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
  const out = new Float32Array(bytes.length >> 2), dv = new DataView(bytes.buffer);
  for (let j = 0; j < out.length; j++) { out[j] = dv.getFloat32(j * 4, true); }
  return out;
}

/**
 * The values at fractions `qs` of the finite values of `arrays` together.
 * @param {Float32Array[]} arrays
 * @param {number[]} qs
 */
export function quantiles(arrays, qs) {
  /** @type {number[]} */
  const all = [];
  for (const a of arrays) { for (let i = 0; i < a.length; i++) { if (isFinite(a[i])) { all.push(a[i]); } } }
  if (!all.length) { return qs.map(() => 0); }
  const s = Float64Array.from(all).sort();
  return qs.map((q) => s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))]);
}

/** The viridis colour map, in ten steps. */
const VIRIDIS = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142], [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];

/**
 * The colour of the viridis map at f in 0..1.
 * @param {number} f
 */
function viridis(f) {
  const x = Math.min(1, Math.max(0, f)) * (VIRIDIS.length - 1), i = Math.min(VIRIDIS.length - 2, Math.floor(x)), k = x - i;
  const a = VIRIDIS[i], b = VIRIDIS[i + 1];
  return 'rgb(' + [0, 1, 2].map((c) => Math.round(a[c] + (b[c] - a[c]) * k)).join(',') + ')';
}

/**
 * The view of points whose bulk spans qx and qy (`[low, high]`): padded
 * by 5% of the larger span (at least 1 m across), and grown to take in
 * the origin where it lies within half that span of the box.
 * @param {number[]} qx
 * @param {number[]} qy
 * @returns {[number, number, number, number]} x0, x1, y0, y1
 */
export function cloudBounds(qx, qy) {
  const span = Math.max(qx[1] - qx[0], qy[1] - qy[0], 1), pad = span * 0.05, near = span / 2;
  /** @type {[number, number, number, number]} */
  let b = [qx[0] - pad, qx[1] + pad, qy[0] - pad, qy[1] + pad];
  if (b[0] - near <= 0 && b[1] + near >= 0 && b[2] - near <= 0 && b[3] + near >= 0) {
    b = [Math.min(b[0], -pad), Math.max(b[1], pad), Math.min(b[2], -pad), Math.max(b[3], pad)];
  }
  return b;
}

/**
 * Camera thumbnails, each labelled with its time; a click shows one
 * larger.
 * @param {HTMLElement} parent
 * @param {LogData} log
 * @param {StripData} strip
 */
export function thumbnailStrip(parent, log, strip) {
  const ch = log.channels[strip.channel];
  const label = chLabel(log, strip.channel), count = ch ? ch.count : 0;
  const box = el('div', { cls: 'panel strip' });
  const first = strip.frames[0];
  box.appendChild(el('div', { cls: 'title', text: 'Camera: ' + label },
    el('span', { cls: 'sub', text: strip.frames.length + ' of ' + count + ' frames, spread over the topic\'s time' +
      (first ? '; ' + first.src_w + ' \u00d7 ' + first.src_h + ' px' : '') + '; click one to enlarge' })));
  const row = el('div', { cls: 'thumbs' });
  for (const f of strip.frames) {
    const img = /** @type {HTMLImageElement} */ (el('img', { alt: label + ' at ' + fmtSecs(secs(f.t)), width: String(f.w), height: String(f.h) }));
    img.src = 'data:image/jpeg;base64,' + f.jpeg;
    const fig = el('figure', { cls: 'thumb' }, img, el('figcaption', { text: fmtSecs(secs(f.t)) }));
    fig.addEventListener('click', () => { fig.classList.toggle('big'); });
    row.appendChild(fig);
  }
  box.appendChild(row);
  parent.appendChild(box);
}

/**
 * A message of a cloud view, decoded.
 * @typedef {object} CloudFrame
 * @property {number} t
 * @property {number} points
 * @property {Float32Array} x
 * @property {Float32Array} y
 * @property {Float32Array | null} c
 */

/**
 * A cloud or scan topic from above: one message at a time, chosen with a
 * slider; points coloured by z or intensity where there is one.
 */
export class CloudViewer {
  /**
   * @param {HTMLElement} parent
   * @param {LogData} log
   * @param {CloudData} cloud
   */
  constructor(parent, log, cloud) {
    this.cloud = cloud; this.linked = false; this.dirty = false; this.at = 0;
    /** @type {CloudFrame[]} */
    this.frames = cloud.frames.map((f) => ({ t: f.t, points: f.points, x: sensorFloats(f.x), y: sensorFloats(f.y), c: f.c ? sensorFloats(f.c) : null }));
    // The frames share their bounds: those of the points, the farthest
    // percent on each side left outside (a few stray points do not
    // stretch the view), padded. The frame's origin (the sensor, for a
    // cloud in the sensor's frame) is taken in only when it is near: a
    // cloud in a map frame a kilometre away is shown at its own extent.
    const qx = quantiles(this.frames.map((f) => f.x), [0.01, 0.99]), qy = quantiles(this.frames.map((f) => f.y), [0.01, 0.99]);
    this.bounds = cloudBounds(qx, qy);
    this.crange = cloud.color ? quantiles(this.frames.map((f) => f.c || new Float32Array(0)), [0.02, 0.98]) : null;
    this.box = el('div', { cls: 'panel cloud' });
    this.box.appendChild(el('div', { cls: 'title', text: (cloud.scan ? 'Scan: ' : 'Cloud: ') + chLabel(log, cloud.channel) },
      el('span', { cls: 'sub', text: 'x/y seen from above, metres in the message\'s frame' + (cloud.color ? '; coloured by ' + cloud.color : '') })));
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { style: 'height:420px', role: 'img' }));
    this.box.appendChild(this.canvas);
    this.slider = /** @type {HTMLInputElement} */ (el('input', { type: 'range', min: '0', max: String(Math.max(0, this.frames.length - 1)), step: '1', value: '0' }));
    this.label = el('span', { cls: 'hint' });
    this.slider.addEventListener('input', () => { this.at = +this.slider.value; this.draw(); });
    if (this.frames.length < 2) { this.slider.disabled = true; }
    this.box.appendChild(this.slider); this.box.appendChild(this.label);
    parent.appendChild(this.box);
    register(this);
  }

  /** Draws the message the slider is at. */
  draw() {
    this.dirty = false;
    const c = sizeCanvas(this.canvas, 420), g = c.g, f = this.frames[this.at];
    g.clearRect(0, 0, c.w, c.h);
    if (!f) { return; }
    const L = 52, T = 8, R = 12, B = 34, w = Math.max(10, c.w - L - R), h = c.h - T - B;
    const b = this.bounds, fit = fitMetres(b[0], b[1], b[2], b[3], w, h);
    drawMetreAxes(g, L, T, w, h, fit.x0, fit.x1, fit.y0, fit.y1, 'x', 'y');
    /** @param {number} x */
    const X = (x) => L + (x - fit.x0) * fit.s;
    /** @param {number} y */
    const Y = (y) => T + h - (y - fit.y0) * fit.s;
    // Points in bins of colour: one fill style per bin.
    const BINS = 32;
    /** @type {number[][]} */
    const bins = [];
    for (let k = 0; k < BINS; k++) { bins.push([]); }
    const cr = this.crange, span = cr ? (cr[1] - cr[0]) || 1 : 1;
    let drawn = 0;
    for (let i = 0; i < f.x.length; i++) {
      const px = X(f.x[i]), py = Y(f.y[i]);
      if (!(px >= L && px <= L + w && py >= T && py <= T + h)) { continue; }
      let bin = 0;
      if (f.c && cr) { const v = f.c[i]; bin = isFinite(v) ? Math.min(BINS - 1, Math.max(0, Math.floor((v - cr[0]) / span * BINS))) : 0; }
      bins[bin].push(px, py);
      drawn++;
    }
    const size = f.x.length > 5000 ? 1.5 : 2.5;
    bins.forEach((pts, bi) => {
      if (!pts.length) { return; }
      g.fillStyle = cr ? viridis((bi + 0.5) / BINS) : COLORS[0];
      for (let j = 0; j < pts.length; j += 2) { g.fillRect(pts[j] - size / 2, pts[j + 1] - size / 2, size, size); }
    });
    // The frame's origin (the sensor), where it is in view; else how far.
    const ox = X(0), oy = Y(0), origin = ox >= L && ox <= L + w && oy >= T && oy <= T + h;
    if (origin) {
      g.strokeStyle = '#d62728'; g.lineWidth = 1.5;
      g.beginPath(); g.moveTo(ox - 6, oy); g.lineTo(ox + 6, oy); g.moveTo(ox, oy - 6); g.lineTo(ox, oy + 6); g.stroke();
    }
    drawScaleBar(g, fit.s, w, L + w - 8, T + h - 8);
    if (cr) {
      // The colour scale, top right.
      const gx = L + w - 170, gy = T + 6;
      /** @param {number} v */
      const short = (v) => String(Number(v.toPrecision(3)));
      for (let q = 0; q < 140; q++) { g.fillStyle = viridis(q / 139); g.fillRect(gx + q, gy, 1, 8); }
      g.fillStyle = '#1d2330'; g.font = '10px sans-serif'; g.textAlign = 'left';
      g.fillText(short(cr[0]), gx, gy + 19); g.textAlign = 'right'; g.fillText(short(cr[1]), gx + 140, gy + 19);
      g.textAlign = 'center'; g.fillText(this.cloud.color || '', gx + 70, gy + 19);
    }
    this.label.textContent = 'message ' + (this.at + 1) + ' of ' + this.frames.length + ' shown, at ' + fmtSecs(secs(f.t)) +
      ': ' + f.x.length + (f.x.length < f.points ? ' of ' + f.points + ' points (evenly kept)' : ' points') +
      (origin ? '' : '; the origin (0, 0) is ' + fmtNum(Math.round(Math.hypot((b[0] + b[1]) / 2, (b[2] + b[3]) / 2))) + ' m from the centre of the view, out of it');
    this.canvas.setAttribute('aria-label', 'message ' + (this.at + 1) + ' from above: ' + drawn + ' points drawn' +
      (origin ? ', the origin marked' : ', the origin out of view'));
  }
}
