// A log's tables: its overview, problems, text messages and parameters.

import { el, fmtBytes, fmtSecs, secs } from './format.js';
import { setView, view } from './timeaxis.js';
import { MAX_ROWS, levelColor } from './timeline.js';

/** @typedef {import('./data.js').Log} LogData */

/**
 * A cell: text, or text with a class.
 * @typedef {string | number | {text: string, cls?: string}} Cell
 */

/**
 * A table of `head` and `rows`.
 * @param {string[]} head
 * @param {Cell[][]} rows
 * @param {string} [cls]
 */
export function table(head, rows, cls) {
  const t = el('table', cls ? { cls } : null);
  t.appendChild(el('tr', {}, ...head.map((h) => el('th', { text: h }))));
  for (const r of rows) {
    t.appendChild(el('tr', {}, ...r.map((c) => typeof c === 'object' && c !== null
      ? el('td', { cls: c.cls || '', text: c.text }) : el('td', { text: String(c) }))));
  }
  return t;
}

/**
 * A log's overview: its facts and its channels.
 * @param {LogData} log
 */
export function overview(log) {
  const over = el('div', { cls: 'overview' });
  /** @type {Cell[][]} */
  const facts = [
    ['format', log.format + ' ' + log.version],
    ['path', log.path],
    ['size', fmtBytes(log.size) + ' (' + log.size + ' bytes)'],
    ['duration', fmtSecs(secs(log.duration)) + (log.range || log.outliers ? ' shown of ' + fmtSecs(secs(log.log_duration)) : '') +
      (log.outliers ? ' (the span of the bulk of the messages: ' + log.outliers.reduce((a, o) => a + o.count, 0) + ' lie far outside it)' : '')]
  ];
  if (log.range) {
    facts.push(['range', { text: 'showing ' + fmtSecs(secs(log.offset)) + ' \u2013 ' + fmtSecs(secs(log.offset + log.duration)) +
      ' after the first message (asked: ' + log.range.asked + '); times on the plots count from ' + fmtSecs(secs(log.offset)), cls: 'range' }]);
  }
  facts.push(
    ['start', (log.start / 1e9).toFixed(9) + ' s on the ' + log.clock + ' clock' + (log.start_utc ? ' = ' + log.start_utc : '')],
    ['messages', log.range ? log.range.messages + ' in the range (' + log.messages + ' in the log)' : String(log.messages)],
    ['channels', String(log.channels.length)],
    ['check', log.check_passed === null ? 'not run' : { text: log.check_passed ? 'passed' : 'found problems', cls: log.check_passed ? 'ok' : 'bad' }]
  );
  over.appendChild(table(['', ''], facts));
  const rows = log.channels.slice(0, MAX_ROWS).map((ch) => {
    const span = ch.end !== null && ch.start !== null ? (ch.end - ch.start) / 1e9 : 0;
    const rate = span > 0 && ch.count > 1 ? ((ch.count - 1) / span).toFixed(2) : '-';
    return [ch.label, ch.type, { text: String(ch.count), cls: 'num' }, { text: rate, cls: 'num' }];
  });
  over.appendChild(el('div', { cls: 'scroll' }, table(['channel', 'type', 'messages', 'rate (Hz)'], rows, 'channels')));
  return over;
}

/**
 * Shows a short span of time around `t` seconds.
 * @param {number} t
 */
function zoomTo(t) { const w = (view.x1 - view.x0) / 20; setView(t - w, t + w); }

/**
 * Seconds from a log's start to the time its plots count from (its
 * `align`, else 0).
 * @param {LogData} log
 */
function plotShift(log) { return log.align === undefined ? 0 : secs(log.align); }

/**
 * A log's problems; a click on one with a time zooms there.
 * @param {LogData} log
 */
export function problems(log) {
  const probs = el('div', { cls: 'problems' });
  probs.appendChild(el('h3', { text: 'Problems (' + (log.problems.length + log.problems_dropped) + ')' }));
  if (!log.problems.length) { probs.appendChild(el('div', { cls: 'ok', text: 'none found' })); }
  const ul = el('ul');
  for (const p of log.problems) {
    const t = p.t;
    const item = el('li', {}, t === null ? null : el('span', { cls: 't', text: fmtSecs(secs(t)) }), p.text);
    if (t !== null) {
      item.style.cursor = 'pointer';
      item.addEventListener('click', () => zoomTo(secs(t) - plotShift(log)));
    }
    ul.appendChild(item);
  }
  if (log.problems_dropped) { ul.appendChild(el('li', { text: '... and ' + log.problems_dropped + ' more' })); }
  probs.appendChild(ul);
  return probs;
}

