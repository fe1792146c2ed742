//! Export of any log to tables: one file per channel, one row per message,
//! one column per leaf of the message's value, for spreadsheets and pandas.
//!
//! [`export_csv`] writes CSV files ([`Csv`]); [`export_tables`] writes any
//! [`TableFormat`] (a format of another crate implements the trait and gets
//! the same columns, file names and safety rules).
//!
//! # Tables
//!
//! - **One table per topic and type**: the channels of a log that share a
//!   topic and a message type (a bag's several connections of `/chatter`)
//!   make one table, rows in log-time order.
//! - **Time columns first**, in the format's own unit and in nanoseconds:
//!   `time_s,log_time_ns` for ROS bags and CARLA recordings (seconds with
//!   all nine fraction digits), `time_ms,log_time_ns` for VEL logs
//!   (milliseconds with six), `log_time_ns,publish_time_ns` for MCAP (its
//!   own unit is the nanosecond), `time_us,log_time_ns` for ULog through
//!   [`export_tables`]. [`export_csv`] writes ULog files as pyulog's
//!   `ulog2csv` does (below), whose first column is the `timestamp` field in
//!   microseconds.
//! - **Value columns** with pyulog's names: `a.b` for field `b` of struct
//!   `a`, `a[0]` for element 0 of array `a`, `a[0].b` for both; times and
//!   durations as `t.sec`, `t.nsec` (their JSON form). A message whose
//!   value is not a struct (raw bytes) has its columns under the name
//!   `data`.
//! - **Columns are fixed per table** before the first row is written, from
//!   every message of the channel: a first pass decodes every message and
//!   merges what it saw (the union of fields in order of first appearance,
//!   for fixed-size arrays their size, for **variable-length arrays the
//!   length of the longest**, for numbers the widest kind); a second pass
//!   writes the rows, a shorter array leaving its last columns empty. Where
//!   the format has type definitions (bags, ULog, MCAP schemas, the VEL and
//!   CARLA records), every message of a channel has the same fields, so
//!   the columns are those of the definition.
//! - **Long arrays** (more than [`ExportOptions::max_array_columns`]
//!   elements in some message, [`DEFAULT_MAX_ARRAY_COLUMNS`] by default: an
//!   image, a point cloud) and places where messages disagree in kind (a
//!   JSON field that is a number in one message and a string in another)
//!   are one column whose cells hold the value's JSON, exactly as `robolog
//!   cat --json` prints it.
//! - **Messages that do not decode** are rows whose value columns are
//!   empty in a table whose other messages decode, and reported
//!   ([`ExportStats::undecoded`]), as in the Parquet and SQL tables, whose
//!   message columns are null there; a channel
//!   none of whose messages decode (an encoding nobody decodes) is exported
//!   raw, its payload bytes under `data`.
//! - **Damaged records** are skipped (the read is lenient) and reported in
//!   [`ExportStats::problems`].
//!
//! # Files
//!
//! - File names: for ULog, those of `ulog2csv` (`NAME_topic_multi.csv`,
//!   `NAME` the input's name without `.ulg`); for every other format the
//!   topic without its leading `/`, every character other than ASCII
//!   letters, digits, `-`, `_` and `.` replaced by `_` (a leading `.` too,
//!   an empty name becomes `_`, at most 200 characters), then
//!   `.EXTENSION`. When two tables would get the same name (compared
//!   without case, for file systems that ignore it), the later in channel
//!   order gets `_2` (`_3`, ...) appended. ULog subscriptions that would
//!   share a `ulog2csv` name (`a/b` and `a_b`, one name subscribed twice)
//!   get a file each too: the first in the log's file order keeps the
//!   name, the others get `_2` (`_3`, ...) before `.csv`, never a name
//!   another subscription has; no two tables ever write one file.
//! - The folder is created when missing (with its parents). Every file is
//!   checked before the first is written: an output that exists is refused
//!   unless [`ExportOptions::force`] is set, an output that is the input
//!   always ([`ExportError::Refused`]), so a refusal writes nothing.
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
//! use robolog::export::{ExportOptions, export_csv};
//!
//! # let dir = std::env::temp_dir().join(format!("robolog-export-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
//! let log = robolog::open(input)?;
//! let opts = ExportOptions { topics: vec!["/count".into()], ..ExportOptions::default() };
//! let stats = export_csv(&log, input.as_ref(), &dir, &opts, &mut |_| {})?;
//! assert_eq!(stats.tables[0].rows, 30);
//! let csv = std::fs::read_to_string(dir.join("count.csv"))?;
//! assert!(csv.starts_with("time_s,log_time_ns,data\n1600000000.000000000,1600000000000000000,-5\n"));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod csv;
mod shape;
#[cfg(feature = "ulog")]
mod ulog;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use logcore::{
    ChannelId, ChannelInfo, Error, LogReader, MessageColumn, MessageFilter, ReadMode, Value,
};

