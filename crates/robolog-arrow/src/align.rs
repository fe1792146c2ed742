//! Several topics on one time base: one flat table whose rows are the
//! times of one topic (`on`) or of a regular grid (`rate`), and whose
//! columns are every topic's columns, prefixed by the name given to the
//! topic (`imu.angular_velocity.x`), each taken at each row's time.
//!
//! How a column is taken at a time `t` ([`Method`]):
//! - `previous`: the topic's last sample at or before `t` (what
//!   `pandas.merge_asof(direction="backward")` takes);
//! - `nearest`: the sample closest to `t`, the earlier one on a tie (as
//!   `merge_asof(direction="nearest")`);
//! - `linear`: numbers interpolated between the samples either side of
//!   `t` (as `numpy.interp(t, times, values, left=nan, right=nan)`), a
//!   sample at `t` itself taken as it is; as a float64 column. Columns
//!   that are not numbers (strings, times, lists) take `previous`.
//!
//! With a tolerance, a sample farther than it from `t` is not taken (the
//! cell is null); for `linear`, both samples must be within it. Cells
//! before a topic's first sample (and after its last, for `nearest` and
//! `linear`) are null. The method is chosen per topic or per column
//! ([`AlignOptions::methods`]).
//!
//! The table starts with `log_time` (the rows' times, ns on the log's
//! clock, of the inputs' type: `timestamp[ns]` on a Unix clock,
//! `duration[ns]` on a clock since boot or since the recording's start,
//! as the tables have it; the first topic's where they differ) and, where a topic's table has one, `log_time_utc` (the same
//! instants in UTC where the log is anchored, else null); each topic's
//! own `log_time` is kept as `name.log_time`, the time of the sample
//! taken (by `previous` for a `linear` topic).
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch, TimestampNanosecondArray};
//! use arrow_array::cast::AsArray;
//! use arrow_array::types::Float64Type;
//! use arrow_schema::{DataType, Field, Schema, TimeUnit};
//! use robolog_arrow::align::{AlignInput, AlignOptions, Method, Rows, align};
//!
//! let topic = |name: &str, times: Vec<i64>, values: Vec<f64>| {
//!     let schema = Arc::new(Schema::new(vec![
//!         Field::new("log_time", DataType::Timestamp(TimeUnit::Nanosecond, None), false),
//!         Field::new("x", DataType::Float64, false),
//!     ]));
//!     let columns: Vec<ArrayRef> = vec![
//!         Arc::new(TimestampNanosecondArray::from(times)),
//!         Arc::new(Float64Array::from(values)),
//!     ];
//!     AlignInput::new(name, RecordBatch::try_new(schema, columns).unwrap())
//! };
//! let imu = topic("imu", vec![10, 20, 30], vec![1.0, 2.0, 3.0]);
//! let odom = topic("odom", vec![0, 25], vec![0.0, 5.0]);
//! let opts = AlignOptions { method: Method::Linear, ..AlignOptions::new(Rows::On("imu".into())) };
//! let table = align(&[imu, odom], &opts)?;
//! let x = table.column_by_name("odom.x").unwrap().as_primitive::<Float64Type>();
//! assert_eq!(x.values().to_vec(), vec![2.0, 4.0, 0.0]);
//! assert!(x.is_null(2)); // after /odom's last sample
//! # Ok::<(), robolog_arrow::Error>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampNanosecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, Float64Array, RecordBatch, RecordBatchOptions, StringArray,
    TimestampNanosecondArray, UInt64Array,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use arrow_select::concat::concat_batches;
use arrow_select::take::take;

use crate::{Error, LOG_TIME, LOG_TIME_UTC};

/// The most rows a regular grid may have (a rate too high for the span
/// it covers is refused rather than filling memory).
pub const MAX_GRID_ROWS: u64 = 200_000_000;

/// How a column is taken at a row's time: see the [module](self) docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// The last sample at or before the time.
    #[default]
    Previous,
    /// The closest sample, the earlier one on a tie.
    Nearest,
    /// Numbers interpolated between the samples either side.
    Linear,
}

impl Method {
    /// The method's name, as [`FromStr`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Previous => "previous",
            Method::Nearest => "nearest",
            Method::Linear => "linear",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "previous" | "backward" | "ffill" => Ok(Method::Previous),
            "nearest" => Ok(Method::Nearest),
            "linear" | "interp" => Ok(Method::Linear),
            _ => Err(Error::Align(format!(
                "unknown method {s:?}: expected previous, nearest or linear"
            ))),
        }
    }
}

/// The rows of an aligned table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rows {
    /// The times of the topic of this name (or topic): one row per sample.
    On(String),
    /// A regular grid, one row every `period_ns` from the first sample of
    /// any topic (or [`AlignOptions::start`]) to the last (or before
    /// [`AlignOptions::end`]).
    Every {
        /// The grid's step in ns (> 0).
        period_ns: i64,
    },
}

