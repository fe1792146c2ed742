//! A table's columns gathered in 2-D blocks, one per numpy dtype, as
//! pandas keeps a DataFrame's columns.
//!
//! pandas holds the columns of one numpy dtype in one 2-D array (a block,
//! one row per column). pyarrow's `to_pandas` makes those blocks column by
//! column; for the tables users read most (flat numeric columns: ULog
//! topics, `flatten=True`) gathering them here, into vectors a binding can
//! hand to numpy without a copy, is several times faster. Tables with a
//! column pandas would not hold in a plain numpy block (nulls, strings,
//! lists, structs, time zones) have no blocks ([`of_batches`] gives
//! `None`).
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Float64Array, Int8Array, RecordBatch};
//! use robolog_arrow::blocks::{of_batches, Values};
//! let batch = RecordBatch::try_from_iter([
//!     ("x", Arc::new(Float64Array::from(vec![1.0, 2.0])) as _),
//!     ("n", Arc::new(Int8Array::from(vec![3, 4])) as _),
//!     ("y", Arc::new(Float64Array::from(vec![5.0, 6.0])) as _),
//! ])
//! .unwrap();
//! let blocks = of_batches(&batch.schema(), &[batch], 2).unwrap();
//! // One block per dtype, in the order the dtypes first appear.
//! assert_eq!(blocks[0].dtype, "f8");
//! assert_eq!(blocks[0].columns, vec![0, 2]);
//! assert!(matches!(&blocks[0].values, Values::F64(v) if v == &[1.0, 2.0, 5.0, 6.0]));
//! assert_eq!(blocks[1].dtype, "i1");
//! ```

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, DurationNanosecondType, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, TimestampNanosecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit};

/// The numpy dtype of log times on a Unix clock (`log_time` of
/// `timestamp[ns]`): nanoseconds, without a time zone. Its values are
/// held as `i64`.
pub const LOG_TIME_DTYPE: &str = "M8[ns]";

/// The numpy dtype of durations (`duration[ns]`: `log_time` on a clock
/// since boot or since the recording's start): nanoseconds, pandas'
/// `timedelta64[ns]`. Its values are held as `i64`.
pub const DURATION_DTYPE: &str = "m8[ns]";

/// The pandas dtype of UTC times (`log_time_utc` without nulls):
/// nanoseconds in UTC, a `DatetimeTZDtype` a binding makes from the `i64`
/// values viewed as [`LOG_TIME_DTYPE`].
pub const UTC_TIME_DTYPE: &str = "M8[ns, UTC]";

/// The values of one block, of the type numpy holds them in: the block's
/// columns one after the other, each `rows` long (a C-ordered array of
/// shape `(columns, rows)`).
pub enum Values {
    /// numpy's bool.
    Bool(Vec<bool>),
    /// numpy's i8.
    I8(Vec<i8>),
    /// numpy's u8.
    U8(Vec<u8>),
    /// numpy's i16.
    I16(Vec<i16>),
    /// numpy's u16.
    U16(Vec<u16>),
    /// numpy's i32.
    I32(Vec<i32>),
    /// numpy's u32.
    U32(Vec<u32>),
    /// numpy's i64 (also times, `M8[ns]`, and durations, `m8[ns]`).
    I64(Vec<i64>),
    /// numpy's u64.
    U64(Vec<u64>),
    /// numpy's f32.
    F32(Vec<f32>),
    /// numpy's f64.
    F64(Vec<f64>),
}

impl Values {
    /// `n` zeros of the type numpy's `dtype` holds its values in; `None`
    /// for a dtype kept out of plain blocks.
    pub fn zeros(dtype: &str, n: usize) -> Option<Values> {
        Some(match dtype {
            "?" => Values::Bool(vec![false; n]),
            "i1" => Values::I8(vec![0; n]),
            "u1" => Values::U8(vec![0; n]),
            "i2" => Values::I16(vec![0; n]),
            "u2" => Values::U16(vec![0; n]),
            "i4" => Values::I32(vec![0; n]),
            "u4" => Values::U32(vec![0; n]),
            "i8" | LOG_TIME_DTYPE | DURATION_DTYPE | UTC_TIME_DTYPE => Values::I64(vec![0; n]),
            "u8" => Values::U64(vec![0; n]),
            "f4" => Values::F32(vec![0.0; n]),
            "f8" => Values::F64(vec![0.0; n]),
            _ => return None,
        })
    }

