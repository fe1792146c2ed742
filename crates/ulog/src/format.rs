//! `F` messages (format definitions) and the byte layout of logged structs.
//!
//! A definition is text, `name:type field;type[N] field;...`. Types are the
//! basic types of [`BasicType`] or the name of another format (nesting).
//! [`Formats::layout`] resolves a name into a [`Layout`], with field
//! offsets, the full struct size and the size without top-level trailing
//! `_padding` fields (which writers may omit from `D` payloads).

use logcore::FieldName;
use logcore::FormatError;
use logcore::{Schema, ValueType};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};

mod shared;

/// The resource limits of the readers ([`Limits::max_nesting`] bounds the
/// nesting of formats, default [`MAX_NESTING`]).
pub use logcore::Limits;

/// The largest array size accepted in a field declaration (pyulog 1.3.0
/// rejects larger ones as corruption too).
pub const MAX_ARRAY_SIZE: usize = 0xFFFF;

/// The deepest nesting of formats accepted; real PX4 formats nest two or
/// three levels. The limit keeps hostile definitions from exhausting the stack.
///
/// This is the default; [`Limits::max_nesting`] overrides it
/// ([`Formats::with_limits`], [`ULog::parse_with_limits`](crate::ULog::parse_with_limits)).
pub const MAX_NESTING: usize = 32;

/// The largest struct a `D` message can carry (payload minus the msg_id).
pub const MAX_STRUCT_SIZE: usize = 0xFFFF - 2;

/// A basic (non-nested) field type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BasicType {
    /// `int8_t`
    Int8,
    /// `uint8_t`
    UInt8,
    /// `int16_t`
    Int16,
    /// `uint16_t`
    UInt16,
    /// `int32_t`
    Int32,
    /// `uint32_t`
    UInt32,
    /// `int64_t`
    Int64,
    /// `uint64_t`
    UInt64,
    /// `float` (IEEE-754 binary32)
    Float,
    /// `double` (IEEE-754 binary64)
    Double,
    /// `bool` (one byte, non-zero is true)
    Bool,
    /// `char` (one byte of text)
    Char,
}

impl BasicType {
    /// The type for a name as written in definitions (`"uint16_t"`).
    ///
    /// ```
    /// use ulogfile::BasicType;
    /// assert_eq!(BasicType::from_name("float"), Some(BasicType::Float));
    /// assert_eq!(BasicType::from_name("vehicle_status"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<BasicType> {
        Self::from_name_bytes(name.as_bytes())
    }

    /// [`BasicType::from_name`] of a name's bytes (not UTF-8 checked
    /// first: only the ASCII names above match).
    pub(crate) fn from_name_bytes(name: &[u8]) -> Option<BasicType> {
        Some(match name {
            b"int8_t" => BasicType::Int8,
            b"uint8_t" => BasicType::UInt8,
            b"int16_t" => BasicType::Int16,
            b"uint16_t" => BasicType::UInt16,
            b"int32_t" => BasicType::Int32,
            b"uint32_t" => BasicType::UInt32,
            b"int64_t" => BasicType::Int64,
            b"uint64_t" => BasicType::UInt64,
            b"float" => BasicType::Float,
            b"double" => BasicType::Double,
            b"bool" => BasicType::Bool,
            b"char" => BasicType::Char,
            _ => return None,
        })
    }

    /// The name as written in definitions.
    pub const fn name(self) -> &'static str {
        match self {
            BasicType::Int8 => "int8_t",
            BasicType::UInt8 => "uint8_t",
            BasicType::Int16 => "int16_t",
            BasicType::UInt16 => "uint16_t",
            BasicType::Int32 => "int32_t",
            BasicType::UInt32 => "uint32_t",
            BasicType::Int64 => "int64_t",
            BasicType::UInt64 => "uint64_t",
            BasicType::Float => "float",
            BasicType::Double => "double",
            BasicType::Bool => "bool",
            BasicType::Char => "char",
        }
    }

    /// Size in bytes.
    pub const fn size(self) -> usize {
        match self {
            BasicType::Int8 | BasicType::UInt8 | BasicType::Bool | BasicType::Char => 1,
            BasicType::Int16 | BasicType::UInt16 => 2,
            BasicType::Int32 | BasicType::UInt32 | BasicType::Float => 4,
            BasicType::Int64 | BasicType::UInt64 | BasicType::Double => 8,
        }
    }

    /// The type of the [`logcore::Value`] one element decodes to
    /// ([`crate::Scalar::to_value`]): integers of their width, `char` as
    /// `uint8`.
    ///
    /// ```
    /// use logcore::ValueType;
    /// use ulogfile::BasicType;
    /// assert_eq!(BasicType::Int16.value_type(), ValueType::I16);
    /// assert_eq!(BasicType::Char.value_type(), ValueType::U8);
    /// ```
    pub const fn value_type(self) -> ValueType {
        match self {
            BasicType::Int8 => ValueType::I8,
            BasicType::UInt8 | BasicType::Char => ValueType::U8,
            BasicType::Int16 => ValueType::I16,
            BasicType::UInt16 => ValueType::U16,
            BasicType::Int32 => ValueType::I32,
            BasicType::UInt32 => ValueType::U32,
            BasicType::Int64 => ValueType::I64,
            BasicType::UInt64 => ValueType::U64,
            BasicType::Float => ValueType::F32,
            BasicType::Double => ValueType::F64,
            BasicType::Bool => ValueType::Bool,
        }
    }
}

