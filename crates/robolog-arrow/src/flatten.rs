//! Spreading nested columns out into flat ones: a struct column `a` becomes
//! one column per field, `a.b`, ..., and a fixed-size list `a` of at most
//! a chosen number of items one column per item, `a[0]`, `a[1]`, ...,
//! down to columns that are neither (scalars, strings, bytes,
//! variable-length lists, longer arrays), which are kept as they are.
//!
//! A null struct or array makes each of its columns null in that row. A
//! column is nullable when its field or any field enclosing it is, so
//! every batch of a table flattens to the same schema. Field metadata
//! (the clock of `log_time`) is kept.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::ArrowPrimitiveType;
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, PrimitiveArray, RecordBatch, RecordBatchOptions,
    UInt64Array, downcast_primitive_array,
};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use arrow_select::take::take;

/// The flat fields and columns of `fields` and their `columns` (the same
/// number of each; all columns of the same length). Fixed-size lists of
/// at most `max_array_items` items are spread out, longer ones kept.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Array, ArrayRef, Int32Array, StructArray};
/// use arrow_schema::{DataType, Field};
/// let b: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
/// let a = StructArray::from(vec![(Arc::new(Field::new("b", DataType::Int32, false)), b)]);
/// let field = Field::new("a", a.data_type().clone(), false);
/// let (fields, _) = robolog_arrow::flatten::flatten_columns(&[field], &[Arc::new(a)], 16)?;
/// assert_eq!(fields[0].name(), "a.b");
/// # Ok::<(), arrow_schema::ArrowError>(())
/// ```
pub fn flatten_columns(
    fields: &[impl AsRef<Field>],
    columns: &[ArrayRef],
    max_array_items: usize,
) -> Result<(Vec<Field>, Vec<ArrayRef>), ArrowError> {
    if fields.len() != columns.len() {
        return Err(ArrowError::InvalidArgumentError(format!(
            "{} fields for {} columns",
            fields.len(),
            columns.len()
        )));
    }
    let mut out = Flat {
        max_array_items,
        fields: Vec::with_capacity(fields.len()),
        columns: Vec::with_capacity(columns.len()),
    };
    for (f, c) in fields.iter().zip(columns) {
        let f = f.as_ref();
        out.column(f.name().clone(), f, false, c, None)?;
    }
    Ok((out.fields, out.columns))
}

/// `batch` with its columns flattened (see [`flatten_columns`]), the
/// schema's metadata kept.
pub fn flatten_batch(
    batch: &RecordBatch,
    max_array_items: usize,
) -> Result<RecordBatch, ArrowError> {
    let schema = batch.schema();
    if !schema
        .fields()
        .iter()
        .any(|f| spreads(f.data_type(), max_array_items))
    {
        return Ok(batch.clone());
    }
    let (fields, columns) = flatten_columns(schema.fields(), batch.columns(), max_array_items)?;
    let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
    let opts = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(Arc::new(schema), columns, &opts)
}

/// The flat schema of `schema`: the schema of [`flatten_batch`]'s batches.
pub fn flatten_schema(schema: &Schema, max_array_items: usize) -> Result<Schema, ArrowError> {
    let empty = RecordBatch::new_empty(Arc::new(schema.clone()));
    Ok(flatten_batch(&empty, max_array_items)?
        .schema()
        .as_ref()
        .clone())
}

/// Whether a column of type `t` is spread out.
fn spreads(t: &DataType, max_array_items: usize) -> bool {
    match t {
        DataType::Struct(_) => true,
        DataType::FixedSizeList(_, n) => usize::try_from(*n).is_ok_and(|n| n <= max_array_items),
        _ => false,
    }
}

/// The flat columns gathered so far.
struct Flat {
    max_array_items: usize,
    fields: Vec<Field>,
    columns: Vec<ArrayRef>,
}

impl Flat {
    /// Adds the columns of `array` (of `field`, named `name`); `nullable`
    /// is whether an enclosing field is nullable, `nulls` the rows where an
    /// enclosing struct or array is null.
    fn column(
        &mut self,
        name: String,
        field: &Field,
        nullable: bool,
        array: &ArrayRef,
        nulls: Option<&NullBuffer>,
    ) -> Result<(), ArrowError> {
        let nullable = nullable || field.is_nullable();
        match field.data_type() {
            DataType::Struct(children) => {
                let s = array.as_struct();
                let nulls = NullBuffer::union(nulls, s.nulls());
                for (f, c) in children.iter().zip(s.columns()) {
                    let n = format!("{name}.{}", f.name());
                    self.column(n, f, nullable, c, nulls.as_ref())?;
                }
            }
            DataType::FixedSizeList(item, n)
                if spreads(field.data_type(), self.max_array_items) =>
            {
                let l = array.as_fixed_size_list();
                let nulls = NullBuffer::union(nulls, l.nulls());
                for i in 0..*n {
                    let element = element(l, i as usize)?;
                    let n = format!("{name}[{i}]");
                    self.column(n, item, nullable, &element, nulls.as_ref())?;
                }
            }
            _ => {
                let array = match nulls {
                    Some(_) => {
                        let merged = NullBuffer::union(nulls, array.nulls());
                        let data = array.to_data().into_builder().nulls(merged).build()?;
                        arrow_array::make_array(data)
                    }
                    None => Arc::clone(array),
                };
                self.fields.push(
                    Field::new(name, field.data_type().clone(), nullable)
                        .with_metadata(field.metadata().clone()),
                );
                self.columns.push(array);
            }
        }
        Ok(())
    }
}

