//! The tables of one log and the streaming scan that turns their messages
//! into record batches.
//!
//! - `schema`: the columns every table has and the Arrow schema of a
//!   table's rows.
//! - `group`: a log's channels grouped into tables, with their value types
//!   declared by the format or inferred from the messages.
//! - `scan`: what a scan reads ([`ScanOptions`]) and the [`BatchReader`]
//!   it returns; `batch` builds its record batches from the messages.
//! - `read`: a whole table read into memory ([`read_table`]), a large one
//!   as pieces of its time span, each taken by the next free core.

mod batch;
mod group;
mod pass;
mod read;
mod scan;
mod schema;

use std::collections::BTreeMap;

use arrow_schema::SchemaRef;
use logcore::{
    ChannelInfo, Format, LogReader, MessageColumn, Summary, TimeModel, Timestamp, ValueType,
};

use robolog::names::{base_name, may_name};

// The Parquet export builds the tables of a set of logs.
pub(crate) use batch::utc_times;
#[cfg(feature = "parquet")]
pub(crate) use group::tables_where;
pub use group::{table_for, table_in, table_of, tables, tables_with_summary};
pub use pass::{MAX_BATCH_PAYLOAD, PassItem, SkippedRecord, TableBatch, TablesScan, scan_tables};
pub use read::{SPLIT_MESSAGES, TableRead, read_table, scan_ranges};
pub(crate) use scan::Source;
pub use scan::{BatchReader, DEFAULT_BATCH_SIZE, ScanOptions, Undecoded, scan};
pub use schema::original_name;
pub(crate) use schema::table_metadata;
pub use schema::{DATA, LOG_TIME, LOG_TIME_UTC, MULTI_ID, PUBLISH_TIME, RESERVED, SEQUENCE};
pub(crate) use schema::{log_time_array, utc_type};
pub use schema::{log_time_type, log_time_values};

/// One table of a log: the channels that share a [table name](table_name),
/// their merged value type and the Arrow schema of their rows.
#[derive(Debug, Clone)]
pub struct Table {
    /// The table's name (see [`table_name`] and [`TableNames`](crate::TableNames)).
    pub name: String,
    /// The topic (for ULog, the message name) of its channels (see
    /// [`table_key`]).
    pub key: String,
    /// The log's channels whose messages are the table's rows.
    pub channels: Vec<ChannelInfo>,
    /// The type of the channels' values: declared by the format, or
    /// inferred from every value when the format declares none.
    pub value_type: ValueType,
    /// Whether [`value_type`](Self::value_type) was inferred from values.
    pub inferred: bool,
    /// How many messages the table has (from the log's summary).
    pub message_count: u64,
    /// The Arrow schema of its rows (see [`Table::schema`]).
    schema: SchemaRef,
    /// The message fields that are columns, or `None` for the single
    /// `data` column.
    fields: Option<Vec<logcore::Field>>,
    /// What the messages carry besides log time and payload (see
    /// [`LogReader::message_columns`]), each a column.
    columns: &'static [MessageColumn],
    /// The log's format.
    format: Format,
    /// The clock `log_time_utc` is computed with, `None` where the log
    /// has no UTC instants (see [`LOG_TIME_UTC`]).
    utc: Option<TimeModel>,
}

/// The table name of a channel where no other topic of the logs read
/// together has the same name: the [`base_name`] of its
/// [`table_key`] (for ULog the message name, every multi instance in one
/// table; for every other format the topic without its leading `/`,
/// characters other than letters, digits and `_` replaced by `_`:
/// `/camera/image_raw` is `camera_image_raw`). Where several topics
/// have the same base name, [`TableNames`](crate::TableNames) makes the names unique.
///
/// ```
/// use logcore::LogReader;
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let chatter = &log.channels()?[0];
/// assert_eq!(chatter.topic, "/chatter");
/// assert_eq!(robolog_arrow::table_name(&log, chatter), "chatter");
/// # Ok::<(), robolog::Error>(())
/// ```
pub fn table_name(log: &dyn LogReader, channel: &ChannelInfo) -> String {
    base_name(table_key(log, channel))
}

/// What a channel's table holds, as its log's format says
/// ([`LogReader::table_key`]): for ULog the message name, for the other
/// formats the topic. Channels of one key are one table of a log.
pub fn table_key<'c>(log: &dyn LogReader, channel: &'c ChannelInfo) -> &'c str {
    log.table_key(channel)
}

/// Whether the channels of the ULog format called `format_name` may
/// belong to the table called `table` (see [`may_name`]): what a reader
/// that wants some tables only selects the subscriptions of a ULog by
/// ([`robolog::OpenOptions::select`]).
///
/// ```
/// assert!(robolog_arrow::ulog_in_table("vehicle_status", "vehicle_status"));
/// assert!(robolog_arrow::ulog_in_table("logs", "logs_"));
/// assert!(!robolog_arrow::ulog_in_table("vehicle_status", "vehicle"));
/// ```
pub fn ulog_in_table(format_name: &str, table: &str) -> bool {
    may_name(format_name, table)
}

