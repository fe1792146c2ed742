//! Dynamic decoding of ROS 1 wire bytes (spec 6.3, 6.4) into
//! [`logcore::Value`], with a check that the payload is consumed exactly.
//!
//! Value mapping: integers become `I64`/`U64`, `float32` stays `F32`
//! (`float32[]`/`float64[]` become the typed `F32Array`/`F64Array`),
//! `time` becomes `Time`, `duration` `Duration`, `uint8[]`/`char[]` (and
//! their fixed forms) `Bytes`, strings `String` when they are UTF-8 and
//! `Bytes` otherwise, nested messages `Struct` in declaration order.
//! Constants are not part of the wire data and not of the value.

use logcore::FormatError;
use logcore::{Timestamp, Value};
use nom::Parser;
use nom::number::complete::le_u32;

use crate::error::{Error, Result};
use crate::msg::{ArrayKind, Builtin, MessageType, WireKind};

type NomError<'a> = nom::error::Error<&'a [u8]>;

struct Cursor<'d> {
    data: &'d [u8],
    pos: usize,
    offset: u64,
    /// Elements of zero wire size still allowed (an `Empty[]` of a
    /// billion elements takes four bytes; this keeps the work bounded).
    zero_size_budget: u64,
}

impl<'d> Cursor<'d> {
    fn rest(&self) -> &'d [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    fn error(&self, expected: impl std::fmt::Display) -> Error {
        Error::malformed(
            self.offset,
            format!("{expected} at byte {} of the message payload", self.pos),
            format!("{} bytes left", self.rest().len()),
        )
    }

    fn take<T>(
        &mut self,
        what: &dyn Fn() -> String,
        mut p: impl Parser<&'d [u8], Output = T, Error = NomError<'d>>,
    ) -> Result<T> {
        let rest = self.rest();
        match p.parse(rest) {
            Ok((after, v)) => {
                self.pos += rest.len() - after.len();
                Ok(v)
            }
            Err(_) => Err(self.error(what())),
        }
    }

    /// The next `N` bytes (a fixed-size little-endian scalar).
    #[inline(always)]
    fn le<const N: usize>(&mut self, what: &dyn Fn() -> String) -> Result<[u8; N]> {
        match self.data.get(self.pos..self.pos.saturating_add(N)) {
            Some(b) => {
                self.pos += N;
                let mut a = [0u8; N];
                a.copy_from_slice(b);
                Ok(a)
            }
            None => Err(self.error(what())),
        }
    }

    fn bytes(&mut self, n: u64, what: &dyn Fn() -> String) -> Result<&'d [u8]> {
        let rest = self.rest();
        match usize::try_from(n) {
            Ok(n) if n <= rest.len() => {
                self.pos += n;
                Ok(&rest[..n])
            }
            _ => Err(self.error(format!("{n} bytes of {}", what()))),
        }
    }
}

impl MessageType {
    /// Decodes one serialized message; `offset` (the message's file offset)
    /// is what errors name. Fails when bytes are left over.
    pub fn decode(&self, data: &[u8], offset: u64) -> Result<Value> {
        let mut v = Value::Null;
        self.decode_into(data, offset, &mut v)?;
        Ok(v)
    }

    /// Decodes one serialized message into `out`, reusing the allocations
    /// of the value `out` already holds: decoding message after message
    /// of one type into the same `Value` allocates only where a string or
    /// an array outgrows its previous size. The result equals
    /// [`decode`](Self::decode)'s whatever `out` held before; after an
    /// error `out` holds a partly decoded value.
    ///
    /// ```
    /// use logcore::Value;
    /// let t = rosbag12::MessageType::parse("demo/Pair", "int32 a\nfloat64[] b").unwrap();
    /// let mut v = Value::Null;
    /// for k in 1..=3i32 {
    ///     let mut data = k.to_le_bytes().to_vec();
    ///     data.extend(1u32.to_le_bytes());
    ///     data.extend(0.5f64.to_le_bytes());
    ///     t.decode_into(&data, 0, &mut v).unwrap();
    ///     assert_eq!(v.get("a"), Some(&Value::I64(i64::from(k))));
    ///     assert_eq!(v.get("b"), Some(&Value::F64Array(vec![0.5])));
    /// }
    /// ```
    pub fn decode_into(&self, data: &[u8], offset: u64, out: &mut Value) -> Result<()> {
        let mut c = Cursor {
            data,
            pos: 0,
            offset,
            zero_size_budget: data.len() as u64 + 1024,
        };
        self.decode_struct(0, 1, &mut c, out)?;
        if c.pos != data.len() {
            return Err(Error::malformed(
                offset,
                format!(
                    "the end of the {} message after {} bytes",
                    self.defs.first().map_or("", |d| d.name.as_str()),
                    c.pos
                ),
                format!("{} bytes left over", data.len() - c.pos),
            ));
        }
        Ok(())
    }

