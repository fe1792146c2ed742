// A PX4 flight's own views: its summary table, every parameter with a
// filter (those that differ from their default or change in flight
// marked), and the spectra and spectrograms of the gyro and the
// accelerometer.

import { COLORS, el, fmtNum, fmtSecs, niceTicks, secs } from './format.js';
import { onView, sizeCanvas, timeAxisEvents, view } from './timeaxis.js';
import { table } from './tables.js';

/** @typedef {import('./types.js').FlightData} FlightData */
/** @typedef {import('./types.js').SpectrumData} SpectrumData */
/** @typedef {import('./types.js').ParametersData} ParametersDataPx4 */

/**
 * The flight's summary as a table of two columns.
 * @param {FlightData} flight
 */
export function flightSummary(flight) {
  return el('div', { cls: 'flight-summary' }, el('h3', { text: 'Flight summary' }),
    table(['', ''], flight.summary.rows, 'flight-summary'));
}

/**
 * Every parameter: at start (with its default, where the log records
 * defaults), then each change during the log with its time; those that
 * differ from their default or change in flight marked, and a filter over
 * names, values and marks.
 * @param {ParametersDataPx4} params
 */
export function px4Parameters(params) {
  const changed = new Set(params.list.filter((p) => p.t !== null).map((p) => p.name));
  const atStart = params.list.filter((p) => p.t === null).length;
  const box = el('div', { cls: 'parameters' });
  box.appendChild(el('h3', { text: 'Parameters (' + atStart + ' at start' + (changed.size ? ', ' + (params.list.length - atStart) + ' changes' : '') + ')' }));
  box.appendChild(el('div', { cls: 'hint', text: params.note + '. Marks: \u2260 differs from its default, \u0394 changed during the log.' }));
  const filter = /** @type {HTMLInputElement} */ (el('input', { type: 'search', cls: 'filter', placeholder: 'filter the parameters by name, value or mark (\u2260, \u0394)' }));
  const rows = params.list.map((p) => {
    const differs = p.default !== null && p.default !== p.value;
    const mark = (differs ? '\u2260' : '') + (changed.has(p.name) ? '\u0394' : '');
    return [p.name, p.value, p.default === null ? '\u2014' : p.default, p.t === null ? 'at start' : fmtSecs(secs(p.t)), mark];
  });
  const t = table(['name', 'value', 'default', 'when', 'mark'], rows, 'parameters');
  filter.addEventListener('input', () => {
    const q = filter.value.toLowerCase();
    rows.forEach((r, i) => {
      const row = /** @type {HTMLElement} */ (t.children[i + 1]);
      row.style.display = !q || r.some((c) => String(c).toLowerCase().includes(q)) ? '' : 'none';
    });
  });
  box.appendChild(filter);
  box.appendChild(el('div', { cls: 'scroll' }, t));
  return box;
}

/**
 * The spectrogram's intensities from base64.
 * @param {string} b64
 */
function intensities(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) { out[i] = s.charCodeAt(i); }
  return out;
}

/**
 * A colour of the spectrogram's scale (dark blue through red to yellow)
 * for an intensity 0-255.
 * @param {number} v
 * @returns {[number, number, number]}
 */
function heat(v) {
  const x = v / 255;
  return [Math.round(255 * Math.min(1, Math.max(0, 2 * x - 0.3))), Math.round(255 * Math.min(1, Math.max(0, 2 * x - 1))),
    Math.round(255 * Math.max(0, Math.min(1, 0.5 + 1.5 * x) - Math.max(0, 2.5 * x - 1)))];
}

/**
 * A sensor's mean amplitude per frequency, one line per axis, on a
 * frequency axis of its own.
 * @param {HTMLElement} parent
 * @param {SpectrumData} sp
 * @param {string} tag the log's name after the title, on a page of several
 */
