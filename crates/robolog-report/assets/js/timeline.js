// The timeline of a log: one row per channel, shaded by message density;
// gaps in red, backward time steps as ticks, problems and bands on top;
// the messages outside the log's span (far from the bulk of them) marked
// at its edges with their count and time.

import { el, fmtSecs, niceTicks, secs } from './format.js';
import { register, sizeCanvas, timeAxisEvents, view } from './timeaxis.js';

/** @typedef {import('./timeaxis.js').TimeView} TimeView */
/** @typedef {import('./types.js').OutlierData} OutlierData */

/** @typedef {import('./data.js').Log} LogData */
/** @typedef {import('./data.js').Channel} ChannelData */

/** Rows listed at most in tables and timelines. */
export const MAX_ROWS = 300;

/**
 * The colour of a text message's level: red for errors, orange for
 * warnings, blue for the rest.
 * @param {string} level
 */
export function levelColor(level) {
  return /ERROR|CRITICAL|ALERT|EMERGENCY|COLLISION|FATAL/.test(level) ? '#c62828' : (/WARN/.test(level) ? '#e69100' : '#1f77b4');
}

/**
 * A group of outliers as text: `3 messages at -19.44 s to -17.71 s
 * (mission, ...)`.
 * @param {OutlierData} o
 */
export function outlierText(o) {
  const at = o.start === o.end ? fmtSecs(secs(o.start)) : fmtSecs(secs(o.start)) + ' to ' + fmtSecs(secs(o.end));
  const topics = o.topics.length > 3 ? o.topics.slice(0, 3).join(', ') + ', \u2026' : o.topics.join(', ');
  return o.count + (o.count === 1 ? ' message at ' : ' messages at ') + at + (topics ? ' (' + topics + ')' : '');
}

