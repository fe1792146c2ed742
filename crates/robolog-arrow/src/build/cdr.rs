//! ROS 2 messages (CDR, in MCAP files and ROS 2 bags) decoded straight
//! into a table's [`Column`]s, with no [`Value`](logcore::Value) in
//! between, as [`ros1`](super::ros1) does for ROS 1 messages.
//!
//! The layout is ros2cdr's ([`ros2cdr::MessageType::wire_types`]; see
//! its decoder for the rules): a 4-byte encapsulation header (`00 01`
//! little-endian, `00 00` big-endian), then the fields, each primitive
//! aligned to its size (8 at most) counted from the first byte after the
//! header; strings a `u32` length counting a NUL terminator (0: empty,
//! with no terminator), then the bytes; wide strings a `u32` count of
//! UTF-16 units, each in 4 bytes; sequences a `u32` count, fixed arrays
//! none; nested messages inline without an alignment of their own, a
//! message without fields one placeholder byte; `builtin_interfaces/Time`
//! and `Duration` two 4-byte fields. At most three bytes may be left
//! after the message.
//!
//! A [`Plan`] first checks a payload as ros2cdr decodes it: every
//! alignment and length within the payload, every element count bounded
//! by the bytes left as the decoder bounds it, every string's terminator,
//! every wide string's UTF-16, no more than three bytes left over. A
//! message the check refuses takes the general path, which decodes it
//! with ros2cdr and reports why. One that passes is walked again to
//! append each field to its column ([`direct`](super::direct), shared
//! with ROS 1's plan); the rows equal those of decoding with ros2cdr and
//! appending the value ([`Column::append`]).

use logcore::ValueType;
use ros2cdr::msg::{ArrayKind, Primitive};
use ros2cdr::{MessageType, WireKind as Kind};

use super::Column;
use super::direct::{self, Elem, Layout, MISMATCH};

/// Fixed arrays of messages longer than this are walked element by
/// element rather than given a size per start (planning stays quick).
const FIXED_ELEMENTS: u32 = 1 << 16;

/// One message type of a definition, from ros2cdr's
/// [`WireType`](ros2cdr::WireType).
#[derive(Debug)]
struct Def {
    /// Its fields in wire order.
    fields: Vec<(Kind, ArrayKind)>,
    /// The fewest bytes a value takes ignoring alignment (at least 1):
    /// what the decoder bounds element counts with.
    min: usize,
    /// Where every value takes the same bytes from a given start (no
    /// strings or sequences inside): its size for each start modulo 8.
    fixed: Option<[usize; 8]>,
}

/// How the messages of one channel go into a table's columns.
#[derive(Debug)]
pub(crate) struct Plan {
    /// Every type of the definition, the message's own first.
    defs: Vec<Def>,
    /// The same types as the columns are filled from them.
    layout: Layout,
    /// For each top-level field, the column it fills (`None`: not asked
    /// for, skipped).
    columns: Vec<Option<usize>>,
}

/// The cursor over one payload after its header.
struct Cdr<'b> {
    b: &'b [u8],
    pos: usize,
    big: bool,
}

impl<'b> Cdr<'b> {
    /// The cursor after the encapsulation header of `payload`, in its
    /// byte order; `None` for a header ros2cdr does not read.
    fn new(payload: &'b [u8]) -> Option<Cdr<'b>> {
        let big = match payload.get(..4)? {
            [0, 0, _, _] => true,
            [0, 1, _, _] => false,
            _ => return None,
        };
        Some(Cdr {
            b: payload.get(4..)?,
            pos: 0,
            big,
        })
    }

    fn left(&self) -> usize {
        self.b.len().saturating_sub(self.pos)
    }

    /// Skips the padding before a value of alignment `n`; `false` where
    /// it goes past the end (the decoder's error too).
    #[inline]
    fn align(&mut self, n: usize) -> bool {
        let to = self.pos.next_multiple_of(n);
        if to > self.b.len() {
            return false;
        }
        self.pos = to;
        true
    }

    /// Steps over `n` bytes; `false` when fewer are left.
    #[inline]
    fn skip(&mut self, n: usize) -> bool {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.b.len() => {
                self.pos = end;
                true
            }
            _ => false,
        }
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'b [u8], &'static str> {
        let end = self.pos.checked_add(n).ok_or(MISMATCH)?;
        let s = self.b.get(self.pos..end).ok_or(MISMATCH)?;
        self.pos = end;
        Ok(s)
    }

    /// `N` bytes aligned to `N`, in little-endian order.
    #[inline]
    fn le<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        if !self.align(N) {
            return Err(MISMATCH);
        }
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        if self.big {
            a.reverse();
        }
        Ok(a)
    }

    #[inline]
    fn u32(&mut self) -> Option<usize> {
        self.le::<4>()
            .ok()
            .and_then(|a| usize::try_from(u32::from_le_bytes(a)).ok())
    }

