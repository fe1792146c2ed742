//! Declared types: what a format's own definition (a ROS `.msg`, a ULog
//! format, a protobuf descriptor, a CARLA packet layout) says every message
//! of a channel holds, so that tools can lay out typed tables before reading
//! a single message.
//!
//! A [`ValueType`] describes the [`Value`]s the format's decoder produces,
//! not the wire bytes: a ROS `uint8[]` decodes to [`Value::Bytes`] and is
//! declared [`ValueType::Bytes`]; a `float32[]` decodes to
//! [`Value::F32Array`] and is declared a [`ValueType::List`] of
//! [`ValueType::F32`]. [`ValueType::admits`] is the contract between the
//! two: every value a decoder returns is admitted by the type it declares
//! (the format crates test this over their corpora).
//!
//! ```
//! use logcore::{Value, ValueType};
//! let t = ValueType::record([("x", ValueType::F64), ("id", ValueType::U8)]);
//! let v = Value::record([("x", Value::F64(1.5)), ("id", Value::U64(7))]);
//! assert_eq!(t.admits(&v), Ok(()));
//! let bad = Value::record([("x", Value::F64(1.5)), ("id", Value::U64(300))]);
//! assert_eq!(t.admits(&bad).unwrap_err().to_string(), "id: 300 is not a uint8");
//! ```

use std::fmt;

use crate::{FieldName, Value};

/// The type of a [`Value`] as a format's definition declares it.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueType {
    /// [`Value::Bool`].
    Bool,
    /// [`Value::I64`] within `i8`.
    I8,
    /// [`Value::I64`] within `i16`.
    I16,
    /// [`Value::I64`] within `i32`.
    I32,
    /// [`Value::I64`].
    I64,
    /// [`Value::U64`] within `u8`.
    U8,
    /// [`Value::U64`] within `u16`.
    U16,
    /// [`Value::U64`] within `u32`.
    U32,
    /// [`Value::U64`].
    U64,
    /// [`Value::F32`].
    F32,
    /// [`Value::F64`].
    F64,
    /// [`Value::String`].
    String,
    /// [`Value::Bytes`] of any length (a ROS `uint8[]`, an image, a raw
    /// packet).
    Bytes,
    /// [`Value::Time`].
    Time,
    /// [`Value::Duration`].
    Duration,
    /// An array of exactly `len` elements: a [`Value::Array`], or for
    /// `U8`/`I8` elements [`Value::Bytes`], for `F32` [`Value::F32Array`],
    /// for `F64` [`Value::F64Array`].
    FixedArray(Box<ValueType>, usize),
    /// An array of any length, with the same value forms as
    /// [`FixedArray`](ValueType::FixedArray).
    List(Box<ValueType>),
    /// A [`Value::Struct`] with these fields, in this order.
    Struct(Vec<Field>),
    /// Anything: the format declares no type here (a JSON channel without
    /// a schema). Tables hold such values as their JSON text.
    Any,
}

/// One field of a [`ValueType::Struct`].
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The field's name.
    pub name: FieldName,
    /// Its type.
    pub ty: ValueType,
    /// Whether the value may be [`Value::Null`] or left out of the struct
    /// (a protobuf field that is not set, a JSON property that is not
    /// required).
    pub nullable: bool,
}

impl Field {
    /// A field that is always present.
    pub fn new(name: impl Into<FieldName>, ty: ValueType) -> Self {
        Field {
            name: name.into(),
            ty,
            nullable: false,
        }
    }

    /// A field that may be [`Value::Null`].
    pub fn nullable(name: impl Into<FieldName>, ty: ValueType) -> Self {
        Field {
            name: name.into(),
            ty,
            nullable: true,
        }
    }
}

/// Why a value does not fit a type: where (a path such as `pose.position.x`
/// or `ranges[3]`) and what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Where in the value, empty for the value itself.
    pub path: String,
    /// What was expected and found.
    pub reason: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for Mismatch {}

impl ValueType {
    /// The narrowest scalar type that holds the values of both `self` and
    /// `other`, the one rule of every export that merges values of several
    /// messages: a type with itself is the type; signed and unsigned
    /// 64-bit integers are `I64`; integers and floats, or `F32` and `F64`,
    /// are `F64`. `None` for other pairs (no scalar holds both), and for
    /// types that are not `Bool`, `I64`, `U64`, `F32`, `F64` or `String`.
    ///
    /// ```
    /// use logcore::ValueType as T;
    /// assert_eq!(T::I64.widen_scalar(&T::U64), Some(T::I64));
    /// assert_eq!(T::U64.widen_scalar(&T::F32), Some(T::F64));
    /// assert_eq!(T::F32.widen_scalar(&T::F32), Some(T::F32));
    /// assert_eq!(T::Bool.widen_scalar(&T::String), None);
    /// ```
    pub fn widen_scalar(&self, other: &ValueType) -> Option<ValueType> {
        use ValueType as T;
        let scalar =
            |t: &ValueType| matches!(t, T::Bool | T::I64 | T::U64 | T::F32 | T::F64 | T::String);
        if !scalar(self) || !scalar(other) {
            return None;
        }
        Some(match (self, other) {
            (a, b) if a == b => a.clone(),
            (T::I64, T::U64) | (T::U64, T::I64) => T::I64,
            (T::I64 | T::U64 | T::F32 | T::F64, T::I64 | T::U64 | T::F32 | T::F64) => T::F64,
            _ => return None,
        })
    }

