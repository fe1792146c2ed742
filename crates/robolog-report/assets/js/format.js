// Elements, numbers and times as text, and the searches every view uses.

/** Line colours, in order. */
export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

/**
 * A new element: `attrs.text` its text, `attrs.cls` its class, other keys
 * attributes; then its children (strings as text; null left out).
 * @param {string} tag
 * @param {Record<string, string> | null} [attrs]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) {
    for (const k of Object.keys(attrs)) {
      if (k === 'text') { e.textContent = attrs[k]; } else if (k === 'cls') { e.className = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
    }
  }
  for (const c of children) {
    if (c === null || c === undefined) { continue; }
    e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return e;
}

/**
 * Nanoseconds as seconds.
 * @param {number} ns
 */
export function secs(ns) { return ns / 1e9; }

/**
 * Seconds as text, in a unit that suits them.
 * @param {number} s
 */
export function fmtSecs(s) {
  const a = Math.abs(s);
  if (a >= 3600) { return (s / 3600).toFixed(2) + ' h'; }
  if (a >= 100) { return s.toFixed(1) + ' s'; }
  if (a >= 1) { return s.toFixed(3) + ' s'; }
  return (s * 1000).toFixed(3) + ' ms';
}

/**
 * Bytes as text (kB, MB...).
 * @param {number} n
 */
export function fmtBytes(n) {
  const u = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
  return (i ? n.toFixed(1) : String(n)) + ' ' + u[i];
}

/**
 * A value as text: `-` for none, six decimals at most, exponents for the
 * very large and small.
 * @param {number | null | undefined} v
 */
export function fmtNum(v) {
  if (v === null || v === undefined) { return '-'; }
  if (v === Infinity) { return '+inf'; }
  if (v === -Infinity) { return '-inf'; }
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) { return v.toExponential(4); }
  return String(Math.round(v * 1e6) / 1e6);
}

/**
 * A tick: its value and label.
 * @typedef {{v: number, s: string}} Tick
 */

/**
 * Round tick values between lo and hi, about n of them, with their labels
 * (as many decimals as the step needs).
 * @param {number} lo
 * @param {number} hi
 * @param {number} n
 * @returns {Tick[]}
 */
export function niceTicks(lo, hi, n) {
  const span = hi - lo;
  if (!(span > 0)) { return [{ v: lo, s: fmtNum(lo) }]; }
  if (!isFinite(span)) { return [lo, lo / 2 + hi / 2, hi].map((v) => ({ v, s: fmtNum(v) })); }
  let step = Math.pow(10, Math.floor(Math.log10(span / n)));
  const err = span / n / step;
  if (err >= 7.5) { step *= 10; } else if (err >= 3.5) { step *= 5; } else if (err >= 1.5) { step *= 2; }
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const big = Math.max(Math.abs(lo), Math.abs(hi)) >= 1e7;
  /** @type {Tick[]} */
  const out = [];
  for (let k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; k++) {
    const v = k * step;
    out.push({ v, s: big ? v.toExponential(2) : (Math.abs(v) < step / 2 ? '0' : v.toFixed(Math.min(decimals, 12))) });
  }
  return out;
}

/**
 * The first index with `t[i] >= x` in sorted `t`.
 * @param {ArrayLike<number>} t
 * @param {number} x
 */
export function lowerBound(t, x) {
  let lo = 0, hi = t.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (t[m] < x) { lo = m + 1; } else { hi = m; } }
  return lo;
}
