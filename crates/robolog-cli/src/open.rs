//! Opening a file through the `robolog` library.

use std::path::Path;

use logcore::{Error, FileBytes, Format};
use robolog::Log;

use crate::Failure;

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
    robolog::open(path).map_err(|e| Failure::new(path, e))
}

/// Opens `path` as a [`Log`] that must be of `format`.
pub(crate) fn open_as(path: &Path, format: Format) -> Result<Log<'static>, Failure> {
    robolog::open_as(path, format).map_err(|e| Failure::new(path, e))
}
