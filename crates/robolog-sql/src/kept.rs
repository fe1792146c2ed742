//! Opening the logs of a set, and the logs kept open from planning for
//! the scans (so that a log is parsed once per query), within a budget.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use logcore::LogReader;
use robolog_arrow::{LogRow, TopicRow, may_name};

use crate::Error;
use crate::names::{folded, may_name_ignoring_case};
use logcore::parallel::on_cores;

/// How many messages the logs one opening of a set's tables keeps open
/// for the scans may have in all (their indexes stay in memory until a
/// scan reads them: a few bytes a message). Logs past this, or past
/// [`KEEP_OPEN_LOGS`], are opened again by the scan that reads them.
pub(crate) const KEEP_OPEN_MESSAGES: u64 = 32 << 20;

/// How many logs one opening of a set's tables keeps open for the scans
/// at most (each holds its definitions and tables, some hundreds of KiB
/// for a PX4 log).
pub(crate) const KEEP_OPEN_LOGS: u64 = 1024;

/// A log opened while its set was planned, with its summary, kept so that
/// the first scan reading it does not parse it again. Its tables are not
/// kept (they take far more memory than the summary); a scan builds the
/// one it reads.
pub(crate) struct Prepared {
    pub(crate) log: robolog::Log<'static>,
    pub(crate) summary: logcore::Summary,
    /// The tables it was opened for (`None`: every table). A ULog opened
    /// for some tables indexes only their samples.
    only: Option<Vec<String>>,
}

impl Prepared {
    /// Whether the log was opened for `table` (the logs are opened for
    /// a name ignoring case).
    fn serves(&self, table: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|t| t.iter().any(|t| folded(t) == folded(table)))
    }
}

/// Logs opened while planning, kept (within [`KEEP_OPEN_MESSAGES`]) until
/// a scan takes them.
#[derive(Default)]
pub(crate) struct KeptLogs {
    /// Per path, the openings of the log not taken yet.
    logs: Mutex<HashMap<PathBuf, Vec<Arc<Prepared>>>>,
    /// Whether the logs scans took are held in `scanned` (see
    /// [`LogSet::hold_scanned_logs`](crate::LogSet::hold_scanned_logs))
    /// rather than closed.
    hold: AtomicBool,
    /// The logs scans took, while `hold` is set.
    scanned: Mutex<Vec<Arc<Prepared>>>,
}

impl fmt::Debug for KeptLogs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self
            .logs
            .lock()
            .map_or(0, |m| m.values().map(Vec::len).sum());
        f.debug_struct("KeptLogs")
            .field("logs", &n)
            .field("held", &self.held())
            .finish()
    }
}

impl KeptLogs {
    /// Keeps `log`, opened from `path`.
    fn keep(&self, path: &Path, log: Arc<Prepared>) {
        if let Ok(mut map) = self.logs.lock() {
            map.entry(path.to_path_buf()).or_default().push(log);
        }
    }

    /// The log at `path`, opened for `table`, if it is still kept; it is
    /// not kept any more (a later scan opens it again), so memory goes
    /// down as scans go on (unless the set holds scanned logs).
    pub(crate) fn take(&self, path: &Path, table: &str) -> Option<Arc<Prepared>> {
        let mut map = self.logs.lock().ok()?;
        let kept = map.get_mut(path)?;
        let i = kept.iter().position(|p| p.serves(table))?;
        let log = kept.swap_remove(i);
        if kept.is_empty() {
            map.remove(path);
        }
        Some(log)
    }

    /// Done with `log`, a log [`KeptLogs::take`] gave: held while the set
    /// holds scanned logs, else dropped (closed) here.
    pub(crate) fn done(&self, log: Arc<Prepared>) {
        if self.hold.load(Ordering::Relaxed)
            && let Ok(mut held) = self.scanned.lock()
        {
            held.push(log);
        }
    }

    /// The log at `path`, opened for `table`, if it is still kept, staying
    /// kept.
    pub(crate) fn get(&self, path: &Path, table: &str) -> Option<Arc<Prepared>> {
        let map = self.logs.lock().ok()?;
        map.get(path)?.iter().find(|p| p.serves(table)).cloned()
    }

    /// Holds the logs scans take from now on, until the set is dropped.
    pub(crate) fn hold(&self) {
        self.hold.store(true, Ordering::Relaxed);
    }

    /// How many logs are held.
    pub(crate) fn held(&self) -> usize {
        self.scanned.lock().map_or(0, |h| h.len())
    }
}

