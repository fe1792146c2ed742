//! The byte-level re-encoding of one CDR message as ROS 1, walking a
//! [`Compiled`] plan: no values are built in between. CDR is read as
//! `ros2cdr` decodes it (plain CDR in either byte order, each primitive
//! aligned to its size counted from the byte after the 4-byte
//! encapsulation header, strings with a NUL counted in their length, at
//! most three bytes of padding left at the end); ROS 1 is packed
//! little-endian. Every length read is checked against the bytes left
//! before anything is copied or reserved, so a hostile payload ends in an
//! error naming the byte offset, never a panic or an allocation it asked
//! for.

use super::types::{Compiled, Count, Elem};
use crate::convert::ros1to2::TranscodeError;

type R<T> = Result<T, TranscodeError>;

/// Writes the ROS 1 form of the CDR message `data` (with its
/// encapsulation header) of type `c` into `out`, cleared first.
pub(crate) fn transcode(c: &Compiled, data: &[u8], out: &mut Vec<u8>) -> R<()> {
    out.clear();
    let err = |offset: usize, what: String| TranscodeError {
        offset,
        payload: "CDR",
        what,
    };
    let Some(header) = data.get(..4) else {
        return Err(err(
            0,
            format!(
                "a 4-byte encapsulation header needs 4 bytes, {} left",
                data.len()
            ),
        ));
    };
    let big = match (header[0], header[1]) {
        (0, 0) => true,
        (0, 1) => false,
        (a, b) => {
            return Err(err(
                0,
                format!(
                    "encapsulation kind 0x{a:02x}{b:02x}: only plain CDR (0x0000, 0x0001) is read"
                ),
            ));
        }
    };
    let mut w = Walk {
        c,
        data: &data[4..],
        pos: 0,
        big,
        out,
    };
    w.message(0)?;
    let left = w.left();
    if left > 3 {
        return Err(w.err(format!("the end of the message, {left} bytes left over")));
    }
    Ok(())
}

struct Walk<'a, 'o> {
    c: &'a Compiled,
    /// The bytes after the encapsulation header.
    data: &'a [u8],
    pos: usize,
    big: bool,
    out: &'o mut Vec<u8>,
}

