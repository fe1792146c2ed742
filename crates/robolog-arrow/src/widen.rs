//! One schema for every file of a table: the logs' schemas widened into
//! one ([`merge`]), and each log's batches and each earlier file's rows
//! written in it ([`align_batch`]).
//!
//! The columns are the union of the logs' columns by name, in the order
//! of the first schema, then each new column where it first appears;
//! struct fields are merged the same way. A column or field that some
//! schema lacks is nullable (its rows there are null). Two types of one
//! column widen only where no value is lost ([`widen`]); other pairs are
//! a [`Conflict`].

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, LargeListArray, ListArray, RecordBatch,
    RecordBatchOptions, StructArray,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, Schema, SchemaRef};

/// Two types of one column that no type holds both of without loss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conflict {
    /// The column: `pose.position.x` for a struct's field, `esc[]` for
    /// the items of a list.
    pub(crate) column: String,
    /// Its type in the schema merged so far.
    pub(crate) before: DataType,
    /// Its type in the schema that did not merge.
    pub(crate) after: DataType,
}

/// `a` and `b` as one schema (see the [module](self) docs); the metadata
/// of `a`.
pub(crate) fn merge(a: &Schema, b: &Schema) -> Result<Schema, Conflict> {
    let fields = merge_fields(a.fields(), b.fields(), "")?;
    Ok(Schema::new_with_metadata(fields, a.metadata().clone()))
}

fn merge_fields(a: &Fields, b: &Fields, prefix: &str) -> Result<Fields, Conflict> {
    let by_name: HashMap<&str, &FieldRef> = b.iter().map(|f| (f.name().as_str(), f)).collect();
    let mut out: Vec<FieldRef> = Vec::with_capacity(a.len().max(b.len()));
    for fa in a {
        match by_name.get(fa.name().as_str()) {
            Some(fb) => {
                let path = if prefix.is_empty() {
                    fa.name().clone()
                } else {
                    format!("{prefix}.{}", fa.name())
                };
                out.push(Arc::new(merge_field(fa, fb, &path)?));
            }
            None => out.push(Arc::new(fa.as_ref().clone().with_nullable(true))),
        }
    }
    for fb in b {
        if a.find(fb.name()).is_none() {
            out.push(Arc::new(fb.as_ref().clone().with_nullable(true)));
        }
    }
    Ok(out.into())
}

/// Two fields of one name as one: their types merged (struct fields,
/// list items) or widened, nullable where either is, the metadata of `a`.
fn merge_field(a: &Field, b: &Field, path: &str) -> Result<Field, Conflict> {
    let conflict = || Conflict {
        column: path.to_string(),
        before: a.data_type().clone(),
        after: b.data_type().clone(),
    };
    let item = |x: &FieldRef, y: &FieldRef| merge_field(x, y, &format!("{path}[]")).map(Arc::new);
    let ty = match (a.data_type(), b.data_type()) {
        (x, y) if x == y => x.clone(),
        (DataType::Struct(fa), DataType::Struct(fb)) => {
            DataType::Struct(merge_fields(fa, fb, path)?)
        }
        (DataType::List(x), DataType::List(y))
        | (DataType::List(x), DataType::FixedSizeList(y, _))
        | (DataType::FixedSizeList(x, _), DataType::List(y)) => DataType::List(item(x, y)?),
        (DataType::FixedSizeList(x, n), DataType::FixedSizeList(y, m)) if n == m => {
            DataType::FixedSizeList(item(x, y)?, *n)
        }
        // Arrays whose length changed between versions of a message.
        (DataType::FixedSizeList(x, _), DataType::FixedSizeList(y, _)) => {
            DataType::List(item(x, y)?)
        }
        (DataType::LargeList(x), DataType::LargeList(y))
        | (DataType::LargeList(x), DataType::List(y))
        | (DataType::List(x), DataType::LargeList(y)) => DataType::LargeList(item(x, y)?),
        (DataType::Null, y) => y.clone(),
        (x, DataType::Null) => x.clone(),
        (x, y) => widen(x, y).ok_or_else(conflict)?,
    };
    let nullable = a.is_nullable()
        || b.is_nullable()
        || matches!(a.data_type(), DataType::Null)
        || matches!(b.data_type(), DataType::Null);
    Ok(Field::new(a.name(), ty, nullable).with_metadata(a.metadata().clone()))
}

