//! Export of logs to a Hive-partitioned Parquet dataset that DuckDB,
//! Polars, Spark, pandas and DataFusion read as one set of tables.
//!
//! # Layout
//!
//! ```text
//! DIR/<table>/log=<log_id>/data.parquet   one file per table of each log
//! DIR/logs/log=<log_id>/data.parquet      one row per log
//! ```
//!
//! - `<table>` is the table's name ([`table_name`](crate::table_name)),
//!   its columns those of [`Table::schema`]. The files hold no `log`
//!   column: readers add it from the folder name (DuckDB
//!   `read_parquet('DIR/vehicle_global_position/*/*.parquet',
//!   hive_partitioning = true)`, Spark, DataFusion listing tables).
//! - `<log_id>` is the input's file name, made unique with `~2`, `~3`...
//!   ([`log_ids`](crate::log_ids)) and escaped for Hive
//!   ([`hive_escape`](crate::hive_escape)).
//! - The `logs` table ([`LOGS`]) has the columns `path` (the input as
//!   given), `format` ([`Format::name`]), `start`, `end` (null when the log
//!   has no messages), `duration_s`, `message_count` and `metadata` (the
//!   log's metadata as a JSON object: ULog info and parameters, MCAP
//!   metadata records, ...). A log's `logs` file is written after its
//!   tables: a log with a `logs` row was exported completely.
//!
//! # Files
//!
//! zstd-compressed, row groups of at most [`ParquetOptions::row_group_rows`]
//! rows and about [`ParquetOptions::row_group_bytes`] bytes. The key-value
//! metadata of every file: `robolog.log` (the log_id), `robolog.path`,
//! `robolog.format`, `robolog.start_ns`, `robolog.end_ns` (the log's first
//! and last log time in ns; no value when the log has no messages),
//! `robolog.clock` (the log's clock: `unix`, `boot`, ...),
//! `robolog.utc_offset_ns` (add it to a log time to get UTC ns; no value
//! when the log has no UTC anchor or is in UTC already), `robolog.table`,
//! and `robolog.metadata`: in the `logs` file the log's metadata object,
//! in a table's file the same object with one more member `channels`: the
//! table's channels (`topic`, `type`, `encoding` and their `metadata`: a
//! bag's connection header fields, a ULog instance's `multi_id`, ...). A
//! table's file also has `robolog.type` (the message type names). The
//! Arrow schema is stored too (`ARROW:schema`), so Arrow readers get back
//! the exact types and the `log_time` field metadata.
//!
//! # Safety of the outputs
//!
//! Every file is written through [`robolog::write`]: to a temporary file
//! beside it, renamed to `data.parquet` when complete. Every output of
//! every log is checked before the first is written: an output that
//! exists is refused unless [`ParquetOptions::force`] is set, one that is
//! an input always ([`ExportError::Refused`]), so a refusal writes
//! nothing. Forced, an export replaces the files it writes.
//!
//! Forced and with no topic selection ([`ParquetOptions::topics`] empty),
//! an export replaces every partition of each log it writes: once a log's
//! tables and its `logs` row are written and committed, the `data.parquet`
//! of that log's partition of every other table in `DIR` (a table the log
//! no longer has, one an earlier export wrote under other options, one
//! that failed this time) is removed, then its `log=` folder if it is
//! empty; nothing else is removed, so the dataset never mixes an earlier
//! export of a log with a later one. Those files are checked as outputs
//! before anything is written (an input among them refuses the export)
//! and named in [`ExportedLog::removed`]. With a selection, only the files
//! the export writes are replaced; the log's other partitions stay.
//!
//! # Memory
//!
//! Bounded by one batch and one row group per table being written, not by
//! the logs: the batches of [`scan`] are written as they come, batches
//! shrink for large messages to about [`ParquetOptions::batch_bytes`], and
//! one log is open at a time.
//!
//! ```
//! use robolog_arrow::parquet::{ParquetOptions, export_parquet};
//!
//! # let dir = std::env::temp_dir().join(format!("robolog-arrow-parquet-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
//! let done = export_parquet(&[input], &dir, &ParquetOptions::default(), &mut |_| {})?;
//! let count = done.logs[0].tables.iter().find(|t| t.name == "count").unwrap();
//! assert_eq!(count.rows, 30);
//! assert!(dir.join("count/log=sample.bag/data.parquet").is_file());
//! assert!(dir.join("logs/log=sample.bag/data.parquet").is_file());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ::parquet::arrow::ArrowWriter;
use ::parquet::basic::{Compression, ZstdLevel};
use ::parquet::errors::ParquetError;
use ::parquet::file::metadata::KeyValue;
use ::parquet::file::properties::WriterProperties;
use arrow_array::types::TimestampNanosecondType;
use arrow_array::{ArrayRef, Float64Array, PrimitiveArray, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use logcore::{ChannelInfo, Format, LogReader, Summary};
use robolog::write::{AtomicFile, OutputPolicy, Refusal, WriteError};
use robolog::{Limits, Log};

use crate::TableNames;
use crate::table::tables_where;
use crate::{DEFAULT_BATCH_SIZE, Error, LOGS, ScanOptions, Table, metadata_json, scan};

/// The name of every Parquet file of the layout.
pub const DATA_FILE: &str = "data.parquet";

/// The default of [`ParquetOptions::row_group_rows`].
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1 << 20;

/// The default of [`ParquetOptions::row_group_bytes`].
pub const DEFAULT_ROW_GROUP_BYTES: usize = 64 << 20;

/// The default of [`ParquetOptions::batch_bytes`].
pub const DEFAULT_BATCH_BYTES: usize = 16 << 20;

/// The rows of a table's first batch, before the size of its rows is
/// known: small enough for camera images (a few MiB each); later batches
/// grow to [`ParquetOptions::batch_bytes`].
const FIRST_BATCH: usize = 16;

/// What to export and how.
#[derive(Debug, Clone)]
pub struct ParquetOptions {
    /// Only the channels of these topics (as `robolog info` lists them) or
    /// table names (empty: all). One that no log has is
    /// [`ExportError::UnknownTopic`]; a log that lacks some exports the
    /// others (and its `logs` row).
    pub topics: Vec<String>,
    /// Replace output files that exist.
    pub force: bool,
    /// The limits of the readers (see [`robolog::OpenOptions::limits`]).
    pub limits: Limits,
    /// The most rows of a row group (at least 1).
    pub row_group_rows: usize,
    /// A row group is closed once its encoded size reaches about this many
    /// bytes (at least 1).
    pub row_group_bytes: usize,
    /// Batches of large messages are shrunk to about this many bytes of
    /// Arrow arrays (batches hold at most [`DEFAULT_BATCH_SIZE`] rows).
    pub batch_bytes: usize,
    /// The log ids of the inputs, in their order ([`crate::find_named_logs`]
    /// gives them for the paths a user named); when there is not one per
    /// input, their file names, numbered ([`crate::log_ids`]).
    pub log_ids: Vec<String>,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            topics: Vec::new(),
            force: false,
            limits: Limits::default(),
            log_ids: Vec::new(),
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
            row_group_bytes: DEFAULT_ROW_GROUP_BYTES,
            batch_bytes: DEFAULT_BATCH_BYTES,
        }
    }
}

