//! Output files: every command that writes one goes through
//! [`robolog::write`] (temporary file renamed into place when complete,
//! the input and, without `--force`, an existing file refused).

use std::path::Path;

use robolog::write::{AtomicFile, OutputPolicy, Refusal, WriteError, write_atomically};

/// The failure of a write: a refusal (exit code 2) or an error on `dest`.
pub(crate) fn failed<E: Into<logcore::Error>>(dest: &Path, e: WriteError<E>) -> Failure {
    match e {
        WriteError::Refused(r) => refused(r),
        WriteError::Io(e) => Failure::new(dest, e),
        WriteError::Write(e) => Failure::new(dest, e),
    }
}

use crate::Failure;

/// The failure for a refused output: exit code 2 and a message that names
/// the file and what to do.
pub(crate) fn refused(r: Refusal) -> Failure {
    let (path, msg) = match &r {
        Refusal::SameFile { output, .. } => (output.clone(), r.to_string()),
        Refusal::Exists { output } => (
            output.clone(),
            format!("{r}; not replaced (use --force to replace it)"),
        ),
        Refusal::BackupExists { backup } => (
            backup.clone(),
            "the backup of the original exists already and is never replaced; move it away first"
                .to_string(),
        ),
    };
    Failure::usage(&path, std::io::Error::other(msg))
}

/// Refuses `dest` before any work is done when `policy` would.
pub(crate) fn check(dest: &Path, policy: &OutputPolicy) -> Result<(), Failure> {
    policy.check(dest).map_err(refused)
}

/// Writes `dest` atomically with `write`; its errors are reported on
/// `dest`.
pub(crate) fn write_output<T, E: Into<logcore::Error>>(
    dest: &Path,
    policy: &OutputPolicy,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, E>,
) -> Result<T, Failure> {
    write_atomically(dest, policy, write).map_err(|e| failed(dest, e))
}
