//! ROS 1 messages decoded straight into a table's [`Column`]s, with no
//! [`Value`](logcore::Value) in between: the wire layout of the message
//! definition (spec 6.3, 6.4: little-endian scalars, `u32`-prefixed
//! strings and variable arrays, fixed arrays without a count, nested
//! messages inline) is walked once to check that the payload holds the
//! whole message and nothing more, then again to append each field to its
//! column (the filling side is [`direct`](super::direct)'s, shared with
//! the CDR plan).
//!
//! A [`Plan`] is made only where the connection's declared type is the
//! table's type, so every column has the builder the field's wire type
//! fills. The rows equal those of decoding to a `Value` and appending it
//! ([`Column::append`]): the same integers, times as nanoseconds, strings
//! that are not UTF-8 with U+FFFD for each invalid sequence. A message
//! the check refuses takes the general path, which reports why.

use logcore::ValueType;
use rosbag12::msg::{ArrayKind, Builtin, MessageType, WireKind as Kind};

use super::Column;
use super::direct::{self, Elem, Layout, MISMATCH};

/// One message type of a definition, from rosbag12's
/// [`WireType`](rosbag12::msg::WireType) with sizes as `usize`.
#[derive(Debug)]
struct Def {
    /// Its fields in wire order.
    fields: Vec<(Kind, ArrayKind)>,
    /// Its wire size where that is the same for every value (no strings
    /// or variable arrays inside).
    fixed: Option<usize>,
    /// The fewest bytes a value takes.
    min: usize,
}

/// How the messages of one connection go into a table's columns.
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

/// The cursor over one payload.
struct Wire<'b> {
    b: &'b [u8],
    pos: usize,
}

impl<'b> Wire<'b> {
    #[inline]
    fn take(&mut self, n: usize) -> Result<&'b [u8], &'static str> {
        let end = self.pos.checked_add(n).ok_or(MISMATCH)?;
        let s = self.b.get(self.pos..end).ok_or(MISMATCH)?;
        self.pos = end;
        Ok(s)
    }

    #[inline]
    fn le<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    #[inline]
    fn count(&mut self) -> Result<usize, &'static str> {
        usize::try_from(u32::from_le_bytes(self.le()?)).map_err(|_| MISMATCH)
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

    fn left(&self) -> usize {
        self.b.len().saturating_sub(self.pos)
    }
}

