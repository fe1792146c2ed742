//! The exceptions of the package and the one mapping from the library's
//! errors to Python's.
//!
//! - [`FormatError`] (a `ValueError`): bytes that are not what the format
//!   requires, a file cut short, an unknown format; `.offset` names the
//!   byte, `.path` the file.
//! - [`UnsupportedError`] (a `FormatError`): a known format in a version
//!   or with a feature this build cannot read.
//! - [`QueryError`] (a `ValueError`): a query of robolog.sql that does not
//!   parse, plan or run, or is not a query.
//! - I/O errors become `OSError` with the errno, so Python raises the
//!   subclass it names (`FileNotFoundError`, `PermissionError`, ...).
//! - A panic caught in the library (a bug) becomes a `RuntimeError`, never
//!   a crash.
//! - A file truncated or overwritten while it was read (its memory map
//!   replaced by zeros, see `lib.rs`) becomes `OSError("FILE changed while
//!   being read (truncated or overwritten)")`, whatever the call read.

use std::any::Any;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyKeyError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    robolog,
    FormatError,
    PyValueError,
    "The file is not what its format requires: damaged, cut short, or of no\n\
     format robolog reads.\n\n\
     Attributes:\n\
     \x20   offset: the byte offset the problem is at (int), or None.\n\
     \x20   path: the file (str), or None when the log was opened from bytes."
);

pyo3::create_exception!(
    robolog,
    UnsupportedError,
    FormatError,
    "The file is of a format robolog knows, but of a version (or with a\n\
     feature, such as a compression or a message encoding) this build cannot\n\
     read. A FormatError, with the same offset and path attributes."
);

pyo3::create_exception!(
    robolog,
    QueryError,
    PyValueError,
    "robolog.sql's query does not parse or plan (an unknown table or column,\n\
     a syntax error), is not a query (SQL over logs only reads: COPY, CREATE,\n\
     INSERT, SET and the like are refused before any log is opened), or failed\n\
     while running for a reason of its own. Errors of a log (one that does\n\
     not open, or is damaged) are FormatError and OSError, as for open."
);

/// Adds the exceptions to the module, with `offset` and `path` defaulting
/// to `None` on the class (an exception raised from Python code has them).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let format = py.get_type::<FormatError>();
    format.setattr("offset", py.None())?;
    format.setattr("path", py.None())?;
    m.add("FormatError", format)?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("QueryError", py.get_type::<QueryError>())?;
    Ok(())
}

/// What a call into the library can fail with, carried out of the code
/// that runs without the GIL and turned into a Python exception after.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The log's reader or decoder failed.
    Log(logcore::Error),
    /// Building a table failed.
    Table(robolog_arrow::Error),
    /// A topic, table or column that is not there (`KeyError`).
    Missing(String),
    /// A topic whose messages are not of the kind a call reads: an image
    /// call on a topic of GPS fixes (`TypeError`).
    WrongKind(String),
    /// A panic in the library: a bug, reported as a `RuntimeError`.
    Panic(String),
    /// The file was truncated or overwritten while it was read: what was
    /// read is not the file's (`OSError` naming it).
    Changed(PathBuf),
    /// A signal handler raised during the call (`KeyboardInterrupt`, see
    /// `interrupt`): raised as it is.
    Interrupted(PyErr),
    /// Work of a call that was interrupted (on another of its threads, or
    /// earlier): the call's outermost [`guarded`] raises the handler's
    /// exception instead; else `KeyboardInterrupt`.
    Stopped,
}

impl std::fmt::Display for Failure {
    /// The failure as one line, for a consumer outside Python (an Arrow C
    /// stream's error).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Log(e) => write!(f, "{e}"),
            Failure::Table(e) => write!(f, "{e}"),
            Failure::Missing(what) | Failure::WrongKind(what) | Failure::Panic(what) => {
                f.write_str(what)
            }
            Failure::Changed(path) => write!(
                f,
                "{} changed while being read (truncated or overwritten)",
                path.display()
            ),
            Failure::Interrupted(e) => write!(f, "{e}"),
            Failure::Stopped => f.write_str("interrupted"),
        }
    }
}

/// A file at or under `root` (a log, or a bag's folder) whose memory map
/// was replaced by zeros because it changed while it was read; `None`
/// (without a lock) while no file ever changed.
pub(crate) fn changed_under(root: &Path) -> Option<PathBuf> {
    logcore::FileBytes::changed_files()
        .into_iter()
        .find(|f| f.starts_with(root))
}

/// `r`, unless a file at or under `root` changed while it was read: then
/// [`Failure::Changed`] naming it, whatever `r` was (bytes read from a
/// changed file are zeros, so neither a result nor an error of them is
/// about the file).
pub(crate) fn unless_changed<T>(root: Option<&Path>, r: Result<T, Failure>) -> Result<T, Failure> {
    match root.and_then(changed_under) {
        Some(f) => Err(Failure::Changed(f)),
        None => r,
    }
}

/// Runs `f`, work that opens the files at or under `roots` and may drop
/// them before it returns (a check, a conversion, a query); then, when one
/// of them changed while `f` read it, [`Failure::Changed`] naming it,
/// whatever `f` returned.
pub(crate) fn changed_during<T>(
    roots: &[&Path],
    f: impl FnOnce() -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mark = logcore::FileBytes::change_count();
    let r = f();
    let changed = logcore::FileBytes::changed_since(mark)
        .into_iter()
        .find(|f| roots.iter().any(|root| f.starts_with(root)));
    match changed {
        Some(f) => Err(Failure::Changed(f)),
        None => r,
    }
}

impl From<logcore::Error> for Failure {
    fn from(e: logcore::Error) -> Self {
        Failure::Log(e)
    }
}

