//! [`ValueType`] to Arrow [`DataType`], and columns of [`Value`]s to Arrow
//! arrays of that type.
//!
//! Arrays are built row by row ([`Column`]): a struct value's fields go
//! into one child column each, an array's elements into its list's child
//! column (typed arrays such as [`Value::F32Array`] as one slice, without
//! a `Value` per element), so a decoded message can be dropped, or its
//! allocations reused for the next, as soon as it is appended.

pub(crate) mod cdr;
pub(crate) mod direct;
pub(crate) mod ros1;

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, BooleanBuilder, StringBuilder};
use arrow_array::types::ArrowPrimitiveType;
use arrow_array::types::{
    DurationNanosecondType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampNanosecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{ArrayRef, FixedSizeListArray, ListArray, PrimitiveArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field as ArrowField, FieldRef, Fields, TimeUnit};
use logcore::{Field, FieldName, Value, ValueType};

/// The Arrow type of values of type `t`: integers keep their width, fixed
/// arrays become `FixedSizeList`, lists `List`, structs `Struct`, strings
/// `Utf8`, bytes `Binary`, times `Timestamp(ns)`, durations
/// `Duration(ns)`, and [`ValueType::Any`] `Utf8` holding the value's JSON.
/// A struct without fields (ROS `std_msgs/Empty`) is a `Boolean`, true
/// where the value is there: Parquet has no empty groups, and a `Null`
/// column inside a list does not survive it.
///
/// ```
/// use arrow_schema::DataType;
/// use logcore::ValueType;
/// let t = ValueType::fixed(ValueType::F64, 9);
/// let DataType::FixedSizeList(item, 9) = robolog_arrow::data_type(&t) else { panic!() };
/// assert_eq!(item.data_type(), &DataType::Float64);
/// ```
pub fn data_type(t: &ValueType) -> DataType {
    match t {
        ValueType::Bool => DataType::Boolean,
        ValueType::I8 => DataType::Int8,
        ValueType::I16 => DataType::Int16,
        ValueType::I32 => DataType::Int32,
        ValueType::I64 => DataType::Int64,
        ValueType::U8 => DataType::UInt8,
        ValueType::U16 => DataType::UInt16,
        ValueType::U32 => DataType::UInt32,
        ValueType::U64 => DataType::UInt64,
        ValueType::F32 => DataType::Float32,
        ValueType::F64 => DataType::Float64,
        ValueType::String | ValueType::Any => DataType::Utf8,
        ValueType::Bytes => DataType::Binary,
        ValueType::Time => DataType::Timestamp(TimeUnit::Nanosecond, None),
        ValueType::Duration => DataType::Duration(TimeUnit::Nanosecond),
        ValueType::FixedArray(e, n) => {
            DataType::FixedSizeList(item_field(e), i32::try_from(*n).unwrap_or(i32::MAX))
        }
        ValueType::List(e) => DataType::List(item_field(e)),
        ValueType::Struct(fields) if fields.is_empty() => DataType::Boolean,
        ValueType::Struct(fields) => DataType::Struct(struct_fields(fields)),
    }
}

/// The Arrow field of a struct field.
pub(crate) fn arrow_field(f: &Field) -> ArrowField {
    let dt = data_type(&f.ty);
    let nullable = f.nullable || maybe_null(&f.ty);
    ArrowField::new(f.name.as_str(), dt, nullable)
}

/// Whether values of `t` may be null even where the field is required:
/// `Any` (JSON `null`).
fn maybe_null(t: &ValueType) -> bool {
    matches!(t, ValueType::Any)
}

fn item_field(e: &ValueType) -> FieldRef {
    Arc::new(ArrowField::new("item", data_type(e), maybe_null(e)))
}

fn struct_fields(fields: &[Field]) -> Fields {
    fields.iter().map(arrow_field).collect()
}

/// A value that does not fit the column's type, at row `row` of the
/// column being built.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Misfit {
    pub(crate) row: usize,
    pub(crate) reason: String,
}