/// How far an export has come, given to the progress callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Input bytes done (approximate: the logs done, and of the log being
    /// written the share of its messages written).
    pub bytes: u64,
    /// The bytes of every input.
    pub total_bytes: u64,
    /// Rows written so far.
    pub rows: u64,
    /// The log being written (0-based, among the inputs that were read).
    pub log: usize,
    /// The number of inputs that were read.
    pub logs: usize,
}

/// One table file an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedTable {
    /// The table's name.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Rows written.
    pub rows: u64,
    /// Columns.
    pub columns: usize,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Damaged records, left out.
    pub skipped: u64,
    /// Messages that did not decode: each is a row whose message columns
    /// are null (see [`ScanOptions::lenient`]).
    pub undecoded: u64,
    /// The first message that did not decode.
    pub first_undecoded: Option<crate::Undecoded>,
    /// Whether the table's type was inferred from its values (the format
    /// declares none).
    pub inferred: bool,
}

/// A table that could not be written: its file was not created (the
/// temporary file is removed) and the export went on with the others.
#[derive(Debug)]
pub struct FailedTable {
    /// The table's name.
    pub name: String,
    /// The file it would have been.
    pub path: PathBuf,
    /// Why.
    pub error: Error,
}

/// What an export did with one log.
#[derive(Debug)]
pub struct ExportedLog {
    /// The input as given.
    pub path: PathBuf,
    /// Its log_id (the `log=` partition value, unescaped).
    pub log_id: String,
    /// Its format.
    pub format: Format,
    /// The tables written, in the order of [`tables`](crate::tables).
    pub tables: Vec<ExportedTable>,
    /// The log's `logs` file.
    pub logs_file: PathBuf,
    /// The `logs` file's size in bytes.
    pub logs_bytes: u64,
    /// Tables that could not be written.
    pub failed: Vec<FailedTable>,
    /// The files of partitions of this log that an earlier export wrote and
    /// this one replaced by removing them (forced, no topic selection: the
    /// log's partitions of the tables not written, see the [module](self)
    /// docs).
    pub removed: Vec<PathBuf>,
    /// Problems the log's summary found (truncation, skipped bytes).
    pub problems: Vec<logcore::Error>,
}

