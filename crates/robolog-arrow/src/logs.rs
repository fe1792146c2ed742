//! The `logs` table: one row per log, what its summary says. Defined once
//! here; the Parquet export writes a row of it per log and SQL over logs
//! (`robolog-sql`) queries it.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::types::TimestampNanosecondType;
use arrow_array::{
    ArrayRef, DurationNanosecondArray, Float64Array, Int64Array, PrimitiveArray, RecordBatch,
    StringArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use logcore::Summary;

use crate::Error;
use crate::table::{metadata_json, utc_type};

/// The schema of the `logs` table: `path`, `format`, `start`, `end` (the
/// first and last log time: integer ns on the log's own clock, as
/// `robolog info --json`'s `start_ns` and `end_ns`, so that no clock
/// shows as a date it is not), `duration_s`, `message_count`, `metadata`,
/// `tables`, `clock`, `start_utc`, `end_utc` (UTC timestamps, null where
/// the log has no UTC anchor: a "flights per day" query groups by them),
/// `duration` (`duration[ns]`, `end - start`): the one definition
/// of the table, which the Parquet export writes a row of per log and SQL
/// over logs (`robolog-sql`) queries, after its `log` column
/// ([`logs_batch`]).
pub fn logs_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("path", DataType::Utf8, false),
        Field::new("format", DataType::Utf8, false),
        Field::new("start", DataType::Int64, true),
        Field::new("end", DataType::Int64, true),
        Field::new("duration_s", DataType::Float64, false),
        Field::new("message_count", DataType::UInt64, false),
        Field::new("metadata", DataType::Utf8, false),
        Field::new("tables", DataType::Utf8, false),
        Field::new("clock", DataType::Utf8, false),
        Field::new("start_utc", utc_type(), true),
        Field::new("end_utc", utc_type(), true),
        Field::new("duration", DataType::Duration(TimeUnit::Nanosecond), false),
    ]))
}

/// One row of the `logs` table ([`logs_schema`]): a log and what its
/// summary says.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRow {
    /// The log's path, as given.
    pub path: String,
    /// The format's name ([`logcore::Format::name`], as `robolog info` names it).
    pub format: &'static str,
    /// The first log time (ns), `None` when the log has no messages.
    pub start: Option<i64>,
    /// The last log time (ns), `None` when the log has no messages.
    pub end: Option<i64>,
    /// `end - start` in seconds (0 without messages).
    pub duration_s: f64,
    /// `end - start` in ns (0 without messages).
    pub duration_ns: i64,
    /// How many messages the log has.
    pub message_count: u64,
    /// The log's metadata as a JSON object: its entries, keys to values.
    pub metadata: String,
    /// The log's tables as a JSON object, each table's name (in the set
    /// of logs read together, or the dataset) with the topic (ULog: the
    /// message name) whose messages are its rows: `{"temp_1": "/temp-1"}`.
    pub tables: String,
    /// What its times count from ([`logcore::clock::ClockKind`]'s name:
    /// `utc`, `boot`, `simulation`, `recording_start` or `unknown`).
    pub clock: &'static str,
    /// The first log time in UTC (ns since 1970), where the log has UTC
    /// times (its clock, or an anchor it holds: a ULog's GPS time).
    pub start_utc: Option<i64>,
    /// The last log time in UTC, where the log has UTC times.
    pub end_utc: Option<i64>,
}

impl LogRow {
    /// The row of the log at `path` whose summary is `summary`.
    pub fn new(summary: &Summary, path: &str) -> LogRow {
        let utc = |t: Option<logcore::Timestamp>| {
            t.and_then(|t| logcore::clock::to_utc(summary, t))
                .map(logcore::Timestamp::as_nanos)
        };
        let duration_s = match (summary.start, summary.end) {
            (Some(s), Some(e)) => {
                (i128::from(e.as_nanos()) - i128::from(s.as_nanos())) as f64 / 1e9
            }
            _ => 0.0,
        };
        LogRow {
            path: path.to_string(),
            format: summary.format.name(),
            start: summary.start.map(logcore::Timestamp::as_nanos),
            end: summary.end.map(logcore::Timestamp::as_nanos),
            duration_s,
            duration_ns: summary.duration_ns(),
            message_count: summary.message_count,
            metadata: metadata_json(summary),
            tables: "{}".to_string(),
            clock: logcore::clock::ClockKind::of(summary).name(),
            start_utc: utc(summary.start),
            end_utc: utc(summary.end),
        }
    }

    /// The row with its [`tables`](Self::tables) set from `(name, topic)`
    /// pairs.
    ///
    /// ```
    /// use logcore::{Clock, Format, Summary, TimeModel};
    /// let summary = Summary::new(Format::Mcap, "0", TimeModel::new(Clock::Unix));
    /// let row = robolog_arrow::LogRow::new(&summary, "a.mcap")
    ///     .with_tables([("temp_1", "/temp_1"), ("temp_1_f84d1035", "/temp-1")]);
    /// assert_eq!(row.tables, r#"{"temp_1":"/temp_1","temp_1_f84d1035":"/temp-1"}"#);
    /// ```
    pub fn with_tables<'a>(mut self, tables: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let map: BTreeMap<&str, &str> = tables.into_iter().collect();
        self.tables = serde_json::to_string(&map).unwrap_or_else(|_| "{}".into());
        self
    }
}

/// The columns of the `logs` table ([`logs_schema`]) holding `rows`, in
/// that order.
fn logs_columns(rows: &[LogRow]) -> Vec<ArrayRef> {
    let times = |f: fn(&LogRow) -> Option<i64>| -> ArrayRef {
        Arc::new(Int64Array::from_iter(rows.iter().map(f)))
    };
    let utc_times = |f: fn(&LogRow) -> Option<i64>| -> ArrayRef {
        Arc::new(
            PrimitiveArray::<TimestampNanosecondType>::from_iter(rows.iter().map(f))
                .with_timezone("UTC"),
        )
    };
    vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.path))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.format))),
        times(|r| r.start),
        times(|r| r.end),
        Arc::new(Float64Array::from_iter_values(
            rows.iter().map(|r| r.duration_s),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.message_count),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.metadata.as_str()),
        )),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| r.tables.as_str()),
        )),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.clock))),
        utc_times(|r| r.start_utc),
        utc_times(|r| r.end_utc),
        Arc::new(DurationNanosecondArray::from_iter_values(
            rows.iter().map(|r| r.duration_ns),
        )),
    ]
}

/// The `logs` table of `rows` ([`logs_schema`]).
pub fn logs_batch(rows: &[LogRow]) -> Result<RecordBatch, Error> {
    Ok(RecordBatch::try_new(logs_schema(), logs_columns(rows))?)
}

/// The `logs` row of a log as the Parquet export writes it
/// ([`logs_batch`] of its [`LogRow`], `path` the input as given), with
/// the log's clock in the field metadata of `start` and `end`, as
/// `log_time` has it.
#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
pub(crate) fn logs_row(
    summary: &Summary,
    path: &str,
    tables: &[(&str, &str)],
) -> Result<RecordBatch, Error> {
    let batch = logs_batch(&[LogRow::new(summary, path).with_tables(tables.iter().copied())])?;
    let clock = summary.time_model.clock.name().to_string();
    let fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| match f.name().as_str() {
            "start" | "end" => f
                .as_ref()
                .clone()
                .with_metadata([("robolog.clock".to_string(), clock.clone())].into()),
            _ => f.as_ref().clone(),
        })
        .collect();
    Ok(batch.with_schema(Arc::new(Schema::new(fields)))?)
}
