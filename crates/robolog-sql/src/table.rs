//! The set of logs a query reads, its tables as DataFusion
//! [`TableProvider`]s, and the scans that stream their rows.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use arrow_array::{
    ArrayRef, Float64Array, RecordBatch, StringArray, TimestampNanosecondArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{MemorySchemaProvider, SchemaProvider, Session, TableProvider};
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use datafusion::prelude::SessionContext;
use logcore::{LogReader, Timestamp};
use robolog_arrow::{ScanOptions, TableNames, may_name, metadata_json, table_in, table_key};

use crate::schema::{LOG, align, merge, with_log_column};
use crate::{Error, discover, filter};

/// The name of the table of logs (one row per log).
pub const LOGS: &str = "logs";

/// One log of a [`LogSet`]: its id, path and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRef {
    /// The log id (the file name, numbered when repeated; see
    /// [`log_ids`](crate::log_ids)), the value of the `log` column.
    pub id: String,
    /// The path as given (or as found under a directory given).
    pub path: PathBuf,
    /// The file's size in bytes (to balance logs over partitions).
    pub size: u64,
}

/// A log's row of the `logs` table.
#[derive(Debug, Clone)]
struct LogInfo {
    format: &'static str,
    start: Option<i64>,
    end: Option<i64>,
    duration_s: f64,
    message_count: u64,
    metadata: String,
}

/// Counters a query's scans update as they read, for a progress display.
#[derive(Debug, Default)]
pub struct ScanProgress {
    bytes_total: AtomicU64,
    bytes_done: AtomicU64,
    rows: AtomicU64,
    undecoded: Mutex<Vec<UndecodedRows>>,
}

/// Messages of one table of one log that did not decode in a scan: each
/// is a row whose message columns are null (see
/// [`robolog_arrow::ScanOptions::lenient`]), so a query's rows do not
/// depend on the columns it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndecodedRows {
    /// The log.
    pub path: PathBuf,
    /// The table.
    pub table: String,
    /// How many messages did not decode.
    pub count: u64,
    /// The first of them.
    pub first: Option<robolog_arrow::Undecoded>,
}

impl ScanProgress {
    /// Bytes of the logs the scans started so far will read (each log
    /// counts once per table scanned).
    pub fn bytes_total(&self) -> u64 {
        self.bytes_total.load(Ordering::Relaxed)
    }

    /// Bytes of the logs whose scan is complete.
    pub fn bytes_done(&self) -> u64 {
        self.bytes_done.load(Ordering::Relaxed)
    }

    /// Rows produced so far.
    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }

    /// The messages that did not decode in the scans so far, per log and
    /// table (a log scanned twice for a table counts in each scan).
    pub fn undecoded(&self) -> Vec<UndecodedRows> {
        self.undecoded.lock().map(|u| u.clone()).unwrap_or_default()
    }

    fn note_undecoded(&self, rows: UndecodedRows) {
        if let Ok(mut u) = self.undecoded.lock() {
            match u
                .iter_mut()
                .find(|x| x.path == rows.path && x.table == rows.table)
            {
                Some(x) => {
                    x.count += rows.count;
                    x.first = x.first.take().or(rows.first);
                }
                None => u.push(rows),
            }
        }
    }
}

/// A set of logs and their tables: every table name of any log, with a
/// schema merged across the logs that have it, plus the table [`LOGS`].
///
/// Opening the set reads each log's summary and the names of its tables;
/// a table's schema is built (from the logs that have it, on all cores)
/// and merged the first time it is asked for, so a query pays only for
/// the tables it names. Cloning is cheap: clones share the logs, the
/// schemas built so far and the logs kept open.
#[derive(Debug, Clone)]
pub struct LogSet {
    inner: Arc<SetInner>,
}

#[derive(Debug)]
struct SetInner {
    logs: Vec<LogRef>,
    /// The rows of the `logs` table; `None` when the set was opened for
    /// other tables ([`LogSet::open_for`]; the `logs` table then reads
    /// them when it is scanned).
    infos: Option<Vec<LogInfo>>,
    /// Table name -> the logs that have it, and its merged schema once
    /// built.
    tables: BTreeMap<String, Entry>,
    progress: Arc<ScanProgress>,
    limits: robolog::Limits,
    kept: Arc<KeptLogs>,
    /// What the readers worked around when opening the logs (see
    /// [`robolog::Log::open_warnings`]), in the logs' order.
    warnings: Vec<(PathBuf, robolog::Error)>,
}

/// A table of a [`LogSet`].
#[derive(Debug)]
struct Entry {
    /// The topic (ULog: message name) whose channels are the table's rows.
    key: String,
    /// Indices into the set's logs.
    users: Vec<usize>,
    /// The merged schema, built on first use.
    merged: OnceLock<Merged>,
}

/// A table's schema merged across its logs.
#[derive(Debug, Clone)]
struct Merged {
    /// The merged schema, `log` first.
    schema: SchemaRef,
    /// The first log whose table did not merge (path, column, reason).
    conflict: Option<(PathBuf, String, String)>,
}

/// What opening one log found.
struct Opened {
    /// Its row of the `logs` table, unless the set was opened for other
    /// tables.
    info: Option<LogInfo>,
    /// The keys of its tables (topics, ULog message names: see
    /// [`robolog_arrow::table_key`]).
    keys: Vec<String>,
    /// The opened log, when it is kept for the scans.
    kept: Option<Arc<Prepared>>,
    /// [`robolog::Log::open_warnings`] of the log.
    warnings: Vec<robolog::Error>,
}

