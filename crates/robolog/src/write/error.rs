//! Why an output is not written: the policy's [`Refusal`]s, and the
//! [`WriteError`] of a write that failed.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why an output file is not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The output resolves to the same file as an input.
    SameFile {
        /// The output as given.
        output: PathBuf,
        /// The input it resolves to.
        input: PathBuf,
    },
    /// The output exists and replacing it was not asked for.
    Exists {
        /// The output as given.
        output: PathBuf,
    },
    /// A file is to be replaced in place, but the name its original would
    /// be kept under is taken: a backup is never replaced.
    BackupExists {
        /// The backup's name.
        backup: PathBuf,
    },
    /// The output is an existing folder that only a ROS 2 bag folder may
    /// replace, even when forced, and it is not one: it holds files that
    /// are not part of a bag, or no bag metadata.
    NotABag {
        /// The output as given.
        output: PathBuf,
        /// Its first entry that is not part of a bag, and why (the text
        /// names the folder too).
        reason: String,
    },
    /// An existing file that the output must rewrite (a file of a Parquet
    /// dataset whose table gains columns or wider types) cannot be read
    /// back or is not one of the dataset's own: nothing is written.
    NotRewritable {
        /// The file.
        output: PathBuf,
        /// Why (the text names the file too).
        reason: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::SameFile { output, input } => write!(
                f,
                "the output {} is the input {} (writing it would destroy the input)",
                output.display(),
                input.display()
            ),
            Refusal::Exists { output } => {
                write!(f, "the output {} exists already", output.display())
            }
            Refusal::BackupExists { backup } => write!(
                f,
                "the backup {} of the original exists already and is never replaced; move it away first",
                backup.display()
            ),
            Refusal::NotABag { reason, .. } => f.write_str(reason),
            Refusal::NotRewritable { reason, .. } => f.write_str(reason),
        }
    }
}

impl std::error::Error for Refusal {}

/// What happened when an output could not be written.
#[derive(Debug)]
pub enum WriteError<E = io::Error> {
    /// The output was refused before anything was written.
    Refused(Refusal),
    /// Creating, syncing or renaming the file failed.
    Io(io::Error),
    /// The caller's writing function failed.
    Write(E),
}

impl<E: fmt::Display> fmt::Display for WriteError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Refused(r) => r.fmt(f),
            WriteError::Io(e) => e.fmt(f),
            WriteError::Write(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for WriteError<E> {}

impl WriteError {
    /// The same failure for a caller whose own writing errors are `E`: an
    /// I/O error of the file itself stays [`WriteError::Io`].
    pub(super) fn for_caller<E>(self) -> WriteError<E> {
        match self {
            WriteError::Refused(r) => WriteError::Refused(r),
            WriteError::Io(e) | WriteError::Write(e) => WriteError::Io(e),
        }
    }
}

impl From<WriteError<io::Error>> for io::Error {
    fn from(e: WriteError<io::Error>) -> io::Error {
        match e {
            WriteError::Refused(r @ Refusal::Exists { .. }) => {
                io::Error::new(io::ErrorKind::AlreadyExists, r)
            }
            WriteError::Refused(r) => io::Error::new(io::ErrorKind::InvalidInput, r),
            WriteError::Io(e) | WriteError::Write(e) => e,
        }
    }
}
