//! Export of any log to tables: one file per channel, one row per message,
//! one column per leaf of the message's value, for spreadsheets and pandas.
//!
//! [`export_tables`] writes the tables of a log in any [`TableFormat`]:
//! CSV files ([`Csv`]), or a format of another crate, which implements the
//! trait and gets the same columns, file names and safety rules.
//! [`ulog2csv`] is the one named special case: ULog files byte for byte as
//! pyulog's `ulog2csv` writes them. The Parquet dataset of `robolog-arrow`
//! shares the plan ([`Selection`]), the options ([`ExportOptions`]), the
//! report ([`ExportedLog`], [`Progress`]) and the error ([`ExportError`]).
//!
//! # Tables
//!
//! - **One table per table key** ([`LogReader::table_key`](logcore::LogReader::table_key)):
//!   the channels of a log that share a topic (a bag's several connections
//!   of `/chatter`; for ULog the instances of a message name, told apart
//!   by a `multi_id` column) make one table, rows in log-time order: the
//!   same tables as the Parquet and SQL ones.
//! - **Time columns first**, in the format's own unit and in nanoseconds:
//!   `time_s,log_time_ns` for ROS bags and CARLA recordings (seconds with
//!   all nine fraction digits), `time_ms,log_time_ns` for VEL logs
//!   (milliseconds with six), `log_time_ns,publish_time_ns` for MCAP (its
//!   own unit is the nanosecond), `time_us,log_time_ns` for ULog.
//!   [`ulog2csv`] writes ULog files as pyulog's `ulog2csv` does (below),
//!   whose first column is the `timestamp` field in microseconds.
//! - **Value columns** with pyulog's names: `a.b` for field `b` of struct
//!   `a`, `a[0]` for element 0 of array `a`, `a[0].b` for both; times and
//!   durations (a ROS `header.stamp`, ROS 1 or 2) as one column `t` of
//!   integer nanoseconds. A message whose
//!   value is not a struct (raw bytes) has its columns under the name
//!   `data`.
//! - **Columns are fixed per table** before the first row is written.
//!   Where the format declares the channels' value type
//!   ([`LogReader::value_type`](logcore::LogReader::value_type): bags,
//!   ULog, MCAP schemas, the VEL and CARLA records) the columns start from
//!   it: every declared field in declared order, even one no message sets
//!   (a protobuf field left unset is an empty column), fixed-size arrays at
//!   their size. A first pass then decodes every message and merges what
//!   it saw (fields the declaration lacks in order of first appearance,
//!   for **variable-length arrays the length of the longest**, for numbers
//!   the widest kind); a second pass writes the rows, a shorter array
//!   leaving its last columns empty.
//! - **Long arrays** (more than [`ExportOptions::max_array_columns`]
//!   elements in some message, [`DEFAULT_MAX_ARRAY_COLUMNS`] by default: an
//!   image, a point cloud) and places where messages disagree in kind (a
//!   JSON field that is a number in one message and a string in another)
//!   are one column whose cells hold the value's JSON, exactly as `robolog
//!   cat --json` prints it.
//! - **Messages that do not decode** are rows whose value columns are
//!   empty in a table whose other messages decode, and reported
//!   ([`ExportedTable::undecoded`]), as in the Parquet and SQL tables, whose
//!   message columns are null there; a channel
//!   none of whose messages decode (an encoding nobody decodes) is exported
//!   raw, its payload bytes under `data`.
//! - **Damaged records** are skipped (the read is lenient) and reported in
//!   [`ExportedLog::problems`].
//!
//! # Files
//!
//! - File names ([`ExportedTable::name`]): with [`ulog2csv`], those of
//!   `ulog2csv` (`NAME_topic_multi.csv`, `NAME` the input's name without
//!   `.ulg`); otherwise the table's name as the Parquet and SQL tables
//!   have it ([`names`](crate::names): the topic without its leading `/`,
//!   every character other than a letter, a digit or `_` replaced by `_`,
//!   a hash of the topic after it where another topic of the log has the
//!   same name, compared without case for file systems that ignore it),
//!   then `.EXTENSION`. ULog subscriptions that would
//!   share a `ulog2csv` name (`a/b` and `a_b`, one name subscribed twice)
//!   get a file each too: the first in the log's file order keeps the
//!   name, the others get `_2` (`_3`, ...) before `.csv`, never a name
//!   another subscription has; no two tables ever write one file.
//! - The folder is created when missing (with its parents). Every file is
//!   checked before the first is written: an output that exists is refused
//!   unless [`ExportOptions::force`] is set, an output that is the input
//!   always ([`ExportError::Refused`]), so a refusal writes nothing.
//! - A `--topic` ([`ExportOptions::topics`]) selects the channels of that
//!   topic, or of the table with that name (`count` for `/count`).
//! - Every file is written through [`crate::write`]: to a temporary file in
//!   the folder, renamed to its name when complete. An interrupted or failed
//!   export never leaves a half file under a final name; the files of a run
//!   are renamed together at the end (in groups of at most
//!   256 (`MAX_OPEN_TABLES`) files).
//!
//! # Memory
//!
//! Bounded by the tables, not the file: per table its merged shape (at
//! most `max_array_columns` columns per array) and a 64 KiB write buffer,
//! plus the message being decoded. Rows are written as they are read. At
//! most 256 (`MAX_OPEN_TABLES`) files are open at once: a log with more tables
//! is written in several passes over the input, each for that many tables.
//!
//! ```
//! use robolog::export::{Csv, ExportOptions, export_tables};
//!
//! # let dir = std::env::temp_dir().join(format!("robolog-export-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
//! let log = robolog::open(input)?;
//! let opts = ExportOptions { topics: vec!["/count".into()], ..ExportOptions::default() };
//! let done = export_tables(&log, input.as_ref(), &dir, &opts, &Csv, &mut |_| {})?;
//! assert_eq!(done.tables[0].rows, 30);
//! let csv = std::fs::read_to_string(dir.join("count.csv"))?;
//! assert!(csv.starts_with("time_s,log_time_ns,data\n1600000000.000000000,1600000000000000000,-5\n"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod csv;
mod plan;
mod report;
mod shape;
mod tables;
#[cfg(feature = "ulog")]
mod ulog;