    /// Decodes a value of type `ty`, `depth` levels below the top (the top
    /// is 1). [`MessageType::parse`] already refuses types nested deeper
    /// than [`MessageType::max_nesting`]; the counter keeps the recursion
    /// bounded on its own.
    fn decode_struct(
        &self,
        ty: usize,
        depth: usize,
        c: &mut Cursor<'_>,
        out: &mut Value,
    ) -> Result<()> {
        let Some(compiled) = self.compiled.get(ty) else {
            return Err(c.error("a known message type"));
        };
        if depth > self.max_nesting {
            return Err(c.error(format!(
                "message types nested {}, not {} at {depth}",
                logcore::limits::nesting_limit(self.max_nesting),
                self.defs[ty].name
            )));
        }
        let n = compiled.fields.len();
        if !matches!(out, Value::Struct(_)) {
            *out = Value::Struct(Vec::with_capacity(n));
        }
        let Value::Struct(fields) = out else {
            return Err(c.error("a struct value to decode into"));
        };
        fields.truncate(n);
        // A new struct gets its names in one go, then every field is
        // decoded in place.
        let have = fields.len();
        fields.extend(
            compiled.fields[have..]
                .iter()
                .map(|(name, _, _)| (name.clone(), Value::Null)),
        );
        for ((name, kind, array), (old, slot)) in compiled.fields.iter().zip(fields.iter_mut()) {
            if !old.is_same(name) {
                *old = name.clone();
            }
            let what = || format!("field `{name}` of {}", self.defs[ty].name);
            self.decode_field(kind, array, depth, c, &what, slot)?;
        }
        Ok(())
    }

    #[inline(always)]
    fn decode_field(
        &self,
        kind: &WireKind,
        array: &ArrayKind,
        depth: usize,
        c: &mut Cursor<'_>,
        what: &dyn Fn() -> String,
        slot: &mut Value,
    ) -> Result<()> {
        let kind = *kind;
        match *array {
            ArrayKind::Scalar => self.decode_one(kind, depth, c, what, slot),
            ArrayKind::Unbounded | ArrayKind::Bounded(_) => {
                let n = c.take(
                    &|| format!("the 4-byte element count of {}", what()),
                    le_u32,
                )?;
                self.decode_array(kind, u64::from(n), depth, c, what, slot)
            }
            ArrayKind::Fixed(n) => self.decode_array(kind, u64::from(n), depth, c, what, slot),
        }
    }

    fn decode_array(
        &self,
        kind: WireKind,
        n: u64,
        depth: usize,
        c: &mut Cursor<'_>,
        what: &dyn Fn() -> String,
        out: &mut Value,
    ) -> Result<()> {
        let elem = match kind {
            WireKind::Prim(p) => p.wire_size().unwrap_or(4) as u64,
            WireKind::Msg(j) => self.compiled.get(j).map_or(0, |t| t.min_size),
        };
        if elem == 0 {
            if n > c.zero_size_budget {
                return Err(c.error(format!(
                    "an array of at most {} empty elements in {}",
                    c.zero_size_budget,
                    what()
                )));
            }
            c.zero_size_budget -= n;
        } else if n.saturating_mul(elem) > c.rest().len() as u64 {
            return Err(c.error(format!(
                "{n} elements of at least {elem} bytes in {}",
                what()
            )));
        }
        if let WireKind::Prim(Builtin::UInt8 | Builtin::Char) = kind {
            set_bytes(out, c.bytes(n, what)?);
            return Ok(());
        }
        // Fixed-size numbers: one length check, then a tight loop.
        if let WireKind::Prim(p) = kind {
            if fixed_size_array(p, n, c, what, out)? {
                return Ok(());
            }
        }
        // `n` elements fit in the remaining bytes (or the budget), so this
        // allocation is bounded by the input.
        let n = n as usize;
        if !matches!(out, Value::Array(_)) {
            *out = Value::Array(Vec::with_capacity(n));
        }
        let Value::Array(items) = out else {
            return Err(c.error("an array value to decode into"));
        };
        items.truncate(n);
        for i in 0..n {
            if i == items.len() {
                items.push(Value::Null);
            }
            match items.get_mut(i) {
                Some(slot) => self.decode_one(kind, depth, c, what, slot)?,
                None => return Err(c.error("an array element")),
            }
        }
        Ok(())
    }