/// One field declaration of an `F` message: `type[N] name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDef {
    /// Type name: a basic type or another format's name.
    pub type_name: String,
    /// Array length, `None` for a scalar.
    pub array_len: Option<usize>,
    /// Field name.
    pub name: String,
}

impl FieldDef {
    /// Parses `type name` or `type[N] name`; `offset` is for errors.
    pub fn parse(text: &str, offset: u64) -> Result<FieldDef> {
        let (type_name, array_len, name) = parse_field(text, offset)?;
        Ok(FieldDef {
            type_name: type_name.to_string(),
            array_len,
            name: name.to_string(),
        })
    }

    /// The declaration as written in an `F` message.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.write_text(&mut s);
        s
    }

    /// Appends [`FieldDef::to_text`] to `out`.
    pub fn write_text(&self, out: &mut String) {
        use std::fmt::Write;
        out.push_str(&self.type_name);
        if let Some(n) = self.array_len {
            // Writing to a `String` cannot fail.
            let _ = write!(out, "[{n}]");
        }
        out.push(' ');
        out.push_str(&self.name);
    }
}

/// Parses `type name` or `type[N] name` into borrowed parts (type name,
/// array length, field name), so that validating and resolving formats
/// allocates nothing per field.
fn parse_field(text: &str, offset: u64) -> Result<(&str, Option<usize>, &str)> {
    let bad = |what: &str| Error::malformed(offset, what.to_string(), format!("{text:?}"));
    // Byte searches: the declarations are a few bytes long, too short for
    // `str::find`'s set-up to pay off (they are ASCII in practice; any
    // other text still splits at the same places).
    let find = |s: &str, c: u8| s.bytes().position(|b| b == c);
    let space = find(text, b' ').ok_or_else(|| bad("a field declaration `type name`"))?;
    let (ty, name) = (&text[..space], &text[space + 1..]);
    let name = find(name, b' ').map_or(name, |e| &name[..e]);
    if name.is_empty() || ty.is_empty() {
        return Err(bad("a field declaration `type name`"));
    }
    let (type_name, array_len) = match find(ty, b'[') {
        None => (ty, None),
        Some(open) => {
            let close = find(&ty[open..], b']')
                .map(|c| c + open)
                .ok_or_else(|| bad("`]` closing the array size"))?;
            let n: usize = ty[open + 1..close]
                .parse()
                .map_err(|_| bad("a decimal array size"))?;
            if n > MAX_ARRAY_SIZE {
                return Err(bad("an array size of at most 65535"));
            }
            (&ty[..open], Some(n))
        }
    };
    Ok((type_name, array_len, name))
}

/// Splits an `F` text into the format name and the field list (first `:`
/// only), checking what [`FormatDef::parse`] checks.
fn split_format(text: &str, offset: u64) -> Result<(&str, &str)> {
    let (name, rest) = text.split_once(':').ok_or_else(|| {
        Error::malformed(
            offset,
            "a format definition `name:fields`",
            format!("{text:?}"),
        )
    })?;
    if name.is_empty() {
        return Err(Error::malformed(offset, "a non-empty format name", "\"\""));
    }
    Ok((name, rest))
}

/// The field declarations of a field list, borrowed (empty items between
/// `;` ignored).
fn fields_of(rest: &str, offset: u64) -> impl Iterator<Item = Result<(&str, Option<usize>, &str)>> {
    let mut rest = rest;
    // A byte search for `;` (a `char` pattern decodes every character,
    // and this runs over every definition of every log).
    std::iter::from_fn(move || {
        while !rest.is_empty() {
            let (item, tail) = match rest.bytes().position(|b| b == b';') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, ""),
            };
            rest = tail;
            if !item.is_empty() {
                return Some(parse_field(item, offset));
            }
        }
        None
    })
}

/// A parsed `F` message.
///
/// ```
/// use ulogfile::FormatDef;
/// let f = FormatDef::parse("att:uint64_t timestamp;float[4] q;uint8_t[4] _padding0;", 0)?;
/// assert_eq!(f.name, "att");
/// assert_eq!(f.fields[1].array_len, Some(4));
/// assert_eq!(f.to_text(), "att:uint64_t timestamp;float[4] q;uint8_t[4] _padding0;");
/// # Ok::<(), ulogfile::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatDef {
    /// The format (topic type) name.
    pub name: String,
    /// Fields in declaration order.
    pub fields: Vec<FieldDef>,
}