impl From<robolog_arrow::Error> for Failure {
    fn from(e: robolog_arrow::Error) -> Self {
        match e {
            robolog_arrow::Error::Log(e) => Failure::Log(e),
            other => Failure::Table(other),
        }
    }
}

impl Failure {
    /// The failure as a Python exception about the log at `path` (`None`
    /// for a log opened from bytes).
    pub(crate) fn into_py(self, py: Python<'_>, path: Option<&str>) -> PyErr {
        match self {
            Failure::Log(e) => log_error(py, &e, path),
            Failure::Table(robolog_arrow::Error::NoColumn { table, column }) => {
                PyKeyError::new_err(format!("table {table} has no column {column:?}"))
            }
            Failure::Table(e @ robolog_arrow::Error::Misfit { offset, .. }) => {
                format_error::<FormatError>(py, &e.to_string(), Some(offset), path)
            }
            Failure::Table(robolog_arrow::Error::Align(e)) => {
                pyo3::exceptions::PyValueError::new_err(e)
            }
            Failure::Table(e) => PyRuntimeError::new_err(format!("robolog: {e}")),
            Failure::Missing(what) => PyKeyError::new_err(what),
            Failure::WrongKind(what) => pyo3::exceptions::PyTypeError::new_err(what),
            Failure::Interrupted(e) => e,
            Failure::Stopped => pyo3::exceptions::PyKeyboardInterrupt::new_err(()),
            Failure::Changed(file) => PyOSError::new_err(format!(
                "{} changed while being read (truncated or overwritten)",
                file.display()
            )),
            Failure::Panic(what) => PyRuntimeError::new_err(format!(
                "robolog: internal error (a bug; please report it with the file): {what}"
            )),
        }
    }
}

/// Runs `f`, turning a panic into [`Failure::Panic`]: a bug in the
/// library must not unwind into Python (pyo3 would raise its
/// `PanicException`, which `except Exception` does not catch). The
/// unwinding of an interrupt ([`crate::interrupt::poll`]) becomes
/// [`Failure::Interrupted`] (or [`Failure::Stopped`] inside a call's
/// outermost `guarded`, which then gives the handler's exception, whatever
/// `f` returned); that of [`crate::interrupt::before_commit`]
/// [`Failure::Changed`].
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    let (r, own) =
        crate::interrupt::as_call(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    let r = r.unwrap_or_else(|payload| Err(unwound(payload)));
    let Some(stop) = own else {
        return r;
    };
    if let Some(e) = stop.take() {
        return Err(Failure::Interrupted(e));
    }
    if stop.is_set() || matches!(r, Err(Failure::Stopped)) {
        // Interrupted, the exception taken already: Ctrl-C.
        return Err(Failure::Interrupted(
            pyo3::exceptions::PyKeyboardInterrupt::new_err(()),
        ));
    }
    r
}

/// The failure of work that unwound with `payload`.
fn unwound(payload: Box<dyn Any + Send>) -> Failure {
    let payload = match payload.downcast::<crate::interrupt::Interrupted>() {
        Ok(i) => return Failure::Interrupted(i.0),
        Err(p) => p,
    };
    let payload = match payload.downcast::<crate::interrupt::Changed>() {
        Ok(c) => return Failure::Changed(c.0),
        Err(p) => p,
    };
    if payload.is::<crate::interrupt::Stopped>() {
        return Failure::Stopped;
    }
    Failure::Panic(panic_text(payload.as_ref()))
}

/// The message of a panic's payload.
pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// The Python exception for a library error about the log at `path`.
pub(crate) fn log_error(py: Python<'_>, e: &logcore::Error, path: Option<&str>) -> PyErr {
    match e {
        logcore::Error::Io(io) => io_error(io, path),
        logcore::Error::Unsupported { .. } => {
            format_error::<UnsupportedError>(py, &e.to_string(), e.offset(), path)
        }
        logcore::Error::InvalidArgument(what) => PyValueError::new_err(what.clone()),
        _ => format_error::<FormatError>(py, &e.to_string(), e.offset(), path),
    }
}

/// An exception of type `E` (a [`FormatError`]) saying `text`, with its
/// `offset` and `path` attributes set.
pub(crate) fn format_error<E: pyo3::PyTypeInfo>(
    py: Python<'_>,
    text: &str,
    offset: Option<u64>,
    path: Option<&str>,
) -> PyErr {
    let message = match path {
        Some(p) => format!("{p}: {text}"),
        None => text.to_string(),
    };
    let err = PyErr::from_type(py.get_type::<E>(), message);
    let value = err.value(py);
    if let Err(e) = value
        .setattr("offset", offset)
        .and_then(|()| value.setattr("path", path))
    {
        return e;
    }
    err
}

/// An `OSError` for an I/O error: with the errno where the system gave
/// one (Python then raises the subclass it names, such as
/// `FileNotFoundError` or `PermissionError`), and the file name.
pub(crate) fn io_error(e: &std::io::Error, path: Option<&str>) -> PyErr {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(errno) => {
            // Python's own wording: the text without Rust's "(os error N)".
            let strerror = text
                .strip_suffix(&format!(" (os error {errno})"))
                .unwrap_or(&text)
                .to_string();
            match path {
                Some(p) => PyOSError::new_err((errno, strerror, p.to_string())),
                None => PyOSError::new_err((errno, strerror)),
            }
        }
        None => {
            let text = match path {
                Some(p) => format!("{p}: {text}"),
                None => text,
            };
            match e.kind() {
                std::io::ErrorKind::NotFound => {
                    pyo3::exceptions::PyFileNotFoundError::new_err(text)
                }
                std::io::ErrorKind::PermissionDenied => {
                    pyo3::exceptions::PyPermissionError::new_err(text)
                }
                _ => PyOSError::new_err(text),
            }
        }
    }
}
