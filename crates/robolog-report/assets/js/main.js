// The page: reads its data and builds every section. Times in the data are
// integer nanoseconds from each log's start (its first message, or the
// start of the time range shown); every time axis shows seconds from that
// start, and all of them share one view.

import { COLORS, el, fmtSecs, secs } from './format.js';
import { chLabel, numeric, readData } from './data.js';
import { initView, onView, ownView, resetView, view } from './timeaxis.js';
import { Plot, StatePlot, byMagnitude, isState } from './plot.js';
import { XyPlot } from './xy.js';
import { Timeline, MAX_ROWS } from './timeline.js';
import { MapView, TrackView } from './maps.js';
import { CloudViewer, thumbnailStrip } from './sensors.js';
import { messages, overview, parameters, problems, summary, table } from './tables.js';
import { flightSummary, px4Parameters, spectrogram, spectrumPlot } from './px4.js';

/** @typedef {import('./data.js').Log} LogData */
/** @typedef {import('./data.js').Channel} ChannelData */
/** @typedef {import('./types.js').SeriesData} SeriesData */
/** @typedef {import('./types.js').Points3} Points3 */
/** @typedef {import('./plot.js').PlotSeries} PlotSeries */
/** @typedef {import('./plot.js').PlotBand} PlotBand */
/** @typedef {import('./maps.js').MapLine} MapLine */

// An error while drawing is said on the page, not only in the console.
window.addEventListener('error', (e) => {
  const box = document.getElementById('errors');
  if (box) { box.textContent += 'This page failed to draw: ' + e.message + '\n'; }
});

const BAND_COLORS = ['#e3f2fd', '#fff3e0', '#e8f5e9', '#fce4ec', '#ede7f6', '#e0f7fa', '#fffde7', '#efebe9', '#f1f8e9', '#fbe9e7'];
/** @type {Record<string, string>} */
const NAMED_COLORS = { Red: '#ffcdd2', Yellow: '#fff59d', Green: '#c8e6c9', Off: '#eeeeee' };
/** Past this many channels with plots, they are listed and drawn when opened. */
const MANY_CHANNELS = 200;

const data = readData('report-data');
const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const many = data.logs.length > 1;
/**
 * Seconds from a log's start to the time its plots count from: its
 * aligned topic's first message (`--align TOPIC`), else 0.
 * @param {LogData} l
 */
function shiftOf(l) { return l.align === undefined ? 0 : secs(l.align); }
const aligned = data.logs.some((l) => l.align !== undefined);
initView(Math.max(0, ...data.logs.map((l) => secs(l.duration) - shiftOf(l))), Math.min(0, ...data.logs.map((l) => -shiftOf(l))));

/**
 * The colours of each band's labels, by band name.
 * @param {LogData} log
 */
function bandColors(log) {
  /** @type {Map<string, Map<string, string>>} */
  const out = new Map();
  for (const b of log.bands) {
    /** @type {Map<string, string>} */
    const colors = new Map();
    for (const s of b.spans) {
      if (!colors.has(s[2])) { colors.set(s[2], NAMED_COLORS[s[2]] || BAND_COLORS[colors.size % BAND_COLORS.length]); }
    }
    out.set(b.name, colors);
  }
  return out;
}
const colorsOf = data.logs.map(bandColors);

/**
 * The bands drawn behind a log's plots: its flight modes (other bands,
 * such as traffic lights, stay in the timeline).
 * @param {number} li
 * @returns {PlotBand[]}
 */
function plotBands(li) {
  return data.logs[li].bands.filter((b) => b.name === 'flight mode').map((b) => ({
    spans: b.spans.map((s) => /** @type {[number, number, string]} */ ([secs(s[0]) - shiftOf(data.logs[li]), secs(s[1]) - shiftOf(data.logs[li]), s[2]])),
    colors: colorsOf[li].get(b.name) || new Map()
  }));
}

/**
 * The log's name after a label, on a page of several logs.
 * @param {LogData} l
 */
function logTag(l) { return many ? ' (' + l.name + ')' : ''; }

/**
 * A new section of the page.
 * @param {string} title
 */
function section(title) {
  const s = el('section', {}, el('h2', { text: title }));
  app.appendChild(s);
  return s;
}

/**
 * Points with their times in seconds.
 * @param {Points3} p
 * @returns {MapLine}
 */
function inSeconds(p) { return { t: p.t.map(secs), a: p.a, b: p.b }; }

