//! [`MessageType`]: a parsed definition compiled for decoding, and the
//! CDR decoder.
//!
//! The wire format is plain CDR (XCDR1 with final types, what every ROS 2
//! middleware writes): a 4-byte encapsulation header (`00 00` big endian,
//! `00 01` little endian, then two option bytes), then the fields in
//! order, each primitive aligned to its size (8 at most) counted from the
//! first byte after the header. Strings are a 4-byte length that counts a
//! NUL terminator, then the bytes; sequences (`T[]`, `T[<=N]`) a 4-byte
//! element count, then the elements; fixed arrays only the elements. A
//! type with no fields takes one byte (the `structure_needs_at_least_one_member`
//! octet ROS 2 adds). Up to three bytes of padding after the last field
//! are accepted; more bytes left over are an error.
//!
//! Value mapping (the shapes rosbag12's ROS 1 decoder gives the same
//! types): `bool` is `Bool`; signed integers `I64`; unsigned integers,
//! `byte` and `char` `U64`; `float32` `F32`, `float64` `F64`; arrays of
//! `uint8`, `byte` and `char` `Bytes`; arrays of `float32` and `float64`
//! the typed `F32Array`/`F64Array`; other arrays `Array`; strings `String`
//! when they are UTF-8 and `Bytes` otherwise; wide strings `String`;
//! messages `Struct` with their fields in order; `builtin_interfaces/Time`
//! and `Duration` (the standard `int32 sec`, `uint32 nanosec`) one `Time`
//! or `Duration` in ns, as ROS 1's `time` and `duration` decode.
//! Bounds (`string<=N`, `T[<=N]`) are not enforced when reading.
//!
//! Wide strings are read as Fast DDS (ROS 2's default middleware) writes
//! them: a 4-byte count of characters (no terminator), then each UTF-16
//! code unit in 4 bytes.

use std::collections::HashMap;

use logcore::{FieldName, Value};

use crate::Limits;
use crate::error::{Error, Result};
use crate::msg::{ArrayKind, FieldType, MAX_NESTING, MsgDef, Primitive, parse_definition};

/// A field's element type on the wire ([`MessageType::wire_types`]), with
/// message types as indexes into the compiled list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireKind {
    /// A fixed-size builtin, aligned to its size.
    Prim(Primitive),
    /// `string` or `string<=N`: a 4-byte length counting a NUL
    /// terminator, then the bytes.
    Str,
    /// `wstring` or `wstring<=N`: a 4-byte count of UTF-16 code units,
    /// then each unit in 4 bytes.
    WStr,
    /// A nested message, by its index in [`MessageType::wire_types`]
    /// (and [`MessageType::defs`]).
    Msg(usize),
    /// `builtin_interfaces/Time` (`int32 sec`, `uint32 nanosec`): one
    /// instant, as ROS 1's `time`.
    Time,
    /// `builtin_interfaces/Duration` (`int32 sec`, `uint32 nanosec`).
    Duration,
}

/// The name the decoder uses for [`WireKind`].
pub(crate) use WireKind as Kind;

/// Whether `def` is builtin_interfaces' `Time` or `Duration` as the
/// standard defines them (`int32 sec`, `uint32 nanosec`): such a field is
/// one instant or duration ([`Kind::Time`], [`Kind::Duration`]); a type of
/// that name with other fields stays a struct.
fn builtin_time(def: &MsgDef) -> Option<Kind> {
    let kind = match def.name.as_str() {
        "builtin_interfaces/Time" => Kind::Time,
        "builtin_interfaces/Duration" => Kind::Duration,
        _ => return None,
    };
    match def.fields.as_slice() {
        [sec, nanosec]
            if sec.name == "sec"
                && nanosec.name == "nanosec"
                && matches!(sec.ty, FieldType::Primitive(Primitive::Int32))
                && matches!(nanosec.ty, FieldType::Primitive(Primitive::UInt32))
                && matches!(sec.array, ArrayKind::Scalar)
                && matches!(nanosec.array, ArrayKind::Scalar) =>
        {
            Some(kind)
        }
        _ => None,
    }
}

/// One message type of a definition as the wire holds it
/// ([`MessageType::wire_types`]): its fields in order, with nested types
/// as indexes.
#[derive(Debug, Clone)]
pub struct WireType {
    pub(crate) fields: Vec<(FieldName, Kind, ArrayKind)>,
    /// The fewest bytes a value of the type takes on the wire (ignoring
    /// alignment): what bounds element counts before anything is
    /// allocated. At least 1 for every type.
    min_size: u64,
}

