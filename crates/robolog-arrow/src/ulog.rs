//! The ULog fast path: numeric and bool columns, and fixed arrays of
//! numbers (one typed column per element, interleaved), read straight from
//! the typed column readers of `ulogfile` (one pass over the samples per
//! column, no [`Value`](logcore::Value) per message), for tables of one
//! subscription whose samples are in time order, where the rows are
//! exactly those of the general path. A subscription without samples in
//! the range gives no batch, whatever its columns, without reading the
//! log's messages.

use std::sync::Arc;

use arrow_array::types::UInt8Type;
use arrow_array::{
    ArrayRef, BooleanArray, FixedSizeListArray, PrimitiveArray, RecordBatch, RecordBatchOptions,
};
use arrow_schema::{DataType, FieldRef, SchemaRef};
use logcore::{Timestamp, ValueType};
use robolog::Log;
use ulogfile::Column;

use crate::Error;
use crate::table::{ScanOptions, Source, Table};

/// The table's batches through the typed columns, or `None` when the fast
/// path does not apply (several subscriptions, samples out of time order,
/// a column that is not a number, a bool or a fixed array of numbers).
pub(crate) fn batches(
    log: &Log<'_>,
    table: &Table,
    sources: &[Source],
    schema: &SchemaRef,
    opts: &ScanOptions,
) -> Option<Result<Vec<RecordBatch>, Error>> {
    let ulog = log.as_ulog()?;
    let [channel] = table.channels.as_slice() else {
        return None;
    };
    let multi_id: u8 = channel.metadata.get("multi_id")?.parse().ok()?;
    let name = channel.type_name.as_str();
    let mut subs = ulog
        .subscriptions
        .iter()
        .filter(|s| s.name == name && s.multi_id == multi_id);
    let sub = subs.next()?;
    if subs.next().is_some() || sub.layout.min_size == 0 {
        return None;
    }
    let stamps = sub.timestamps();
    if stamps.windows(2).any(|w| w[0] > w[1]) {
        return None;
    }
    let times: Vec<i64> = stamps
        .iter()
        .map(|&us| {
            Timestamp::from_micros(us)
                .unwrap_or(Timestamp::MAX)
                .as_nanos()
        })
        .collect();
    let lo = opts.start.map_or(i64::MIN, Timestamp::as_nanos);
    let hi = opts.end.map_or(i64::MAX, Timestamp::as_nanos);
    let first = times.partition_point(|&t| t < lo);
    let last = times.partition_point(|&t| t < hi).max(first);
    if first == last {
        // No row: no batch, as the general path gives none.
        return Some(Ok(Vec::new()));
    }
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(sources.len());
    for src in sources {
        // Each column is a pass over the samples: a program embedding
        // the reader may stop between them.
        logcore::interrupt::check();
        let col: ArrayRef = match src {
            Source::LogTime(data_type) => {
                crate::table::log_time_array(data_type, times[first..last].iter().copied())
            }
            Source::LogTimeUtc(model) => crate::table::utc_times(
                *model,
                last - first,
                times[first..last].iter().map(|&t| Timestamp::from_nanos(t)),
            ),
            Source::MultiId => Arc::new(PrimitiveArray::<UInt8Type>::from_iter_values(
                std::iter::repeat_n(multi_id, last - first),
            )),
            Source::Field(_, f) => {
                let name = crate::table::original_name(&f.name);
                match &f.ty {
                    ValueType::FixedArray(elem, n) => {
                        let DataType::FixedSizeList(item, _) =
                            schema.field(columns.len()).data_type()
                        else {
                            return None;
                        };
                        let elements = (0..*n)
                            .map(|i| sub.column(&format!("{name}[{i}]")))
                            .collect::<Option<Vec<Column>>>()?;
                        fixed_array(elem, item.clone(), elements, first, last)?
                    }
                    ty => array(ty, sub.column(name)?, first, last)?,
                }
            }
            _ => return None,
        };
        columns.push(col);
    }
    let total = last - first;
    let size = opts.batch_size.max(1);
    let mut out = Vec::with_capacity(total.div_ceil(size));
    let mut at = 0;
    while at < total {
        let n = size.min(total - at);
        let cols = columns.iter().map(|c| c.slice(at, n)).collect();
        let o = RecordBatchOptions::new().with_row_count(Some(n));
        match RecordBatch::try_new_with_options(schema.clone(), cols, &o) {
            Ok(b) => out.push(b),
            Err(e) => return Some(Err(e.into())),
        }
        at += n;
    }
    Some(Ok(out))
}

