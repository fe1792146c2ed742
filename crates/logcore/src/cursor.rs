//! [`Cursor`]: reading packed little-endian fields from one structure (a
//! header, a record, a packet payload) while keeping track of the absolute
//! file offset, so every error names where it happened and what was
//! expected there.
//!
//! Every read checks the length first and borrows from the input; nothing
//! is allocated unless an error is built.
//!
//! ```
//! use logcore::cursor::Cursor;
//!
//! // A 6-byte structure that starts at byte 100 of its file.
//! let data = [1u8, 0, 0, 0, 2, 0];
//! let mut f = Cursor::new(&data, 100, "test payload");
//! assert_eq!(f.u32("count")?, 1);
//! assert_eq!(f.offset(), 104);
//! let e = f.u32("flags").unwrap_err();
//! assert_eq!(
//!     e.to_string(),
//!     "at byte 104: expected 4-byte flags of the test payload, found only 2 bytes left in it"
//! );
//! assert_eq!(f.u16("flags")?, 2);
//! f.end()?;
//! # Ok::<(), logcore::Error>(())
//! ```

use crate::Error;

/// How a [`Cursor`] words its errors.
///
/// Formats name their structures differently ("the Position packet", "the
/// Chunk record"), and their messages are part of what users compare, so
/// the phrasing is a value a format crate picks once (a `static`), not code
/// it rewrites. With `what` the structure's name, the messages read:
///
/// - a field that does not fit: `expected {size}-byte {field} {field_in} {what}{unit}, found only {n} bytes left {left}`;
/// - a byte run that does not fit: `expected {len} bytes of {field} {bytes_in} {what}{unit}, ...`;
/// - left-over bytes: `expected end of the {what}{unit}{end_note}, found {n} extra bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wording {
    /// Joins a field to its structure, e.g. `"of the"`.
    pub field_in: &'static str,
    /// Joins a byte run to its structure, e.g. `"in the"`.
    pub bytes_in: &'static str,
    /// Follows the structure's name, e.g. `""` or `" record"`.
    pub unit: &'static str,
    /// Where the bytes are missing, e.g. `"in it"`.
    pub left: &'static str,
    /// Says why left-over bytes are an error, e.g. `" (it is never extended)"`.
    pub end_note: &'static str,
}

impl Wording {
    /// The default: "4-byte count of the header", "12 bytes of name in the
    /// header", "only 2 bytes left in it".
    pub const PLAIN: Wording = Wording {
        field_in: "of the",
        bytes_in: "in the",
        unit: "",
        left: "in it",
        end_note: "",
    };
}

/// A cursor over one structure whose first byte sits at absolute offset
/// `base` in the file.
///
/// Reads are little-endian. Errors are [`Error::Malformed`] at the offset of
/// the field that did not fit (a structure's length is known before its
/// fields are read, so running out inside it is damage, not truncation).
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    rest: &'a [u8],
    total: usize,
    base: u64,
    what: &'static str,
    wording: &'static Wording,
}

