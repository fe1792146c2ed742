//! `robolog-arrow`: typed Apache Arrow tables from robotics logs of any
//! format the [`robolog`] facade opens (ROS bags, MCAP, PX4 ULog, CARLA
//! recordings, VEL logs).
//!
//! A log's channels become **tables** ([`tables`]): one per topic (per
//! message name for ULog), with typed columns taken from the format's own
//! definitions ([`logcore::ValueType`]: ROS `.msg` files, ULog formats,
//! protobuf descriptors, the CARLA and VEL record layouts). Integers keep
//! their width, fixed arrays are `FixedSizeList`, nested messages
//! `Struct`, variable arrays `List`, strings `Utf8`, byte blobs `Binary`
//! ([`data_type`]). Every table starts with `log_time` (ns on the log's
//! clock: a timestamp on a Unix clock, a duration since boot or since the
//! recording's start on the others, see [`log_time_type`]; the clock and
//! UTC offset in its field metadata), then `publish_time`
//! and `sequence` for MCAP and `multi_id` for ULog, then one column per
//! top-level field of the message.
//!
//! [`scan`] streams a table as [`RecordBatch`](arrow_array::RecordBatch)es
//! of bounded size, decoding only the projected columns and pushing time
//! ranges and the table's channels into the format's index.
//!
//! ```
//! use arrow_array::cast::AsArray;
//! use arrow_array::types::Int32Type;
//! use robolog_arrow::{ScanOptions, scan, tables};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
//! let log = robolog::open(path)?;
//! let count = tables(&log)?.into_iter().find(|t| t.name == "count").expect("/count");
//! let opts = ScanOptions { projection: Some(vec!["data".into()]), ..ScanOptions::default() };
//! let batch = scan(&log, &count, &opts)?.next().expect("one batch")?;
//! assert_eq!(batch.column(0).as_primitive::<Int32Type>().value(0), -5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod align;
pub mod blocks;
mod build;
pub mod flatten;
mod infer;
mod inputs;
mod logs;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod pyulog;
mod table;
mod topics;
mod ulog;
mod widen;

pub use build::data_type;
pub use inputs::{find_logs, find_named_logs, hive_escape, log_ids};
#[cfg(feature = "parquet")]
pub(crate) use logs::logs_row;
pub use logs::{LogRow, logs_batch, logs_schema};
pub use robolog::names::{
    LOGS, MAX_NAME_BYTES, RESERVED_TABLES, TOPICS, TableNames, base_name, may_name, shorten,
};
pub use table::{
    BatchReader, DATA, DEFAULT_BATCH_SIZE, LOG_TIME, LOG_TIME_UTC, MAX_BATCH_PAYLOAD, MULTI_ID,
    PUBLISH_TIME, PassItem, RESERVED, SEQUENCE, SPLIT_MESSAGES, ScanOptions, SkippedRecord, Table,
    TableBatch, TableRead, TablesScan, Undecoded, log_time_type, log_time_values, original_name,
    read_table, scan, scan_ranges, scan_tables, table_for, table_in, table_key, table_name,
    table_of, tables, tables_with_summary, ulog_in_table,
};
pub use topics::{TopicRow, topics_batch, topics_schema};

/// What can go wrong building tables.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or decoding the log failed.
    #[error(transparent)]
    Log(#[from] logcore::Error),
    /// Arrow refused the arrays (a bug if it happens: the arrays follow
    /// the schema by construction).
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// A topic asked for that the log lacks.
    #[error("no topic {topic}")]
    NoTopic {
        /// The topic asked for.
        topic: String,
    },
    /// A column asked for that the table lacks.
    #[error("table {table} has no column {column}")]
    NoColumn {
        /// The table.
        table: String,
        /// The column asked for.
        column: String,
    },
    /// A table scanned in a log it was not built from: the log has no
    /// channel of its id with its topic and type.
    #[error(
        "table {table} is not a table of this log: it has no channel {channel} on {topic} of type {type_name}"
    )]
    OtherLog {
        /// The table.
        table: String,
        /// The table's channel the log lacks.
        channel: u32,
        /// That channel's topic.
        topic: String,
        /// That channel's type.
        type_name: String,
    },
    /// Topics that cannot be aligned as asked (see [`align`]).
    #[error("{0}")]
    Align(String),
    /// Writing Parquet failed.
    #[cfg(feature = "parquet")]
    #[error("parquet: {0}")]
    Parquet(#[from] ::parquet::errors::ParquetError),
    /// A decoded value that does not fit its table's type.
    #[error(
        "table {table}: the message at byte offset {offset} does not fit the table's type: {reason}"
    )]
    Misfit {
        /// The table.
        table: String,
        /// The byte offset of the message (of its chunk, when compressed).
        offset: u64,
        /// Where and what.
        reason: String,
    },
}

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