/// The type that holds every value of `x` and of `y` exactly: integers of
/// one signedness the wider; a signed and an unsigned integer the signed
/// integer twice the unsigned one's width (none for `UInt64`); an integer
/// of up to 32 bits and a float `Float64`; floats the wider; a bool and
/// an integer the integer (0 and 1); text and bytes their large form. `None` for anything else (a 64-bit integer and
/// a float, a number and text, a time and a number, ...).
pub(crate) fn widen(x: &DataType, y: &DataType) -> Option<DataType> {
    use DataType::*;
    let int = |t: &DataType| match t {
        Int8 => Some((true, 8)),
        Int16 => Some((true, 16)),
        Int32 => Some((true, 32)),
        Int64 => Some((true, 64)),
        UInt8 => Some((false, 8)),
        UInt16 => Some((false, 16)),
        UInt32 => Some((false, 32)),
        UInt64 => Some((false, 64)),
        _ => None,
    };
    let float = |t: &DataType| match t {
        Float16 => Some(16),
        Float32 => Some(32),
        Float64 => Some(64),
        _ => None,
    };
    let signed = |bits: u32| match bits {
        8 => Int8,
        16 => Int16,
        32 => Int32,
        _ => Int64,
    };
    let unsigned = |bits: u32| match bits {
        8 => UInt8,
        16 => UInt16,
        32 => UInt32,
        _ => UInt64,
    };
    if x == y {
        return Some(x.clone());
    }
    match (x, y) {
        (Utf8, LargeUtf8) | (LargeUtf8, Utf8) => return Some(LargeUtf8),
        (Binary, LargeBinary) | (LargeBinary, Binary) => return Some(LargeBinary),
        _ => {}
    }
    // A bool is an integer 0 or 1 (a field that became an enum).
    match (x, y) {
        (Boolean, t) | (t, Boolean) if int(t).is_some() => return Some(t.clone()),
        _ => {}
    }
    match (int(x), int(y), float(x), float(y)) {
        (Some((sx, bx)), Some((sy, by)), _, _) if sx == sy => Some(if sx {
            signed(bx.max(by))
        } else {
            unsigned(bx.max(by))
        }),
        (Some((sx, bx)), Some((_, by)), _, _) => {
            let (s, u) = if sx { (bx, by) } else { (by, bx) };
            (u < 64).then(|| signed(s.max(u * 2)))
        }
        (_, _, Some(a), Some(b)) => Some(if a.max(b) == 64 {
            Float64
        } else if a.max(b) == 32 {
            Float32
        } else {
            Float16
        }),
        // A float64 holds every integer of up to 32 bits exactly.
        (Some((_, bits)), None, None, Some(_)) | (None, Some((_, bits)), Some(_), None)
            if bits <= 32 =>
        {
            Some(Float64)
        }
        _ => None,
    }
}

/// Whether `a` and `b` have the same columns: names, types and
/// nullability, at every depth; metadata aside.
#[cfg(feature = "parquet")]
pub(crate) fn same_columns(a: &Schema, b: &Schema) -> bool {
    a.fields().len() == b.fields().len()
        && a.fields()
            .iter()
            .zip(b.fields())
            .all(|(x, y)| same_field(x, y))
}

#[cfg(feature = "parquet")]
fn same_field(a: &Field, b: &Field) -> bool {
    a.name() == b.name()
        && a.is_nullable() == b.is_nullable()
        && same_type(a.data_type(), b.data_type())
}

#[cfg(feature = "parquet")]
fn same_type(a: &DataType, b: &DataType) -> bool {
    match (a, b) {
        (DataType::Struct(x), DataType::Struct(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(f, g)| same_field(f, g))
        }
        (DataType::List(x), DataType::List(y))
        | (DataType::LargeList(x), DataType::LargeList(y)) => same_field(x, y),
        (DataType::FixedSizeList(x, n), DataType::FixedSizeList(y, m)) => {
            n == m && same_field(x, y)
        }
        (DataType::Map(x, s), DataType::Map(y, t)) => s == t && same_field(x, y),
        (x, y) => x == y,
    }
}

/// The schema of one file in the table's schema `target`: `target`'s
/// columns, each with the metadata of `own`'s column of its name where
/// `own` has one (the log's clock on `log_time`, ...), and `own`'s
/// schema metadata (the table, topic, format and types of the log).
#[cfg(feature = "parquet")]
pub(crate) fn file_schema(own: &Schema, target: &Schema) -> SchemaRef {
    let fields: Vec<FieldRef> = target
        .fields()
        .iter()
        .map(|f| match own.field_with_name(f.name()) {
            Ok(o) => Arc::new(f.as_ref().clone().with_metadata(o.metadata().clone())),
            Err(_) => Arc::new(f.as_ref().clone().with_metadata(HashMap::new())),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, own.metadata().clone()))
}