macro_rules! read_le {
    ($(#[$doc:meta] $name:ident: $t:ty;)*) => {
        $(
            #[$doc]
            ///
            /// `field` names it in the error when fewer bytes are left.
            #[inline]
            pub fn $name(&mut self, field: &str) -> Result<$t, Error> {
                const N: usize = std::mem::size_of::<$t>();
                match self.rest.split_first_chunk::<N>() {
                    Some((head, rest)) => {
                        self.rest = rest;
                        Ok(<$t>::from_le_bytes(*head))
                    }
                    None => Err(self.short(field, N)),
                }
            }
        )*
    };
}

impl<'a> Cursor<'a> {
    /// A cursor over `input`, which starts at byte `base` of the file;
    /// `what` names the structure in errors (e.g. `"GPSDataM v100
    /// payload"`). Errors are worded as [`Wording::PLAIN`].
    #[inline]
    pub fn new(input: &'a [u8], base: u64, what: &'static str) -> Self {
        Self::with_wording(input, base, what, &Wording::PLAIN)
    }

    /// Like [`Cursor::new`], with the format's own [`Wording`].
    ///
    /// ```
    /// use logcore::cursor::{Cursor, Wording};
    /// static RECORD: Wording = Wording {
    ///     field_in: "of the",
    ///     bytes_in: "within the",
    ///     unit: " record",
    ///     left: "in the record",
    ///     end_note: " (it is never extended)",
    /// };
    /// let mut f = Cursor::with_wording(&[7], 40, "Chunk", &RECORD);
    /// assert_eq!(
    ///     f.u16("version").unwrap_err().to_string(),
    ///     "at byte 40: expected 2-byte version of the Chunk record, found only 1 bytes left in the record"
    /// );
    /// assert_eq!(
    ///     f.end().unwrap_err().to_string(),
    ///     "at byte 40: expected end of the Chunk record (it is never extended), found 1 extra bytes"
    /// );
    /// ```
    #[inline]
    pub fn with_wording(
        input: &'a [u8],
        base: u64,
        what: &'static str,
        wording: &'static Wording,
    ) -> Self {
        Cursor {
            rest: input,
            total: input.len(),
            base,
            what,
            wording,
        }
    }

    /// Absolute offset of the next unread byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + (self.total - self.rest.len()) as u64
    }

    /// Bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// True when every byte has been read.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The structure's name, as given to [`Cursor::new`].
    #[inline]
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// The error for a `size`-byte `field` that does not fit in what is
    /// left, at the current offset. For checks a format makes before
    /// reading a group of fields.
    #[cold]
    pub fn short(&self, field: &str, size: usize) -> Error {
        let w = self.wording;
        Error::malformed(
            self.offset(),
            format!("{size}-byte {field} {} {}{}", w.field_in, self.what, w.unit),
            format!("only {} bytes left {}", self.rest.len(), w.left),
        )
    }

    #[cold]
    fn short_bytes(&self, len: u64, field: &str) -> Error {
        let w = self.wording;
        Error::malformed(
            self.offset(),
            format!(
                "{len} bytes of {field} {} {}{}",
                w.bytes_in, self.what, w.unit
            ),
            format!("only {} bytes left {}", self.rest.len(), w.left),
        )
    }

    read_le! {
        /// A `u8`.
        u8: u8;
        /// An `i8`.
        i8: i8;
        /// A little-endian `u16`.
        u16: u16;
        /// A little-endian `i16`.
        i16: i16;
        /// A little-endian `u32`.
        u32: u32;
        /// A little-endian `i32`.
        i32: i32;
        /// A little-endian `u64`.
        u64: u64;
        /// A little-endian `i64`.
        i64: i64;
        /// A little-endian `f32`.
        f32: f32;
        /// A little-endian `f64`.
        f64: f64;
    }

    /// A byte read as a flag: anything but 0 is `true`.
    #[inline]
    pub fn bool(&mut self, field: &str) -> Result<bool, Error> {
        Ok(self.u8(field)? != 0)
    }

    /// `N` consecutive little-endian `f32`, checked as one field.
    #[inline]
    pub fn f32s<const N: usize>(&mut self, field: &str) -> Result<[f32; N], Error> {
        if self.rest.len() < 4 * N {
            return Err(self.short(field, 4 * N));
        }
        let mut out = [0f32; N];
        for v in &mut out {
            *v = self.f32(field)?;
        }
        Ok(out)
    }

    /// `len` bytes, borrowed from the input; the length is checked against
    /// what remains before anything is taken, so a hostile length fails
    /// here.
    #[inline]
    pub fn bytes(&mut self, len: u64, field: &str) -> Result<&'a [u8], Error> {
        match usize::try_from(len) {
            Ok(n) if n <= self.rest.len() => {
                let (head, rest) = self.rest.split_at(n);
                self.rest = rest;
                Ok(head)
            }
            _ => Err(self.short_bytes(len, field)),
        }
    }

    /// A `u16` length, then that many bytes.
    #[inline]
    pub fn bytes_u16(&mut self, field: &str) -> Result<&'a [u8], Error> {
        let len = self.u16(field)?;
        self.bytes(u64::from(len), field)
    }

    /// A `u32` length, then that many bytes. Returns the offset of the
    /// length too, which is where an error about the bytes belongs (a
    /// length that does not fit is reported there).
    #[inline]
    pub fn prefixed_u32(&mut self, field: &str) -> Result<(u64, &'a [u8]), Error> {
        let at = self.offset();
        let len = self.u32(field)?;
        match self.bytes(u64::from(len), field) {
            Ok(b) => Ok((at, b)),
            Err(_) => {
                let w = self.wording;
                Err(Error::malformed(
                    at,
                    format!(
                        "{len} bytes of {field} (length prefix) {} {}{}",
                        w.bytes_in, self.what, w.unit
                    ),
                    format!("only {} bytes left {}", self.rest.len(), w.left),
                ))
            }
        }
    }

    /// A `u64` length, then that many bytes.
    #[inline]
    pub fn bytes_u64(&mut self, field: &str) -> Result<&'a [u8], Error> {
        let len = self.u64(field)?;
        self.bytes(len, field)
    }

    /// A `u32` element count, checked against what remains: each element
    /// takes at least `min_len` bytes, so a hostile count fails here before
    /// the caller allocates anything.
    #[inline]
    pub fn count_u32(&mut self, field: &str, min_len: usize) -> Result<usize, Error> {
        let at = self.offset();
        let n = self.u32(field)?;
        self.check_count(at, u64::from(n), field, min_len)
    }

    /// A `u16` element count, checked like [`Cursor::count_u32`].
    #[inline]
    pub fn count_u16(&mut self, field: &str, min_len: usize) -> Result<usize, Error> {
        let at = self.offset();
        let n = self.u16(field)?;
        self.check_count(at, u64::from(n), field, min_len)
    }

    #[inline]
    fn check_count(&self, at: u64, n: u64, field: &str, min_len: usize) -> Result<usize, Error> {
        let need = n.saturating_mul(min_len as u64);
        if need > self.rest.len() as u64 {
            return Err(Error::malformed(
                at,
                format!(
                    "{field} that fits the {}{} ({n} × at least {min_len} bytes)",
                    self.what, self.wording.unit
                ),
                format!("only {} bytes left {}", self.rest.len(), self.wording.left),
            ));
        }
        // need <= rest.len() and min_len >= 1, so n fits in usize; with
        // min_len == 0 the count is only bounded by usize.
        usize::try_from(n).map_err(|_| self.short_bytes(n, field))
    }

    /// Everything not yet read.
    #[inline]
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.rest)
    }

    /// Fails when bytes are left over: a structure must be exactly its
    /// fields.
    #[inline]
    pub fn end(&self) -> Result<(), Error> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(Error::malformed(
                self.offset(),
                format!(
                    "end of the {}{}{}",
                    self.what, self.wording.unit, self.wording.end_note
                ),
                format!("{} extra bytes", self.rest.len()),
            ))
        }
    }
}

