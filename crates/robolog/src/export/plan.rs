//! The plan every export makes before it writes: which channels it takes
//! ([`Selection`]), which tables they make, the tables' file names and
//! time columns, and the output folder.

use std::collections::HashSet;
use std::path::Path;

use logcore::{LogReader, MessageColumn, TimeUnit};

use super::ExportError;

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

/// The file name stem of a topic's table (see the [module](super) docs).
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
pub(crate) struct FileNames {
    taken: HashSet<String>,
}

impl FileNames {
    /// `stem`, or `stem_2`, `stem_3`, ... when taken.
    pub(crate) fn assign(&mut self, stem: &str) -> String {
        let mut name = stem.to_string();
        let mut n = 1;
        while !self.taken.insert(name.to_lowercase()) {
            n += 1;
            name = format!("{stem}_{n}");
        }
        name
    }
}

/// Which time of a message a time column holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TimeSource {
    /// The log time.
    Log,
    /// The publish time.
    Publish,
}

/// A time column of a table.
pub(crate) struct TimeColumn {
    /// Its name (`time_s`, `log_time_ns`, ...).
    pub(crate) name: &'static str,
    /// The unit it is written in.
    pub(crate) unit: TimeUnit,
    /// Which time it holds.
    pub(crate) source: TimeSource,
}

/// The time columns of a log's tables: its format's own unit (see
/// [`LogReader::time_unit`]), then nanoseconds, then the publish time
/// where its messages carry one.
pub(crate) fn time_columns(log: &dyn LogReader) -> Vec<TimeColumn> {
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
