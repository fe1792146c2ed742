//! The set of logs a query reads: the logs found under the paths given,
//! each table's logs (opened for it when it is first asked for, or all at
//! once), and its schema merged across them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use arrow_schema::{Schema, SchemaRef};
use robolog_arrow::{LogRow, TableNames, TopicRow, table_in};

use crate::kept::{KeptLogs, open_all, reopen};
use crate::names::{closest, folded};
use crate::provider::{LogTable, LogsTable, logs_schema, topics_schema};
use crate::schema::{merge, with_log_column};
use crate::{Error, ScanProgress, discover};
use logcore::parallel::on_cores;

/// The name of the table of logs (one row per log).
pub use robolog_arrow::LOGS;

/// The name of the table of the logs' topics (one row per log and topic:
/// see [`topics_schema`](crate::topics_schema)).
pub use robolog_arrow::TOPICS;

/// Whether `table` is [`LOGS`] or [`TOPICS`]: a table about the logs
/// themselves, not of their messages.
pub(crate) fn about_logs(table: &str) -> bool {
    table == LOGS || table == TOPICS
}

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

/// A set of logs and their tables: every table name of any log, with a
/// schema merged across the logs that have it, plus the tables [`LOGS`]
/// and [`TOPICS`].
///
/// A set found by [`LogSet::find`] (what [`register_logs`](crate::register_logs)
/// registers) opens no log until a table is asked for: then it opens the
/// logs for that table only. [`LogSet::open`] opens every log at once for
/// its summary and the names of its tables, [`LogSet::open_for`] for some
/// tables. A table's schema is built (from the logs that have it, on all
/// cores) and merged the first time it is asked for, so a query pays only
/// for the tables it names. Cloning is cheap: clones share the logs, the
/// tables opened and the schemas built so far, and the logs kept open.
#[derive(Debug, Clone)]
pub struct LogSet {
    inner: Arc<SetInner>,
}

#[derive(Debug)]
struct SetInner {
    logs: Vec<LogRef>,
    /// The tables the set lists (`None`: every table of the logs).
    only: Option<Vec<String>>,
    /// The tables listed, once the logs were opened for all of them.
    listing: OnceLock<Listing>,
    /// Makes one thread at a time open the logs for the listing.
    listing_opened: Mutex<()>,
    /// Tables opened one name at a time (before a listing), by the name
    /// in lower case: the tables whose names are that ignoring case (one
    /// opening of the logs finds them all).
    named: Mutex<BTreeMap<String, Named>>,
    progress: Arc<ScanProgress>,
    limits: robolog::Limits,
    kept: Arc<KeptLogs>,
    /// What the readers worked around when opening the logs (see
    /// [`robolog::Log::open_warnings`]), each once.
    warnings: Mutex<Vec<(PathBuf, robolog::Error)>>,
    /// What the readers could not read when opening the logs (see
    /// [`LogSet::lost_records`]), each once.
    lost: Mutex<Vec<(PathBuf, robolog::Error)>>,
}

/// Tables of a set by name, as one opening of the logs for a name found
/// them.
type Named = Vec<(String, Arc<Entry>)>;

/// The tables of a set, with every log opened for them.
#[derive(Debug)]
struct Listing {
    tables: BTreeMap<String, Arc<Entry>>,
    /// The rows of the `logs` table, when the logs were opened for every
    /// table (else the `logs` table reads them when it is scanned).
    rows: Option<Vec<LogRow>>,
    /// Each log's rows of the `topics` table, likewise.
    topics: Option<Vec<Vec<TopicRow>>>,
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Adds each of `problems` of the log at `path` to `into`, unless it is
/// there already.
fn once_each(
    into: &mut Vec<(PathBuf, robolog::Error)>,
    path: &Path,
    problems: Vec<robolog::Error>,
) {
    for w in problems {
        let said = w.to_string();
        if !into.iter().any(|(p, x)| p == path && x.to_string() == said) {
            into.push((path.to_path_buf(), w));
        }
    }
}

impl LogSet {
    /// Finds every log under `paths` (files, and directories searched
    /// recursively: see [`find_logs`](crate::find_logs)) and opens none:
    /// the logs are opened for a table when it is first asked for (a query
    /// naming it, [`LogSet::schema`], [`LogSet::provider`]; a ULog is then
    /// read for that table's samples only), and for every table when the
    /// set's tables are listed ([`LogSet::table_names`]) or the table
    /// [`LOGS`] or [`TOPICS`] is asked for. `limits` are the resource limits for reading
    /// the logs, in every scan too.
    ///
    /// Fails when a path cannot be read or no log is found; a log that
    /// does not open fails the first question that opens it.
    pub fn find<P: AsRef<Path>>(paths: &[P], limits: robolog::Limits) -> Result<LogSet, Error> {
        LogSet::found(paths, limits, None)
    }