/// Builds the array of `rows` (one value per row; `None` for a null row)
/// of type `t`. A row whose value does not fit `t` is a [`Misfit`] naming
/// the row.
#[cfg(test)]
pub(crate) fn build(t: &ValueType, rows: &[Option<&Value>]) -> Result<ArrayRef, Misfit> {
    let mut c = Column::new(t, rows.len());
    for (row, r) in rows.iter().enumerate() {
        c.append(*r).map_err(|reason| Misfit { row, reason })?;
    }
    c.finish().map_err(|reason| Misfit { row: 0, reason })
}

/// A column being built row by row: each [`append`](Column::append)ed
/// value goes straight into the typed buffers of its Arrow array (a
/// struct's fields into one child column each, an array's elements into
/// its child column), so a message needs no place of its own once it is
/// appended. [`finish`](Column::finish) hands out the array and leaves the
/// column empty for the next batch.
pub(crate) struct Column {
    ty: ValueType,
    b: Builder,
}

/// The buffers of a [`Column`], by type.
enum Builder {
    Bool(BooleanBuilder),
    /// A struct without fields: true where there is a value.
    Empty(BooleanBuilder),
    I8(Prim<Int8Type>),
    I16(Prim<Int16Type>),
    I32(Prim<Int32Type>),
    I64(Prim<Int64Type>),
    U8(Prim<UInt8Type>),
    U16(Prim<UInt16Type>),
    U32(Prim<UInt32Type>),
    U64(Prim<UInt64Type>),
    F32(Prim<Float32Type>),
    F64(Prim<Float64Type>),
    Time(Prim<TimestampNanosecondType>),
    Duration(Prim<DurationNanosecondType>),
    Str(StringBuilder),
    /// [`ValueType::Any`]: the value's JSON text.
    Any(StringBuilder),
    Bin(BinaryBuilder),
    Struct {
        fields: Vec<Field>,
        children: Vec<Column>,
        valid: NullBufferBuilder,
    },
    Fixed {
        elem: ValueType,
        n: usize,
        child: Box<Column>,
        valid: NullBufferBuilder,
    },
    List {
        elem: ValueType,
        offsets: Vec<i64>,
        child: Box<Column>,
        valid: NullBufferBuilder,
    },
}

/// The values and validity of a primitive column: what arrow's
/// `PrimitiveBuilder` keeps, with appends small enough to inline into the
/// decoders' loops.
pub(crate) struct Prim<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    nulls: NullBufferBuilder,
}

impl<T: ArrowPrimitiveType> Prim<T> {
    fn with_capacity(rows: usize) -> Self {
        Prim {
            values: Vec::with_capacity(rows),
            nulls: NullBufferBuilder::new(rows),
        }
    }

    #[inline(always)]
    pub(crate) fn append_value(&mut self, v: T::Native) {
        self.values.push(v);
        self.nulls.append_non_null();
    }

    #[inline]
    pub(crate) fn append_slice(&mut self, v: &[T::Native]) {
        self.values.extend_from_slice(v);
        self.nulls.append_n_non_nulls(v.len());
    }

    /// Appends every value of `v`.
    #[inline]
    pub(crate) fn append_iter(&mut self, v: impl ExactSizeIterator<Item = T::Native>) {
        let n = v.len();
        self.values.extend(v);
        self.nulls.append_n_non_nulls(n);
    }

    #[inline]
    pub(crate) fn append_value_n(&mut self, v: T::Native, n: usize) {
        self.values.resize(self.values.len() + n, v);
        self.nulls.append_n_non_nulls(n);
    }

    fn append_null(&mut self) {
        self.values.push(T::Native::default());
        self.nulls.append_null();
    }

