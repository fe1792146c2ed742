//! The columns of a table: the time and message columns every table of a
//! format has, the names reserved for them, and the Arrow schema of a
//! table's rows.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field as ArrowField, Schema, SchemaRef, TimeUnit};
use logcore::{ChannelInfo, Format, MessageColumn, Summary, ValueType};

use crate::build;

/// The column of log times.
pub const LOG_TIME: &str = "log_time";
/// The column of log times in UTC (`timestamp[ns, UTC]`), right after
/// [`LOG_TIME`]: `log_time` itself where the log's clock is UTC,
/// `log_time` plus the anchor's offset where a clock since boot is
/// anchored to UTC (a ULog's GPS time), null where the log has no UTC
/// instants (see [`logcore::clock::to_utc`]).
pub const LOG_TIME_UTC: &str = "log_time_utc";
/// The column of MCAP publish times.
pub const PUBLISH_TIME: &str = "publish_time";
/// The column of MCAP sequence numbers.
pub const SEQUENCE: &str = "sequence";
/// The column of ULog multi-instance ids.
pub const MULTI_ID: &str = "multi_id";
/// The column of a message whose type is not a struct.
pub const DATA: &str = "data";
/// Column names the tables of [`robolog-sql`](https://crates.io/crates/robolog-sql)
/// and the Parquet layout add (`log`), reserved like the time columns: a
/// message field of one of these names gets a trailing `_`.
pub const RESERVED: [&str; 6] = [
    LOG_TIME,
    LOG_TIME_UTC,
    PUBLISH_TIME,
    SEQUENCE,
    MULTI_ID,
    "log",
];

/// The Arrow schema of a table's rows (see
/// [`Table::schema`](super::Table::schema)).
#[allow(clippy::too_many_arguments)]
pub(super) fn make_schema(
    format: Format,
    columns: &[MessageColumn],
    summary: &Summary,
    name: &str,
    key: &str,
    channels: &[ChannelInfo],
    value_type: &ValueType,
    fields: &Option<Vec<logcore::Field>>,
) -> SchemaRef {
    let mut time_meta = HashMap::new();
    time_meta.insert(
        "robolog.clock".to_string(),
        summary.time_model.clock.name().to_string(),
    );
    if let Some(a) = summary.time_model.anchor {
        time_meta.insert(
            "robolog.utc_offset_ns".to_string(),
            (i128::from(a.unix_time.as_nanos()) - i128::from(a.log_time.as_nanos())).to_string(),
        );
    }
    let ts = DataType::Timestamp(TimeUnit::Nanosecond, None);
    let mut cols = vec![
        ArrowField::new(LOG_TIME, log_time_type(summary.time_model.clock), false)
            .with_metadata(time_meta),
        ArrowField::new(LOG_TIME_UTC, utc_type(), true),
    ];
    for c in columns {
        cols.push(match c {
            MessageColumn::PublishTime => ArrowField::new(PUBLISH_TIME, ts.clone(), true),
            MessageColumn::Sequence => ArrowField::new(SEQUENCE, DataType::UInt32, true),
            MessageColumn::MultiId => ArrowField::new(MULTI_ID, DataType::UInt8, false),
            // A column of a later format, which tables do not show yet.
            _ => continue,
        });
    }
    match fields {
        // Top-level columns are nullable: tables of several logs merge
        // columns that some logs lack.
        Some(fs) => cols.extend(fs.iter().map(|f| build::arrow_field(f).with_nullable(true))),
        None => cols.push(ArrowField::new(DATA, build::data_type(value_type), true)),
    }
    let types: Vec<&str> = {
        let mut t: Vec<&str> = channels.iter().map(|c| c.type_name.as_str()).collect();
        t.dedup();
        t
    };
    let meta = table_metadata(name, key, format.name(), &types.join(","));
    Arc::new(Schema::new_with_metadata(cols, meta))
}