    /// Opens every log under `paths` (see [`LogSet::find`]) for its
    /// summary and the names of its tables, on all cores. The logs are
    /// kept open for the scans (at most 1,024 logs of 32 Mi messages in
    /// all): the first scan reading a log takes it, later ones open it
    /// again. A table's schemas are built and merged when it is first
    /// asked for ([`LogSet::schema`], a query naming it): only channel
    /// definitions are read then, except for channels whose format
    /// declares no type (read once to infer one).
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
        let set = LogSet::found(paths, limits, None)?;
        set.listing()?;
        Ok(set)
    }

    /// [`LogSet::open_with`] for a query that reads the tables `tables`
    /// only (a name no log has is left out, as by a query): the set lists
    /// no other table, and opening it costs much less. A ULog is read for
    /// the samples of those tables only (see [`robolog::OpenOptions::select`]),
    /// and the rows of [`LOGS`] and [`TOPICS`] are read only if a scan
    /// asks for them. With [`LOGS`] or [`TOPICS`] among `tables`, this is
    /// [`LogSet::open_with`].
    ///
    /// ```no_run
    /// let limits = robolog::Limits::default();
    /// let set = robolog_sql::LogSet::open_for(&["fleet/"], limits, &["vehicle_status"])?;
    /// assert!(set.table_names()?.iter().all(|t| *t == "vehicle_status"));
    /// # Ok::<(), robolog_sql::Error>(())
    /// ```
    pub fn open_for<P: AsRef<Path>, T: AsRef<str>>(
        paths: &[P],
        limits: robolog::Limits,
        tables: &[T],
    ) -> Result<LogSet, Error> {
        let tables: Vec<String> = tables.iter().map(|t| t.as_ref().to_string()).collect();
        let only = (!tables.iter().any(|t| about_logs(t))).then_some(tables);
        let set = LogSet::found(paths, limits, only)?;
        set.listing()?;
        Ok(set)
    }

    fn found<P: AsRef<Path>>(
        paths: &[P],
        limits: robolog::Limits,
        only: Option<Vec<String>>,
    ) -> Result<LogSet, Error> {
        let logs: Vec<LogRef> = discover::find_named_logs(paths)?
            .into_iter()
            .map(|(path, id)| {
                let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                LogRef { id, path, size }
            })
            .collect();
        if logs.is_empty() {
            return Err(Error::NoLogs);
        }
        Ok(LogSet {
            inner: Arc::new(SetInner {
                logs,
                only,
                listing: OnceLock::new(),
                listing_opened: Mutex::new(()),
                named: Mutex::new(BTreeMap::new()),
                progress: Arc::default(),
                limits,
                kept: Arc::default(),
                warnings: Mutex::new(Vec::new()),
                lost: Mutex::new(Vec::new()),
            }),
        })
    }

    /// The resource limits the set reads its logs with.
    pub fn limits(&self) -> robolog::Limits {
        self.inner.limits
    }

    /// The logs of the set, in the order found.
    pub fn logs(&self) -> &[LogRef] {
        &self.inner.logs
    }

    /// What the readers worked around when opening the logs so far, with
    /// the log each concerns (see [`robolog::Log::open_warnings`]: a bag
    /// without its index, read by scanning its chunks), in the logs' order
    /// for the logs opened together. The logs are read in full all the
    /// same; a tool says so.
    pub fn open_warnings(&self) -> Vec<(PathBuf, robolog::Error)> {
        lock(&self.inner.warnings).clone()
    }

    /// What the readers could not read when opening the logs so far, with
    /// the log each concerns: a truncation (the file ends inside a record)
    /// or damaged bytes skipped, as the log's summary states them
    /// ([`logcore::Error::is_recoverable`]). Unlike the
    /// [`open_warnings`](LogSet::open_warnings), these logs are not read in
    /// full: what a log lists (its tables, a ULog's subscriptions in its
    /// data) and holds may be incomplete. In the logs' order for the logs
    /// opened together.
    pub fn lost_records(&self) -> Vec<(PathBuf, robolog::Error)> {
        lock(&self.inner.lost).clone()
    }

