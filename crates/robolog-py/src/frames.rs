//! Tables handed to pyarrow, pandas and polars through their public API.
//!
//! Each package is imported when its conversion is first used: none of
//! them is a dependency of robolog. A table implements the Arrow PyCapsule
//! interface, so pyarrow and polars take it without a copy. pandas 3.0
//! and later takes a frame's 2-D blocks as they are
//! (`pandas.api.internals.create_dataframe_from_blocks`): for the tables
//! [`blocks`] can hold (numeric, boolean and time columns without nulls)
//! the frame is made of blocks gathered in Rust, several times faster
//! than pyarrow's `to_pandas`; other tables, and older pandas, go through
//! pyarrow. Nothing here calls back into the package's own Python.

use numpy::PyArray1;
use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PySlice, PyTuple};

use crate::blocks;
use robolog_arrow::blocks::{Block, DURATION_DTYPE, LOG_TIME_DTYPE, UTC_TIME_DTYPE, Values};

/// `module`, imported; an `ImportError` naming what needs it and how to
/// install it when it is missing.
fn need<'py>(py: Python<'py>, module: &str, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import(module).map_err(|e| {
        let err = PyImportError::new_err(format!(
            "{what} needs the {module} package (pip install {module})"
        ));
        err.set_cause(py, Some(e));
        err
    })
}

/// `pyarrow.table(table)`: the table as a `pyarrow.Table` (needs pyarrow
/// 14 or later), without a copy.
pub(crate) fn to_pyarrow<'py>(
    table: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    need(table.py(), "pyarrow", what)?
        .getattr("table")?
        .call1((table,))
}

/// `polars.DataFrame(table)`: the table as a polars DataFrame (needs
/// polars).
pub(crate) fn to_polars<'py>(table: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    need(table.py(), "polars", what)?
        .getattr("DataFrame")?
        .call1((table,))
}

/// The table as a pandas DataFrame: of `blocks` (its rows, its blocks)
/// where they were gathered and pandas takes blocks, else pyarrow's
/// `to_pandas` of the table.
pub(crate) fn to_pandas<'py>(
    table: &Bound<'py, PyAny>,
    names: Vec<String>,
    blocks: impl FnOnce() -> PyResult<Option<(usize, Vec<Block>)>>,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let py = table.py();
    if !takes_blocks(py) {
        // Missing (an ImportError saying so), or before 3.0: pyarrow's.
        need(py, "pandas", what)?;
    } else if let Some((rows, made)) = blocks()? {
        let mut frames = frames_of_blocks(py, vec![(names, rows, made)])?;
        if let Some(frame) = frames.pop() {
            return Ok(frame);
        }
    }
    to_pyarrow(table, what)?.call_method0("to_pandas")
}

/// Whether pandas (3.0 and later) takes a frame's blocks as they are.
pub(crate) fn takes_blocks(py: Python<'_>) -> bool {
    pandas(py).is_some()
}

/// pandas' public constructors that [`frames_of_blocks`] calls, looked up
/// once a process: an import from Rust runs importlib's Python (several
/// µs each), and a small frame took five of them.
struct Pandas {
    /// `pandas.api.internals.create_dataframe_from_blocks`.
    make: Py<PyAny>,
    /// `pandas.Index`.
    index: Py<PyAny>,
    /// `pandas.RangeIndex`.
    range: Py<PyAny>,
    /// `pandas.array`.
    array: Py<PyAny>,
    /// The dtype each kind of time block is made with (`pandas.array`
    /// given the dtype skips guessing it): numpy's `datetime64[ns]` and
    /// `timedelta64[ns]`, and `pandas.DatetimeTZDtype("ns", "UTC")`, whose
    /// values are the nanoseconds since the epoch in UTC, as given.
    log_time: Py<PyAny>,
    duration: Py<PyAny>,
    utc: Py<PyAny>,
}

/// pandas' constructors ([`Pandas`]), when pandas is installed and takes
/// blocks (3.0 and later). A failed import is tried again next time.
fn pandas(py: Python<'_>) -> Option<&Pandas> {
    static PANDAS: PyOnceLock<Option<Pandas>> = PyOnceLock::new();
    PANDAS
        .get_or_try_init(py, || -> PyResult<Option<Pandas>> {
            let pd = py.import("pandas")?;
            let Ok(make) = py
                .import("pandas.api.internals")
                .and_then(|m| m.getattr("create_dataframe_from_blocks"))
            else {
                return Ok(None);
            };
            let np_dtype = py.import("numpy")?.getattr("dtype")?;
            Ok(Some(Pandas {
                make: make.unbind(),
                index: pd.getattr("Index")?.unbind(),
                range: pd.getattr("RangeIndex")?.unbind(),
                array: pd.getattr("array")?.unbind(),
                log_time: np_dtype.call1((LOG_TIME_DTYPE,))?.unbind(),
                duration: np_dtype.call1((DURATION_DTYPE,))?.unbind(),
                utc: pd
                    .getattr("DatetimeTZDtype")?
                    .call1(("ns", "UTC"))?
                    .unbind(),
            }))
        })
        .ok()
        .and_then(Option::as_ref)
}

