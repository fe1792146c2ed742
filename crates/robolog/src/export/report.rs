//! What an export did and why it failed: one set of types for every
//! table format and layout (CSV tables, `ulog2csv` files, the Parquet
//! dataset of `robolog-arrow`).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use logcore::Format;

use crate::write::{Refusal, WriteError};

/// How far an export has come, given to the progress callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Input bytes consumed so far, over all passes and logs (approximate:
    /// the position of the last message read, or the share of a log's
    /// rows written).
    pub bytes: u64,
    /// The bytes all passes over all logs will consume (it grows when a
    /// log turns out to need more passes).
    pub total_bytes: u64,
    /// Rows written so far.
    pub rows: u64,
    /// The log being written (0-based, among the inputs that were read).
    pub log: usize,
    /// The number of inputs that were read (1 for an export of one log).
    pub logs: usize,
}

/// The first message of a table that did not decode: its row is kept,
/// its value columns empty (CSV) or null (Parquet, SQL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecoded {
    /// The byte offset of the message (of its chunk, when compressed).
    pub offset: u64,
    /// Why it did not decode.
    pub reason: String,
}

impl Undecoded {
    /// The first failure of a message at `offset`.
    pub fn new(offset: Option<u64>, error: &dyn fmt::Display) -> Undecoded {
        Undecoded {
            offset: offset.unwrap_or(0),
            reason: error.to_string(),
        }
    }
}

/// One table file an export wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedTable {
    /// The table's name: the file name without its extension (CSV), the
    /// table's folder (Parquet), `logs` for the table of the logs.
    pub name: String,
    /// The topic whose messages are its rows (ULog: the message name;
    /// empty for the `logs` table).
    pub topic: String,
    /// The message type names of its channels, comma-separated.
    pub type_name: String,
    /// The file.
    pub path: PathBuf,
    /// Rows written (messages).
    pub rows: u64,
    /// Columns, the time columns included.
    pub columns: usize,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Damaged records of the table, left out.
    pub skipped: u64,
    /// Messages that did not decode: rows whose value columns are empty
    /// or null.
    pub undecoded: u64,
    /// The first of the [`undecoded`](Self::undecoded) messages.
    pub first_undecoded: Option<Undecoded>,
    /// `true` when no message of the table decoded and the payloads were
    /// written as raw bytes (CSV: the columns `data[0]`, ...).
    pub raw: bool,
    /// Whether the table's types were inferred from its values (the
    /// format declares none).
    pub inferred: bool,
}

impl ExportedTable {
    /// A table of `rows` rows and `columns` columns written to `path`,
    /// nothing skipped or undecoded.
    pub fn new(name: &str, topic: &str, type_name: &str, path: &Path) -> ExportedTable {
        ExportedTable {
            name: name.to_string(),
            topic: topic.to_string(),
            type_name: type_name.to_string(),
            path: path.to_path_buf(),
            rows: 0,
            columns: 0,
            bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
            skipped: 0,
            undecoded: 0,
            first_undecoded: None,
            raw: false,
            inferred: false,
        }
    }
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
    pub error: Box<dyn std::error::Error + Send + Sync>,
}

/// What an export did with one log.
#[derive(Debug)]
pub struct ExportedLog {
    /// The input as given.
    pub path: PathBuf,
    /// Its log id: its file name (Parquet: the `log=` partition value,
    /// unescaped, unique among the inputs).
    pub log_id: String,
    /// Its format.
    pub format: Format,
    /// The table files written (CSV: in channel order, `ulog2csv`: in its
    /// order; Parquet: in the order of `robolog_arrow::tables`).
    pub tables: Vec<ExportedTable>,
    /// The file of the log's row of the `logs` table, where the layout
    /// has one (Parquet), written after its tables.
    pub logs: Option<ExportedTable>,
    /// Tables that could not be written.
    pub failed: Vec<FailedTable>,
    /// Files of an earlier export of this log that this one replaced by
    /// removing them (Parquet, forced, no topic selection).
    pub removed: Vec<PathBuf>,
    /// Damaged records skipped, and other problems of the input.
    pub problems: Vec<logcore::Error>,
}

