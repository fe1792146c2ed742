//! A dynamic value tree that any format's payload decodes into, and that
//! serializes to JSON.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::{FieldName, Timestamp};

/// A decoded message or field.
///
/// Structs keep their fields in declaration order. In JSON, structs become
/// objects, arrays and byte strings become arrays, `Time`/`Duration` become
/// `{"sec": .., "nsec": ..}` (nsec always in `0..1e9`, as ROS normalises),
/// and non-finite floats become the strings `"NaN"`, `"Infinity"` and
/// `"-Infinity"` (JSON has no such numbers; `null` would lose them).
///
/// ```
/// use logcore::Value;
/// let v = Value::Struct(vec![
///     ("speed".into(), Value::I64(42)),
///     ("throttle".into(), Value::F32(0.25)),
/// ]);
/// assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"speed":42,"throttle":0.25}"#);
/// assert_eq!(v.get("speed"), Some(&Value::I64(42)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// No value (an absent optional field).
    Null,
    /// Boolean.
    Bool(bool),
    /// Any signed integer.
    I64(i64),
    /// Any unsigned integer.
    U64(u64),
    /// Single-precision float, kept as such so it prints without noise digits.
    F32(f32),
    /// Double-precision float.
    F64(f64),
    /// Text.
    String(String),
    /// Opaque bytes (an image, a raw sensor packet, a `uint8[]`).
    Bytes(Vec<u8>),
    /// A sequence of values.
    Array(Vec<Value>),
    /// A `float32` array kept typed (a laser scan's ranges, a point list):
    /// no `Value` per element. In JSON exactly like an [`Array`](Value::Array)
    /// of [`F32`](Value::F32).
    F32Array(Vec<f32>),
    /// A `float64` array kept typed (a covariance matrix): in JSON exactly
    /// like an [`Array`](Value::Array) of [`F64`](Value::F64).
    F64Array(Vec<f64>),
    /// Named fields in order (names clone without allocating: see
    /// [`FieldName`]).
    Struct(Vec<(FieldName, Value)>),
    /// A point in time (nanoseconds since the epoch of the log's clock).
    Time(Timestamp),
    /// A signed span of time in nanoseconds.
    Duration(i64),
}

impl Value {
    /// The field `name` of a struct.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value's kind with its article, for messages (`a float32`,
    /// `an array`, `null`).
    ///
    /// ```
    /// assert_eq!(logcore::Value::U64(3).kind(), "an unsigned integer");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a bool",
            Value::I64(_) => "a signed integer",
            Value::U64(_) => "an unsigned integer",
            Value::F32(_) => "a float32",
            Value::F64(_) => "a float64",
            Value::String(_) => "a string",
            Value::Bytes(_) => "bytes",
            Value::Array(_) | Value::F32Array(_) | Value::F64Array(_) => "an array",
            Value::Struct(_) => "a struct",
            Value::Time(_) => "a time",
            Value::Duration(_) => "a duration",
        }
    }

    /// Numeric value as `f64` (ints, floats, times in seconds).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::I64(v) => Some(v as f64),
            Value::U64(v) => Some(v as f64),
            Value::F32(v) => Some(f64::from(v)),
            Value::F64(v) => Some(v),
            Value::Time(t) => Some(t.as_secs_f64()),
            Value::Duration(d) => Some(d as f64 / 1e9),
            Value::Bool(b) => Some(f64::from(u8::from(b))),
            _ => None,
        }
    }

    /// Integer value as `i64` when it fits.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::I64(v) => Some(v),
            Value::U64(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Text value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Builds a struct from `(name, value)` pairs.
    pub fn record<I, S>(fields: I) -> Value
    where
        I: IntoIterator<Item = (S, Value)>,
        S: Into<FieldName>,
    {
        Value::Struct(fields.into_iter().map(|(n, v)| (n.into(), v)).collect())
    }
}

struct SecNsec(i64);

impl Serialize for SecNsec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("sec", &self.0.div_euclid(1_000_000_000))?;
        m.serialize_entry("nsec", &self.0.rem_euclid(1_000_000_000))?;
        m.end()
    }
}

