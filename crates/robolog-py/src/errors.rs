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

use std::any::Any;

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
    /// A panic in the library: a bug, reported as a `RuntimeError`.
    Panic(String),
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
            Failure::Table(e) => PyRuntimeError::new_err(format!("robolog: {e}")),
            Failure::Missing(what) => PyKeyError::new_err(what),
            Failure::Panic(what) => PyRuntimeError::new_err(format!(
                "robolog: internal error (a bug; please report it with the file): {what}"
            )),
        }
    }
}

/// Runs `f`, turning a panic into [`Failure::Panic`]: a bug in the
/// library must not unwind into Python (pyo3 would raise its
/// `PanicException`, which `except Exception` does not catch).
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(Failure::Panic(panic_text(payload.as_ref()))),
    }
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
