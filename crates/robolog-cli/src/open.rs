//! Opening a file through the `robolog` library.

use std::path::Path;
use std::sync::OnceLock;

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
    let head = &bytes[..bytes.len().min(robolog::PROBE_LEN)];
    let format = robolog::probe(head).ok_or_else(|| {
        Failure::new(
            path,
            Error::UnknownFormat {
                found: logcore::error::hex_preview(head),
            },
        )
    })?;
    Ok(Opened { bytes, format })
}

/// Opens `path` as a [`Log`].
pub(crate) fn open(path: &Path) -> Result<Log<'static>, Failure> {
    robolog::open_with(path, &limits()).map_err(|e| Failure::new(path, e))
}

/// Opens `path` as a [`Log`] that must be of `format`.
pub(crate) fn open_as(path: &Path, format: Format) -> Result<Log<'static>, Failure> {
    robolog::open_as_with(path, format, &limits()).map_err(|e| Failure::new(path, e))
}
