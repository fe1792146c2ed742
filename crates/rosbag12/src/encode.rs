//! Encoding [`logcore::Value`]s into ROS 1 wire bytes (spec 6.3, 6.4), the
//! inverse of [`MessageType::decode`]: a value decoded from a message
//! encodes back to the message's bytes, so bags can be written from values
//! rather than hand-made bytes.
//!
//! What each field type accepts (the first form is what decoding gives):
//!
//! | field | values |
//! |---|---|
//! | `bool` | `Bool`, or an integer 0..=255 (the byte) |
//! | integers, `byte`, `char` | `I64`, `U64` in the type's range |
//! | `float32`, `float64` | `F32`, `F64`, an integer, or the strings `"NaN"`, `"Infinity"`, `"-Infinity"` (their JSON form) |
//! | `string` | `String`, or `Bytes` (a string that is not UTF-8) |
//! | `time` | `Time`, or a struct `{sec, nsec}` (its JSON form) |
//! | `duration` | `Duration`, or a struct `{sec, nsec}` |
//! | `uint8[]`, `char[]` | `Bytes`, or an array of integers |
//! | `float32[]`, `float64[]` | `F32Array`, `F64Array`, or an array of numbers |
//! | other arrays | `Array` of the element's values |
//! | a message | `Struct` with every field of the type by name (in any order; none missing, none unknown) |
//!
//! Fixed-size arrays must have exactly their length. Errors name the path
//! of the field (`pose.position.x`, `points[3].y`) and what was expected.

use logcore::{FormatError, Value};

use crate::error::{Error, Result};
use crate::msg::{ArrayKind, Builtin, MessageType, WireKind};