use crate::Log;
use crate::write::{AtomicFile, OutputPolicy, Refusal, WriteError};

pub use csv::Csv;
use shape::Shape;

/// The default of [`ExportOptions::max_array_columns`].
pub const DEFAULT_MAX_ARRAY_COLUMNS: usize = 1024;

/// The most output files open at once; a log with more tables is exported
/// in several passes.
pub(crate) const MAX_OPEN_TABLES: usize = 256;

/// What to export and how.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Only these topics (as `robolog info` lists them; empty: all). A
    /// topic the log lacks is [`ExportError::UnknownTopic`].
    pub topics: Vec<String>,
    /// Replace output files that exist.
    pub force: bool,
    /// An array with more elements than this in some message is one JSON
    /// column instead of a column per element.
    pub max_array_columns: usize,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            topics: Vec::new(),
            force: false,
            max_array_columns: DEFAULT_MAX_ARRAY_COLUMNS,
        }
    }
}

/// How far an export has come, given to the progress callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Input bytes consumed so far, over all passes (approximate: the
    /// position of the last message read).
    pub bytes: u64,
    /// The bytes all passes will consume: the input's size times the
    /// number of passes (it grows when a log turns out to need more).
    pub total_bytes: u64,
    /// Rows written so far.
    pub rows: u64,
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
    /// Writes what is buffered and gives back the file, which the caller
    /// renames into place.
    fn finish(self: Box<Self>) -> io::Result<AtomicFile>;
}

/// A table file format: CSV ([`Csv`]), and the formats of other crates.
pub trait TableFormat {
    /// The file name extension, without the dot (`csv`).
    fn extension(&self) -> &'static str;
    /// Starts a table with `columns` in `file` (a temporary file, renamed
    /// into place after [`TableSink::finish`]).
    fn create(&self, file: AtomicFile, columns: &[Column]) -> io::Result<Box<dyn TableSink>>;
}

/// One file an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedTable {
    /// The topic.
    pub topic: String,
    /// The message type.
    pub type_name: String,
    /// The file.
    pub path: PathBuf,
    /// Rows written (messages).
    pub rows: u64,
    /// Columns, the time columns included.
    pub columns: usize,
}

/// The messages of one table that did not decode.
#[derive(Debug, Clone)]
pub struct Undecoded {
    /// The table's topic.
    pub topic: String,
    /// How many messages did not decode.
    pub count: u64,
    /// The first failure.
    pub first: Error,
    /// `true` when no message of the table decoded and the payloads were
    /// exported as raw bytes; `false` when these messages are rows with
    /// empty value columns.
    pub raw: bool,
}

impl fmt::Display for Undecoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.count;
        let s = if n == 1 { "" } else { "s" };
        if self.raw {
            write!(
                f,
                "topic {:?}: {n} message{s} could not be decoded and {} exported as raw bytes; the first: {}",
                self.topic,
                if n == 1 { "is" } else { "are" },
                self.first
            )
        } else {
            write!(
                f,
                "topic {:?}: {n} message{s} could not be decoded and {} empty value columns; the first: {}",
                self.topic,
                if n == 1 { "has" } else { "have" },
                self.first
            )
        }
    }
}

/// What an export did.
#[derive(Debug, Clone, Default)]
pub struct ExportStats {
    /// The files written, in channel order (ULog: in `ulog2csv`'s order).
    pub tables: Vec<ExportedTable>,
    /// Damaged records skipped, and other problems of the input.
    pub problems: Vec<Error>,
    /// Messages that did not decode, per table.
    pub undecoded: Vec<Undecoded>,
}

impl ExportStats {
    /// Whether the input was read without problems.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty() && self.undecoded.is_empty()
    }
}