impl Table {
    /// The Arrow schema of the table's rows: `log_time`, `log_time_utc`
    /// (see [`LOG_TIME_UTC`]), then `publish_time` and `sequence` for
    /// MCAP, `multi_id` for ULog, then a column per top-level field of the
    /// value type (or one `data` column). `log_time` is of the type of
    /// the log's clock ([`log_time_type`]) and carries the log's
    /// clock (`robolog.clock`) and, where the log is anchored to UTC,
    /// `robolog.utc_offset_ns` in its field metadata.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// `t`, a log time of the table's log, in UTC (ns since 1970): the
    /// value of `log_time_utc` in the row whose `log_time` is `t`;
    /// `None` where the log has no UTC instants.
    pub fn to_utc(&self, t: Timestamp) -> Option<Timestamp> {
        self.utc.and_then(|m| m.to_unix(t))
    }

    /// The log time of `utc` (ns since 1970 UTC) on the table's log's
    /// clock (the inverse of [`Table::to_utc`]); `None` where the log has
    /// no UTC instants.
    pub fn from_utc(&self, utc: Timestamp) -> Option<Timestamp> {
        self.utc.and_then(|m| m.from_unix(utc))
    }

    /// Whether the table's `log_time_utc` has values (the log's clock is
    /// UTC or anchored to UTC).
    pub fn has_utc(&self) -> bool {
        self.utc.is_some()
    }

    /// The log's format.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// The metadata of a log as one JSON object of strings (its summary's
/// metadata: ULog info and parameters, MCAP metadata records, ...).
pub(crate) fn metadata_json(summary: &Summary) -> String {
    let m: BTreeMap<&String, &String> = summary.metadata.iter().collect();
    serde_json::to_string(&m).unwrap_or_else(|_| "{}".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::{ChannelId, Error as LogError, Message, MessageFilter, MessageIter, Value};

    /// A reader that only says what its tables are keyed by: the message
    /// name where `by_type`, else the topic.
    struct Keyed {
        by_type: bool,
    }

    impl LogReader for Keyed {
        fn format(&self) -> Format {
            Format::Mcap
        }
        fn summary(&self) -> logcore::Result<Summary> {
            Err(LogError::unsupported(0, "a summary", "none in this test"))
        }
        fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
            Ok(Vec::new())
        }
        fn messages<'a>(&'a self, _: &MessageFilter) -> logcore::Result<MessageIter<'a>> {
            Ok(Box::new(std::iter::empty()))
        }
        fn decode(&self, _: &Message<'_>) -> logcore::Result<Value> {
            Ok(Value::Null)
        }
        fn table_key<'c>(&self, channel: &'c ChannelInfo) -> &'c str {
            if self.by_type {
                &channel.type_name
            } else {
                &channel.topic
            }
        }
    }

    #[test]
    fn channels_are_matched_to_their_table_names() {
        let cases = [
            (false, "/camera/image_raw", "x", "camera_image_raw"),
            (false, "/logs", "x", "logs_"),
            (false, "/", "x", "_"),
            (false, "count", "x", "count"),
            (false, "/a.b-c", "x", "a_b_c"),
            (
                true,
                "vehicle_status[1]",
                "vehicle_status",
                "vehicle_status",
            ),
            (true, "t", "logs", "logs_"),
            // Letters of any script are kept (SQL takes them quoted).
            (true, "t", "é", "é"),
            (false, "/温度", "x", "温度"),
        ];
        for (by_type, topic, ty, want) in cases {
            let log = Keyed { by_type };
            let c = ChannelInfo::new(ChannelId(0), topic, ty, "x");
            assert_eq!(table_name(&log, &c), want, "{topic} {ty}");
            let key = table_key(&log, &c);
            assert!(may_name(key, want), "{topic} {ty}");
            assert!(!may_name(key, "camera"), "{topic} {ty}");
            assert!(!may_name(key, &format!("{want}_x")), "{topic} {ty}");
            if by_type {
                assert!(ulog_in_table(ty, want), "{ty}");
                assert!(!ulog_in_table(ty, "camera"), "{ty}");
            }
        }
        // The ULog reader keys by message name, the others by topic.
        let ulog = robolog::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/ulog/example.ulg"
        ))
        .unwrap();
        let c = ChannelInfo::new(ChannelId(0), "vehicle_status[1]", "vehicle_status", "x");
        assert_eq!(table_key(&ulog, &c), "vehicle_status");
        let bag = robolog::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/rosbag/sample.bag"
        ))
        .unwrap();
        assert_eq!(table_key(&bag, &c), "vehicle_status[1]");
    }
}