export function spectrumPlot(parent, sp, tag) {
  const box = el('div', { cls: 'panel spectrum' }, el('div', { cls: 'title', text: 'Spectrum of the ' + sp.quantity.replace(/ \(.*/, '') + ': ' + sp.source + tag },
    el('span', { cls: 'sub', text: 'mean amplitude, ' + sp.quantity + ', of Hann windows of ' + (2 * (sp.spectrogram.rows - 1)) + ' samples at ' + fmtNum(Math.round(sp.rate * 10) / 10) + ' Hz' })));
  const canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { role: 'img', style: 'height:200px; cursor:default',
    'aria-label': sp.source + ' spectrum: ' + sp.axes.length + ' axes of ' + sp.spectrogram.rows + ' frequency bins, 0 to ' + fmtNum(sp.step * (sp.spectrogram.rows - 1)) + ' Hz' }));
  box.appendChild(el('div', { cls: 'area' }, canvas));
  parent.appendChild(box);
  const { g, w, h } = sizeCanvas(canvas, 200);
  const L = 58, R = 10, T = 10, B = 28;
  const n = sp.spectrogram.rows, fmax = sp.step * (n - 1);
  let top = 0;
  for (const a of sp.axes) { for (const v of a.amplitude) { if (v > top) { top = v; } } }
  const lo = Math.log10(Math.max(top, 1e-12)) - 5, hi = Math.log10(Math.max(top, 1e-12)) + 0.2;
  const x = (/** @type {number} */ f) => L + (f / fmax) * (w - L - R);
  const y = (/** @type {number} */ v) => T + (1 - (Math.log10(Math.max(v, 1e-12)) - lo) / (hi - lo)) * (h - T - B);
  g.fillStyle = '#fff'; g.fillRect(0, 0, w, h);
  g.strokeStyle = '#ddd'; g.fillStyle = '#333'; g.font = '11px sans-serif';
  for (const tk of niceTicks(0, fmax, 8)) {
    g.beginPath(); g.moveTo(x(tk.v), T); g.lineTo(x(tk.v), h - B); g.stroke();
    g.fillText(tk.s, x(tk.v) - 8, h - B + 14);
  }
  g.fillText('Hz', w - R - 16, h - 4);
  for (let e = Math.ceil(lo); e <= hi; e++) {
    const yy = y(Math.pow(10, e));
    g.beginPath(); g.moveTo(L, yy); g.lineTo(w - R, yy); g.stroke();
    g.fillText('1e' + e, 4, yy + 4);
  }
  sp.axes.forEach((a, k) => {
    g.strokeStyle = COLORS[k % COLORS.length]; g.beginPath();
    a.amplitude.forEach((v, i) => { if (i === 0) { g.moveTo(x(0), y(v)); } else { g.lineTo(x(i * sp.step), y(v)); } });
    g.stroke();
    g.fillStyle = COLORS[k % COLORS.length]; g.fillText(a.name, w - R - 60 + 18 * k, T + 12);
  });
  return canvas;
}

/**
 * The spectrogram: time across (the page's time axis, zoomed and panned
 * with the others), frequency up, power in colour.
 * @param {HTMLElement} parent
 * @param {SpectrumData} sp
 * @param {string} tag the log's name after the title, on a page of several
 */
export function spectrogram(parent, sp, tag) {
  const s = sp.spectrogram;
  const box = el('div', { cls: 'panel spectrogram' }, el('div', { cls: 'title', text: 'Spectrogram of the ' + sp.quantity.replace(/ \(.*/, '') + ': ' + sp.source + tag },
    el('span', { cls: 'sub', text: 'the three axes\' power, ' + fmtNum(Math.round(s.db_min)) + ' dB (dark) to ' + fmtNum(Math.round(s.db_max)) + ' dB (yellow)' })));
  const canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { role: 'img', style: 'height:220px',
    'aria-label': sp.source + ' spectrogram: ' + s.columns + ' time steps of ' + s.rows + ' frequency bins' }));
  box.appendChild(el('div', { cls: 'area' }, canvas));
  parent.appendChild(box);
  const data = intensities(s.data);
  // The image: one pixel per column and bin, 0 Hz at the bottom.
  const img = /** @type {HTMLCanvasElement} */ (document.createElement('canvas'));
  img.width = Math.max(1, s.columns); img.height = Math.max(1, s.rows);
  const ig = /** @type {CanvasRenderingContext2D} */ (img.getContext('2d'));
  const pixels = ig.createImageData(img.width, img.height);
  for (let c = 0; c < s.columns; c++) {
    for (let r = 0; r < s.rows; r++) {
      const [R0, G0, B0] = heat(data[c * s.rows + r]);
      const o = ((s.rows - 1 - r) * s.columns + c) * 4;
      pixels.data[o] = R0; pixels.data[o + 1] = G0; pixels.data[o + 2] = B0; pixels.data[o + 3] = 255;
    }
  }
  ig.putImageData(pixels, 0, 0);
  const L = 58, R = 10, T = 6, B = 20;
  const fmax = sp.step * (s.rows - 1);
  const t0 = secs(s.t0) - secs(s.dt) / 2, span = secs(s.dt) * s.columns;
  const draw = () => {
    const { g, w, h } = sizeCanvas(canvas, 220);
    g.fillStyle = '#fff'; g.fillRect(0, 0, w, h);
    const pw = w - L - R, ph = h - T - B;
    const px = (/** @type {number} */ t) => L + (t - view.x0) / (view.x1 - view.x0) * pw;
    g.save(); g.beginPath(); g.rect(L, T, pw, ph); g.clip();
    g.imageSmoothingEnabled = false;
    g.drawImage(img, px(t0), T, px(t0 + span) - px(t0), ph);
    g.restore();
    g.fillStyle = '#333'; g.strokeStyle = '#999'; g.font = '11px sans-serif';
    for (const tk of niceTicks(view.x0, view.x1, 8)) {
      g.beginPath(); g.moveTo(px(tk.v), h - B); g.lineTo(px(tk.v), h - B + 4); g.stroke();
      g.fillText(tk.s, px(tk.v) - 8, h - B + 15);
    }
    g.fillText('s', w - R - 8, h - 4);
    for (const tk of niceTicks(0, fmax, 5)) {
      const yy = T + (1 - tk.v / fmax) * ph;
      g.beginPath(); g.moveTo(L - 4, yy); g.lineTo(L, yy); g.stroke();
      g.fillText(tk.s + ' Hz', 4, yy + 4);
    }
  };
  draw();
  onView(draw);
  timeAxisEvents(canvas, L, R);
  return canvas;
}