    /// The names of the tables of the logs, sorted (without [`LOGS`] and
    /// [`TOPICS`]);
    /// opens every log for them the first time (see [`LogSet::find`]).
    /// A topic whose table name would be `logs` or `topics` is the table
    /// `logs_` or `topics_` (see [`robolog_arrow::RESERVED_TABLES`]).
    pub fn table_names(&self) -> Result<Vec<&str>, Error> {
        Ok(self.listing()?.tables.keys().map(String::as_str).collect())
    }

    /// The topic (ULog: message name) whose messages are the rows of the
    /// table called `table` in every log of the set: table names are unique
    /// per topic (see [`robolog_arrow::TableNames`]). `None` for a table
    /// no log has, and for [`LOGS`] and [`TOPICS`].
    pub fn table_key(&self, table: &str) -> Result<Option<String>, Error> {
        Ok(self.entry(table)?.map(|e| e.key.clone()))
    }

    /// Whether `table` is a table of the logs, [`LOGS`] or [`TOPICS`] (opens the logs
    /// for it, builds nothing).
    pub fn has_table(&self, table: &str) -> Result<bool, Error> {
        Ok(about_logs(table) || self.entry(table)?.is_some())
    }

    /// The names of the tables (and [`LOGS`], [`TOPICS`]) that are `name` ignoring
    /// case, `name` itself among them when it is a table; sorted. Opens
    /// the logs for those names only, as asking for `name` does (see
    /// [`LogSet::find`]); the names are those a listing of every table
    /// gives.
    ///
    /// ```
    /// let rec = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/carla/scene-0.9.13.rec");
    /// let set = robolog_sql::LogSet::find(&[rec], robolog::Limits::default())?;
    /// assert_eq!(set.tables_ignoring_case("position")?, ["Position"]);
    /// # Ok::<(), robolog_sql::Error>(())
    /// ```
    pub fn tables_ignoring_case(&self, name: &str) -> Result<Vec<String>, Error> {
        let mut names: Vec<String> = self
            .entries_ignoring_case(name)?
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        let folded = folded(name);
        if about_logs(&folded) {
            names.push(folded);
        }
        names.sort();
        Ok(names)
    }

    /// The name of the table `name` asks for: `name` when a table of the
    /// logs, [`LOGS`] or [`TOPICS`] has it, else the one table whose name differs from
    /// it only in case (SQL lower-cases names that are not quoted: `FROM
    /// Position` asks for `position`).
    ///
    /// Fails with [`Error::AmbiguousTable`] when several tables differ
    /// from `name` only in case, and with [`Error::UnknownTable`] naming
    /// the closest tables when none has it (after opening every log to
    /// list them); with a log's error when a log does not open.
    ///
    /// ```
    /// let rec = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/carla/scene-0.9.13.rec");
    /// let set = robolog_sql::LogSet::find(&[rec], robolog::Limits::default())?;
    /// assert_eq!(set.resolve_table("position")?, "Position");
    /// let e = set.resolve_table("frame_start").unwrap_err();
    /// assert!(matches!(&e, robolog_sql::Error::UnknownTable { closest, .. } if closest[0] == "FrameStart"));
    /// # Ok::<(), robolog_sql::Error>(())
    /// ```
    pub fn resolve_table(&self, name: &str) -> Result<String, Error> {
        if self.has_table(name)? {
            return Ok(name.to_string());
        }
        let mut candidates = self.tables_ignoring_case(name)?;
        match candidates.len() {
            1 => Ok(candidates.remove(0)),
            0 => {
                let mut all = self.table_names()?;
                all.extend([LOGS, TOPICS]);
                Err(Error::UnknownTable {
                    table: name.to_string(),
                    closest: closest(name, all),
                })
            }
            _ => Err(Error::AmbiguousTable {
                table: name.to_string(),
                candidates,
            }),
        }
    }

    /// The merged schema of a table (`log` first), or of [`LOGS`] or
    /// [`TOPICS`]; `None`
    /// for a table no log has. Fails with the error of a log whose table
    /// could not be built (the first in log order) or that does not open.
    pub fn schema(&self, table: &str) -> Result<Option<SchemaRef>, Error> {
        if table == LOGS {
            return Ok(Some(logs_schema()));
        }
        if table == TOPICS {
            return Ok(Some(topics_schema()));
        }
        Ok(self.merged(table)?.map(|(_, m)| m.schema))
    }

    /// Whether `table`'s schemas merged across the logs: the
    /// [`Error::Merge`] naming the first log whose table did not (or the
    /// error of building it, see [`LogSet::schema`]).
    pub fn check(&self, table: &str) -> Result<(), Error> {
        if about_logs(table) {
            return Ok(());
        }
        match self.merged(table)?.and_then(|(_, m)| m.conflict) {
            Some((path, column, reason)) => Err(Error::Merge {
                path,
                table: table.to_string(),
                column,
                reason,
            }),
            None => Ok(()),
        }
    }