/// The name the decoder uses for [`WireType`].
pub(crate) type Compiled = WireType;

impl WireType {
    /// The fields in wire order: name, element type, array kind. A type
    /// without fields takes one placeholder byte.
    pub fn fields(&self) -> &[(FieldName, WireKind, ArrayKind)] {
        &self.fields
    }

    /// The fewest bytes a value takes, ignoring alignment (a string or
    /// sequence counts its 4-byte length; at least 1): the decoder refuses
    /// an array of `n` such elements when fewer than `n` times this many
    /// bytes are left, before reading any.
    pub fn min_size(&self) -> u64 {
        self.min_size
    }
}

/// A ROS 2 message type parsed from its definition, ready to decode CDR
/// payloads.
///
/// ```
/// use logcore::Value;
/// let t = ros2cdr::MessageType::parse(
///     "geometry_msgs/msg/Point",
///     "float64 x\nfloat64 y\nfloat64 z\n",
/// )?;
/// let mut payload = vec![0, 1, 0, 0]; // little-endian CDR
/// for x in [1.5f64, -2.0, 0.25] {
///     payload.extend(x.to_le_bytes());
/// }
/// let v = t.decode(&payload, 0)?;
/// assert_eq!(v.get("y"), Some(&Value::F64(-2.0)));
/// # Ok::<(), ros2cdr::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct MessageType {
    defs: Vec<MsgDef>,
    pub(crate) compiled: Vec<Compiled>,
    /// The deepest nesting compiling allowed, which decoding and
    /// [`value_type`](Self::value_type) follow too.
    pub(crate) max_nesting: usize,
    /// The interface kind of the top-level type (`msg` or `srv`), the
    /// middle part of its full name in
    /// [`type_description_hash`](Self::type_description_hash).
    pub(crate) interface: &'static str,
}

impl MessageType {
    /// Parses the stored definition `text` of type `type_name` (see
    /// [`parse_definition`]) and compiles it: every message type resolved,
    /// nesting at most [`MAX_NESTING`] deep (which refuses a type that
    /// contains itself).
    pub fn parse(type_name: &str, text: &str) -> Result<Self> {
        Self::parse_with_limits(type_name, text, &Limits::default())
    }

    /// [`parse`](Self::parse) nesting at most
    /// [`Limits::nesting_or`]`(`[`MAX_NESTING`]`)` deep, a limit the type
    /// keeps for decoding.
    ///
    /// ```
    /// use ros2cdr::{Limits, MessageType};
    ///
    /// let text = "B b\n===\nMSG: p/B\nC c\n===\nMSG: p/C\nint8 x";
    /// let lowered = Limits::default().with_max_nesting(2);
    /// let e = MessageType::parse_with_limits("p/A", text, &lowered).unwrap_err();
    /// assert!(e.to_string().contains("at most 2 levels deep"), "{e}");
    /// assert!(e.to_string().contains("`--max-nesting`"), "{e}");
    /// let t = MessageType::parse_with_limits("p/A", text, &lowered.with_max_nesting(3))?;
    /// assert_eq!(t.max_nesting(), 3);
    /// assert_eq!(MessageType::parse("p/A", text)?.max_nesting(), 64);
    /// # Ok::<(), ros2cdr::Error>(())
    /// ```
    pub fn parse_with_limits(type_name: &str, text: &str, limits: &Limits) -> Result<Self> {
        let defs = parse_definition(type_name, text)?;
        Self::from_defs_with_limits(defs, limits).map(|t| t.named(type_name))
    }

    /// Parses a stored `ros2idl` text of type `type_name` (see
    /// [`parse_idl`](crate::idl::parse_idl)) and compiles it like
    /// [`parse`](Self::parse).
    pub fn parse_idl(type_name: &str, text: &str) -> Result<Self> {
        Self::parse_idl_with_limits(type_name, text, &Limits::default())
    }

    /// [`parse_idl`](Self::parse_idl) with the nesting limit of `limits`
    /// (for modules and message types; see
    /// [`parse_with_limits`](Self::parse_with_limits)).
    pub fn parse_idl_with_limits(type_name: &str, text: &str, limits: &Limits) -> Result<Self> {
        let defs = crate::idl::parse_idl_with_limits(type_name, text, limits)?;
        Self::from_defs_with_limits(defs, limits).map(|t| t.named(type_name))
    }