use std::io;

use logcore::{Limits, Value};

pub use csv::Csv;
pub use plan::Selection;
pub use report::{
    ExportError, Exported, ExportedLog, ExportedTable, FailedTable, Progress, Undecoded, Unread,
};
pub use tables::export_tables;
#[cfg(feature = "ulog")]
pub use ulog::ulog2csv;

/// The default of [`ExportOptions::max_array_columns`].
pub const DEFAULT_MAX_ARRAY_COLUMNS: usize = 1024;

/// What to export and how: the options of every export (CSV tables,
/// [`ulog2csv`], and the Parquet dataset of `robolog-arrow`, which adds its
/// own).
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Only the channels of these topics (as `robolog info` lists them) or
    /// table names (empty: all); see [`Selection`]. One that no input has
    /// is [`ExportError::UnknownTopic`].
    pub topics: Vec<String>,
    /// Replace output files that exist.
    pub force: bool,
    /// An array with more elements than this in some message is one JSON
    /// column instead of a column per element (table files whose columns
    /// are flat: CSV).
    pub max_array_columns: usize,
    /// The limits of the readers of inputs the export opens itself (see
    /// [`crate::OpenOptions::limits`]).
    pub limits: Limits,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            topics: Vec::new(),
            force: false,
            max_array_columns: DEFAULT_MAX_ARRAY_COLUMNS,
            limits: Limits::default(),
        }
    }
}

/// The unit of a time column.
pub use logcore::TimeUnit;

/// What a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// A time in this unit ([`Cell::Time`]).
    Time(TimeUnit),
    /// Only absent values were seen.
    Null,
    /// Booleans.
    Bool,
    /// Signed integers (or signed and unsigned ones).
    Int,
    /// Unsigned integers.
    UInt,
    /// Single-precision floats.
    F32,
    /// Double-precision floats (or floats and integers).
    F64,
    /// Text.
    String,
    /// JSON text of a value (a long array, or values of different kinds).
    Json,
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The column's name (`time_s`, `pose.position.x`, `ranges[3]`).
    pub name: String,
    /// What it holds.
    pub kind: ColumnKind,
}

/// One cell of a row, borrowed from the message's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'v> {
    /// No value (a shorter array, an absent field, a null).
    Empty,
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    I64(i64),
    /// An unsigned integer.
    U64(u64),
    /// A single-precision float.
    F32(f32),
    /// A double-precision float.
    F64(f64),
    /// Text.
    Str(&'v str),
    /// A value to be written as JSON.
    Json(&'v Value),
    /// A time, to be written in its column's [`TimeUnit`].
    Time(logcore::Timestamp),
}

/// A table being written: cells in column order, each row closed by
/// [`end_row`](TableSink::end_row).
pub trait TableSink {
    /// The next cell of the current row.
    fn cell(&mut self, cell: Cell<'_>);
    /// Ends the current row.
    fn end_row(&mut self) -> io::Result<()>;
    /// Writes what is buffered to the table's output and flushes it.
    fn finish(self: Box<Self>) -> io::Result<()>;
}

/// A table file format: CSV ([`Csv`]), and the formats of other crates.
pub trait TableFormat {
    /// The file name extension, without the dot (`csv`).
    fn extension(&self) -> &'static str;
    /// Starts a table with `columns` written to `out` (for
    /// [`export_tables`], a temporary file renamed into place once every
    /// table of the pass is finished; any writer for a caller of its own).
    fn create<'w>(
        &self,
        out: &'w mut dyn io::Write,
        columns: &[Column],
    ) -> io::Result<Box<dyn TableSink + 'w>>;
}

#[cfg(test)]
mod tests;