/// A log opened while its set was planned, with its summary, kept so that
/// the first scan reading it does not parse it again. Its tables are not
/// kept (they take far more memory than the summary); a scan builds the
/// one it reads.
pub(crate) struct Prepared {
    log: robolog::Log<'static>,
    summary: logcore::Summary,
}

/// Logs opened while planning, kept (within [`KEEP_OPEN_MESSAGES`]) until
/// a scan takes them.
#[derive(Default)]
pub(crate) struct KeptLogs {
    logs: std::sync::Mutex<std::collections::HashMap<PathBuf, Arc<Prepared>>>,
    /// Whether the logs scans took are held in `scanned` (see
    /// [`LogSet::hold_scanned_logs`]) rather than closed.
    hold: AtomicBool,
    /// The logs scans took, while `hold` is set.
    scanned: std::sync::Mutex<Vec<Arc<Prepared>>>,
}

impl fmt::Debug for KeptLogs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.logs.lock().map_or(0, |m| m.len());
        let held = self.scanned.lock().map_or(0, |m| m.len());
        f.debug_struct("KeptLogs")
            .field("logs", &n)
            .field("held", &held)
            .finish()
    }
}

impl KeptLogs {
    /// The log at `path` if it is still kept; it is not kept any more
    /// (a later scan opens it again), so memory goes down as scans go on
    /// (unless the set holds scanned logs).
    fn take(&self, path: &Path) -> Option<Arc<Prepared>> {
        self.logs.lock().ok()?.remove(path)
    }

    /// Done with `log`, a log [`KeptLogs::take`] gave: held while the set
    /// holds scanned logs, else dropped (closed) here.
    fn done(&self, log: Arc<Prepared>) {
        if self.hold.load(Ordering::Relaxed)
            && let Ok(mut held) = self.scanned.lock()
        {
            held.push(log);
        }
    }

    /// The log at `path` if it is still kept, staying kept.
    fn get(&self, path: &Path) -> Option<Arc<Prepared>> {
        self.logs.lock().ok()?.get(path).cloned()
    }
}

/// How many messages the logs [`LogSet::open`] keeps open for the scans
/// may have in all (their indexes stay in memory until a scan reads them:
/// a few bytes a message). Logs past this, or past [`KEEP_OPEN_LOGS`], are
/// opened again by the scan that reads them.
pub const KEEP_OPEN_MESSAGES: u64 = 32 << 20;

/// How many logs [`LogSet::open`] keeps open for the scans at most (each
/// holds its definitions and tables, some hundreds of KiB for a PX4 log).
pub const KEEP_OPEN_LOGS: u64 = 1024;

/// What is left of the keep-open budget while a set is opened.
struct Budget {
    messages: AtomicU64,
    logs: AtomicU64,
}

impl Budget {
    fn new(messages: u64, logs: u64) -> Budget {
        Budget {
            messages: AtomicU64::new(messages),
            logs: AtomicU64::new(logs),
        }
    }

    /// Takes one log of `messages` from the budget, if both parts allow.
    fn take(&self, messages: u64) -> bool {
        let take = |a: &AtomicU64, n: u64| {
            a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .is_ok()
        };
        if !take(&self.logs, 1) {
            return false;
        }
        if take(&self.messages, messages) {
            return true;
        }
        self.logs.fetch_add(1, Ordering::Relaxed);
        false
    }
}

/// Opens the log at `path` for a set: for every table, or for the tables
/// `only` names (see [`LogSet::open_for`]).
fn open_one(
    path: &Path,
    limits: &robolog::Limits,
    budget: &Budget,
    only: Option<&[String]>,
) -> Result<Opened, Error> {
    let log = match only {
        Some(t) => robolog::open_selected(path, limits, &|n| t.iter().any(|t| may_name(n, t))),
        None => robolog::open_with(path, limits),
    }
    .map_err(|e| Error::Open {
        path: path.to_path_buf(),
        source: e,
    })?;
    let summary = log.summary().map_err(|e| Error::Open {
        path: path.to_path_buf(),
        source: e,
    })?;
    let format = log.format();
    let mut keys: Vec<String> = Vec::new();
    for c in &summary.channels {
        let key = table_key(format, &c.info);
        if !keys.iter().any(|k| k == key) && only.is_none_or(|t| t.iter().any(|t| may_name(key, t)))
        {
            keys.push(key.to_string());
        }
    }
    let keep = budget.take(summary.message_count);
    Ok(Opened {
        info: only.is_none().then(|| log_info(&summary)),
        keys,
        warnings: log.open_warnings(),
        kept: keep.then(|| Arc::new(Prepared { log, summary })),
    })
}

fn log_info(summary: &logcore::Summary) -> LogInfo {
    LogInfo {
        // As `robolog info` and the Parquet export's `logs` table name it.
        format: summary.format.name(),
        start: summary.start.map(Timestamp::as_nanos),
        end: summary.end.map(Timestamp::as_nanos),
        duration_s: summary.duration_ns() as f64 / 1e9,
        message_count: summary.message_count,
        metadata: metadata_json(summary),
    }
}