impl MessageType {
    /// Encodes `value` (a message of this type) into ROS 1 wire bytes;
    /// see the [module docs](crate::encode) for the values each field
    /// type accepts.
    ///
    /// ```
    /// use logcore::Value;
    /// let t = rosbag12::MessageType::parse("demo/Pair", "int32 a\nfloat64[] b").unwrap();
    /// let bytes = [7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f];
    /// let v = t.decode(&bytes, 0).unwrap();
    /// assert_eq!(t.encode(&v).unwrap(), bytes);
    /// let v = Value::Struct(vec![
    ///     ("b".into(), Value::Array(vec![Value::F64(0.5)])),
    ///     ("a".into(), Value::I64(7)),
    /// ]);
    /// assert_eq!(t.encode(&v).unwrap(), bytes);
    /// ```
    pub fn encode(&self, value: &Value) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.min_size() as usize);
        self.encode_into(value, &mut out)?;
        Ok(out)
    }

    /// Like [`encode`](Self::encode), appending to `out` (which is left
    /// with a partly encoded message after an error).
    pub fn encode_into(&self, value: &Value, out: &mut Vec<u8>) -> Result<()> {
        let mut path = Path(Vec::new());
        self.encode_struct(0, 1, value, out, &mut path)
    }

    fn encode_struct(
        &self,
        ty: usize,
        depth: usize,
        value: &Value,
        out: &mut Vec<u8>,
        path: &mut Path,
    ) -> Result<()> {
        let (Some(compiled), Some(def)) = (self.compiled.get(ty), self.defs.get(ty)) else {
            return Err(path.error("a known message type", value));
        };
        if depth > self.max_nesting {
            return Err(path.error(
                format!(
                    "message types nested {}",
                    logcore::limits::nesting_limit(self.max_nesting)
                ),
                value,
            ));
        }
        let Value::Struct(fields) = value else {
            return Err(path.error(format!("a {} struct", def.name), value));
        };
        for (i, (name, kind, array)) in compiled.fields.iter().enumerate() {
            // Values decoded from this type have their fields in place.
            let field = match fields.get(i) {
                Some((n, v)) if n == name.as_str() => Some(v),
                _ => fields
                    .iter()
                    .find(|(n, _)| n == name.as_str())
                    .map(|(_, v)| v),
            };
            path.0.push(Segment::Field(name.to_string()));
            let Some(field) = field else {
                let e = Error::invalid_argument(format!(
                    "{}: expected a value for field `{name}` of {}, found none",
                    path.text(),
                    def.name
                ));
                return Err(e);
            };
            self.encode_field(*kind, *array, depth, field, out, path)?;
            path.0.pop();
        }
        if fields.len() != compiled.fields.len() {
            if let Some((unknown, _)) = fields.iter().find(|(n, _)| {
                !compiled
                    .fields
                    .iter()
                    .any(|(name, _, _)| n == name.as_str())
            }) {
                return Err(Error::invalid_argument(format!(
                    "{}: expected only fields of {}, found an unknown field `{unknown}`",
                    path.text(),
                    def.name
                )));
            }
            return Err(Error::invalid_argument(format!(
                "{}: expected each field of {} once, found {} fields",
                path.text(),
                def.name,
                fields.len()
            )));
        }
        Ok(())
    }

    fn encode_field(
        &self,
        kind: WireKind,
        array: ArrayKind,
        depth: usize,
        value: &Value,
        out: &mut Vec<u8>,
        path: &mut Path,
    ) -> Result<()> {
        let fixed = match array {
            ArrayKind::Scalar => return self.encode_one(kind, depth, value, out, path),
            ArrayKind::Unbounded | ArrayKind::Bounded(_) => None,
            ArrayKind::Fixed(n) => Some(n as usize),
        };
        let len = match value {
            Value::Array(v) => v.len(),
            Value::Bytes(v) => v.len(),
            Value::F32Array(v) => v.len(),
            Value::F64Array(v) => v.len(),
            other => return Err(path.error("an array", other)),
        };
        match fixed {
            Some(n) if n != len => {
                return Err(path.error(format!("an array of exactly {n} elements"), value));
            }
            Some(_) => {}
            None => {
                let n = u32::try_from(len)
                    .map_err(|_| path.error("an array of at most 2^32-1 elements", value))?;
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        match (kind, value) {
            (WireKind::Prim(Builtin::UInt8 | Builtin::Char), Value::Bytes(b)) => {
                out.extend_from_slice(b);
            }
            (WireKind::Prim(p @ (Builtin::Float32 | Builtin::Float64)), Value::F32Array(v)) => {
                for &x in v {
                    put_float(p, f64::from(x), out);
                }
            }
            (WireKind::Prim(p @ (Builtin::Float32 | Builtin::Float64)), Value::F64Array(v)) => {
                for &x in v {
                    put_float(p, x, out);
                }
            }
            (_, Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    path.0.push(Segment::Index(i));
                    self.encode_one(kind, depth, item, out, path)?;
                    path.0.pop();
                }
            }
            (_, other) => {
                return Err(path.error(format!("an array of {}", kind_name(self, kind)), other));
            }
        }
        Ok(())
    }

    fn encode_one(
        &self,
        kind: WireKind,
        depth: usize,
        value: &Value,
        out: &mut Vec<u8>,
        path: &mut Path,
    ) -> Result<()> {
        use Builtin as P;
        let p = match kind {
            WireKind::Msg(j) => return self.encode_struct(j, depth + 1, value, out, path),
            WireKind::Prim(p) => p,
        };
        let int = |lo: i128, hi: i128| -> Result<i128> {
            let v = match *value {
                Value::I64(v) => i128::from(v),
                Value::U64(v) => i128::from(v),
                _ => return Err(path.error(prim_name(p), value)),
            };
            if v < lo || v > hi {
                return Err(path.error(format!("{} in {lo}..={hi}", prim_name(p)), value));
            }
            Ok(v)
        };
        match p {
            P::Bool => match *value {
                Value::Bool(b) => out.push(u8::from(b)),
                _ => out.push(int(0, 255)? as u8),
            },
            P::Int8 | P::Byte => out.push(int(i8::MIN.into(), i8::MAX.into())? as i8 as u8),
            P::UInt8 | P::Char => out.push(int(0, u8::MAX.into())? as u8),
            P::Int16 => {
                let v = int(i16::MIN.into(), i16::MAX.into())? as i16;
                out.extend_from_slice(&v.to_le_bytes());
            }
            P::UInt16 => {
                let v = int(0, u16::MAX.into())? as u16;
                out.extend_from_slice(&v.to_le_bytes());
            }
            P::Int32 => {
                let v = int(i32::MIN.into(), i32::MAX.into())? as i32;
                out.extend_from_slice(&v.to_le_bytes());
            }
            P::UInt32 => {
                let v = int(0, u32::MAX.into())? as u32;
                out.extend_from_slice(&v.to_le_bytes());
            }
            P::Int64 => {
                let v = int(i64::MIN.into(), i64::MAX.into())? as i64;
                out.extend_from_slice(&v.to_le_bytes());
            }
            P::UInt64 => {
                let v = int(0, u64::MAX.into())? as u64;
                out.extend_from_slice(&v.to_le_bytes());
            }
            P::Float32 | P::Float64 => {
                let x = match value {
                    Value::F32(v) => f64::from(*v),
                    Value::F64(v) => *v,
                    Value::I64(v) => *v as f64,
                    Value::U64(v) => *v as f64,
                    Value::String(s) if s == "NaN" => f64::NAN,
                    Value::String(s) if s == "Infinity" => f64::INFINITY,
                    Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
                    other => return Err(path.error(prim_name(p), other)),
                };
                put_float(p, x, out);
            }
            P::String | P::WString => {
                let b = match value {
                    Value::String(s) => s.as_bytes(),
                    Value::Bytes(b) => b.as_slice(),
                    other => return Err(path.error("a string", other)),
                };
                let n = u32::try_from(b.len())
                    .map_err(|_| path.error("a string under 4 GiB", value))?;
                out.extend_from_slice(&n.to_le_bytes());
                out.extend_from_slice(b);
            }
            P::Time => {
                let (sec, nsec) = match value {
                    Value::Time(t) => {
                        let ns = t.as_nanos();
                        let sec = u32::try_from(ns.div_euclid(1_000_000_000)).map_err(|_| {
                            path.error("a time from 1970 to 2106 (ROS time)", value)
                        })?;
                        (sec, ns.rem_euclid(1_000_000_000) as u32)
                    }
                    Value::Struct(_) => {
                        let (s, n) = sec_nsec(value, path)?;
                        let sec = u32::try_from(s)
                            .map_err(|_| path.error("`sec` of a time in 0..=4294967295", value))?;
                        let nsec = u32::try_from(n)
                            .map_err(|_| path.error("`nsec` of a time in 0..=4294967295", value))?;
                        (sec, nsec)
                    }
                    other => return Err(path.error("a time", other)),
                };
                out.extend_from_slice(&sec.to_le_bytes());
                out.extend_from_slice(&nsec.to_le_bytes());
            }
            P::Duration => {
                let (sec, nsec) = match value {
                    Value::Duration(d) => {
                        let sec = i32::try_from(d.div_euclid(1_000_000_000))
                            .map_err(|_| path.error("a duration of at most 2^31 seconds", value))?;
                        (sec, d.rem_euclid(1_000_000_000) as i32)
                    }
                    Value::Struct(_) => {
                        let (s, n) = sec_nsec(value, path)?;
                        let sec = i32::try_from(s).map_err(|_| {
                            path.error("`sec` of a duration in the int32 range", value)
                        })?;
                        let nsec = i32::try_from(n).map_err(|_| {
                            path.error("`nsec` of a duration in the int32 range", value)
                        })?;
                        (sec, nsec)
                    }
                    other => return Err(path.error("a duration", other)),
                };
                out.extend_from_slice(&sec.to_le_bytes());
                out.extend_from_slice(&nsec.to_le_bytes());
            }
        }
        Ok(())
    }
}