impl ExportedLog {
    /// Whether the log was read and written without problems, skipped
    /// messages or failed tables.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
            && self.failed.is_empty()
            && self
                .tables
                .iter()
                .all(|t| t.skipped == 0 && t.undecoded == 0)
    }
}

/// An input that could not be opened or summarised: nothing of it was
/// written (its log_id stays taken, so the ids of the others do not
/// depend on it).
#[derive(Debug)]
pub struct Unread {
    /// The input as given.
    pub path: PathBuf,
    /// What went wrong.
    pub error: logcore::Error,
}

/// What an export did.
#[derive(Debug, Default)]
pub struct ParquetExport {
    /// Per input that was read, in order.
    pub logs: Vec<ExportedLog>,
    /// The inputs that could not be opened or summarised, in order.
    pub unread: Vec<Unread>,
}

impl ParquetExport {
    /// Whether every input was read and every log is
    /// [clean](ExportedLog::is_clean).
    pub fn is_clean(&self) -> bool {
        self.unread.is_empty() && self.logs.iter().all(ExportedLog::is_clean)
    }

    /// Rows written to table files (the `logs` rows not counted).
    pub fn rows(&self) -> u64 {
        self.logs
            .iter()
            .flat_map(|l| &l.tables)
            .map(|t| t.rows)
            .sum()
    }
}

/// Why an export failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ExportError {
    /// A topic asked for is in none of the logs.
    UnknownTopic {
        /// The topic asked for.
        topic: String,
    },
    /// The output folder exists and is not a folder.
    NotAFolder(PathBuf),
    /// An output file was refused before anything was written.
    Refused(Refusal),
    /// Creating, writing or renaming a file or folder failed.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        error: io::Error,
    },
    /// An input could not be read while it was written (an I/O error).
    Read {
        /// The input.
        path: PathBuf,
        /// What went wrong.
        error: logcore::Error,
    },
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::UnknownTopic { topic } => {
                write!(f, "no topic or table {topic:?} in any of the logs")
            }
            ExportError::NotAFolder(p) => write!(f, "{} exists and is not a folder", p.display()),
            ExportError::Refused(r) => r.fmt(f),
            ExportError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ExportError::Read { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {}

/// The file of `table` of the log `log_id` in `dir`:
/// `DIR/<table>/log=<log_id, escaped>/data.parquet`.
///
/// ```
/// use std::path::Path;
/// let p = robolog_arrow::parquet::table_path(Path::new("out"), "cmd_vel", "a:b.bag");
/// assert_eq!(p, Path::new("out/cmd_vel/log=a%3Ab.bag/data.parquet"));
/// ```
pub fn table_path(dir: &Path, table: &str, log_id: &str) -> PathBuf {
    dir.join(table)
        .join(format!("log={}", partition_value(log_id)))
        .join(DATA_FILE)
}

/// The `log=` partition value of `log_id`: escaped, and shortened (see
/// [`crate::shorten`]) past [`crate::MAX_NAME_BYTES`] bytes, so that a
/// long file name does not fail the export (the `logs` table keeps the
/// whole path).
fn partition_value(log_id: &str) -> String {
    let escaped = crate::hive_escape(log_id);
    if escaped.len() <= crate::MAX_NAME_BYTES {
        escaped
    } else {
        crate::shorten(&escaped, log_id)
    }
}

/// One input while it is planned and written.
struct Planned {
    path: PathBuf,
    log_id: String,
    size: u64,
    /// The files of the log's partitions of tables it does not write, to
    /// remove once it is written (forced, no topic selection).
    stale: Vec<PathBuf>,
}

/// Whether an export replaces every partition of each log it writes.
fn replaces_logs(opts: &ParquetOptions) -> bool {
    opts.force && opts.topics.is_empty()
}

/// The partitions in `dir`: per partition folder name (`log=<escaped
/// log_id>`), the tables holding one. `dir` and each table folder are
/// listed once; only folders count (not symlinks, which may lead out of
/// `dir`), and only names that are UTF-8.
fn partitions(dir: &Path) -> Result<HashMap<String, Vec<String>>, ExportError> {
    let mut held: HashMap<String, Vec<String>> = HashMap::new();
    let tables = match std::fs::read_dir(dir) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(held),
        Err(e) => return Err(io_at(dir)(e)),
    };
    for table in tables {
        let table = table.map_err(io_at(dir))?;
        let is_dir = table.file_type().is_ok_and(|t| t.is_dir());
        let Ok(name) = table.file_name().into_string() else {
            continue;
        };
        if !is_dir || name == LOGS {
            continue;
        }
        let folder = table.path();
        for part in std::fs::read_dir(&folder).map_err(io_at(&folder))? {
            let part = part.map_err(io_at(&folder))?;
            if !part.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if let Ok(part) = part.file_name().into_string() {
                if part.starts_with("log=") {
                    held.entry(part).or_default().push(name.clone());
                }
            }
        }
    }
    Ok(held)
}