    /// Takes the interface kind from a full type name `pkg/srv/Type`
    /// (`msg` unless the middle part says `srv`); a name of two parts
    /// keeps what [`from_defs`](Self::from_defs) found.
    fn named(mut self, type_name: &str) -> Self {
        let parts: Vec<&str> = type_name.trim().split('/').collect();
        if let [_, kind, _] = parts.as_slice() {
            self.interface = if *kind == "srv" { "srv" } else { "msg" };
        }
        self
    }

    /// Compiles already parsed definitions, the top-level type first,
    /// every message type resolved to a type in the list.
    pub fn from_defs(defs: Vec<MsgDef>) -> Result<Self> {
        Self::from_defs_with_limits(defs, &Limits::default())
    }

    /// [`from_defs`](Self::from_defs) with the nesting limit of `limits`
    /// (see [`parse_with_limits`](Self::parse_with_limits)).
    pub fn from_defs_with_limits(defs: Vec<MsgDef>, limits: &Limits) -> Result<Self> {
        let max_nesting = limits.nesting_or(MAX_NESTING);
        let Some(top) = defs.first() else {
            return Err(Error::definition("", "no message type"));
        };
        let index: HashMap<&str, usize> = defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.as_str(), i))
            .collect();
        let mut compiled = Vec::with_capacity(defs.len());
        for d in &defs {
            let mut fields = Vec::with_capacity(d.fields.len());
            for f in &d.fields {
                let kind = match &f.ty {
                    FieldType::Primitive(p) => Kind::Prim(*p),
                    FieldType::String { .. } => Kind::Str,
                    FieldType::WString { .. } => Kind::WStr,
                    FieldType::Message(m) => match index.get(m.as_str()) {
                        Some(&i) => builtin_time(&defs[i]).unwrap_or(Kind::Msg(i)),
                        None => {
                            return Err(Error::definition(
                                &d.name,
                                format!(
                                    "no definition of the type {m} (used by field `{}`)",
                                    f.name
                                ),
                            ));
                        }
                    },
                };
                fields.push((FieldName::from(f.name.as_str()), kind, f.array));
            }
            compiled.push(Compiled {
                fields,
                min_size: 0,
            });
        }
        let mut sizes: Vec<Option<u64>> = vec![None; compiled.len()];
        for i in 0..compiled.len() {
            let size = min_size(&compiled, i, 1, max_nesting, &mut sizes)
                .map_err(|reason| Error::definition(&top.name, reason))?;
            compiled[i].min_size = size;
        }
        let interface = rosmsg::ros2::hash::inferred_interface(&defs);
        Ok(MessageType {
            defs,
            compiled,
            max_nesting,
            interface,
        })
    }

    /// The deepest nesting of types this type was compiled with, and that
    /// its decoding follows.
    pub fn max_nesting(&self) -> usize {
        self.max_nesting
    }

    /// The canonical name (`pkg/Type`) of the top-level type.
    pub fn name(&self) -> &str {
        self.defs.first().map_or("", |d| d.name.as_str())
    }

    /// Every type of the definition, the top-level one first.
    pub fn defs(&self) -> &[MsgDef] {
        &self.defs
    }

    /// Every type of the definition as the wire holds it, in the order of
    /// [`defs`](Self::defs) (the message's own type first), for readers
    /// that walk payloads themselves. `builtin_interfaces/Time` and
    /// `Duration` fields are [`WireKind::Time`] and [`WireKind::Duration`]
    /// where [`value_type`](Self::value_type) makes them one instant or
    /// duration.
    ///
    /// ```
    /// use ros2cdr::{MessageType, WireKind};
    /// use ros2cdr::msg::{ArrayKind, Primitive};
    ///
    /// let t = MessageType::parse("p/msg/A", "builtin_interfaces/Time t\nfloat64[9] c\nstring s")?;
    /// let [top, ..] = t.wire_types() else { panic!() };
    /// assert_eq!(top.fields()[0].1, WireKind::Time);
    /// assert_eq!(top.fields()[1].1, WireKind::Prim(Primitive::Float64));
    /// assert_eq!(top.fields()[1].2, ArrayKind::Fixed(9));
    /// assert_eq!(top.fields()[2].1, WireKind::Str);
    /// assert_eq!(top.min_size(), 8 + 72 + 4);
    /// # Ok::<(), ros2cdr::Error>(())
    /// ```
    pub fn wire_types(&self) -> &[WireType] {
        &self.compiled
    }

    /// The type named `name` (canonical or `pkg/msg/Type` form).
    pub fn def(&self, name: &str) -> Option<&MsgDef> {
        let name = crate::msg::canonical_name(name);
        self.defs.iter().find(|d| d.name == name)
    }

    /// Decodes one CDR payload (with its 4-byte encapsulation header);
    /// `offset`, the payload's byte offset in the file, is what errors add
    /// the position inside the payload to.
    pub fn decode(&self, data: &[u8], offset: u64) -> Result<Value> {
        let err = |expected: String, found: String| {
            Error::from(logcore::Error::malformed(offset, expected, found))
        };
        let Some(header) = data.get(..4) else {
            return Err(err(
                "a 4-byte CDR encapsulation header".into(),
                format!("a payload of {} bytes", data.len()),
            ));
        };
        let big = match (header[0], header[1]) {
            (0, 0) => true,
            (0, 1) => false,
            (a, b) => {
                let what = match (a, b) {
                    (0, 2 | 3) => "parameter-list CDR (PL_CDR)",
                    (0, 6..=11) => "XCDR2",
                    _ => "an unknown encapsulation",
                };
                return Err(logcore::Error::unsupported(
                    offset,
                    format!("CDR encapsulation kind 0x{a:02x}{b:02x}"),
                    format!("{what}; plain CDR (0x0000 or 0x0001) is read"),
                )
                .into());
            }
        };
        let mut r = Reader {
            data: &data[4..],
            pos: 0,
            big,
            offset: offset + 4,
        };
        let v = self.decode_struct(0, 1, &mut r)?;
        let left = r.data.len() - r.pos;
        if left > 3 {
            return Err(r.error(
                format!("the end of the {} message", self.name()),
                format!("{left} bytes left over"),
            ));
        }
        Ok(v)
    }

    fn decode_struct(&self, ty: usize, depth: usize, r: &mut Reader<'_>) -> Result<Value> {
        let Some(c) = self.compiled.get(ty) else {
            return Err(r.error("a known message type".into(), format!("type index {ty}")));
        };
        if depth > self.max_nesting {
            return Err(r.error(
                format!(
                    "message types nested {}",
                    logcore::limits::nesting_limit(self.max_nesting)
                ),
                format!("{} at depth {depth}", self.defs[ty].name),
            ));
        }
        if c.fields.is_empty() {
            r.take(1, &|| {
                format!("the placeholder byte of the empty {}", self.defs[ty].name)
            })?;
            return Ok(Value::Struct(Vec::new()));
        }
        let mut out = Vec::with_capacity(c.fields.len());
        for (name, kind, array) in &c.fields {
            let what = || format!("field `{name}` of {}", self.defs[ty].name);
            let v = match *array {
                ArrayKind::Scalar => self.decode_one(*kind, depth, r, &what)?,
                ArrayKind::Fixed(n) => self.decode_array(*kind, u64::from(n), depth, r, &what)?,
                ArrayKind::Bounded(_) | ArrayKind::Unbounded => {
                    let n = r.u32(&|| format!("the element count of {}", what()))?;
                    self.decode_array(*kind, u64::from(n), depth, r, &what)?
                }
            };
            out.push((name.clone(), v));
        }
        Ok(Value::Struct(out))
    }

    fn decode_one(
        &self,
        kind: Kind,
        depth: usize,
        r: &mut Reader<'_>,
        what: &dyn Fn() -> String,
    ) -> Result<Value> {
        match kind {
            Kind::Msg(j) => self.decode_struct(j, depth + 1, r),
            Kind::Time | Kind::Duration => {
                r.align(4, what)?;
                let sec = i32::from_le_bytes(r.le::<4>(what)?);
                let nanosec = u32::from_le_bytes(r.le::<4>(what)?);
                let ns = i64::from(sec) * 1_000_000_000 + i64::from(nanosec);
                Ok(match kind {
                    Kind::Time => Value::Time(logcore::Timestamp(ns)),
                    _ => Value::Duration(ns),
                })
            }
            Kind::Prim(p) => r.primitive(p, what),
            Kind::Str => r.string(what),
            Kind::WStr => r.wstring(what),
        }
    }

    fn decode_array(
        &self,
        kind: Kind,
        n: u64,
        depth: usize,
        r: &mut Reader<'_>,
        what: &dyn Fn() -> String,
    ) -> Result<Value> {
        let elem = match kind {
            Kind::Prim(p) => p.size() as u64,
            Kind::Str | Kind::WStr => 4,
            Kind::Time | Kind::Duration => 8,
            Kind::Msg(j) => self.compiled.get(j).map_or(1, |c| c.min_size.max(1)),
        };
        let left = r.data.len().saturating_sub(r.pos) as u64;
        if n.saturating_mul(elem) > left {
            return Err(r.error(
                format!("{n} elements of at least {elem} bytes in {}", what()),
                format!("{left} bytes left"),
            ));
        }
        // `n` elements fit in the remaining bytes, so what is allocated
        // below is bounded by the input.
        let n = n as usize;
        if let Kind::Prim(p) = kind {
            if n > 0 {
                r.align(p.size(), what)?;
            }
            let bytes = r.take(n * p.size(), what)?;
            return Ok(primitive_array(p, bytes, r.big));
        }
        // Reserved up front only up to a page of elements: a value takes
        // more memory than its bytes on the wire, so a long array grows as
        // its elements actually decode.
        let mut items = Vec::with_capacity(n.min(4096));
        for _ in 0..n {
            items.push(self.decode_one(kind, depth, r, what)?);
        }
        Ok(Value::Array(items))
    }
}

