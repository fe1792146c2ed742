//! The crate's error type.
//!
//! Every error names the file it is about and, where the format has
//! one, the place in it: a byte offset (MCAP, the SQLite header), a row
//! of the `messages` table, a line and column of `metadata.yaml`, and
//! what was expected there. The cases every format shares are
//! [`logcore::Error`]; [`Error`] adds the bag's own and gets the shared
//! constructors from [`FormatError`].

use std::path::PathBuf;
use std::sync::Arc;

pub use logcore::FormatError;

use crate::metadata::MetadataError;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong opening or reading a bag.
///
/// ```
/// let e = rosbag2::Bag2::open("/nonexistent/bag").unwrap_err();
/// assert!(e.to_string().contains("/nonexistent/bag"), "{e}");
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The cases every format crate shares (a malformed or truncated
    /// record at a byte offset, an unsupported feature, I/O).
    #[error(transparent)]
    Core(#[from] logcore::Error),
    /// An I/O error on a named file or folder.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error (shared, so the error clones).
        source: Arc<std::io::Error>,
    },
    /// `metadata.yaml` is not what rosbag2 writes.
    #[error("{}: {source}", file.display())]
    Metadata {
        /// The metadata file.
        file: PathBuf,
        /// What is wrong, with its line or field.
        source: MetadataError,
    },
    /// A storage file named by the metadata that could lead outside the
    /// bag folder (absolute, with `..`, or a link out of it).
    #[error("{}: storage file `{entry}` (in `{field}`) is refused: {reason}", metadata.display())]
    UnsafePath {
        /// The metadata file.
        metadata: PathBuf,
        /// The field naming it (`relative_file_paths`, `files`).
        field: &'static str,
        /// The entry as written.
        entry: String,
        /// Why it is refused.
        reason: String,
    },
    /// A storage file the metadata names does not exist.
    #[error("storage file {} does not exist (named in {})", path.display(), metadata.display())]
    MissingFile {
        /// The file that is missing.
        path: PathBuf,
        /// The metadata file naming it.
        metadata: PathBuf,
    },
    /// A file that should be SQLite (a `.db3`) is not.
    #[error("{}: at byte 0: expected the SQLite header `SQLite format 3\\0`, found {found}", file.display())]
    NotSqlite {
        /// The file.
        file: PathBuf,
        /// Its first bytes, as hex.
        found: String,
    },
    /// SQLite refused a query on a storage file (a damaged database, a
    /// schema rosbag2 never wrote).
    #[error("{}: {what}: {reason}", file.display())]
    Sqlite {
        /// The storage file.
        file: PathBuf,
        /// What was being read.
        what: String,
        /// SQLite's message.
        reason: String,
    },
    /// A row of a storage file's table is not what rosbag2 writes.
    #[error("{}: row {row} of `{table}`: expected {expected}, found {found}", file.display())]
    Row {
        /// The storage file.
        file: PathBuf,
        /// The table.
        table: &'static str,
        /// The row's `id`.
        row: i64,
        /// What the format requires.
        expected: String,
        /// What is there.
        found: String,
    },
    /// Messages of a storage file on a topic id that no topic of the
    /// file declares (they are not read).
    #[error(
        "{}: {count} message{} of the table `messages` {} topic_id {topic_id}, which no row of \
         the table `topics` has; {} not read",
        file.display(),
        if *count == 1 { "" } else { "s" },
        if *count == 1 { "has" } else { "have" },
        if *count == 1 { "it is" } else { "they are" }
    )]
    Orphans {
        /// The storage file.
        file: PathBuf,
        /// The topic id of the messages.
        topic_id: i64,
        /// How many messages have it.
        count: u64,
    },
    /// A bag cannot be written as asked ([`crate::Bag2Writer`]): an
    /// existing target, an unknown topic, a time the storage cannot keep.
    #[error("{}: cannot write the bag: {reason}", path.display())]
    Write {
        /// The bag folder or storage file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// An error of an MCAP storage file, whose byte offsets are in it.
    #[error("{}: {source}", file.display())]
    InFile {
        /// The storage file.
        file: PathBuf,
        /// The error, with its byte offset.
        source: logcore::Error,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, e: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source: Arc::new(e),
        }
    }

    pub(crate) fn sqlite(
        file: &std::path::Path,
        what: impl Into<String>,
        e: rusqlite::Error,
    ) -> Self {
        Error::Sqlite {
            file: file.to_path_buf(),
            what: what.into(),
            reason: e.to_string(),
        }
    }
}

impl FormatError for Error {
    fn core(&self) -> Option<&logcore::Error> {
        match self {
            Error::Core(e) => Some(e),
            _ => None,
        }
    }

    fn own_offset(&self) -> Option<u64> {
        match self {
            Error::NotSqlite { .. } => Some(0),
            Error::InFile { source, .. } => source.offset(),
            _ => None,
        }
    }
}

impl From<Error> for logcore::Error {
    /// The shared cases stay as they are; an MCAP storage file's error
    /// keeps its offset, with the file named in the text; the others
    /// become I/O errors carrying the full message (`NotFound` for a
    /// missing file, `InvalidData` for content that is not a bag).
    fn from(e: Error) -> Self {
        use std::io::ErrorKind;
        let kind = match &e {
            Error::Core(c) => return c.clone(),
            Error::Io { source, .. } => source.kind(),
            Error::MissingFile { .. } => ErrorKind::NotFound,
            Error::Write { .. } => ErrorKind::InvalidInput,
            Error::NotSqlite { file, found } => {
                return logcore::Error::malformed(
                    0,
                    format!(
                        "the SQLite header `SQLite format 3\\0` of {}",
                        file.display()
                    ),
                    found.clone(),
                );
            }
            Error::InFile { file, source } => {
                return match source {
                    logcore::Error::Malformed {
                        offset,
                        expected,
                        found,
                    } => logcore::Error::malformed(
                        *offset,
                        format!("{expected} (in {})", file.display()),
                        found.clone(),
                    ),
                    other => other.clone(),
                };
            }
            _ => ErrorKind::InvalidData,
        };
        logcore::Error::Io(Arc::new(std::io::Error::new(kind, e.to_string())))
    }
}