/// Checks a fixed-size structure's length before any field is read.
///
/// ```
/// let e = logcore::cursor::expect_len(&[0; 3], 4, 20, "Time payload").unwrap_err();
/// assert_eq!(e.to_string(), "at byte 20: expected Time payload of exactly 4 bytes, found 3 bytes");
/// ```
#[inline]
pub fn expect_len(payload: &[u8], len: usize, offset: u64, what: &str) -> Result<(), Error> {
    if payload.len() == len {
        Ok(())
    } else {
        Err(Error::malformed(
            offset,
            format!("{what} of exactly {len} bytes"),
            format!("{} bytes", payload.len()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static RECORD: Wording = Wording {
        field_in: "of the",
        bytes_in: "within the",
        unit: " record",
        left: "in the record",
        end_note: " (it is never extended)",
    };

    #[test]
    fn every_width_reads_little_endian() {
        let mut data = vec![0xfe, 0xff];
        data.extend_from_slice(&0x1234u16.to_le_bytes());
        data.extend_from_slice(&(-2i16).to_le_bytes());
        data.extend_from_slice(&0xdead_beefu32.to_le_bytes());
        data.extend_from_slice(&(-3i32).to_le_bytes());
        data.extend_from_slice(&u64::MAX.to_le_bytes());
        data.extend_from_slice(&i64::MIN.to_le_bytes());
        data.extend_from_slice(&1.5f32.to_le_bytes());
        data.extend_from_slice(&(-0.25f64).to_le_bytes());
        data.push(2);
        let mut f = Cursor::new(&data, 0, "x");
        assert_eq!(f.u8("a").unwrap(), 0xfe);
        assert_eq!(f.i8("a").unwrap(), -1);
        assert_eq!(f.u16("a").unwrap(), 0x1234);
        assert_eq!(f.i16("a").unwrap(), -2);
        assert_eq!(f.u32("a").unwrap(), 0xdead_beef);
        assert_eq!(f.i32("a").unwrap(), -3);
        assert_eq!(f.u64("a").unwrap(), u64::MAX);
        assert_eq!(f.i64("a").unwrap(), i64::MIN);
        assert_eq!(f.f32("a").unwrap(), 1.5);
        assert_eq!(f.f64("a").unwrap(), -0.25);
        assert!(f.bool("a").unwrap());
        assert!(f.is_empty());
        assert_eq!(f.offset(), data.len() as u64);
    }

    #[test]
    fn a_failed_read_consumes_nothing() {
        let mut f = Cursor::new(&[1, 2, 3], 7, "x");
        assert!(f.u32("a").is_err());
        assert_eq!((f.offset(), f.remaining()), (7, 3));
        assert_eq!(f.f32s::<1>("v").unwrap_err().offset(), Some(7));
        assert_eq!(f.rest(), &[1, 2, 3]);
        assert_eq!(f.offset(), 10);
    }

    #[test]
    fn lengths_are_checked_before_taking() {
        let data = [0xff, 0xff, 0xff, 0xff, b'x'];
        let mut f = Cursor::new(&data, 10, "test payload");
        assert_eq!(
            f.bytes(u64::MAX, "blob").unwrap_err().to_string(),
            "at byte 10: expected 18446744073709551615 bytes of blob in the test payload, \
             found only 5 bytes left in it"
        );
        let e = f.prefixed_u32("name").unwrap_err();
        assert_eq!(e.offset(), Some(10));
        let mut f = Cursor::with_wording(&data, 10, "Schema", &RECORD);
        assert_eq!(
            f.prefixed_u32("name").unwrap_err().to_string(),
            "at byte 10: expected 4294967295 bytes of name (length prefix) within the Schema \
             record, found only 1 bytes left in the record"
        );
        let mut f = Cursor::new(&[5u8, 0, b'a'], 0, "x");
        assert!(f.bytes_u16("name").is_err());
        let mut f = Cursor::new(&[1u8, 0, b'a', 1, 0, 0, 0, 0, 0, 0, 0, b'b'], 0, "x");
        assert_eq!(f.bytes_u16("a").unwrap(), b"a");
        assert_eq!(f.bytes_u64("b").unwrap(), b"b");
        let mut f = Cursor::new(&[2u8, 0, 0, 0, b'h', b'i'], 30, "x");
        assert_eq!(f.prefixed_u32("s").unwrap(), (30, &b"hi"[..]));
    }

    #[test]
    fn hostile_counts_fail_before_allocating() {
        let data = [0xff, 0xff, 0xff, 0xff, 1, 2, 3];
        let mut f = Cursor::new(&data, 10, "test packet");
        let e = f.count_u32("wheels", 36).unwrap_err();
        assert_eq!(
            e.to_string(),
            "at byte 10: expected wheels that fits the test packet (4294967295 × at least 36 \
             bytes), found only 3 bytes left in it"
        );
        let mut f = Cursor::new(&[3, 0, 1, 2, 3], 0, "x");
        assert_eq!(f.count_u16("n", 1).unwrap(), 3);
    }

    #[test]
    fn left_over_bytes_are_an_error() {
        let mut f = Cursor::new(&[1, 2], 50, "header");
        f.u8("a").unwrap();
        assert_eq!(
            f.end().unwrap_err().to_string(),
            "at byte 51: expected end of the header, found 1 extra bytes"
        );
        assert_eq!(f.what(), "header");
        assert!(expect_len(&[0; 4], 4, 0, "x").is_ok());
    }
}