impl FormatDef {
    /// Parses the text of an `F` payload. Splits on the first `:` only and
    /// ignores empty items between `;`.
    pub fn parse(text: &str, offset: u64) -> Result<FormatDef> {
        let (name, rest) = split_format(text, offset)?;
        let fields = fields_of(rest, offset)
            .map(|f| {
                f.map(|(type_name, array_len, name)| FieldDef {
                    type_name: type_name.to_string(),
                    array_len,
                    name: name.to_string(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FormatDef {
            name: name.to_string(),
            fields,
        })
    }

    /// The text of an `F` payload for this definition.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        self.write_text(&mut s);
        s
    }

    /// Appends [`FormatDef::to_text`] to `out`.
    pub fn write_text(&self, out: &mut String) {
        out.push_str(&self.name);
        out.push(':');
        for f in &self.fields {
            f.write_text(out);
            out.push(';');
        }
    }
}

/// The type of a resolved field.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldType {
    /// A basic type.
    Basic(BasicType),
    /// A nested format.
    Nested(Arc<Layout>),
}

impl FieldType {
    /// Size in bytes of one element.
    pub fn size(&self) -> usize {
        match self {
            FieldType::Basic(b) => b.size(),
            FieldType::Nested(l) => l.size,
        }
    }
}

/// A field of a resolved layout.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Field name.
    pub name: FieldName,
    /// Element type.
    pub ty: FieldType,
    /// Array length, `None` for a scalar.
    pub array_len: Option<usize>,
    /// Byte offset within the struct.
    pub offset: usize,
}

impl Field {
    /// Whether the field is writer filler (`_padding*`).
    pub fn is_padding(&self) -> bool {
        self.name.starts_with("_padding")
    }

    /// Total size in bytes (all elements).
    pub fn size(&self) -> usize {
        self.ty.size() * self.array_len.unwrap_or(1)
    }
}

/// A leaf of a flattened layout, named as pyulog names it (`q[0]`,
/// `esc[3].esc_rpm`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlatField {
    /// Flattened name (names up to 23 bytes are stored without an
    /// allocation of their own).
    pub name: FieldName,
    /// Basic type.
    pub ty: BasicType,
    /// Byte offset within the struct.
    pub offset: usize,
}

/// The byte layout of a format.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Format name.
    pub name: String,
    /// Fields in declaration order, with offsets.
    pub fields: Vec<Field>,
    /// Full size in bytes, including all padding.
    pub size: usize,
    /// Size without top-level trailing `_padding` fields: the shortest
    /// valid `D` payload (minus the msg_id) for this format.
    pub min_size: usize,
}