fn put_float(p: Builtin, x: f64, out: &mut Vec<u8>) {
    if p == Builtin::Float32 {
        out.extend_from_slice(&(x as f32).to_le_bytes());
    } else {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

/// The `sec` and `nsec` fields of a time or duration in its JSON form.
fn sec_nsec(value: &Value, path: &Path) -> Result<(i64, i64)> {
    let get = |name: &str| -> Result<i64> {
        match value.get(name) {
            Some(Value::I64(v)) => Ok(*v),
            Some(Value::U64(v)) => {
                i64::try_from(*v).map_err(|_| path.error(format!("`{name}` in range"), value))
            }
            _ => Err(path.error(format!("a struct with an integer `{name}`"), value)),
        }
    };
    Ok((get("sec")?, get("nsec")?))
}

/// A builtin as the thing a value should be ("an int8", "a string").
fn prim_name(p: Builtin) -> String {
    let name = p.name();
    // Of the builtins' names, only `int8` ... `int64` take "an".
    let article = if name.starts_with("int") { "an" } else { "a" };
    format!("{article} {name}")
}

fn kind_name(t: &MessageType, kind: WireKind) -> String {
    match kind {
        WireKind::Prim(p) => prim_name(p),
        WireKind::Msg(j) => t
            .defs
            .get(j)
            .map_or_else(|| "messages".to_string(), |d| d.name.clone()),
    }
}

/// Where in the message a value is.
enum Segment {
    Field(String),
    Index(usize),
}

struct Path(Vec<Segment>);

impl Path {
    fn text(&self) -> String {
        let mut s = String::new();
        for seg in &self.0 {
            match seg {
                Segment::Field(name) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(name);
                }
                Segment::Index(i) => s.push_str(&format!("[{i}]")),
            }
        }
        if s.is_empty() {
            "the message".into()
        } else {
            format!("field `{s}`")
        }
    }

    fn error(&self, expected: impl std::fmt::Display, found: &Value) -> Error {
        Error::invalid_argument(format!(
            "{}: expected {expected}, found {}",
            self.text(),
            describe(found)
        ))
    }
}

/// A short description of a value for error messages.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("bool {b}"),
        Value::I64(x) => format!("integer {x}"),
        Value::U64(x) => format!("integer {x}"),
        Value::F32(x) => format!("float {x}"),
        Value::F64(x) => format!("float {x}"),
        Value::String(s) if s.len() <= 20 => format!("string {s:?}"),
        Value::String(s) => format!("a string of {} bytes", s.len()),
        Value::Bytes(b) => format!("{} bytes", b.len()),
        Value::Array(a) => format!("an array of {} values", a.len()),
        Value::F32Array(a) => format!("a float32 array of {}", a.len()),
        Value::F64Array(a) => format!("a float64 array of {}", a.len()),
        Value::Struct(f) => format!("a struct of {} fields", f.len()),
        Value::Time(t) => format!("time {} ns", t.as_nanos()),
        Value::Duration(d) => format!("duration {d} ns"),
    }
}