/// Why an export failed.
#[derive(Debug)]
pub enum ExportError {
    /// A topic asked for is not in the log.
    UnknownTopic {
        /// The topic asked for.
        topic: String,
        /// The log's topics.
        topics: Vec<String>,
    },
    /// The output folder exists and is not a folder.
    NotAFolder(PathBuf),
    /// An output file was refused before anything was written.
    Refused(Refusal),
    /// Creating, writing or renaming a file failed.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        error: io::Error,
    },
    /// The input could not be read.
    Read(Error),
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::UnknownTopic { topic, topics } => write!(
                f,
                "no topic {topic:?} in this log; its topics: {}",
                topics.join(", ")
            ),
            ExportError::NotAFolder(p) => write!(f, "{} exists and is not a folder", p.display()),
            ExportError::Refused(r) => r.fmt(f),
            ExportError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ExportError::Read(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ExportError {}

impl From<Error> for ExportError {
    fn from(e: Error) -> Self {
        ExportError::Read(e)
    }
}

impl ExportError {
    fn io(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
        move |error| ExportError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    fn write(path: &Path) -> impl FnOnce(WriteError) -> ExportError + '_ {
        move |e| match e {
            WriteError::Refused(r) => ExportError::Refused(r),
            WriteError::Io(error) | WriteError::Write(error) => ExportError::Io {
                path: path.to_path_buf(),
                error,
            },
        }
    }
}

/// Exports `log`, read from `input`, as CSV files in `dir` (see the
/// [module](self) docs): ULog files byte for byte as pyulog 1.3.0's
/// `ulog2csv -o DIR` writes them, every other format through
/// [`export_tables`] with [`Csv`]. `progress` is called as the work goes
/// on.
pub fn export_csv(
    log: &Log<'_>,
    input: &Path,
    dir: &Path,
    opts: &ExportOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<ExportStats, ExportError> {
    #[cfg(feature = "ulog")]
    if let Some(u) = log.as_ulog() {
        return ulog::export(log, u, input, dir, opts, progress);
    }
    export_tables(log, input, dir, opts, &Csv, progress)
}

/// Exports `log`, read from `input`, as tables of `format` in `dir`, one
/// per topic and type (see the [module](self) docs), calling `progress` as
/// the work goes on.
pub fn export_tables(
    log: &Log<'_>,
    input: &Path,
    dir: &Path,
    opts: &ExportOptions,
    format: &dyn TableFormat,
    progress: &mut dyn FnMut(Progress),
) -> Result<ExportStats, ExportError> {
    let channels = log.channels()?;
    check_topics(&channels, &opts.topics)?;
    let times = time_columns(log);
    let mut tables: Vec<Table> = Vec::new();
    let mut of_channel: HashMap<ChannelId, usize> = HashMap::new();
    let mut by_key: HashMap<(&str, &str), usize> = HashMap::new();
    for c in &channels {
        if !opts.topics.is_empty() && !opts.topics.contains(&c.topic) {
            continue;
        }
        let t = *by_key.entry((&c.topic, &c.type_name)).or_insert_with(|| {
            tables.push(Table::new(c));
            tables.len() - 1
        });
        tables[t].channels.push(c.id);
        of_channel.insert(c.id, t);
    }
    let mut meter = Meter {
        progress,
        size: log.bytes().len() as u64,
        passes: 2,
        done: 0,
        pos: 0,
        rows: 0,
        since: 0,
    };
    let mut stats = ExportStats::default();
    let mut filter = MessageFilter::all().mode(ReadMode::Lenient);
    if !opts.topics.is_empty() {
        filter.channels = Some(of_channel.keys().copied().collect());
    }
    let cap = opts.max_array_columns;

    // Pass 1: the columns.
    let mut value = Value::Null;
    for item in log.messages(&filter)? {
        let msg = match item {
            Ok(m) => m,
            Err(e) => {
                stats.problems.push(e);
                continue;
            }
        };
        let Some(&t) = of_channel.get(&msg.channel) else {
            continue;
        };
        meter.at(msg.offset);
        let table = &mut tables[t];
        match log.decode_into(&msg, &mut value) {
            Ok(()) => {
                table.shape.merge(&value, cap);
                table.decoded += 1;
            }
            Err(e) => {
                value = Value::Null;
                table.failed += 1;
                table.longest_raw = table.longest_raw.max(msg.payload.len());
                table.first_failure.get_or_insert(e);
            }
        }
    }
    meter.pass_done();

    let mut names = FileNames::default();
    let policy = OutputPolicy::new(opts.force).reading(input);
    for table in &mut tables {
        if let Some(first) = table.first_failure.clone() {
            table.raw = table.decoded == 0;
            stats.undecoded.push(Undecoded {
                topic: table.topic.clone(),
                count: table.failed,
                first,
                raw: table.raw,
            });
        }
        if table.raw {
            table.shape = Shape::bytes(table.longest_raw, cap);
        }
        if table.decoded == 0 && !table.raw {
            continue;
        }
        table.shape.finish();
        let name = names.assign(&topic_file_stem(&table.topic));
        let path = dir.join(format!("{name}.{}", format.extension()));
        policy.check(&path).map_err(ExportError::Refused)?;
        table.path = Some(path);
    }
    prepare_folder(dir)?;

    // Pass 2 (one per group of open files): the rows.
    let written: Vec<usize> = (0..tables.len())
        .filter(|&t| tables[t].path.is_some())
        .collect();
    let groups: Vec<&[usize]> = written.chunks(MAX_OPEN_TABLES).collect();
    meter.passes = 1 + groups.len().max(1) as u64;
    for group in groups {
        let mut sinks: HashMap<usize, Box<dyn TableSink>> = HashMap::new();
        let mut ids = BTreeSet::new();
        for &t in group {
            let table = &tables[t];
            let path = table.path.as_deref().unwrap_or(dir);
            let file = AtomicFile::create(path, &policy).map_err(ExportError::write(path))?;
            let mut columns: Vec<Column> = times
                .iter()
                .map(|tc| Column {
                    name: tc.name.to_string(),
                    kind: ColumnKind::Time(tc.unit),
                })
                .collect();
            table.shape.root_columns(&mut columns);
            unique_names(&mut columns);
            let sink = format
                .create(file, &columns)
                .map_err(ExportError::io(path))?;
            sinks.insert(t, sink);
            ids.extend(table.channels.iter().copied());
        }
        let filter = MessageFilter::all().mode(ReadMode::Lenient).channels(ids);
        for item in log.messages(&filter)? {
            // Damage was reported by the first pass.
            let Ok(msg) = item else { continue };
            let Some(&t) = of_channel.get(&msg.channel) else {
                continue;
            };
            let Some(sink) = sinks.get_mut(&t) else {
                continue;
            };
            meter.at(msg.offset);
            let table = &mut tables[t];
            let raw;
            let v = match log.decode_into(&msg, &mut value) {
                Ok(()) => &value,
                Err(_) if table.raw => {
                    value = Value::Null;
                    raw = Value::Bytes(msg.payload.to_vec());
                    &raw
                }
                // A row all the same, its value columns empty: the rows
                // of a table are its messages, as in the Parquet and SQL
                // tables.
                Err(_) => {
                    value = Value::Null;
                    &value
                }
            };
            for tc in &times {
                sink.cell(match tc.source {
                    TimeSource::Log => Cell::Time(msg.log_time),
                    TimeSource::Publish => msg.publish_time.map_or(Cell::Empty, Cell::Time),
                });
            }
            table.shape.flatten(v, sink.as_mut());
            let path = table.path.as_deref().unwrap_or(dir);
            sink.end_row().map_err(ExportError::io(path))?;
            table.rows += 1;
            meter.row();
        }
        meter.pass_done();
        // Every file of the group is complete before the first is renamed.
        let mut done = Vec::new();
        for &t in group {
            if let Some(sink) = sinks.remove(&t) {
                let path = tables[t].path.as_deref().unwrap_or(dir);
                done.push((t, sink.finish().map_err(ExportError::io(path))?));
            }
        }
        for (t, file) in done {
            let table = &tables[t];
            let path = table.path.clone().unwrap_or_default();
            file.commit().map_err(ExportError::io(&path))?;
            let mut columns = Vec::new();
            table.shape.root_columns(&mut columns);
            stats.tables.push(ExportedTable {
                topic: table.topic.clone(),
                type_name: table.type_name.clone(),
                path,
                rows: table.rows,
                columns: times.len() + columns.len(),
            });
        }
    }
    meter.report();
    Ok(stats)
}

/// Makes the column names unique, so that a reader that looks columns up
/// by name (`csv.DictReader`, pandas) reads each: a name taken by an
/// earlier column (a field `time_s` beside the time column, the JSON keys
/// `"a.b"` and `{"a": {"b": ..}}`) gets `_` after it until it is free.
fn unique_names(columns: &mut [Column]) {
    let mut taken: HashSet<String> = HashSet::with_capacity(columns.len());
    for c in columns {
        while taken.contains(&c.name) {
            c.name.push('_');
        }
        taken.insert(c.name.clone());
    }
}

/// One output table while it is planned and written.
struct Table {
    topic: String,
    type_name: String,
    channels: Vec<ChannelId>,
    shape: Shape,
    decoded: u64,
    failed: u64,
    first_failure: Option<Error>,
    longest_raw: usize,
    raw: bool,
    path: Option<PathBuf>,
    rows: u64,
}

impl Table {
    fn new(c: &ChannelInfo) -> Table {
        Table {
            topic: c.topic.clone(),
            type_name: c.type_name.clone(),
            channels: Vec::new(),
            shape: Shape::Unknown,
            decoded: 0,
            failed: 0,
            first_failure: None,
            longest_raw: 0,
            raw: false,
            path: None,
            rows: 0,
        }
    }
}

/// Which time of a message a time column holds.
#[derive(Debug, Clone, Copy)]
enum TimeSource {
    Log,
    Publish,
}

struct TimeColumn {
    name: &'static str,
    unit: TimeUnit,
    source: TimeSource,
}

/// The time columns of a log's tables: its format's own unit (see
/// [`LogReader::time_unit`]), then nanoseconds, then the publish time
/// where its messages carry one.
fn time_columns(log: &dyn LogReader) -> Vec<TimeColumn> {
    let tc = |name, unit, source| TimeColumn { name, unit, source };
    let mut columns = Vec::new();
    let native = log.time_unit();
    let name = match native {
        TimeUnit::Seconds => Some("time_s"),
        TimeUnit::Milliseconds => Some("time_ms"),
        TimeUnit::Microseconds => Some("time_us"),
        TimeUnit::Nanoseconds => None,
    };
    if let Some(name) = name {
        columns.push(tc(name, native, TimeSource::Log));
    }
    columns.push(tc("log_time_ns", TimeUnit::Nanoseconds, TimeSource::Log));
    if log.message_columns().contains(&MessageColumn::PublishTime) {
        columns.push(tc(
            "publish_time_ns",
            TimeUnit::Nanoseconds,
            TimeSource::Publish,
        ));
    }
    columns
}

/// [`ExportError::UnknownTopic`] for the first of `wanted` that no channel has.
fn check_topics(channels: &[ChannelInfo], wanted: &[String]) -> Result<(), ExportError> {
    let known: HashSet<&str> = channels.iter().map(|c| c.topic.as_str()).collect();
    if let Some(missing) = wanted.iter().find(|t| !known.contains(t.as_str())) {
        let mut topics: Vec<String> = Vec::new();
        for c in channels {
            if !topics.contains(&c.topic) {
                topics.push(c.topic.clone());
            }
        }
        return Err(ExportError::UnknownTopic {
            topic: missing.clone(),
            topics,
        });
    }
    Ok(())
}

/// Creates `dir` (and its parents) when missing.
fn prepare_folder(dir: &Path) -> Result<(), ExportError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(ExportError::NotAFolder(dir.to_path_buf())),
        Err(_) => std::fs::create_dir_all(dir).map_err(ExportError::io(dir)),
    }
}

