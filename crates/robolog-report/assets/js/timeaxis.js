// The time axis every plot and timeline shares: one view in seconds from
// each log's start; zoom and pan in any of them moves them all. Views
// register here; after a change only those on screen are drawn again,
// the others when they scroll into view.

/**
 * A time view: the seconds shown (x0 to x1) and the whole span (lo to
 * full).
 * @typedef {{x0: number, x1: number, lo: number, full: number}} TimeView
 */

/**
 * Something drawn on a canvas.
 * @typedef {object} Drawable
 * @property {HTMLCanvasElement} canvas
 * @property {boolean} linked drawn again when the time view changes
 * @property {boolean} [dirty] to be drawn again when it comes into view
 * @property {TimeView} [view] its own time view (else the shared one)
 * @property {() => void} draw
 */

/** The time shown, seconds from each log's start: the view every plot shares. */
export const view = { x0: 0, x1: 1, lo: 0, full: 1 };

/**
 * A time view of its own over 0..`end` seconds (a log's timeline on a page
 * of several keeps its own span): zoom and pan in a canvas of it move only
 * the drawables of it.
 * @param {number} end
 * @returns {TimeView}
 */
export function ownView(end) {
  const full = end > 0 ? end : 1;
  return { x0: 0, x1: full, lo: 0, full };
}

/** @type {Drawable[]} */
const drawables = [];
/** @type {Set<Drawable>} */
const visible = new Set();
/** @type {WeakMap<Element, Drawable>} */
const drawableOf = new WeakMap();
/** @type {((x0: number, x1: number) => void)[]} */
const listeners = [];

const observer = 'IntersectionObserver' in window ? new IntersectionObserver((entries) => {
  for (const e of entries) {
    const d = drawableOf.get(e.target);
    if (!d) { continue; }
    if (e.isIntersecting) { visible.add(d); if (d.dirty) { d.draw(); } } else { visible.delete(d); release(d); }
  }
}, { rootMargin: '200px' }) : null;

/**
 * Frees the pixels of a linked drawable's canvas while it is off screen:
 * a page of a thousand plots would otherwise hold every plot's pixels
 * (about 900 MB in the renderer for corpus ulog/pyulog's folder page); it
 * is drawn again when it comes into view. Its aria-label stays.
 * @param {Drawable} d
 */
function release(d) {
  if (!d.linked || d.canvas.width === 0) { return; }
  d.canvas.width = 0; d.canvas.height = 0; d.dirty = true;
}

/** @type {((t: number | null) => void)[]} */
const cursorListeners = [];

/**
 * Calls `f` when the time under the pointer changes (null: the pointer
 * left the plots).
 * @param {(t: number | null) => void} f
 */
export function onCursor(f) { cursorListeners.push(f); }

/**
 * Moves the time cursor of every plot to `t` seconds (null: hides it).
 * @param {number | null} t
 */
export function setCursor(t) { for (const f of cursorListeners) { f(t); } }

/**
 * Whether `d` is on screen (or near it), so worth drawing now.
 * @param {Drawable} d
 */
export function onScreen(d) { return !observer || visible.has(d); }

/**
 * Sets the whole span, `start` (default 0, at most 0) to `end` seconds
 * (1 when not past `start`), and shows it.
 * @param {number} end
 * @param {number} [start]
 */
export function initView(end, start) {
  view.lo = start !== undefined && start < 0 ? start : 0;
  view.full = end > view.lo ? end : view.lo + 1;
  view.x0 = view.lo; view.x1 = view.full;
}

/**
 * Draws `d` now and again as the view changes (if linked) or it comes
 * into view.
 * @param {Drawable} d
 */
export function register(d) {
  drawables.push(d);
  d.draw();
  if (observer) {
    drawableOf.set(d.canvas, d); observer.observe(d.canvas);
    // Drawn once (its label says what), kept only near the screen.
    const r = d.canvas.getBoundingClientRect();
    if (r.height > 0 && (r.bottom < -200 || r.top > window.innerHeight + 200)) { release(d); }
  }
}

/**
 * Calls `f` after every change of the view.
 * @param {(x0: number, x1: number) => void} f
 */
export function onView(f) { listeners.push(f); }

/**
 * Shows x0..x1 (seconds) on every time axis of the view `v` (default: the
 * shared one).
 * @param {number} x0
 * @param {number} x1
 * @param {TimeView} [v]
 */
export function setView(x0, x1, v) {
  if (!(x1 - x0 > 1e-9)) { return; }
  const tv = v || view;
  tv.x0 = x0; tv.x1 = x1;
  if (tv === view) { for (const f of listeners) { f(x0, x1); } }
  for (const d of drawables) {
    if (!d.linked || (d.view || view) !== tv) { continue; }
    d.dirty = true;
    if (!observer || visible.has(d)) { d.draw(); }
  }
}

/**
 * Shows the whole span of `v` (default: the shared view).
 * @param {TimeView} [v]
 */
export function resetView(v) { const tv = v || view; setView(tv.lo, tv.full, tv); }

/**
 * Sizes a canvas to its parent's width and `h` CSS pixels at the
 * screen's pixel ratio; its context drawing in CSS pixels.
 * @param {HTMLCanvasElement} canvas
 * @param {number} h
 * @returns {{g: CanvasRenderingContext2D, w: number, h: number}}
 */
export function sizeCanvas(canvas, h) {
  const parent = /** @type {HTMLElement | null} */ (canvas.parentNode);
  const w = (parent && parent.clientWidth) || 800;
  const r = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * r); canvas.height = Math.round(h * r);
  canvas.style.height = h + 'px';
  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  g.setTransform(r, 0, 0, r, 0, 0);
  return { g, w, h };
}

/**
 * Zoom with the wheel, pan by dragging, reset with a double click, on a
 * canvas whose time axis runs from `left` to its width less `right`, of
 * the time view `tv` (default: the shared one).
 * @param {HTMLCanvasElement} canvas
 * @param {number} left
 * @param {number} right
 * @param {TimeView} [tv]
 */
export function timeAxisEvents(canvas, left, right, tv) {
  const v = tv || view;
  /** @type {{x: number, x0: number, x1: number} | null} */
  let drag = null;
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    const f = Math.min(1, Math.max(0, (e.clientX - r.left - left) / (r.width - left - right)));
    const at = v.x0 + f * (v.x1 - v.x0);
    const k = e.deltaY > 0 ? 1.25 : 0.8;
    setView(at - (at - v.x0) * k, at + (v.x1 - at) * k, v);
  }, { passive: false });
  canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, x0: v.x0, x1: v.x1 }; });
  window.addEventListener('mouseup', () => { drag = null; });
  window.addEventListener('mousemove', (e) => {
    if (!drag) { return; }
    const r = canvas.getBoundingClientRect();
    const dx = (e.clientX - drag.x) / (r.width - left - right) * (drag.x1 - drag.x0);
    setView(drag.x0 - dx, drag.x1 - dx, v);
  });
  canvas.addEventListener('dblclick', () => resetView(v));
}
