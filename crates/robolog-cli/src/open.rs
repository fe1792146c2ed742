//! Opening inputs: the one way every command opens the files it reads.
//!
//! A command that reads a log opens it with [`Context::open`] (any format)
//! or [`Context::open_as`] (a tool of one format); one that needs a file's
//! bytes for a format's own tool (`bag reindex`, `mcap recover`, `check`)
//! maps it with [`Context::open_bytes`] or [`Context::open_bytes_as`].
//! Each applies the run's limits, refuses a file of another format with
//! the error of [`robolog::OpenOptions::format`], and reports what a
//! reader worked around when it opened the file
//! ([`Context::note_opened`]); each failure names the file.

use std::path::Path;

use logcore::{FileBytes, Format};
use robolog::{Log, OpenOptions};

use crate::Failure;
use crate::context::Context;

/// A file's bytes and its format, recognised by its first bytes.
pub(crate) struct Mapped {
    /// The file, mapped.
    pub(crate) bytes: FileBytes,
    /// Its format.
    pub(crate) format: Format,
}

impl Context {
    /// How this run opens logs: with its limits.
    fn options(&self) -> OpenOptions {
        OpenOptions::new().limits(self.limits())
    }

    /// Opens `path` as a [`Log`] of any format.
    pub(crate) fn open(&self, path: &Path) -> Result<Log<'static>, Failure> {
        self.open_with(path, &self.options())
    }

    /// Opens `path` as a [`Log`] that must be of `format`.
    pub(crate) fn open_as(&self, path: &Path, format: Format) -> Result<Log<'static>, Failure> {
        self.open_with(path, &self.options().format(format))
    }

    /// Opens `path` with `options`, reporting what its reader had to work
    /// around.
    fn open_with(&self, path: &Path, options: &OpenOptions) -> Result<Log<'static>, Failure> {
        if path.is_dir()
            || path
                .extension()
                .is_some_and(|e| e == "yaml" || e == "zstd" || e == "db3")
        {
            // A ROS 2 bag, whose reader may copy files to the temporary
            // folder: name what killed runs left there.
            crate::write::report_temporary_copies();
        }
        let log = options.open(path).map_err(|e| Failure::new(path, e))?;
        self.note_opened(path, &log.open_warnings());
        Ok(log)
    }

    /// Maps `path` and recognises its format, for a command that reads
    /// the bytes itself.
    pub(crate) fn open_bytes(&self, path: &Path) -> Result<Mapped, Failure> {
        let bytes = FileBytes::open(path).map_err(|e| Failure::new(path, e))?;
        let format = robolog::detect(&bytes).map_err(|e| Failure::new(path, e))?;
        Ok(Mapped { bytes, format })
    }

    /// Maps `path`, which must be of `format`, for that format's own tool
    /// (`bag reindex`, `mcap recover`, ...): a file of another format is
    /// refused with the error [`Context::open_as`] gives.
    pub(crate) fn open_bytes_as(&self, path: &Path, format: Format) -> Result<FileBytes, Failure> {
        let mapped = self.open_bytes(path)?;
        if mapped.format != format {
            // The library's own error for the wrong format, which it gives
            // before its reader reads anything past the first bytes.
            let head = &mapped.bytes[..mapped.bytes.len().min(robolog::PROBE_LEN)];
            self.options()
                .format(format)
                .open_bytes(head)
                .map_err(|e| Failure::new(path, e))?;
        }
        Ok(mapped.bytes)
    }
}