/// `"NaN"`, `"Infinity"` or `"-Infinity"` for a non-finite float.
fn non_finite_name(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::I64(v) => s.serialize_i64(*v),
            Value::U64(v) => s.serialize_u64(*v),
            Value::F32(v) if v.is_finite() => s.serialize_f32(*v),
            Value::F64(v) if v.is_finite() => s.serialize_f64(*v),
            // JSON has no NaN or infinities: they print as the strings
            // JavaScript and Python name them by, never as a lossy `null`.
            Value::F32(v) => s.serialize_str(non_finite_name(f64::from(*v))),
            Value::F64(v) => s.serialize_str(non_finite_name(*v)),
            Value::String(v) => s.serialize_str(v),
            Value::Bytes(b) => {
                let mut seq = s.serialize_seq(Some(b.len()))?;
                for x in b {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Value::F32Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(&Value::F32(*x))?;
                }
                seq.end()
            }
            Value::F64Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(&Value::F64(*x))?;
                }
                seq.end()
            }
            Value::Struct(fields) => {
                let mut m = s.serialize_map(Some(fields.len()))?;
                for (k, v) in fields {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
            Value::Time(t) => SecNsec(t.as_nanos()).serialize(s),
            Value::Duration(d) => SecNsec(*d).serialize(s),
        }
    }
}

/// Reads a value from a self-describing format such as JSON: objects
/// become structs with their keys in document order, non-negative integers
/// `U64`, negative ones `I64`, other numbers `F64`, `null` `Null`.
///
/// ```
/// let v: logcore::Value = serde_json::from_str(r#"{"z": -2, "a": 3, "f": 0.5}"#).unwrap();
/// assert_eq!(
///     v,
///     logcore::Value::record([
///         ("z", logcore::Value::I64(-2)),
///         ("a", logcore::Value::U64(3)),
///         ("f", logcore::Value::F64(0.5)),
///     ])
/// );
/// ```
impl<'de> serde::Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> serde::de::Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::U64(n))
    }
    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(u64::try_from(n).map_or(Value::I64(n), Value::U64))
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Value, E> {
        Ok(Value::F64(n))
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            fields.push((k.into(), v));
        }
        Ok(Value::Struct(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(v: &Value) -> String {
        serde_json::to_string(v).unwrap()
    }

    #[test]
    fn json_shapes() {
        assert_eq!(json(&Value::Null), "null");
        assert_eq!(json(&Value::F32(9.81)), "9.81");
        assert_eq!(json(&Value::F64(f64::NAN)), r#""NaN""#);
        assert_eq!(json(&Value::F32(f32::INFINITY)), r#""Infinity""#);
        assert_eq!(json(&Value::F64(f64::NEG_INFINITY)), r#""-Infinity""#);
        assert_eq!(
            json(&Value::F32Array(vec![f32::NAN, 1.5])),
            r#"["NaN",1.5]"#
        );
        assert_eq!(json(&Value::U64(u64::MAX)), "18446744073709551615");
        assert_eq!(json(&Value::Bytes(vec![0xff, 0xd8])), "[255,216]");
        assert_eq!(
            json(&Value::Time(Timestamp(1_500_000_001))),
            r#"{"sec":1,"nsec":500000001}"#
        );
        assert_eq!(json(&Value::Duration(-1)), r#"{"sec":-1,"nsec":999999999}"#);
        let nested = Value::record([
            (
                "b",
                Value::Array(vec![Value::Bool(true), Value::String("x\"".into())]),
            ),
            ("a", Value::I64(-3)),
        ]);
        assert_eq!(json(&nested), r#"{"b":[true,"x\""],"a":-3}"#);
        // Typed arrays print exactly as arrays of their scalars.
        assert_eq!(
            json(&Value::F32Array(vec![9.81, f32::NAN])),
            json(&Value::Array(vec![Value::F32(9.81), Value::F32(f32::NAN)]))
        );
        assert_eq!(json(&Value::F64Array(vec![0.1, -2.0])), "[0.1,-2.0]");
    }

    #[test]
    fn accessors() {
        assert_eq!(Value::F32(0.5).as_f64(), Some(0.5));
        assert_eq!(Value::U64(u64::MAX).as_i64(), None);
        assert_eq!(Value::String("s".into()).as_str(), Some("s"));
        assert_eq!(Value::I64(1).get("x"), None);
    }
}