/// The tables of the dataset in `dir` written before, by the topic each
/// holds (its files' `robolog.topic`): an export into the folder keeps
/// their names for their topics and gives no other topic one of them.
/// A table is read from its first partition with a readable file.
fn existing_tables(dir: &Path) -> TableNames {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for table in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(name) = table.file_name().into_string() else {
            continue;
        };
        if name == LOGS || !table.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let parts = std::fs::read_dir(table.path())
            .into_iter()
            .flatten()
            .flatten();
        let key = parts
            .filter(|p| p.file_name().to_string_lossy().starts_with("log="))
            .find_map(|p| {
                let file = std::fs::File::open(p.path().join(DATA_FILE)).ok()?;
                let reader =
                    ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                        .ok()?;
                reader.schema().metadata().get("robolog.topic").cloned()
            });
        if let Some(key) = key {
            pairs.push((key, name));
        }
    }
    // A topic in several folders (files copied by hand) keeps the folder
    // its name would be in a run of its own, else the first by name; the
    // others stay taken. The pair given last for a key is its table.
    let preferred = |(key, name): &(String, String)| crate::base_name(key) == *name;
    pairs.sort_by_cached_key(|p| (p.0.clone(), preferred(p), std::cmp::Reverse(p.1.clone())));
    TableNames::from_pairs(pairs.iter().map(|(k, n)| (k.as_str(), n.as_str())))
}

/// Removes the file `path` of a stale partition (a file or a symlink, not
/// a folder; gone already is fine), then its folder if that is empty now.
fn remove_partition(path: &Path) -> Result<bool, ExportError> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_dir() => match std::fs::remove_file(path) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(io_at(path)(e)),
        },
        _ => false,
    };
    if let Some(folder) = path.parent() {
        // Fails, and is meant to, when anything else is in the folder.
        let _ = std::fs::remove_dir(folder);
    }
    Ok(removed)
}