/// Item `i` of every array of `l`: primitive items without nulls copied
/// in one strided pass, others taken by index.
fn element(l: &FixedSizeListArray, i: usize) -> Result<ArrayRef, ArrowError> {
    let n = l.value_length() as usize;
    let items = l.values();
    if items.null_count() == 0 {
        downcast_primitive_array!(
            items => return Ok(strided(items, l.value_offset(0) as usize + i, n, l.len())),
            _ => {}
        );
    }
    let at = UInt64Array::from_iter_values(
        (0..l.len()).map(|r| (l.value_offset(r) as usize + i) as u64),
    );
    take(items, &at, None)
}

/// Every `step`th value of `a` from `first`, `len` of them.
fn strided<T: ArrowPrimitiveType>(
    a: &PrimitiveArray<T>,
    first: usize,
    step: usize,
    len: usize,
) -> ArrayRef {
    let v = a.values();
    let out: Vec<T::Native> = v
        .iter()
        .skip(first)
        .step_by(step.max(1))
        .take(len)
        .copied()
        .collect();
    Arc::new(
        PrimitiveArray::<T>::new(ScalarBuffer::from(out), None)
            .with_data_type(a.data_type().clone()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::types::Float64Type;
    use arrow_array::{FixedSizeListArray, Float64Array, Int32Array, StructArray};
    use std::collections::HashMap;

    /// A struct `p` (nullable, null in row 1) of `x` (int) and `c`
    /// (float64[2], null in row 2).
    fn nested() -> (Field, ArrayRef) {
        let c = FixedSizeListArray::from_iter_primitive::<Float64Type, _, _>(
            [
                Some(vec![Some(1.0), Some(2.0)]),
                Some(vec![Some(3.0), Some(4.0)]),
                None,
            ],
            2,
        );
        let x: ArrayRef = Arc::new(Int32Array::from(vec![10, 20, 30]));
        let c: ArrayRef = Arc::new(c);
        let fields = vec![
            Arc::new(
                Field::new("x", DataType::Int32, false)
                    .with_metadata(HashMap::from([("unit".into(), "m".into())])),
            ),
            Arc::new(Field::new("c", c.data_type().clone(), true)),
        ];
        let s = StructArray::new(
            fields.into(),
            vec![x, c],
            Some(NullBuffer::from(vec![true, false, true])),
        );
        (Field::new("p", s.data_type().clone(), true), Arc::new(s))
    }

    #[test]
    fn structs_and_arrays_spread_with_their_nulls() {
        let (f, a) = nested();
        let (fields, cols) = flatten_columns(&[f], &[a], 16).unwrap();
        let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["p.x", "p.c[0]", "p.c[1]"]);
        assert!(fields.iter().all(|f| f.is_nullable()));
        assert_eq!(fields[0].metadata()["unit"], "m");
        let x = cols[0].as_primitive::<arrow_array::types::Int32Type>();
        assert_eq!(x.iter().collect::<Vec<_>>(), [Some(10), None, Some(30)]);
        let c1 = cols[2].as_primitive::<Float64Type>();
        assert_eq!(c1.iter().collect::<Vec<_>>(), [Some(2.0), None, None]);
    }

    #[test]
    fn sliced_arrays_take_their_own_items() {
        let c = FixedSizeListArray::from_iter_primitive::<Float64Type, _, _>(
            [
                Some(vec![Some(1.0), Some(2.0)]),
                Some(vec![Some(3.0), Some(4.0)]),
                None,
            ],
            2,
        );
        let c: ArrayRef = Arc::new(c);
        let f = Field::new("c", c.data_type().clone(), true);
        let (_, cols) = flatten_columns(&[f], &[c.slice(1, 2)], 16).unwrap();
        let c0 = cols[0].as_primitive::<Float64Type>();
        assert_eq!(c0.iter().collect::<Vec<_>>(), [Some(3.0), None]);
        let c1 = cols[1].as_primitive::<Float64Type>();
        assert_eq!(c1.iter().collect::<Vec<_>>(), [Some(4.0), None]);
    }

    #[test]
    fn long_arrays_and_plain_columns_are_kept() {
        let (f, a) = nested();
        let (fields, cols) = flatten_columns(&[f], &[a], 1).unwrap();
        assert_eq!(fields[1].name(), "p.c");
        assert!(matches!(
            fields[1].data_type(),
            DataType::FixedSizeList(_, 2)
        ));
        assert_eq!(cols[1].null_count(), 2);
        let v: ArrayRef = Arc::new(Float64Array::from(vec![1.0]));
        let batch = RecordBatch::try_from_iter([("v", v)]).unwrap();
        assert_eq!(flatten_batch(&batch, 16).unwrap(), batch);
    }
}