    fn decode_one(
        &self,
        kind: WireKind,
        depth: usize,
        c: &mut Cursor<'_>,
        what: &dyn Fn() -> String,
        out: &mut Value,
    ) -> Result<()> {
        use Builtin as P;
        let p = match kind {
            WireKind::Msg(j) => return self.decode_struct(j, depth + 1, c, out),
            WireKind::Prim(p) => p,
        };
        *out = match p {
            P::Bool => Value::Bool(c.le::<1>(what)?[0] != 0),
            P::Int8 | P::Byte => Value::I64(i64::from(i8::from_le_bytes(c.le(what)?))),
            P::UInt8 | P::Char => Value::U64(u64::from(c.le::<1>(what)?[0])),
            P::Int16 => Value::I64(i64::from(i16::from_le_bytes(c.le(what)?))),
            P::UInt16 => Value::U64(u64::from(u16::from_le_bytes(c.le(what)?))),
            P::Int32 => Value::I64(i64::from(i32::from_le_bytes(c.le(what)?))),
            P::UInt32 => Value::U64(u64::from(u32::from_le_bytes(c.le(what)?))),
            P::Int64 => Value::I64(i64::from_le_bytes(c.le(what)?)),
            P::UInt64 => Value::U64(u64::from_le_bytes(c.le(what)?)),
            P::Float32 => Value::F32(f32::from_le_bytes(c.le(what)?)),
            P::Float64 => Value::F64(f64::from_le_bytes(c.le(what)?)),
            P::String | P::WString => {
                let n = c.take(&|| format!("the 4-byte length of {}", what()), le_u32)?;
                let b = c.bytes(u64::from(n), what)?;
                match (std::str::from_utf8(b), &mut *out) {
                    (Ok(s), Value::String(old)) => {
                        old.clear();
                        old.push_str(s);
                        return Ok(());
                    }
                    (Ok(s), _) => Value::String(s.to_string()),
                    (Err(_), _) => {
                        set_bytes(out, b);
                        return Ok(());
                    }
                }
            }
            P::Time => {
                let sec = u32::from_le_bytes(c.le(what)?);
                let nsec = u32::from_le_bytes(c.le(what)?);
                Value::Time(Timestamp::from_nanos(
                    i64::from(sec) * 1_000_000_000 + i64::from(nsec),
                ))
            }
            P::Duration => {
                let sec = i32::from_le_bytes(c.le(what)?);
                let nsec = i32::from_le_bytes(c.le(what)?);
                Value::Duration(i64::from(sec) * 1_000_000_000 + i64::from(nsec))
            }
        };
        Ok(())
    }
}

/// Stores `b` as `Value::Bytes`, in the buffer `out` already has if any.
fn set_bytes(out: &mut Value, b: &[u8]) {
    match out {
        Value::Bytes(old) => {
            old.clear();
            old.extend_from_slice(b);
        }
        _ => *out = Value::Bytes(b.to_vec()),
    }
}

/// Refills a typed array in place, or replaces `out` with a new one.
fn set_typed<T>(
    out: &mut Value,
    items: impl ExactSizeIterator<Item = T>,
    get: fn(&mut Value) -> Option<&mut Vec<T>>,
    make: fn(Vec<T>) -> Value,
) {
    match get(out) {
        Some(old) => {
            old.clear();
            old.extend(items);
        }
        None => *out = make(items.collect()),
    }
}