impl LogSet {
    /// Opens every log under `paths` (files, and directories searched
    /// recursively: see [`find_logs`](crate::find_logs)) for its summary
    /// and the names of its tables. Logs are opened on all cores, and kept
    /// open for the scans (within [`KEEP_OPEN_LOGS`] and
    /// [`KEEP_OPEN_MESSAGES`]): the first scan reading a log takes it,
    /// later ones open it again. A table's schemas are built and merged
    /// when it is first asked for ([`LogSet::schema`], a query naming it):
    /// only channel definitions are read then, except for channels whose
    /// format declares no type (read once to infer one).
    ///
    /// Fails on the first log that does not open. A table whose columns
    /// have different types in two logs is still listed, but querying it
    /// fails ([`Error::Merge`] names the log, the table and the column; see
    /// [`LogSet::check`]); so does a table that cannot be built from one of
    /// its logs ([`Error::Read`]).
    pub fn open<P: AsRef<Path>>(paths: &[P]) -> Result<LogSet, Error> {
        LogSet::open_with(paths, robolog::Limits::default())
    }

    /// [`LogSet::open`] with resource limits for reading the logs (used by
    /// every scan of the set's tables too).
    pub fn open_with<P: AsRef<Path>>(
        paths: &[P],
        limits: robolog::Limits,
    ) -> Result<LogSet, Error> {
        LogSet::open_inner(paths, limits, None)
    }

    /// [`LogSet::open_with`] for a query that reads the tables `tables`
    /// only (the names its statement refers to; a name no log has is left
    /// out, as by a query): the set lists no other table, and opening it
    /// costs much less. A ULog is read for the samples of those tables
    /// only (see [`robolog::open_selected`]), and the rows of [`LOGS`] are
    /// read only if a scan asks for them. With [`LOGS`] among `tables`,
    /// this is [`LogSet::open_with`].
    ///
    /// ```no_run
    /// let limits = robolog::Limits::default();
    /// let set = robolog_sql::LogSet::open_for(&["fleet/"], limits, &["vehicle_status"])?;
    /// assert!(set.table_names().iter().all(|t| *t == "vehicle_status"));
    /// # Ok::<(), robolog_sql::Error>(())
    /// ```
    pub fn open_for<P: AsRef<Path>, T: AsRef<str>>(
        paths: &[P],
        limits: robolog::Limits,
        tables: &[T],
    ) -> Result<LogSet, Error> {
        let tables: Vec<String> = tables.iter().map(|t| t.as_ref().to_string()).collect();
        if tables.iter().any(|t| t == LOGS) {
            return LogSet::open_with(paths, limits);
        }
        LogSet::open_inner(paths, limits, Some(&tables))
    }

    fn open_inner<P: AsRef<Path>>(
        paths: &[P],
        limits: robolog::Limits,
        only: Option<&[String]>,
    ) -> Result<LogSet, Error> {
        let (files, ids): (Vec<PathBuf>, Vec<String>) =
            discover::find_named_logs(paths)?.into_iter().unzip();
        if files.is_empty() {
            return Err(Error::NoLogs);
        }
        let opened = open_all(&files, &limits, only)?;
        let mut logs = Vec::with_capacity(files.len());
        let mut infos = only.is_none().then(|| Vec::with_capacity(files.len()));
        let mut tables: BTreeMap<String, Entry> = BTreeMap::new();
        let kept = KeptLogs::default();
        let mut warnings = Vec::new();
        // One table per key across the set, each name unique (robolog-arrow
        // names a `logs` topic's table `logs_`).
        let names = TableNames::new(
            opened
                .iter()
                .flat_map(|o| o.keys.iter().map(String::as_str)),
        );
        for (i, ((path, id), o)) in files.into_iter().zip(ids).zip(opened).enumerate() {
            let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            for key in o.keys {
                let Some(name) = names.name(&key) else {
                    continue;
                };
                if only.is_some_and(|t| !t.iter().any(|t| t == name)) {
                    continue;
                }
                tables
                    .entry(name.to_string())
                    .or_insert_with(|| Entry {
                        key: key.clone(),
                        users: Vec::new(),
                        merged: OnceLock::new(),
                    })
                    .users
                    .push(i);
            }
            warnings.extend(o.warnings.into_iter().map(|w| (path.clone(), w)));
            if let (Some(k), Ok(mut map)) = (o.kept, kept.logs.lock()) {
                map.insert(path.clone(), k);
            }
            logs.push(LogRef { id, path, size });
            if let (Some(infos), Some(info)) = (infos.as_mut(), o.info) {
                infos.push(info);
            }
        }
        Ok(LogSet {
            inner: Arc::new(SetInner {
                logs,
                infos,
                tables,
                progress: Arc::default(),
                limits,
                kept: Arc::new(kept),
                warnings,
            }),
        })
    }

    /// The logs, in order.
    pub fn logs(&self) -> &[LogRef] {
        &self.inner.logs
    }

    /// What the readers worked around when opening the logs, with the log
    /// each concerns (see [`robolog::Log::open_warnings`]: a bag without
    /// its index, read by scanning its chunks). The logs are read in full
    /// all the same; a tool says so.
    pub fn open_warnings(&self) -> &[(PathBuf, robolog::Error)] {
        &self.inner.warnings
    }

    /// The names of the tables of the logs, sorted (without [`LOGS`]).
    /// A topic whose table name is `logs` is the table `logs_`.
    pub fn table_names(&self) -> Vec<&str> {
        self.inner.tables.keys().map(String::as_str).collect()
    }

    /// The topic (ULog: message name) whose messages are the rows of the
    /// table called `table` in every log of the set: table names are unique
    /// per topic (see [`robolog_arrow::TableNames`]).
    pub fn table_key(&self, table: &str) -> Option<&str> {
        self.inner.tables.get(table).map(|e| e.key.as_str())
    }