/** A log's channels on its time axis. */
export class Timeline {
  /**
   * @param {HTMLElement} parent
   * @param {LogData} log
   * @param {Map<string, Map<string, string>>} bandColors each band's colours by label
   * @param {TimeView} [own] a time view of its own (else the shared one)
   */
  constructor(parent, log, bandColors, own) {
    this.log = log; this.linked = true; this.dirty = false; this.bandColors = bandColors;
    /** @type {TimeView} */
    this.view = own || view;
    /** @type {OutlierData[]} */
    this.outliers = log.outliers || [];
    // The first MAX_ROWS channels.
    this.rows = log.channels.slice(0, MAX_ROWS);
    const box = el('div', { cls: 'panel timeline' });
    const more = log.channels.length + log.channels_omitted - this.rows.length;
    box.appendChild(el('div', { cls: 'title', text: 'Timeline' }, el('span', {
      cls: 'sub', text: 'message density per channel; red: gaps, black ticks: time going back, red triangles: problems' +
        (more > 0 ? '; the first ' + this.rows.length + ' channels of ' + (this.rows.length + more) : '') +
        (own ? '; its own time axis (the plots share one)' : '')
    })));
    if (this.outliers.length) {
      const n = this.outliers.reduce((a, o) => a + o.count, 0);
      box.appendChild(el('div', {
        cls: 'hint outliers', text: n + (n === 1 ? ' message lies' : ' messages lie') + ' far outside the span of the others, marked at the edges (' +
          'the span is where the bulk of the messages are): ' + this.outliers.map(outlierText).join('; ')
      }));
    }
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', { role: 'img' }));
    box.appendChild(this.canvas);
    this.readout = el('div', { cls: 'readout' });
    box.appendChild(this.readout);
    parent.appendChild(box);
    this.L = 200; this.R = 10; this.row = 14;
    this.bandRows = log.bands.length + (log.events.length ? 1 : 0);
    timeAxisEvents(this.canvas, this.L, this.R, this.view);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => { this.readout.style.display = 'none'; });
    register(this);
  }

  /** Draws the rows in the view. */
  draw() {
    this.dirty = false;
    const log = this.log, L = this.L, R = this.R, row = this.row, top = 14 + this.bandRows * row;
    const rows = this.rows, h = top + rows.length * row + 22;
    const c = sizeCanvas(this.canvas, h), g = c.g, pw = c.w - L - R, x0 = this.view.x0, x1 = this.view.x1, dur = secs(log.duration) || 1;
    /** @param {number} t */
    const X = (t) => L + (t - x0) / (x1 - x0) * pw;
    g.clearRect(0, 0, c.w, c.h);
    g.font = '11px sans-serif';
    log.bands.forEach((band, bi) => {
      const y = 14 + bi * row, colors = this.bandColors.get(band.name);
      g.fillStyle = '#5b6475'; g.textAlign = 'right'; g.fillText(band.name, L - 6, y + 10);
      for (const sp of band.spans) {
        const a = Math.max(L, X(secs(sp[0]))), b = Math.min(L + pw, X(secs(sp[1])));
        if (b > a) {
          g.fillStyle = (colors && colors.get(sp[2])) || '#eeeeee'; g.fillRect(a, y, b - a, row - 2);
          if (b - a > 40) { g.fillStyle = '#1d2330'; g.textAlign = 'left'; g.fillText(sp[2], a + 3, y + 10); }
        }
      }
    });
    if (log.events.length) {
      const ey = 14 + log.bands.length * row;
      g.fillStyle = '#5b6475'; g.textAlign = 'right'; g.fillText('messages/events', L - 6, ey + 10);
      for (const e of log.events) {
        const x = X(secs(e.t));
        if (x < L || x > L + pw) { continue; }
        g.fillStyle = levelColor(e.level);
        g.fillRect(x - 1, ey, 3, row - 2);
      }
    }
    const n = log.buckets;
    rows.forEach((ch, i) => {
      const y = top + i * row;
      let max = 0;
      for (const d of ch.density) { if (d > max) { max = d; } }
      g.fillStyle = '#1d2330'; g.textAlign = 'right';
      g.fillText(ch.label.length > 30 ? ch.label.slice(0, 29) + '\u2026' : ch.label, L - 6, y + 10);
      // Messages per bucket; -k: k empty buckets.
      let k = 0;
      for (const d of ch.density) {
        if (d < 0) { k -= d; continue; }
        let a = X(k / n * dur), b = X((k + 1) / n * dur);
        k++;
        if (!d || b < L || a > L + pw) { continue; }
        a = Math.max(a, L); b = Math.min(b, L + pw);
        g.fillStyle = 'rgba(31,119,180,' + (0.25 + 0.75 * d / max).toFixed(3) + ')';
        g.fillRect(a, y + 1, Math.max(1, b - a), row - 3);
      }
      g.fillStyle = 'rgba(198,40,40,0.55)';
      for (const gp of ch.gaps) {
        const a = Math.max(L, X(secs(gp[0]))), b = Math.min(L + pw, X(secs(gp[1])));
        if (b > a) { g.fillRect(a, y + row / 2 - 1, b - a, 3); }
      }
      g.fillStyle = '#000';
      for (const t of ch.jumps) { const x = X(secs(t)); if (x >= L && x <= L + pw) { g.fillRect(x - 1, y, 2, row - 2); } }
    });
    g.fillStyle = '#c62828';
    for (const p of log.problems) {
      if (p.t === null) { continue; }
      const x = X(secs(p.t));
      if (x < L || x > L + pw) { continue; }
      g.beginPath(); g.moveTo(x, 12); g.lineTo(x - 5, 2); g.lineTo(x + 5, 2); g.closePath(); g.fill();
    }
    // Outliers: an orange tick where in view, else counted at the edge
    // they lie beyond, labelled with their count and nearest time.
    let before = 0, after = 0, nearBefore = -Infinity, nearAfter = Infinity;
    g.fillStyle = '#e69100';
    for (const o of this.outliers) {
      const a = secs(o.start), b = secs(o.end);
      if (b < x0) { before += o.count; nearBefore = Math.max(nearBefore, b); continue; }
      if (a > x1) { after += o.count; nearAfter = Math.min(nearAfter, a); continue; }
      const xa = Math.max(L, X(a)), xb = Math.min(L + pw, X(b));
      g.fillRect(xa - 1, top, Math.max(3, xb - xa + 2), rows.length * row);
    }
    g.font = '10px sans-serif';
    if (before) {
      g.beginPath(); g.moveTo(L, 7); g.lineTo(L + 7, 2); g.lineTo(L + 7, 12); g.closePath(); g.fill();
      g.textAlign = 'left'; g.fillText(before + ' at ' + fmtSecs(nearBefore) + (before > 1 ? ' and before' : ''), L + 10, 11);
    }
    if (after) {
      g.beginPath(); g.moveTo(L + pw, 7); g.lineTo(L + pw - 7, 2); g.lineTo(L + pw - 7, 12); g.closePath(); g.fill();
      g.textAlign = 'right'; g.fillText(after + ' at ' + fmtSecs(nearAfter) + (after > 1 ? ' and after' : ''), L + pw - 10, 11);
    }
    g.font = '11px sans-serif';
    g.fillStyle = '#5b6475'; g.textAlign = 'center'; g.strokeStyle = '#d9dde5';
    for (const tk of niceTicks(x0, x1, 8)) { g.fillText(tk.s + ' s', X(tk.v), h - 6); }
    this.canvas.setAttribute('aria-label', 'timeline of ' + rows.length + ' channels from ' + fmtSecs(x0) + ' to ' + fmtSecs(x1) +
      (before ? '; ' + before + ' messages before it' : '') + (after ? '; ' + after + ' messages after it' : ''));
  }

  /**
   * The channel and time under the pointer.
   * @param {MouseEvent} e
   */
  hover(e) {
    const r = this.canvas.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
    const pw = r.width - this.L - this.R, top = 14 + this.bandRows * this.row;
    const ch = this.rows[Math.floor((py - top) / this.row)];
    if (!ch || px < this.L) { this.readout.style.display = 'none'; return; }
    const t = this.view.x0 + (px - this.L) / pw * (this.view.x1 - this.view.x0);
    this.readout.textContent = ch.label + ' (' + ch.type + ')\n' + ch.count + ' messages; t = ' + fmtSecs(t) +
      (ch.gaps.length ? '\n' + ch.gaps.length + ' gaps' : '') + (ch.jumps.length ? '\n' + ch.jumps.length + ' times back' : '');
    this.readout.style.display = 'block';
    this.readout.style.left = Math.min(px + 12, r.width - 220) + 'px';
    this.readout.style.top = (py + 16) + 'px';
  }
}