impl Walk<'_, '_> {
    /// An error at the current position, counted from the payload's
    /// first byte (the header included).
    fn err(&self, what: String) -> TranscodeError {
        TranscodeError {
            offset: self.pos + 4,
            payload: "CDR",
            what,
        }
    }

    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Skips the padding before a value aligned to `n`.
    fn align(&mut self, n: usize) -> R<()> {
        let to = self.pos.div_ceil(n) * n;
        if to > self.data.len() {
            return Err(self.err(format!(
                "{} padding bytes, {} left",
                to - self.pos,
                self.left()
            )));
        }
        self.pos = to;
        Ok(())
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

    /// An aligned u32 in the payload's byte order.
    fn u32(&mut self, what: &str) -> R<u32> {
        self.align(4)?;
        let big = self.big;
        let b = self.take(4, what)?;
        let b = [b[0], b[1], b[2], b[3]];
        Ok(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }

    /// Copies `n` aligned primitives of `size` bytes, swapped to
    /// little-endian when the payload is big-endian.
    fn prims(&mut self, size: usize, n: usize, what: &str) -> R<()> {
        if n == 0 {
            return Ok(());
        }
        self.align(size)?;
        let big = self.big;
        let data = self.data;
        let start = self.pos;
        self.take(size * n, what)?;
        let bytes = &data[start..start + size * n];
        if big && size > 1 {
            for e in bytes.chunks_exact(size) {
                self.out.extend(e.iter().rev());
            }
        } else {
            self.out.extend_from_slice(bytes);
        }
        Ok(())
    }

    /// Re-encodes one message of type `t`.
    fn message(&mut self, t: usize) -> R<()> {
        let c = self.c;
        let ty = &c.types[t];
        if ty.header {
            // ROS 1's seq, which ROS 2 does not have.
            self.out.extend_from_slice(&[0; 4]);
        }
        if ty.empty {
            self.take(1, "the placeholder byte of an empty message")?;
            return Ok(());
        }
        for f in &ty.fields {
            let mark = self.out.len();
            match f.count {
                Count::One => self.one(f.elem)?,
                Count::Fixed(n) => self.many(f.elem, n)?,
                Count::Seq => {
                    let n = self.u32("an array length")?;
                    self.out.extend_from_slice(&n.to_le_bytes());
                    self.many(f.elem, n)?;
                }
            }
            if !f.kept {
                self.out.truncate(mark);
            }
        }
        Ok(())
    }

    /// The fewest CDR bytes an element takes.
    fn min(&self, e: Elem) -> u64 {
        match e {
            Elem::Prim(n) => n as u64,
            Elem::Str => 4,
            Elem::Msg(i) => self.c.types[i].min,
        }
    }

    /// Re-encodes `n` elements, checking first that they can fit in what
    /// is left.
    fn many(&mut self, e: Elem, n: u32) -> R<()> {
        let need = u64::from(n).saturating_mul(self.min(e));
        if need > self.left() as u64 {
            return Err(TranscodeError {
                offset: self.pos + 4,
                payload: "CDR",
                what: format!(
                    "an array of {n} elements needs at least {need} bytes, {} left",
                    self.left()
                ),
            });
        }
        match e {
            Elem::Prim(size) => self.prims(size, n as usize, "an array"),
            _ => {
                for _ in 0..n {
                    self.one(e)?;
                }
                Ok(())
            }
        }
    }

    /// Re-encodes one element.
    fn one(&mut self, e: Elem) -> R<()> {
        match e {
            Elem::Prim(size) => self.prims(size, 1, "a number"),
            Elem::Str => {
                let len = self.u32("a string length")? as usize;
                if len == 0 {
                    // Some writers give an empty string no terminator.
                    self.out.extend_from_slice(&0u32.to_le_bytes());
                    return Ok(());
                }
                let data = self.data;
                let start = self.pos;
                self.take(len, "a string")?;
                if data[start + len - 1] != 0 {
                    self.pos = start + len - 1;
                    return Err(self.err(format!(
                        "a string's NUL terminator, found 0x{:02x}",
                        data[start + len - 1]
                    )));
                }
                self.out
                    .extend_from_slice(&((len - 1) as u32).to_le_bytes());
                self.out.extend_from_slice(&data[start..start + len - 1]);
                Ok(())
            }
            Elem::Msg(t) => self.message(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(text: &str) -> Compiled {
        let t = ros2cdr::MessageType::parse("p/msg/T", text).unwrap();
        super::super::types::compile(&t).unwrap()
    }

    /// One payload in either byte order (CDR aligned after the header),
    /// and what ROS 1 packs of it.
    fn payload(big: bool) -> Vec<u8> {
        // A number's little-endian bytes, reversed for big-endian.
        let put = |p: &mut Vec<u8>, mut le: Vec<u8>| {
            if big {
                le.reverse();
            }
            p.extend(le);
        };
        let mut p = vec![0, u8::from(!big), 0, 0];
        put(&mut p, (-3i16).to_le_bytes().to_vec()); // a: int16 at 0
        p.extend([0; 6]); // b aligned to 8
        put(&mut p, 2.5f64.to_le_bytes().to_vec());
        put(&mut p, 3u32.to_le_bytes().to_vec()); // s: "hi" and its NUL
        p.extend(b"hi\0");
        p.push(0); // v's count aligned to 4
        for n in [2u32, 7, 8] {
            put(&mut p, n.to_le_bytes().to_vec());
        }
        p
    }

    #[test]
    fn both_byte_orders_pack_alike() {
        let c = compiled("int16 a\nfloat64 b\nstring s\nuint32[] v\n");
        let mut want = Vec::new();
        want.extend((-3i16).to_le_bytes());
        want.extend(2.5f64.to_le_bytes());
        want.extend(2u32.to_le_bytes());
        want.extend(b"hi");
        want.extend(2u32.to_le_bytes());
        want.extend(7u32.to_le_bytes());
        want.extend(8u32.to_le_bytes());
        for big in [false, true] {
            let mut out = Vec::new();
            transcode(&c, &payload(big), &mut out).unwrap();
            assert_eq!(out, want, "big-endian: {big}");
        }
        // Padding of up to three bytes at the end is accepted, four not.
        let mut p = payload(false);
        p.extend([0; 3]);
        let mut out = Vec::new();
        transcode(&c, &p, &mut out).unwrap();
        p.push(0);
        let e = transcode(&c, &p, &mut out).unwrap_err().to_string();
        assert!(e.contains("4 bytes left over"), "{e}");
        // Another encapsulation is refused at byte 0.
        let mut p = payload(false);
        p[1] = 7;
        let e = transcode(&c, &p, &mut out).unwrap_err().to_string();
        assert!(
            e.starts_with("at byte 0 of the CDR payload: encapsulation kind 0x0007"),
            "{e}"
        );
    }

    /// A type without fields takes its placeholder byte in CDR and nothing
    /// in ROS 1; a string missing its NUL is an error at that byte.
    #[test]
    fn empty_types_and_terminators() {
        let c = compiled("");
        let mut out = vec![9];
        transcode(&c, &[0, 1, 0, 0, 0], &mut out).unwrap();
        assert!(out.is_empty());
        let e = transcode(&c, &[0, 1, 0, 0], &mut out)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("at byte 4 of the CDR payload: the placeholder"),
            "{e}"
        );
        let c = compiled("string s\n");
        let e = transcode(&c, &[0, 1, 0, 0, 2, 0, 0, 0, b'a', b'b'], &mut out)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("at byte 9 of the CDR payload: a string's NUL"),
            "{e}"
        );
    }
}