    /// The array of the values so far; the builder is left empty, with
    /// room for as many.
    fn finish(&mut self) -> PrimitiveArray<T> {
        let room = self.values.len();
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(room));
        PrimitiveArray::new(ScalarBuffer::from(values), self.nulls.finish())
    }
}

/// Appends a value to a primitive builder, or the misfit's reason.
macro_rules! put {
    ($b:expr, $v:expr, $t:expr, $get:expr) => {
        match $get {
            Some(x) => {
                $b.append_value(x);
                Ok(())
            }
            None => Err(misfit_reason($v, $t)),
        }
    };
}

impl Column {
    /// An empty column of type `t`, with room for `rows` rows.
    pub(crate) fn new(t: &ValueType, rows: usize) -> Column {
        let b = match t {
            ValueType::Bool => Builder::Bool(BooleanBuilder::with_capacity(rows)),
            ValueType::I8 => Builder::I8(Prim::with_capacity(rows)),
            ValueType::I16 => Builder::I16(Prim::with_capacity(rows)),
            ValueType::I32 => Builder::I32(Prim::with_capacity(rows)),
            ValueType::I64 => Builder::I64(Prim::with_capacity(rows)),
            ValueType::U8 => Builder::U8(Prim::with_capacity(rows)),
            ValueType::U16 => Builder::U16(Prim::with_capacity(rows)),
            ValueType::U32 => Builder::U32(Prim::with_capacity(rows)),
            ValueType::U64 => Builder::U64(Prim::with_capacity(rows)),
            ValueType::F32 => Builder::F32(Prim::with_capacity(rows)),
            ValueType::F64 => Builder::F64(Prim::with_capacity(rows)),
            ValueType::Time => Builder::Time(Prim::with_capacity(rows)),
            ValueType::Duration => Builder::Duration(Prim::with_capacity(rows)),
            ValueType::String => Builder::Str(StringBuilder::with_capacity(rows, rows * 8)),
            ValueType::Any => Builder::Any(StringBuilder::with_capacity(rows, rows * 8)),
            ValueType::Bytes => Builder::Bin(BinaryBuilder::with_capacity(rows, 0)),
            ValueType::Struct(fields) if fields.is_empty() => {
                Builder::Empty(BooleanBuilder::with_capacity(rows))
            }
            ValueType::Struct(fields) => Builder::Struct {
                fields: fields.clone(),
                children: fields.iter().map(|f| Column::new(&f.ty, rows)).collect(),
                valid: NullBufferBuilder::new(rows),
            },
            ValueType::FixedArray(e, n) => Builder::Fixed {
                elem: (**e).clone(),
                n: *n,
                child: Box::new(Column::new(e, rows.saturating_mul(*n))),
                valid: NullBufferBuilder::new(rows),
            },
            ValueType::List(e) => {
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0);
                Builder::List {
                    elem: (**e).clone(),
                    offsets,
                    child: Box::new(Column::new(e, 0)),
                    valid: NullBufferBuilder::new(rows),
                }
            }
        };
        Column { ty: t.clone(), b }
    }

    /// Appends one row: `None` (or [`Value::Null`]) is a null row. A value
    /// that does not fit the column's type is refused with the reason; the
    /// column is then left part-way through the row and must not be
    /// finished.
    pub(crate) fn append(&mut self, v: Option<&Value>) -> Result<(), String> {
        let Some(v) = v.filter(|v| !matches!(v, Value::Null)) else {
            self.append_null();
            return Ok(());
        };
        let t = &self.ty;
        match &mut self.b {
            Builder::Bool(b) => put!(
                b,
                v,
                t,
                match *v {
                    Value::Bool(x) => Some(x),
                    _ => None,
                }
            ),
            Builder::I8(b) => put!(b, v, t, int(v).map(|x| x as i8)),
            Builder::I16(b) => put!(b, v, t, int(v).map(|x| x as i16)),
            Builder::I32(b) => put!(b, v, t, int(v).map(|x| x as i32)),
            Builder::I64(b) => put!(b, v, t, int(v)),
            Builder::U8(b) => put!(b, v, t, uint(v).map(|x| x as u8)),
            Builder::U16(b) => put!(b, v, t, uint(v).map(|x| x as u16)),
            Builder::U32(b) => put!(b, v, t, uint(v).map(|x| x as u32)),
            Builder::U64(b) => put!(b, v, t, uint(v)),
            Builder::F32(b) => put!(
                b,
                v,
                t,
                match *v {
                    Value::F32(x) => Some(x),
                    _ => None,
                }
            ),
            Builder::F64(b) => put!(
                b,
                v,
                t,
                match *v {
                    Value::F64(x) => Some(x),
                    Value::F32(x) => Some(f64::from(x)),
                    Value::I64(x) => Some(x as f64),
                    Value::U64(x) => Some(x as f64),
                    _ => None,
                }
            ),
            Builder::Time(b) => put!(
                b,
                v,
                t,
                match *v {
                    Value::Time(x) => Some(x.as_nanos()),
                    _ => None,
                }
            ),
            Builder::Duration(b) => put!(
                b,
                v,
                t,
                match *v {
                    Value::Duration(x) => Some(x),
                    _ => None,
                }
            ),
            Builder::Str(b) => {
                match v {
                    Value::String(s) => b.append_value(s),
                    // A ROS string whose bytes are not UTF-8 decodes to
                    // bytes; Arrow text must be UTF-8, so it is kept with
                    // U+FFFD for each invalid sequence, as most tools show it.
                    Value::Bytes(x) => b.append_value(String::from_utf8_lossy(x)),
                    // A protobuf enum number its enum does not name (the
                    // names are the column's values).
                    Value::I64(n) => b.append_value(n.to_string()),
                    _ => return Err(misfit_reason(v, t)),
                }
                Ok(())
            }
            Builder::Any(b) => {
                b.append_value(json(v));
                Ok(())
            }
            Builder::Bin(b) => put!(
                b,
                v,
                t,
                match v {
                    Value::Bytes(x) => Some(x),
                    _ => None,
                }
            ),
            Builder::Empty(b) => put!(
                b,
                v,
                t,
                match v {
                    Value::Struct(_) => Some(true),
                    _ => None,
                }
            ),
            Builder::Struct {
                fields,
                children,
                valid,
            } => {
                let Value::Struct(vf) = v else {
                    return Err(format!("{} where a struct is declared", v.kind()));
                };
                for (k, (f, c)) in fields.iter().zip(children.iter_mut()).enumerate() {
                    c.append(field_at(vf, k, &f.name))
                        .map_err(|r| format!("{}: {r}", f.name))?;
                }
                valid.append_non_null();
                Ok(())
            }
            Builder::Fixed {
                elem,
                n,
                child,
                valid,
            } => {
                if array_len(elem, v) != Some(*n) {
                    return Err(format!(
                        "{} where an array of {n} {} is declared",
                        v.kind(),
                        elem.name()
                    ));
                }
                child.append_elements(v)?;
                valid.append_non_null();
                Ok(())
            }
            Builder::List {
                elem,
                offsets,
                child,
                valid,
            } => {
                let Some(len) = array_len(elem, v) else {
                    return Err(misfit_reason(v, t));
                };
                child.append_elements(v)?;
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last + len as i64);
                valid.append_non_null();
                Ok(())
            }
        }
    }

    /// Appends a null row (a fixed-size list's elements as Arrow requires:
    /// `n` placeholder elements).
    fn append_null(&mut self) {
        match &mut self.b {
            Builder::Bool(b) | Builder::Empty(b) => b.append_null(),
            Builder::I8(b) => b.append_null(),
            Builder::I16(b) => b.append_null(),
            Builder::I32(b) => b.append_null(),
            Builder::I64(b) => b.append_null(),
            Builder::U8(b) => b.append_null(),
            Builder::U16(b) => b.append_null(),
            Builder::U32(b) => b.append_null(),
            Builder::U64(b) => b.append_null(),
            Builder::F32(b) => b.append_null(),
            Builder::F64(b) => b.append_null(),
            Builder::Time(b) => b.append_null(),
            Builder::Duration(b) => b.append_null(),
            Builder::Str(b) | Builder::Any(b) => b.append_null(),
            Builder::Bin(b) => b.append_null(),
            Builder::Struct {
                children, valid, ..
            } => {
                for c in children {
                    c.append_null();
                }
                valid.append_null();
            }
            Builder::Fixed {
                n, child, valid, ..
            } => {
                child.append_placeholders(*n);
                valid.append_null();
            }
            Builder::List { offsets, valid, .. } => {
                offsets.push(offsets.last().copied().unwrap_or(0));
                valid.append_null();
            }
        }
    }

    /// `n` elements under a null fixed-size list row: zeros for numbers
    /// (the item field is not nullable), nulls otherwise.
    fn append_placeholders(&mut self, n: usize) {
        match &mut self.b {
            Builder::U8(b) => b.append_value_n(0, n),
            Builder::I8(b) => b.append_value_n(0, n),
            Builder::F32(b) => b.append_value_n(0.0, n),
            Builder::F64(b) => b.append_value_n(0.0, n),
            _ => (0..n).for_each(|_| self.append_null()),
        }
    }

    /// Appends the elements of the array `v` (in any of its forms: typed
    /// arrays go in as one slice).
    fn append_elements(&mut self, v: &Value) -> Result<(), String> {
        match (v, &mut self.b) {
            (Value::Bytes(x), Builder::U8(b)) => b.append_slice(x),
            (Value::Bytes(x), Builder::I8(b)) => x.iter().for_each(|&x| b.append_value(x as i8)),
            (Value::F32Array(x), Builder::F32(b)) => b.append_slice(x),
            (Value::F64Array(x), Builder::F64(b)) => b.append_slice(x),
            (Value::F32Array(x), Builder::F64(b)) => {
                x.iter().for_each(|&x| b.append_value(f64::from(x)))
            }
            (Value::Array(items), _) => {
                for (i, x) in items.iter().enumerate() {
                    self.append(Some(x))
                        .map_err(|r| format!("element {i}: {r}"))?;
                }
            }
            _ => return Err(format!("{} where an array is declared", v.kind())),
        }
        Ok(())
    }

    /// The array of the rows appended since the last call; the column is
    /// left empty.
    pub(crate) fn finish(&mut self) -> Result<ArrayRef, String> {
        Ok(match &mut self.b {
            Builder::Bool(b) | Builder::Empty(b) => Arc::new(b.finish()),
            Builder::I8(b) => Arc::new(b.finish()),
            Builder::I16(b) => Arc::new(b.finish()),
            Builder::I32(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::U8(b) => Arc::new(b.finish()),
            Builder::U16(b) => Arc::new(b.finish()),
            Builder::U32(b) => Arc::new(b.finish()),
            Builder::U64(b) => Arc::new(b.finish()),
            Builder::F32(b) => Arc::new(b.finish()),
            Builder::F64(b) => Arc::new(b.finish()),
            Builder::Time(b) => Arc::new(b.finish()),
            Builder::Duration(b) => Arc::new(b.finish()),
            Builder::Str(b) | Builder::Any(b) => Arc::new(b.finish()),
            Builder::Bin(b) => Arc::new(b.finish()),
            Builder::Struct {
                fields,
                children,
                valid,
            } => {
                let arrays = children
                    .iter_mut()
                    .map(Column::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                Arc::new(
                    StructArray::try_new(struct_fields(fields), arrays, valid.finish())
                        .map_err(|e| e.to_string())?,
                )
            }
            Builder::Fixed {
                elem,
                n,
                child,
                valid,
            } => {
                let size = i32::try_from(*n)
                    .map_err(|_| format!("an array of {n} elements is too long for Arrow"))?;
                Arc::new(
                    FixedSizeListArray::try_new(
                        item_field(elem),
                        size,
                        child.finish()?,
                        valid.finish(),
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
            Builder::List {
                elem,
                offsets,
                child,
                valid,
            } => {
                let total = offsets.last().copied().unwrap_or(0);
                if i32::try_from(total).is_err() {
                    return Err(format!(
                        "{total} list elements in one batch are too many for an Arrow list"
                    ));
                }
                let o: Vec<i32> = offsets.iter().map(|&x| x as i32).collect();
                offsets.clear();
                offsets.push(0);
                Arc::new(
                    ListArray::try_new(
                        item_field(elem),
                        OffsetBuffer::new(o.into()),
                        child.finish()?,
                        valid.finish(),
                    )
                    .map_err(|e| e.to_string())?,
                )
            }
        })
    }
}

/// Field `k` of a struct value, found by position when the names agree
/// (every declared type), else by name (inferred types, where a message
/// may lack a field).
#[inline]
pub(crate) fn field_at<'v>(
    vf: &'v [(FieldName, Value)],
    k: usize,
    name: &FieldName,
) -> Option<&'v Value> {
    match vf.get(k) {
        Some((n, v)) if n == name => Some(v),
        _ => vf.iter().find(|(n, _)| n == name).map(|(_, v)| v),
    }
}

/// The number of elements of `v` as an array of `elem`, in any of its
/// forms, or `None` when it is no such array.
fn array_len(elem: &ValueType, v: &Value) -> Option<usize> {
    match (elem, v) {
        (ValueType::U8 | ValueType::I8, Value::Bytes(b)) => Some(b.len()),
        (ValueType::F32 | ValueType::F64, Value::F32Array(a)) => Some(a.len()),
        (ValueType::F64, Value::F64Array(a)) => Some(a.len()),
        (_, Value::Array(a)) => Some(a.len()),
        _ => None,
    }
}

fn int(v: &Value) -> Option<i64> {
    match *v {
        Value::I64(x) => Some(x),
        Value::U64(x) => i64::try_from(x).ok(),
        _ => None,
    }
}

fn uint(v: &Value) -> Option<u64> {
    match *v {
        Value::U64(x) => Some(x),
        Value::I64(x) => u64::try_from(x).ok(),
        _ => None,
    }
}

fn misfit_reason(v: &Value, t: &ValueType) -> String {
    format!("{} where {} is declared", v.kind(), t.name())
}

/// The JSON text of a value, as `robolog cat --json` prints it.
pub(crate) fn json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int16Type, TimestampNanosecondType, UInt8Type};
    use arrow_array::{Array, StructArray};
    use logcore::Timestamp;

    use super::*;

    fn imu_like() -> ValueType {
        ValueType::Struct(vec![
            Field::new(
                "header",
                ValueType::record([("stamp", ValueType::Time), ("frame_id", ValueType::String)]),
            ),
            Field::new("covariance", ValueType::fixed(ValueType::F64, 3)),
            Field::new(
                "points",
                ValueType::list(ValueType::record([("x", ValueType::I16)])),
            ),
            Field::new("blob", ValueType::Bytes),
            Field::nullable("opt", ValueType::list(ValueType::U8)),
        ])
    }

    fn row(t: i64, frame: &str, cov: [f64; 3], xs: &[i64], opt: Option<Vec<u8>>) -> Value {
        Value::record([
            (
                "header",
                Value::record([
                    ("stamp", Value::Time(Timestamp::from_nanos(t))),
                    ("frame_id", Value::String(frame.into())),
                ]),
            ),
            ("covariance", Value::F64Array(cov.to_vec())),
            (
                "points",
                Value::Array(
                    xs.iter()
                        .map(|&x| Value::record([("x", Value::I64(x))]))
                        .collect(),
                ),
            ),
            ("blob", Value::Bytes(vec![t as u8; 2])),
            ("opt", opt.map_or(Value::Null, Value::Bytes)),
        ])
    }

    #[test]
    fn nested_values_land_in_typed_arrays() {
        let t = imu_like();
        let rows = [
            row(5, "base", [1.0, 2.0, 3.0], &[-1, 2], Some(vec![7, 8])),
            row(6, "odom", [4.0, 5.0, 6.0], &[], None),
            row(7, "map", [7.0, 8.0, 9.0], &[300], Some(vec![])),
        ];
        let refs: Vec<Option<&Value>> = rows.iter().map(Some).collect();
        let a = build(&t, &refs).expect("fits");
        assert_eq!(a.data_type(), &data_type(&t));
        let s: &StructArray = a.as_struct();
        let header = s.column(0).as_struct();
        let stamps = header.column(0).as_primitive::<TimestampNanosecondType>();
        assert_eq!(stamps.values().to_vec(), vec![5, 6, 7]);
        assert_eq!(header.column(1).as_string::<i32>().value(1), "odom");
        let cov = s.column(1).as_fixed_size_list();
        let cov2 = cov.value(2);
        assert_eq!(
            cov2.as_primitive::<Float64Type>().values().to_vec(),
            vec![7.0, 8.0, 9.0]
        );
        let points = s.column(2).as_list::<i32>();
        assert_eq!(points.value_offsets(), &[0, 2, 2, 3]);
        let xs = points
            .values()
            .as_struct()
            .column(0)
            .as_primitive::<Int16Type>();
        assert_eq!(xs.values().to_vec(), vec![-1, 2, 300]);
        assert_eq!(s.column(3).as_binary::<i32>().value(2), &[7, 7]);
        let opt = s.column(4).as_list::<i32>();
        assert!(opt.is_valid(0) && opt.is_null(1) && opt.is_valid(2));
        let bytes = opt.value(0);
        assert_eq!(
            bytes.as_primitive::<UInt8Type>().values().to_vec(),
            vec![7, 8]
        );
        assert_eq!(opt.value(2).len(), 0);
    }

    #[test]
    fn values_that_do_not_fit_name_the_row_and_field() {
        let t = imu_like();
        let good = row(5, "base", [1.0, 2.0, 3.0], &[], None);
        let mut bad = row(6, "odom", [1.0, 2.0, 3.0], &[], None);
        if let Value::Struct(f) = &mut bad {
            f[1].1 = Value::F64Array(vec![1.0]);
        }
        let err = build(&t, &[Some(&good), Some(&bad)]).unwrap_err();
        assert_eq!(err.row, 1);
        assert_eq!(
            err.reason,
            "covariance: an array where an array of 3 float64 is declared"
        );
        let err = build(&ValueType::U16, &[Some(&Value::String("x".into()))]).unwrap_err();
        assert_eq!(err.reason, "a string where uint16 is declared");
    }

    #[test]
    fn any_holds_the_json_and_empty_structs_are_true() {
        let v = Value::record([("a", Value::F64(f64::NAN))]);
        let a = build(&ValueType::Any, &[Some(&v), None]).expect("any fits");
        let s = a.as_string::<i32>();
        assert_eq!(s.value(0), r#"{"a":"NaN"}"#);
        assert!(s.is_null(1));
        let empty = ValueType::fixed(ValueType::Struct(vec![]), 2);
        let two = Value::Array(vec![Value::Struct(vec![]), Value::Struct(vec![])]);
        let e = build(&empty, &[Some(&two), None]).expect("empty structs");
        let e = e.as_fixed_size_list();
        assert_eq!(e.values().len(), 4);
        assert_eq!(e.value(0).as_boolean().true_count(), 2);
        assert!(e.is_null(1));
    }
}