#[cfg(test)]
mod tests {
    use logcore::Timestamp;

    use super::*;

    const HEADER: &str = "uint32 seq\ntime stamp\nstring frame_id\n";

    fn t(def: &str) -> MessageType {
        MessageType::parse("t/T", def).unwrap()
    }

    fn st(fields: Vec<(&str, Value)>) -> Value {
        Value::Struct(fields.into_iter().map(|(n, v)| (n.into(), v)).collect())
    }

    #[test]
    fn every_primitive_round_trips() {
        let ty = t(
            "bool a\nint8 b\nuint8 c\nint16 d\nuint16 e\nint32 f\nuint32 g\nint64 h\n\
             uint64 i\nfloat32 j\nfloat64 k\nstring l\ntime m\nduration n\nbyte o\nchar p\n\
             uint8[] q\nchar[3] r\nfloat32[2] s\nfloat64[] u\nint16[] v\nstring[] w",
        );
        let mut b = vec![1u8, 0xfe, 0xfd];
        b.extend((-3i16).to_le_bytes());
        b.extend(65000u16.to_le_bytes());
        b.extend((-70000i32).to_le_bytes());
        b.extend(4_000_000_000u32.to_le_bytes());
        b.extend(i64::MIN.to_le_bytes());
        b.extend(u64::MAX.to_le_bytes());
        b.extend(1.5f32.to_le_bytes());
        b.extend(f64::NAN.to_le_bytes());
        b.extend(3u32.to_le_bytes());
        b.extend(b"abc");
        b.extend(7u32.to_le_bytes());
        b.extend(9u32.to_le_bytes());
        b.extend((-2i32).to_le_bytes());
        b.extend(5i32.to_le_bytes());
        b.extend([0x80, 0x7f]);
        b.extend(2u32.to_le_bytes());
        b.extend([1, 2]);
        b.extend(b"xyz");
        b.extend(0.25f32.to_le_bytes());
        b.extend((-1f32).to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend(2.5f64.to_le_bytes());
        b.extend(2u32.to_le_bytes());
        b.extend(1i16.to_le_bytes());
        b.extend((-1i16).to_le_bytes());
        b.extend(2u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(2u32.to_le_bytes());
        b.extend([0xff, 0xfe]);
        let v = ty.decode(&b, 0).unwrap();
        assert_eq!(ty.encode(&v).unwrap(), b);
    }

    #[test]
    fn nested_messages_and_their_arrays() {
        let def = format!(
            "Header header\nPoint[] pts\nPoint[2] pair\n===\nMSG: std_msgs/Header\n{HEADER}\
             ===\nMSG: t/Point\nfloat64 x\nfloat32 y\n"
        );
        let ty = t(&def);
        let pt = |x: f64, y: f32| st(vec![("x", Value::F64(x)), ("y", Value::F32(y))]);
        let v = st(vec![
            (
                "header",
                st(vec![
                    ("seq", Value::U64(3)),
                    ("stamp", Value::Time(Timestamp(5_000_000_007))),
                    ("frame_id", Value::String("map".into())),
                ]),
            ),
            ("pts", Value::Array(vec![pt(1.0, 2.0)])),
            ("pair", Value::Array(vec![pt(3.0, 4.0), pt(5.0, 6.0)])),
        ]);
        let bytes = ty.encode(&v).unwrap();
        assert_eq!(bytes.len(), 4 + 8 + 4 + 3 + 4 + 12 + 24);
        assert_eq!(ty.decode(&bytes, 0).unwrap(), v);
    }

    #[test]
    fn json_forms_are_accepted() {
        let ty = t("time a\nduration b\nfloat64 c\nfloat32[] d\nuint8[] e");
        let v = st(vec![
            (
                "a",
                st(vec![("sec", Value::I64(1)), ("nsec", Value::I64(2))]),
            ),
            (
                "b",
                st(vec![("sec", Value::I64(-1)), ("nsec", Value::I64(5))]),
            ),
            ("c", Value::String("-Infinity".into())),
            ("d", Value::Array(vec![Value::I64(1), Value::F64(0.5)])),
            ("e", Value::Array(vec![Value::U64(9)])),
        ]);
        let b = ty.encode(&v).unwrap();
        let back = ty.decode(&b, 0).unwrap();
        assert_eq!(back.get("a"), Some(&Value::Time(Timestamp(1_000_000_002))));
        assert_eq!(back.get("b"), Some(&Value::Duration(-999_999_995)));
        assert_eq!(back.get("c"), Some(&Value::F64(f64::NEG_INFINITY)));
        assert_eq!(back.get("d"), Some(&Value::F32Array(vec![1.0, 0.5])));
        assert_eq!(back.get("e"), Some(&Value::Bytes(vec![9])));
    }

    #[test]
    fn errors_name_the_field_and_what_was_expected() {
        let ty = t("Inner[] items\n===\nMSG: t/Inner\nuint8 small\nint32[2] pair");
        let item = |small: Value, pair: Value| st(vec![("small", small), ("pair", pair)]);
        let ok_pair = Value::Array(vec![Value::I64(1), Value::I64(2)]);
        let cases = [
            (
                item(Value::I64(256), ok_pair.clone()),
                "field `items[0].small`: expected a uint8 in 0..=255, found integer 256",
            ),
            (
                item(Value::I64(1), Value::Array(vec![Value::I64(1)])),
                "field `items[0].pair`: expected an array of exactly 2 elements, found an array of 1 values",
            ),
            (
                item(Value::String("x".into()), ok_pair.clone()),
                "field `items[0].small`: expected a uint8, found string \"x\"",
            ),
            (
                st(vec![("small", Value::I64(1))]),
                "field `items[0].pair`: expected a value for field `pair` of t/Inner, found none",
            ),
        ];
        for (it, want) in cases {
            let v = st(vec![("items", Value::Array(vec![it]))]);
            let e = ty.encode(&v).unwrap_err().to_string();
            assert!(e.contains(want), "{e}\nwanted: {want}");
        }
        let extra = st(vec![
            ("items", Value::Array(vec![])),
            ("other", Value::Null),
        ]);
        let e = ty.encode(&extra).unwrap_err().to_string();
        assert!(e.contains("unknown field `other`"), "{e}");
        let e = ty.encode(&Value::I64(1)).unwrap_err().to_string();
        assert!(e.contains("the message: expected a t/T struct"), "{e}");
    }
}