/// Exports the logs at `inputs` (files, opened through [`robolog`]) to
/// the dataset in `dir` (see the [module](self) docs; `dir` is created
/// when missing), calling `progress` as the work goes on.
///
/// Every input is opened and summarised first, and every output checked,
/// before anything is written. An input that cannot be opened or
/// summarised (not a log, a damaged header) is left out and named in
/// [`ParquetExport::unread`]; the others are exported. Damaged records
/// are skipped and counted ([`ExportedTable::skipped`]); a message that
/// does not decode is a row whose message columns are null, counted in
/// [`ExportedTable::undecoded`] (as in `robolog-sql`); a table whose values do not fit its type
/// is left out ([`ExportedLog::failed`]).
///
/// With [`ParquetOptions::force`] and no [`ParquetOptions::topics`], the
/// export replaces every partition of each log: after a log's files are
/// written and committed, its partitions of the tables it did not write
/// are removed ([`ExportedLog::removed`]; the `data.parquet` file, then the
/// `log=` folder when empty, nothing else and nothing outside `dir`).
/// With topics, the log's partitions of other tables are left alone.
/// Without force, an existing partition of a log is refused
/// ([`ExportError::Refused`]) and nothing is written.
pub fn export_parquet<P: AsRef<Path>>(
    inputs: &[P],
    dir: &Path,
    opts: &ParquetOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<ParquetExport, ExportError> {
    let paths: Vec<PathBuf> = inputs.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let ids = if opts.log_ids.len() == paths.len() {
        opts.log_ids.clone()
    } else {
        crate::log_ids(&paths)
    };
    let mut policy = OutputPolicy::new(opts.force);
    policy.add_inputs(paths.iter().cloned());
    if let Ok(m) = std::fs::metadata(dir) {
        if !m.is_dir() {
            return Err(ExportError::NotAFolder(dir.to_path_buf()));
        }
    }

    // The partitions of earlier exports, listed once for all logs.
    let mut held = if replaces_logs(opts) {
        partitions(dir)?
    } else {
        HashMap::new()
    };

    // Plan: every output of every log, checked before the first is written.
    let mut opened_logs = Vec::with_capacity(paths.len());
    let mut done = ParquetExport::default();
    for (path, log_id) in paths.iter().zip(ids) {
        let opened = robolog::OpenOptions::new()
            .limits(opts.limits)
            .open(path)
            .and_then(|log| {
                let summary = log.summary()?;
                Ok((log, summary))
            });
        let (log, summary) = match opened {
            Ok(x) => x,
            Err(error) => {
                done.unread.push(Unread {
                    path: path.clone(),
                    error,
                });
                continue;
            }
        };
        let channels: Vec<(String, String)> = summary
            .channels
            .iter()
            .map(|c| (log.table_key(&c.info).to_string(), c.info.topic.clone()))
            .collect();
        opened_logs.push((path, log_id, log.bytes().len() as u64, channels));
    }
    // Table names are unique across the logs of the export and the tables
    // already in the folder, and do not depend on the topics selected.
    let table_names = existing_tables(dir).extended(
        opened_logs
            .iter()
            .flat_map(|(_, _, _, ch)| ch.iter().map(|(k, _)| k.as_str())),
    );
    let mut planned = Vec::with_capacity(opened_logs.len());
    let mut matched: HashSet<usize> = HashSet::new();
    for (path, log_id, size, channels) in opened_logs {
        let mut names: Vec<String> = Vec::new();
        for (key, topic) in &channels {
            let name = table_names.name(key).unwrap_or(key).to_string();
            match selects(&opts.topics, topic, &name) {
                Some(Some(k)) => {
                    matched.insert(k);
                }
                Some(None) => {}
                None => continue,
            }
            if !names.contains(&name) {
                names.push(name);
            }
        }
        for name in names.iter().map(String::as_str).chain([LOGS]) {
            let out = table_path(dir, name, &log_id);
            policy.check(&out).map_err(ExportError::Refused)?;
        }
        let folder = format!("log={}", partition_value(&log_id));
        let mut stale = Vec::new();
        if let Some(tables) = held.remove(&folder) {
            let written: HashSet<&str> = names.iter().map(String::as_str).collect();
            for table in tables.iter().filter(|t| !written.contains(t.as_str())) {
                let old = table_path(dir, table, &log_id);
                policy.check(&old).map_err(ExportError::Refused)?;
                stale.push(old);
            }
        }
        planned.push(Planned {
            path: path.clone(),
            log_id,
            size,
            stale,
        });
    }
    if let Some(k) = (0..opts.topics.len()).find(|k| !matched.contains(k)) {
        return Err(ExportError::UnknownTopic {
            topic: opts.topics[k].clone(),
        });
    }
    if planned.is_empty() {
        return Ok(done);
    }
    std::fs::create_dir_all(dir).map_err(io_at(dir))?;

    let mut meter = Meter {
        progress,
        at: Progress {
            total_bytes: planned.iter().map(|p| p.size).sum(),
            logs: planned.len(),
            ..Progress::default()
        },
        base: 0,
    };
    for (i, p) in planned.iter().enumerate() {
        meter.at.log = i;
        let log = robolog::OpenOptions::new()
            .limits(opts.limits)
            .open(&p.path)
            .map_err(read(&p.path))?;
        let summary = log.summary().map_err(read(&p.path))?;
        let exported = export_log(
            &log,
            &summary,
            p,
            &table_names,
            dir,
            opts,
            &policy,
            &mut meter,
        )?;
        meter.base += p.size;
        meter.at.bytes = meter.base;
        meter.report();
        done.logs.push(exported);
    }
    Ok(done)
}

/// Whether the channel `c` of table `table` is exported: `None` when not,
/// else the index of the topic of `wanted` that selects it (by its topic
/// or its table's name; `None` when every channel is wanted).
fn selects(wanted: &[String], topic: &str, table: &str) -> Option<Option<usize>> {
    if wanted.is_empty() {
        return Some(None);
    }
    wanted
        .iter()
        .position(|t| t == topic || t == table)
        .map(Some)
}

fn read(path: &Path) -> impl FnOnce(logcore::Error) -> ExportError + '_ {
    move |error| ExportError::Read {
        path: path.to_path_buf(),
        error,
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
    move |error| ExportError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Progress over all logs.
struct Meter<'p> {
    progress: &'p mut dyn FnMut(Progress),
    at: Progress,
    /// The bytes of the logs done.
    base: u64,
}

impl Meter<'_> {
    fn report(&mut self) {
        (self.progress)(self.at);
    }
}

