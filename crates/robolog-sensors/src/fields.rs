//! Reading the fields of decoded messages, whichever format decoded them.

use std::borrow::Cow;

use logcore::Value;

use crate::{Result, SensorError};

/// What an absent field reads as: protobuf 3 leaves a field at its
/// default (0, empty text, no items) out of the wire, and JSON may omit
/// it, so the accessors below take a missing field (or a null) as that
/// default. The ROS decoders always give every field.
static ABSENT: Value = Value::Null;

/// The field `name` of `v` ([`ABSENT`] when the struct lacks it), or an
/// error when `v` is no struct.
pub(crate) fn field<'v>(v: &'v Value, name: &str) -> Result<&'v Value> {
    match v {
        Value::Struct(_) => Ok(v.get(name).unwrap_or(&ABSENT)),
        other => Err(SensorError::new(format!(
            "the message is {}, not a struct",
            other.kind()
        ))),
    }
}

/// An integer field (booleans as 0/1).
pub(crate) fn int(v: &Value, name: &str) -> Result<i64> {
    let f = field(v, name)?;
    match f {
        Value::Null => Ok(0),
        Value::I64(x) => Ok(*x),
        Value::U64(x) => {
            i64::try_from(*x).map_err(|_| SensorError::new(format!("{name} is {x}, too large")))
        }
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::F64(x) if x.fract() == 0.0 && x.abs() < 9e15 => Ok(*x as i64),
        Value::F32(x) if x.fract() == 0.0 && x.abs() < 1e7 => Ok(*x as i64),
        other => Err(SensorError::new(format!(
            "{name} is {}, not an integer",
            other.kind()
        ))),
    }
}

/// A non-negative integer field that fits `u32`.
pub(crate) fn uint32(v: &Value, name: &str) -> Result<u32> {
    let x = int(v, name)?;
    u32::try_from(x).map_err(|_| SensorError::new(format!("{name} is {x}, not a uint32")))
}

/// A numeric field as `f64`.
pub(crate) fn float(v: &Value, name: &str) -> Result<f64> {
    let f = field(v, name)?;
    match f {
        Value::Null => Ok(0.0),
        Value::F32(x) => Ok(f64::from(*x)),
        Value::F64(x) => Ok(*x),
        Value::I64(x) => Ok(*x as f64),
        Value::U64(x) => Ok(*x as f64),
        // JSON has no NaN: Foxglove's JSON channels write it as text.
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(SensorError::new(format!(
                "{name} is the text {s:?}, not a number"
            ))),
        },
        other => Err(SensorError::new(format!(
            "{name} is {}, not a number",
            other.kind()
        ))),
    }
}

/// A text field.
pub(crate) fn text<'v>(v: &'v Value, name: &str) -> Result<Cow<'v, str>> {
    match field(v, name)? {
        Value::Null => Ok(Cow::Borrowed("")),
        Value::String(s) => Ok(Cow::Borrowed(s)),
        Value::Bytes(b) => Ok(String::from_utf8_lossy(b)),
        other => Err(SensorError::new(format!(
            "{name} is {}, not text",
            other.kind()
        ))),
    }
}

/// A byte-array field: `uint8[]` as bytes, an array of small integers, or
/// base64 text (Foxglove's JSON channels).
pub(crate) fn bytes<'v>(v: &'v Value, name: &str) -> Result<Cow<'v, [u8]>> {
    match field(v, name)? {
        Value::Null => Ok(Cow::Borrowed(&[])),
        Value::Bytes(b) => Ok(Cow::Borrowed(b)),
        Value::String(s) => base64(s.as_bytes())
            .map(Cow::Owned)
            .ok_or_else(|| SensorError::new(format!("{name} is text that is not base64"))),
        Value::Array(items) => items
            .iter()
            .map(|x| match x {
                Value::U64(b) => u8::try_from(*b).ok(),
                Value::I64(b) => u8::try_from(*b).ok(),
                _ => None,
            })
            .collect::<Option<Vec<u8>>>()
            .map(Cow::Owned)
            .ok_or_else(|| SensorError::new(format!("{name} is an array that is not bytes"))),
        other => Err(SensorError::new(format!(
            "{name} is {}, not bytes",
            other.kind()
        ))),
    }
}

/// A `float32[]`/`float64[]` field as `f32`s.
pub(crate) fn floats<'v>(v: &'v Value, name: &str) -> Result<Cow<'v, [f32]>> {
    match field(v, name)? {
        Value::Null => Ok(Cow::Borrowed(&[])),
        Value::F32Array(a) => Ok(Cow::Borrowed(a)),
        Value::F64Array(a) => Ok(Cow::Owned(a.iter().map(|&x| x as f32).collect())),
        Value::Array(items) => items
            .iter()
            .map(|x| match x {
                Value::String(_) => float(&Value::record([("x", x.clone())]), "x")
                    .ok()
                    .map(|f| f as f32),
                _ => x.as_f64().map(|f| f as f32),
            })
            .collect::<Option<Vec<f32>>>()
            .map(Cow::Owned)
            .ok_or_else(|| SensorError::new(format!("{name} is an array that is not numbers"))),
        other => Err(SensorError::new(format!(
            "{name} is {}, not an array of numbers",
            other.kind()
        ))),
    }
}

/// An array field's items.
pub(crate) fn array<'v>(v: &'v Value, name: &str) -> Result<&'v [Value]> {
    match field(v, name)? {
        Value::Null => Ok(&[]),
        Value::Array(items) => Ok(items),
        other => Err(SensorError::new(format!(
            "{name} is {}, not an array",
            other.kind()
        ))),
    }
}

/// Standard base64 (with or without padding, whitespace ignored); `None`
/// for anything else.
pub(crate) fn base64(text: &[u8]) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        }))
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    let mut ended = false;
    for &c in text {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            ended = true;
            continue;
        }
        if ended {
            return None;
        }
        acc = (acc << 6) | sextet(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes_rfc4648_examples() {
        for (text, plain) in [
            ("", ""),
            ("Zg==", "f"),
            ("Zm8=", "fo"),
            ("Zm9v", "foo"),
            ("Zm9vYg==", "foob"),
            ("Zm9vYmE=", "fooba"),
            ("Zm9vYmFy", "foobar"),
        ] {
            assert_eq!(super::base64(text.as_bytes()).unwrap(), plain.as_bytes());
        }
        assert!(super::base64(b"Zm9v!").is_none());
    }
}