/// What is left of the keep-open budget while logs are opened.
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

/// What opening one log found.
pub(crate) struct Opened {
    /// Its row of the `logs` table, when it was opened for every table.
    pub(crate) row: Option<LogRow>,
    /// Its rows of the `topics` table (their tables named by their keys'
    /// base names), when it was opened for every table.
    pub(crate) topics: Option<Vec<TopicRow>>,
    /// The keys of its tables (topics, ULog message names: see
    /// [`robolog_arrow::table_key`]).
    pub(crate) keys: Vec<String>,
    /// [`robolog::Log::open_warnings`] of the log.
    pub(crate) warnings: Vec<robolog::Error>,
    /// What the reader could not read (see [`lost_records`]).
    pub(crate) lost: Vec<robolog::Error>,
}

/// The problems of a log's `summary` that lost records: a truncation or
/// damaged bytes skipped ([`logcore::Error::is_recoverable`]). What a
/// reader only worked around, reading every record (the log's
/// [`open_warnings`](robolog::Log::open_warnings), such as a bag's index
/// rebuilt by scanning), is none of these.
pub(crate) fn lost_records(summary: &logcore::Summary) -> Vec<robolog::Error> {
    summary
        .warnings
        .iter()
        .filter(|w| w.is_recoverable())
        .cloned()
        .collect()
}

/// Opens the logs at `files` on all cores, for every table or for the
/// tables `only` names, keeping their order (the first error, in that
/// order, wins). The logs the budget allows are kept in `kept`.
pub(crate) fn open_all(
    files: &[PathBuf],
    limits: &robolog::Limits,
    only: Option<&[String]>,
    kept: &KeptLogs,
) -> Result<Vec<Opened>, Error> {
    let budget = Budget::new(KEEP_OPEN_MESSAGES, KEEP_OPEN_LOGS);
    // On all cores, in the files' order: the first error in that order
    // wins.
    on_cores(
        files.iter().collect(),
        |_| 1,
        |p| open_one(p, limits, &budget, only, kept),
    )
    .into_iter()
    .collect()
}

/// Opens the log at `path`: for every table, or for the tables `only`
/// names, ignoring case (a ULog then indexes only their samples).
fn open_one(
    path: &Path,
    limits: &robolog::Limits,
    budget: &Budget,
    only: Option<&[String]>,
    kept: &KeptLogs,
) -> Result<Opened, Error> {
    let open = |e| Error::Open {
        path: path.to_path_buf(),
        source: e,
    };
    let mut options = robolog::OpenOptions::new().limits(*limits);
    if let Some(t) = only {
        let tables = t.to_vec();
        options = options.select(move |n| tables.iter().any(|t| may_name_ignoring_case(n, t)));
    }
    let log = options.open(path).map_err(open)?;
    let summary = log.summary().map_err(open)?;
    let mut keys: Vec<String> = Vec::new();
    for c in &summary.channels {
        let key = log.table_key(&c.info);
        if !keys.iter().any(|k| k == key)
            && only.is_none_or(|t| t.iter().any(|t| may_name_ignoring_case(key, t)))
        {
            keys.push(key.to_string());
        }
    }
    let opened = Opened {
        row: only
            .is_none()
            .then(|| LogRow::new(&summary, &path.to_string_lossy())),
        topics: only
            .is_none()
            .then(|| TopicRow::rows(&summary, |c| log.table_key(c))),
        keys,
        warnings: log.open_warnings(),
        lost: lost_records(&summary),
    };
    if budget.take(summary.message_count) {
        let only = only.map(<[String]>::to_vec);
        kept.keep(path, Arc::new(Prepared { log, summary, only }));
    }
    Ok(opened)
}

/// Opens `path` again for the schema or a scan of its table of `key` (a
/// ULog is read for that table's samples only).
pub(crate) fn reopen(path: &Path, limits: &robolog::Limits, key: &str) -> Result<Prepared, Error> {
    let open = |e| Error::Open {
        path: path.to_path_buf(),
        source: e,
    };
    let wanted = key.to_string();
    let log = robolog::OpenOptions::new()
        .limits(*limits)
        .select(move |n| n == wanted || may_name(n, &wanted))
        .open(path)
        .map_err(open)?;
    let summary = log.summary().map_err(open)?;
    Ok(Prepared {
        log,
        summary,
        only: Some(Vec::new()),
    })
}