    /// A wide string of `n` units (after its count).
    fn wide(&mut self, n: usize) -> Option<String> {
        if n.saturating_mul(4) > self.left() {
            return None;
        }
        wide(self.take(n * 4).ok()?, self.big)
    }
}

/// The text of a wide string's units (each in 4 bytes) as ros2cdr reads
/// it: a unit above `0xffff` is the code point it names, and the units
/// must be valid UTF-16; `None` where they are not.
fn wide(b: &[u8], big: bool) -> Option<String> {
    let mut units: Vec<u16> = Vec::with_capacity(b.len() / 4);
    for c in b.chunks_exact(4) {
        let mut a = [0u8; 4];
        a.copy_from_slice(c);
        if big {
            a.reverse();
        }
        let u = u32::from_le_bytes(a);
        match u16::try_from(u) {
            Ok(unit) => units.push(unit),
            Err(_) => {
                let mut buf = [0u16; 2];
                units.extend_from_slice(char::from_u32(u)?.encode_utf16(&mut buf));
            }
        }
    }
    String::from_utf16(&units).ok()
}

/// The size of a primitive on the wire (its alignment too).
fn size(p: Primitive) -> usize {
    p.size()
}

impl Plan {
    /// The plan of a channel of type `t` in a table of type `table` whose
    /// top-level field `k` fills column `columns[k]` (`None`: not asked
    /// for). `None` when the channel's type is not the table's, or its
    /// types nest deeper than the decoder follows (which it refuses).
    pub(crate) fn new(
        t: &MessageType,
        table: &ValueType,
        columns: Vec<Option<usize>>,
    ) -> Option<Plan> {
        if t.value_type().as_ref() != Some(table) {
            return None;
        }
        let wire = t.wire_types();
        if height(wire, 0, &mut vec![None; wire.len()], 1)? > t.max_nesting() {
            return None;
        }
        let mut defs: Vec<Def> = wire
            .iter()
            .map(|w| Def {
                fields: w.fields().iter().map(|&(_, k, a)| (k, a)).collect(),
                min: usize::try_from(w.min_size()).unwrap_or(usize::MAX).max(1),
                fixed: None,
            })
            .collect();
        if columns.len() != defs.first()?.fields.len() {
            return None;
        }
        // Nested types come after the types holding them in most
        // definitions; sizing from the last up needs fewer rounds.
        let mut known = vec![false; defs.len()];
        let mut progress = true;
        while progress {
            progress = false;
            for i in (0..defs.len()).rev() {
                if known[i] {
                    continue;
                }
                match fixed_sizes(&defs, &known, i) {
                    Sizing::Fixed(s) => {
                        defs[i].fixed = Some(s);
                        known[i] = true;
                        progress = true;
                    }
                    Sizing::Varies => {
                        known[i] = true;
                        progress = true;
                    }
                    Sizing::Later => {}
                }
            }
        }
        let layout = defs
            .iter()
            .map(|d| d.fields.iter().map(|&(k, a)| (elem(k), a)).collect())
            .collect();
        Some(Plan {
            defs,
            layout,
            columns,
        })
    }

    /// Whether ros2cdr decodes `payload` (see the [module docs](self)).
    pub(crate) fn fits(&self, payload: &[u8]) -> bool {
        let Some(mut c) = Cdr::new(payload) else {
            return false;
        };
        self.skip_struct(0, &mut c) && c.left() <= 3
    }

    fn skip_struct(&self, ty: usize, c: &mut Cdr<'_>) -> bool {
        let Some(d) = self.defs.get(ty) else {
            return false;
        };
        if let Some(sizes) = &d.fixed {
            return c.skip(sizes[c.pos % 8]);
        }
        d.fields
            .iter()
            .all(|&(kind, array)| self.skip_field(kind, array, c))
    }

    fn skip_field(&self, kind: Kind, array: ArrayKind, c: &mut Cdr<'_>) -> bool {
        let n = match array {
            ArrayKind::Scalar => return self.skip_one(kind, c),
            ArrayKind::Fixed(n) => n as usize,
            ArrayKind::Bounded(_) | ArrayKind::Unbounded => match c.u32() {
                Some(n) => n,
                None => return false,
            },
        };
        // The decoder's bound, before anything is read: `n` elements of
        // at least `elem` bytes in what is left.
        let elem = match kind {
            Kind::Prim(p) => size(p),
            Kind::Str | Kind::WStr => 4,
            Kind::Time | Kind::Duration => 8,
            Kind::Msg(j) => self.defs.get(j).map_or(1, |d| d.min),
        };
        if n.saturating_mul(elem) > c.left() {
            return false;
        }
        match kind {
            Kind::Prim(p) => (n == 0 || c.align(size(p))) && c.skip(n * size(p)),
            // Every element takes at least one byte, and `n` of them fit
            // in what is left: the loop is bounded by the payload.
            _ => (0..n).all(|_| self.skip_one(kind, c)),
        }
    }