/// The minimum wire size of type `i`, failing on nesting deeper than
/// `max` (a type that contains itself nests without end).
fn min_size(
    compiled: &[Compiled],
    i: usize,
    depth: usize,
    max: usize,
    memo: &mut [Option<u64>],
) -> std::result::Result<u64, String> {
    if let Some(Some(s)) = memo.get(i) {
        return Ok(*s);
    }
    if depth > max {
        return Err(format!(
            "message types nested {}, found them nested deeper (or a type that contains itself)",
            logcore::limits::nesting_limit(max)
        ));
    }
    let Some(c) = compiled.get(i) else {
        return Err(format!("type index {i}"));
    };
    let mut total: u64 = 0;
    for (_, kind, array) in &c.fields {
        let elem = match *kind {
            Kind::Prim(p) => p.size() as u64,
            Kind::Str | Kind::WStr => 4,
            Kind::Time | Kind::Duration => 8,
            Kind::Msg(j) => min_size(compiled, j, depth + 1, max, memo)?,
        };
        total = total.saturating_add(match *array {
            ArrayKind::Scalar => elem,
            ArrayKind::Fixed(n) => elem.saturating_mul(u64::from(n)),
            ArrayKind::Bounded(_) | ArrayKind::Unbounded => 4,
        });
    }
    let size = total.max(1);
    if let Some(slot) = memo.get_mut(i) {
        *slot = Some(size);
    }
    Ok(size)
}

