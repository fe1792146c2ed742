//! [`ValueType`] to Arrow [`DataType`], and columns of [`Value`]s to Arrow
//! arrays of that type.
//!
//! Arrays are built column by column: a struct column gathers its fields'
//! values from every row and builds one child array per field; a list
//! column gathers the elements of every row into one child column (typed
//! arrays such as [`Value::F32Array`] straight into a primitive buffer,
//! without a `Value` per element).

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, BooleanBuilder, StringBuilder};
use arrow_array::types::{
    DurationNanosecondType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampNanosecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, FixedSizeListArray, ListArray, PrimitiveArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field as ArrowField, FieldRef, Fields, TimeUnit};
use logcore::{Field, Value, ValueType};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Misfit {
    pub(crate) row: usize,
    pub(crate) reason: String,
}

type Built = Result<ArrayRef, Misfit>;

/// Builds the array of `rows` (one value per row; `None` for a null row)
/// of type `t`. A row whose value does not fit `t` is a [`Misfit`] naming
/// the row.
pub(crate) fn build(t: &ValueType, rows: &[Option<&Value>]) -> Built {
    match t {
        ValueType::Bool => {
            let mut b = BooleanBuilder::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                match r {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::Bool(v)) => b.append_value(*v),
                    Some(v) => return Err(misfit(i, v, t)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        ValueType::I8 => prim::<Int8Type>(t, rows, |v| int(v).map(|x| x as i8)),
        ValueType::I16 => prim::<Int16Type>(t, rows, |v| int(v).map(|x| x as i16)),
        ValueType::I32 => prim::<Int32Type>(t, rows, |v| int(v).map(|x| x as i32)),
        ValueType::I64 => prim::<Int64Type>(t, rows, int),
        ValueType::U8 => prim::<UInt8Type>(t, rows, |v| uint(v).map(|x| x as u8)),
        ValueType::U16 => prim::<UInt16Type>(t, rows, |v| uint(v).map(|x| x as u16)),
        ValueType::U32 => prim::<UInt32Type>(t, rows, |v| uint(v).map(|x| x as u32)),
        ValueType::U64 => prim::<UInt64Type>(t, rows, uint),
        ValueType::F32 => prim::<Float32Type>(t, rows, |v| match *v {
            Value::F32(x) => Some(x),
            _ => None,
        }),
        ValueType::F64 => prim::<Float64Type>(t, rows, |v| match *v {
            Value::F64(x) => Some(x),
            Value::F32(x) => Some(f64::from(x)),
            Value::I64(x) => Some(x as f64),
            Value::U64(x) => Some(x as f64),
            _ => None,
        }),
        ValueType::Time => prim::<TimestampNanosecondType>(t, rows, |v| match *v {
            Value::Time(x) => Some(x.as_nanos()),
            _ => None,
        }),
        ValueType::Duration => prim::<DurationNanosecondType>(t, rows, |v| match *v {
            Value::Duration(x) => Some(x),
            _ => None,
        }),
        ValueType::String => {
            let mut b = StringBuilder::with_capacity(rows.len(), rows.len() * 8);
            for (i, r) in rows.iter().enumerate() {
                match r {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::String(s)) => b.append_value(s),
                    // A ROS string whose bytes are not UTF-8 decodes to
                    // bytes; Arrow text must be UTF-8, so it is kept with
                    // U+FFFD for each invalid sequence, as most tools show it.
                    Some(Value::Bytes(x)) => b.append_value(String::from_utf8_lossy(x)),
                    // A protobuf enum number its enum does not name (the
                    // names are the column's values).
                    Some(Value::I64(n)) => b.append_value(n.to_string()),
                    Some(v) => return Err(misfit(i, v, t)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        ValueType::Any => {
            let mut b = StringBuilder::with_capacity(rows.len(), rows.len() * 8);
            for r in rows {
                match r {
                    None | Some(Value::Null) => b.append_null(),
                    Some(v) => b.append_value(json(v)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        ValueType::Bytes => {
            let mut b = BinaryBuilder::with_capacity(rows.len(), 0);
            for (i, r) in rows.iter().enumerate() {
                match r {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::Bytes(x)) => b.append_value(x),
                    Some(v) => return Err(misfit(i, v, t)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        ValueType::Struct(fields) if fields.is_empty() => {
            let mut b = BooleanBuilder::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                match r {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::Struct(_)) => b.append_value(true),
                    Some(v) => return Err(misfit(i, v, t)),
                }
            }
            Ok(Arc::new(b.finish()))
        }
        ValueType::Struct(fields) => build_struct(fields, rows),
        ValueType::FixedArray(elem, n) => {
            let (child, nulls) = elements(elem, rows, Some(*n))?;
            let size = i32::try_from(*n).map_err(|_| Misfit {
                row: 0,
                reason: format!("an array of {n} elements is too long for Arrow"),
            })?;
            FixedSizeListArray::try_new(item_field(elem), size, child, nulls)
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| Misfit {
                    row: 0,
                    reason: e.to_string(),
                })
        }
        ValueType::List(elem) => {
            let mut lengths = Vec::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                lengths.push(match r {
                    None | Some(Value::Null) => 0,
                    Some(v) => array_len(elem, v).ok_or_else(|| misfit(i, v, t))?,
                });
            }
            let (child, nulls) = elements(elem, rows, None)?;
            let offsets = OffsetBuffer::<i32>::from_lengths(lengths);
            ListArray::try_new(item_field(elem), offsets, child, nulls)
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| Misfit {
                    row: 0,
                    reason: e.to_string(),
                })
        }
    }
}

fn build_struct(fields: &[Field], rows: &[Option<&Value>]) -> Built {
    let mut present = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        match r {
            None | Some(Value::Null) => present.push(false),
            Some(Value::Struct(_)) => present.push(true),
            Some(v) => {
                return Err(Misfit {
                    row: i,
                    reason: format!("{} where a struct is declared", v.kind()),
                });
            }
        }
    }
    let mut children = Vec::with_capacity(fields.len());
    let mut column: Vec<Option<&Value>> = Vec::with_capacity(rows.len());
    for (k, f) in fields.iter().enumerate() {
        column.clear();
        column.extend(rows.iter().map(|r| match r {
            Some(Value::Struct(vf)) => field_at(vf, k, &f.name),
            _ => None,
        }));
        let child = build(&f.ty, &column).map_err(|m| Misfit {
            row: m.row,
            reason: format!("{}: {}", f.name, m.reason),
        })?;
        children.push(child);
    }
    let nulls = present
        .iter()
        .any(|p| !p)
        .then(|| NullBuffer::from(present.clone()));
    StructArray::try_new(struct_fields(fields), children, nulls)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| Misfit {
            row: 0,
            reason: e.to_string(),
        })
}

/// Field `k` of a struct value, found by position when the names agree
/// (every declared type), else by name (inferred types, where a message
/// may lack a field).
pub(crate) fn field_at<'v>(
    vf: &'v [(logcore::FieldName, Value)],
    k: usize,
    name: &str,
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

/// The child array of a list or fixed-size-list column: every row's
/// elements in order (a null row of a fixed-size list contributes `len`
/// null elements, as Arrow requires), and the rows' null buffer.
fn elements(
    elem: &ValueType,
    rows: &[Option<&Value>],
    fixed: Option<usize>,
) -> Result<(ArrayRef, Option<NullBuffer>), Misfit> {
    let present: Vec<bool> = rows
        .iter()
        .map(|r| !matches!(r, None | Some(Value::Null)))
        .collect();
    let nulls = present
        .iter()
        .any(|p| !p)
        .then(|| NullBuffer::from(present.clone()));
    for (i, r) in rows.iter().enumerate() {
        if let (Some(v), Some(n)) = (r, fixed) {
            if *v != &Value::Null && array_len(elem, v) != Some(n) {
                return Err(Misfit {
                    row: i,
                    reason: format!(
                        "{} where an array of {n} {} is declared",
                        v.kind(),
                        elem.name()
                    ),
                });
            }
        }
    }
    let pad = fixed.unwrap_or(0);
    let child = match elem {
        ValueType::U8 => prim_elems::<UInt8Type>(rows, pad, |v| match v {
            Value::Bytes(b) => Some(b.clone()),
            _ => None,
        })?,
        ValueType::I8 => prim_elems::<Int8Type>(rows, pad, |v| match v {
            Value::Bytes(b) => Some(b.iter().map(|&x| x as i8).collect()),
            _ => None,
        })?,
        ValueType::F32 => prim_elems::<Float32Type>(rows, pad, |v| match v {
            Value::F32Array(a) => Some(a.clone()),
            _ => None,
        })?,
        ValueType::F64 => prim_elems::<Float64Type>(rows, pad, |v| match v {
            Value::F64Array(a) => Some(a.clone()),
            Value::F32Array(a) => Some(a.iter().map(|&x| f64::from(x)).collect()),
            _ => None,
        })?,
        _ => {
            let mut items: Vec<Option<&Value>> = Vec::new();
            for r in rows {
                match r {
                    Some(Value::Array(a)) => items.extend(a.iter().map(Some)),
                    _ => items.extend(std::iter::repeat_n(None, pad)),
                }
            }
            build(elem, &items).map_err(|m| Misfit {
                row: 0,
                reason: format!("element {}: {}", m.row, m.reason),
            })?
        }
    };
    Ok((child, nulls))
}

/// A primitive child array from rows holding typed arrays (taken whole by
/// `typed`) or arrays of scalar values.
fn prim_elems<T: ArrowPrimitiveType>(
    rows: &[Option<&Value>],
    pad: usize,
    typed: impl Fn(&Value) -> Option<Vec<T::Native>>,
) -> Result<ArrayRef, Misfit>
where
    T::Native: Scalar,
{
    let mut out: Vec<T::Native> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        match r {
            Some(Value::Array(a)) => {
                for x in a {
                    out.push(T::Native::from_value(x).ok_or_else(|| Misfit {
                        row: i,
                        reason: format!("an element that is {}", x.kind()),
                    })?);
                }
            }
            Some(v) if **v != Value::Null => match typed(v) {
                Some(xs) => out.extend(xs),
                None => {
                    return Err(Misfit {
                        row: i,
                        reason: format!("{} where an array is declared", v.kind()),
                    });
                }
            },
            _ => out.extend(std::iter::repeat_n(T::Native::default(), pad)),
        }
    }
    Ok(Arc::new(PrimitiveArray::<T>::from_iter_values(out)))
}

/// A primitive element taken from a scalar [`Value`].
pub(crate) trait Scalar: Sized + Default {
    fn from_value(v: &Value) -> Option<Self>;
}

impl Scalar for u8 {
    fn from_value(v: &Value) -> Option<Self> {
        uint(v).map(|x| x as u8)
    }
}

impl Scalar for i8 {
    fn from_value(v: &Value) -> Option<Self> {
        int(v).map(|x| x as i8)
    }
}

impl Scalar for f32 {
    fn from_value(v: &Value) -> Option<Self> {
        match *v {
            Value::F32(x) => Some(x),
            _ => None,
        }
    }
}

impl Scalar for f64 {
    fn from_value(v: &Value) -> Option<Self> {
        match *v {
            Value::F64(x) => Some(x),
            Value::F32(x) => Some(f64::from(x)),
            _ => None,
        }
    }
}

fn prim<T: ArrowPrimitiveType>(
    t: &ValueType,
    rows: &[Option<&Value>],
    get: impl Fn(&Value) -> Option<T::Native>,
) -> Built {
    let mut out = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        out.push(match r {
            None | Some(Value::Null) => None,
            Some(v) => Some(get(v).ok_or_else(|| misfit(i, v, t))?),
        });
    }
    Ok(Arc::new(out.into_iter().collect::<PrimitiveArray<T>>()))
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

fn misfit(row: usize, v: &Value, t: &ValueType) -> Misfit {
    Misfit {
        row,
        reason: format!("{} where {} is declared", v.kind(), t.name()),
    }
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
