//! A table's columns as pandas' 2-D blocks, for `to_pandas`.
//!
//! pandas keeps a DataFrame's columns of one numpy dtype in one 2-D array
//! (a block, one row per column). pyarrow's `to_pandas` makes those
//! blocks column by column; for the tables users read most (flat numeric
//! columns: ULog topics, `flatten=True`) building them here and handing
//! them to `pandas.api.internals.create_dataframe_from_blocks` is several
//! times faster. The values are gathered without the GIL into vectors
//! that become numpy's arrays without a copy. Tables with a column pandas
//! would not hold in a plain numpy block (nulls, strings, lists, structs,
//! time zones) are left to pyarrow.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampNanosecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;

/// The numpy dtype of log times (`log_time`): nanoseconds, without a time
/// zone. Its values are held as `i64`.
pub(crate) const LOG_TIME_DTYPE: &str = "M8[ns]";

/// The values of one block, of the type numpy holds them in: the block's
/// columns one after the other, each `rows` long (a C-ordered array of
/// shape `(columns, rows)`).
pub(crate) enum Values {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Values {
    /// `n` zeros of the type numpy's `dtype` holds its values in; `None`
    /// for a dtype kept out of plain blocks.
    pub(crate) fn zeros(dtype: &str, n: usize) -> Option<Values> {
        Some(match dtype {
            "?" => Values::Bool(vec![false; n]),
            "i1" => Values::I8(vec![0; n]),
            "u1" => Values::U8(vec![0; n]),
            "i2" => Values::I16(vec![0; n]),
            "u2" => Values::U16(vec![0; n]),
            "i4" => Values::I32(vec![0; n]),
            "u4" => Values::U32(vec![0; n]),
            "i8" | LOG_TIME_DTYPE => Values::I64(vec![0; n]),
            "u8" => Values::U64(vec![0; n]),
            "f4" => Values::F32(vec![0.0; n]),
            "f8" => Values::F64(vec![0.0; n]),
            _ => return None,
        })
    }

    /// The block's columns, each `rows` values, to write into.
    pub(crate) fn columns(&mut self, rows: usize) -> Vec<ColumnMut<'_>> {
        macro_rules! each {
            ($($variant:ident),*) => {
                match self {
                    $(Values::$variant(v) => {
                        v.chunks_mut(rows.max(1)).map(ColumnMut::$variant).collect()
                    })*
                }
            };
        }
        each!(Bool, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64)
    }

    /// The values as a numpy array of shape `(columns, rows)`, without a
    /// copy (log times as `int64`: `_frames` views them as datetimes).
    fn into_numpy<'py>(
        self,
        py: Python<'py>,
        columns: usize,
        rows: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        macro_rules! shaped {
            ($v:expr) => {
                PyArray1::from_vec(py, $v)
                    .reshape([columns, rows])?
                    .into_any()
            };
        }
        Ok(match self {
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
        })
    }
}

