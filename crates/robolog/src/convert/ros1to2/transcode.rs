//! The byte-level re-encoding of one ROS 1 message as CDR, walking a
//! [`Compiled`] plan: no values are built in between. Every length read
//! is checked against the bytes left before anything is copied or
//! reserved, so a hostile payload ends in an error naming the byte
//! offset, never a panic or an allocation it asked for.

use super::types::{Compiled, Count, Dst, Elem1, Elem2, Op, Pair};

/// Most elements of an array whose ROS 1 elements take no bytes (arrays
/// of empty messages) a payload may declare: their CDR form takes a byte
/// each, so the output stays bounded.
const MAX_EMPTY_ELEMENTS: u64 = 1 << 20;

/// Why a payload does not transcode (from ROS 1 to CDR here, from CDR
/// to ROS 1 in `ros2to1`): the byte offset in the input payload, which
/// encoding it is in (`"ROS 1"`, `"CDR"`) and what was wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TranscodeError {
    pub offset: usize,
    pub payload: &'static str,
    pub what: String,
}

impl std::fmt::Display for TranscodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "at byte {} of the {} payload: {}",
            self.offset, self.payload, self.what
        )
    }
}

type R<T> = Result<T, TranscodeError>;

/// Writes the CDR form (little-endian, with its encapsulation header) of
/// the ROS 1 message `data` of type `c` into `out`, cleared first.
pub(crate) fn transcode(c: &Compiled, data: &[u8], out: &mut Vec<u8>) -> R<()> {
    out.clear();
    out.extend_from_slice(&[0, 1, 0, 0]);
    let mut t = Walk {
        c,
        data,
        pos: 0,
        out,
    };
    t.plan(0)
}

struct Walk<'a, 'o> {
    c: &'a Compiled,
    data: &'a [u8],
    pos: usize,
    out: &'o mut Vec<u8>,
}