// Header.
const top = el('header', { cls: 'top' }, el('h1', { text: 'robolog report: ' + data.title }));
const viewLabel = el('span', { cls: 'view', text: 'view ' + fmtSecs(view.x0) + ' to ' + fmtSecs(view.x1) });
onView((x0, x1) => { viewLabel.textContent = 'view ' + fmtSecs(x0) + ' to ' + fmtSecs(x1); });
const reset = el('button', { text: 'reset zoom' });
reset.addEventListener('click', () => resetView());
top.appendChild(viewLabel); top.appendChild(reset);
top.appendChild(el('span', { cls: 'hint', text: 'wheel: zoom, drag: pan, double click: reset; time axes are seconds from each log\'s start' +
  (aligned ? ' (on the plots, from the first message of the topic they are aligned at)' : '') +
  (data.logs.some((l) => l.range) ? ' (the start of its range, where one was asked for)' : '') }));
document.body.insertBefore(top, app);

// Several logs: one row each, linked to its section.
if (many) { section('Logs (' + data.logs.length + ')').appendChild(el('div', { cls: 'scroll' }, summary(data.logs))); }

data.logs.forEach((log, li) => {
  const s = section(log.name);
  s.id = 'log-' + li;
  s.setAttribute('class', 'log');
  if (log.flight) { s.appendChild(flightSummary(log.flight)); }
  s.appendChild(overview(log));
  const listed = log.channels.length, bare = log.channels.filter((ch) => ch.omitted).length;
  const notes = [];
  if (listed > MAX_ROWS) { notes.push('The table and the timeline show the first ' + MAX_ROWS + ' of ' + listed + ' channels; the list under Channels has every one, with a filter.'); }
  if (bare) { notes.push(bare + ' channels are listed without their data, which would take the page over its size budget: report them with --topic.'); }
  if (log.channels_omitted) { notes.push(log.channels_omitted + ' more channels are not listed (the page\'s size budget): report them with --topic.'); }
  if (notes.length) { s.appendChild(el('div', { cls: 'hint many', text: notes.join(' ') })); }
  if (log.metadata.length) {
    s.appendChild(el('details', {}, el('summary', { text: 'metadata (' + log.metadata.length + ')' }),
      el('div', { cls: 'scroll' }, table(['key', 'value'], log.metadata))));
  }
  // Alone, a log's timeline spans its own span; the plots overlay the
  // logs on one axis.
  new Timeline(s, log, colorsOf[li], many || aligned ? ownView(secs(log.duration)) : undefined);
  s.appendChild(problems(log));
  if (log.events.length) { s.appendChild(messages(log)); }
  if (log.parameters) { s.appendChild(log.format_id === 'ulog' ? px4Parameters(log.parameters) : parameters(log.parameters)); }
  for (const tr of log.tracks) { new TrackView(s, log, tr); }
  for (const st of log.strips) { thumbnailStrip(s, log, st); }
  for (const cv of log.clouds) { new CloudViewer(s, log, cv); }
  for (const p of log.paths) {
    new MapView(s, 'Path: ' + (p.title || chLabel(log, p.channel)), 'path', [inSeconds(p.points)], null);
  }
  for (const sc of log.scenes) {
    const lines = sc.objects.map((o, i) => Object.assign(inSeconds(o.points), { color: COLORS[i % COLORS.length], id: o.id }));
    new MapView(s, 'Top-down: ' + chLabel(log, sc.channel) + ' (' + sc.objects.length + ' objects)', 'scene', lines, secs(log.duration));
  }
});

/**
 * A series of the data as a plot draws it.
 * @param {LogData} log
 * @param {number} li
 * @param {SeriesData} s
 * @param {string} label
 * @param {string} color
 * @returns {PlotSeries}
 */
function seriesOf(log, li, s, label, color) {
  return {
    t: s.t.map((t) => secs(t) - shiftOf(log)), v: s.v.map(numeric), color, label: label + logTag(log), on: true,
    count: s.count, reduced: s.reduced, dash: li ? [5, 3] : null
  };
}

