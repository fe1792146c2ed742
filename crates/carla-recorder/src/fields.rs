//! Reading and writing packed little-endian fields. Reading goes through
//! nom and tracks the absolute file offset so every error can name where it
//! happened; writing appends to a `Vec<u8>`.

use nom::Parser;
use nom::number::complete::{le_f32, le_f64, le_i32, le_u16, le_u32, le_u64};

use crate::error::{Error, Result};
use crate::layout::{Vec3, VectorWidth};

type NomError<'a> = nom::error::Error<&'a [u8]>;

/// A cursor over one packet payload (or the header) whose first byte sits
/// at absolute offset `base` in the file.
#[derive(Debug, Clone)]
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
    total: usize,
    base: u64,
    what: &'static str,
}

impl<'a> Fields<'a> {
    /// `what` names the structure in error messages, e.g. `"Position packet"`.
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
            format!("{size}-byte {field} in the {}", self.what),
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

    pub(crate) fn u8(&mut self, field: &str) -> Result<u8> {
        self.run(field, 1, nom::number::complete::u8)
    }
    pub(crate) fn bool(&mut self, field: &str) -> Result<bool> {
        Ok(self.u8(field)? != 0)
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
    pub(crate) fn u64(&mut self, field: &str) -> Result<u64> {
        self.run(field, 8, le_u64)
    }
    pub(crate) fn i64(&mut self, field: &str) -> Result<i64> {
        self.run(field, 8, nom::number::complete::le_i64)
    }
    pub(crate) fn f32(&mut self, field: &str) -> Result<f32> {
        self.run(field, 4, le_f32)
    }
    pub(crate) fn f64(&mut self, field: &str) -> Result<f64> {
        self.run(field, 8, le_f64)
    }

    /// `N` consecutive `f32`.
    pub(crate) fn f32s<const N: usize>(&mut self, field: &str) -> Result<[f32; N]> {
        if self.rest.len() < 4 * N {
            return Err(self.short(field, 4 * N));
        }
        let mut out = [0f32; N];
        for v in &mut out {
            *v = self.f32(field)?;
        }
        Ok(out)
    }

    /// A `vec3` in the file's width.
    pub(crate) fn vec3(&mut self, width: VectorWidth, field: &str) -> Result<Vec3> {
        if self.rest.len() < width.vec3_len() {
            return Err(self.short(field, width.vec3_len()));
        }
        Ok(match width {
            VectorWidth::F32 => {
                let [x, y, z] = self.f32s::<3>(field)?;
                Vec3::new(f64::from(x), f64::from(y), f64::from(z))
            }
            VectorWidth::F64 => Vec3::new(self.f64(field)?, self.f64(field)?, self.f64(field)?),
        })
    }

    /// `len` bytes, checked against what remains before anything is taken.
    pub(crate) fn bytes(&mut self, len: usize, field: &str) -> Result<&'a [u8]> {
        if len > self.rest.len() {
            return Err(Error::malformed(
                self.offset(),
                format!("{len} bytes of {field} in the {}", self.what),
                format!("only {} bytes left in it", self.rest.len()),
            ));
        }
        self.run(field, len, nom::bytes::complete::take(len))
    }

    /// A CARLA string: u16 length, then that many bytes (spec §1.1).
    pub(crate) fn string(&mut self, field: &str) -> Result<&'a [u8]> {
        let len = self.u16(field)?;
        self.bytes(usize::from(len), field)
    }

    /// A `u32` element count, checked against what remains: each element
    /// takes at least `min_len` bytes, so a hostile count fails here
    /// before anything is allocated.
    pub(crate) fn count_u32(&mut self, field: &str, min_len: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.u32(field)?;
        self.check_count(at, u64::from(n), field, min_len)
    }

    /// A `u16` element count, checked like [`Fields::count_u32`].
    pub(crate) fn count_u16(&mut self, field: &str, min_len: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.u16(field)?;
        self.check_count(at, u64::from(n), field, min_len)
    }

    fn check_count(&self, at: u64, n: u64, field: &str, min_len: usize) -> Result<usize> {
        let need = n.saturating_mul(min_len as u64);
        if need > self.rest.len() as u64 {
            return Err(Error::malformed(
                at,
                format!(
                    "{field} that fits the {} ({n} × at least {min_len} bytes)",
                    self.what
                ),
                format!("only {} bytes left in it", self.rest.len()),
            ));
        }
        // n * min_len <= rest.len(), so n fits in usize (min_len >= 1).
        Ok(n as usize)
    }

    /// Fails when bytes are left over: a packet's declared size must equal
    /// the bytes its fields take.
    pub(crate) fn end(&self) -> Result<()> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(Error::malformed(
                self.offset(),
                format!("end of the {} (declared size = bytes parsed)", self.what),
                format!("{} extra bytes", self.rest.len()),
            ))
        }
    }
}

