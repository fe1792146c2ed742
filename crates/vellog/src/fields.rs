//! Reading packed little-endian fields with nom, keeping track of the
//! absolute file offset so every error can name where it happened.

use logcore::FormatError;
use nom::Parser;
use nom::number::complete::{le_f32, le_f64, le_i32, le_u16, le_u32};

use crate::error::{Error, Result};

type NomError<'a> = nom::error::Error<&'a [u8]>;

/// A cursor over one structure (a header, a payload) whose first byte sits
/// at absolute offset `base` in the file.
#[derive(Debug, Clone)]
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
    total: usize,
    base: u64,
    what: &'static str,
}

impl<'a> Fields<'a> {
    /// `what` names the structure in error messages, e.g. `"GPSDataM v100 payload"`.
    pub(crate) fn new(input: &'a [u8], base: u64, what: &'static str) -> Self {
        Fields {
            rest: input,
            total: input.len(),
            base,
            what,
        }
    }

    /// Absolute offset of the next unread byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + (self.total - self.rest.len()) as u64
    }

    /// Bytes not yet read.
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    fn short(&self, field: &str, size: usize) -> Error {
        Error::malformed(
            self.offset(),
            format!("{size}-byte {field} of the {}", self.what),
            format!("only {} bytes left in it", self.rest.len()),
        )
    }

    fn run<T>(
        &mut self,
        field: &str,
        size: usize,
        mut parser: impl Parser<&'a [u8], Output = T, Error = NomError<'a>>,
    ) -> Result<T> {
        match parser.parse(self.rest) {
            Ok((rest, v)) => {
                self.rest = rest;
                Ok(v)
            }
            Err(_) => Err(self.short(field, size)),
        }
    }

    pub(crate) fn u16(&mut self, field: &str) -> Result<u16> {
        self.run(field, 2, le_u16)
    }
    pub(crate) fn u32(&mut self, field: &str) -> Result<u32> {
        self.run(field, 4, le_u32)
    }
    pub(crate) fn i32(&mut self, field: &str) -> Result<i32> {
        self.run(field, 4, le_i32)
    }
    pub(crate) fn f32(&mut self, field: &str) -> Result<f32> {
        self.run(field, 4, le_f32)
    }
    pub(crate) fn f64(&mut self, field: &str) -> Result<f64> {
        self.run(field, 8, le_f64)
    }
    pub(crate) fn u8(&mut self, field: &str) -> Result<u8> {
        self.run(field, 1, nom::number::complete::u8)
    }

    /// `len` bytes, checked against what remains before anything is taken.
    pub(crate) fn bytes(&mut self, len: u64, field: &str) -> Result<&'a [u8]> {
        match usize::try_from(len) {
            Ok(n) if n <= self.rest.len() => self.run(field, n, nom::bytes::complete::take(n)),
            _ => Err(Error::malformed(
                self.offset(),
                format!("{len} bytes of {field} in the {}", self.what),
                format!("only {} bytes left in it", self.rest.len()),
            )),
        }
    }

    /// A VEL string: u32 length, then that many bytes.
    pub(crate) fn string(&mut self, field: &str) -> Result<&'a [u8]> {
        let at = self.offset();
        let len = self.u32(field)?;
        self.bytes(u64::from(len), field).map_err(|_| {
            Error::malformed(
                at,
                format!(
                    "{field} of {len} bytes (length prefix) within the {}",
                    self.what
                ),
                format!("only {} bytes left in it", self.rest.len()),
            )
        })
    }

    /// Everything not yet read.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.rest)
    }

    /// Fails when bytes are left over: a payload must be exactly its fields.
    pub(crate) fn end(&self) -> Result<()> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(Error::malformed(
                self.offset(),
                format!("end of the {}", self.what),
                format!("{} extra bytes", self.rest.len()),
            ))
        }
    }
}

/// Checks a fixed-size payload's length before any field is read.
pub(crate) fn expect_len(payload: &[u8], len: usize, offset: u64, what: &str) -> Result<()> {
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

    #[test]
    fn offsets_are_absolute() {
        let data = [1u8, 0, 0, 0, 2, 0];
        let mut f = Fields::new(&data, 100, "test payload");
        assert_eq!(f.u32("a").unwrap(), 1);
        assert_eq!(f.offset(), 104);
        let e = f.u32("b").unwrap_err();
        assert_eq!(e.offset(), Some(104));
        assert!(
            e.to_string().contains("4-byte b of the test payload"),
            "{e}"
        );
        assert_eq!(f.u16("c").unwrap(), 2);
        f.end().unwrap();
    }

    #[test]
    fn strings_check_length_first() {
        let data = [0xff, 0xff, 0xff, 0xff, b'x'];
        let mut f = Fields::new(&data, 10, "test payload");
        let e = f.string("name").unwrap_err();
        assert_eq!(e.offset(), Some(10));
        assert!(e.to_string().contains("4294967295 bytes"), "{e}");
        let mut f = Fields::new(&data, 0, "x");
        assert!(f.bytes(u64::MAX, "blob").is_err());
    }
}