// Plots: the chosen panels, then one section per channel; with several
// logs, a channel's series of every log share its panels.
/** @type {HTMLElement | null} */
let panelsSection = null;
data.logs.forEach((log, li) => {
  for (const p of log.panels) {
    if (!panelsSection) { panelsSection = section(log.format_id === 'ulog' ? 'Flight' : 'Overview plots'); }
    const series = p.series.map((x, i) => seriesOf(log, li, log.channels[x[0]].series[x[1]], x[2], COLORS[i % COLORS.length]))
      .concat(p.own.map((s, i) => seriesOf(log, li, s, s.name, COLORS[(p.series.length + i) % COLORS.length])));
    // One value axis per plot: series of sizes beyond ten times apart
    // in plots of their own.
    const parts = byMagnitude(series, 10);
    parts.forEach((part, k) => {
      part.forEach((x, i) => { x.color = COLORS[i % COLORS.length]; });
      new Plot(/** @type {HTMLElement} */ (panelsSection), p.title + (parts.length > 1 ? ' (' + (k + 1) + ' of ' + parts.length + ')' : '') + logTag(log),
        null, part, plotBands(li), part.length === 1 && parts.length > 1 ? 120 : 200);
    });
  }
  for (const spectrum of log.flight ? log.flight.spectra : []) {
    if (!panelsSection) { panelsSection = section('Flight'); }
    spectrumPlot(panelsSection, spectrum, logTag(log));
    spectrogram(panelsSection, spectrum, logTag(log));
  }
});

/**
 * A channel of one log, with its series that have points.
 * @typedef {object} Entry
 * @property {LogData} log
 * @property {number} li
 * @property {ChannelData} ch
 * @property {SeriesData[]} series with points
 * @property {string[]} empty names of the series without a point (every value NaN)
 */

/** @type {Map<string, Entry[]>} */
const byLabel = new Map();
data.logs.forEach((log, li) => {
  for (const ch of log.channels) {
    const series = ch.series.filter((s) => s.t.length > 0);
    if (!series.length) { continue; }
    const empty = ch.series.filter((s) => !s.t.length).map((s) => s.name);
    const list = byLabel.get(ch.label) || [];
    list.push({ log, li, ch, series, empty });
    byLabel.set(ch.label, list);
  }
});

/**
 * The first part of a series' name (`pose` of `pose.position.x`).
 * @param {string} n
 */