    /// Makes the logs kept open for the scans (see [`LogSet::open`]) stay
    /// open after their scan, until the set and its tables are dropped,
    /// instead of each closing when its scan is done. Held logs are no
    /// more than planning held already (at most 1,024 logs of 32 Mi
    /// messages in all per opening of the logs); logs opened again by a
    /// scan are closed as before.
    ///
    /// For a program that exits once its query is answered: it can skip
    /// dropping the set (`std::mem::forget`), and the system then unmaps
    /// every log at exit at once, much faster than closing them one by
    /// one on the cores that are still scanning (the `robolog sql`
    /// command does this).
    pub fn hold_scanned_logs(&self) {
        self.inner.kept.hold();
    }

    /// How many logs [`LogSet::hold_scanned_logs`] holds now.
    pub fn held_logs(&self) -> usize {
        self.inner.kept.held()
    }

    /// The counters every scan of this set's tables updates.
    pub fn progress(&self) -> Arc<ScanProgress> {
        self.inner.progress.clone()
    }

    /// The table provider of a table of the logs; `None` for a table no
    /// log has (and for [`LOGS`] and [`TOPICS`]: see [`LogSet::logs_table`]
    /// and [`LogSet::topics_table`]). Fails as
    /// [`LogSet::schema`] does.
    pub fn provider(&self, table: &str) -> Result<Option<Arc<LogTable>>, Error> {
        let Some((entry, merged)) = self.merged(table)? else {
            return Ok(None);
        };
        let set = &self.inner;
        let logs = entry.users.iter().map(|&i| set.logs[i].clone()).collect();
        let mut t = LogTable::new(table, logs, merged.schema)
            .with_limits(set.limits)
            .with_set(set.progress.clone(), set.kept.clone());
        t.key = entry.key.clone();
        t.conflict = merged.conflict;
        Ok(Some(Arc::new(t)))
    }

    /// The table provider of [`LOGS`]. A set found by [`LogSet::find`]
    /// opens every log for it (once), as a listing of its tables does.
    pub fn logs_table(&self) -> Result<Arc<LogsTable>, Error> {
        let set = &self.inner;
        let mut t = LogsTable::new(set.logs.clone(), logs_schema())
            .with_limits(set.limits)
            .with_progress(set.progress.clone());
        if let Some(rows) = &self.listing()?.rows {
            t = t.with_rows(rows)?;
        }
        Ok(Arc::new(t))
    }

    /// The table provider of [`TOPICS`] (a row per log and topic: see
    /// [`topics_schema`](crate::topics_schema)). A set found by
    /// [`LogSet::find`] opens every log for it (once), as a listing of its
    /// tables does; its `table` column names the tables as the set does.
    pub fn topics_table(&self) -> Result<Arc<LogsTable>, Error> {
        let set = &self.inner;
        let mut t = LogsTable::topics(set.logs.clone(), topics_schema())
            .with_limits(set.limits)
            .with_progress(set.progress.clone());
        if let Some(rows) = &self.listing()?.topics {
            t = t.with_topic_rows(rows)?;
        }
        Ok(Arc::new(t))
    }

    /// The tables of every log, opening the logs for them the first time.
    fn listing(&self) -> Result<&Listing, Error> {
        if let Some(l) = self.inner.listing.get() {
            return Ok(l);
        }
        let _one = lock(&self.inner.listing_opened);
        if let Some(l) = self.inner.listing.get() {
            return Ok(l);
        }
        let only = self.inner.only.as_deref();
        let listing = self.open_tables(only, &|name| {
            only.is_none_or(|t| t.iter().any(|t| t == name))
        })?;
        Ok(self.inner.listing.get_or_init(|| listing))
    }

    /// The table called `table`: from the tables opened one name at a
    /// time, else from the listing, else opened now (for the names that
    /// are `table` ignoring case).
    fn entry(&self, table: &str) -> Result<Option<Arc<Entry>>, Error> {
        if about_logs(table) {
            return Ok(None);
        }
        Ok(self
            .entries_ignoring_case(table)?
            .into_iter()
            .find(|(n, _)| n == table)
            .map(|(_, e)| e))
    }

