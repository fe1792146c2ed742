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
//!   its columns those of [`Table::schema`](crate::Table::schema). The files hold no `log`
//!   column: readers add it from the folder name (DuckDB
//!   `read_parquet('DIR/vehicle_global_position/*/*.parquet',
//!   hive_partitioning = true)`, Spark, DataFusion listing tables).
//! - Every file of a table has the table's one schema across the dataset
//!   (see [One schema per table](#one-schema-per-table)), so readers take
//!   a table's folder as one table without merging schemas.
//! - `<log_id>` is the input's file name, made unique with `~2`, `~3`...
//!   ([`log_ids`](crate::log_ids)) and escaped for Hive
//!   ([`hive_escape`](crate::hive_escape)).
//! - The `logs` table ([`LOGS`]) has the columns `path` (the input as
//!   given), `format` ([`Format::name`](logcore::Format::name)), `start`, `end` (int64 ns on
//!   the log's clock, null when the log has no messages), `duration_s`,
//!   `message_count`, `metadata` (the log's metadata as a JSON object: ULog
//!   info and parameters, MCAP metadata records, ...), `tables`, `clock`,
//!   `start_utc`, `end_utc` and `duration` (see [`logs_schema`](crate::logs_schema)). A log's `logs` file is written after its
//!   tables: a log with a `logs` row was exported completely.
//!
//! # Files
//!
//! The export shares its options ([`ExportOptions`], in
//! [`ParquetOptions::export`]), its selection of channels, its report
//! ([`Exported`]) and its error ([`ExportError`]) with the CSV export of
//! [`robolog::export`].
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
//! # One schema per table
//!
//! The schema of each table is widened across every log of the export
//! and the table's files already in `DIR` (but those the export replaces
//! or removes), which come first:
//!
//! - the columns are the union by name: the first schema's order, then
//!   each new column where it first appears; struct fields merge the same
//!   way, list items too; a column or field some schema lacks is nullable,
//!   and null in the rows of the logs that lack it;
//! - two types of one column widen only where no value is lost: integers
//!   to the wider (a signed and an unsigned one to the signed type twice
//!   as wide, never past 64 bits), an integer of up to 32 bits and a float
//!   to `Float64`, floats to the wider, a bool and an integer to the
//!   integer, fixed arrays of two lengths to a `List`, `Utf8` and
//!   `LargeUtf8` to `LargeUtf8`. For any other pair the table is left out
//!   of the export: each log that has it fails it
//!   ([`ExportedLog::failed`]) with an error naming the column, both
//!   types and the logs (or file) they come from, and its files in `DIR`
//!   are left as they are;
//! - each file keeps its own log's metadata: the key-value metadata, the
//!   Arrow schema's `robolog.*` keys, and its columns' field metadata
//!   (`log_time`'s clock).
//!
//! A file of `DIR` whose columns are not the widened schema's (an export
//! adds a log with new fields, or a `--topic` export a table's newer
//! version) is rewritten before the export writes its own files, and only
//! such files are: every row and value kept, read back and written in the
//! widened schema through a temporary file renamed over it
//! ([`Exported::rewritten`]). This needs no [`ExportOptions::force`]:
//! nothing is lost, and the file is the dataset's own (its
//! `robolog.table` names the table). A file that must be read or
//! rewritten and cannot be (not Parquet, another table's, an input of the
//! export) refuses the export before anything is written
//! ([`ExportError::Refused`] with
//! [`Refusal::NotRewritable`](robolog::write::Refusal::NotRewritable) or
//! `SameFile`).
//!
//! # Safety of the outputs
//!
//! Every file is written through [`robolog::write`]: to a temporary file
//! beside it, renamed to `data.parquet` when complete. Every output of
//! every log is checked before the first is written: an output that
//! exists is refused unless [`ExportOptions::force`] is set, one that is
//! an input always ([`ExportError::Refused`]), so a refusal writes
//! nothing. Forced, an export replaces the files it writes.
//!
//! Forced and with no topic selection ([`ExportOptions::topics`] empty),
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
//! the logs: the batches of [`scan`](crate::scan) are written as they come, batches
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

mod dataset;
mod file;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use arrow_schema::SchemaRef;
use logcore::{ChannelInfo, LogReader, Summary};
use robolog::Log;
use robolog::export::Selection;
use robolog::write::OutputPolicy;

pub use robolog::export::{
    ExportError, ExportOptions, Exported, ExportedLog, ExportedTable, FailedTable, Progress, Unread,
};

use crate::table::tables_where;
use crate::{Error, LOGS, Table, TableNames};
use dataset::{DatasetPlan, existing_tables, partitions, plan_schemas, remove_partition};
use file::{Facts, TableFailure, rewrite_file, write_logs_row, write_table};
pub use file::{WIDE_COLUMNS, leaf_columns, table_properties};

