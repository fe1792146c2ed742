//! One schema for a table across logs, and the alignment of each log's
//! batches to it.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, ListArray, RecordBatch, RecordBatchOptions, StringArray,
    StructArray,
};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, Schema, SchemaRef};

/// The column of log ids every table starts with.
pub const LOG: &str = "log";

/// Why two fields of one table do not merge: `path` names the column
/// (`pose.position.x` for a nested field), `reason` the two types.
#[derive(Debug)]
pub(crate) struct Conflict {
    pub(crate) path: String,
    pub(crate) reason: String,
}

/// Merges the schema of one more log's table into `merged`: columns are
/// the union by name (in order of first appearance), the same name must
/// have the same type, except structs, whose fields merge the same way.
/// A column or field that some logs lack is nullable.
pub(crate) fn merge(merged: &Schema, next: &Schema) -> Result<Schema, Conflict> {
    let fields = merge_fields(merged.fields(), next.fields(), "")?;
    let mut meta = merged.metadata().clone();
    meta.retain(|k, v| next.metadata().get(k) == Some(v));
    Ok(Schema::new_with_metadata(fields, meta))
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

/// Merges two fields of the same name; `path` names the field in errors.
fn merge_field(a: &Field, b: &Field, path: &str) -> Result<Field, Conflict> {
    let path = path.to_string();
    let ty = match (a.data_type(), b.data_type()) {
        (x, y) if x == y => x.clone(),
        (DataType::Struct(fa), DataType::Struct(fb)) => {
            DataType::Struct(merge_fields(fa, fb, &path)?)
        }
        (x, y) if x.equals_datatype(y) => x.clone(),
        // Lists of structs (ULog arrays of nested messages) merge their
        // items.
        (DataType::List(ia), DataType::List(ib)) => {
            DataType::List(Arc::new(merge_field(ia, ib, &format!("{path}[]"))?))
        }
        (DataType::FixedSizeList(ia, n), DataType::FixedSizeList(ib, m)) if n == m => {
            DataType::FixedSizeList(Arc::new(merge_field(ia, ib, &format!("{path}[]"))?), *n)
        }
        (x, y) if widen(x, y).is_some() => widen(x, y).unwrap_or_else(|| x.clone()),
        (x, y) => {
            return Err(Conflict {
                path,
                reason: format!("{y} here, {x} in the logs before"),
            });
        }
    };
    let mut meta = a.metadata().clone();
    meta.retain(|k, v| b.metadata().get(k) == Some(v));
    Ok(Field::new(a.name(), ty, a.is_nullable() || b.is_nullable()).with_metadata(meta))
}

/// The type that holds the numbers of both `x` and `y`, as the values of
/// one log are widened (`robolog_arrow` tables): integers of one
/// signedness to the wider, a signed and an unsigned integer to the
/// narrowest signed integer holding both (at most `Int64`), an integer and
/// a float, or two floats of different widths, to `Float64`. `None` for
/// anything else.
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
    let float = |t: &DataType| matches!(t, Float16 | Float32 | Float64);
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
    match (int(x), int(y)) {
        (Some((sx, bx)), Some((sy, by))) if sx == sy => {
            let bits = bx.max(by);
            Some(if sx { signed(bits) } else { unsigned(bits) })
        }
        (Some((sx, bx)), Some((_, by))) => {
            let (s, u) = if sx { (bx, by) } else { (by, bx) };
            Some(signed(s.max(u * 2).min(64)))
        }
        _ if x != y && (float(x) || int(x).is_some()) && (float(y) || int(y).is_some()) => {
            Some(Float64)
        }
        _ => None,
    }
}