/// `batch` as a batch of `target` (a schema that [`merge`] widened from
/// the batch's, see [`file_schema`]): columns in `target`'s order, those
/// the batch lacks all null, struct fields rebuilt and numbers widened.
pub(crate) fn align_batch(
    batch: &RecordBatch,
    target: &SchemaRef,
) -> Result<RecordBatch, ArrowError> {
    let rows = batch.num_rows();
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(target.fields().len());
    for f in target.fields() {
        match batch.column_by_name(f.name()) {
            Some(a) => columns.push(align_array(a, f.data_type())?),
            None => columns.push(arrow_array::new_null_array(f.data_type(), rows)),
        }
    }
    let opts = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(target.clone(), columns, &opts)
}

fn align_array(a: &ArrayRef, target: &DataType) -> Result<ArrayRef, ArrowError> {
    if a.data_type() == target {
        return Ok(a.clone());
    }
    let not = |what: &str| ArrowError::SchemaError(format!("a {what} column is not a {what}"));
    match (a.data_type(), target) {
        (DataType::Struct(_), DataType::Struct(tf)) => {
            let s = a
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(|| not("struct"))?;
            let mut children = Vec::with_capacity(tf.len());
            for f in tf {
                match s.column_by_name(f.name()) {
                    Some(c) => children.push(align_array(c, f.data_type())?),
                    None => children.push(arrow_array::new_null_array(f.data_type(), s.len())),
                }
            }
            Ok(Arc::new(StructArray::try_new(
                tf.clone(),
                children,
                s.nulls().cloned(),
            )?))
        }
        (DataType::List(_), DataType::List(item)) => {
            let l = a
                .as_any()
                .downcast_ref::<ListArray>()
                .ok_or_else(|| not("list"))?;
            let values = align_array(l.values(), item.data_type())?;
            Ok(Arc::new(ListArray::try_new(
                item.clone(),
                l.offsets().clone(),
                values,
                l.nulls().cloned(),
            )?))
        }
        (DataType::LargeList(_), DataType::LargeList(item)) => {
            let l = a
                .as_any()
                .downcast_ref::<LargeListArray>()
                .ok_or_else(|| not("list"))?;
            let values = align_array(l.values(), item.data_type())?;
            Ok(Arc::new(LargeListArray::try_new(
                item.clone(),
                l.offsets().clone(),
                values,
                l.nulls().cloned(),
            )?))
        }
        (DataType::FixedSizeList(_, _), DataType::FixedSizeList(item, n)) => {
            let l = a
                .as_any()
                .downcast_ref::<FixedSizeListArray>()
                .ok_or_else(|| not("list"))?;
            let values = align_array(l.values(), item.data_type())?;
            Ok(Arc::new(FixedSizeListArray::try_new(
                item.clone(),
                *n,
                values,
                l.nulls().cloned(),
            )?))
        }
        // A fixed array whose length differs between logs: a list.
        (DataType::FixedSizeList(_, n), DataType::List(item)) => {
            let l = a
                .as_any()
                .downcast_ref::<FixedSizeListArray>()
                .ok_or_else(|| not("list"))?;
            let values = align_array(l.values(), item.data_type())?;
            let n = usize::try_from(*n).unwrap_or(0);
            let offsets = OffsetBuffer::from_lengths(std::iter::repeat_n(n, l.len()));
            Ok(Arc::new(ListArray::try_new(
                item.clone(),
                offsets,
                values,
                l.nulls().cloned(),
            )?))
        }
        (DataType::Null, t) => Ok(arrow_array::new_null_array(t, a.len())),
        // Numbers, text and bytes widened (see `widen`), lists made large.
        (x, y) if widen(x, y).as_ref() == Some(y) || matches!(y, DataType::LargeList(_)) => {
            arrow_cast::cast(a, y)
        }
        // Equal but for nullability or metadata inside a map.
        (x, y) if x.equals_datatype(y) => Ok(arrow_array::make_array(
            a.to_data().into_builder().data_type(y.clone()).build()?,
        )),
        (x, y) => Err(ArrowError::SchemaError(format!(
            "a column of type {x} does not fit the table's type {y}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type};
    use arrow_array::{Float32Array, Int32Array, UInt32Array};

    fn st(fields: Vec<Field>) -> DataType {
        DataType::Struct(fields.into())
    }

    #[test]
    fn numbers_widen_only_without_loss() {
        use DataType::*;
        for (x, y, want) in [
            (Int8, Int32, Some(Int32)),
            (UInt16, UInt64, Some(UInt64)),
            (Int8, UInt8, Some(Int16)),
            (UInt32, Int16, Some(Int64)),
            (UInt64, Int64, None),
            (UInt64, Int8, None),
            (Int32, Float32, Some(Float64)),
            (UInt32, Float32, Some(Float64)),
            (Int64, Float64, None),
            (Float32, Float64, Some(Float64)),
            (Utf8, LargeUtf8, Some(LargeUtf8)),
            (Int32, Utf8, None),
            (Float32, Boolean, None),
            (Boolean, UInt8, Some(UInt8)),
            (
                Timestamp(arrow_schema::TimeUnit::Nanosecond, None),
                Int64,
                None,
            ),
        ] {
            assert_eq!(widen(&x, &y), want, "{x} {y}");
            assert_eq!(widen(&y, &x), want, "{y} {x}");
        }
    }

    #[test]
    fn columns_and_struct_fields_are_unioned_in_order_of_appearance() {
        let a = Schema::new(vec![
            Field::new("x", DataType::Int32, false),
            Field::new(
                "p",
                st(vec![Field::new("a", DataType::Float32, false)]),
                true,
            ),
        ]);
        let b = Schema::new(vec![
            Field::new("y", DataType::Utf8, false),
            Field::new("p", st(vec![Field::new("b", DataType::Int32, false)]), true),
            Field::new("x", DataType::Int64, false),
        ]);
        let m = merge(&a, &b).unwrap();
        let names: Vec<_> = m.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["x", "p", "y"]);
        assert_eq!(m.field(0).data_type(), &DataType::Int64);
        assert!(!m.field(0).is_nullable(), "x is in both");
        assert!(m.field(2).is_nullable(), "y is in b only");
        assert_eq!(
            m.field(1).data_type(),
            &st(vec![
                Field::new("a", DataType::Float32, true),
                Field::new("b", DataType::Int32, true)
            ])
        );
        let c = Schema::new(vec![Field::new(
            "p",
            st(vec![Field::new("a", DataType::Utf8, false)]),
            true,
        )]);
        let e = merge(&m, &c).unwrap_err();
        assert_eq!(e.column, "p.a");
        assert_eq!((e.before, e.after), (DataType::Float32, DataType::Utf8));
    }

    #[test]
    fn fixed_arrays_of_other_lengths_become_lists() {
        let item = Arc::new(Field::new("item", DataType::Float32, false));
        let a = Schema::new(vec![Field::new(
            "v",
            DataType::FixedSizeList(item.clone(), 2),
            true,
        )]);
        let b = Schema::new(vec![Field::new(
            "v",
            DataType::FixedSizeList(item.clone(), 3),
            true,
        )]);
        let m = Arc::new(merge(&a, &b).unwrap());
        assert_eq!(m.field(0).data_type(), &DataType::List(item.clone()));
        let values = Arc::new(Float32Array::from(vec![1.0, 2.0, 3.0, 4.0]));
        let fixed = FixedSizeListArray::try_new(item, 2, values, None).unwrap();
        let batch = RecordBatch::try_new(Arc::new(a), vec![Arc::new(fixed)]).unwrap();
        let out = align_batch(&batch, &m).unwrap();
        let l = out.column(0).as_list::<i32>();
        assert_eq!(l.len(), 2);
        assert_eq!(l.value_offsets(), &[0, 2, 4]);
    }

    #[test]
    fn batches_take_the_merged_schema() {
        let inner = Fields::from(vec![Field::new("a", DataType::Int32, false)]);
        let s = StructArray::new(
            inner.clone(),
            vec![Arc::new(Int32Array::from(vec![1, 2]))],
            None,
        );
        let own = Arc::new(Schema::new(vec![
            Field::new("n", DataType::UInt32, false),
            Field::new("p", DataType::Struct(inner), true),
        ]));
        let batch = RecordBatch::try_new(
            own.clone(),
            vec![Arc::new(UInt32Array::from(vec![7, 8])), Arc::new(s)],
        )
        .unwrap();
        let other = Schema::new(vec![
            Field::new("y", DataType::Utf8, true),
            Field::new("n", DataType::Float32, true),
            Field::new(
                "p",
                st(vec![
                    Field::new("a", DataType::Int64, false),
                    Field::new("b", DataType::Int32, false),
                ]),
                true,
            ),
        ]);
        let merged = merge(&own, &other).unwrap();
        let target = file_schema(&own, &merged);
        let out = align_batch(&batch, &target).unwrap();
        assert!(same_columns(out.schema().as_ref(), &merged));
        assert_eq!(
            out.column(0).as_primitive::<Float64Type>().values(),
            &[7.0, 8.0]
        );
        let p = out.column(1).as_struct();
        assert_eq!(p.column(0).as_primitive::<Int64Type>().values(), &[1, 2]);
        assert_eq!(p.column(1).null_count(), 2);
        assert_eq!(out.column(2).null_count(), 2);
    }
}