impl ExportedLog {
    /// An export of the log at `path` in `format` that wrote nothing yet.
    pub fn new(path: &Path, log_id: &str, format: Format) -> ExportedLog {
        ExportedLog {
            path: path.to_path_buf(),
            log_id: log_id.to_string(),
            format,
            tables: Vec::new(),
            logs: None,
            failed: Vec::new(),
            removed: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Whether the log was read and written without problems, skipped or
    /// undecoded messages or failed tables.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
            && self.failed.is_empty()
            && self
                .tables
                .iter()
                .all(|t| t.skipped == 0 && t.undecoded == 0)
    }

    /// Rows written to table files (the `logs` rows not counted).
    pub fn rows(&self) -> u64 {
        self.tables.iter().map(|t| t.rows).sum()
    }
}

/// An input that could not be opened or summarised: nothing of it was
/// written.
#[derive(Debug)]
pub struct Unread {
    /// The input as given.
    pub path: PathBuf,
    /// What went wrong.
    pub error: logcore::Error,
}

/// What an export of several logs did.
#[derive(Debug, Default)]
pub struct Exported {
    /// Per input that was read, in order.
    pub logs: Vec<ExportedLog>,
    /// The inputs that could not be opened or summarised, in order.
    pub unread: Vec<Unread>,
    /// Files of other logs already in the output that the export rewrote
    /// before writing its own (Parquet: a table's files widened to the
    /// columns and types the export adds to the table), with their rows
    /// and columns after the rewrite.
    pub rewritten: Vec<ExportedTable>,
}

impl Exported {
    /// Whether every input was read and every log is
    /// [clean](ExportedLog::is_clean).
    pub fn is_clean(&self) -> bool {
        self.unread.is_empty() && self.logs.iter().all(ExportedLog::is_clean)
    }

    /// Rows written to table files (the `logs` rows not counted).
    pub fn rows(&self) -> u64 {
        self.logs.iter().map(ExportedLog::rows).sum()
    }
}

/// Why an export failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ExportError {
    /// A topic (or table name) asked for is in none of the logs.
    UnknownTopic {
        /// The topic asked for.
        topic: String,
        /// The topics of the logs, each once, in order of first
        /// appearance.
        topics: Vec<String>,
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
    /// An input could not be read while it was written.
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
            ExportError::UnknownTopic { topic, topics } => write!(
                f,
                "no topic or table {topic:?} in the logs read; their topics: {}",
                topics.join(", ")
            ),
            ExportError::NotAFolder(p) => write!(f, "{} exists and is not a folder", p.display()),
            ExportError::Refused(r) => r.fmt(f),
            ExportError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ExportError::Read { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for ExportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExportError::Refused(r) => Some(r),
            ExportError::Io { error, .. } => Some(error),
            ExportError::Read { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl ExportError {
    /// [`ExportError::Io`] at `path`.
    pub fn io(path: &Path) -> impl FnOnce(io::Error) -> ExportError + '_ {
        move |error| ExportError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    /// [`ExportError::Read`] of the input `path`.
    pub fn read(path: &Path) -> impl FnOnce(logcore::Error) -> ExportError + '_ {
        move |error| ExportError::Read {
            path: path.to_path_buf(),
            error,
        }
    }

    /// A failure to create, write or commit the output `path`: a refusal
    /// is [`ExportError::Refused`], anything else [`ExportError::Io`].
    pub fn write(path: &Path) -> impl FnOnce(WriteError) -> ExportError + '_ {
        move |e| match e {
            WriteError::Refused(r) => ExportError::Refused(r),
            WriteError::Io(error) | WriteError::Write(error) => ExportError::Io {
                path: path.to_path_buf(),
                error,
            },
        }
    }
}