/// How [`align`] aligns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlignOptions {
    /// The rows.
    pub rows: Rows,
    /// The method of every column not named in `methods`.
    pub method: Method,
    /// Methods per topic (its name) or per column (`name.column`, the
    /// column as the output names it); a column's own entry wins over
    /// its topic's.
    pub methods: Vec<(String, Method)>,
    /// The farthest a sample may be from a row's time to be taken (ns).
    pub tolerance: Option<i64>,
    /// The grid's first row (ns on the log's clock), for [`Rows::Every`].
    pub start: Option<i64>,
    /// The grid's rows end before this time, for [`Rows::Every`].
    pub end: Option<i64>,
}

impl AlignOptions {
    /// Options with these rows, `previous` everywhere, no tolerance.
    pub fn new(rows: Rows) -> Self {
        AlignOptions {
            rows,
            method: Method::Previous,
            methods: Vec::new(),
            tolerance: None,
            start: None,
            end: None,
        }
    }
}

/// A topic to align: its name (the prefix of its columns) and its flat
/// rows (see [`crate::flatten`]), with a `log_time` column of
/// `timestamp[ns]`.
#[derive(Clone, Debug)]
pub struct AlignInput {
    /// The prefix of the topic's columns in the aligned table.
    pub name: String,
    /// The topic's other names `Rows::On` may give (its topic).
    pub aliases: Vec<String>,
    /// The rows' schema.
    pub schema: SchemaRef,
    /// The rows, in any order.
    pub batches: Vec<RecordBatch>,
}

impl AlignInput {
    /// A topic of one batch.
    pub fn new(name: impl Into<String>, batch: RecordBatch) -> Self {
        AlignInput {
            name: name.into(),
            aliases: Vec::new(),
            schema: batch.schema(),
            batches: vec![batch],
        }
    }

    /// Whether `name` names this topic.
    fn is(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|a| a == name)
    }
}