    /// Whether `table` is a table of the logs or [`LOGS`] (builds nothing).
    pub fn has_table(&self, table: &str) -> bool {
        table == LOGS || self.inner.tables.contains_key(table)
    }

    /// The merged schema of a table (`log` first), or of [`LOGS`]; `None`
    /// for a table no log has, and when building the table failed (see
    /// [`LogSet::try_schema`]).
    pub fn schema(&self, table: &str) -> Option<SchemaRef> {
        self.try_schema(table).ok().flatten()
    }

    /// [`LogSet::schema`], with the error of a log whose table could not
    /// be built (the first in log order) or that no longer opens.
    pub fn try_schema(&self, table: &str) -> Result<Option<SchemaRef>, Error> {
        if table == LOGS {
            return Ok(Some(logs_schema()));
        }
        Ok(self.merged(table)?.map(|m| m.schema.clone()))
    }

    /// Whether `table`'s schemas merged across the logs: the
    /// [`Error::Merge`] naming the first log whose table did not (or the
    /// error of building it, see [`LogSet::try_schema`]).
    pub fn check(&self, table: &str) -> Result<(), Error> {
        if table == LOGS {
            return Ok(());
        }
        match self.merged(table)?.and_then(|m| m.conflict.as_ref()) {
            Some((path, column, reason)) => Err(Error::Merge {
                path: path.clone(),
                table: table.to_string(),
                column: column.clone(),
                reason: reason.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Makes the logs kept open for the scans (see [`LogSet::open`]) stay
    /// open after their scan, until the set and its tables are dropped,
    /// instead of each closing when its scan is done. Held logs are no
    /// more than planning held already (within [`KEEP_OPEN_LOGS`] and
    /// [`KEEP_OPEN_MESSAGES`]); logs opened again by a scan are closed
    /// as before.
    ///
    /// For a program that exits once its query is answered: it can skip
    /// dropping the set (`std::mem::forget`), and the system then unmaps
    /// every log at exit at once, much faster than closing them one by
    /// one on the cores that are still scanning (the `robolog sql`
    /// command does this).
    pub fn hold_scanned_logs(&self) {
        self.inner.kept.hold.store(true, Ordering::Relaxed);
    }

    /// How many logs [`LogSet::hold_scanned_logs`] holds now.
    pub fn held_logs(&self) -> usize {
        self.inner.kept.scanned.lock().map_or(0, |h| h.len())
    }

    /// The counters every scan of this set's tables updates.
    pub fn progress(&self) -> Arc<ScanProgress> {
        self.inner.progress.clone()
    }

    /// The table provider of a table (or of [`LOGS`]); `None` for a table
    /// no log has, and when building it failed (see
    /// [`LogSet::try_provider`]).
    pub fn provider(&self, table: &str) -> Option<Arc<LogTable>> {
        self.try_provider(table).ok().flatten()
    }

    /// [`LogSet::provider`], with the error of building the table.
    pub fn try_provider(&self, table: &str) -> Result<Option<Arc<LogTable>>, Error> {
        let set = &self.inner;
        if table == LOGS {
            let rows = set
                .infos
                .as_ref()
                .and_then(|infos| logs_batch(&set.logs, infos).ok());
            return Ok(Some(Arc::new(LogTable {
                name: LOGS.into(),
                source: LOGS.into(),
                kind: Kind::Logs(rows),
                conflict: None,
                logs: set.logs.clone(),
                schema: logs_schema(),
                progress: Some(set.progress.clone()),
                limits: set.limits,
                max_partitions: None,
                kept: None,
            })));
        }
        let Some(merged) = self.merged(table)? else {
            return Ok(None);
        };
        let entry = &set.tables[table];
        let users = &entry.users;
        Ok(Some(Arc::new(LogTable {
            name: table.into(),
            source: entry.key.clone(),
            kind: Kind::Messages,
            conflict: merged.conflict.clone(),
            logs: users.iter().map(|&i| set.logs[i].clone()).collect(),
            schema: merged.schema.clone(),
            progress: Some(set.progress.clone()),
            limits: set.limits,
            max_partitions: None,
            kept: Some(set.kept.clone()),
        })))
    }

    /// Makes the tables of the logs and [`LOGS`] tables of `ctx`'s default
    /// schema. Each table is built when a query first names it; tables
    /// registered in that schema before keep working, and a table of the
    /// logs replaces one of the same name registered before.
    pub fn register(&self, ctx: &SessionContext) -> Result<(), Error> {
        let state = ctx.state();
        let options = &state.config().options().catalog;
        let catalog = ctx.catalog(&options.default_catalog).ok_or_else(|| {
            DataFusionError::Plan(format!("no catalog {}", options.default_catalog))
        })?;
        let fallback: Arc<dyn SchemaProvider> = match catalog.schema(&options.default_schema) {
            Some(s) => s,
            None => Arc::new(MemorySchemaProvider::new()),
        };
        for name in self.table_names().into_iter().chain([LOGS]) {
            if fallback.table_exist(name) {
                fallback.deregister_table(name)?;
            }
        }
        catalog.register_schema(
            &options.default_schema,
            Arc::new(SetSchema {
                set: self.clone(),
                fallback,
            }),
        )?;
        Ok(())
    }

    /// The merged schema of `table` (built on first use), `None` when no
    /// log has it.
    fn merged(&self, table: &str) -> Result<Option<&Merged>, Error> {
        let set = &self.inner;
        let Some(entry) = set.tables.get(table) else {
            return Ok(None);
        };
        if let Some(m) = entry.merged.get() {
            return Ok(Some(m));
        }
        let schemas = on_all_cores(&entry.users, |&i| {
            let l = &set.logs[i];
            let read = |e| Error::Read {
                path: l.path.clone(),
                source: e,
            };
            let prepared = match set.kept.get(&l.path) {
                Some(p) => p,
                None => Arc::new(reopen(&l.path, &set.limits, &entry.key)?),
            };
            let table =
                table_in(&prepared.log, &prepared.summary, &entry.key, table).map_err(read)?;
            Ok(table.map(|t| t.schema()))
        })?;
        let mut merged: Option<Merged> = None;
        // The schema (without `log`) of the last log merged in: a log with
        // the same one changes nothing (merging is idempotent), which is
        // the common case in a fleet of one firmware or one robot.
        let mut last: Option<SchemaRef> = None;
        for (k, (&i, schema)) in entry.users.iter().zip(&schemas).enumerate() {
            let Some(schema) = schema.clone() else {
                continue;
            };
            match merged.as_mut() {
                None => {
                    merged = Some(Merged {
                        schema: Arc::new(with_log_column(&schema)),
                        conflict: None,
                    });
                    last = Some(schema);
                }
                Some(m) if m.conflict.is_some() => break,
                Some(_)
                    if last
                        .as_ref()
                        .is_some_and(|l| Arc::ptr_eq(l, &schema) || **l == *schema) => {}
                Some(m) => match merge(&m.schema, &with_log_column(&schema)) {
                    Ok(s) => {
                        m.schema = Arc::new(s);
                        last = Some(schema);
                    }
                    Err(c) => {
                        // The first log before this one with the column,
                        // so that the message names both.
                        let top = c.path.split(['.', '[']).next().unwrap_or_default();
                        let before = entry.users[..k]
                            .iter()
                            .zip(&schemas)
                            .find(|(_, s)| {
                                s.as_ref().is_some_and(|s| s.field_with_name(top).is_ok())
                            })
                            .map(|(&j, _)| set.logs[j].path.display().to_string());
                        let reason = match before {
                            Some(p) => c.reason.replace("in the logs before", &format!("in {p}")),
                            None => c.reason,
                        };
                        m.conflict = Some((set.logs[i].path.clone(), c.path, reason));
                    }
                },
            }
        }
        let merged = merged.unwrap_or_else(|| Merged {
            schema: Arc::new(with_log_column(&Schema::empty())),
            conflict: None,
        });
        Ok(Some(entry.merged.get_or_init(|| merged)))
    }
}

/// The default schema of a context once a [`LogSet`] is registered: the
/// set's tables, built when first named, then the tables registered
/// before (and after, which go there).
#[derive(Debug)]
struct SetSchema {
    set: LogSet,
    fallback: Arc<dyn SchemaProvider>,
}

#[async_trait]
impl SchemaProvider for SetSchema {
    fn table_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .set
            .table_names()
            .into_iter()
            .chain([LOGS])
            .map(String::from)
            .collect();
        for n in self.fallback.table_names() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names
    }

    async fn table(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        if let Some(t) = self.fallback.table(name).await? {
            return Ok(Some(t));
        }
        match self.set.try_provider(name) {
            Ok(Some(t)) => Ok(Some(t)),
            Ok(None) => Ok(None),
            Err(e) => Err(external(e)),
        }
    }

    fn register_table(
        &self,
        name: String,
        table: Arc<dyn TableProvider>,
    ) -> DfResult<Option<Arc<dyn TableProvider>>> {
        self.fallback.register_table(name, table)
    }

    fn deregister_table(&self, name: &str) -> DfResult<Option<Arc<dyn TableProvider>>> {
        self.fallback.deregister_table(name)
    }

    fn table_exist(&self, name: &str) -> bool {
        self.set.has_table(name) || self.fallback.table_exist(name)
    }
}

/// Opens the logs on all cores, keeping their order; the first error (in
/// path order) wins.
fn open_all(
    files: &[PathBuf],
    limits: &robolog::Limits,
    only: Option<&[String]>,
) -> Result<Vec<Opened>, Error> {
    let budget = Budget::new(KEEP_OPEN_MESSAGES, KEEP_OPEN_LOGS);
    on_all_cores(files, |p| open_one(p, limits, &budget, only))
}

/// Opens `path` again for the schema or a scan of its table of `key` (a
/// ULog is read for that table's samples only).
fn reopen(path: &Path, limits: &robolog::Limits, key: &str) -> Result<Prepared, Error> {
    let open = |e| Error::Open {
        path: path.to_path_buf(),
        source: e,
    };
    let log =
        robolog::open_selected(path, limits, &|n| n == key || may_name(n, key)).map_err(open)?;
    let summary = log.summary().map_err(open)?;
    Ok(Prepared { log, summary })
}

/// `f` of every item, on all cores, in the items' order; the first error
/// (in that order) wins. Items go to the threads one at a time, so that a
/// few slow ones do not leave the other cores idle; a thread stops at its
/// first error.
fn on_all_cores<I: Sync, T: Send>(
    items: &[I],
    f: impl Fn(&I) -> Result<T, Error> + Sync,
) -> Result<Vec<T>, Error> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len())
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Vec<(usize, Result<T, Error>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        let r = f(item);
                        let failed = r.is_err();
                        out.push((i, r));
                        if failed {
                            break;
                        }
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut slots: Vec<Option<Result<T, Error>>> = (0..items.len()).map(|_| None).collect();
    for (i, r) in results.into_iter().flatten() {
        slots[i] = Some(r);
    }
    let mut out = Vec::with_capacity(items.len());
    for (slot, item) in slots.into_iter().zip(items) {
        match slot {
            Some(r) => out.push(r?),
            // The threads stopped at errors before reaching this item
            // (they are at later items), or one panicked: done here.
            None => out.push(f(item)?),
        }
    }
    Ok(out)
}

/// Opens every log under `paths` (see [`LogSet::open`]) and registers its
/// tables and [`LOGS`] with `ctx`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// let ctx = SessionContext::new();
/// let bag = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// robolog_sql::register_logs(&ctx, &[bag])?;
/// let batches = ctx.sql("SELECT count(*) AS n FROM count").await?.collect().await?;
/// let n = batches[0].column(0).as_any().downcast_ref::<arrow_array::Int64Array>().unwrap();
/// assert_eq!(n.value(0), 30);
/// # Ok(())
/// # }
/// ```
pub fn register_logs<P: AsRef<Path>>(ctx: &SessionContext, paths: &[P]) -> Result<LogSet, Error> {
    let set = LogSet::open(paths)?;
    set.register(ctx)?;
    Ok(set)
}

/// The schema of the [`LOGS`] table: [`LOG`], then the columns of the
/// `logs` table of a Parquet export ([`robolog_arrow::parquet::logs_schema`]).
pub fn logs_schema() -> SchemaRef {
    let mut fields = vec![Arc::new(Field::new(LOG, DataType::Utf8, false))];
    fields.extend(
        robolog_arrow::parquet::logs_schema()
            .fields()
            .iter()
            .cloned(),
    );
    Arc::new(Schema::new(fields))
}

fn logs_batch(logs: &[LogRef], infos: &[LogInfo]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(logs.iter().map(|l| &l.id))),
        Arc::new(StringArray::from_iter_values(
            logs.iter().map(|l| l.path.to_string_lossy()),
        )),
        Arc::new(StringArray::from_iter_values(
            infos.iter().map(|i| i.format),
        )),
        Arc::new(TimestampNanosecondArray::from(
            infos.iter().map(|i| i.start).collect::<Vec<_>>(),
        )),
        Arc::new(TimestampNanosecondArray::from(
            infos.iter().map(|i| i.end).collect::<Vec<_>>(),
        )),
        Arc::new(Float64Array::from_iter_values(
            infos.iter().map(|i| i.duration_s),
        )),
        Arc::new(UInt64Array::from_iter_values(
            infos.iter().map(|i| i.message_count),
        )),
        Arc::new(StringArray::from_iter_values(
            infos.iter().map(|i| i.metadata.as_str()),
        )),
    ];
    RecordBatch::try_new(logs_schema(), cols)
}

