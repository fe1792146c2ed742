// The page's data: read from its JSON element, the fields the data leaves
// out when empty filled in, values as numbers.

/** @typedef {import('./types.js').ReportData} ReportData */
/** @typedef {import('./types.js').LogData} LogData */
/** @typedef {import('./types.js').Sample} Sample */
/** @typedef {import('./types.js').ChannelData} ChannelData */
/** @typedef {import('./types.js').SeriesData} SeriesData */

/**
 * A channel as the page uses it: the fields the data leaves out when
 * empty are there (empty, or 0).
 * @typedef {ChannelData & {density: number[], gaps: [number, number][], jumps: number[], skipped: number, series: SeriesData[], extra: SeriesData[]}} Channel
 */

/**
 * A log as the page uses it: its channels with every field.
 * @typedef {Omit<LogData, 'channels'> & {channels: Channel[]}} Log
 */

/**
 * The page's data as the page uses it.
 * @typedef {{version: 1, title: string, logs: Log[]}} Report
 */

/**
 * A value of a series as a number: infinities are written as strings,
 * NaN as null.
 * @param {Sample} v
 * @returns {number | null}
 */
export function numeric(v) { return v === 'Infinity' ? Infinity : (v === '-Infinity' ? -Infinity : v); }

/**
 * The data in the element `id`, with every optional list and count
 * present (empty or 0) so that the views need not ask.
 * @param {string} id
 * @returns {Report}
 */
export function readData(id) {
  const node = document.getElementById(id);
  /** @type {ReportData} */
  const data = JSON.parse(node ? node.textContent || '' : '');
  for (const log of data.logs) {
    log.buckets = log.buckets || 400;
    log.channels_omitted = log.channels_omitted || 0;
    log.strips = log.strips || []; log.clouds = log.clouds || [];
    for (const ch of log.channels) {
      ch.density = ch.density || []; ch.gaps = ch.gaps || []; ch.jumps = ch.jumps || [];
      ch.series = ch.series || []; ch.extra = ch.extra || []; ch.skipped = ch.skipped || 0;
    }
  }
  return /** @type {Report} */ (data);
}

/**
 * The label of channel `i` of a log.
 * @param {Log} log
 * @param {number} i
 */
export function chLabel(log, i) { return log.channels[i] ? log.channels[i].label : 'channel ' + i; }