/// The topic a user names by `topic` (see [`crate::table_for`]) read
/// from `log` for [`align`], its rows flattened (see [`crate::flatten`]:
/// fixed arrays spread out) and named `name`, with what reading it met
/// (its `batches` moved into the input). [`Error::NoTopic`] when the log
/// has no such topic.
pub fn read_input(
    log: &robolog::Log<'_>,
    summary: &logcore::Summary,
    name: &str,
    topic: &str,
    opts: &crate::ScanOptions,
) -> Result<(AlignInput, crate::TableRead), Error> {
    let table = crate::table_for(log, summary, topic)?.ok_or_else(|| Error::NoTopic {
        topic: topic.to_string(),
    })?;
    let mut read = crate::read_table(log, summary, &table, opts)?;
    let schema = Arc::new(crate::flatten::flatten_schema(&read.schema, usize::MAX)?);
    let batches = std::mem::take(&mut read.batches)
        .iter()
        .map(|b| {
            let (_, columns) =
                crate::flatten::flatten_columns(b.schema().fields(), b.columns(), usize::MAX)?;
            let opts = RecordBatchOptions::new().with_row_count(Some(b.num_rows()));
            RecordBatch::try_new_with_options(Arc::clone(&schema), columns, &opts)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut aliases = vec![topic.to_string(), table.name.clone(), table.key.clone()];
    aliases.retain(|a| a != name);
    let input = AlignInput {
        name: name.to_string(),
        aliases,
        schema,
        batches,
    };
    Ok((input, read))
}

/// Parses a rate: `50hz`, `50 Hz`, `50` (Hz), `0.5hz`, or a period
/// (`20ms`, `1s`), to the grid's period in ns.
///
/// ```
/// use robolog_arrow::align::parse_rate;
/// assert_eq!(parse_rate("50hz").unwrap(), 20_000_000);
/// assert_eq!(parse_rate("200").unwrap(), 5_000_000);
/// assert_eq!(parse_rate("20ms").unwrap(), 20_000_000);
/// assert!(parse_rate("fast").is_err());
/// ```
pub fn parse_rate(s: &str) -> Result<i64, Error> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let hz = lower.strip_suffix("hz").map(str::trim);
    let bad = || {
        Error::Align(format!(
            "rate {s:?}: expected a frequency such as 50hz or 50, or a period such as 20ms"
        ))
    };
    match hz {
        Some(num) => period_of_hz(num.parse::<f64>().map_err(|_| bad())?).ok_or_else(bad),
        None => match t.parse::<f64>() {
            Ok(f) => period_of_hz(f).ok_or_else(bad),
            Err(_) => match logcore::timearg::parse_duration(t) {
                Some(p) if p > 0 => Ok(p),
                _ => Err(bad()),
            },
        },
    }
}

/// The period in ns of a frequency in Hz; `None` unless it is a positive
/// number of at most 1 GHz.
pub fn period_of_hz(hz: f64) -> Option<i64> {
    if !(hz.is_finite() && hz > 0.0 && hz <= 1e9) {
        return None;
    }
    // 1e9 / hz is at least 1 and at most ~1e9 * 1/f64::MIN_POSITIVE:
    // bounded below by the check, capped above by i64::MAX.
    let p = (1e9 / hz).round();
    if p >= 1.0 && p < i64::MAX as f64 {
        Some(p as i64)
    } else {
        None
    }
}

/// A topic's rows in time order, with its times.
struct Sorted {
    name: String,
    batch: RecordBatch,
    times: Vec<i64>,
    /// The index of `log_time_utc` in `batch`, if there is one.
    utc: Option<usize>,
    /// The type of its `log_time`: `timestamp[ns]` or `duration[ns]`.
    time_type: DataType,
}

/// The topics on one time base: see the [module](self) docs. Errors when
/// a topic lacks `log_time`, when `Rows::On` names no topic, when a
/// method names no topic or column, and when a grid would be too long.
pub fn align(inputs: &[AlignInput], opts: &AlignOptions) -> Result<RecordBatch, Error> {
    if inputs.is_empty() {
        return Err(Error::Align("no topics to align".into()));
    }
    let mut seen = HashSet::new();
    for t in inputs {
        if !seen.insert(t.name.as_str()) {
            return Err(Error::Align(format!(
                "two topics are named {:?}: give each its own name",
                t.name
            )));
        }
    }
    let topics = inputs
        .iter()
        .map(sorted)
        .collect::<Result<Vec<Sorted>, Error>>()?;
    let (on, row_times) = match &opts.rows {
        Rows::On(name) => {
            let i = inputs.iter().position(|t| t.is(name)).ok_or_else(|| {
                Error::Align(format!(
                    "on {name:?}: not one of the topics aligned ({})",
                    names(inputs)
                ))
            })?;
            (Some(i), topics[i].times.clone())
        }
        Rows::Every { period_ns } => (None, grid(&topics, *period_ns, opts)?),
    };
    let methods = Methods::new(inputs, &topics, opts)?;
    let n = row_times.len();

    let mut fields: Vec<Field> = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    let time_field = topics
        .iter()
        .find_map(|t| t.batch.schema().field_with_name(LOG_TIME).ok().cloned())
        .map(|f| f.with_nullable(false))
        .unwrap_or_else(|| Field::new(LOG_TIME, timestamp_ns(), false));
    let time_type = topics
        .first()
        .map_or_else(timestamp_ns, |t| t.time_type.clone());
    columns.push(crate::table::log_time_array(
        &time_type,
        row_times.iter().copied(),
    ));
    fields.push(time_field.with_data_type(time_type));
    if let Some(offset) = utc_column(&topics) {
        let (field, column) = utc_of(&row_times, offset);
        fields.push(field);
        columns.push(column);
    }

    for (i, t) in topics.iter().enumerate() {
        let schema = t.batch.schema();
        let is_on = on == Some(i);
        let mut finder = Finder::new(&t.times, &row_times, opts.tolerance);
        for (c, field) in schema.fields().iter().enumerate() {
            // Between columns: Ctrl-C in Python answers within one.
            logcore::interrupt::check();
            if Some(c) == t.utc || (is_on && field.name() == LOG_TIME) {
                continue;
            }
            let out_name = format!("{}.{}", t.name, field.name());
            let column = t.batch.column(c);
            if is_on {
                fields.push(field.as_ref().clone().with_name(out_name));
                columns.push(Arc::clone(column));
                continue;
            }
            let method = methods.of(&t.name, &out_name);
            let numeric = is_number(field.data_type());
            let (f, a) = match method {
                Method::Linear if numeric => {
                    let values = as_f64(column)?;
                    let out = finder.linear(&values);
                    (Field::new(out_name, DataType::Float64, true), out)
                }
                Method::Nearest => {
                    let idx = finder.nearest();
                    let out = take(column.as_ref(), idx, None)?;
                    (field.as_ref().clone().with_name(out_name), out)
                }
                _ => {
                    let idx = finder.previous();
                    let out = take(column.as_ref(), idx, None)?;
                    (field.as_ref().clone().with_name(out_name), out)
                }
            };
            fields.push(f.with_nullable(true));
            columns.push(a);
        }
    }
    let schema = Schema::new(fields);
    let opts = RecordBatchOptions::new().with_row_count(Some(n));
    Ok(RecordBatch::try_new_with_options(
        Arc::new(schema),
        columns,
        &opts,
    )?)
}

/// `timestamp[ns]` without a zone: the log's clock.
fn timestamp_ns() -> DataType {
    DataType::Timestamp(TimeUnit::Nanosecond, None)
}

/// The names of the inputs, for messages.
fn names(inputs: &[AlignInput]) -> String {
    inputs
        .iter()
        .map(|t| t.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A topic's rows as one batch in time order (stable: rows of one time
/// keep their order).
fn sorted(input: &AlignInput) -> Result<Sorted, Error> {
    let batch = concat_batches(&input.schema, &input.batches)?;
    let Some(c) = batch.schema().index_of(LOG_TIME).ok() else {
        return Err(Error::Align(format!(
            "topic {}: no {LOG_TIME} column to align on",
            input.name
        )));
    };
    let column = batch.column(c);
    let time_type = column.data_type().clone();
    let Some(values) = crate::log_time_values(column.as_ref()) else {
        return Err(Error::Align(format!(
            "topic {}: {LOG_TIME} is {time_type}, expected timestamp[ns] or duration[ns]",
            input.name,
        )));
    };
    let utc = batch.schema().index_of(LOG_TIME_UTC).ok();
    if values.windows(2).all(|w| w[0] <= w[1]) {
        let times = values.to_vec();
        return Ok(Sorted {
            name: input.name.clone(),
            batch,
            times,
            utc,
            time_type,
        });
    }
    let mut order: Vec<u64> = (0..batch.num_rows() as u64).collect();
    order.sort_by_key(|&i| values[i as usize]);
    let times = order.iter().map(|&i| values[i as usize]).collect();
    let idx = UInt64Array::from(order);
    let columns = batch
        .columns()
        .iter()
        .map(|a| take(a.as_ref(), &idx, None))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    let batch = RecordBatch::try_new_with_options(batch.schema(), columns, &opts)?;
    Ok(Sorted {
        name: input.name.clone(),
        batch,
        times,
        utc,
        time_type,
    })
}

/// The times of a regular grid over the topics.
fn grid(topics: &[Sorted], period: i64, opts: &AlignOptions) -> Result<Vec<i64>, Error> {
    if period <= 0 {
        return Err(Error::Align(format!(
            "a grid's period must be positive, not {period} ns"
        )));
    }
    let first = topics.iter().filter_map(|t| t.times.first()).min().copied();
    let last = topics.iter().filter_map(|t| t.times.last()).max().copied();
    let start = opts.start.or(first);
    let (Some(start), Some(last)) = (start, last) else {
        return Ok(Vec::new());
    };
    // The last row: at or before the last sample, before `end`.
    let stop = match opts.end {
        Some(end) => i128::from(end) - 1,
        None => i128::from(last),
    };
    if stop < i128::from(start) {
        return Ok(Vec::new());
    }
    let rows = (stop - i128::from(start)) / i128::from(period) + 1;
    if rows > i128::from(MAX_GRID_ROWS) {
        return Err(Error::Align(format!(
            "a grid every {period} ns over {:.3} s has {rows} rows, more than the {MAX_GRID_ROWS} allowed: choose a lower rate or a shorter span",
            (stop - i128::from(start)) as f64 / 1e9
        )));
    }
    let rows = rows as i64;
    Ok((0..rows).map(|k| start + k * period).collect())
}

/// The offset (ns) from `log_time` to `log_time_utc` of the first topic
/// with such a column: `Some(None)` when a topic has the column but no
/// anchor (every value null), `None` when no topic has it.
fn utc_column(topics: &[Sorted]) -> Option<Option<i64>> {
    let mut found = None;
    for t in topics {
        let Some(c) = t.utc else { continue };
        let utc = t.batch.column(c);
        let Some(utc) = utc.as_primitive_opt::<TimestampNanosecondType>() else {
            continue;
        };
        found = Some(None);
        if let Some(r) = (0..utc.len()).find(|&r| utc.is_valid(r)) {
            return Some(Some(utc.value(r) - t.times[r]));
        }
    }
    found
}

/// The `log_time_utc` column of rows at `times` given the clock's offset.
fn utc_of(times: &[i64], offset: Option<i64>) -> (Field, ArrayRef) {
    let data_type = DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()));
    let field = Field::new(LOG_TIME_UTC, data_type, true);
    let array = match offset {
        Some(o) => TimestampNanosecondArray::from(
            times
                .iter()
                .map(|t| t.checked_add(o))
                .collect::<Vec<Option<i64>>>(),
        ),
        None => TimestampNanosecondArray::new_null(times.len()),
    }
    .with_timezone("UTC");
    (field, Arc::new(array))
}

/// The method of each column.
struct Methods {
    default: Method,
    by_key: HashMap<String, Method>,
}

impl Methods {
    /// Checks that every key names a topic or an output column.
    fn new(inputs: &[AlignInput], topics: &[Sorted], opts: &AlignOptions) -> Result<Self, Error> {
        let mut by_key = HashMap::new();
        for (key, m) in &opts.methods {
            let topic = inputs.iter().position(|t| t.is(key));
            let known = match topic {
                Some(i) => {
                    by_key.insert(inputs[i].name.clone(), *m);
                    true
                }
                None => {
                    let col = topics.iter().any(|t| {
                        key.strip_prefix(t.name.as_str())
                            .and_then(|r| r.strip_prefix('.'))
                            .is_some_and(|c| t.batch.schema().index_of(c).is_ok())
                    });
                    if col {
                        by_key.insert(key.clone(), *m);
                    }
                    col
                }
            };
            if !known {
                return Err(Error::Align(format!(
                    "method for {key:?}: no such topic or column; the topics are {} and columns are named topic.column",
                    names(inputs)
                )));
            }
        }
        Ok(Methods {
            default: opts.method,
            by_key,
        })
    }

    /// The method of column `column` (as output) of topic `topic`.
    fn of(&self, topic: &str, column: &str) -> Method {
        self.by_key
            .get(column)
            .or_else(|| self.by_key.get(topic))
            .copied()
            .unwrap_or(self.default)
    }
}

/// Whether `linear` interpolates columns of this type.
fn is_number(t: &DataType) -> bool {
    t.is_integer() || t.is_floating()
}

/// A numeric column as f64 values with its nulls.
fn as_f64(a: &ArrayRef) -> Result<Float64Array, Error> {
    macro_rules! cast {
        ($t:ty) => {
            Float64Array::new(
                a.as_primitive::<$t>()
                    .values()
                    .iter()
                    .map(|&v| v as f64)
                    .collect(),
                a.nulls().cloned(),
            )
        };
    }
    Ok(match a.data_type() {
        DataType::Float64 => a.as_primitive::<Float64Type>().clone(),
        DataType::Float32 => cast!(Float32Type),
        DataType::Float16 => Float64Array::new(
            a.as_primitive::<Float16Type>()
                .values()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            a.nulls().cloned(),
        ),
        DataType::Int8 => cast!(Int8Type),
        DataType::Int16 => cast!(Int16Type),
        DataType::Int32 => cast!(Int32Type),
        DataType::Int64 => cast!(Int64Type),
        DataType::UInt8 => cast!(UInt8Type),
        DataType::UInt16 => cast!(UInt16Type),
        DataType::UInt32 => cast!(UInt32Type),
        DataType::UInt64 => cast!(UInt64Type),
        other => {
            return Err(Error::Align(format!(
                "cannot interpolate a column of {other}"
            )));
        }
    })
}

/// For each row time, the samples either side of it in one topic,
/// computed once and shared by the topic's columns.
struct Finder<'a> {
    times: &'a [i64],
    rows: &'a [i64],
    tolerance: Option<i64>,
    /// Per row: the last sample at or before the row's time.
    before: Option<Vec<Option<usize>>>,
    previous: Option<UInt64Array>,
    nearest: Option<UInt64Array>,
}

