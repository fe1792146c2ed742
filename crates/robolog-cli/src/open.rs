//! Opening a file through the `robolog` library.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use logcore::{Error, FileBytes, Format};
use robolog::Log;

use crate::Failure;

/// The resource limits of this run (`--max-chunk-size`, `--max-nesting`),
/// set once by `main`.
static LIMITS: OnceLock<robolog::Limits> = OnceLock::new();

/// Sets the limits every reader of this run applies.
pub(crate) fn set_limits(limits: robolog::Limits) {
    let _ = LIMITS.set(limits);
}

/// The limits of this run (the library's defaults unless set).
pub(crate) fn limits() -> robolog::Limits {
    LIMITS.get().copied().unwrap_or_default()
}

/// [`limits`] as a bag reader's.
pub(crate) fn bag_limits() -> rosbag12::Limits {
    limits()
}

/// [`limits`] as an MCAP reader's.
pub(crate) fn mcap_limits() -> mcapfile::Limits {
    limits()
}

/// A file's bytes and its detected format.
pub(crate) struct Opened {
    pub(crate) bytes: FileBytes,
    pub(crate) format: Format,
}

/// Maps `path` and recognises its format by its magic bytes.
pub(crate) fn open_file(path: &Path) -> Result<Opened, Failure> {
    let bytes = FileBytes::open(path).map_err(|e| Failure::new(path, e))?;
    let format = robolog::detect(&bytes).map_err(|e| Failure::new(path, e))?;
    Ok(Opened { bytes, format })
}

/// Opens `path` as a [`Log`], reporting what its reader had to work
/// around (see [`note_opened`]).
pub(crate) fn open(path: &Path) -> Result<Log<'static>, Failure> {
    let log = robolog::OpenOptions::new()
        .limits(limits())
        .open(path)
        .map_err(|e| Failure::new(path, e))?;
    note_opened(path, &log.open_warnings());
    Ok(log)
}

/// The lines said on stderr in this run, per file: each is said once.
static SAID: Mutex<Option<HashSet<(PathBuf, String)>>> = Mutex::new(None);

/// Whether an input was read although damaged ([`note_opened`]).
static DAMAGED: AtomicBool = AtomicBool::new(false);

/// Prints `robolog: PATH: TEXT` on stderr unless this run said it already.
pub(crate) fn say_once(path: &Path, text: &str) {
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if said
        .get_or_insert_with(HashSet::new)
        .insert((path.to_path_buf(), text.to_string()))
    {
        eprintln!("robolog: {}: {text}", path.display());
    }
}

/// The one rule for an input read in spite of damage found when opening
/// it (a bag without its index, read by scanning its chunks: see
/// [`robolog::Log::open_warnings`]), whatever the command: each problem
/// is one stderr line, once per file per run, and the exit code is 1.
pub(crate) fn note_opened<'a>(path: &Path, warnings: impl IntoIterator<Item = &'a Error>) {
    for w in warnings {
        say_once(path, &w.to_string());
        DAMAGED.store(true, Ordering::Relaxed);
    }
}

/// Whether [`note_opened`] reported a damaged input in this run.
pub(crate) fn noted_damage() -> bool {
    DAMAGED.load(Ordering::Relaxed)
}

/// Opens `path` as a [`Log`] that must be of `format`.
pub(crate) fn open_as(path: &Path, format: Format) -> Result<Log<'static>, Failure> {
    robolog::OpenOptions::new()
        .format(format)
        .limits(limits())
        .open(path)
        .map_err(|e| Failure::new(path, e))
}