/// An array of `p` read from `bytes` (whose length is a multiple of its
/// size).
fn primitive_array(p: Primitive, bytes: &[u8], big: bool) -> Value {
    use Primitive as P;
    fn arr<const N: usize>(b: &[u8], big: bool) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&b[..N]);
        if big {
            a.reverse();
        }
        a
    }
    match p {
        P::Byte | P::UInt8 | P::Char => Value::Bytes(bytes.to_vec()),
        P::Float32 => Value::F32Array(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(arr(b, big)))
                .collect(),
        ),
        P::Float64 => Value::F64Array(
            bytes
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(arr(b, big)))
                .collect(),
        ),
        P::Bool => Value::Array(bytes.iter().map(|&b| Value::Bool(b != 0)).collect()),
        P::Int8 => Value::Array(
            bytes
                .iter()
                .map(|&b| Value::I64(i64::from(b as i8)))
                .collect(),
        ),
        P::Int16 => Value::Array(
            bytes
                .chunks_exact(2)
                .map(|b| Value::I64(i64::from(i16::from_le_bytes(arr(b, big)))))
                .collect(),
        ),
        P::UInt16 => Value::Array(
            bytes
                .chunks_exact(2)
                .map(|b| Value::U64(u64::from(u16::from_le_bytes(arr(b, big)))))
                .collect(),
        ),
        P::Int32 => Value::Array(
            bytes
                .chunks_exact(4)
                .map(|b| Value::I64(i64::from(i32::from_le_bytes(arr(b, big)))))
                .collect(),
        ),
        P::UInt32 => Value::Array(
            bytes
                .chunks_exact(4)
                .map(|b| Value::U64(u64::from(u32::from_le_bytes(arr(b, big)))))
                .collect(),
        ),
        P::Int64 => Value::Array(
            bytes
                .chunks_exact(8)
                .map(|b| Value::I64(i64::from_le_bytes(arr(b, big))))
                .collect(),
        ),
        P::UInt64 => Value::Array(
            bytes
                .chunks_exact(8)
                .map(|b| Value::U64(u64::from_le_bytes(arr(b, big))))
                .collect(),
        ),
    }
}

