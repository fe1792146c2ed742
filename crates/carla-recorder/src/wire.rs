//! The CARLA side of the byte layout: little-endian field writers (`Put`),
//! the wording of read errors, and reading a `vec3` in the file's width
//! through the shared [`Cursor`].

use logcore::cursor::{Cursor, Wording};

use crate::error::{Error, Result};
use crate::layout::{Vec3, VectorWidth};

/// How read errors are worded: "4-byte id in the Position packet", "end of
/// the Position packet (declared size = bytes parsed)".
pub(crate) static WORDING: Wording = Wording {
    field_in: "in the",
    bytes_in: "in the",
    unit: "",
    left: "in it",
    end_note: " (declared size = bytes parsed)",
};

/// A cursor over a packet payload (or the header) whose first byte sits at
/// absolute offset `base` in the file.
pub(crate) fn fields<'a>(input: &'a [u8], base: u64, what: &'static str) -> Cursor<'a> {
    Cursor::with_wording(input, base, what, &WORDING)
}

/// Reading CARLA's compound fields from the shared cursor.
pub(crate) trait ReadFields {
    /// A `vec3` in the file's width.
    fn vec3(&mut self, width: VectorWidth, field: &str) -> Result<Vec3>;
}

impl ReadFields for Cursor<'_> {
    #[inline]
    fn vec3(&mut self, width: VectorWidth, field: &str) -> Result<Vec3> {
        if self.remaining() < width.vec3_len() {
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
    fn errors_use_the_packet_wording() {
        let data = [1u8, 0, 0, 0, 2, 0];
        let mut f = fields(&data, 100, "test packet");
        assert_eq!(f.u32("a").unwrap(), 1);
        assert_eq!(
            f.u32("b").unwrap_err().to_string(),
            "at byte 104: expected 4-byte b in the test packet, found only 2 bytes left in it"
        );
        let mut f = fields(&data, 0, "test packet");
        f.u8("a").unwrap();
        assert_eq!(
            f.end().unwrap_err().to_string(),
            "at byte 1: expected end of the test packet (declared size = bytes parsed), \
             found 5 extra bytes"
        );
    }

    #[test]
    fn vectors_in_both_widths() {
        let mut out = Vec::new();
        let v = Vec3::new(1.5, -2.0, 1e10);
        out.put_vec3(v, VectorWidth::F64);
        out.put_vec3(v, VectorWidth::F32);
        let mut f = fields(&out, 0, "x");
        assert_eq!(f.vec3(VectorWidth::F64, "v").unwrap(), v);
        assert_eq!(f.vec3(VectorWidth::F32, "v").unwrap(), v);
        f.end().unwrap();
        assert_eq!(
            fields(&out[..20], 7, "x")
                .vec3(VectorWidth::F64, "v")
                .unwrap_err()
                .offset(),
            Some(7)
        );
    }
}