    /// The block's columns, each `rows` values, to write into.
    pub fn columns(&mut self, rows: usize) -> Vec<ColumnMut<'_>> {
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
}

/// Some of the values of one column of a block, to write into.
pub enum ColumnMut<'a> {
    /// numpy's bool.
    Bool(&'a mut [bool]),
    /// numpy's i8.
    I8(&'a mut [i8]),
    /// numpy's u8.
    U8(&'a mut [u8]),
    /// numpy's i16.
    I16(&'a mut [i16]),
    /// numpy's u16.
    U16(&'a mut [u16]),
    /// numpy's i32.
    I32(&'a mut [i32]),
    /// numpy's u32.
    U32(&'a mut [u32]),
    /// numpy's i64 (also times, `M8[ns]`, and durations, `m8[ns]`).
    I64(&'a mut [i64]),
    /// numpy's u64.
    U64(&'a mut [u64]),
    /// numpy's f32.
    F32(&'a mut [f32]),
    /// numpy's f64.
    F64(&'a mut [f64]),
}

impl<'a> ColumnMut<'a> {
    /// The first `n` values (all, when fewer) and the rest.
    pub fn split_at(self, n: usize) -> (Self, Self) {
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
pub struct Block {
    /// numpy's dtype string.
    pub dtype: &'static str,
    /// The frame's columns it holds, in frame order.
    pub columns: Vec<usize>,
    /// The values, column after column.
    pub values: Values,
}

/// The blocks of a frame of `rows` rows, each block's values zeros, for
/// columns of `dtypes` (in frame order): one block per dtype, in the
/// order the dtypes first appear. Also gives each column's block and its
/// place in it. `None` when a dtype has no plain block.
pub fn empty(dtypes: &[&'static str], rows: usize) -> Option<(Vec<Block>, Vec<Slot>)> {
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
pub struct Slot {
    /// The block.
    pub block: usize,
    /// The index of the column's first value in the block's values.
    pub start: usize,
}

/// The numpy dtype pyarrow's `to_pandas` gives a column of `t` without
/// nulls, for the types kept in a plain numpy block; `None` for the
/// others.
pub fn numpy_dtype(t: &DataType) -> Option<&'static str> {
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
        DataType::Duration(TimeUnit::Nanosecond) => DURATION_DTYPE,
        DataType::Timestamp(TimeUnit::Nanosecond, Some(tz)) if tz.as_ref() == "UTC" => {
            UTC_TIME_DTYPE
        }
        _ => return None,
    })
}

/// The blocks of a table of `schema` holding `batches` (`rows` rows in
/// all); `None` when a column's type has no plain numpy dtype or a column
/// holds a null (pyarrow makes those floats or objects).
pub fn of_batches(schema: &Schema, batches: &[RecordBatch], rows: usize) -> Option<Vec<Block>> {
    let mut dtypes = Vec::with_capacity(schema.fields().len());
    for (i, f) in schema.fields().iter().enumerate() {
        dtypes.push(numpy_dtype(f.data_type())?);
        if batches.iter().any(|b| b.column(i).null_count() > 0) {
            return None;
        }
    }
    let (mut blocks, slots) = empty(&dtypes, rows)?;
    for (c, slot) in slots.iter().enumerate() {
        // The embedding program's interrupt between columns.
        logcore::interrupt::check();
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
            .or_else(|| typed::<TimestampNanosecondType>(array, v, at))
            .or_else(|| typed::<DurationNanosecondType>(array, v, at)),
        Values::U64(v) => typed::<UInt64Type>(array, v, at),
        Values::F32(v) => typed::<Float32Type>(array, v, at),
        Values::F64(v) => typed::<Float64Type>(array, v, at),
    }
}