impl<'a> Finder<'a> {
    fn new(times: &'a [i64], rows: &'a [i64], tolerance: Option<i64>) -> Self {
        Finder {
            times,
            rows,
            tolerance,
            before: None,
            previous: None,
            nearest: None,
        }
    }

    /// Whether a sample `gap` ns from a row's time may be taken.
    fn within(&self, gap: i64) -> bool {
        self.tolerance.is_none_or(|t| gap <= t)
    }

    /// The last sample at or before each row's time (rows are in time
    /// order: one pass).
    fn before(&mut self) -> &[Option<usize>] {
        if self.before.is_none() {
            let mut out = Vec::with_capacity(self.rows.len());
            let mut j = 0;
            for &t in self.rows {
                while j < self.times.len() && self.times[j] <= t {
                    j += 1;
                }
                out.push(j.checked_sub(1));
            }
            self.before = Some(out);
        }
        self.before.as_deref().unwrap_or_default()
    }

    /// The row indices `previous` takes.
    fn previous(&mut self) -> &UInt64Array {
        if self.previous.is_none() {
            let rows = self.rows;
            let times = self.times;
            let tolerance = self.tolerance;
            let before = self.before();
            let idx: UInt64Array = before
                .iter()
                .zip(rows)
                .map(|(b, &t)| {
                    b.filter(|&i| tolerance.is_none_or(|tol| t - times[i] <= tol))
                        .map(|i| i as u64)
                })
                .collect();
            self.previous = Some(idx);
        }
        self.previous
            .get_or_insert_with(|| UInt64Array::from(Vec::<u64>::new()))
    }

