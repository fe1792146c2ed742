//! A table's columns as pandas' 2-D blocks, for `Table.to_pandas`.
//!
//! pandas keeps a DataFrame's columns of one numpy dtype in one 2-D array
//! (a block, one row per column). pyarrow's `to_pandas` makes those
//! blocks column by column; for the tables users read most (flat numeric
//! columns: ULog topics, `flatten=True`) building them here, one copy per
//! column, and handing them to `pandas.api.internals.
//! create_dataframe_from_blocks` is several times faster. Tables with a
//! column pandas would not hold in a plain numpy block (nulls, strings,
//! lists, structs, time zones) are left to pyarrow.

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit};

/// The numpy dtype (native byte order) and width in bytes that pyarrow's
/// `to_pandas` gives a column of `t` without nulls, for the types kept in
/// a plain numpy block; `None` for the others.
fn numpy_dtype(t: &DataType) -> Option<(&'static str, usize)> {
    Some(match t {
        DataType::Int8 => ("i1", 1),
        DataType::UInt8 => ("u1", 1),
        DataType::Int16 => ("i2", 2),
        DataType::UInt16 => ("u2", 2),
        DataType::Int32 => ("i4", 4),
        DataType::UInt32 => ("u4", 4),
        DataType::Int64 => ("i8", 8),
        DataType::UInt64 => ("u8", 8),
        DataType::Float32 => ("f4", 4),
        DataType::Float64 => ("f8", 8),
        DataType::Boolean => ("?", 1),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => ("M8[ns]", 8),
        _ => return None,
    })
}

/// One block: the columns (by position) of one dtype.
pub(crate) struct Block {
    /// numpy's dtype string.
    pub(crate) dtype: &'static str,
    /// Bytes per value.
    width: usize,
    /// The table's columns it holds, in table order.
    pub(crate) columns: Vec<usize>,
}

impl Block {
    /// The size of the block's buffer for `rows` rows.
    pub(crate) fn len(&self, rows: usize) -> usize {
        self.columns.len() * rows * self.width
    }
}

/// The blocks of a table of `schema` holding `batches`, in the order their
/// dtypes first appear; `None` when a column's type has no plain numpy
/// dtype or a column holds a null (pyarrow makes those floats or
/// objects).
pub(crate) fn plan(schema: &Schema, batches: &[RecordBatch]) -> Option<Vec<Block>> {
    let mut blocks: Vec<Block> = Vec::new();
    for (i, f) in schema.fields().iter().enumerate() {
        let (dtype, width) = numpy_dtype(f.data_type())?;
        if batches.iter().any(|b| b.column(i).null_count() > 0) {
            return None;
        }
        match blocks.iter_mut().find(|b| b.dtype == dtype) {
            Some(b) => b.columns.push(i),
            None => blocks.push(Block {
                dtype,
                width,
                columns: vec![i],
            }),
        }
    }
    Some(blocks)
}

/// Writes `block`'s columns of `batches` (`rows` rows in all) into `out`,
/// one column after the other: a C-ordered array of shape
/// `(columns, rows)`. `out` is [`Block::len`] bytes long.
pub(crate) fn fill(block: &Block, batches: &[RecordBatch], rows: usize, out: &mut [u8]) {
    let column_bytes = rows * block.width;
    if column_bytes == 0 {
        return;
    }
    for (&c, dest) in block.columns.iter().zip(out.chunks_exact_mut(column_bytes)) {
        let mut at = 0;
        for b in batches {
            let array = b.column(c);
            let n = array.len() * block.width;
            let Some(dest) = dest.get_mut(at..at + n) else {
                return;
            };
            if let Some(bits) = array.as_boolean_opt() {
                for (d, v) in dest.iter_mut().zip(bits.values().iter()) {
                    *d = u8::from(v);
                }
            } else {
                let data = array.to_data();
                let start = data.offset() * block.width;
                if let Some(src) = data
                    .buffers()
                    .first()
                    .and_then(|buf| buf.as_slice().get(start..start + n))
                {
                    dest.copy_from_slice(src);
                }
            }
            at += n;
        }
    }
}
