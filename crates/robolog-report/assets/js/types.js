// The page's data, as `robolog-report` writes it into the page's JSON
// script element, `#report-data` (Rust:
// `model.rs`; JSON Schema: `schema/report-data.schema.json`). Times are
// integer nanoseconds from the log's `start` unless said otherwise.
// This module holds types only: it has no code.

/**
 * A value of a series: a number, `null` for NaN, or the strings
 * `"Infinity"` and `"-Infinity"` (JSON has no number for them).
 * @typedef {number | null | 'Infinity' | '-Infinity'} Sample
 */

/**
 * The whole page's data.
 * @typedef {object} ReportData
 * @property {1} version the schema's version
 * @property {string} title the page's title
 * @property {LogData[]} logs one per log, in the order given
 */

/**
 * One log.
 * @typedef {object} LogData
 * @property {string} name the log's file name
 * @property {string} path the path it was read from
 * @property {string} format the format's display name (`PX4 ULog`)
 * @property {FormatId} format_id the format, for the page's choices
 * @property {string} version the format version the file states
 * @property {number} size bytes
 * @property {number} start start of the span shown, ns on the log's clock
 * @property {number} duration the span shown, ns
 * @property {number} messages messages in the log
 * @property {string} clock the log's clock (`boot`, `unix`, ...)
 * @property {string | null} start_utc `start` in UTC (RFC 3339), where anchored
 * @property {number} offset `start` less the log's first message time, ns
 * @property {number} log_duration the log's first to last message, ns
 * @property {RangeData} [range] the time range asked for, when one was
 * @property {[string, string][]} metadata header fields and similar
 * @property {number} buckets the timeline's buckets over the span shown
 * @property {ChannelData[]} channels every channel listed
 * @property {number} channels_omitted channels not listed (size budget)
 * @property {ProblemData[]} problems
 * @property {number} problems_dropped problems found beyond those listed
 * @property {OutlierData[]} [outliers] messages outside the span shown, in groups
 * @property {number} [align] the time the log's plots count from, ns from start (its aligned topic's first message)
 * @property {boolean | null} check_passed `robolog check`'s verdict (null: not run)
 * @property {TrackData[]} tracks latitude/longitude tracks
 * @property {PathData[]} paths x/y paths
 * @property {StripData[]} strips camera thumbnails
 * @property {CloudData[]} clouds point clouds and scans from above
 * @property {SceneData[]} scenes objects from above over time
 * @property {BandData[]} bands named spans of time (flight modes)
 * @property {EventData[]} events text messages of the log
 * @property {ParametersData | null} parameters every parameter at start (with its default where known), then each change with its time
 * @property {PanelData[]} panels series picked across channels
 * @property {FlightData} [flight] a PX4 flight's summary and sensor spectra
 */

/**
 * A group of messages outside a log's span shown (far from the bulk of its
 * messages): ns from the log's start (negative before it).
 * @typedef {object} OutlierData
 * @property {number} start the group's first message
 * @property {number} end the group's last message
 * @property {number} count messages in it
 * @property {string[]} topics the channels of its messages
 */

/**
 * The format of a log (`logcore::Format::name`).
 * @typedef {'rosbag' | 'vellog' | 'ulog' | 'mcap' | 'carla-recorder' | 'rosbag2'} FormatId
 */

/**
 * The time range a log was asked to show: ns after its first message.
 * @typedef {object} RangeData
 * @property {number | null} start
 * @property {number | null} end
 * @property {string} asked the range as text
 * @property {number} messages messages in the range
 */

/**
 * A channel (a topic, its connections together). Listed only (past the
 * page's size budget) it has `omitted: true` and none of the data fields.
 * @typedef {object} ChannelData
 * @property {string} label its name in the page
 * @property {string} topic
 * @property {string} type the message type(s)
 * @property {number} count messages
 * @property {number | null} start first message time
 * @property {number | null} end last message time
 * @property {boolean} [omitted] listed without its data
 * @property {number[]} [density] messages per timeline bucket; `-k`: k empty buckets
 * @property {[number, number][]} [gaps] spans without a message
 * @property {number[]} [jumps] times at which time went backwards
 * @property {number} [skipped] values of further fields not plotted
 * @property {SeriesData[]} [series] the numeric fields
 * @property {SeriesData[]} [extra] the numeric fields not plotted at load (min/max reduced), for the field search
 */