/// What a [`LogTable`] holds.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// The messages of a table of the logs.
    Messages,
    /// The table of logs, with its rows when they are known already.
    Logs(Option<RecordBatch>),
}

/// A table over a set of logs: the rows of one table name in every log
/// that has it (or the rows of [`LOGS`]). Projections and `log_time`
/// ranges go to [`robolog_arrow::scan`], `log = ...` and `log IN (...)`
/// skip whole logs; logs are opened when a partition reaches them.
#[derive(Debug, Clone)]
pub struct LogTable {
    pub(crate) name: String,
    /// The topic (ULog: message name) of its rows in the logs
    /// ([`robolog_arrow::table_key`]).
    pub(crate) source: String,
    pub(crate) kind: Kind,
    /// Why the table's schemas did not merge (log, column, reason).
    pub(crate) conflict: Option<(PathBuf, String, String)>,
    pub(crate) logs: Vec<LogRef>,
    pub(crate) schema: SchemaRef,
    pub(crate) progress: Option<Arc<ScanProgress>>,
    pub(crate) limits: robolog::Limits,
    /// At most this many scan partitions (`None`: DataFusion's target
    /// partitions).
    pub(crate) max_partitions: Option<usize>,
    /// The logs its set kept open for the scans.
    pub(crate) kept: Option<Arc<KeptLogs>>,
}