/// The file name stem of a topic's table (see the [module](self) docs).
///
/// ```
/// use robolog::export::topic_file_stem;
/// assert_eq!(topic_file_stem("/camera/image raw"), "camera_image_raw");
/// assert_eq!(topic_file_stem("LaserRange2DDataM/front"), "LaserRange2DDataM_front");
/// assert_eq!(topic_file_stem("/.hidden"), "_hidden");
/// assert_eq!(topic_file_stem("/"), "_");
/// ```
pub fn topic_file_stem(topic: &str) -> String {
    let mut s: String = topic
        .trim_start_matches('/')
        .chars()
        .take(200)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        s.push('_');
    }
    if s.starts_with('.') {
        s.replace_range(0..1, "_");
    }
    s
}

/// File names handed out so far, compared without case.
#[derive(Default)]
struct FileNames {
    taken: HashSet<String>,
}

impl FileNames {
    /// `stem`, or `stem_2`, `stem_3`, ... when taken.
    fn assign(&mut self, stem: &str) -> String {
        let mut name = stem.to_string();
        let mut n = 1;
        while !self.taken.insert(name.to_lowercase()) {
            n += 1;
            name = format!("{stem}_{n}");
        }
        name
    }
}

/// Progress reports: bytes over all passes, rows written; reported every
/// few thousand messages.
struct Meter<'p> {
    progress: &'p mut dyn FnMut(Progress),
    size: u64,
    passes: u64,
    done: u64,
    pos: u64,
    rows: u64,
    since: u32,
}

impl Meter<'_> {
    fn at(&mut self, offset: Option<u64>) {
        if let Some(o) = offset {
            self.pos = self.pos.max(o.min(self.size));
        }
        self.since += 1;
        if self.since >= 4096 {
            self.report();
        }
    }

    fn row(&mut self) {
        self.rows += 1;
    }

    fn pass_done(&mut self) {
        self.done += 1;
        self.pos = 0;
        self.report();
    }

    fn report(&mut self) {
        self.since = 0;
        (self.progress)(Progress {
            bytes: (self.done * self.size + self.pos).min(self.passes * self.size),
            total_bytes: self.passes * self.size,
            rows: self.rows,
        });
    }
}

#[cfg(test)]
mod tests;