/// The bytes after the encapsulation header, and where decoding is.
struct Reader<'d> {
    data: &'d [u8],
    pos: usize,
    big: bool,
    /// File offset of `data[0]`.
    offset: u64,
}

impl<'d> Reader<'d> {
    fn error(&self, expected: String, found: String) -> Error {
        logcore::Error::malformed(
            self.offset + self.pos as u64,
            format!("{expected} at byte {} of the CDR payload", self.pos + 4),
            found,
        )
        .into()
    }

    fn left(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// Skips the padding before a value of alignment `n`.
    fn align(&mut self, n: usize, what: &dyn Fn() -> String) -> Result<()> {
        let to = self.pos.div_ceil(n) * n;
        if to > self.data.len() {
            return Err(self.error(
                format!("{} padding bytes before {}", to - self.pos, what()),
                format!("{} bytes left", self.left()),
            ));
        }
        self.pos = to;
        Ok(())
    }

    fn take(&mut self, n: usize, what: &dyn Fn() -> String) -> Result<&'d [u8]> {
        match self.data.get(self.pos..self.pos.saturating_add(n)) {
            Some(b) => {
                self.pos += n;
                Ok(b)
            }
            None => Err(self.error(
                format!("{n} bytes of {}", what()),
                format!("{} bytes left", self.left()),
            )),
        }
    }

    /// `N` bytes aligned to `N`, in little-endian order.
    fn le<const N: usize>(&mut self, what: &dyn Fn() -> String) -> Result<[u8; N]> {
        self.align(N, what)?;
        let b = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        if self.big {
            a.reverse();
        }
        Ok(a)
    }

    fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32> {
        Ok(u32::from_le_bytes(self.le(what)?))
    }

    fn primitive(&mut self, p: Primitive, what: &dyn Fn() -> String) -> Result<Value> {
        use Primitive as P;
        Ok(match p {
            P::Bool => Value::Bool(self.le::<1>(what)?[0] != 0),
            P::Byte | P::Char | P::UInt8 => Value::U64(u64::from(self.le::<1>(what)?[0])),
            P::Int8 => Value::I64(i64::from(i8::from_le_bytes(self.le(what)?))),
            P::Int16 => Value::I64(i64::from(i16::from_le_bytes(self.le(what)?))),
            P::UInt16 => Value::U64(u64::from(u16::from_le_bytes(self.le(what)?))),
            P::Int32 => Value::I64(i64::from(i32::from_le_bytes(self.le(what)?))),
            P::UInt32 => Value::U64(u64::from(u32::from_le_bytes(self.le(what)?))),
            P::Int64 => Value::I64(i64::from_le_bytes(self.le(what)?)),
            P::UInt64 => Value::U64(u64::from_le_bytes(self.le(what)?)),
            P::Float32 => Value::F32(f32::from_le_bytes(self.le(what)?)),
            P::Float64 => Value::F64(f64::from_le_bytes(self.le(what)?)),
        })
    }

    fn string(&mut self, what: &dyn Fn() -> String) -> Result<Value> {
        let n = self.u32(&|| format!("the length of {}", what()))? as usize;
        if n == 0 {
            // Some writers give an empty string no terminator.
            return Ok(Value::String(String::new()));
        }
        let at = self.pos;
        let b = self.take(n, what)?;
        let (text, nul) = b.split_at(n - 1);
        if nul != [0] {
            self.pos = at + n - 1;
            return Err(self.error(
                format!("the NUL terminator of {}", what()),
                format!("0x{:02x}", nul[0]),
            ));
        }
        Ok(match std::str::from_utf8(text) {
            Ok(s) => Value::String(s.to_string()),
            Err(_) => Value::Bytes(text.to_vec()),
        })
    }