/// Some of the values of one column of a block, to write into.
pub(crate) enum ColumnMut<'a> {
    Bool(&'a mut [bool]),
    I8(&'a mut [i8]),
    U8(&'a mut [u8]),
    I16(&'a mut [i16]),
    U16(&'a mut [u16]),
    I32(&'a mut [i32]),
    U32(&'a mut [u32]),
    I64(&'a mut [i64]),
    U64(&'a mut [u64]),
    F32(&'a mut [f32]),
    F64(&'a mut [f64]),
}

impl<'a> ColumnMut<'a> {
    /// The first `n` values (all, when fewer) and the rest.
    pub(crate) fn split_at(self, n: usize) -> (Self, Self) {
        macro_rules! each {
            ($($variant:ident),*) => {
                match self {
                    $(ColumnMut::$variant(v) => {
                        let (a, b) = v.split_at_mut(n.min(v.len()));
                        (ColumnMut::$variant(a), ColumnMut::$variant(b))
                    })*
                }
            };
        }
        each!(Bool, I8, U8, I16, U16, I32, U32, I64, U64, F32, F64)
    }
}

/// One block: the columns (by position in the frame) of one dtype, and
/// their values.
pub(crate) struct Block {
    /// numpy's dtype string.
    pub(crate) dtype: &'static str,
    /// The frame's columns it holds, in frame order.
    pub(crate) columns: Vec<usize>,
    /// The values, column after column.
    pub(crate) values: Values,
}

/// The blocks of a frame of `rows` rows, each block's values zeros, for
/// columns of `dtypes` (in frame order): one block per dtype, in the
/// order the dtypes first appear. Also gives each column's block and its
/// place in it. `None` when a dtype has no plain block.
pub(crate) fn empty(dtypes: &[&'static str], rows: usize) -> Option<(Vec<Block>, Vec<Slot>)> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut slots = Vec::with_capacity(dtypes.len());
    for (i, &dtype) in dtypes.iter().enumerate() {
        let at = match blocks.iter().position(|b| b.dtype == dtype) {
            Some(at) => at,
            None => {
                blocks.push(Block {
                    dtype,
                    columns: Vec::new(),
                    values: Values::Bool(Vec::new()),
                });
                blocks.len() - 1
            }
        };
        let b = &mut blocks[at];
        slots.push(Slot {
            block: at,
            start: b.columns.len() * rows,
        });
        b.columns.push(i);
    }
    for b in &mut blocks {
        b.values = Values::zeros(b.dtype, b.columns.len() * rows)?;
    }
    Some((blocks, slots))
}

/// Where a column's values are: its block, and the index of its first
/// value in the block's values.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    pub(crate) block: usize,
    pub(crate) start: usize,
}

/// The numpy dtype pyarrow's `to_pandas` gives a column of `t` without
/// nulls, for the types kept in a plain numpy block; `None` for the
/// others.
fn numpy_dtype(t: &DataType) -> Option<&'static str> {
    Some(match t {
        DataType::Int8 => "i1",
        DataType::UInt8 => "u1",
        DataType::Int16 => "i2",
        DataType::UInt16 => "u2",
        DataType::Int32 => "i4",
        DataType::UInt32 => "u4",
        DataType::Int64 => "i8",
        DataType::UInt64 => "u8",
        DataType::Float32 => "f4",
        DataType::Float64 => "f8",
        DataType::Boolean => "?",
        DataType::Timestamp(TimeUnit::Nanosecond, None) => LOG_TIME_DTYPE,
        _ => return None,
    })
}

/// The blocks of a table of `schema` holding `batches` (`rows` rows in
/// all); `None` when a column's type has no plain numpy dtype or a column
/// holds a null (pyarrow makes those floats or objects).
pub(crate) fn of_batches(
    schema: &Schema,
    batches: &[RecordBatch],
    rows: usize,
) -> Option<Vec<Block>> {
    let mut dtypes = Vec::with_capacity(schema.fields().len());
    for (i, f) in schema.fields().iter().enumerate() {
        dtypes.push(numpy_dtype(f.data_type())?);
        if batches.iter().any(|b| b.column(i).null_count() > 0) {
            return None;
        }
    }
    let (mut blocks, slots) = empty(&dtypes, rows)?;
    for (c, slot) in slots.iter().enumerate() {
        // Ctrl-C between columns (a copy of one column's values).
        crate::interrupt::poll();
        let mut at = slot.start;
        for b in batches {
            let array = b.column(c);
            let block = blocks.get_mut(slot.block)?;
            at += copy(array.as_ref(), &mut block.values, at)?;
        }
    }
    Some(blocks)
}

/// Copies the values of `array` into `values` from index `at`; the
/// number copied, `None` when the types do not match (not expected: the
/// block was planned from the array's type) or they do not fit.
fn copy(array: &dyn Array, values: &mut Values, at: usize) -> Option<usize> {
    fn typed<T: ArrowPrimitiveType>(
        array: &dyn Array,
        dest: &mut [T::Native],
        at: usize,
    ) -> Option<usize> {
        let src = array.as_primitive_opt::<T>()?.values();
        dest.get_mut(at..at + src.len())?.copy_from_slice(src);
        Some(src.len())
    }
    match values {
        Values::Bool(v) => {
            let bits = array.as_boolean_opt()?.values();
            let dest = v.get_mut(at..at + bits.len())?;
            for (d, b) in dest.iter_mut().zip(bits.iter()) {
                *d = b;
            }
            Some(bits.len())
        }
        Values::I8(v) => typed::<Int8Type>(array, v, at),
        Values::U8(v) => typed::<UInt8Type>(array, v, at),
        Values::I16(v) => typed::<Int16Type>(array, v, at),
        Values::U16(v) => typed::<UInt16Type>(array, v, at),
        Values::I32(v) => typed::<Int32Type>(array, v, at),
        Values::U32(v) => typed::<UInt32Type>(array, v, at),
        Values::I64(v) => typed::<Int64Type>(array, v, at)
            .or_else(|| typed::<TimestampNanosecondType>(array, v, at)),
        Values::U64(v) => typed::<UInt64Type>(array, v, at),
        Values::F32(v) => typed::<Float32Type>(array, v, at),
        Values::F64(v) => typed::<Float64Type>(array, v, at),
    }
}

/// One of pandas' blocks as `_frames` takes it: numpy's dtype, the 2-D
/// values, the columns' positions.
pub(crate) type PandasBlock<'py> = (&'static str, Bound<'py, PyAny>, Vec<usize>);

/// The blocks as numpy arrays of shape `(columns, rows)`, without a copy.
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    blocks: Vec<Block>,
    rows: usize,
) -> PyResult<Vec<PandasBlock<'py>>> {
    blocks
        .into_iter()
        .map(|b| {
            let array = b.values.into_numpy(py, b.columns.len(), rows)?;
            Ok((b.dtype, array, b.columns))
        })
        .collect()
}