/// A frame's column names, its number of rows and its blocks.
pub(crate) type FrameParts = (Vec<String>, usize, Vec<Block>);

/// The DataFrames of `parts`, each its columns in pandas' blocks: numpy
/// arrays of shape `(columns, rows)` that own the gathered vectors (no
/// copy). Their column labels are slices of one Index (making an Index of
/// strings costs pandas more than slicing one). The time blocks of every
/// frame are one `datetime64[ns]` array that pandas checks once, each
/// frame's a slice of it (pandas checks a datetime64 array it is given,
/// about 8 µs a frame); the duration blocks (`log_time` since boot or
/// since the recording's start) likewise one `timedelta64[ns]` array, and
/// the UTC blocks (`log_time_utc`) one `datetime64[ns, UTC]` array, made
/// time-zone aware once per call (about 14 µs a frame before).
/// Needs pandas 3.0 ([`takes_blocks`]).
pub(crate) fn frames_of_blocks<'py>(
    py: Python<'py>,
    mut parts: Vec<FrameParts>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let Some(pd) = pandas(py) else {
        return Err(PyImportError::new_err(
            "pandas 3.0 or later is needed to make frames of blocks",
        ));
    };
    let make = pd.make.bind(py);
    let range = pd.range.bind(py);
    let every = pd.index.bind(py).call1((PyList::new(
        py,
        parts.iter().flat_map(|(names, _, _)| names.iter()),
    )?,))?;
    // Every frame's time, duration and UTC blocks, taken out of their
    // frames: per dtype, all their values and (frame, columns,
    // where in the values it starts).
    let mut kinds = Vec::with_capacity(3);
    for dtype in [LOG_TIME_DTYPE, DURATION_DTYPE, UTC_TIME_DTYPE] {
        let mut times: Vec<i64> = Vec::new();
        let mut timed: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        for (i, (_, _, made)) in parts.iter_mut().enumerate() {
            let mut k = 0;
            while k < made.len() {
                match &made[k].values {
                    Values::I64(_) if made[k].dtype == dtype => {
                        let b = made.remove(k);
                        if let Values::I64(v) = b.values {
                            timed.push((i, b.columns, times.len()));
                            times.extend(v);
                        }
                    }
                    _ => k += 1,
                }
            }
        }
        let total = times.len();
        let all_times = if timed.is_empty() {
            None
        } else {
            // `log_time_utc`: pandas' `datetime64[ns, UTC]` of the same
            // nanoseconds (what `tz_localize("UTC")` of the naive values
            // gives, at a fifth less).
            let (view, made) = match dtype {
                UTC_TIME_DTYPE => (LOG_TIME_DTYPE, &pd.utc),
                DURATION_DTYPE => (DURATION_DTYPE, &pd.duration),
                _ => (LOG_TIME_DTYPE, &pd.log_time),
            };
            let values = PyArray1::from_vec(py, times).call_method1("view", (view,))?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("dtype", made.bind(py))?;
            Some(pd.array.bind(py).call((values,), Some(&kwargs))?)
        };
        kinds.push((all_times, total, timed.into_iter().peekable()));
    }
    let single = parts.len() == 1;
    let mut frames = Vec::with_capacity(parts.len());
    let mut at = 0isize;
    for (i, (names, rows, made)) in parts.into_iter().enumerate() {
        let mut pandas_blocks = Vec::with_capacity(made.len() + 1);
        let placed = |columns: &[usize]| {
            let places: Vec<isize> = columns
                .iter()
                .map(|&c| isize::try_from(c).unwrap_or(isize::MAX))
                .collect();
            PyArray1::from_vec(py, places).into_any()
        };
        for (all_times, total, timed) in &mut kinds {
            while let Some((_, columns, start)) = timed.next_if(|t| t.0 == i) {
                let Some(all) = &all_times else { continue };
                let end = start + columns.len() * rows;
                // A block of all the values (one frame's) needs no slice.
                let values = if start == 0 && end == *total {
                    all.clone()
                } else {
                    all.get_item(PySlice::new(
                        py,
                        isize::try_from(start).unwrap_or(isize::MAX),
                        isize::try_from(end).unwrap_or(isize::MAX),
                        1,
                    ))?
                };
                let values = values.call_method1("reshape", ((columns.len(), rows),))?;
                pandas_blocks.push(PyTuple::new(py, [values, placed(&columns)])?);
            }
        }
        for (_, values, columns) in blocks::to_python(py, made, rows)? {
            pandas_blocks.push(PyTuple::new(py, [values, placed(&columns)])?);
        }
        let n = isize::try_from(names.len()).unwrap_or(isize::MAX);
        // One frame's labels are the whole Index (a slice costs pandas
        // about as much as a third of making it).
        let labels = if single {
            every.clone()
        } else {
            every.get_item(PySlice::new(py, at, at + n, 1))?
        };
        at += n;
        let kwargs = PyDict::new(py);
        kwargs.set_item("index", range.call1((rows,))?)?;
        kwargs.set_item("columns", labels)?;
        frames.push(make.call((PyList::new(py, pandas_blocks)?,), Some(&kwargs))?);
    }
    Ok(frames)
}