impl LogTable {
    /// A table of `logs` (all assumed to have it) with a merged `schema`
    /// (`log` first), as a [`LogSet`] made it: what a remote executor
    /// rebuilds from a serialized plan.
    pub fn new(name: &str, logs: Vec<LogRef>, schema: SchemaRef) -> LogTable {
        LogTable {
            name: name.into(),
            source: name.into(),
            kind: if name == LOGS {
                Kind::Logs(None)
            } else {
                Kind::Messages
            },
            conflict: None,
            logs,
            schema,
            progress: None,
            limits: robolog::Limits::default(),
            max_partitions: None,
            kept: None,
        }
    }

    /// The table scanned in at most `n` partitions (at least one).
    ///
    /// The Ballista codecs decode tables with one: Ballista 55 packs
    /// several partitions of a stage into one task and restricts only the
    /// scans it knows (files, memory) to the task's partitions, so a task
    /// running partitions 2 and 3 of another scan would execute its
    /// partitions 0 and 1, and rows would be read twice or not at all.
    pub fn with_max_partitions(self, n: usize) -> LogTable {
        LogTable {
            max_partitions: Some(n.max(1)),
            ..self
        }
    }

    /// The table with resource limits for reading its logs.
    pub fn with_limits(self, limits: robolog::Limits) -> LogTable {
        LogTable { limits, ..self }
    }

    /// The limits the table reads its logs with.
    pub fn limits(&self) -> robolog::Limits {
        self.limits
    }