/// The schema of a table with the `log` column first.
pub(crate) fn with_log_column(schema: &Schema) -> Schema {
    let mut fields: Vec<FieldRef> = vec![Arc::new(Field::new(LOG, DataType::Utf8, false))];
    fields.extend(schema.fields().iter().cloned());
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

/// `batch` (some of a log's columns) as a batch of `target`: the `log`
/// column filled with `log_id`, columns the log lacks as nulls, structs
/// rebuilt with the merged fields.
pub(crate) fn align(
    batch: &RecordBatch,
    target: &SchemaRef,
    log_id: &str,
) -> Result<RecordBatch, ArrowError> {
    let rows = batch.num_rows();
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(target.fields().len());
    for f in target.fields() {
        if f.name() == LOG {
            columns.push(Arc::new(StringArray::from_iter_values(
                std::iter::repeat_n(log_id, rows),
            )));
            continue;
        }
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
    match (a.data_type(), target) {
        (DataType::Struct(_), DataType::Struct(tf)) => {
            let s = a
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(|| ArrowError::SchemaError("a struct column is not a struct".into()))?;
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
                .ok_or_else(|| ArrowError::SchemaError("a list column is not a list".into()))?;
            let values = align_array(l.values(), item.data_type())?;
            Ok(Arc::new(ListArray::try_new(
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
                .ok_or_else(|| ArrowError::SchemaError("a list column is not a list".into()))?;
            let values = align_array(l.values(), item.data_type())?;
            Ok(Arc::new(FixedSizeListArray::try_new(
                item.clone(),
                *n,
                values,
                l.nulls().cloned(),
            )?))
        }
        // Numbers widened across logs (see `widen`).
        (x, y) if widen(x, y).as_ref() == Some(y) => datafusion::arrow::compute::cast(a, y),
        // Equal but for field names, nullability or metadata inside lists.
        (x, y) if x.equals_datatype(y) => Ok(arrow_array::make_array(
            a.to_data().into_builder().data_type(y.clone()).build()?,
        )),
        (x, y) => Err(ArrowError::SchemaError(format!(
            "a column of type {x} does not fit the merged type {y}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float32Type, Int32Type};
    use arrow_array::{Float32Array, Int32Array};

    fn st(fields: Vec<Field>) -> DataType {
        DataType::Struct(fields.into())
    }

    #[test]
    fn numbers_widen_as_within_one_log() {
        use DataType::*;
        for (x, y, want) in [
            (Int8, Int32, Some(Int32)),
            (UInt16, UInt64, Some(UInt64)),
            (Int8, UInt8, Some(Int16)),
            (UInt32, Int16, Some(Int64)),
            (UInt64, Int64, Some(Int64)),
            (Int64, Float32, Some(Float64)),
            (Float32, Float64, Some(Float64)),
            (UInt32, Float32, Some(Float64)),
            (Int32, Utf8, None),
            (Float32, Boolean, None),
        ] {
            assert_eq!(widen(&x, &y), want, "{x} {y}");
            assert_eq!(widen(&y, &x), want, "{y} {x}");
        }
    }

    #[test]
    fn merges_columns_and_struct_fields() {
        let a = Schema::new(vec![
            Field::new("x", DataType::Int32, false),
            Field::new(
                "p",
                st(vec![Field::new("a", DataType::Float32, false)]),
                true,
            ),
        ]);
        let b = Schema::new(vec![
            Field::new("p", st(vec![Field::new("b", DataType::Int32, false)]), true),
            Field::new("y", DataType::Utf8, false),
        ]);
        let m = merge(&a, &b).unwrap();
        let names: Vec<_> = m.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["x", "p", "y"]);
        assert!(m.field(0).is_nullable() && m.field(2).is_nullable());
        assert_eq!(
            m.field(1).data_type(),
            &st(vec![
                Field::new("a", DataType::Float32, true),
                Field::new("b", DataType::Int32, true)
            ])
        );
        // Numbers widen, as within one log.
        let c = Schema::new(vec![Field::new(
            "p",
            st(vec![Field::new("a", DataType::Float64, false)]),
            true,
        )]);
        let w = merge(&m, &c).unwrap();
        assert_eq!(
            w.field(1).data_type(),
            &st(vec![
                Field::new("a", DataType::Float64, true),
                Field::new("b", DataType::Int32, true)
            ])
        );
        // Text does not hold a number.
        let c = Schema::new(vec![Field::new(
            "p",
            st(vec![Field::new("a", DataType::Utf8, false)]),
            true,
        )]);
        let e = merge(&m, &c).unwrap_err();
        assert_eq!(e.path, "p.a");
        assert_eq!(e.reason, "Utf8 here, Float32 in the logs before");
    }

    #[test]
    fn lists_of_structs_merge_their_items() {
        let item = |f: Vec<Field>| Arc::new(Field::new("item", st(f), false));
        let a = Schema::new(vec![Field::new(
            "esc",
            DataType::List(item(vec![Field::new("rpm", DataType::Int32, false)])),
            true,
        )]);
        let b = Schema::new(vec![Field::new(
            "esc",
            DataType::List(item(vec![Field::new("power", DataType::Int8, false)])),
            true,
        )]);
        let m = merge(&a, &b).unwrap();
        let DataType::List(i) = m.field(0).data_type() else {
            panic!("{m:?}")
        };
        assert_eq!(
            i.data_type(),
            &st(vec![
                Field::new("rpm", DataType::Int32, true),
                Field::new("power", DataType::Int8, true)
            ])
        );
        let c = Schema::new(vec![Field::new(
            "esc",
            DataType::List(item(vec![Field::new("rpm", DataType::Utf8, false)])),
            true,
        )]);
        let e = merge(&m, &c).unwrap_err();
        assert_eq!(e.path, "esc[].rpm");
        // A batch of the first log fits the merged type.
        let values = StructArray::new(
            vec![Field::new("rpm", DataType::Int32, false)].into(),
            vec![Arc::new(Int32Array::from(vec![1, 2, 3]))],
            None,
        );
        let list = ListArray::new(
            item(vec![Field::new("rpm", DataType::Int32, false)]),
            datafusion::arrow::buffer::OffsetBuffer::from_lengths([2, 1]),
            Arc::new(values),
            None,
        );
        let batch = RecordBatch::try_new(Arc::new(a), vec![Arc::new(list)]).unwrap();
        let out = align(&batch, &Arc::new(m), "x").unwrap();
        let l = out.column(0).as_list::<i32>();
        assert_eq!(l.value_length(0), 2);
        assert_eq!(l.values().as_struct().column(1).null_count(), 3);
    }

    #[test]
    fn aligns_batches_to_the_merged_schema() {
        let inner = Fields::from(vec![Field::new("a", DataType::Float32, false)]);
        let s = StructArray::new(
            inner.clone(),
            vec![Arc::new(Float32Array::from(vec![1.5, 2.5]))],
            None,
        );
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("x", DataType::Int32, false),
                Field::new("p", DataType::Struct(inner), true),
            ])),
            vec![Arc::new(Int32Array::from(vec![7, 8])), Arc::new(s)],
        )
        .unwrap();
        let target = Arc::new(Schema::new(vec![
            Field::new(LOG, DataType::Utf8, false),
            Field::new("x", DataType::Int32, true),
            Field::new("y", DataType::Utf8, true),
            Field::new(
                "p",
                st(vec![
                    Field::new("a", DataType::Float32, true),
                    Field::new("b", DataType::Int32, true),
                ]),
                true,
            ),
        ]));
        let out = align(&batch, &target, "f.ulg").unwrap();
        assert_eq!(out.column(0).as_string::<i32>().value(1), "f.ulg");
        assert_eq!(out.column(1).as_primitive::<Int32Type>().value(1), 8);
        assert_eq!(out.column(2).null_count(), 2);
        let p = out.column(3).as_struct();
        assert_eq!(p.column(0).as_primitive::<Float32Type>().value(0), 1.5);
        assert_eq!(p.column(1).null_count(), 2);
    }
}