    /// A struct of fields that are always present (builder shorthand).
    pub fn record<I, S>(fields: I) -> ValueType
    where
        I: IntoIterator<Item = (S, ValueType)>,
        S: Into<FieldName>,
    {
        ValueType::Struct(fields.into_iter().map(|(n, t)| Field::new(n, t)).collect())
    }

    /// A list of `elem`.
    pub fn list(elem: ValueType) -> ValueType {
        ValueType::List(Box::new(elem))
    }

    /// An array of exactly `len` `elem`s.
    pub fn fixed(elem: ValueType, len: usize) -> ValueType {
        ValueType::FixedArray(Box::new(elem), len)
    }

    /// The type's name as the ROS and ULog definitions spell it
    /// (`uint8`, `float64`, `string`), or a short description.
    pub fn name(&self) -> String {
        match self {
            ValueType::Bool => "bool".into(),
            ValueType::I8 => "int8".into(),
            ValueType::I16 => "int16".into(),
            ValueType::I32 => "int32".into(),
            ValueType::I64 => "int64".into(),
            ValueType::U8 => "uint8".into(),
            ValueType::U16 => "uint16".into(),
            ValueType::U32 => "uint32".into(),
            ValueType::U64 => "uint64".into(),
            ValueType::F32 => "float32".into(),
            ValueType::F64 => "float64".into(),
            ValueType::String => "string".into(),
            ValueType::Bytes => "bytes".into(),
            ValueType::Time => "time".into(),
            ValueType::Duration => "duration".into(),
            ValueType::FixedArray(e, n) => format!("{}[{n}]", e.name()),
            ValueType::List(e) => format!("{}[]", e.name()),
            ValueType::Struct(_) => "struct".into(),
            ValueType::Any => "any".into(),
        }
    }