/// Writes the tables of one log, then its `logs` row; then, forced with
/// no topic selection, removes the log's partitions of the tables it did
/// not write (those of [`Planned::stale`] and of the tables that failed).
#[allow(clippy::too_many_arguments)] // one log of the export: its plan, names, place, options, policy and meter
fn export_log(
    log: &Log<'_>,
    summary: &Summary,
    p: &Planned,
    names: &TableNames,
    dir: &Path,
    opts: &ParquetOptions,
    policy: &OutputPolicy,
    meter: &mut Meter<'_>,
) -> Result<ExportedLog, ExportError> {
    let format = log.format();
    let keep = |c: &ChannelInfo| {
        let name = names.name(log.table_key(c)).unwrap_or_default();
        selects(&opts.topics, &c.topic, name).is_some()
    };
    let facts = Facts::of(summary, p);
    let mut out = ExportedLog {
        path: p.path.clone(),
        log_id: p.log_id.clone(),
        format,
        tables: Vec::new(),
        logs_file: table_path(dir, LOGS, &p.log_id),
        logs_bytes: 0,
        failed: Vec::new(),
        removed: Vec::new(),
        problems: summary.warnings.clone(),
    };
    let tables = match tables_where(log, summary, &keep, Some(names)) {
        Ok(t) => t,
        // Reading every message to infer types failed: the log cannot be
        // read at all (an I/O error of its file).
        Err(Error::Log(error)) => {
            return Err(ExportError::Read {
                path: p.path.clone(),
                error,
            });
        }
        Err(e) => {
            return Err(ExportError::Read {
                path: p.path.clone(),
                error: io::Error::other(e.to_string()).into(),
            });
        }
    };
    let total_rows: u64 = tables.iter().map(|t| t.message_count).sum::<u64>().max(1);
    let mut log_rows = 0u64;
    for table in &tables {
        let path = table_path(dir, &table.name, &p.log_id);
        let mut on_batch = |rows: u64| {
            log_rows += rows;
            meter.at.rows += rows;
            meter.at.bytes = meter.base
                + (u128::from(p.size) * u128::from(log_rows.min(total_rows))
                    / u128::from(total_rows)) as u64;
            meter.report();
        };
        match write_table(log, table, &path, &facts, opts, policy, &mut on_batch) {
            Ok(t) => out.tables.push(t),
            Err(TableFailure::Fatal(e)) => return Err(e),
            Err(TableFailure::Table(error)) => out.failed.push(FailedTable {
                name: table.name.clone(),
                path,
                error,
            }),
        }
    }
    let logs_file = out.logs_file.clone();
    let written: Vec<(&str, &str)> = tables
        .iter()
        .filter(|t| !out.failed.iter().any(|f| f.name == t.name))
        .map(|t| (t.name.as_str(), t.key.as_str()))
        .collect();
    out.logs_bytes = write_logs_row(summary, &written, &logs_file, &facts, policy)?;
    if replaces_logs(opts) {
        let failed = out.failed.iter().map(|f| f.path.clone());
        for path in p.stale.iter().cloned().chain(failed).collect::<Vec<_>>() {
            if remove_partition(&path)? {
                out.removed.push(path);
            }
        }
    }
    Ok(out)
}

/// What every file of one log says about it.
struct Facts {
    kv: Vec<KeyValue>,
    metadata: BTreeMap<String, serde_json::Value>,
    log_path: String,
}

impl Facts {
    fn of(summary: &Summary, p: &Planned) -> Facts {
        let tm = &summary.time_model;
        let ns = |t: Option<logcore::Timestamp>| t.map(|t| t.as_nanos().to_string());
        let offset = tm.anchor.map(|a| {
            (i128::from(a.unix_time.as_nanos()) - i128::from(a.log_time.as_nanos())).to_string()
        });
        let log_path = p.path.to_string_lossy().into_owned();
        let kv = vec![
            KeyValue::new("robolog.log".into(), p.log_id.clone()),
            KeyValue::new("robolog.path".into(), log_path.clone()),
            KeyValue::new("robolog.format".into(), summary.format.name().to_string()),
            KeyValue::new("robolog.start_ns".into(), ns(summary.start)),
            KeyValue::new("robolog.end_ns".into(), ns(summary.end)),
            KeyValue::new("robolog.clock".into(), tm.clock.name().to_string()),
            KeyValue::new("robolog.utc_offset_ns".into(), offset),
        ];
        let metadata = summary
            .metadata
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        Facts {
            kv,
            metadata,
            log_path,
        }
    }

    /// The key-value metadata of a file of `table`, its `robolog.metadata`
    /// object `metadata`.
    fn key_values(
        &self,
        table: &str,
        metadata: &BTreeMap<String, serde_json::Value>,
        extra: Option<KeyValue>,
    ) -> Vec<KeyValue> {
        let mut kv = self.kv.clone();
        kv.push(KeyValue::new("robolog.table".into(), table.to_string()));
        kv.extend(extra);
        kv.push(KeyValue::new(
            "robolog.metadata".into(),
            serde_json::to_string(metadata).unwrap_or_else(|_| "{}".into()),
        ));
        kv
    }
}

