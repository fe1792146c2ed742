//! The plan every export makes before it writes: which channels it takes
//! ([`Selection`]), which tables they make, the tables' file names and
//! time columns, and the output folder.

use std::collections::HashSet;
use std::path::Path;

use logcore::{LogReader, MessageColumn, TimeUnit};

use super::{ColumnKind, ExportError};

/// Which channels an export takes: those whose topic, or whose table's
/// name, is one of the topics asked for; every channel when none was
/// asked for. It records which were found, so that one asked for that no
/// channel has is [`ExportError::UnknownTopic`].
///
/// ```
/// use robolog::export::Selection;
/// let mut s = Selection::new(&["/imu".to_string(), "gps".to_string()]);
/// assert!(s.selects("/imu", "imu"));
/// assert!(s.selects("/gps", "gps"));
/// assert!(!s.selects("/odom", "odom"));
/// assert!(s.check(["/imu", "/gps", "/odom"]).is_ok());
/// let mut t = Selection::new(&["/cam".to_string()]);
/// assert!(!t.selects("/imu", "imu"));
/// assert!(t.check(["/imu"]).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Selection {
    wanted: Vec<String>,
    found: Vec<bool>,
}

impl Selection {
    /// The channels of `topics` (topics as `robolog info` lists them, or
    /// table names); all channels when `topics` is empty.
    pub fn new(topics: &[String]) -> Selection {
        Selection {
            wanted: topics.to_vec(),
            found: vec![false; topics.len()],
        }
    }

    /// Whether every channel is taken.
    pub fn is_all(&self) -> bool {
        self.wanted.is_empty()
    }

    /// Whether the channel of `topic`, in the table called `table`, is
    /// taken; records the topic asked for that takes it.
    pub fn selects(&mut self, topic: &str, table: &str) -> bool {
        if self.wanted.is_empty() {
            return true;
        }
        match self.wanted.iter().position(|t| t == topic || t == table) {
            Some(k) => {
                self.found[k] = true;
                true
            }
            None => false,
        }
    }

    /// Whether the channel of `topic` in the table `table` is taken, not
    /// recording it.
    pub fn contains(&self, topic: &str, table: &str) -> bool {
        self.wanted.is_empty() || self.wanted.iter().any(|t| t == topic || t == table)
    }

    /// [`ExportError::UnknownTopic`] for the first topic asked for that no
    /// channel had, naming `topics` (the inputs' topics) once each.
    pub fn check<'a>(&self, topics: impl IntoIterator<Item = &'a str>) -> Result<(), ExportError> {
        let Some(k) = self.found.iter().position(|f| !f) else {
            return Ok(());
        };
        let mut known: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        for t in topics {
            if seen.insert(t) {
                known.push(t.to_string());
            }
        }
        Err(ExportError::UnknownTopic {
            topic: self.wanted[k].clone(),
            topics: known,
        })
    }
}

/// Creates `dir` (and its parents) when missing; [`ExportError::NotAFolder`]
/// when it is something else.
pub(crate) fn prepare_folder(dir: &Path) -> Result<(), ExportError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(ExportError::NotAFolder(dir.to_path_buf())),
        Err(_) => std::fs::create_dir_all(dir).map_err(ExportError::io(dir)),
    }
}

/// What a column of a table's message facts holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MetaSource {
    /// The log time.
    LogTime,
    /// The publish time.
    PublishTime,
    /// The instance of the message's channel (ULog's `multi_id`).
    MultiId,
}

/// A column of a table that holds a fact of its messages rather than a
/// part of their values: a time, the channel's instance.
pub(crate) struct MetaColumn {
    /// Its name (`time_s`, `log_time_ns`, `multi_id`, ...).
    pub(crate) name: &'static str,
    /// What its cells are.
    pub(crate) kind: ColumnKind,
    /// What it holds.
    pub(crate) source: MetaSource,
}

/// The columns of a log's tables before their values': the log time in
/// its format's own unit (see [`LogReader::time_unit`]), then in
/// nanoseconds, then the publish time where its messages carry one, then
/// the channel's instance where its messages come from several (see
/// [`LogReader::message_columns`]).
pub(crate) fn meta_columns(log: &dyn LogReader) -> Vec<MetaColumn> {
    let mc = |name, kind, source| MetaColumn { name, kind, source };
    let mut columns = Vec::new();
    let native = log.time_unit();
    let name = match native {
        TimeUnit::Seconds => Some("time_s"),
        TimeUnit::Milliseconds => Some("time_ms"),
        TimeUnit::Microseconds => Some("time_us"),
        TimeUnit::Nanoseconds => None,
    };
    if let Some(name) = name {
        columns.push(mc(name, ColumnKind::Time(native), MetaSource::LogTime));
    }
    let ns = ColumnKind::Time(TimeUnit::Nanoseconds);
    columns.push(mc("log_time_ns", ns, MetaSource::LogTime));
    let has = log.message_columns();
    if has.contains(&MessageColumn::PublishTime) {
        columns.push(mc("publish_time_ns", ns, MetaSource::PublishTime));
    }
    if has.contains(&MessageColumn::MultiId) {
        columns.push(mc("multi_id", ColumnKind::UInt, MetaSource::MultiId));
    }
    columns
}