/// The type of [`LOG_TIME`] in the tables of a log whose clock is
/// `clock`: `timestamp[ns]` on a Unix clock (ROS bags, MCAP), and
/// `duration[ns]` (the time since the clock's start) on a clock since
/// boot (ULog) or since the recording's start (CARLA, VEL), so that such
/// a time never shows as a 1970 date. It depends on the format's clock
/// only: every log of one format has one type.
///
/// ```
/// use arrow_schema::{DataType, TimeUnit};
/// use logcore::Clock;
/// assert_eq!(
///     robolog_arrow::log_time_type(Clock::Unix),
///     DataType::Timestamp(TimeUnit::Nanosecond, None)
/// );
/// assert_eq!(
///     robolog_arrow::log_time_type(Clock::Boot),
///     DataType::Duration(TimeUnit::Nanosecond)
/// );
/// ```
pub fn log_time_type(clock: logcore::Clock) -> DataType {
    match clock {
        logcore::Clock::Unix => DataType::Timestamp(TimeUnit::Nanosecond, None),
        logcore::Clock::Boot | logcore::Clock::RecordingStart => {
            DataType::Duration(TimeUnit::Nanosecond)
        }
    }
}

/// The column of log times `values` (ns) of type `data_type` (a
/// [`log_time_type`]: `duration[ns]`, else `timestamp[ns]`).
pub(crate) fn log_time_array(
    data_type: &DataType,
    values: impl IntoIterator<Item = i64>,
) -> arrow_array::ArrayRef {
    use arrow_array::{DurationNanosecondArray, TimestampNanosecondArray};
    let values: arrow_buffer::ScalarBuffer<i64> = values.into_iter().collect();
    match data_type {
        DataType::Duration(_) => Arc::new(DurationNanosecondArray::new(values, None)),
        _ => Arc::new(TimestampNanosecondArray::new(values, None)),
    }
}

/// The values (ns) of a column of log times: a `timestamp[ns]` or a
/// `duration[ns]` column (see [`log_time_type`]); `None` for another type.
/// Nulls read as the values under them.
///
/// ```
/// use arrow_array::{DurationNanosecondArray, Int64Array};
/// let boot = DurationNanosecondArray::from(vec![5, 7]);
/// assert_eq!(robolog_arrow::log_time_values(&boot), Some(&[5, 7][..]));
/// assert_eq!(robolog_arrow::log_time_values(&Int64Array::from(vec![1])), None);
/// ```
pub fn log_time_values(array: &dyn arrow_array::Array) -> Option<&[i64]> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{DurationNanosecondType, TimestampNanosecondType};
    match array.data_type() {
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            Some(array.as_primitive::<TimestampNanosecondType>().values())
        }
        DataType::Duration(TimeUnit::Nanosecond) => {
            Some(array.as_primitive::<DurationNanosecondType>().values())
        }
        _ => None,
    }
}

/// The type of [`LOG_TIME_UTC`]: nanoseconds with the time zone `UTC`.
pub(crate) fn utc_type() -> DataType {
    DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
}

/// The clock a table's [`LOG_TIME_UTC`] is computed with: the log's time
/// model where its times have UTC instants (a UTC clock, or a clock
/// anchored to UTC), `None` where they have none (the column is null).
pub(super) fn utc_model(summary: &Summary) -> Option<logcore::TimeModel> {
    let model = summary.time_model;
    let kind = logcore::clock::ClockKind::of(summary);
    let has_utc = kind != logcore::clock::ClockKind::Unknown
        && (model.clock == logcore::Clock::Unix || model.anchor.is_some());
    has_utc.then_some(model)
}

/// The schema metadata every table carries: `robolog.table` (its name),
/// `robolog.topic` (its key), `robolog.format` and `robolog.type` (its
/// message types, comma-separated).
pub(crate) fn table_metadata(
    name: &str,
    key: &str,
    format: &str,
    types: &str,
) -> HashMap<String, String> {
    HashMap::from([
        ("robolog.table".to_string(), name.to_string()),
        ("robolog.topic".to_string(), key.to_string()),
        ("robolog.format".to_string(), format.to_string()),
        ("robolog.type".to_string(), types.to_string()),
    ])
}

/// The message field's name of a table's column: a field called like a
/// [`RESERVED`] column is the column of that name with a trailing `_`.
///
/// ```
/// assert_eq!(robolog_arrow::original_name("log_time_"), "log_time");
/// assert_eq!(robolog_arrow::original_name("speed_"), "speed_");
/// ```
pub fn original_name(column: &str) -> &str {
    match column.strip_suffix('_') {
        Some(base) if RESERVED.contains(&base) => base,
        _ => column,
    }
}