    /// The tables whose names are `table` ignoring case (not [`LOGS`] or
    /// [`TOPICS`]):
    /// from the tables opened one name at a time, else from the listing,
    /// else opened now for those names alone (the logs are opened for a
    /// name once, whatever its case).
    fn entries_ignoring_case(&self, table: &str) -> Result<Named, Error> {
        let want = folded(table);
        let mut named = lock(&self.inner.named);
        if let Some(e) = named.get(&want) {
            return Ok(e.clone());
        }
        if let Some(l) = self.inner.listing.get() {
            return Ok(l
                .tables
                .iter()
                .filter(|(n, _)| folded(n) == want)
                .map(|(n, e)| (n.clone(), e.clone()))
                .collect());
        }
        let entries: Named = self
            .open_tables(Some(&[table.to_string()]), &|name| folded(name) == want)?
            .tables
            .into_iter()
            .collect();
        named.insert(want, entries.clone());
        Ok(entries)
    }

    /// Opens every log for the tables `only` names, ignoring case
    /// (`None`: every table): the tables found that `keep` keeps, and the
    /// rows of the `logs` table when opened for every table.
    fn open_tables(
        &self,
        only: Option<&[String]>,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Listing, Error> {
        let set = &self.inner;
        let files: Vec<PathBuf> = set.logs.iter().map(|l| l.path.clone()).collect();
        let opened = open_all(&files, &set.limits, only, &set.kept)?;
        // One table per key across the set, each name unique (robolog-arrow
        // names a `logs` topic's table `logs_`).
        let names = TableNames::new(
            opened
                .iter()
                .flat_map(|o| o.keys.iter().map(String::as_str)),
        );
        let mut tables: BTreeMap<String, Entry> = BTreeMap::new();
        let mut rows = only.is_none().then(|| Vec::with_capacity(files.len()));
        let mut topics = only.is_none().then(|| Vec::with_capacity(files.len()));
        let mut warnings = lock(&set.warnings);
        let mut lost = lock(&set.lost);
        for (i, (path, o)) in files.into_iter().zip(opened).enumerate() {
            let row = o.row.map(|r| {
                r.with_tables(
                    o.keys
                        .iter()
                        .filter_map(|k| names.name(k).map(|n| (n, k.as_str()))),
                )
            });
            let own_topics = o.topics.map(|t| {
                t.into_iter()
                    .map(|r| r.with_names(&names))
                    .collect::<Vec<_>>()
            });
            for key in o.keys {
                let Some(name) = names.name(&key) else {
                    continue;
                };
                if !keep(name) {
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
            once_each(&mut warnings, &path, o.warnings);
            once_each(&mut lost, &path, o.lost);
            if let (Some(rows), Some(row)) = (rows.as_mut(), row) {
                rows.push(row);
            }
            if let (Some(topics), Some(own)) = (topics.as_mut(), own_topics) {
                topics.push(own);
            }
        }
        let tables = tables.into_iter().map(|(n, e)| (n, Arc::new(e))).collect();
        Ok(Listing {
            tables,
            rows,
            topics,
        })
    }

    /// The table `table` and its schema merged across its logs (built on
    /// first use), `None` when no log has it.
    fn merged(&self, table: &str) -> Result<Option<(Arc<Entry>, Merged)>, Error> {
        let Some(entry) = self.entry(table)? else {
            return Ok(None);
        };
        if let Some(m) = entry.merged.get() {
            let m = m.clone();
            return Ok(Some((entry, m)));
        }
        let merged = self.merge(&entry, table)?;
        let merged = entry.merged.get_or_init(|| merged).clone();
        Ok(Some((entry, merged)))
    }

    /// Builds `entry`'s table in each of its logs (on all cores) and
    /// merges their schemas.
    fn merge(&self, entry: &Entry, table: &str) -> Result<Merged, Error> {
        let set = &self.inner;
        let schemas = on_cores(
            entry.users.iter().collect(),
            |_| 1,
            |&i| {
                let l = &set.logs[i];
                let read = |e| Error::Read {
                    path: l.path.clone(),
                    source: e,
                };
                let prepared = match set.kept.get(&l.path, table) {
                    Some(p) => p,
                    None => Arc::new(reopen(&l.path, &set.limits, &entry.key)?),
                };
                let table =
                    table_in(&prepared.log, &prepared.summary, &entry.key, table).map_err(read)?;
                Ok(table.map(|t| t.schema()))
            },
        )
        .into_iter()
        .collect::<Result<Vec<_>, Error>>()?;
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
        Ok(merged.unwrap_or_else(|| Merged {
            schema: Arc::new(with_log_column(&Schema::empty())),
            conflict: None,
        }))
    }
}
