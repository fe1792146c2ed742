//! The blocks of `robolog_arrow::blocks` handed to numpy: each block's
//! values become a numpy array of shape `(columns, rows)` that owns the
//! gathered vector (no copy).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use robolog_arrow::blocks::{Block, Values};

/// One of pandas' blocks as `frames` hands it to pandas: numpy's dtype,
/// the 2-D values, the columns' positions.
pub(crate) type PandasBlock<'py> = (&'static str, Bound<'py, PyAny>, Vec<usize>);

/// The blocks as numpy arrays of shape `(columns, rows)`, without a copy
/// (log times as `int64`: `frames` views them as datetimes).
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    blocks: Vec<Block>,
    rows: usize,
) -> PyResult<Vec<PandasBlock<'py>>> {
    blocks
        .into_iter()
        .map(|b| {
            let columns = b.columns.len();
            macro_rules! shaped {
                ($v:expr) => {
                    PyArray1::from_vec(py, $v)
                        .reshape([columns, rows])?
                        .into_any()
                };
            }
            let array = match b.values {
                Values::Bool(v) => shaped!(v),
                Values::I8(v) => shaped!(v),
                Values::U8(v) => shaped!(v),
                Values::I16(v) => shaped!(v),
                Values::U16(v) => shaped!(v),
                Values::I32(v) => shaped!(v),
                Values::U32(v) => shaped!(v),
                Values::I64(v) => shaped!(v),
                Values::U64(v) => shaped!(v),
                Values::F32(v) => shaped!(v),
                Values::F64(v) => shaped!(v),
            };
            Ok((b.dtype, array, b.columns))
        })
        .collect()
}