    fn wstring(&mut self, what: &dyn Fn() -> String) -> Result<Value> {
        let n = self.u32(&|| format!("the length of {}", what()))? as usize;
        if n.saturating_mul(4) > self.left() {
            return Err(self.error(
                format!("{n} 4-byte characters of {}", what()),
                format!("{} bytes left", self.left()),
            ));
        }
        let at = self.pos;
        let b = self.take(n * 4, what)?;
        let mut units: Vec<u16> = Vec::with_capacity(n);
        for (k, c) in b.chunks_exact(4).enumerate() {
            let mut a = [0u8; 4];
            a.copy_from_slice(c);
            if self.big {
                a.reverse();
            }
            let u = u32::from_le_bytes(a);
            match u16::try_from(u) {
                Ok(unit) => units.push(unit),
                Err(_) => match char::from_u32(u) {
                    Some(ch) => {
                        let mut buf = [0u16; 2];
                        units.extend_from_slice(ch.encode_utf16(&mut buf));
                    }
                    None => {
                        self.pos = at + 4 * k;
                        return Err(self.error(
                            format!("a character code of {}", what()),
                            format!("0x{u:x}"),
                        ));
                    }
                },
            }
        }
        String::from_utf16(&units).map(Value::String).map_err(|_| {
            self.pos = at;
            self.error(
                format!("UTF-16 text in {}", what()),
                "an unpaired surrogate".into(),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FormatError;

    fn ty(text: &str) -> MessageType {
        MessageType::parse("p/msg/T", text).unwrap()
    }

    #[test]
    fn both_byte_orders_align_from_the_payload_start() {
        let t = ty("uint8 a\nfloat64 b\nint16[] c\nstring s\nuint32[2] d");
        // Big endian: a, 7 bytes padding, b, count, c, padding to 4, s, d.
        let mut be = vec![0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0];
        be.extend(0.5f64.to_be_bytes());
        be.extend(2u32.to_be_bytes());
        be.extend((-2i16).to_be_bytes());
        be.extend(3i16.to_be_bytes());
        be.extend(3u32.to_be_bytes());
        be.extend(b"hi\0");
        be.push(0);
        be.extend(7u32.to_be_bytes());
        be.extend(8u32.to_be_bytes());
        let want = Value::record([
            ("a", Value::U64(9)),
            ("b", Value::F64(0.5)),
            ("c", Value::Array(vec![Value::I64(-2), Value::I64(3)])),
            ("s", Value::String("hi".into())),
            ("d", Value::Array(vec![Value::U64(7), Value::U64(8)])),
        ]);
        assert_eq!(t.decode(&be, 0).unwrap(), want);
        let mut le = vec![0, 1, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0];
        le.extend(0.5f64.to_le_bytes());
        le.extend(2u32.to_le_bytes());
        le.extend((-2i16).to_le_bytes());
        le.extend(3i16.to_le_bytes());
        le.extend(3u32.to_le_bytes());
        le.extend(b"hi\0");
        le.push(0);
        le.extend(7u32.to_le_bytes());
        le.extend(8u32.to_le_bytes());
        assert_eq!(t.decode(&le, 0).unwrap(), want);
        // Up to three bytes of final padding are accepted, four are not.
        le.extend([0, 0, 0]);
        assert_eq!(t.decode(&le, 0).unwrap(), want);
        le.push(0);
        let e = t.decode(&le, 100).unwrap_err();
        assert!(e.to_string().contains("4 bytes left over"), "{e}");
    }

    #[test]
    fn wide_strings_are_utf16_units_in_four_bytes() {
        let t = ty("wstring w\nwstring<=4[] ws");
        let mut d = vec![0, 1, 0, 0];
        let text = "h\u{e9}\u{1f600}";
        let units: Vec<u16> = text.encode_utf16().collect();
        d.extend((units.len() as u32).to_le_bytes());
        for u in &units {
            d.extend(u32::from(*u).to_le_bytes());
        }
        d.extend(1u32.to_le_bytes());
        d.extend(1u32.to_le_bytes());
        d.extend(u32::from(b'x').to_le_bytes());
        let v = t.decode(&d, 0).unwrap();
        assert_eq!(v.get("w"), Some(&Value::String(text.into())));
        assert_eq!(
            v.get("ws"),
            Some(&Value::Array(vec![Value::String("x".into())]))
        );
        // An unpaired surrogate is an error, not a panic.
        let mut bad = vec![0, 1, 0, 0, 1, 0, 0, 0];
        bad.extend(0xd800u32.to_le_bytes());
        bad.extend(0u32.to_le_bytes());
        assert!(t.decode(&bad, 0).is_err());
    }

    #[test]
    fn hostile_lengths_fail_before_allocating_and_name_the_offset() {
        let t = ty("float64[] a");
        let mut d = vec![0, 1, 0, 0];
        d.extend(u32::MAX.to_le_bytes());
        let e = t.decode(&d, 1000).unwrap_err();
        assert_eq!(e.offset(), Some(1008), "{e}");
        assert!(
            e.to_string().contains("at byte 8 of the CDR payload"),
            "{e}"
        );
        assert!(e.to_string().contains("4294967295 elements"), "{e}");
        let t = ty("E[] e\n===\nMSG: p/E\n");
        let mut d = vec![0, 1, 0, 0];
        d.extend(u32::MAX.to_le_bytes());
        assert!(t.decode(&d, 0).is_err());
        d.truncate(4);
        d.extend(2u32.to_le_bytes());
        d.extend([0, 0]);
        assert_eq!(
            t.decode(&d, 0).unwrap(),
            Value::record([("e", Value::Array(vec![Value::Struct(vec![]); 2]))])
        );
        let t = ty("string s");
        let mut d = vec![0, 1, 0, 0];
        d.extend(0x7fff_ffffu32.to_le_bytes());
        assert!(t.decode(&d, 0).is_err());
        let t = ty("wstring s");
        assert!(t.decode(&d, 0).is_err());
        let t = ty("uint8[4000000000] big");
        assert!(t.decode(&[0, 1, 0, 0, 1, 2], 0).is_err());
    }

    #[test]
    fn headers_terminators_and_truncation() {
        let t = ty("string s\nint32 i");
        let e = t.decode(&[0, 1], 50).unwrap_err();
        assert!(
            e.to_string().contains("4-byte CDR encapsulation header"),
            "{e}"
        );
        let e = t.decode(&[0, 7, 0, 0], 50).unwrap_err();
        assert!(e.to_string().contains("XCDR2"), "{e}");
        // A string whose last byte is not NUL.
        let d = [0, 1, 0, 0, 2, 0, 0, 0, b'a', b'b'];
        let e = t.decode(&d, 0).unwrap_err();
        assert!(e.to_string().contains("NUL terminator"), "{e}");
        // A length of 0 is an empty string; then the int32 is cut short.
        let d = [0, 1, 0, 0, 0, 0, 0, 0, 5, 0];
        let e = t.decode(&d, 10).unwrap_err();
        assert!(e.to_string().contains("field `i` of p/T"), "{e}");
        assert_eq!(e.offset(), Some(18));
        // Not UTF-8: bytes, as rosbag12 gives ROS 1 strings.
        let d = [0, 1, 0, 0, 2, 0, 0, 0, 0xff, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(
            t.decode(&d, 0).unwrap().get("s"),
            Some(&Value::Bytes(vec![0xff]))
        );
    }

    #[test]
    fn self_containing_and_deep_types_are_refused() {
        let e = MessageType::parse("p/A", "B b\n===\nMSG: p/B\nA a\n===\nMSG: p/A\nint8 x")
            .unwrap_err();
        // The first section is the top type; a later `p/A` section is a
        // duplicate and skipped, so B refers back to the top: a cycle.
        assert!(
            e.to_string().contains(
                "nested at most 64 levels deep (the reader's limit; raise it with \
                 `--max-nesting` or `Limits::max_nesting`), found them nested deeper \
                 (or a type that contains itself)"
            ),
            "{e}"
        );
        let mut text = String::from("T1 t\n");
        for i in 1..70 {
            text.push_str(&format!("===\nMSG: p/T{i}\nT{} t\n", i + 1));
        }
        text.push_str("===\nMSG: p/T70\nint8 x\n");
        assert!(MessageType::parse("p/T0", &text).is_err());
        let mut text = String::from("T1 t\n");
        for i in 1..20 {
            text.push_str(&format!("===\nMSG: p/T{i}\nT{} t\n", i + 1));
        }
        text.push_str("===\nMSG: p/T20\nint8 x\n");
        let t = MessageType::parse("p/T0", &text).unwrap();
        let mut v = t.decode(&[0, 1, 0, 0, 42], 0).unwrap();
        for _ in 0..20 {
            v = v.get("t").unwrap().clone();
        }
        assert_eq!(v, Value::record([("x", Value::I64(42))]));
    }
}