function head(n) { return n.split(/[.[:]/)[0]; }

/**
 * A channel's plots, into `sec`: series grouped by the first part of
 * their name when there are many.
 * @param {HTMLElement} sec
 * @param {string} label
 * @param {Entry[]} entries
 */
function channelPlots(sec, label, entries) {
  /** @type {string[]} */
  const names = [];
  for (const e of entries) { for (const s of e.series) { if (names.indexOf(s.name) < 0) { names.push(s.name); } } }
  /** @type {string[][]} */
  const groups = [];
  if (names.length <= 8) { groups.push(names); } else {
    /** @type {Map<string, string[]>} */
    const byHead = new Map();
    for (const n of names) { const h = head(n); byHead.set(h, (byHead.get(h) || []).concat([n])); }
    /** @type {string[]} */
    let small = [];
    for (const g of byHead.values()) {
      if (g.length >= 3) { groups.push(g); } else { small = small.concat(g); if (small.length >= 6) { groups.push(small); small = []; } }
    }
    if (small.length) { groups.push(small); }
  }
  const notes = [];
  if (entries[0].ch.skipped) { notes.push(entries[0].ch.skipped + ' values of further fields not plotted'); }
  if (entries[0].empty.length) { notes.push('only NaN: ' + entries[0].empty.join(', ')); }
  const extra = entries[0].ch.extra.filter((x) => x.t.length).length;
  if (extra) { notes.push(extra + ' more fields not plotted here: add them with the field search'); }
  let sub = notes.length ? notes.join('; ') : null;
  /** @type {{n: string, list: PlotSeries[]}[]} */
  const allStates = [];
  for (const g of groups) {
    // Each field with its series of every log.
    const fields = g.map((n, i) => {
      /** @type {PlotSeries[]} */
      const list = [];
      for (const e of entries) {
        const s = e.series.find((x) => x.name === n);
        if (s) { list.push(seriesOf(e.log, e.li, s, n, COLORS[i % COLORS.length])); }
      }
      return { n, list, v: list.length ? list[0].v : [] };
    }).filter((f) => f.list.length);
    // Booleans and enums as states; the other fields in plots of one
    // value axis each: fields within ten times of each other's size
    // together, each other one in a small plot of its own.
    const states = fields.filter((f) => f.list.every((x) => isState(x.v)));
    const lines = fields.filter((f) => states.indexOf(f) < 0);
    const plots = byMagnitude(lines, 10);
    const name = head(g[0]);
    for (const p of plots) {
      p.forEach((f, fi) => { for (const x of f.list) { x.color = COLORS[fi % COLORS.length]; x.on = fi < 8; } });
      const series = p.flatMap((f) => f.list);
      const title = g.length === names.length && plots.length === 1 && !states.length ? label
        : label + ': ' + (p.length === 1 ? p[0].n : name + ' \u2026');
      new Plot(sec, title, sub, series, plotBands(entries[0].li), p.length === 1 ? 120 : 200);
      sub = null;
    }
    allStates.push(...states);
  }
  if (allStates.length) {
    new StatePlot(sec, label + ': ' + (allStates.length === 1 ? allStates[0].n : allStates.length + ' fields') + ' as states', allStates.flatMap((f) => f.list));
  }
}

// The field search: every numeric field of every channel (those plotted
// below and the extra ones, carried min/max reduced), as `channel/field`;
// choosing one draws it in a plot of its own at the top of the page. The
// XY button draws one field against another, paired by time.
/**
 * A field of one log, as the search finds it.
 * @typedef {object} Found
 * @property {LogData} log
 * @property {number} li
 * @property {SeriesData} s
 */
/** @type {Map<string, Found[]>} */
const fieldIndex = new Map();
data.logs.forEach((log, li) => {
  for (const ch of log.channels) {
    for (const s of ch.series.concat(ch.extra)) {
      if (!s.t.length) { continue; }
      const key = ch.label + '/' + s.name, list = fieldIndex.get(key) || [];
      if (!list.some((f) => f.li === li)) { list.push({ log, li, s }); }
      fieldIndex.set(key, list);
    }
  }
});
if (fieldIndex.size) {
  const keys = Array.from(fieldIndex.keys());
  const search = /** @type {HTMLInputElement} */ (el('input', { type: 'search', cls: 'field-search', list: 'field-names',
    placeholder: 'add a plot: search ' + keys.length + ' fields (channel/field)', 'aria-label': 'search fields to plot' }));
  const options = el('datalist', { id: 'field-names' });
  /** @type {HTMLElement | null} */
  let picked = null;
  const pickedSection = () => {
    if (!picked) {
      picked = el('section', { cls: 'picked' }, el('h2', { text: 'Fields picked' }));
      app.insertBefore(picked, app.firstChild);
    }
    return picked;
  };
  // At most 50 suggestions, those holding every word typed in the input
  // being typed in.
  /** @param {HTMLInputElement} input */
  const suggest = (input) => {
    const words = input.value.toLowerCase().split(/\s+/).filter((w) => w);
    options.textContent = '';
    let n = 0;
    for (const k of keys) {
      if (n >= 50) { break; }
      const low = k.toLowerCase();
      if (words.every((w) => low.includes(w))) { options.appendChild(el('option', { value: k })); n++; }
    }
  };
  search.addEventListener('input', () => suggest(search));
  const open = () => {
    const found = fieldIndex.get(search.value);
    if (!found) { return; }
    const name = found[0].s.name;
    const series = found.map((f, i) => seriesOf(f.log, f.li, f.s, name, COLORS[i % COLORS.length]));
    const sec = pickedSection();
    const draw = isState(series[0].v) ? new StatePlot(sec, search.value, series) : new Plot(sec, search.value, null, series, plotBands(found[0].li), 160);
    draw.canvas.scrollIntoView({ block: 'center' });
    search.value = '';
  };
  search.addEventListener('change', open);
  search.addEventListener('keydown', (e) => { if (e.key === 'Enter') { open(); } });
  // XY: two fields (the same suggestions), or a position's x and y.
  const xyButton = el('button', { cls: 'xy-open', text: 'XY plot' });
  /** @param {string} ph */
  const xyInput = (ph) => {
    const i = /** @type {HTMLInputElement} */ (el('input', { type: 'search', cls: 'xy-field', list: 'field-names', placeholder: ph, 'aria-label': ph }));
    i.addEventListener('input', () => suggest(i));
    return i;
  };
  const xIn = xyInput('x: channel/field'), yIn = xyInput('y: channel/field');
  const xyDraw = el('button', { cls: 'xy-draw', text: 'draw' });
  const xyForm = el('div', { cls: 'xy-form', style: 'display:none' }, xIn, yIn, xyDraw);
  /**
   * Draws `y` against `x` (`channel/field` keys), one plot per log that
   * has both.
   * @param {string} xKey
   * @param {string} yKey
   */
  const drawXy = (xKey, yKey) => {
    const fx = fieldIndex.get(xKey) || [], fy = fieldIndex.get(yKey) || [];
    const sec = pickedSection();
    /** @type {XyPlot | null} */
    let first = null;
    for (const a of fx) {
      const b = fy.find((f) => f.li === a.li);
      if (!b) { continue; }
      const xy = new XyPlot(sec, { t: a.s.t.map(secs), v: a.s.v.map(numeric), label: xKey },
        { t: b.s.t.map(secs), v: b.s.v.map(numeric), label: yKey }, COLORS[a.li % COLORS.length], logTag(a.log));
      first = first || xy;
    }
    if (first) { first.canvas.scrollIntoView({ block: 'center' }); }
    return first !== null;
  };
  xyDraw.addEventListener('click', () => { if (drawXy(xIn.value, yIn.value)) { xIn.value = ''; yIn.value = ''; } });
  // Positions offered: `x`/`y` and `position.x`/`position.y` of a
  // channel, those of the most samples first (at most 6).
  /** @type {[string, string, number][]} */
  const pairs = [];
  for (const k of keys) {
    for (const [xs, ys] of [['/x', '/y'], ['.position.x', '.position.y'], ['/position.x', '/position.y']]) {
      if (k.endsWith(xs)) {
        const yk = k.slice(0, k.length - xs.length) + ys;
        const fy = fieldIndex.get(yk);
        if (fy) { pairs.push([k, yk, fy[0].s.t.length]); }
      }
    }
  }
  pairs.sort((a, b) => b[2] - a[2]);
  for (const [xk, yk] of pairs.slice(0, 6)) {
    const b = el('button', { cls: 'xy-pair', text: yk.slice(yk.lastIndexOf('/') + 1) + ' against ' + xk });
    b.addEventListener('click', () => { drawXy(xk, yk); });
    xyForm.appendChild(b);
  }
  xyButton.addEventListener('click', () => { xyForm.style.display = xyForm.style.display === 'none' ? 'flex' : 'none'; });
  top.appendChild(search); top.appendChild(options); top.appendChild(xyButton); top.appendChild(xyForm);
}

if (byLabel.size && byLabel.size <= MANY_CHANNELS) {
  const chSection = section('Channels');
  byLabel.forEach((entries, label) => {
    const sec = el('section', { cls: 'channel', 'data-channel': label });
    sec.appendChild(el('h3', { text: label + ' \u2014 ' + entries[0].ch.type }));
    chSection.appendChild(sec);
    channelPlots(sec, label, entries);
  });
} else if (byLabel.size) {
  // Many channels: a list with a filter; a channel's plots are drawn when
  // it is opened.
  const lazy = section('Channels');
  lazy.setAttribute('class', 'channels-lazy');
  const all = Array.from(byLabel.entries());
  const filter = /** @type {HTMLInputElement} */ (el('input', { type: 'search', cls: 'filter', placeholder: 'filter the ' + all.length + ' channels by name or type' }));
  const count = el('div', { cls: 'hint' });
  const list = el('div', { cls: 'channel-list' });
  lazy.appendChild(filter); lazy.appendChild(count); lazy.appendChild(list);
  const show = () => {
    const q = filter.value.toLowerCase();
    let matched = 0, shown = 0;
    list.textContent = '';
    for (const [label, entries] of all) {
      const type = entries[0].ch.type;
      if (q && label.toLowerCase().indexOf(q) < 0 && type.toLowerCase().indexOf(q) < 0) { continue; }
      matched++;
      if (shown >= MAX_ROWS) { continue; }
      shown++;
      const d = el('details', { cls: 'channel lazy', 'data-channel': label }, el('summary', { text: label + ' \u2014 ' + type }));
      let drawn = false;
      d.addEventListener('toggle', () => {
        if (/** @type {HTMLDetailsElement} */ (d).open && !drawn) { drawn = true; channelPlots(d, label, entries); }
      });
      list.appendChild(d);
    }
    count.textContent = matched + ' of ' + all.length + ' channels' + (matched > shown ? ', the first ' + shown + ' listed: narrow the filter for the others' : '') + '; open one to draw its plots';
  };
  filter.addEventListener('input', show);
  show();
}