/**
 * One numeric field over time: `t[i]` (ns) and `v[i]`.
 * @typedef {object} SeriesData
 * @property {string} name the field's path (`a.b[2]`; `q:roll` derived)
 * @property {boolean} [f32] the values are `float32`
 * @property {number} count values pushed (NaN included)
 * @property {number} [nan] NaN values (not drawn)
 * @property {boolean} [reduced] the points are a min/max reduction
 * @property {number[]} t
 * @property {Sample[]} v
 */

/**
 * Points in three arrays: `t` (ns) and two coordinates `a` and `b`
 * (latitude and longitude in degrees, or x and y; null for NaN).
 * @typedef {object} Points3
 * @property {number[]} t
 * @property {(number | null)[]} a
 * @property {(number | null)[]} b
 */

/**
 * @typedef {object} ProblemData
 * @property {number | null} t when, where known
 * @property {string} text what
 */

/**
 * @typedef {object} TrackData
 * @property {number} channel index into `channels`
 * @property {Points3} points latitude (`a`) and longitude (`b`)
 */

/**
 * @typedef {object} PathData
 * @property {number} channel index into `channels`
 * @property {string | null} title what the path is of, when not the channel
 * @property {Points3} points x (`a`) and y (`b`)
 */

/**
 * @typedef {object} StripData
 * @property {number} channel index into `channels`
 * @property {ThumbData[]} frames
 */

/**
 * A camera thumbnail.
 * @typedef {object} ThumbData
 * @property {number} t
 * @property {number} w width in pixels
 * @property {number} h height in pixels
 * @property {number} src_w the frame's own width
 * @property {number} src_h the frame's own height
 * @property {string} jpeg base64 of a JPEG file
 */

/**
 * @typedef {object} CloudData
 * @property {number} channel index into `channels`
 * @property {boolean} scan laser scans (else point clouds)
 * @property {string | null} color the field the points are coloured by
 * @property {CloudFrameData[]} frames
 */

/**
 * One message of a cloud view; `x`, `y`, `c`: base64 of `shown`
 * little-endian `f32`s.
 * @typedef {object} CloudFrameData
 * @property {number} t
 * @property {number} points points the message decoded to
 * @property {number} shown points kept
 * @property {string} x
 * @property {string} y
 * @property {string | null} c
 */

/**
 * @typedef {object} SceneData
 * @property {number} channel index into `channels`
 * @property {{id: number, points: Points3}[]} objects
 */

/**
 * Named spans of time: `[start, end, label]`.
 * @typedef {object} BandData
 * @property {string} name
 * @property {[number, number, string][]} spans
 */

/**
 * @typedef {object} EventData
 * @property {number} t
 * @property {string} level `ERROR`, `WARNING`, `INFO`, ...
 * @property {string} text
 */

/**
 * @typedef {object} ParametersData
 * @property {string} note which parameters are listed
 * @property {ParameterData[]} list
 */

/**
 * @typedef {object} ParameterData
 * @property {string} name
 * @property {string} value
 * @property {string | null} default
 * @property {number | null} t when it changed, for a change during the log
 */

/**
 * A panel: `series` as `[channel index, series index, label]`, and
 * series of its own.
 * @typedef {object} PanelData
 * @property {string} title
 * @property {[number, number, string][]} series
 * @property {SeriesData[]} own
 */

/**
 * A PX4 flight's summary and the spectra of its gyro and accelerometer.
 * @typedef {object} FlightData
 * @property {FlightSummaryData} summary
 * @property {SpectrumData[]} spectra the gyro's, then the accelerometer's, where the log has enough samples
 */

/**
 * @typedef {object} FlightSummaryData
 * @property {[string, string][]} rows a label and its text
 */

/**
 * A sensor's spectrum: bin `k` is `k * step` Hz.
 * @typedef {object} SpectrumData
 * @property {string} source the topic and field (`sensor_combined.gyro_rad`)
 * @property {string} quantity what the samples are, with their unit
 * @property {number} rate sample rate, Hz
 * @property {number} step Hz between bins
 * @property {SpectrumAxisData[]} axes mean amplitude per bin, per axis
 * @property {SpectrogramData} spectrogram
 */

/**
 * @typedef {object} SpectrumAxisData
 * @property {string} name `x`, `y`, `z`
 * @property {number[]} amplitude per bin, in the samples' unit
 */

/**
 * Power over time and frequency: `data` is base64 of `columns * rows`
 * intensities (0-255 from `db_min` to `db_max`), column after column,
 * each from 0 Hz up.
 * @typedef {object} SpectrogramData
 * @property {number} t0 the first column's centre
 * @property {number} dt ns between columns
 * @property {number} columns
 * @property {number} rows
 * @property {number} db_min
 * @property {number} db_max
 * @property {string} data
 */

export {};