/// The name of every Parquet file of the layout.
pub const DATA_FILE: &str = "data.parquet";

/// The default of [`ParquetOptions::row_group_rows`].
pub const DEFAULT_ROW_GROUP_ROWS: usize = 1 << 20;

/// The default of [`ParquetOptions::row_group_bytes`].
pub const DEFAULT_ROW_GROUP_BYTES: usize = 64 << 20;

/// The default of [`ParquetOptions::batch_bytes`].
pub const DEFAULT_BATCH_BYTES: usize = 16 << 20;

/// What to export and how: the options of every export, and the Parquet
/// files' own.
#[derive(Debug, Clone)]
pub struct ParquetOptions {
    /// What every export takes: the topics or table names
    /// ([`ExportOptions::topics`]; a log that lacks some exports the others
    /// and its `logs` row), force, and the readers' limits.
    pub export: ExportOptions,
    /// The most rows of a row group (at least 1).
    pub row_group_rows: usize,
    /// A row group is closed once its encoded size reaches about this many
    /// bytes (at least 1).
    pub row_group_bytes: usize,
    /// Batches of large messages are shrunk to about this many bytes of
    /// Arrow arrays (batches hold at most [`crate::DEFAULT_BATCH_SIZE`]
    /// rows).
    pub batch_bytes: usize,
    /// The log ids of the inputs, in their order ([`crate::find_named_logs`]
    /// gives them for the paths a user named); when there is not one per
    /// input, their file names, numbered ([`crate::log_ids`]).
    pub log_ids: Vec<String>,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            export: ExportOptions::default(),
            log_ids: Vec::new(),
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
            row_group_bytes: DEFAULT_ROW_GROUP_BYTES,
            batch_bytes: DEFAULT_BATCH_BYTES,
        }
    }
}

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
    /// Its summary, read once while planning.
    summary: Summary,
    /// The tables it writes, their types declared or inferred while
    /// planning (each table's own schema, before the dataset's widening).
    tables: Vec<Table>,
}

/// Whether an export replaces every partition of each log it writes.
fn replaces_logs(opts: &ParquetOptions) -> bool {
    opts.export.force && opts.export.topics.is_empty()
}

/// Exports the logs at `inputs` (files, opened through [`robolog`]) to
/// the dataset in `dir` (see the [module](self) docs; `dir` is created
/// when missing), calling `progress` as the work goes on.
///
/// Every input is opened and summarised first, and every output checked,
/// before anything is written. An input that cannot be opened or
/// summarised (not a log, a damaged header) is left out and named in
/// [`Exported::unread`]; the others are exported. Damaged records
/// are skipped and counted ([`ExportedTable::skipped`]); a message that
/// does not decode is a row whose message columns are null, counted in
/// [`ExportedTable::undecoded`] (as in `robolog-sql`); a table whose values do not fit its type
/// is left out ([`ExportedLog::failed`]).
///
/// With [`ExportOptions::force`] and no [`ExportOptions::topics`], the
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
) -> Result<Exported, ExportError> {
    let paths: Vec<PathBuf> = inputs.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let ids = if opts.log_ids.len() == paths.len() {
        opts.log_ids.clone()
    } else {
        crate::log_ids(&paths)
    };
    let mut policy = OutputPolicy::new(opts.export.force);
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
    let mut done = Exported::default();
    for (path, log_id) in paths.iter().zip(ids) {
        let opened = robolog::OpenOptions::new()
            .limits(opts.export.limits)
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
        opened_logs.push((path, log_id, log.size(), channels, summary));
    }
    // Table names are unique across the logs of the export and the tables
    // already in the folder, and do not depend on the topics selected.
    let table_names = existing_tables(dir).extended(
        opened_logs
            .iter()
            .flat_map(|(_, _, _, ch, _)| ch.iter().map(|(k, _)| k.as_str())),
    );
    let mut planned = Vec::with_capacity(opened_logs.len());
    let mut selection = Selection::new(&opts.export.topics);
    let topics: Vec<String> = opened_logs
        .iter()
        .flat_map(|(_, _, _, ch, _)| ch.iter().map(|(_, t)| t.clone()))
        .collect();
    for (path, log_id, size, channels, summary) in opened_logs {
        let mut names: Vec<String> = Vec::new();
        for (key, topic) in &channels {
            let name = table_names.name(key).unwrap_or(key).to_string();
            if !selection.selects(topic, &name) {
                continue;
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
            summary,
            tables: Vec::new(),
        });
    }
    selection.check(topics.iter().map(String::as_str))?;
    if planned.is_empty() {
        return Ok(done);
    }
    // The tables of every log, then one schema per table across the logs
    // and the files already in the folder, and the files to widen to it.
    for p in &mut planned {
        p.tables = log_tables(p, &table_names, opts)?;
    }
    let plan = plan_schemas(dir, &planned, &policy)?;
    std::fs::create_dir_all(dir).map_err(ExportError::io(dir))?;
    for (path, target) in &plan.rewrites {
        done.rewritten
            .push(rewrite_file(path, target, opts, &plan.rewriting)?);
    }

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
            .limits(opts.export.limits)
            .open(&p.path)
            .map_err(ExportError::read(&p.path))?;
        let exported = export_log(&log, p, &plan, dir, opts, &policy, &mut meter)?;
        meter.base += p.size;
        meter.at.bytes = meter.base;
        meter.report();
        done.logs.push(exported);
    }
    Ok(done)
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

