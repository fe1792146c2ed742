//! The side the wire plans share: how a message's fields, read from its
//! wire bytes, fill a table's [`Column`]s with no
//! [`Value`](logcore::Value) in between.
//!
//! A plan ([`ros1::Plan`](super::ros1::Plan) for ROS 1 messages,
//! [`cdr::Plan`](super::cdr::Plan) for ROS 2's CDR) first checks that a
//! payload is exactly one message its decoder would accept, in the
//! format's own layout; then it walks the message again through a
//! [`Wire`], the format's reads of one payload, and the functions here
//! put each value into the builder of its column: one dispatch over the
//! builders for both formats. The rows equal those of decoding to a
//! `Value` and appending it ([`Column::append`]).

use std::collections::HashMap;

use logcore::ChannelId;
use rosbag12::msg::ArrayKind;

use super::{Builder, Column};

/// The words for a payload the check let through but the columns did not
/// take (not expected to happen: a plan follows the table's type).
pub(crate) const MISMATCH: &str = "the wire plan does not fit the column";

/// An element type as the plans read it, whatever the format: the
/// Arrow-side meaning of a field (ROS 1's `byte` is [`Elem::I8`], ROS 2's
/// [`Elem::U8`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elem {
    /// `bool`.
    Bool,
    /// `int8` (ROS 1's `byte`).
    I8,
    /// `uint8`, `char` (ROS 2's `byte`).
    U8,
    /// `int16`.
    I16,
    /// `uint16`.
    U16,
    /// `int32`.
    I32,
    /// `uint32`.
    U32,
    /// `int64`.
    I64,
    /// `uint64`.
    U64,
    /// `float32`.
    F32,
    /// `float64`.
    F64,
    /// A string.
    Str,
    /// A wide string (ROS 2).
    WStr,
    /// An instant (ROS 1's `time`, ROS 2's `builtin_interfaces/Time`).
    Time,
    /// A duration.
    Duration,
    /// A nested message, by its index in the plan's types.
    Msg(usize),
}

/// The types of a definition as [`field`] walks them, the message's own
/// first: each type's fields in wire order.
pub(crate) type Layout = Vec<Vec<(Elem, ArrayKind)>>;

/// The reads of one payload in a format's wire layout (alignment, byte
/// order, how strings and times are written). Each returns
/// [`MISMATCH`] where the bytes are not there (a plan's check runs first,
/// so that does not happen).
pub(crate) trait Wire<'b> {
    /// The `N` bytes of a scalar of `N` bytes, in little-endian order.
    fn scalar<const N: usize>(&mut self) -> Result<[u8; N], &'static str>;
    /// A sequence's element count.
    fn count(&mut self) -> Result<usize, &'static str>;
    /// The bytes of `n` elements of a primitive of `size` bytes, in the
    /// payload's byte order ([`big`](Self::big)).
    fn run(&mut self, n: usize, size: usize) -> Result<&'b [u8], &'static str>;
    /// Whether multi-byte values of a [`run`](Self::run) are big-endian.
    fn big(&self) -> bool;
    /// A string's text (without a terminator).
    fn string(&mut self) -> Result<&'b [u8], &'static str>;
    /// A wide string.
    fn wstring(&mut self) -> Result<String, &'static str>;
    /// An instant, in ns.
    fn time(&mut self) -> Result<i64, &'static str>;
    /// A duration, in ns.
    fn duration(&mut self) -> Result<i64, &'static str>;
    /// Steps over the bytes of a message without fields.
    fn empty(&mut self) -> Result<(), &'static str>;
}

/// A channel's plan, of whichever format.
#[derive(Debug)]
pub(crate) enum Plan {
    /// ROS 1 messages.
    Ros1(super::ros1::Plan),
    /// ROS 2 messages in CDR.
    Cdr(super::cdr::Plan),
}

impl Plan {
    /// Whether `payload` is exactly one message the plan's decoder would
    /// accept (else it takes the general path, which says why not).
    #[inline]
    pub(crate) fn fits(&self, payload: &[u8]) -> bool {
        match self {
            Plan::Ros1(p) => p.fits(payload),
            Plan::Cdr(p) => p.fits(payload),
        }
    }

    /// Appends the message in `payload` (which [`fits`](Self::fits)) to
    /// `columns`, one row each.
    #[inline]
    pub(crate) fn append(
        &self,
        payload: &[u8],
        columns: &mut [Option<Column>],
    ) -> Result<(), String> {
        match self {
            Plan::Ros1(p) => p.append(payload, columns),
            Plan::Cdr(p) => p.append(payload, columns),
        }
    }
}

/// The plans of a table's channels.
pub(crate) type Plans = HashMap<ChannelId, Plan>;