impl Walk<'_, '_> {
    fn err(&self, what: String) -> TranscodeError {
        TranscodeError {
            offset: self.pos,
            payload: "ROS 1",
            what,
        }
    }

    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The next `n` bytes, or an error naming what needed them.
    fn take(&mut self, n: usize, what: &str) -> R<&[u8]> {
        if n > self.left() {
            return Err(self.err(format!("{what} needs {n} bytes, {} left", self.left())));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> R<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Pads the output to a multiple of `a` counted after the header.
    fn align(&mut self, a: usize) {
        let len = self.out.len();
        let pad = (a - (len - 4) % a) % a;
        self.out.resize(len + pad, 0);
    }

    fn put_u32(&mut self, v: u32) {
        self.align(4);
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    /// Checks that `n` elements of at least `min` bytes each fit in what
    /// is left.
    fn check_count(&self, n: u64, min: u64) -> R<()> {
        let need = n.saturating_mul(min);
        if need > self.left() as u64 || (min == 0 && n > MAX_EMPTY_ELEMENTS) {
            return Err(TranscodeError {
                offset: self.pos.saturating_sub(4),
                payload: "ROS 1",
                what: format!(
                    "an array of {n} elements needs at least {need} bytes, {} left",
                    self.left()
                ),
            });
        }
        Ok(())
    }

    /// Transcodes one message of plan `p`.
    fn plan(&mut self, p: usize) -> R<()> {
        let c = self.c;
        let plan = &c.plans[p];
        let fields = &c.defs1[plan.src].0;
        if plan.empty {
            self.out.push(0);
        }
        if plan.in_order {
            let mut next = 0;
            for op in &plan.ops {
                match *op {
                    Op::From {
                        field,
                        elem,
                        src,
                        dst,
                    } => {
                        for &(e, n) in &fields[next..field] {
                            self.skip(e, n)?;
                        }
                        self.copy(elem, src, dst)?;
                        next = field + 1;
                    }
                    Op::Zero { elem, dst } => self.zero(elem, dst),
                }
            }
            for &(e, n) in &fields[next.min(fields.len())..] {
                self.skip(e, n)?;
            }
        } else {
            // Fields reordered: find where each ROS 1 field starts first
            // (bounded by the definition's field count).
            let mut starts = Vec::with_capacity(fields.len());
            for &(e, n) in fields {
                starts.push(self.pos);
                self.skip(e, n)?;
            }
            let end = self.pos;
            for op in &plan.ops {
                match *op {
                    Op::From {
                        field,
                        elem,
                        src,
                        dst,
                    } => {
                        self.pos = starts[field];
                        self.copy(elem, src, dst)?;
                    }
                    Op::Zero { elem, dst } => self.zero(elem, dst),
                }
            }
            self.pos = end;
        }
        Ok(())
    }

    /// The fewest ROS 1 bytes an element of `e` takes.
    fn min(&self, e: Elem1) -> u64 {
        match e {
            Elem1::Fixed(n) => n as u64,
            Elem1::Str => 4,
            Elem1::Msg(i) => self.c.defs1[i].1,
        }
    }

    /// The fewest ROS 1 bytes a copied element takes.
    fn min_pair(&self, e: Pair) -> u64 {
        match e {
            Pair::Prim(n) => n as u64,
            Pair::Str => 4,
            Pair::Time => 8,
            Pair::Msg(p) => self.c.defs1[self.c.plans[p].src].1,
        }
    }

    /// Skips a ROS 1 field of `n` elements `e`.
    fn skip(&mut self, e: Elem1, n: Count) -> R<()> {
        let count = match n {
            Count::One => 1,
            Count::Var => self.u32("an array length")?,
            Count::Fixed(k) => k,
        };
        self.check_count(u64::from(count), self.min(e))?;
        match e {
            Elem1::Fixed(size) => {
                self.take(size * count as usize, "an array")?;
            }
            Elem1::Str => {
                for _ in 0..count {
                    let len = self.u32("a string length")?;
                    self.take(len as usize, "a string")?;
                }
            }
            Elem1::Msg(i) => {
                let c = self.c;
                for _ in 0..count {
                    for &(e, n) in &c.defs1[i].0 {
                        self.skip(e, n)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Copies a ROS 1 field of `src` elements into a ROS 2 one of `dst`.
    fn copy(&mut self, elem: Pair, src: Count, dst: Dst) -> R<()> {
        let n = match src {
            Count::One => return self.one(elem),
            Count::Var => self.u32("an array length")?,
            Count::Fixed(k) => k,
        };
        self.check_count(u64::from(n), self.min_pair(elem))?;
        // How many are written, and how many zero ones pad a fixed array.
        let (write, pad) = match dst {
            Dst::One => (n.min(1), 0),
            Dst::Seq(bound) => {
                let w = bound.map_or(n, |b| n.min(b));
                self.put_u32(w);
                (w, 0)
            }
            Dst::Fixed(m) => (n.min(m), m.saturating_sub(n)),
        };
        match elem {
            Pair::Prim(size) => {
                let data = self.data;
                let start = self.pos;
                self.take(size * n as usize, "an array")?;
                let kept = &data[start..start + size * write as usize];
                // Aligned once (not at all when there are none, as ROS 2
                // and rosbags write them): the elements follow each other.
                if write > 0 {
                    self.align(size);
                }
                self.out.extend_from_slice(kept);
            }
            _ => {
                for i in 0..n {
                    if i < write {
                        self.one(elem)?;
                    } else {
                        self.skip_pair(elem)?;
                    }
                }
            }
        }
        if pad > 0 {
            let z = match elem {
                Pair::Prim(size) => Elem2::Prim(size),
                Pair::Str => Elem2::Str,
                Pair::Time => Elem2::Prim(4),
                Pair::Msg(p) => return self.pad_msgs(p, pad),
            };
            let k = if matches!(elem, Pair::Time) {
                2 * pad
            } else {
                pad
            };
            self.zero(z, Dst::Fixed(k));
        }
        Ok(())
    }

    /// Writes `pad` zero messages of the ROS 2 type of plan `p`.
    fn pad_msgs(&mut self, p: usize, pad: u32) -> R<()> {
        let i2 = self.c.plans[p].dst;
        self.zero(Elem2::Msg(i2), Dst::Fixed(pad));
        Ok(())
    }

    /// Skips one ROS 1 element of a copied field.
    fn skip_pair(&mut self, elem: Pair) -> R<()> {
        match elem {
            Pair::Prim(n) => self.skip(Elem1::Fixed(n), Count::One),
            Pair::Time => self.skip(Elem1::Fixed(8), Count::One),
            Pair::Str => self.skip(Elem1::Str, Count::One),
            Pair::Msg(p) => self.skip(Elem1::Msg(self.c.plans[p].src), Count::One),
        }
    }

    /// Copies one element.
    fn one(&mut self, elem: Pair) -> R<()> {
        match elem {
            Pair::Prim(size) => {
                let b = self.take(size, "a number")?;
                let b: [u8; 8] = {
                    let mut a = [0u8; 8];
                    a[..size].copy_from_slice(b);
                    a
                };
                self.align(size);
                self.out.extend_from_slice(&b[..size]);
            }
            Pair::Time => {
                let b = self.take(8, "a time")?;
                let b: [u8; 8] = b.try_into().unwrap_or([0; 8]);
                self.align(4);
                self.out.extend_from_slice(&b);
            }
            Pair::Str => {
                let len = self.u32("a string length")?;
                let data = self.data;
                let start = self.pos;
                self.take(len as usize, "a string")?;
                self.put_u32(len.saturating_add(1));
                self.out
                    .extend_from_slice(&data[start..start + len as usize]);
                self.out.push(0);
            }
            Pair::Msg(p) => self.plan(p)?,
        }
        Ok(())
    }

    /// Writes the zero value of a ROS 2 field.
    fn zero(&mut self, elem: Elem2, dst: Dst) {
        let n = match dst {
            Dst::One => 1,
            Dst::Seq(_) => {
                self.put_u32(0);
                return;
            }
            Dst::Fixed(k) => k,
        };
        for _ in 0..n {
            match elem {
                Elem2::Prim(size) => {
                    self.align(size);
                    self.out.extend(std::iter::repeat_n(0u8, size));
                }
                Elem2::Str => {
                    self.put_u32(1);
                    self.out.push(0);
                }
                Elem2::WStr => self.put_u32(0),
                Elem2::Msg(i) => {
                    let c = self.c;
                    if c.defs2[i].is_empty() {
                        self.out.push(0);
                    }
                    for &(e, d) in &c.defs2[i] {
                        self.zero(e, d);
                    }
                }
            }
        }
    }
}