/**
 * A log's text messages: a table with a filter over level and text,
 * levels in colour; a click on a row zooms there.
 * @param {LogData} log
 */
export function messages(log) {
  const box = el('div', { cls: 'messages' });
  box.appendChild(el('h3', { text: 'Messages and events (' + log.events.length + ')' }));
  const filter = /** @type {HTMLInputElement} */ (el('input', { type: 'search', cls: 'filter', placeholder: 'filter the messages by level or text' }));
  const t = table(['time', 'level', 'message'], [], 'events');
  for (const e of log.events) {
    const row = el('tr', {}, el('td', { cls: 'num', text: fmtSecs(secs(e.t)) }),
      el('td', { cls: 'level', style: 'color:' + levelColor(e.level), text: e.level }), el('td', { text: e.text }));
    row.addEventListener('click', () => zoomTo(secs(e.t) - plotShift(log)));
    t.appendChild(row);
  }
  filter.addEventListener('input', () => {
    const q = filter.value.toLowerCase();
    log.events.forEach((e, i) => {
      const row = /** @type {HTMLElement} */ (t.children[i + 1]);
      row.style.display = !q || e.level.toLowerCase().includes(q) || e.text.toLowerCase().includes(q) ? '' : 'none';
    });
  });
  box.appendChild(filter);
  box.appendChild(el('div', { cls: 'scroll' }, t));
  return box;
}

/**
 * A log's parameters, with the note that says which.
 * @param {import('./types.js').ParametersData} params
 */
export function parameters(params) {
  const box = el('div', { cls: 'parameters' });
  box.appendChild(el('h3', { text: 'Parameters (' + params.list.length + ')' }));
  box.appendChild(el('div', { cls: 'hint', text: params.note }));
  box.appendChild(el('div', { cls: 'scroll' }, table(['name', 'value', 'default', 'changed at'], params.list.map((p) =>
    [p.name, p.value, p.default === null ? '-' : p.default, p.t === null ? '' : fmtSecs(secs(p.t))]), 'parameters')));
  return box;
}

/**
 * The table of a page's logs, one row each, its name a link to the log's
 * section (`#log-N`): format, start (UTC where anchored), duration,
 * size, messages, topics, problems, messages outside the span and, for
 * a PX4 flight, its flight modes.
 * @param {LogData[]} logs
 */
export function summary(logs) {
  const head = ['log', 'format', 'start', 'duration', 'size', 'messages', 'topics', 'problems', 'outside the span', 'flight modes'];
  const t = el('table', { cls: 'summary' });
  t.appendChild(el('tr', {}, ...head.map((h) => el('th', { text: h }))));
  logs.forEach((log, i) => {
    const modes = log.bands.filter((b) => b.name === 'flight mode').flatMap((b) => b.spans.map((s) => s[2]));
    const distinct = Array.from(new Set(modes));
    const outside = (log.outliers || []).reduce((a, o) => a + o.count, 0);
    /** @type {(string | number)[]} */
    const cells = [
      log.format,
      log.start_utc || (log.start / 1e9).toFixed(3) + ' s (' + log.clock + ')',
      fmtSecs(secs(log.duration)) + (log.duration !== log.log_duration ? ' of ' + fmtSecs(secs(log.log_duration)) : ''),
      fmtBytes(log.size),
      log.range ? log.range.messages + ' of ' + log.messages : log.messages,
      log.channels.length + log.channels_omitted,
      log.problems.length + log.problems_dropped,
      outside,
      log.format_id === 'ulog' ? distinct.length + (distinct.length ? ' (' + distinct.join(', ') + ')' : '') : ''
    ];
    t.appendChild(el('tr', {}, el('td', {}, el('a', { href: '#log-' + i, text: log.name })),
      ...cells.map((c) => el('td', { cls: typeof c === 'number' ? 'num' : '', text: String(c) }))));
  });
  return t;
}