/// Field `(elem, array)` of a message into `col`.
pub(crate) fn field<'b, W: Wire<'b>>(
    layout: &Layout,
    elem: Elem,
    array: ArrayKind,
    w: &mut W,
    col: &mut Column,
) -> Result<(), String> {
    if let ArrayKind::Scalar = array {
        return one(layout, elem, w, col);
    }
    match (array, &mut col.b) {
        (ArrayKind::Fixed(n), Builder::Fixed { child, valid, .. }) => {
            elements(layout, elem, n as usize, w, child)?;
            valid.append_non_null();
        }
        (ArrayKind::Unbounded | ArrayKind::Bounded(_), Builder::Bin(b)) if elem == Elem::U8 => {
            let n = w.count()?;
            b.append_value(w.run(n, 1)?);
        }
        (
            ArrayKind::Unbounded | ArrayKind::Bounded(_),
            Builder::List {
                offsets,
                child,
                valid,
                ..
            },
        ) => {
            let n = w.count()?;
            elements(layout, elem, n, w, child)?;
            let last = offsets.last().copied().unwrap_or(0);
            offsets.push(last + n as i64);
            valid.append_non_null();
        }
        _ => return Err(MISMATCH.into()),
    }
    Ok(())
}

/// `n` elements into the child column of an array: bytes and floats as
/// one run, others one by one.
fn elements<'b, W: Wire<'b>>(
    layout: &Layout,
    elem: Elem,
    n: usize,
    w: &mut W,
    col: &mut Column,
) -> Result<(), String> {
    fn read<const N: usize>(c: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(c);
        a
    }
    match (elem, &mut col.b) {
        (Elem::U8, Builder::U8(b)) => b.append_slice(w.run(n, 1)?),
        (Elem::F64, Builder::F64(b)) => {
            let s = w.run(n, 8)?;
            if w.big() {
                b.append_iter(s.chunks_exact(8).map(|c| f64::from_be_bytes(read(c))));
            } else {
                b.append_iter(s.chunks_exact(8).map(|c| f64::from_le_bytes(read(c))));
            }
        }
        (Elem::F32, Builder::F32(b)) => {
            let s = w.run(n, 4)?;
            if w.big() {
                b.append_iter(s.chunks_exact(4).map(|c| f32::from_be_bytes(read(c))));
            } else {
                b.append_iter(s.chunks_exact(4).map(|c| f32::from_le_bytes(read(c))));
            }
        }
        _ => {
            for _ in 0..n {
                one(layout, elem, w, col)?;
            }
        }
    }
    Ok(())
}

/// One value of `elem` into `col`.
fn one<'b, W: Wire<'b>>(
    layout: &Layout,
    elem: Elem,
    w: &mut W,
    col: &mut Column,
) -> Result<(), String> {
    match (elem, &mut col.b) {
        (Elem::Bool, Builder::Bool(b)) => b.append_value(w.scalar::<1>()?[0] != 0),
        (Elem::I8, Builder::I8(b)) => b.append_value(i8::from_le_bytes(w.scalar()?)),
        (Elem::U8, Builder::U8(b)) => b.append_value(w.scalar::<1>()?[0]),
        (Elem::I16, Builder::I16(b)) => b.append_value(i16::from_le_bytes(w.scalar()?)),
        (Elem::U16, Builder::U16(b)) => b.append_value(u16::from_le_bytes(w.scalar()?)),
        (Elem::I32, Builder::I32(b)) => b.append_value(i32::from_le_bytes(w.scalar()?)),
        (Elem::U32, Builder::U32(b)) => b.append_value(u32::from_le_bytes(w.scalar()?)),
        (Elem::I64, Builder::I64(b)) => b.append_value(i64::from_le_bytes(w.scalar()?)),
        (Elem::U64, Builder::U64(b)) => b.append_value(u64::from_le_bytes(w.scalar()?)),
        (Elem::F32, Builder::F32(b)) => b.append_value(f32::from_le_bytes(w.scalar()?)),
        (Elem::F64, Builder::F64(b)) => b.append_value(f64::from_le_bytes(w.scalar()?)),
        (Elem::Time, Builder::Time(b)) => b.append_value(w.time()?),
        (Elem::Duration, Builder::Duration(b)) => b.append_value(w.duration()?),
        (Elem::Str, Builder::Str(b)) => {
            let s = w.string()?;
            match std::str::from_utf8(s) {
                Ok(s) => b.append_value(s),
                // As `Column::append` keeps a string that is not UTF-8.
                Err(_) => b.append_value(String::from_utf8_lossy(s)),
            }
        }
        (Elem::WStr, Builder::Str(b)) => b.append_value(w.wstring()?),
        (Elem::Msg(j), Builder::Empty(b)) => {
            if !layout.get(j).is_some_and(Vec::is_empty) {
                return Err(MISMATCH.into());
            }
            w.empty()?;
            b.append_value(true);
        }
        (
            Elem::Msg(j),
            Builder::Struct {
                children, valid, ..
            },
        ) => {
            let fields = layout.get(j).ok_or(MISMATCH)?;
            if fields.len() != children.len() {
                return Err(MISMATCH.into());
            }
            for (&(elem, array), child) in fields.iter().zip(children.iter_mut()) {
                field(layout, elem, array, w, child)?;
            }
            valid.append_non_null();
        }
        _ => return Err(MISMATCH.into()),
    }
    Ok(())
}