    fn skip_one(&self, kind: Kind, c: &mut Cdr<'_>) -> bool {
        match kind {
            Kind::Prim(p) => c.align(size(p)) && c.skip(size(p)),
            Kind::Time | Kind::Duration => c.align(4) && c.skip(8),
            Kind::Str => match c.u32() {
                Some(0) => true,
                Some(n) => c.take(n).is_ok_and(|s| s.last() == Some(&0)),
                None => false,
            },
            Kind::WStr => c.u32().is_some_and(|n| c.wide(n).is_some()),
            Kind::Msg(j) => self.skip_struct(j, c),
        }
    }

    /// Appends the message in `payload` (which [`fits`](Self::fits)) to
    /// `columns`, one row each. An error leaves the columns part-way
    /// through the row (as [`Column::append`]'s do).
    pub(crate) fn append(
        &self,
        payload: &[u8],
        columns: &mut [Option<Column>],
    ) -> Result<(), String> {
        let mut c = Cdr::new(payload).ok_or(MISMATCH)?;
        let top = self.defs.first().ok_or(MISMATCH)?;
        let fields = self.layout.first().ok_or(MISMATCH)?;
        for ((&(kind, array), &(e, _)), at) in top.fields.iter().zip(fields).zip(&self.columns) {
            match at.and_then(|i| columns.get_mut(i)).and_then(Option::as_mut) {
                Some(col) => direct::field(&self.layout, e, array, &mut c, col)?,
                None => {
                    if !self.skip_field(kind, array, &mut c) {
                        return Err(MISMATCH.into());
                    }
                }
            }
        }
        Ok(())
    }
}

/// What [`fixed_sizes`] found of a type.
enum Sizing {
    /// Its size from each start modulo 8.
    Fixed([usize; 8]),
    /// Its size depends on its bytes (strings, sequences inside).
    Varies,
    /// A nested type is not sized yet.
    Later,
}

/// The size of type `i` from each start modulo 8, where no string or
/// sequence is inside, walking its fields as the decoder does (`known`:
/// the types already sized, or found to vary).
fn fixed_sizes(defs: &[Def], known: &[bool], i: usize) -> Sizing {
    let Some(d) = defs.get(i) else {
        return Sizing::Varies;
    };
    let mut out = [0usize; 8];
    for (start, slot) in out.iter_mut().enumerate() {
        let mut pos = start;
        if d.fields.is_empty() {
            pos += 1;
        }
        for &(kind, array) in &d.fields {
            let n = match array {
                ArrayKind::Scalar => 1,
                ArrayKind::Fixed(n) => n,
                ArrayKind::Bounded(_) | ArrayKind::Unbounded => return Sizing::Varies,
            };
            let n = n as usize;
            // Primitives and times are aligned once: the elements after
            // the first stay aligned.
            let (align, each) = match kind {
                Kind::Str | Kind::WStr => return Sizing::Varies,
                Kind::Prim(p) => (size(p), size(p)),
                Kind::Time | Kind::Duration => (4, 8),
                Kind::Msg(j) => {
                    if !known.get(j).copied().unwrap_or(true) {
                        return Sizing::Later;
                    }
                    let Some(sizes) = defs.get(j).and_then(|d| d.fixed) else {
                        return Sizing::Varies;
                    };
                    if n > FIXED_ELEMENTS as usize {
                        return Sizing::Varies;
                    }
                    for _ in 0..n {
                        pos = match pos.checked_add(sizes[pos % 8]) {
                            Some(p) => p,
                            None => return Sizing::Varies,
                        };
                    }
                    continue;
                }
            };
            if n > 0 {
                pos = pos.next_multiple_of(align);
            }
            pos = match n.checked_mul(each).and_then(|b| b.checked_add(pos)) {
                Some(p) => p,
                None => return Sizing::Varies,
            };
        }
        *slot = pos - start;
    }
    Sizing::Fixed(out)
}

/// How deep the message types nest below type `i` (1: no nested
/// message), as the decoder counts its depth; `None` for a type that
/// contains itself or nests deeper than anything plausible.
fn height(
    wire: &[ros2cdr::WireType],
    i: usize,
    memo: &mut [Option<usize>],
    depth: usize,
) -> Option<usize> {
    if let Some(Some(h)) = memo.get(i) {
        return Some(*h);
    }
    if depth > logcore::limits::MAX_NESTING_CEILING {
        return None;
    }
    let mut h = 1;
    for &(_, kind, _) in wire.get(i)?.fields() {
        if let Kind::Msg(j) = kind {
            h = h.max(1 + height(wire, j, memo, depth + 1)?);
        }
    }
    *memo.get_mut(i)? = Some(h);
    Some(h)
}