/// Rows `first..last` of a typed column as the Arrow array of `ty`, when
/// the column's type is the declared one.
fn array(ty: &ValueType, column: Column, first: usize, last: usize) -> Option<ArrayRef> {
    use arrow_array::types as t;
    fn prim<T: arrow_array::ArrowPrimitiveType>(v: Vec<T::Native>, a: usize, b: usize) -> ArrayRef {
        Arc::new(PrimitiveArray::<T>::from_iter_values(
            v.get(a..b).unwrap_or_default().iter().copied(),
        ))
    }
    Some(match (ty, column) {
        (ValueType::I8, Column::I8(v)) => prim::<t::Int8Type>(v, first, last),
        (ValueType::U8, Column::U8(v)) => prim::<t::UInt8Type>(v, first, last),
        (ValueType::I16, Column::I16(v)) => prim::<t::Int16Type>(v, first, last),
        (ValueType::U16, Column::U16(v)) => prim::<t::UInt16Type>(v, first, last),
        (ValueType::I32, Column::I32(v)) => prim::<t::Int32Type>(v, first, last),
        (ValueType::U32, Column::U32(v)) => prim::<t::UInt32Type>(v, first, last),
        (ValueType::I64, Column::I64(v)) => prim::<t::Int64Type>(v, first, last),
        (ValueType::U64, Column::U64(v)) => prim::<t::UInt64Type>(v, first, last),
        (ValueType::F32, Column::F32(v)) => prim::<t::Float32Type>(v, first, last),
        (ValueType::F64, Column::F64(v)) => prim::<t::Float64Type>(v, first, last),
        (ValueType::Bool, Column::Bool(v)) => Arc::new(BooleanArray::from(
            v.get(first..last).unwrap_or_default().to_vec(),
        )),
        _ => return None,
    })
}

/// Rows `first..last` of a fixed array of numbers whose elements are the
/// typed columns `elements` (element `i` of the array is column `i`), as
/// the `FixedSizeList` of `item`, when every column is of type `elem`.
fn fixed_array(
    elem: &ValueType,
    item: FieldRef,
    elements: Vec<Column>,
    first: usize,
    last: usize,
) -> Option<ArrayRef> {
    use arrow_array::types as t;
    /// The element columns' values row by row: row `r` is element 0 to
    /// n - 1 of sample `r`.
    fn interleave<T: arrow_array::ArrowPrimitiveType>(
        cols: &[Vec<T::Native>],
        first: usize,
        last: usize,
    ) -> Option<ArrayRef> {
        let mut values = Vec::with_capacity((last - first) * cols.len());
        for r in first..last {
            for c in cols {
                values.push(*c.get(r)?);
            }
        }
        Some(Arc::new(PrimitiveArray::<T>::from_iter_values(values)))
    }
    macro_rules! typed {
        ($variant:ident, $arrow:ty) => {{
            let cols = elements
                .into_iter()
                .map(|c| match c {
                    Column::$variant(v) => Some(v),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            (cols.len(), interleave::<$arrow>(&cols, first, last)?)
        }};
    }
    let (n, values) = match elem {
        ValueType::I8 => typed!(I8, t::Int8Type),
        ValueType::U8 => typed!(U8, t::UInt8Type),
        ValueType::I16 => typed!(I16, t::Int16Type),
        ValueType::U16 => typed!(U16, t::UInt16Type),
        ValueType::I32 => typed!(I32, t::Int32Type),
        ValueType::U32 => typed!(U32, t::UInt32Type),
        ValueType::I64 => typed!(I64, t::Int64Type),
        ValueType::U64 => typed!(U64, t::UInt64Type),
        ValueType::F32 => typed!(F32, t::Float32Type),
        ValueType::F64 => typed!(F64, t::Float64Type),
        _ => return None,
    };
    let size = i32::try_from(n).ok()?;
    FixedSizeListArray::try_new(item, size, values, None)
        .ok()
        .map(|a| Arc::new(a) as ArrayRef)
}
