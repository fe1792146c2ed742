//! Output files: every command that writes one goes through
//! [`robolog::write`] (temporary file renamed into place when complete,
//! the input and, without `--force`, an existing file refused). Before an
//! output is written, the temporary files that interrupted runs left for
//! it are named on stderr with how to recover them; they are never
//! deleted, except those that are empty and whose process is known to be
//! gone, which hold nothing and are removed silently.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use robolog::write::{
    AtomicFile, Leftover, OutputPolicy, Refusal, WriteError, leftovers_in, remove_if_empty,
    write_atomically,
};

use crate::{Cause, Failure};

/// The failure of a write: a refusal (exit code 2) or an error on `dest`.
pub(crate) fn failed<E: Into<Cause>>(dest: &Path, e: WriteError<E>) -> Failure {
    match e {
        WriteError::Refused(r) => refused(r),
        WriteError::Io(e) => Failure::new(dest, e),
        WriteError::Write(e) => Failure::new(dest, e),
    }
}

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
        Refusal::NotABag { output, reason } => (output.clone(), reason.clone()),
        Refusal::NotRewritable { output, reason } => (output.clone(), reason.clone()),
    };
    Failure::usage(&path, msg)
}

/// Refuses `dest` before any work is done when `policy` would, after
/// naming what interrupted runs left for it.
pub(crate) fn check(dest: &Path, policy: &OutputPolicy) -> Result<(), Failure> {
    report_leftovers(dest);
    policy.check(dest).map_err(refused)
}

/// Names on stderr, once per output, each temporary file an interrupted
/// run writing `dest` left (see [`leftovers`]), with how to get its
/// messages back. Those that are empty and whose process is known to be
/// gone hold nothing: they are removed without a word (see
/// [`remove_empty_leftovers`]).
pub(crate) fn report_leftovers(dest: &Path) {
    // Each folder is listed once per run, however many outputs go there.
    type Found = HashMap<PathBuf, Vec<Leftover>>;
    static FOLDERS: Mutex<BTreeMap<PathBuf, Found>> = Mutex::new(BTreeMap::new());
    let (Some(name), Ok(mut folders)) = (dest.file_name(), FOLDERS.lock()) else {
        return;
    };
    let folder = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let found = folders.entry(folder.to_path_buf()).or_insert_with(|| {
        let mut by_output: Found = HashMap::new();
        for (output, left) in leftovers_in(folder) {
            by_output.entry(output).or_default().push(left);
        }
        by_output
    });
    // Once per output: taken out of the listing when reported.
    for mut left in found.remove(Path::new(name)).unwrap_or_default() {
        // Named as the output was given.
        left.path = dest.with_file_name(left.path.file_name().unwrap_or_default());
        if !remove_if_empty(&left) {
            crate::shown::say!("robolog: {}: {}", dest.display(), leftover_note(&left));
        }
    }
}

/// Names on stderr, once per run, the temporary copies that readers of
/// killed runs left in the system's temporary folder (see
/// [`robolog::write::temporary_copy_leftovers`]), with the command that
/// removes them: they are copies of inputs only, and may be large.
pub(crate) fn report_temporary_copies() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        for left in robolog::write::temporary_copy_leftovers() {
            crate::shown::say!(
                "robolog: {} holds temporary copies that an interrupted run (process {}) made \
                 of a ROS 2 bag it read; they are copies only: delete them with `rm -r {}`",
                left.path.display(),
                left.pid,
                left.path.display()
            );
        }
    });
}

/// What to say about a leftover temporary file: whose it is, that it is
/// kept, and the command that reads what it holds.
fn leftover_note(left: &Leftover) -> String {
    let temp = left.path.display();
    if left.path.is_dir() {
        // The first storage file it holds, read alone.
        let mut files: Vec<PathBuf> = std::fs::read_dir(&left.path)
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            let n = n.trim_end_matches(".zstd");
            n.ends_with(".db3") || n.ends_with(".mcap")
        });
        files.sort();
        let read = match files.first() {
            Some(f) => format!(
                "read each of its storage files alone (`robolog info {}`), then ",
                f.display()
            ),
            None => String::new(),
        };
        return format!(
            "{temp} was left by an interrupted run (process {}) and holds the storage files of \
             the bag it had written; it is kept: {read}delete it with `rm -r {temp}`",
            left.pid
        );
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(&left.path)
        .and_then(|f| f.take(16).read(&mut head))
        .unwrap_or(0);
    let recover = match &head[..n] {
        h if h.starts_with(b"\x89MCAP") => {
            format!("recover its messages with `robolog mcap recover {temp} OUT.mcap`")
        }
        h if h.starts_with(b"#ROSBAG V") => {
            format!("recover its messages with `robolog bag reindex {temp} -o OUT.bag`")
        }
        [] => "it is empty, delete it".to_string(),
        _ => "look at it, then delete it".to_string(),
    };
    format!(
        "{temp} was left by an interrupted run (process {}) and holds the incomplete output \
         it had written; it is kept: {recover}",
        left.pid
    )
}

/// Writes `dest` atomically with `write`; its errors are reported on
/// `dest`.
pub(crate) fn write_output<T, E: Into<Cause>>(
    dest: &Path,
    policy: &OutputPolicy,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, E>,
) -> Result<T, Failure> {
    report_leftovers(dest);
    write_atomically(dest, policy, write).map_err(|e| failed(dest, e))
}