/// Little-endian field writers.
pub(crate) trait Put {
    fn put_u8(&mut self, v: u8);
    fn put_bool(&mut self, v: bool);
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_i32(&mut self, v: i32);
    fn put_u64(&mut self, v: u64);
    fn put_i64(&mut self, v: i64);
    fn put_f32(&mut self, v: f32);
    fn put_f64(&mut self, v: f64);
    fn put_vec3(&mut self, v: Vec3, width: VectorWidth);
    fn put_string(&mut self, s: &[u8]) -> Result<()>;
}

impl Put for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_bool(&mut self, v: bool) {
        self.push(u8::from(v));
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i64(&mut self, v: i64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, v: f32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f64(&mut self, v: f64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_vec3(&mut self, v: Vec3, width: VectorWidth) {
        match width {
            VectorWidth::F32 => {
                self.put_f32(v.x as f32);
                self.put_f32(v.y as f32);
                self.put_f32(v.z as f32);
            }
            VectorWidth::F64 => {
                self.put_f64(v.x);
                self.put_f64(v.y);
                self.put_f64(v.z);
            }
        }
    }
    fn put_string(&mut self, s: &[u8]) -> Result<()> {
        let len = u16::try_from(s.len()).map_err(|_| {
            Error::InvalidArgument(format!(
                "a CARLA string holds at most 65535 bytes, this one has {}",
                s.len()
            ))
        })?;
        self.put_u16(len);
        self.extend_from_slice(s);
        Ok(())
    }
}

/// Writes a u16 record count, refusing lists the format cannot hold.
pub(crate) fn put_count_u16(out: &mut Vec<u8>, n: usize, what: &str) -> Result<()> {
    let n = u16::try_from(n).map_err(|_| {
        Error::InvalidArgument(format!(
            "a {what} list holds at most 65535 records, this one has {n}"
        ))
    })?;
    out.put_u16(n);
    Ok(())
}

/// Writes a u32 element count.
pub(crate) fn put_count_u32(out: &mut Vec<u8>, n: usize, what: &str) -> Result<()> {
    let n = u32::try_from(n).map_err(|_| {
        Error::InvalidArgument(format!("a {what} list holds at most 2^32-1 elements"))
    })?;
    out.put_u32(n);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_absolute() {
        let data = [1u8, 0, 0, 0, 2, 0];
        let mut f = Fields::new(&data, 100, "test packet");
        assert_eq!(f.u32("a").unwrap(), 1);
        assert_eq!(f.offset(), 104);
        let e = f.u32("b").unwrap_err();
        assert_eq!(e.offset(), Some(104));
        assert!(e.to_string().contains("4-byte b in the test packet"), "{e}");
        assert_eq!(f.u16("c").unwrap(), 2);
        f.end().unwrap();
    }

    #[test]
    fn hostile_counts_fail_before_allocating() {
        let data = [0xff, 0xff, 0xff, 0xff, 1, 2, 3];
        let mut f = Fields::new(&data, 10, "test packet");
        let e = f.count_u32("wheels", 36).unwrap_err();
        assert_eq!(e.offset(), Some(10));
        assert!(e.to_string().contains("4294967295 × at least 36"), "{e}");
        let mut f = Fields::new(&[5u8, 0, b'a'], 0, "x");
        assert!(f.string("name").is_err());
    }

    #[test]
    fn vectors_in_both_widths() {
        let mut out = Vec::new();
        let v = Vec3::new(1.5, -2.0, 1e10);
        out.put_vec3(v, VectorWidth::F64);
        out.put_vec3(v, VectorWidth::F32);
        let mut f = Fields::new(&out, 0, "x");
        assert_eq!(f.vec3(VectorWidth::F64, "v").unwrap(), v);
        assert_eq!(f.vec3(VectorWidth::F32, "v").unwrap(), v);
        f.end().unwrap();
    }
}