    /// The merged schema (`log` first).
    pub fn table_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The logs the table reads.
    pub fn logs(&self) -> &[LogRef] {
        &self.logs
    }
}

#[async_trait]
impl TableProvider for LogTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DfResult<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                if filter::supported(f) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        _limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        if let Some((path, column, reason)) = &self.conflict {
            return Err(external(Error::Merge {
                path: path.clone(),
                table: self.name.clone(),
                column: column.clone(),
                reason: reason.clone(),
            }));
        }
        let pushed = filter::pushed(filters);
        let logs: Vec<LogRef> = if pushed.empty_range() {
            Vec::new()
        } else {
            self.logs
                .iter()
                .filter(|l| pushed.logs.as_ref().is_none_or(|ids| ids.contains(&l.id)))
                .cloned()
                .collect()
        };
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        let config = state.config();
        let exec = LogScanExec::new(ScanSpec {
            table: self.name.clone(),
            key: self.source.clone(),
            logs_table: matches!(self.kind, Kind::Logs(_)),
            logs,
            schema,
            start: pushed.start,
            end: pushed.end,
            batch_size: config.batch_size(),
            target_partitions: config
                .target_partitions()
                .min(self.max_partitions.unwrap_or(usize::MAX)),
            limits: self.limits,
        });
        let exec = LogScanExec {
            rows: match &self.kind {
                Kind::Logs(rows) => rows.clone(),
                Kind::Messages => None,
            },
            progress: self.progress.clone(),
            kept: self.kept.clone(),
            ..exec
        };
        Ok(Arc::new(exec))
    }
}

/// What a [`LogScanExec`] reads: everything a remote executor needs to
/// redo the scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanSpec {
    /// The table's name.
    pub table: String,
    /// The table's key in the logs: the topic (ULog: the message name)
    /// whose channels are its rows (see [`robolog_arrow::table_key`]).
    pub key: String,
    /// Whether this is the table of logs ([`LOGS`]).
    pub logs_table: bool,
    /// The logs to read (after pruning by `log`).
    pub logs: Vec<LogRef>,
    /// The output schema (the projected merged schema).
    pub schema: SchemaRef,
    /// Only rows with `log_time` at or after this (ns).
    pub start: Option<i64>,
    /// Only rows with `log_time` at or before this (ns).
    pub end: Option<i64>,
    /// Rows per batch.
    pub batch_size: usize,
    /// How many partitions to spread the logs over (at most one per log).
    pub target_partitions: usize,
    /// The limits to read the logs with.
    pub limits: robolog::Limits,
}

/// The scan of a [`LogTable`]: logs spread over partitions by size, each
/// partition reading its logs one after the other on a blocking thread and
/// streaming their batches (at most two in flight per partition).
#[derive(Debug, Clone)]
pub struct LogScanExec {
    spec: ScanSpec,
    /// Indices into `spec.logs` of each partition.
    partitions: Vec<Vec<usize>>,
    properties: Arc<PlanProperties>,
    rows: Option<RecordBatch>,
    progress: Option<Arc<ScanProgress>>,
    kept: Option<Arc<KeptLogs>>,
}

impl LogScanExec {
    /// The scan `spec` describes.
    pub fn new(spec: ScanSpec) -> LogScanExec {
        let n = spec.target_partitions.max(1).min(spec.logs.len()).max(1);
        // Largest logs first, each to the partition with the fewest bytes.
        let mut order: Vec<usize> = (0..spec.logs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(spec.logs[i].size));
        let mut partitions: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut load = vec![0u64; n];
        for i in order {
            let k = (0..n).min_by_key(|&k| (load[k], k)).unwrap_or(0);
            load[k] += spec.logs[i].size.max(1);
            partitions[k].push(i);
        }
        for p in &mut partitions {
            p.sort_unstable();
        }
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(spec.schema.clone()),
            Partitioning::UnknownPartitioning(n),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        LogScanExec {
            spec,
            partitions,
            properties,
            rows: None,
            progress: None,
            kept: None,
        }
    }

    /// What the scan reads.
    pub fn spec(&self) -> &ScanSpec {
        &self.spec
    }
}

impl DisplayAs for LogScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LogScanExec: table={}, logs={}, partitions={}",
            self.spec.table,
            self.spec.logs.len(),
            self.partitions.len()
        )?;
        if self.spec.start.is_some() || self.spec.end.is_some() {
            write!(f, ", log_time={:?}..={:?}", self.spec.start, self.spec.end)?;
        }
        Ok(())
    }
}

impl ExecutionPlan for LogScanExec {
    fn name(&self) -> &str {
        "LogScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let Some(indices) = self.partitions.get(partition) else {
            return Err(DataFusionError::Internal(format!(
                "LogScanExec: no partition {partition} of {}",
                self.partitions.len()
            )));
        };
        let logs: Vec<LogRef> = indices.iter().map(|&i| self.spec.logs[i].clone()).collect();
        let spec = self.spec.clone();
        let progress = self.progress.clone();
        let kept = self.kept.clone();
        if let Some(p) = &progress {
            let bytes: u64 = logs.iter().map(|l| l.size).sum();
            p.bytes_total.fetch_add(bytes, Ordering::Relaxed);
        }
        let mut builder = RecordBatchReceiverStreamBuilder::new(spec.schema.clone(), 2);
        let tx = builder.tx();
        if spec.logs_table {
            let rows = self.rows.clone();
            builder.spawn_blocking(move || {
                let batch = logs_rows(&spec, &logs, rows)?;
                let _ = tx.blocking_send(Ok(batch));
                Ok(())
            });
        } else {
            builder.spawn_blocking(move || {
                for l in &logs {
                    let taken = kept.as_ref().and_then(|k| k.take(&l.path));
                    let more = scan_log(&spec, l, taken.clone(), &tx, progress.as_deref())?;
                    if let (Some(k), Some(t)) = (&kept, taken) {
                        k.done(t);
                    }
                    if !more {
                        break;
                    }
                    if let Some(p) = &progress {
                        p.bytes_done.fetch_add(l.size, Ordering::Relaxed);
                    }
                }
                Ok(())
            });
        }
        Ok(builder.build())
    }
}