impl Plan {
    /// The plan of a connection of type `t` in a table of type `table`
    /// whose top-level field `k` fills column `columns[k]` (`None`: not
    /// asked for). `None` when the connection's type is not the table's,
    /// or the definition has arrays of elements that take no bytes (their
    /// count is bounded by the general path alone).
    pub(crate) fn new(
        t: &MessageType,
        table: &ValueType,
        columns: Vec<Option<usize>>,
    ) -> Option<Plan> {
        if t.value_type().as_ref() != Some(table) {
            return None;
        }
        let defs: Vec<Def> = t
            .wire_types()
            .iter()
            .map(|w| Def {
                fields: w.fields().iter().map(|&(_, k, a)| (k, a)).collect(),
                fixed: w.fixed_size().and_then(|s| usize::try_from(s).ok()),
                min: usize::try_from(w.min_size()).unwrap_or(usize::MAX),
            })
            .collect();
        if columns.len() != defs.first()?.fields.len() {
            return None;
        }
        let empty_elements = defs.iter().flat_map(|d| &d.fields).any(|(k, a)| {
            !matches!(a, ArrayKind::Scalar) && matches!(*k, Kind::Msg(j) if defs[j].min == 0)
        });
        if empty_elements {
            return None;
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

    /// Whether `payload` is exactly one message of the type: every length
    /// within the payload, no byte left over.
    pub(crate) fn fits(&self, payload: &[u8]) -> bool {
        let mut w = Wire { b: payload, pos: 0 };
        self.skip_struct(0, &mut w) && w.pos == payload.len()
    }

    fn skip_struct(&self, ty: usize, w: &mut Wire<'_>) -> bool {
        let Some(d) = self.defs.get(ty) else {
            return false;
        };
        if let Some(n) = d.fixed {
            return w.skip(n);
        }
        d.fields
            .iter()
            .all(|&(kind, array)| self.skip_field(kind, array, w))
    }

    fn skip_field(&self, kind: Kind, array: ArrayKind, w: &mut Wire<'_>) -> bool {
        let n = match array {
            ArrayKind::Scalar => return self.skip_one(kind, w),
            ArrayKind::Fixed(n) => n as usize,
            ArrayKind::Unbounded | ArrayKind::Bounded(_) => match w.count() {
                Ok(n) => n,
                Err(_) => return false,
            },
        };
        let (fixed, min) = match kind {
            Kind::Prim(p) => (p.wire_size(), p.wire_size().unwrap_or(4)),
            Kind::Msg(j) => (self.defs[j].fixed, self.defs[j].min),
        };
        if let Some(size) = fixed {
            return n.checked_mul(size).is_some_and(|b| w.skip(b));
        }
        // Every element takes at least `min` (> 0) bytes, so the loop is
        // bounded by the payload.
        if n.saturating_mul(min) > w.left() {
            return false;
        }
        (0..n).all(|_| self.skip_one(kind, w))
    }

    fn skip_one(&self, kind: Kind, w: &mut Wire<'_>) -> bool {
        match kind {
            Kind::Prim(Builtin::String) => w.count().is_ok_and(|n| w.skip(n)),
            Kind::Prim(p) => w.skip(p.wire_size().unwrap_or(usize::MAX)),
            Kind::Msg(j) => self.skip_struct(j, w),
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
        let mut w = Wire { b: payload, pos: 0 };
        let top = self.defs.first().ok_or(MISMATCH)?;
        let fields = self.layout.first().ok_or(MISMATCH)?;
        for ((&(kind, array), &(e, _)), at) in top.fields.iter().zip(fields).zip(&self.columns) {
            match at.and_then(|i| columns.get_mut(i)).and_then(Option::as_mut) {
                Some(col) => direct::field(&self.layout, e, array, &mut w, col)?,
                None => {
                    if !self.skip_field(kind, array, &mut w) {
                        return Err(MISMATCH.into());
                    }
                }
            }
        }
        Ok(())
    }
}

/// A ROS 1 element type as the columns are filled from it: `byte` is
/// `int8`, `char` `uint8`.
fn elem(k: Kind) -> Elem {
    use Builtin as P;
    match k {
        Kind::Msg(j) => Elem::Msg(j),
        Kind::Prim(p) => match p {
            P::Bool => Elem::Bool,
            P::Int8 | P::Byte => Elem::I8,
            P::UInt8 | P::Char => Elem::U8,
            P::Int16 => Elem::I16,
            P::UInt16 => Elem::U16,
            P::Int32 => Elem::I32,
            P::UInt32 => Elem::U32,
            P::Int64 => Elem::I64,
            P::UInt64 => Elem::U64,
            P::Float32 => Elem::F32,
            P::Float64 => Elem::F64,
            P::String => Elem::Str,
            P::WString => Elem::WStr,
            P::Time => Elem::Time,
            P::Duration => Elem::Duration,
        },
    }
}

/// ROS 1's wire layout (spec 6.3): little-endian, no alignment, strings
/// a `u32` length and the bytes, `time` and `duration` two 4-byte
/// fields, a message without fields no bytes.
impl<'b> direct::Wire<'b> for Wire<'b> {
    #[inline]
    fn scalar<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        self.le()
    }

    #[inline]
    fn count(&mut self) -> Result<usize, &'static str> {
        Wire::count(self)
    }

    #[inline]
    fn run(&mut self, n: usize, size: usize) -> Result<&'b [u8], &'static str> {
        self.take(n.checked_mul(size).ok_or(MISMATCH)?)
    }

    #[inline]
    fn big(&self) -> bool {
        false
    }

    #[inline]
    fn string(&mut self) -> Result<&'b [u8], &'static str> {
        let n = Wire::count(self)?;
        self.take(n)
    }