impl Layout {
    /// How many levels of formats this layout spans: 1 without nested
    /// formats, else one more than its deepest nested format.
    pub fn depth(&self) -> usize {
        1 + self
            .fields
            .iter()
            .map(|f| match &f.ty {
                FieldType::Nested(l) => l.depth(),
                FieldType::Basic(_) => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// The flattened leaves in declaration order, depth first, without the
    /// top-level trailing padding fields (pyulog's field list).
    pub fn flatten(&self) -> Vec<FlatField> {
        let mut out = Vec::with_capacity(self.leaves());
        flatten_into(self, &mut String::new(), 0, &mut out);
        while out.last().is_some_and(|f| f.name.starts_with("_padding")) {
            out.pop();
        }
        out
    }

    /// Number of flattened leaves (padding included).
    fn leaves(&self) -> usize {
        self.fields
            .iter()
            .filter(|f| f.ty.size() != 0)
            .map(|f| {
                let n = f.array_len.unwrap_or(1);
                match &f.ty {
                    FieldType::Basic(_) => n,
                    FieldType::Nested(l) => n.saturating_mul(l.leaves()),
                }
            })
            .fold(0, usize::saturating_add)
    }

    /// The top-level field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The type of the [`logcore::Value`] a sample of this layout decodes
    /// to ([`crate::sample::decode_struct`]): a struct of the fields
    /// without `_padding*` fields, integers of their declared width, `char`
    /// as `uint8` and `char[N]` as a string, arrays of `N` elements as
    /// [`ValueType::FixedArray`], nested formats as structs.
    ///
    /// ```
    /// use logcore::ValueType;
    /// let mut f = ulogfile::Formats::default();
    /// f.insert(ulogfile::FormatDef::parse("esc:int32_t rpm;uint8_t[3] _padding0;", 0)?);
    /// f.insert(ulogfile::FormatDef::parse("s:uint64_t timestamp;esc[2] esc;char[8] name;", 0)?);
    /// let esc = ValueType::record([("rpm", ValueType::I32)]);
    /// assert_eq!(
    ///     f.layout("s", 0)?.value_type(),
    ///     ValueType::record([
    ///         ("timestamp", ValueType::U64),
    ///         ("esc", ValueType::fixed(esc, 2)),
    ///         ("name", ValueType::String),
    ///     ])
    /// );
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    pub fn value_type(&self) -> ValueType {
        ValueType::Struct(
            self.fields
                .iter()
                .filter(|f| !f.is_padding())
                .map(|f| {
                    let elem = match &f.ty {
                        FieldType::Basic(b) => b.value_type(),
                        FieldType::Nested(l) => l.value_type(),
                    };
                    let ty = match (&f.ty, f.array_len) {
                        (FieldType::Basic(BasicType::Char), Some(_)) => ValueType::String,
                        (_, Some(n)) => ValueType::fixed(elem, n),
                        (_, None) => elem,
                    };
                    logcore::Field::new(f.name.clone(), ty)
                })
                .collect(),
        )
    }
}

/// Appends the leaves of `layout` at `base`, named `prefix` + field path;
/// `prefix` is one buffer extended and cut back as the walk goes, so only
/// the final names are allocated.
fn flatten_into(layout: &Layout, prefix: &mut String, base: usize, out: &mut Vec<FlatField>) {
    for f in &layout.fields {
        let elem = f.ty.size();
        if elem == 0 {
            continue;
        }
        let len = prefix.len();
        prefix.push_str(&f.name);
        match (&f.ty, f.array_len) {
            (FieldType::Basic(b), None) => out.push(FlatField {
                name: FieldName::from(prefix.as_str()),
                ty: *b,
                offset: base + f.offset,
            }),
            (FieldType::Basic(b), Some(n)) => {
                let named = prefix.len();
                for i in 0..n {
                    push_index(prefix, i);
                    out.push(FlatField {
                        name: FieldName::from(prefix.as_str()),
                        ty: *b,
                        offset: base + f.offset + i * elem,
                    });
                    prefix.truncate(named);
                }
            }
            (FieldType::Nested(l), None) => {
                prefix.push('.');
                flatten_into(l, prefix, base + f.offset, out);
            }
            (FieldType::Nested(l), Some(n)) => {
                let named = prefix.len();
                for i in 0..n {
                    push_index(prefix, i);
                    prefix.push('.');
                    flatten_into(l, prefix, base + f.offset + i * elem, out);
                    prefix.truncate(named);
                }
            }
        }
        prefix.truncate(len);
    }
}

/// Appends `[i]` (what `format!("[{i}]")` gives, without the formatting
/// machinery: flattening names every array element of every topic).
fn push_index(s: &mut String, i: usize) {
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut n = i;
    loop {
        k -= 1;
        digits[k] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    s.push('[');
    for &d in &digits[k..] {
        s.push(char::from(d));
    }
    s.push(']');
}

/// A small multiply-rotate hash (the Fx hash of rustc) for the maps keyed
/// by format name: the names are short, trusted to be few, and looked up
/// for every definition and subscription, where SipHash's set-up costs
/// more than the lookup.
#[derive(Debug, Default, Clone, Copy)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
    }

    fn write_u8(&mut self, i: u8) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(K);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type NameMap<V> = HashMap<String, V, BuildHasherDefault<NameHasher>>;

/// One stored definition: its text, checked once, and the [`FormatDef`]
/// built from it on first request (a log defines far more formats than it
/// subscribes to, so most are never needed as owned field lists).
#[derive(Debug, Clone)]
struct Entry {
    /// The definition text, `name:fields` (shared with the other logs
    /// defining it, see [`shared`]).
    text: Arc<str>,
    /// Its number among the texts of [`shared`], when it is there.
    id: Option<u32>,
    /// Where the `:` after the name is.
    colon: usize,
    /// The owned definition, made on first use.
    def: OnceLock<FormatDef>,
}

impl Entry {
    fn name(&self) -> &str {
        self.text.get(..self.colon).unwrap_or_default()
    }

    fn fields(&self) -> &str {
        self.text.get(self.colon + 1..).unwrap_or_default()
    }

    fn def(&self) -> &FormatDef {
        self.def.get_or_init(|| {
            // The text was checked when it was stored, so this cannot fail;
            // an empty definition is a harmless fallback all the same.
            FormatDef::parse(&self.text, 0).unwrap_or_else(|_| FormatDef {
                name: self.name().to_string(),
                fields: Vec::new(),
            })
        })
    }
}

/// The format definitions of a log, and the layouts resolved from them.
#[derive(Debug, Clone, Default)]
pub struct Formats {
    /// Definitions in the order they first appeared.
    defs: Vec<Entry>,
    /// Index into `defs` by name.
    index: NameMap<usize>,
    layouts: NameMap<Arc<Layout>>,
    /// The nesting limit when not [`MAX_NESTING`].
    max_nesting: Option<usize>,
    /// What the logs with the same definitions resolved (see [`shared`]),
    /// looked up on first use; `None` for good once a definition changes
    /// after that.
    shared: OnceLock<Option<Arc<shared::Set>>>,
    /// How many `F` texts [`Formats::insert_bytes`] took.
    inserted: usize,
}

impl Formats {
    /// No definitions yet, resolving formats nested at most
    /// [`Limits::nesting_or`]`(`[`MAX_NESTING`]`)` deep.
    ///
    /// ```
    /// use ulogfile::{FormatDef, Formats};
    /// use ulogfile::format::Limits;
    ///
    /// let mut f = Formats::with_limits(&Limits::default().with_max_nesting(2));
    /// assert_eq!(f.max_nesting(), 2);
    /// for text in ["a:b x;", "b:c x;", "c:uint8_t x;"] {
    ///     f.insert(FormatDef::parse(text, 0)?);
    /// }
    /// assert_eq!(f.layout("b", 0)?.depth(), 2);
    /// // `a` nests `b`, resolved before: 3 levels.
    /// let e = f.layout("a", 0).unwrap_err().to_string();
    /// assert!(e.contains("formats nested at most 2 levels deep"), "{e}");
    /// assert_eq!(Formats::default().max_nesting(), 32);
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    pub fn with_limits(limits: &Limits) -> Self {
        Formats {
            max_nesting: Some(limits.nesting_or(MAX_NESTING)),
            ..Formats::default()
        }
    }

    /// The deepest nesting of formats resolved (see [`with_limits`](Self::with_limits)).
    pub fn max_nesting(&self) -> usize {
        self.max_nesting.unwrap_or(MAX_NESTING)
    }

    /// Adds (or replaces) a definition.
    pub fn insert(&mut self, def: FormatDef) {
        let text = def.to_text();
        let colon = def.name.len();
        self.store(
            def.name.clone(),
            Entry {
                text: Arc::from(text),
                id: None,
                colon,
                def: OnceLock::from(def),
            },
        );
    }

    /// Adds (or replaces) the definition in the bytes of an `F` message
    /// (read as UTF-8 with invalid sequences replaced),
    /// checked as [`FormatDef::parse`] checks it but without building the
    /// owned field list (made later, if ever asked for). A text another
    /// log of the process defined is not checked again (see [`shared`]).
    /// The texts the logs read before on this thread defined at the same
    /// position are tried first (see [`shared::recent`]): the logs of one
    /// firmware build define the same texts in the same order, so most are
    /// found by one comparison.
    pub(crate) fn insert_bytes(&mut self, bytes: &[u8], offset: u64) -> Result<()> {
        let at = self.inserted;
        self.inserted += 1;
        if let Some((id, text)) = shared::recent(at, bytes) {
            self.put_text(Some(id), text);
            return Ok(());
        }
        let (id, text) = Self::checked_text(&crate::text::lossy_cow(bytes), offset)?;
        if let Some(id) = id {
            shared::remember(at, id, &text);
        }
        self.put_text(id, text);
        Ok(())
    }

    /// `text` checked (or found among the texts checked before) and
    /// stored, with its number among the shared texts.
    fn checked_text(text: &str, offset: u64) -> Result<(Option<u32>, Arc<str>)> {
        Ok(match shared::checked(text) {
            Some((id, stored)) => (Some(id), stored),
            None => {
                let (_, rest) = split_format(text, offset)?;
                for f in fields_of(rest, offset) {
                    f?;
                }
                match shared::intern(text) {
                    Some((id, stored)) => (Some(id), stored),
                    None => (None, Arc::from(text)),
                }
            }
        })
    }

    /// Stores a checked definition text.
    fn put_text(&mut self, id: Option<u32>, text: Arc<str>) {
        // Checked: there is a `:`, with a name before it.
        let colon = text.bytes().position(|b| b == b':').unwrap_or(0);
        let name = text[..colon].to_string();
        self.store(
            name,
            Entry {
                text,
                id,
                colon,
                def: OnceLock::new(),
            },
        );
    }

    fn store(&mut self, name: String, entry: Entry) {
        self.layouts.clear();
        if self.shared.get().is_some() {
            // A definition changed after the shared set was looked up (an
            // `F` late in the file): this log stops sharing, rather than
            // look all its definitions up again after each such change.
            self.shared = OnceLock::from(None);
        }
        match self.index.get(&name) {
            Some(&i) => self.defs[i] = entry,
            None => {
                self.index.insert(name, self.defs.len());
                self.defs.push(entry);
            }
        }
    }

    /// The definition called `name`.
    pub fn get(&self, name: &str) -> Option<&FormatDef> {
        self.index.get(name).map(|&i| self.defs[i].def())
    }

    /// The `F` text of format `name` ([`FormatDef::to_text`]) and of every
    /// format it nests, one a line, each once (depth first); empty when
    /// `name` is not defined. Written from the stored texts, without
    /// building any [`FormatDef`].
    pub fn definition_text(&self, name: &str) -> String {
        match self.shared_set().and_then(|s| s.schema(name)) {
            Some(s) => String::from_utf8_lossy(&s.data).into_owned(),
            None => self.write_definition_text(name),
        }
    }

    /// The schema of format `name`: its [`definition_text`](Self::definition_text),
    /// encoding `ulog-format`. The logs of the process with the same
    /// definitions share one (see [`shared`]).
    pub(crate) fn schema(&self, name: &str) -> Arc<Schema> {
        let set = self.shared_set();
        if let Some(s) = set.and_then(|s| s.schema(name)) {
            return s;
        }
        let schema = Arc::new(Schema {
            name: name.to_string(),
            encoding: "ulog-format".into(),
            data: self.write_definition_text(name).into_bytes(),
        });
        if let Some(s) = set {
            s.put_schema(name, &schema);
        }
        schema
    }

    fn write_definition_text(&self, name: &str) -> String {
        let mut text = String::new();
        let mut stack = vec![name];
        let mut seen: Vec<&str> = Vec::new();
        while let Some(n) = stack.pop() {
            if seen.contains(&n) {
                continue;
            }
            seen.push(n);
            let Some(e) = self.index.get(n).map(|&i| &self.defs[i]) else {
                continue;
            };
            text.push_str(e.name());
            text.push(':');
            // The text was checked when it was stored.
            for (type_name, array_len, field) in fields_of(e.fields(), 0).flatten() {
                text.push_str(type_name);
                if let Some(k) = array_len {
                    use std::fmt::Write;
                    // Writing to a `String` cannot fail.
                    let _ = write!(text, "[{k}]");
                }
                text.push(' ');
                text.push_str(field);
                text.push(';');
                if BasicType::from_name(type_name).is_none() {
                    stack.push(type_name);
                }
            }
            text.push('\n');
        }
        text
    }

    /// What the logs of the process with the same definitions (the same
    /// texts in the same order) and nesting limit resolved, when every
    /// definition came from an `F` text the shared table holds.
    fn shared_set(&self) -> Option<&Arc<shared::Set>> {
        self.shared
            .get_or_init(|| {
                let ids: Option<Vec<u32>> = self.defs.iter().map(|e| e.id).collect();
                let bytes = self.defs.iter().map(|e| e.text.len()).sum();
                shared::set(&ids?, bytes, self.max_nesting())
            })
            .as_ref()
    }

    /// Definitions in the order they first appeared.
    pub fn iter(&self) -> impl Iterator<Item = &FormatDef> {
        self.defs.iter().map(Entry::def)
    }

    /// Number of definitions.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// The type of the [`logcore::Value`] a sample of format `name`
    /// decodes to ([`Layout::value_type`]), resolved without touching the
    /// cache; fails as [`Formats::layout`] does (errors at offset 0).
    pub fn value_type(&self, name: &str) -> Result<ValueType> {
        if let Some(l) = self.layouts.get(name) {
            return Ok(l.value_type());
        }
        if let Some(l) = self.shared_set().and_then(|s| s.layout(name)) {
            return Ok(l.value_type());
        }
        let mut scratch = NameMap::default();
        let mut stack = Vec::new();
        let max = self.max_nesting();
        resolve(
            &self.defs,
            &self.index,
            &mut scratch,
            name,
            0,
            max,
            &mut stack,
        )
        .map(|l| l.value_type())
    }

    /// Resolves `name` into a layout (cached). Fails for unknown types,
    /// cycles, nesting deeper than [`max_nesting`](Self::max_nesting) and structs larger than a
    /// `D` message can carry; `offset` is used in the error.
    ///
    /// A layout that another log of the process with the same definitions
    /// (the same `F` texts in the same order, and nesting limit) resolved
    /// is taken from it, with the formats it nests, as resolving it here
    /// would have cached them; errors are always worked out here.
    pub fn layout(&mut self, name: &str, offset: u64) -> Result<Arc<Layout>> {
        if let Some(l) = self.layouts.get(name) {
            return Ok(l.clone());
        }
        let set = self.shared_set().cloned();
        if let Some(l) = set.as_ref().and_then(|s| s.layout(name)) {
            adopt(&mut self.layouts, &l);
            return Ok(l);
        }
        let mut stack = Vec::new();
        let max = self.max_nesting();
        let layout = resolve(
            &self.defs,
            &self.index,
            &mut self.layouts,
            name,
            offset,
            max,
            &mut stack,
        )?;
        if let Some(s) = set {
            s.put_layout(name, &layout);
        }
        Ok(layout)
    }
}

/// Caches `layout` and every format it nests in `layouts` (each under its
/// name, the ones cached already kept), as [`resolve`] does.
fn adopt(layouts: &mut NameMap<Arc<Layout>>, layout: &Arc<Layout>) {
    if layouts.contains_key(&layout.name) {
        return;
    }
    for f in &layout.fields {
        if let FieldType::Nested(l) = &f.ty {
            adopt(layouts, l);
        }
    }
    layouts.insert(layout.name.clone(), layout.clone());
}

/// Resolves `name` from the stored texts (borrowed, so no definition is
/// copied); `stack` holds the formats being resolved, to find cycles.
fn resolve<'d>(
    defs: &'d [Entry],
    index: &NameMap<usize>,
    layouts: &mut NameMap<Arc<Layout>>,
    name: &str,
    offset: u64,
    max: usize,
    stack: &mut Vec<&'d str>,
) -> Result<Arc<Layout>> {
    if let Some(l) = layouts.get(name) {
        // A layout resolved earlier (from a shallower place) still counts
        // its own levels here.
        let depth = l.depth();
        if stack.len() + depth > max {
            return Err(Error::malformed(
                offset,
                format!("formats nested {}", logcore::limits::nesting_limit(max)),
                format!("{name} ({depth} deep) nested {} deeper", stack.len()),
            ));
        }
        return Ok(l.clone());
    }
    if stack.contains(&name) {
        return Err(Error::malformed(
            offset,
            "format definitions without cycles",
            format!("{} -> {name}", stack.join(" -> ")),
        ));
    }
    if stack.len() >= max {
        return Err(Error::malformed(
            offset,
            format!("formats nested {}", logcore::limits::nesting_limit(max)),
            format!("{name} nested deeper"),
        ));
    }
    let entry = index.get(name).and_then(|&i| defs.get(i)).ok_or_else(|| {
        Error::malformed(
            offset,
            "a format definition (`F`) for this name",
            format!("{name:?}"),
        )
    })?;
    // A definition given as a `FormatDef` (the writer's) is used as given;
    // one read from a file is resolved from its text, borrowed.
    let given = entry.def.get();
    let (parts, capacity) = match given {
        Some(d) => (None, d.fields.len()),
        // One field per `;` at most.
        None => {
            let text = entry.fields();
            let n = text.bytes().filter(|&b| b == b';').count() + 1;
            (Some(fields_of(text, offset)), n)
        }
    };
    let parts = given
        .into_iter()
        .flat_map(|d| &d.fields)
        .map(|f| Ok((f.type_name.as_str(), f.array_len, f.name.as_str())))
        .chain(parts.into_iter().flatten());
    stack.push(entry.name());
    let mut fields = Vec::with_capacity(capacity);
    let mut size = 0usize;
    for part in parts {
        let (type_name, array_len, field_name) = match part {
            Ok(p) => p,
            Err(e) => {
                stack.pop();
                return Err(e);
            }
        };
        let ty = match BasicType::from_name(type_name) {
            Some(b) => FieldType::Basic(b),
            None => FieldType::Nested(resolve(
                defs, index, layouts, type_name, offset, max, stack,
            )?),
        };
        let total = ty.size().saturating_mul(array_len.unwrap_or(1));
        fields.push(Field {
            name: FieldName::from(field_name),
            ty,
            array_len,
            offset: size,
        });
        size = size.saturating_add(total);
        if size > MAX_STRUCT_SIZE {
            stack.pop();
            return Err(Error::malformed(
                offset,
                format!("a struct of at most {MAX_STRUCT_SIZE} bytes"),
                format!("format {name:?} larger than that"),
            ));
        }
    }
    stack.pop();
    let trailing: usize = fields
        .iter()
        .rev()
        .take_while(|f| f.is_padding())
        .map(Field::size)
        .sum();
    let layout = Arc::new(Layout {
        name: name.to_string(),
        fields,
        size,
        min_size: size - trailing,
    });
    layouts.insert(name.to_string(), layout.clone());
    Ok(layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn formats(defs: &[&str]) -> Formats {
        let mut f = Formats::default();
        for d in defs {
            f.insert(FormatDef::parse(d, 0).unwrap());
        }
        f
    }

    #[test]
    fn nested_layout_and_flat_names() {
        let mut f = formats(&[
            "esc_status:uint64_t timestamp;uint8_t n;esc_report[2] esc;uint8_t[3] _padding0;",
            "esc_report:uint64_t timestamp;int32_t rpm;uint8_t[4] _padding0;",
        ]);
        let l = f.layout("esc_status", 0).unwrap();
        assert_eq!(l.size, 8 + 1 + 2 * 16 + 3);
        assert_eq!(l.min_size, 8 + 1 + 32);
        let names: Vec<String> = l
            .flatten()
            .into_iter()
            .map(|x| x.name.to_string())
            .collect();
        assert_eq!(
            names,
            [
                "timestamp",
                "n",
                "esc[0].timestamp",
                "esc[0].rpm",
                "esc[0]._padding0[0]",
                "esc[0]._padding0[1]",
                "esc[0]._padding0[2]",
                "esc[0]._padding0[3]",
                "esc[1].timestamp",
                "esc[1].rpm",
                "esc[1]._padding0[0]",
                "esc[1]._padding0[1]",
                "esc[1]._padding0[2]",
                "esc[1]._padding0[3]",
            ]
        );
        assert_eq!(l.flatten()[9].offset, 9 + 16 + 8);
    }

    #[test]
    fn rejects_cycles_depth_and_sizes() {
        let mut f = formats(&["a:b x;", "b:a y;"]);
        assert!(f.layout("a", 5).unwrap_err().to_string().contains("cycles"));
        let mut f = formats(&["a:uint8_t[65535] x;double[65535] y;"]);
        assert!(f.layout("a", 0).is_err());
        assert!(FormatDef::parse("a:uint8_t[65536] x;", 3).is_err());
        assert!(FormatDef::parse("a:uint8_t[x] x;", 3).is_err());
        assert!(FormatDef::parse("nocolon", 3).is_err());
        let mut f = formats(&["a:missing x;"]);
        assert_eq!(f.layout("a", 9).unwrap_err().offset(), Some(9));
    }

    /// `Formats` read from `F` texts, as a log's are.
    fn read(texts: &[&str], limits: &Limits) -> Formats {
        let mut f = Formats::with_limits(limits);
        for (i, t) in texts.iter().enumerate() {
            f.insert_bytes(t.as_bytes(), i as u64).unwrap();
        }
        f
    }

    #[test]
    fn logs_with_the_same_definitions_share_their_layouts() {
        let texts = [
            "shared_probe_status:uint64_t timestamp;shared_probe_report[2] r;uint8_t[3] _padding0;",
            "shared_probe_report:uint64_t timestamp;int32_t rpm;uint8_t[4] _padding0;",
            "shared_probe_bad:shared_probe_missing x;",
        ];
        let limits = Limits::default();
        let mut one = read(&texts, &limits);
        let mut two = read(&texts, &limits);
        let a = one.layout("shared_probe_status", 0).unwrap();
        let b = two.layout("shared_probe_status", 0).unwrap();
        // The second log took the first's layout, and cached what it nests.
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.size, 8 + 2 * 16 + 3);
        assert_eq!(b.min_size, 8 + 32);
        assert!(Arc::ptr_eq(
            &one.layout("shared_probe_report", 0).unwrap(),
            &two.layout("shared_probe_report", 0).unwrap()
        ));
        assert_eq!(two.layouts.len(), 2);
        let schema = one.schema("shared_probe_status");
        assert!(Arc::ptr_eq(&schema, &two.schema("shared_probe_status")));
        assert_eq!(
            schema.data,
            one.write_definition_text("shared_probe_status")
                .into_bytes()
        );
        assert_eq!(
            two.definition_text("shared_probe_status"),
            "shared_probe_status:uint64_t timestamp;shared_probe_report[2] r;uint8_t[3] _padding0;\n\
             shared_probe_report:uint64_t timestamp;int32_t rpm;uint8_t[4] _padding0;\n"
        );
        // Errors are each log's own, at the offset it gives.
        assert_eq!(
            one.layout("shared_probe_bad", 7).unwrap_err().offset(),
            Some(7)
        );
        assert_eq!(
            two.layout("shared_probe_bad", 9).unwrap_err().offset(),
            Some(9)
        );
        // Another nesting limit, or other definitions, share nothing.
        let mut three = read(&texts, &limits.with_max_nesting(1));
        assert!(three.layout("shared_probe_status", 0).is_err());
        let mut four = read(&texts[1..], &limits);
        let c = four.layout("shared_probe_report", 0).unwrap();
        assert!(!Arc::ptr_eq(
            &c,
            &one.layout("shared_probe_report", 0).unwrap()
        ));
        assert_eq!(*c, *one.layout("shared_probe_report", 0).unwrap());
        // A definition replaced later is resolved from its new text.
        four.insert_bytes(b"shared_probe_report:uint64_t timestamp;", 0)
            .unwrap();
        assert_eq!(four.layout("shared_probe_report", 0).unwrap().size, 8);
        // ... and it shares nothing after that.
        assert!(four.shared.get().is_some_and(Option::is_none));
    }

    /// A text at a position a log read before on this thread defined is
    /// taken from there only when it is the same bytes: another text is
    /// checked (and refused when bad) as any other.
    #[test]
    fn texts_at_remembered_positions_are_compared_whole() {
        let good: &[u8] = b"recent_probe_a:uint8_t x;";
        let mut first = Formats::default();
        first.insert_bytes(good, 0).unwrap();
        let mut same = Formats::default();
        same.insert_bytes(good, 1).unwrap();
        assert!(Arc::ptr_eq(&same.defs[0].text, &first.defs[0].text));
        let mut other = Formats::default();
        other.insert_bytes(b"recent_probe_a:uint8_t y;", 2).unwrap();
        assert_eq!(&*other.defs[0].text, "recent_probe_a:uint8_t y;");
        let mut bad = Formats::default();
        let e = bad
            .insert_bytes(b"recent_probe_a:uint8_t[ x;", 3)
            .unwrap_err();
        assert_eq!(e.offset(), Some(3));
        assert!(bad.defs.is_empty());
        // Invalid UTF-8 is dropped, as everywhere: these bytes read as the
        // first text.
        let mut lossy = Formats::default();
        lossy
            .insert_bytes(b"recent_probe_a:uint8_t x\xff;", 4)
            .unwrap();
        assert!(Arc::ptr_eq(&lossy.defs[0].text, &first.defs[0].text));
    }

    #[test]
    fn definitions_too_long_to_share_are_resolved_by_each_log() {
        // Five formats of 60.5 KB each: over the 256 KiB a shared set
        // may hold.
        let texts: Vec<String> = (0..5)
            .map(|i| {
                let fields: String = (0..4400).map(|k| format!("uint8_t f{k};")).collect();
                format!("shared_probe_big{i}:{fields}")
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut one = read(&texts, &Limits::default());
        let mut two = read(&texts, &Limits::default());
        let a = one.layout("shared_probe_big0", 0).unwrap();
        let b = two.layout("shared_probe_big0", 0).unwrap();
        assert_eq!(a.size, 4400);
        assert_eq!(*a, *b);
        assert!(!Arc::ptr_eq(&a, &b));
        // Four of them (242 KB) share.
        let mut three = read(&texts[..4], &Limits::default());
        let mut four = read(&texts[..4], &Limits::default());
        assert!(Arc::ptr_eq(
            &three.layout("shared_probe_big1", 0).unwrap(),
            &four.layout("shared_probe_big1", 0).unwrap()
        ));
    }

    #[test]
    fn texts_checked_once_are_still_refused_when_bad() {
        let mut f = Formats::default();
        for _ in 0..2 {
            let e = f
                .insert_bytes(b"shared_probe_x:uint8_t[70000] a;", 3)
                .unwrap_err();
            assert_eq!(e.offset(), Some(3));
            assert!(f.insert_bytes(b":uint8_t a;", 4).is_err());
            assert!(
                f.insert_bytes(b"shared_probe_y:uint8_t a;double b;", 5)
                    .is_ok()
            );
        }
        assert_eq!(f.len(), 1);
        assert_eq!(f.layout("shared_probe_y", 0).unwrap().size, 9);
        assert_eq!(f.get("shared_probe_y").unwrap().fields.len(), 2);
    }

    #[test]
    fn index_names() {
        for i in [0, 7, 10, 65535, usize::MAX] {
            let mut s = String::from("q");
            push_index(&mut s, i);
            assert_eq!(s, format!("q[{i}]"));
        }
    }

    #[test]
    fn empty_field_list_and_zero_size_arrays() {
        let mut f = formats(&["e:", "w:uint64_t timestamp;e[65535] many;"]);
        let l = f.layout("w", 0).unwrap();
        assert_eq!(l.size, 8);
        assert_eq!(l.flatten().len(), 1);
    }
}