/// How writing one table failed.
enum TableFailure {
    /// The export cannot go on (the output could not be written).
    Fatal(ExportError),
    /// This table cannot be written; the others can.
    Table(Error),
}

/// Tables with more leaf columns than this are written without
/// dictionaries and uncompressed: the Parquet writer keeps a dictionary
/// and compression state per column, about 90 KB and 13 KB, so a message
/// of 30,000 fields took 2.7 GB to write; without them, 200 MB.
pub const WIDE_COLUMNS: usize = 1_000;

/// The leaf columns of `schema` (a struct's fields, a list's items, ...).
pub fn leaf_columns(schema: &Schema) -> usize {
    fn leaves(t: &DataType) -> usize {
        match t {
            DataType::Struct(fs) => fs
                .iter()
                .map(|f| leaves(f.data_type()))
                .sum::<usize>()
                .max(1),
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                leaves(f.data_type())
            }
            DataType::Map(f, _) => leaves(f.data_type()),
            _ => 1,
        }
    }
    schema.fields().iter().map(|f| leaves(f.data_type())).sum()
}

/// The writer properties of a table of `schema`: zstd and dictionaries,
/// or neither for a table of more than [`WIDE_COLUMNS`] leaf columns.
pub fn table_properties(schema: &Schema) -> parquet::file::properties::WriterPropertiesBuilder {
    let wide = leaf_columns(schema) > WIDE_COLUMNS;
    WriterProperties::builder()
        .set_compression(if wide {
            Compression::UNCOMPRESSED
        } else {
            Compression::ZSTD(ZstdLevel::default())
        })
        .set_dictionary_enabled(!wide)
}

fn writer_props(opts: &ParquetOptions, kv: Vec<KeyValue>, schema: &Schema) -> WriterProperties {
    table_properties(schema)
        .set_max_row_group_row_count(Some(opts.row_group_rows.max(1)))
        .set_max_row_group_bytes(Some(opts.row_group_bytes.max(1)))
        .set_key_value_metadata(Some(kv))
        .build()
}

/// A Parquet error of a file being written: an I/O error of the file is
/// fatal, anything else fails the table only.
fn parquet_failure(path: &Path, e: ParquetError) -> TableFailure {
    if let ParquetError::External(inner) = &e {
        if let Some(io) = inner.downcast_ref::<io::Error>() {
            return TableFailure::Fatal(ExportError::Io {
                path: path.to_path_buf(),
                error: io::Error::new(io.kind(), io.to_string()),
            });
        }
    }
    TableFailure::Table(Error::Parquet(e))
}

fn create(path: &Path, policy: &OutputPolicy) -> Result<AtomicFile, ExportError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_at(parent))?;
    }
    AtomicFile::create(path, policy).map_err(|e| match e {
        WriteError::Refused(r) => ExportError::Refused(r),
        WriteError::Io(error) | WriteError::Write(error) => ExportError::Io {
            path: path.to_path_buf(),
            error,
        },
    })
}

/// Commits a finished file and gives its size.
fn commit(file: AtomicFile, path: &Path) -> Result<u64, ExportError> {
    file.commit().map_err(io_at(path))?;
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(io_at(path))
}