/// A ROS 2 element type as the columns are filled from it: `byte` and
/// `char` are `uint8`.
fn elem(k: Kind) -> Elem {
    use Primitive as P;
    match k {
        Kind::Msg(j) => Elem::Msg(j),
        Kind::Str => Elem::Str,
        Kind::WStr => Elem::WStr,
        Kind::Time => Elem::Time,
        Kind::Duration => Elem::Duration,
        Kind::Prim(p) => match p {
            P::Bool => Elem::Bool,
            P::Int8 => Elem::I8,
            P::Byte | P::Char | P::UInt8 => Elem::U8,
            P::Int16 => Elem::I16,
            P::UInt16 => Elem::U16,
            P::Int32 => Elem::I32,
            P::UInt32 => Elem::U32,
            P::Int64 => Elem::I64,
            P::UInt64 => Elem::U64,
            P::Float32 => Elem::F32,
            P::Float64 => Elem::F64,
        },
    }
}

/// CDR's reads (see the [module docs](self)).
impl<'b> direct::Wire<'b> for Cdr<'b> {
    #[inline]
    fn scalar<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        self.le()
    }

    #[inline]
    fn count(&mut self) -> Result<usize, &'static str> {
        self.u32().ok_or(MISMATCH)
    }

    #[inline]
    fn run(&mut self, n: usize, size: usize) -> Result<&'b [u8], &'static str> {
        let bytes = n.checked_mul(size).ok_or(MISMATCH)?;
        if n > 0 && !self.align(size) {
            return Err(MISMATCH);
        }
        self.take(bytes)
    }

    #[inline]
    fn big(&self) -> bool {
        self.big
    }

    #[inline]
    fn string(&mut self) -> Result<&'b [u8], &'static str> {
        match self.u32().ok_or(MISMATCH)? {
            0 => Ok(&[]),
            n => match self.take(n)?.split_last() {
                Some((0, text)) => Ok(text),
                _ => Err(MISMATCH),
            },
        }
    }

    fn wstring(&mut self) -> Result<String, &'static str> {
        let n = self.u32().ok_or(MISMATCH)?;
        self.wide(n).ok_or(MISMATCH)
    }

    #[inline]
    fn time(&mut self) -> Result<i64, &'static str> {
        let sec = i32::from_le_bytes(self.le()?);
        let nanosec = u32::from_le_bytes(self.le()?);
        Ok(i64::from(sec) * 1_000_000_000 + i64::from(nanosec))
    }

    #[inline]
    fn duration(&mut self) -> Result<i64, &'static str> {
        self.time()
    }

    #[inline]
    fn empty(&mut self) -> Result<(), &'static str> {
        self.take(1).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int16Type, UInt8Type};
    use arrow_array::{ArrayRef, RecordBatch};
    use logcore::{LogReader, Value};
    use ros2cdr::MessageType;

    use super::*;
    use crate::{ScanOptions, Table, scan, tables};

    /// A definition with every kind of field ros2cdr reads.
    const ALL: &str = "bool a\nbyte b\nchar c\nint8 d\nuint8 e\nint16 f\nuint16 g\nint32 h\n\
        uint32 i\nint64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\nstring<=5 o\nwstring p\n\
        wstring<=3 q\nbyte[] r\nchar[<=2] s\nuint8[3] t\nint8[] u\nstring<=4[<=2] v\n\
        float64[<=3] w\nbuiltin_interfaces/Time stamp\nbuiltin_interfaces/Duration dur\n\
        builtin_interfaces/Time[] stamps\np/Inner inner\np/Inner[2] inners\np/Inner[] more\n\
        p/Empty e1\np/Empty[] es\nint16[2] pair\nbool[] flags\nfloat32[2] fs\nuint16 last\n\
        ===\nMSG: p/Inner\nuint8 x\nfloat64 y\nstring z\nint16[] zs\n\
        ===\nMSG: p/Empty\n";

    /// A CDR writer for the tests: primitives aligned from after the
    /// header, in either byte order.
    struct Out {
        b: Vec<u8>,
        big: bool,
    }

    impl Out {
        fn new(big: bool) -> Out {
            Out {
                b: if big {
                    vec![0, 0, 0, 0]
                } else {
                    vec![0, 1, 0, 0]
                },
                big,
            }
        }
        fn align(&mut self, n: usize) {
            while (self.b.len() - 4) % n != 0 {
                self.b.push(0);
            }
        }
        fn put(&mut self, le: &[u8]) {
            self.align(le.len());
            let mut a = le.to_vec();
            if self.big {
                a.reverse();
            }
            self.b.extend(a);
        }
        fn u32(&mut self, v: u32) {
            self.put(&v.to_le_bytes());
        }
        fn str(&mut self, s: &[u8]) {
            self.u32(s.len() as u32 + 1);
            self.b.extend(s);
            self.b.push(0);
        }
        fn wstr(&mut self, s: &str) {
            let units: Vec<u16> = s.encode_utf16().collect();
            self.u32(units.len() as u32);
            for u in units {
                self.u32(u32::from(u));
            }
        }
        fn inner(&mut self, x: u8, y: f64, z: &[u8], zs: &[i16]) {
            self.put(&[x]);
            self.put(&y.to_le_bytes());
            self.str(z);
            self.u32(zs.len() as u32);
            for v in zs {
                self.put(&v.to_le_bytes());
            }
        }
    }

    /// A message of [`ALL`], `k` varying its values and lengths.
    fn all_payload(k: u8, big: bool) -> Vec<u8> {
        let mut o = Out::new(big);
        o.put(&[k % 2]);
        o.put(&[200 + k]);
        o.put(&[b'a' + k]);
        o.put(&[(-3 - k as i8) as u8]);
        o.put(&[k]);
        o.put(&(-300i16 - i16::from(k)).to_le_bytes());
        o.put(&(60000u16 + u16::from(k)).to_le_bytes());
        o.put(&(-70000i32).to_le_bytes());
        o.put(&(4_000_000_000u32).to_le_bytes());
        o.put(&(i64::MIN + i64::from(k)).to_le_bytes());
        o.put(&(u64::MAX - u64::from(k)).to_le_bytes());
        o.put(&(1.5f32 + f32::from(k)).to_le_bytes());
        o.put(&f64::NAN.to_le_bytes());
        // Not UTF-8, then an empty string written as a bare length of 0.
        o.str(&[b'h', 0xff, b'i', 0xc3]);
        if k % 2 == 0 {
            o.u32(0);
        } else {
            o.str(b"bnd");
        }
        o.wstr("h\u{e9}\u{1f600}");
        o.wstr(if k % 2 == 0 { "" } else { "xy" });
        o.u32(u32::from(k) + 1);
        o.b.extend((0..=k).map(|i| i.wrapping_mul(37)));
        o.u32(2);
        o.b.extend([b'q', 0x80]);
        o.b.extend([1, 2, k]);
        o.u32(3);
        o.b.extend([0x80, 0x7f, k]);
        o.u32(2);
        o.str(b"one");
        o.str(b"");
        o.u32(u32::from(k % 3));
        for i in 0..k % 3 {
            o.put(&(f64::from(i) * 0.25).to_le_bytes());
        }
        o.put(&(-5i32 - i32::from(k)).to_le_bytes());
        o.put(&999_999_999u32.to_le_bytes());
        o.put(&(-1i32).to_le_bytes());
        o.put(&5u32.to_le_bytes());
        o.u32(2);
        for s in [7i32, 8] {
            o.put(&s.to_le_bytes());
            o.put(&u32::from(k).to_le_bytes());
        }
        o.inner(k, 2.5, b"in", &[1, -2]);
        o.inner(1, -0.5, b"a", &[]);
        o.inner(2, 1e300, &[0xfe], &[k.into()]);
        o.u32(u32::from(k % 2) + 1);
        for i in 0..=k % 2 {
            o.inner(i, 0.0, b"", &[3; 3]);
        }
        o.b.push(0); // e1
        o.u32(3);
        o.b.extend([0, 0, 0]);
        o.put(&(-1i16).to_le_bytes());
        o.put(&(2i16).to_le_bytes());
        o.u32(4);
        o.b.extend([1, 0, 2, 0]);
        o.put(&0.5f32.to_le_bytes());
        o.put(&(-0.0f32).to_le_bytes());
        o.put(&(40_000u16 + u16::from(k)).to_le_bytes());
        // Trailing padding, as some writers add it.
        o.b.extend(vec![0; usize::from(k % 4)]);
        o.b
    }

    /// The columns of the top-level fields of `t`'s messages.
    fn new_columns(vt: &ValueType) -> Vec<Option<Column>> {
        let ValueType::Struct(fs) = vt else {
            panic!("{vt:?}")
        };
        fs.iter().map(|f| Some(Column::new(&f.ty, 4))).collect()
    }

    fn finish(cols: &mut [Option<Column>]) -> Vec<ArrayRef> {
        cols.iter_mut()
            .map(|c| c.as_mut().unwrap().finish().unwrap())
            .collect()
    }

    /// The arrays of `payloads` through the plan (`None` where its check
    /// refuses one) and through ros2cdr and `Column::append`.
    fn both(t: &MessageType, plan: &Plan, payloads: &[Vec<u8>]) -> (Vec<ArrayRef>, Vec<ArrayRef>) {
        let vt = t.value_type().unwrap();
        let (mut direct, mut decoded) = (new_columns(&vt), new_columns(&vt));
        for p in payloads {
            let value = t.decode(p, 0);
            assert_eq!(plan.fits(p), value.is_ok(), "{value:?} {p:02x?}");
            let Ok(Value::Struct(fields)) = value else {
                continue;
            };
            plan.append(p, &mut direct).unwrap();
            for (c, (_, v)) in decoded.iter_mut().zip(&fields) {
                c.as_mut().unwrap().append(Some(v)).unwrap();
            }
        }
        (finish(&mut direct), finish(&mut decoded))
    }

    fn all_plan() -> (MessageType, Plan) {
        let t = MessageType::parse("p/msg/All", ALL).unwrap();
        let vt = t.value_type().unwrap();
        let n = t.wire_types()[0].fields().len();
        let plan = Plan::new(&t, &vt, (0..n).map(Some).collect()).unwrap();
        (t, plan)
    }

    /// Every kind of field, both byte orders: the plan's columns are the
    /// decoded values' columns.
    #[test]
    fn every_kind_of_field_in_both_byte_orders() {
        let (t, plan) = all_plan();
        let payloads: Vec<Vec<u8>> = (0..8).map(|k| all_payload(k, k >= 4)).collect();
        let (direct, decoded) = both(&t, &plan, &payloads);
        assert_eq!(direct.len(), 35);
        assert_eq!(direct, decoded);
        // The non-UTF-8 string as the table keeps it.
        assert_eq!(direct[13].as_string::<i32>().value(0), "h\u{fffd}i\u{fffd}");
        assert_eq!(direct[15].as_string::<i32>().value(5), "h\u{e9}\u{1f600}");
    }

    /// Every prefix and many single-byte changes of a message: the plan's
    /// check accepts exactly what ros2cdr decodes (else the message takes
    /// the general path, which reports ros2cdr's error), and what it
    /// accepts gives the decoded columns.
    #[test]
    fn cut_and_changed_payloads_agree_with_ros2cdr() {
        let (t, plan) = all_plan();
        for big in [false, true] {
            let good = all_payload(3, big);
            let mut payloads: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
            for at in 0..good.len() {
                for v in [0x00, 0x01, 0x03, 0x7f, 0x80, 0xff] {
                    let mut p = good.clone();
                    p[at] = v;
                    payloads.push(p);
                }
            }
            let (direct, decoded) = both(&t, &plan, &payloads);
            assert_eq!(direct, decoded);
        }
    }

    /// A message cut short, a string whose length runs past the end, a
    /// sequence of 2^31 elements: refused by the check, and by ros2cdr.
    #[test]
    fn damaged_messages_are_refused() {
        let t = MessageType::parse("p/msg/T", "string s\nfloat64[] v\nint32 i").unwrap();
        let vt = t.value_type().unwrap();
        let plan = Plan::new(&t, &vt, vec![Some(0), Some(1), Some(2)]).unwrap();
        let mut o = Out::new(false);
        o.str(b"hi");
        o.u32(2);
        o.put(&1.5f64.to_le_bytes());
        o.put(&2.5f64.to_le_bytes());
        o.put(&7i32.to_le_bytes());
        let good = o.b;
        assert!(plan.fits(&good));
        let mut bad = vec![good[..good.len() - 1].to_vec()];
        let mut long = good.clone();
        long[4..8].copy_from_slice(&1000u32.to_le_bytes());
        bad.push(long);
        let mut huge = good.clone();
        huge[12..16].copy_from_slice(&(1u32 << 31).to_le_bytes());
        bad.push(huge);
        let mut more = good.clone();
        more.extend([0; 4]);
        bad.push(more);
        bad.push(vec![0, 2, 0, 0, 0, 0, 0, 0]);
        for p in &bad {
            assert!(!plan.fits(p), "{p:02x?}");
            assert!(t.decode(p, 0).is_err(), "{p:02x?}");
        }
    }

    /// Types nested deeper than the decoder follows have no plan.
    #[test]
    fn no_plan_beyond_the_nesting_limit() {
        let text = "p/B b\n===\nMSG: p/B\np/C c\n===\nMSG: p/C\nint8 x";
        let limits = logcore::Limits::default().with_max_nesting(3);
        let t = MessageType::parse_with_limits("p/msg/A", text, &limits).unwrap();
        let vt = t.value_type().unwrap();
        assert!(Plan::new(&t, &vt, vec![Some(0)]).is_some());
        assert_eq!(height(t.wire_types(), 0, &mut [None; 3], 1), Some(3));
    }

    /// The ROS 2 logs of the corpus (MCAP files, ROS 2 bag folders) and
    /// ROS 2 MCAP files converted from the ROS 1 bags of the testdata and
    /// the corpus, by name.
    fn ros2_logs() -> Vec<(String, Vec<u8>, Option<PathBuf>)> {
        let mut out = Vec::new();
        let root = robolog_testkit::workspace_root();
        let mut bags = robolog_testkit::files_with_ext(&root.join("testdata/rosbag"), &["bag"]);
        if let Some(c) = robolog_testkit::corpus("rosbag") {
            bags.extend(robolog_testkit::files_with_ext(&c, &["bag"]));
        }
        let opts = robolog::convert::ConvertOptions {
            ros2: true,
            compression: mcapfile::Compression::None,
            ..Default::default()
        };
        for b in bags {
            let Ok(log) = robolog::open(&b) else { continue };
            if let Ok((bytes, _)) = robolog::convert::to_mcap(&log, Vec::new(), &opts, &mut |_| {})
            {
                out.push((format!("{} as ROS 2", b.display()), bytes, None));
            }
        }
        if let Some(c) = robolog_testkit::corpus("ros2-mcap") {
            for f in robolog_testkit::files_with_ext(&c, &["mcap"]) {
                out.push((f.display().to_string(), std::fs::read(&f).unwrap(), None));
            }
        }
        if let Some(c) = robolog_testkit::corpus("rosbag2") {
            for storage in ["sqlite3", "mcap"] {
                let Ok(dirs) = std::fs::read_dir(c.join(storage)) else {
                    continue;
                };
                let mut dirs: Vec<PathBuf> = dirs.flatten().map(|e| e.path()).collect();
                dirs.sort();
                for d in dirs {
                    out.push((d.display().to_string(), Vec::new(), Some(d)));
                }
            }
        }
        out
    }

    /// The batches of a scan, with the plans (`direct`) or without, the
    /// plans made, the undecoded messages and the first one's reason.
    fn read(
        log: &robolog::Log<'_>,
        t: &Table,
        opts: &ScanOptions,
        direct: bool,
    ) -> (Result<Vec<RecordBatch>, String>, usize, u64, Option<String>) {
        let mut r = match scan(log, t, opts) {
            Ok(r) => r,
            Err(e) => return (Err(e.to_string()), 0, 0, None),
        };
        if !direct {
            r.plans.clear();
        }
        let plans = r.plans.len();
        let batches: Result<Vec<_>, _> = r.by_ref().collect();
        let first = r.first_undecoded().map(|u| format!("{u:?}"));
        (
            batches.map_err(|e| e.to_string()),
            plans,
            r.undecoded(),
            first,
        )
    }

    /// Every table of `log` read with and without the plans, whole and
    /// with every other column, lenient and strict: the same batches,
    /// errors and undecoded messages. The tables with plans and their
    /// rows.
    fn same_rows(log: &robolog::Log<'_>, what: &str) -> (usize, usize) {
        let (mut direct_tables, mut rows) = (0, 0);
        let Ok(ts) = tables(log) else { return (0, 0) };
        for t in &ts {
            let names: Vec<String> = t
                .schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect();
            let every_other: Vec<String> = names.iter().skip(1).step_by(2).cloned().collect();
            for projection in [None, Some(every_other)] {
                for lenient in [true, false] {
                    let opts = ScanOptions {
                        projection: projection.clone(),
                        lenient,
                        ..ScanOptions::default()
                    };
                    let (a, plans, undecoded_a, first_a) = read(log, t, &opts, true);
                    let (b, _, undecoded_b, first_b) = read(log, t, &opts, false);
                    let what = format!("{what}: {}", t.name);
                    assert_eq!(a, b, "{what}");
                    assert_eq!(undecoded_a, undecoded_b, "{what}");
                    assert_eq!(first_a, first_b, "{what}");
                    if plans > 0 && lenient {
                        direct_tables += 1;
                        rows += a.map_or(0, |b| b.iter().map(RecordBatch::num_rows).sum::<usize>());
                    }
                }
            }
        }
        (direct_tables, rows)
    }

    /// Every table of every ROS 2 log gives the same batches, errors and
    /// undecoded messages straight from the CDR bytes as through decoded
    /// values.
    #[test]
    fn direct_rows_equal_decoded_rows() {
        let (mut direct_tables, mut rows, mut logs) = (0, 0, 0);
        for (name, bytes, dir) in ros2_logs() {
            let log = match &dir {
                Some(d) => robolog::open(d),
                None => robolog::open_bytes(&bytes),
            };
            let Ok(log) = log else { continue };
            logs += 1;
            let (t, r) = same_rows(&log, &name);
            direct_tables += t;
            rows += r;
        }
        eprintln!("{logs} ROS 2 logs, {direct_tables} tables with plans, {rows} rows");
        assert!(logs >= 10, "{logs} ROS 2 logs");
        assert!(
            direct_tables >= 100 && rows >= 20_000,
            "{direct_tables} tables, {rows} rows"
        );
    }

    /// Messages cut short, with a string length past the end or a
    /// sequence of 2^31 elements, among good ones in an MCAP file: the
    /// same rows, undecoded count and first error (lenient), and the same
    /// error (strict), with the plan as without.
    #[test]
    fn damaged_messages_take_the_general_path() {
        let mut w = mcapfile::Writer::new(
            Vec::new(),
            mcapfile::WriteOptions {
                compression: mcapfile::Compression::None,
                ..Default::default()
            },
        )
        .unwrap();
        let schema = w
            .add_schema("p/msg/All", "ros2msg", ALL.as_bytes())
            .unwrap();
        let ch = w
            .add_channel(schema, "/all", "cdr", &Default::default())
            .unwrap();
        let good = all_payload(1, false);
        let mut long = good.clone();
        // The first string's length (after 8-byte aligned fields).
        let at = good.windows(4).position(|x| x == [5, 0, 0, 0]).unwrap();
        long[at..at + 4].copy_from_slice(&100_000u32.to_le_bytes());
        let mut huge = good.clone();
        let r = good.windows(4).rposition(|x| x == [4, 0, 0, 0]).unwrap();
        huge[r..r + 4].copy_from_slice(&(1u32 << 31).to_le_bytes());
        let cut = good[..good.len() / 2].to_vec();
        let messages = [good.clone(), cut, good.clone(), long, huge, good];
        for (i, p) in messages.iter().enumerate() {
            let ts = 1_000 + i as u64;
            w.write_message(ch, i as u32, ts, ts, p).unwrap();
        }
        let file = w.finish().unwrap();
        let log = robolog::open_bytes(&file).unwrap();
        let ts = tables(&log).unwrap();
        let (direct, rows) = same_rows(&log, "damaged");
        assert_eq!((direct, rows), (2, 12));
        let t = &ts[0];
        let (_, plans, undecoded, first) = read(&log, t, &ScanOptions::default(), true);
        assert_eq!((plans, undecoded), (1, 3));
        assert!(first.unwrap().contains("offset"));
        let strict = ScanOptions {
            lenient: false,
            ..ScanOptions::default()
        };
        let (a, ..) = read(&log, t, &strict, true);
        let e = a.unwrap_err();
        assert!(e.contains("of the CDR payload"), "{e}");
        // The general path sees every message the check refuses.
        let messages: Vec<_> = log
            .messages(&Default::default())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let c = scan(&log, t, &ScanOptions::default()).unwrap();
        let refused = messages
            .iter()
            .filter(|m| !c.plans[&m.channel].fits(&m.payload))
            .count();
        assert_eq!(refused, 3);
    }

    /// Values of the corpus's documented messages, read through the plans:
    /// `test_msgs/Arrays` of rosbag2's `cdr_test` (the values
    /// mcap-ros2-support decodes), and the message counts the corpus
    /// READMEs give.
    #[test]
    fn documented_values() {
        let Some(c) = robolog_testkit::corpus("ros2-mcap") else {
            return;
        };
        let bytes = std::fs::read(c.join("cdr_test_0.mcap")).unwrap();
        let log = robolog::open_bytes(&bytes).unwrap();
        let ts = tables(&log).unwrap();
        let arrays = ts
            .iter()
            .find(|t| t.channels[0].type_name == "test_msgs/msg/Arrays")
            .expect("a test_msgs/Arrays table");
        let (batches, plans, undecoded, _) = read(&log, arrays, &ScanOptions::default(), true);
        assert_eq!((plans, undecoded), (1, 0));
        let b = &batches.unwrap()[0];
        let col = |n: &str| b.column_by_name(n).unwrap().clone();
        let int16 = col("int16_values_default");
        let int16 = int16.as_fixed_size_list().value(0);
        assert_eq!(
            int16.as_primitive::<Int16Type>().values().to_vec(),
            vec![0, 32767, -32768]
        );
        let bytes_default = col("byte_values_default");
        let bytes_default = bytes_default.as_fixed_size_list().value(0);
        assert_eq!(
            bytes_default.as_primitive::<UInt8Type>().values().to_vec(),
            vec![0, 1, 255]
        );
        let strings = col("string_values");
        let strings = strings.as_fixed_size_list().value(0);
        let strings = strings.as_string::<i32>();
        assert_eq!(strings.value(2), "Complex Hello3");
        let defaults = col("string_values_default");
        let defaults = defaults.as_fixed_size_list().value(0);
        assert_eq!(defaults.as_string::<i32>().value(1), "max value");

        // wbag_0.mcap: 1,246 std_msgs/String messages on several topics.
        let bytes = std::fs::read(c.join("wbag_0.mcap")).unwrap();
        let log = robolog::open_bytes(&bytes).unwrap();
        let mut total = 0;
        for t in tables(&log).unwrap() {
            assert_eq!(t.channels[0].type_name, "std_msgs/msg/String");
            let (batches, plans, undecoded, _) = read(&log, &t, &ScanOptions::default(), true);
            assert_eq!((plans, undecoded), (t.channels.len(), 0));
            total += batches
                .unwrap()
                .iter()
                .map(RecordBatch::num_rows)
                .sum::<usize>();
        }
        assert_eq!(total, 1246);

        // rosbag2's sqlite3 bags: 7 (cdr_test) and 75 (rewriter_b) messages.
        let Some(r) = robolog_testkit::corpus("rosbag2/sqlite3") else {
            return;
        };
        for (dir, want) in [("cdr_test", 7), ("rewriter_b", 75)] {
            let log = robolog::open(r.join(dir)).unwrap();
            let mut n = 0;
            for t in tables(&log).unwrap() {
                let (batches, plans, undecoded, _) = read(&log, &t, &ScanOptions::default(), true);
                // A message without fields has no column to decode into.
                let fields = matches!(&t.value_type, ValueType::Struct(f) if !f.is_empty());
                let want_plans = if fields { t.channels.len() } else { 0 };
                assert_eq!((plans, undecoded), (want_plans, 0), "{dir} {}", t.name);
                n += batches
                    .unwrap()
                    .iter()
                    .map(RecordBatch::num_rows)
                    .sum::<usize>();
            }
            assert_eq!(n, want, "{dir}");
        }
    }
}