    fn wstring(&mut self) -> Result<String, &'static str> {
        Err(MISMATCH)
    }

    #[inline]
    fn time(&mut self) -> Result<i64, &'static str> {
        let sec = u32::from_le_bytes(self.le()?);
        let nsec = u32::from_le_bytes(self.le()?);
        Ok(i64::from(sec) * 1_000_000_000 + i64::from(nsec))
    }

    #[inline]
    fn duration(&mut self) -> Result<i64, &'static str> {
        let sec = i32::from_le_bytes(self.le()?);
        let nsec = i32::from_le_bytes(self.le()?);
        Ok(i64::from(sec) * 1_000_000_000 + i64::from(nsec))
    }

    #[inline]
    fn empty(&mut self) -> Result<(), &'static str> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use arrow_array::RecordBatch;

    use crate::{ScanOptions, scan, tables};

    /// Every ROS 1 bag of the repository's testdata and of the corpus.
    fn bags() -> Vec<PathBuf> {
        let root = robolog_testkit::workspace_root();
        let mut out = robolog_testkit::files_with_ext(&root.join("testdata"), &["bag"]);
        out.extend(robolog_testkit::files_with_ext(
            &robolog_testkit::corpus_root(),
            &["bag"],
        ));
        out.sort();
        out
    }

    /// The batches of a scan, with the plans (`direct`) or without.
    fn read(
        log: &robolog::Log<'_>,
        t: &crate::Table,
        opts: &ScanOptions,
        direct: bool,
    ) -> (Result<Vec<RecordBatch>, String>, usize, u64) {
        let mut r = match scan(log, t, opts) {
            Ok(r) => r,
            Err(e) => return (Err(e.to_string()), 0, 0),
        };
        if !direct {
            r.plans.clear();
        }
        let plans = r.plans.len();
        let batches: Result<Vec<_>, _> = r.by_ref().collect();
        (batches.map_err(|e| e.to_string()), plans, r.undecoded())
    }

    /// Every table of every bag gives the same batches, the same errors
    /// and the same count of undecodable messages straight from the wire
    /// as through decoded values, whole and with every other field.
    #[test]
    fn direct_rows_equal_decoded_rows() {
        let (mut direct_tables, mut rows) = (0, 0);
        let files = bags();
        assert!(files.len() >= 10, "bags missing: {files:?}");
        for path in &files {
            let Ok(log) = robolog::open(path) else {
                continue;
            };
            let Ok(ts) = tables(&log) else { continue };
            for t in &ts {
                let names: Vec<String> = t
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect();
                let every_other: Vec<String> = names.iter().skip(1).step_by(2).cloned().collect();
                for projection in [None, Some(every_other)] {
                    let opts = ScanOptions {
                        projection,
                        ..ScanOptions::default()
                    };
                    let (a, plans, undecoded_a) = read(&log, t, &opts, true);
                    let (b, _, undecoded_b) = read(&log, t, &opts, false);
                    let what = format!("{}: {}", path.display(), t.name);
                    assert_eq!(a, b, "{what}");
                    assert_eq!(undecoded_a, undecoded_b, "{what}");
                    if plans > 0 {
                        direct_tables += 1;
                        rows += a.map_or(0, |b| b.iter().map(RecordBatch::num_rows).sum::<usize>());
                    }
                }
            }
        }
        assert!(
            direct_tables >= 50 && rows >= 10_000,
            "{direct_tables} tables, {rows} rows"
        );
    }

    /// A message cut short is not the plan's: it is left to the general
    /// path, which names the field that is short.
    #[test]
    fn short_messages_take_the_general_path() {
        let t =
            rosbag12::msg::MessageType::parse("t/T", "string s\nfloat64[2] c\nint16[] v").unwrap();
        let vt = t.value_type().unwrap();
        let plan = super::Plan::new(&t, &vt, vec![Some(0), Some(1), Some(2)]).unwrap();
        let mut payload = 2u32.to_le_bytes().to_vec();
        payload.extend(b"hi");
        payload.extend(1.5f64.to_le_bytes());
        payload.extend(2.5f64.to_le_bytes());
        payload.extend(1u32.to_le_bytes());
        payload.extend(7i16.to_le_bytes());
        assert!(plan.fits(&payload));
        assert!(!plan.fits(&payload[..payload.len() - 1]));
        let mut longer = payload.clone();
        longer.push(0);
        assert!(!plan.fits(&longer));
        let mut huge = payload.clone();
        let n = huge.len() - 6;
        huge[n..n + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(!plan.fits(&huge));
        assert!(t.decode(&huge, 0).is_err());
    }
}