/// The rows of the [`LOGS`] table for `logs`, projected to the spec's
/// schema; `cached` holds every log's row when the set knew them.
fn logs_rows(
    spec: &ScanSpec,
    logs: &[LogRef],
    cached: Option<RecordBatch>,
) -> DfResult<RecordBatch> {
    let full = match cached {
        Some(all) => {
            let ids: std::collections::HashSet<&str> = logs.iter().map(|l| l.id.as_str()).collect();
            let keep: arrow_array::BooleanArray =
                match all.column(0).as_any().downcast_ref::<StringArray>() {
                    Some(c) => c
                        .iter()
                        .map(|v| Some(v.is_some_and(|v| ids.contains(v))))
                        .collect(),
                    None => arrow_array::BooleanArray::from(vec![false; all.num_rows()]),
                };
            datafusion::arrow::compute::filter_record_batch(&all, &keep)?
        }
        None => {
            let mut infos = Vec::with_capacity(logs.len());
            for l in logs {
                let log = robolog::open_with(&l.path, &spec.limits).map_err(|e| {
                    external(Error::Open {
                        path: l.path.clone(),
                        source: e,
                    })
                })?;
                let summary = log.summary().map_err(|e| {
                    external(Error::Open {
                        path: l.path.clone(),
                        source: e,
                    })
                })?;
                infos.push(log_info(&summary));
            }
            logs_batch(logs, &infos)?
        }
    };
    let indices: Vec<usize> = spec
        .schema
        .fields()
        .iter()
        .map(|f| full.schema().index_of(f.name()))
        .collect::<Result<_, _>>()?;
    let projected = full.project(&indices)?;
    Ok(RecordBatch::try_new_with_options(
        spec.schema.clone(),
        projected.columns().to_vec(),
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(projected.num_rows())),
    )?)
}

fn external(e: Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// Streams the rows of one log into `tx`; false when the receiver went
/// away (the query needs no more rows).
fn scan_log(
    spec: &ScanSpec,
    l: &LogRef,
    prepared: Option<Arc<Prepared>>,
    tx: &tokio::sync::mpsc::Sender<DfResult<RecordBatch>>,
    progress: Option<&ScanProgress>,
) -> DfResult<bool> {
    let read = |e: robolog_arrow::Error| {
        external(Error::Read {
            path: l.path.clone(),
            source: e,
        })
    };
    let prepared = match prepared {
        Some(p) => p,
        None => Arc::new(prepare(spec, l)?),
    };
    let log = &prepared.log;
    // A table made by `LogTable::new` has its name for a key.
    let table = match table_in(log, &prepared.summary, &spec.key, &spec.table).map_err(read)? {
        Some(t) => Some(t),
        None => robolog_arrow::table_of(log, &prepared.summary, &spec.key).map_err(read)?,
    };
    let Some(table) = table else {
        return Ok(true);
    };
    let have = table.schema();
    let names: Vec<String> = spec
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|n| n != LOG && have.index_of(n).is_ok())
        .collect();
    let opts = ScanOptions {
        projection: Some(names),
        start: spec.start.map(Timestamp::from_nanos),
        // `ScanOptions::end` is exclusive and `spec.end` inclusive (and
        // DataFusion filters the rows again).
        end: spec.end.map(|e| Timestamp::from_nanos(e.saturating_add(1))),
        batch_size: spec.batch_size.max(1),
        lenient: true,
        typed_columns: true,
    };
    let mut reader = robolog_arrow::scan(log, &table, &opts).map_err(read)?;
    let noted = |reader: &robolog_arrow::BatchReader<'_>| {
        if let Some(p) = progress
            && reader.undecoded() > 0
        {
            p.note_undecoded(UndecodedRows {
                path: l.path.clone(),
                table: spec.table.clone(),
                count: reader.undecoded(),
                first: reader.first_undecoded().cloned(),
            });
        }
    };
    while let Some(batch) = reader.next() {
        let batch = match batch {
            Ok(b) => b,
            Err(e) => {
                noted(&reader);
                return Err(read(e));
            }
        };
        let rows = batch.num_rows() as u64;
        let out = align(&batch, &spec.schema, &l.id).map_err(|e| {
            external(Error::Align {
                path: l.path.clone(),
                table: spec.table.clone(),
                source: e,
            })
        })?;
        if tx.blocking_send(Ok(out)).is_err() {
            noted(&reader);
            return Ok(false);
        }
        if let Some(p) = progress {
            p.rows.fetch_add(rows, Ordering::Relaxed);
        }
    }
    noted(&reader);
    Ok(true)
}

/// Opens `l` for a scan.
fn prepare(spec: &ScanSpec, l: &LogRef) -> DfResult<Prepared> {
    reopen(&l.path, &spec.limits, &spec.key).map_err(external)
}