    /// The row indices `nearest` takes: the earlier sample on a tie.
    fn nearest(&mut self) -> &UInt64Array {
        if self.nearest.is_none() {
            let rows = self.rows;
            let times = self.times;
            let before = self.before().to_vec();
            let idx: UInt64Array = before
                .iter()
                .zip(rows)
                .map(|(b, &t)| {
                    // The first sample at or after t: the one after `b`,
                    // or `b` itself when it is at t.
                    let after = match b {
                        Some(i) if times[*i] == t => Some(*i),
                        Some(i) => Some(i + 1).filter(|&j| j < times.len()),
                        None => (!times.is_empty()).then_some(0),
                    };
                    let pick = match (b, after) {
                        (Some(b), Some(a)) => {
                            if t - times[*b] <= times[a] - t {
                                Some(*b)
                            } else {
                                Some(a)
                            }
                        }
                        (Some(b), None) => Some(*b),
                        (None, a) => a,
                    };
                    pick.filter(|&i| self.within((t - times[i]).abs()))
                        .map(|i| i as u64)
                })
                .collect();
            self.nearest = Some(idx);
        }
        self.nearest
            .get_or_insert_with(|| UInt64Array::from(Vec::<u64>::new()))
    }

    /// `values` interpolated at each row's time.
    fn linear(&mut self, values: &Float64Array) -> ArrayRef {
        let rows = self.rows;
        let times = self.times;
        let tolerance = self.tolerance;
        let before = self.before();
        let mut out = Vec::with_capacity(rows.len());
        let mut valid = Vec::with_capacity(rows.len());
        let v = values.values();
        for (b, &t) in before.iter().zip(rows) {
            let ok = |gap: i64| tolerance.is_none_or(|tol| gap <= tol);
            let cell = match *b {
                Some(i) if times[i] == t => values.is_valid(i).then(|| v[i]),
                Some(i) if i + 1 < times.len() => {
                    let j = i + 1;
                    let usable = values.is_valid(i)
                        && values.is_valid(j)
                        && ok(t - times[i])
                        && ok(times[j] - t);
                    usable.then(|| {
                        let slope = (v[j] - v[i]) / (times[j] - times[i]) as f64;
                        slope * (t - times[i]) as f64 + v[i]
                    })
                }
                _ => None,
            };
            valid.push(cell.is_some());
            out.push(cell.unwrap_or(0.0));
        }
        Arc::new(Float64Array::new(out.into(), Some(NullBuffer::from(valid))))
    }
}