fn write_table(
    log: &Log<'_>,
    table: &Table,
    path: &Path,
    facts: &Facts,
    opts: &ParquetOptions,
    policy: &OutputPolicy,
    on_batch: &mut dyn FnMut(u64),
) -> Result<ExportedTable, TableFailure> {
    let schema = table.schema();
    let channels: Vec<serde_json::Value> = table
        .channels
        .iter()
        .map(|c| {
            serde_json::json!({
                "topic": c.topic,
                "type": c.type_name,
                "encoding": c.message_encoding,
                "metadata": c.metadata,
            })
        })
        .collect();
    let mut metadata = facts.metadata.clone();
    metadata.insert("channels".into(), serde_json::Value::Array(channels));
    let type_kv = schema
        .metadata()
        .get("robolog.type")
        .map(|t| KeyValue::new("robolog.type".into(), t.clone()));
    let kv = facts.key_values(&table.name, &metadata, type_kv);
    let file = create(path, policy).map_err(TableFailure::Fatal)?;
    let mut writer =
        ArrowWriter::try_new(file, schema.clone(), Some(writer_props(opts, kv, &schema)))
            .map_err(|e| parquet_failure(path, e))?;
    let scan_opts = ScanOptions {
        batch_size: FIRST_BATCH,
        ..ScanOptions::default()
    };
    let mut reader = scan(log, table, &scan_opts).map_err(TableFailure::Table)?;
    let mut rows = 0u64;
    while let Some(batch) = reader.next() {
        let batch = batch.map_err(|e| match e {
            Error::Log(logcore::Error::Io(error)) => TableFailure::Fatal(ExportError::Read {
                path: PathBuf::from(&facts.log_path),
                error: logcore::Error::Io(error),
            }),
            e => TableFailure::Table(e),
        })?;
        writer.write(&batch).map_err(|e| parquet_failure(path, e))?;
        let n = batch.num_rows();
        rows += n as u64;
        on_batch(n as u64);
        // Rows of large messages make small batches.
        let per_row = batch.get_array_memory_size() / n.max(1);
        reader.set_batch_size((opts.batch_bytes / per_row.max(1)).clamp(1, DEFAULT_BATCH_SIZE));
    }
    let file = writer.into_inner().map_err(|e| parquet_failure(path, e))?;
    let bytes = commit(file, path).map_err(TableFailure::Fatal)?;
    Ok(ExportedTable {
        name: table.name.clone(),
        path: path.to_path_buf(),
        rows,
        columns: schema.fields().len(),
        bytes,
        skipped: reader.skipped(),
        undecoded: reader.undecoded(),
        first_undecoded: reader.first_undecoded().cloned(),
        inferred: table.inferred,
    })
}

/// The schema of the `logs` table: `path`, `format`, `start`, `end`,
/// `duration_s`, `message_count`, `metadata`: the one definition of the
/// table, which the Parquet export writes a row of per log
/// ([`logs_row`]) and SQL over logs (`robolog-sql`) queries, after its
/// `log` column ([`logs_batch`]).
pub fn logs_schema() -> SchemaRef {
    let ts = DataType::Timestamp(TimeUnit::Nanosecond, None);
    Arc::new(Schema::new(vec![
        Field::new("path", DataType::Utf8, false),
        Field::new("format", DataType::Utf8, false),
        Field::new("start", ts.clone(), true),
        Field::new("end", ts, true),
        Field::new("duration_s", DataType::Float64, false),
        Field::new("message_count", DataType::UInt64, false),
        Field::new("metadata", DataType::Utf8, false),
        Field::new("tables", DataType::Utf8, false),
    ]))
}

/// One row of the `logs` table ([`logs_schema`]): a log and what its
/// summary says.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRow {
    /// The log's path, as given.
    pub path: String,
    /// The format's name ([`Format::name`], as `robolog info` names it).
    pub format: &'static str,
    /// The first log time (ns), `None` when the log has no messages.
    pub start: Option<i64>,
    /// The last log time (ns), `None` when the log has no messages.
    pub end: Option<i64>,
    /// `end - start` in seconds (0 without messages).
    pub duration_s: f64,
    /// How many messages the log has.
    pub message_count: u64,
    /// The log's metadata as a JSON object ([`metadata_json`]).
    pub metadata: String,
    /// The log's tables as a JSON object, each table's name (in the set
    /// of logs read together, or the dataset) with the topic (ULog: the
    /// message name) whose messages are its rows: `{"temp_1": "/temp-1"}`.
    pub tables: String,
}

impl LogRow {
    /// The row of the log at `path` whose summary is `summary`.
    pub fn new(summary: &Summary, path: &str) -> LogRow {
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
            message_count: summary.message_count,
            metadata: metadata_json(summary),
            tables: "{}".to_string(),
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
        Arc::new(PrimitiveArray::<TimestampNanosecondType>::from_iter(
            rows.iter().map(f),
        ))
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
pub fn logs_row(
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

fn write_logs_row(
    summary: &Summary,
    tables: &[(&str, &str)],
    path: &Path,
    facts: &Facts,
    policy: &OutputPolicy,
) -> Result<u64, ExportError> {
    let fail = |e: &dyn std::fmt::Display| ExportError::Io {
        path: path.to_path_buf(),
        error: io::Error::other(e.to_string()),
    };
    let batch = logs_row(summary, &facts.log_path, tables).map_err(|e| fail(&e))?;
    let kv = facts.key_values(LOGS, &facts.metadata, None);
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_key_value_metadata(Some(kv))
        .build();
    let file = create(path, policy)?;
    let mut writer =
        ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| fail(&e))?;
    writer.write(&batch).map_err(|e| fail(&e))?;
    let file = writer.into_inner().map_err(|e| fail(&e))?;
    commit(file, path)
}