    /// The name with its article (`a uint8`, `an int32`), for messages.
    fn a(&self) -> String {
        let name = self.name();
        let article = if name.starts_with(['a', 'e', 'i', 'o']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {name}")
    }

    /// `Ok` when `value` has this type, else where and why not. A
    /// [`Field::nullable`] field admits [`Value::Null`]; [`ValueType::Any`]
    /// admits everything.
    pub fn admits(&self, value: &Value) -> Result<(), Mismatch> {
        let mut path = String::new();
        self.check(value, &mut path)
            .map_err(|reason| Mismatch { path, reason })
    }

    fn check(&self, v: &Value, path: &mut String) -> Result<(), String> {
        let int_range = |lo: i64, hi: i64| match *v {
            Value::I64(x) if (lo..=hi).contains(&x) => Ok(()),
            Value::I64(x) => Err(format!("{x} is not {}", self.a())),
            _ => Err(format!("{} is not {}", v.kind(), self.a())),
        };
        let uint_max = |hi: u64| match *v {
            Value::U64(x) if x <= hi => Ok(()),
            Value::U64(x) => Err(format!("{x} is not {}", self.a())),
            _ => Err(format!("{} is not {}", v.kind(), self.a())),
        };
        match self {
            ValueType::Any => Ok(()),
            ValueType::I8 => int_range(i8::MIN.into(), i8::MAX.into()),
            ValueType::I16 => int_range(i16::MIN.into(), i16::MAX.into()),
            ValueType::I32 => int_range(i32::MIN.into(), i32::MAX.into()),
            ValueType::I64 => int_range(i64::MIN, i64::MAX),
            ValueType::U8 => uint_max(u8::MAX.into()),
            ValueType::U16 => uint_max(u16::MAX.into()),
            ValueType::U32 => uint_max(u32::MAX.into()),
            ValueType::U64 => uint_max(u64::MAX),
            ValueType::Bool
            | ValueType::F32
            | ValueType::F64
            | ValueType::String
            | ValueType::Bytes
            | ValueType::Time
            | ValueType::Duration => {
                let ok = matches!(
                    (self, v),
                    (ValueType::Bool, Value::Bool(_))
                        | (ValueType::F32, Value::F32(_))
                        | (ValueType::F64, Value::F64(_))
                        | (ValueType::String, Value::String(_))
                        | (ValueType::Bytes, Value::Bytes(_))
                        | (ValueType::Time, Value::Time(_))
                        | (ValueType::Duration, Value::Duration(_))
                );
                if ok {
                    Ok(())
                } else {
                    Err(format!("{} is not {}", v.kind(), self.a()))
                }
            }
            ValueType::FixedArray(elem, len) => {
                let n = elem.check_array(v, path)?;
                if n == *len {
                    Ok(())
                } else {
                    Err(format!("{n} elements where {} has {len}", self.name()))
                }
            }
            ValueType::List(elem) => elem.check_array(v, path).map(|_| ()),
            ValueType::Struct(fields) => {
                let Value::Struct(vf) = v else {
                    return Err(format!("{} is not a struct", v.kind()));
                };
                let mut values = vf.iter().peekable();
                for f in fields {
                    let fv = match values.peek() {
                        Some((name, fv)) if *name == f.name => {
                            values.next();
                            fv
                        }
                        // A nullable field may also be left out.
                        _ if f.nullable => continue,
                        Some((name, _)) => {
                            return Err(format!("field `{name}` where `{}` is declared", f.name));
                        }
                        None => return Err(format!("no field `{}`", f.name)),
                    };
                    if f.nullable && *fv == Value::Null {
                        continue;
                    }
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(&f.name);
                    f.ty.check(fv, path)?;
                    path.truncate(len);
                }
                match values.next() {
                    Some((name, _)) => Err(format!("field `{name}` is not declared")),
                    None => Ok(()),
                }
            }
        }
    }

    /// Checks `v` as an array of `self`, returning its length.
    fn check_array(&self, v: &Value, path: &mut String) -> Result<usize, String> {
        match (self, v) {
            (ValueType::U8 | ValueType::I8, Value::Bytes(b)) => Ok(b.len()),
            (ValueType::F32, Value::F32Array(a)) => Ok(a.len()),
            (ValueType::F64, Value::F64Array(a)) => Ok(a.len()),
            (_, Value::Array(items)) => {
                for (i, x) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    self.check(x, path)?;
                    path.truncate(len);
                }
                Ok(items.len())
            }
            _ => Err(format!("{} is not an array of {}", v.kind(), self.name())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Timestamp;

    #[test]
    fn typed_arrays_are_admitted_in_every_form() {
        let bytes = ValueType::fixed(ValueType::U8, 3);
        assert_eq!(bytes.admits(&Value::Bytes(vec![1, 2, 3])), Ok(()));
        assert_eq!(
            bytes.admits(&Value::Array(vec![
                Value::U64(1),
                Value::U64(2),
                Value::U64(3)
            ])),
            Ok(())
        );
        assert_eq!(
            bytes.admits(&Value::Bytes(vec![1, 2])).unwrap_err().reason,
            "2 elements where uint8[3] has 3"
        );
        let floats = ValueType::list(ValueType::F32);
        assert_eq!(floats.admits(&Value::F32Array(vec![0.5; 9])), Ok(()));
        assert!(floats.admits(&Value::F64Array(vec![0.5])).is_err());
    }

    #[test]
    fn mismatches_name_the_path() {
        let t = ValueType::record([
            ("stamp", ValueType::Time),
            (
                "points",
                ValueType::list(ValueType::record([("x", ValueType::F32)])),
            ),
        ]);
        let v = Value::record([
            ("stamp", Value::Time(Timestamp::from_nanos(5))),
            (
                "points",
                Value::Array(vec![
                    Value::record([("x", Value::F32(1.0))]),
                    Value::record([("x", Value::F64(1.0))]),
                ]),
            ),
        ]);
        let m = t.admits(&v).unwrap_err();
        assert_eq!(m.path, "points[1].x");
        assert_eq!(m.to_string(), "points[1].x: a float64 is not a float32");
    }

    #[test]
    fn nullable_fields_and_any() {
        let t = ValueType::Struct(vec![
            Field::nullable("opt", ValueType::I32),
            Field::new("free", ValueType::Any),
        ]);
        let v = Value::record([("opt", Value::Null), ("free", Value::String("x".into()))]);
        assert_eq!(t.admits(&v), Ok(()));
        let v = Value::record([("opt", Value::I64(1 << 40)), ("free", Value::Null)]);
        assert_eq!(
            t.admits(&v).unwrap_err().to_string(),
            "opt: 1099511627776 is not an int32"
        );
        let short = Value::record([("opt", Value::Null)]);
        assert_eq!(t.admits(&short).unwrap_err().reason, "no field `free`");
        let left_out = Value::record([("free", Value::Bool(true))]);
        assert_eq!(t.admits(&left_out), Ok(()));
        let extra = Value::record([("free", Value::Null), ("more", Value::Null)]);
        assert_eq!(
            t.admits(&extra).unwrap_err().reason,
            "field `more` is not declared"
        );
    }
}