/// The tables of the planned log `p` that the export writes (the
/// channels its topic selection keeps), named by `names`: the log is
/// opened for its types, read whole where a channel declares none.
fn log_tables(
    p: &Planned,
    names: &TableNames,
    opts: &ParquetOptions,
) -> Result<Vec<Table>, ExportError> {
    let log = robolog::OpenOptions::new()
        .limits(opts.export.limits)
        .open(&p.path)
        .map_err(ExportError::read(&p.path))?;
    let selection = Selection::new(&opts.export.topics);
    let keep = |c: &ChannelInfo| {
        let name = names.name(log.table_key(c)).unwrap_or_default();
        selection.contains(&c.topic, name)
    };
    match tables_where(&log, &p.summary, &keep, Some(names)) {
        Ok(t) => Ok(t),
        // Reading every message to infer types failed: the log cannot be
        // read at all (an I/O error of its file).
        Err(Error::Log(error)) => Err(ExportError::Read {
            path: p.path.clone(),
            error,
        }),
        Err(e) => Err(ExportError::Read {
            path: p.path.clone(),
            error: logcore::Error::invalid_argument(e.to_string()),
        }),
    }
}

/// Writes the tables of one log in the dataset's schemas of `plan`
/// (a table `plan` refuses is a failed table), then its `logs` row; then,
/// forced with no topic selection, removes the log's partitions of the
/// tables it did not write (those of [`Planned::stale`] and of the
/// tables that failed).
fn export_log(
    log: &Log<'_>,
    p: &Planned,
    plan: &DatasetPlan,
    dir: &Path,
    opts: &ParquetOptions,
    policy: &OutputPolicy,
    meter: &mut Meter<'_>,
) -> Result<ExportedLog, ExportError> {
    let summary = &p.summary;
    let facts = Facts::of(summary, p);
    let mut out = ExportedLog::new(&p.path, &p.log_id, log.format());
    out.problems = summary.warnings.clone();
    let tables = &p.tables;
    let total_rows: u64 = tables.iter().map(|t| t.message_count).sum::<u64>().max(1);
    let mut log_rows = 0u64;
    for table in tables {
        let path = table_path(dir, &table.name, &p.log_id);
        let target: SchemaRef = match plan.target(&table.name) {
            Ok(t) => t,
            Err(error) => {
                out.failed.push(FailedTable {
                    name: table.name.clone(),
                    path,
                    error,
                });
                continue;
            }
        };
        let mut on_batch = |rows: u64| {
            log_rows += rows;
            meter.at.rows += rows;
            meter.at.bytes = meter.base
                + (u128::from(p.size) * u128::from(log_rows.min(total_rows))
                    / u128::from(total_rows)) as u64;
            meter.report();
        };
        match write_table(
            log,
            table,
            &target,
            &path,
            &facts,
            opts,
            policy,
            &mut on_batch,
        ) {
            Ok(t) => out.tables.push(t),
            Err(TableFailure::Fatal(e)) => return Err(e),
            Err(TableFailure::Table(error)) => out.failed.push(FailedTable {
                name: table.name.clone(),
                path,
                error: Box::new(error),
            }),
        }
    }
    let logs_file = table_path(dir, LOGS, &p.log_id);
    let written: Vec<(&str, &str)> = tables
        .iter()
        .filter(|t| !out.failed.iter().any(|f| f.name == t.name))
        .map(|t| (t.name.as_str(), t.key.as_str()))
        .collect();
    let logs_target = plan.target(LOGS).map_err(|e| ExportError::Io {
        path: logs_file.clone(),
        error: std::io::Error::other(e),
    })?;
    out.logs = Some(write_logs_row(
        summary,
        &written,
        &logs_target,
        &logs_file,
        &facts,
        policy,
    )?);
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