/// An array of fixed-size numbers read in one go into `out`: `float32[]`
/// and `float64[]` as typed arrays, integers as arrays of `I64`/`U64`.
/// `false` when `p` has no fixed size.
fn fixed_size_array(
    p: Builtin,
    n: u64,
    c: &mut Cursor<'_>,
    what: &dyn Fn() -> String,
    out: &mut Value,
) -> Result<bool> {
    use Builtin as P;
    fn le<const N: usize>(b: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&b[..N]);
        a
    }
    let Some(size) = p.wire_size() else {
        return Ok(false);
    };
    let convert: fn(&[u8]) -> Value = match p {
        P::Int8 | P::Byte => |b| Value::I64(i64::from(b[0] as i8)),
        P::Int16 => |b| Value::I64(i64::from(i16::from_le_bytes(le(b)))),
        P::UInt16 => |b| Value::U64(u64::from(u16::from_le_bytes(le(b)))),
        P::Int32 => |b| Value::I64(i64::from(i32::from_le_bytes(le(b)))),
        P::UInt32 => |b| Value::U64(u64::from(u32::from_le_bytes(le(b)))),
        P::Int64 => |b| Value::I64(i64::from_le_bytes(le(b))),
        P::UInt64 => |b| Value::U64(u64::from_le_bytes(le(b))),
        P::Float32 | P::Float64 => |_| Value::Null,
        _ => return Ok(false),
    };
    let bytes = c.bytes(n.saturating_mul(size as u64), what)?;
    match p {
        P::Float32 => set_typed(
            out,
            bytes.chunks_exact(4).map(|b| f32::from_le_bytes(le(b))),
            |v| match v {
                Value::F32Array(a) => Some(a),
                _ => None,
            },
            Value::F32Array,
        ),
        P::Float64 => set_typed(
            out,
            bytes.chunks_exact(8).map(|b| f64::from_le_bytes(le(b))),
            |v| match v {
                Value::F64Array(a) => Some(a),
                _ => None,
            },
            Value::F64Array,
        ),
        _ => set_typed(
            out,
            bytes.chunks_exact(size).map(convert),
            |v| match v {
                Value::Array(a) => Some(a),
                _ => None,
            },
            Value::Array,
        ),
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> MessageType {
        MessageType::parse("t/T", text).unwrap()
    }

    #[test]
    fn decodes_every_builtin() {
        let t = ty(
            "bool a\nint8 b\nuint8 c\nint16 d\nuint16 e\nint32 f\nuint32 g\nint64 h\n\
                    uint64 i\nfloat32 j\nfloat64 k\nstring l\ntime m\nduration n\nbyte o\nchar p\n\
                    uint8[] q\nint16[2] r\nstring[] s",
        );
        let mut d = vec![1u8, 0xff, 0xff];
        d.extend((-2i16).to_le_bytes());
        d.extend(3u16.to_le_bytes());
        d.extend((-4i32).to_le_bytes());
        d.extend(5u32.to_le_bytes());
        d.extend((-6i64).to_le_bytes());
        d.extend(7u64.to_le_bytes());
        d.extend(0.5f32.to_le_bytes());
        d.extend(0.25f64.to_le_bytes());
        d.extend(2u32.to_le_bytes());
        d.extend(b"hi");
        d.extend(1u32.to_le_bytes());
        d.extend(2u32.to_le_bytes());
        d.extend((-1i32).to_le_bytes());
        d.extend(0i32.to_le_bytes());
        d.extend([0x80, 0x41]);
        d.extend(3u32.to_le_bytes());
        d.extend([9, 8, 7]);
        d.extend(1i16.to_le_bytes());
        d.extend(2i16.to_le_bytes());
        d.extend(1u32.to_le_bytes());
        d.extend(1u32.to_le_bytes());
        d.push(0xff);
        let v = t.decode(&d, 0).unwrap();
        let expect = [
            ("a", Value::Bool(true)),
            ("b", Value::I64(-1)),
            ("c", Value::U64(255)),
            ("d", Value::I64(-2)),
            ("e", Value::U64(3)),
            ("f", Value::I64(-4)),
            ("g", Value::U64(5)),
            ("h", Value::I64(-6)),
            ("i", Value::U64(7)),
            ("j", Value::F32(0.5)),
            ("k", Value::F64(0.25)),
            ("l", Value::String("hi".into())),
            ("m", Value::Time(Timestamp::from_nanos(1_000_000_002))),
            ("n", Value::Duration(-1_000_000_000)),
            ("o", Value::I64(-128)),
            ("p", Value::U64(0x41)),
            ("q", Value::Bytes(vec![9, 8, 7])),
            ("r", Value::Array(vec![Value::I64(1), Value::I64(2)])),
            ("s", Value::Array(vec![Value::Bytes(vec![0xff])])),
        ];
        for (name, want) in expect {
            assert_eq!(v.get(name), Some(&want), "{name}");
        }
    }

    #[test]
    fn leftovers_and_hostile_counts_fail() {
        let t = ty("int32 a");
        let e = t.decode(&[1, 0, 0, 0, 9], 77).unwrap_err();
        assert_eq!(e.offset(), Some(77));
        assert!(e.to_string().contains("1 bytes left over"), "{e}");
        let t = ty("float64[] a");
        assert!(t.decode(&u32::MAX.to_le_bytes(), 0).is_err());
        let t = ty("E[] e\n===\nMSG: t/E\n");
        let mut d = 3u32.to_le_bytes().to_vec();
        assert_eq!(
            t.decode(&d, 0).unwrap().get("e"),
            Some(&Value::Array(vec![Value::Struct(vec![]); 3]))
        );
        d = u32::MAX.to_le_bytes().to_vec();
        assert!(t.decode(&d, 0).is_err());
        let t = ty("float64[4000000000] a");
        assert!(t.decode(&[0; 8], 0).is_err());
    }

    #[test]
    fn decode_into_equals_decode_whatever_the_value_held() {
        let t = ty("P[] ps\nstring s\nint16[] i\nfloat32[] f\nuint8[] b\n\
                    ===\nMSG: t/P\nstring name\nfloat64[2] xy");
        let msg = |points: &[(&[u8], f64)], s: &[u8], ints: &[i16], floats: &[f32]| {
            let mut d = (points.len() as u32).to_le_bytes().to_vec();
            for (name, x) in points {
                d.extend((name.len() as u32).to_le_bytes());
                d.extend(*name);
                d.extend(x.to_le_bytes());
                d.extend((-x).to_le_bytes());
            }
            d.extend((s.len() as u32).to_le_bytes());
            d.extend(s);
            d.extend((ints.len() as u32).to_le_bytes());
            ints.iter().for_each(|v| d.extend(v.to_le_bytes()));
            d.extend((floats.len() as u32).to_le_bytes());
            floats.iter().for_each(|v| d.extend(v.to_le_bytes()));
            d.extend((s.len() as u32).to_le_bytes());
            d.extend(s);
            d
        };
        let inputs = [
            msg(
                &[(b"a", 1.0), (b"bb", 2.0), (b"c", 3.0)],
                b"text",
                &[1, -2],
                &[0.5],
            ),
            msg(&[(b"\xff", 4.0)], b"\xfe\xfd", &[], &[1.5, 2.5, 3.5]),
            msg(&[], b"", &[7; 5], &[]),
            msg(
                &[(b"long name", 5.0), (b"", 6.0)],
                b"again",
                &[3],
                &[9.0; 4],
            ),
        ];
        let starts = [
            Value::Null,
            Value::I64(3),
            Value::Struct(vec![("other".into(), Value::String("x".into())); 9]),
            t.decode(&inputs[0], 0).unwrap(),
        ];
        for start in starts {
            let mut v = start;
            for d in inputs.iter().chain(inputs.iter().rev()) {
                t.decode_into(d, 0, &mut v).unwrap();
                assert_eq!(v, t.decode(d, 0).unwrap());
            }
        }
        // A failed decode reports the error like decode does.
        let mut v = Value::Null;
        let e = t.decode_into(&inputs[0][..9], 5, &mut v).unwrap_err();
        assert_eq!(e.offset(), Some(5));
    }
}