/// Aligned tables of several logs as one: a first `log` column naming
/// each row's log, then the union of the tables' columns in order of
/// first appearance, null where a log's table lacks one, a column's types
/// widened where no value is lost (int32 and int64 to int64, an integer
/// of up to 32 bits and a float to float64, ...). Errors when two logs
/// give a column types nothing holds both of.
pub fn concat_logs(parts: &[(String, RecordBatch)]) -> Result<RecordBatch, Error> {
    let mut merged: Option<(Schema, &str)> = None;
    for (log, b) in parts {
        merged = Some(match merged {
            None => (b.schema().as_ref().clone(), log.as_str()),
            Some((m, first)) => {
                let widened = crate::widen::merge(&m, &b.schema()).map_err(|c| {
                    Error::Align(format!(
                        "column {} is {} in {first} but {} in {log}, and no type holds both",
                        c.column, c.before, c.after
                    ))
                })?;
                (widened, first)
            }
        });
    }
    let columns = merged.map_or_else(Schema::empty, |(m, _)| m);
    let mut fields = vec![Arc::new(Field::new("log", DataType::Utf8, false))];
    fields.extend(columns.fields().iter().cloned());
    let schema = Arc::new(Schema::new(fields));
    let columns = Arc::new(columns);
    let mut batches = Vec::with_capacity(parts.len());
    for (log, b) in parts {
        let n = b.num_rows();
        let widened = crate::widen::align_batch(b, &columns)?;
        let mut all: Vec<ArrayRef> = vec![Arc::new(StringArray::from(vec![log.as_str(); n]))];
        all.extend(widened.columns().iter().cloned());
        let opts = RecordBatchOptions::new().with_row_count(Some(n));
        batches.push(RecordBatch::try_new_with_options(
            Arc::clone(&schema),
            all,
            &opts,
        )?);
    }
    Ok(concat_batches(&schema, &batches)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray};

    fn topic(name: &str, times: &[i64], x: &[Option<i32>]) -> AlignInput {
        let schema = Arc::new(Schema::new(vec![
            Field::new(LOG_TIME, timestamp_ns(), false),
            Field::new("x", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ]));
        let s: Vec<String> = x.iter().map(|v| format!("{v:?}")).collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(TimestampNanosecondArray::from(times.to_vec())),
            Arc::new(Int32Array::from(x.to_vec())),
            Arc::new(StringArray::from(s)),
        ];
        AlignInput::new(name, RecordBatch::try_new(schema, columns).unwrap())
    }

    fn ints(b: &RecordBatch, c: &str) -> Vec<Option<i32>> {
        let a = b.column_by_name(c).unwrap().as_primitive::<Int32Type>();
        (0..a.len())
            .map(|i| a.is_valid(i).then(|| a.value(i)))
            .collect()
    }

    fn floats(b: &RecordBatch, c: &str) -> Vec<Option<f64>> {
        let a = b.column_by_name(c).unwrap().as_primitive::<Float64Type>();
        (0..a.len())
            .map(|i| a.is_valid(i).then(|| a.value(i)))
            .collect()
    }

    #[test]
    fn previous_nearest_and_tolerance_follow_merge_asof() {
        // Samples at 0, 10, 10 (a duplicate time), 30; rows at -5, 0, 5,
        // 10, 20, 26, 40.
        let b = topic("b", &[0, 10, 10, 30], &[Some(1), Some(2), Some(3), Some(4)]);
        let a = topic("a", &[-5, 0, 5, 10, 20, 26, 40], &[None; 7]);
        let on = AlignOptions::new(Rows::On("a".into()));
        let t = align(&[a.clone(), b.clone()], &on).unwrap();
        // backward: the last of equal times.
        let want = vec![None, Some(1), Some(1), Some(3), Some(3), Some(3), Some(4)];
        assert_eq!(ints(&t, "b.x"), want);
        let nearest = AlignOptions {
            method: Method::Nearest,
            ..on.clone()
        };
        let t = align(&[a.clone(), b.clone()], &nearest).unwrap();
        // 5 is a tie between 0 and 10: the earlier; 20 a tie between
        // 10 and 30: the earlier (the last 10); -5 takes the first.
        let want = vec![
            Some(1),
            Some(1),
            Some(1),
            Some(3),
            Some(3),
            Some(4),
            Some(4),
        ];
        assert_eq!(ints(&t, "b.x"), want);
        let tol = AlignOptions {
            tolerance: Some(4),
            ..nearest
        };
        let t = align(&[a, b], &tol).unwrap();
        let want = vec![None, Some(1), None, Some(3), None, Some(4), None];
        assert_eq!(ints(&t, "b.x"), want);
        // The string column follows the same rows.
        let s = t.column_by_name("b.s").unwrap().as_string::<i32>();
        assert_eq!(s.value(3), "Some(3)");
        assert_eq!(t.schema().field(0).name(), "log_time");
        assert_eq!(t.schema().field(1).name(), "a.x");
    }

    #[test]
    fn linear_interpolates_numbers_only_and_keeps_nulls() {
        let b = topic("b", &[0, 10, 20, 40], &[Some(0), Some(10), None, Some(0)]);
        let a = topic("a", &[-1, 0, 5, 15, 30, 40, 41], &[None; 7]);
        let opts = AlignOptions {
            method: Method::Linear,
            ..AlignOptions::new(Rows::On("a".into()))
        };
        let t = align(&[a, b], &opts).unwrap();
        let want = vec![None, Some(0.0), Some(5.0), None, None, Some(0.0), None];
        assert_eq!(floats(&t, "b.x"), want);
        // Strings take previous.
        let s = t.column_by_name("b.s").unwrap().as_string::<i32>();
        assert_eq!(s.value(2), "Some(0)");
        assert!(s.is_null(0));
    }

    #[test]
    fn per_column_methods_win_over_per_topic() {
        let b = topic("b", &[0, 10], &[Some(0), Some(10)]);
        let a = topic("a", &[4], &[None]);
        let opts = AlignOptions {
            method: Method::Linear,
            methods: vec![
                ("b".into(), Method::Nearest),
                ("b.x".into(), Method::Linear),
            ],
            ..AlignOptions::new(Rows::On("a".into()))
        };
        let t = align(&[a.clone(), b.clone()], &opts).unwrap();
        assert_eq!(floats(&t, "b.x"), vec![Some(4.0)]);
        // b.log_time follows the topic's method, nearest: 0.
        let lt = t.column_by_name("b.log_time").unwrap();
        assert_eq!(lt.as_primitive::<TimestampNanosecondType>().value(0), 0);
        let bad = AlignOptions {
            methods: vec![("b.nope".into(), Method::Nearest)],
            ..opts
        };
        let e = align(&[a, b], &bad).unwrap_err().to_string();
        assert!(e.contains("b.nope"), "{e}");
    }

    #[test]
    fn grid_spans_the_topics_and_unsorted_rows_are_sorted() {
        let b = topic("b", &[30, 0, 10], &[Some(3), Some(0), Some(1)]);
        let c = topic("c", &[5, 35], &[Some(5), Some(35)]);
        let opts = AlignOptions::new(Rows::Every { period_ns: 10 });
        let t = align(&[b.clone(), c.clone()], &opts).unwrap();
        let times = t.column(0).as_primitive::<TimestampNanosecondType>();
        assert_eq!(times.values().to_vec(), vec![0, 10, 20, 30]);
        assert_eq!(ints(&t, "b.x"), vec![Some(0), Some(1), Some(1), Some(3)]);
        assert_eq!(ints(&t, "c.x"), vec![None, Some(5), Some(5), Some(5)]);
        let huge = AlignOptions::new(Rows::Every { period_ns: 1 });
        let far = topic("far", &[0, i64::MAX / 2], &[Some(0), Some(1)]);
        assert!(align(&[far], &huge).is_err());
    }

    #[test]
    fn logs_concatenate_with_a_log_column_and_widened_columns() {
        let on = AlignOptions::new(Rows::On("a".into()));
        let one = align(&[topic("a", &[0, 1], &[Some(1), Some(2)])], &on).unwrap();
        let two = align(&[topic("a", &[5], &[Some(9)])], &on).unwrap();
        let two = RecordBatch::try_new(
            Arc::new(Schema::new(vec![two.schema().field(0).clone()])),
            vec![Arc::clone(two.column(0))],
        )
        .unwrap();
        let t = concat_logs(&[("one".into(), one), ("two".into(), two)]).unwrap();
        assert_eq!(t.num_rows(), 3);
        assert_eq!(t.column(0).as_string::<i32>().value(2), "two");
        assert_eq!(ints(&t, "a.x"), vec![Some(1), Some(2), None]);
    }

    /// `topic` with `log_time` as durations (a clock since boot).
    fn boot_topic(name: &str, times: &[i64], x: &[Option<i32>]) -> AlignInput {
        let t = topic(name, times, x);
        let batch = &t.batches[0];
        let mut fields: Vec<Field> = t
            .schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone())
            .collect();
        fields[0] = fields[0]
            .clone()
            .with_data_type(DataType::Duration(TimeUnit::Nanosecond));
        let mut columns = batch.columns().to_vec();
        columns[0] = Arc::new(arrow_array::DurationNanosecondArray::from(times.to_vec()));
        AlignInput::new(
            name,
            RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap(),
        )
    }

    #[test]
    fn durations_since_boot_align_and_stay_durations() {
        let b = boot_topic("b", &[0, 10, 30], &[Some(0), Some(1), Some(3)]);
        let a = boot_topic("a", &[5, 30], &[None, None]);
        let duration = DataType::Duration(TimeUnit::Nanosecond);
        for rows in [Rows::On("a".into()), Rows::Every { period_ns: 10 }] {
            let t = align(&[a.clone(), b.clone()], &AlignOptions::new(rows)).unwrap();
            assert_eq!(t.schema().field(0).data_type(), &duration);
            assert_eq!(
                t.column_by_name("b.log_time").unwrap().data_type(),
                &duration
            );
            let times = t
                .column(0)
                .as_primitive::<arrow_array::types::DurationNanosecondType>();
            assert_eq!(times.value(0), if t.num_rows() == 2 { 5 } else { 0 });
        }
        let on = AlignOptions::new(Rows::On("a".into()));
        let t = align(&[a.clone(), b.clone()], &on).unwrap();
        assert_eq!(ints(&t, "b.x"), vec![Some(0), Some(3)]);
        // Logs of one format concatenate with their durations.
        let two = align(&[a, b], &on).unwrap();
        let all = concat_logs(&[("one".into(), t), ("two".into(), two)]).unwrap();
        assert_eq!(all.num_rows(), 4);
        assert_eq!(all.schema().field(1).data_type(), &duration);
        // Other times are refused.
        let odd = AlignInput::new(
            "odd",
            RecordBatch::try_from_iter([(
                LOG_TIME,
                Arc::new(arrow_array::Int64Array::from(vec![1])) as ArrayRef,
            )])
            .unwrap(),
        );
        let e = align(&[odd], &on).unwrap_err().to_string();
        assert!(e.contains("duration[ns]"), "{e}");
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("50 Hz").unwrap(), 20_000_000);
        assert_eq!(parse_rate("0.5hz").unwrap(), 2_000_000_000);
        assert!(parse_rate("0hz").is_err());
        assert!(parse_rate("-3").is_err());
        assert_eq!("Nearest".parse::<Method>().unwrap(), Method::Nearest);
        assert!("cubic".parse::<Method>().is_err());
    }
}
