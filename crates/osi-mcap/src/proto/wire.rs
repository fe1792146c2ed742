//! A small protobuf wire-format walker over borrowed bytes.
//!
//! It reads one message level at a time (tags, varints, fixed-width and
//! length-delimited fields) without building anything, so it is fast,
//! allocation-free and bounded on hostile input: every length is checked
//! against the bytes that are left and nested messages are only entered
//! on request.

use super::ProtoError;

/// One field value as it lies on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WireValue<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1 (little endian).
    Fixed64(u64),
    /// Wire type 2: the payload and the absolute offset where it starts.
    Len(&'a [u8], u64),
    /// Wire type 5 (little endian).
    Fixed32(u32),
}

impl WireValue<'_> {
    /// The protobuf name of the wire type, for messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            WireValue::Varint(_) => "varint",
            WireValue::Fixed64(_) => "fixed64",
            WireValue::Len(..) => "length-delimited",
            WireValue::Fixed32(_) => "fixed32",
        }
    }
}

/// One field: its number, the absolute offset of its tag, and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WireField<'a> {
    pub(crate) number: u32,
    pub(crate) offset: u64,
    pub(crate) value: WireValue<'a>,
}

/// Iterates the fields of one message level. Stops after the first error.
#[derive(Debug, Clone)]
pub(crate) struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

fn wire_err(offset: u64, expected: impl Into<String>) -> ProtoError {
    ProtoError::Wire {
        offset,
        expected: expected.into(),
    }
}

/// Reads a varint at `pos`; returns the value and the position after it.
/// `base` is the absolute offset of `buf[0]`, for errors.
pub(crate) fn read_varint(buf: &[u8], pos: usize, base: u64) -> Result<(u64, usize), ProtoError> {
    let mut value: u64 = 0;
    for i in 0..10 {
        let Some(&byte) = buf.get(pos + i) else {
            return Err(wire_err(
                base + pos as u64,
                "a complete varint (the data ends inside it)",
            ));
        };
        if i == 9 && byte > 1 {
            return Err(wire_err(
                base + pos as u64,
                "a varint that fits 64 bits (its 10th byte is above 1)",
            ));
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, pos + i + 1));
        }
    }
    Err(wire_err(base + pos as u64, "a varint of at most 10 bytes"))
}

impl<'a> Fields<'a> {
    /// The fields of the message `buf`, which starts at absolute offset
    /// `base` of the outermost buffer.
    pub(crate) fn new(buf: &'a [u8], base: u64) -> Self {
        Fields { buf, pos: 0, base }
    }

    fn read(&mut self) -> Result<WireField<'a>, ProtoError> {
        let start = self.pos;
        let offset = self.base + start as u64;
        let (tag, pos) = read_varint(self.buf, start, self.base)?;
        if tag > u64::from(u32::MAX) {
            return Err(wire_err(offset, "a field tag below 2^32"));
        }
        let number = (tag >> 3) as u32;
        if number == 0 {
            return Err(wire_err(offset, "a field number above 0"));
        }
        let at = |p: usize| self.base + p as u64;
        let value = match tag & 7 {
            0 => {
                let (v, p) = read_varint(self.buf, pos, self.base)?;
                self.pos = p;
                WireValue::Varint(v)
            }
            1 => {
                let bytes = self
                    .buf
                    .get(pos..pos.saturating_add(8))
                    .ok_or_else(|| wire_err(at(pos), "8 bytes of a fixed64 field"))?;
                let mut a = [0u8; 8];
                a.copy_from_slice(bytes);
                self.pos = pos + 8;
                WireValue::Fixed64(u64::from_le_bytes(a))
            }
            2 => {
                let (len, p) = read_varint(self.buf, pos, self.base)?;
                let left = self.buf.len() - p;
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&l| l <= left)
                    .ok_or_else(|| {
                        wire_err(
                            at(pos),
                            format!(
                                "a length-delimited field of at most {left} bytes (found length {len})"
                            ),
                        )
                    })?;
                self.pos = p + len;
                WireValue::Len(&self.buf[p..p + len], at(p))
            }
            5 => {
                let bytes = self
                    .buf
                    .get(pos..pos.saturating_add(4))
                    .ok_or_else(|| wire_err(at(pos), "4 bytes of a fixed32 field"))?;
                let mut a = [0u8; 4];
                a.copy_from_slice(bytes);
                self.pos = pos + 4;
                WireValue::Fixed32(u32::from_le_bytes(a))
            }
            t => {
                return Err(wire_err(
                    offset,
                    format!("wire type 0, 1, 2 or 5 (found {t} in field {number})"),
                ));
            }
        };
        Ok(WireField {
            number,
            offset,
            value,
        })
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<WireField<'a>, ProtoError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let r = self.read();
        if r.is_err() {
            self.pos = self.buf.len();
        }
        Some(r)
    }
}

/// Which embedded message to read from a message and which of its varint
/// fields: `field` is the field number in the outer message, `subs` the
/// field numbers inside it (0 = not looked for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Probe {
    pub(crate) field: u32,
    pub(crate) subs: [u32; 3],
}

/// Reads, in one pass over `msg`, the varint sub-fields every probe asks
/// for. Proto semantics: repeated occurrences of an embedded message merge,
/// so the last value of each sub-field wins; absent sub-fields are 0. A
/// probe's result is `None` when its field does not occur at all.
///
/// The whole top level of `msg` is checked; of the nested messages only
/// the probed ones are entered.
pub(crate) fn probe<const N: usize>(
    msg: &[u8],
    probes: [Option<Probe>; N],
) -> Result<[Option<[u64; 3]>; N], ProtoError> {
    let mut out = [None; N];
    for f in Fields::new(msg, 0) {
        let f = f?;
        for (p, slot) in probes.iter().zip(out.iter_mut()) {
            let Some(p) = p.filter(|p| p.field == f.number) else {
                continue;
            };
            let WireValue::Len(sub, base) = f.value else {
                return Err(wire_err(
                    f.offset,
                    format!(
                        "an embedded message in field {} (found a {} value)",
                        f.number,
                        f.value.kind()
                    ),
                ));
            };
            let vals = slot.get_or_insert([0; 3]);
            for g in Fields::new(sub, base) {
                let g = g?;
                for (&n, v) in p.subs.iter().zip(vals.iter_mut()) {
                    if n != 0 && n == g.number {
                        let WireValue::Varint(x) = g.value else {
                            return Err(wire_err(
                                g.offset,
                                format!(
                                    "a varint in field {}.{} (found a {} value)",
                                    f.number,
                                    g.number,
                                    g.value.kind()
                                ),
                            ));
                        };
                        *v = x;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Checks the top level of `msg` and returns the first wire error, if any.
pub(crate) fn check(msg: &[u8]) -> Result<(), ProtoError> {
    Fields::new(msg, 0).try_for_each(|f| f.map(|_| ()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(v: u64, out: &mut Vec<u8>) {
        prost::encoding::encode_varint(v, out);
    }

    fn err_offset(r: Result<impl std::fmt::Debug, ProtoError>) -> u64 {
        match r {
            Err(ProtoError::Wire { offset, .. }) => offset,
            other => panic!("expected a wire error, got {other:?}"),
        }
    }

    #[test]
    fn varints() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut b = vec![];
            varint(v, &mut b);
            assert_eq!(read_varint(&b, 0, 0).unwrap(), (v, b.len()));
        }
        assert_eq!(err_offset(read_varint(&[0x80, 0x80], 0, 7)), 7);
        assert_eq!(err_offset(read_varint(&[], 0, 0)), 0);
        // 10th byte 2: beyond 64 bits.
        let mut b = vec![0xff; 9];
        b.push(0x02);
        assert!(read_varint(&b, 0, 0).is_err());
        let b = vec![0x80; 11];
        assert!(read_varint(&b, 0, 0).is_err());
    }

    #[test]
    fn fields_of_every_wire_type() {
        let b = [
            0x08, 0x96, 0x01, // 1: varint 150
            0x11, 1, 0, 0, 0, 0, 0, 0, 0, // 2: fixed64 1
            0x1a, 0x02, b'h', b'i', // 3: "hi"
            0x25, 2, 0, 0, 0, // 4: fixed32 2
        ];
        let f: Vec<_> = Fields::new(&b, 100).map(Result::unwrap).collect();
        assert_eq!(f.len(), 4);
        assert_eq!(f[0].value, WireValue::Varint(150));
        assert_eq!(f[1].value, WireValue::Fixed64(1));
        assert_eq!(f[2].value, WireValue::Len(b"hi", 114));
        assert_eq!(f[2].offset, 112);
        assert_eq!(f[3].value, WireValue::Fixed32(2));
        assert_eq!(f[3].number, 4);
    }

    #[test]
    fn bad_wire_data_has_offsets() {
        // wire types 3, 4, 6, 7
        for t in [3u8, 4, 6, 7] {
            assert_eq!(err_offset(check(&[0x08, 0x01, 0x08 | t])), 2);
        }
        // field number 0
        assert_eq!(err_offset(check(&[0x00, 0x01])), 0);
        // length beyond the buffer
        assert_eq!(err_offset(check(&[0x0a, 0x05, 1, 2])), 1);
        // huge length
        let mut b = vec![0x0a];
        varint(u64::MAX, &mut b);
        assert_eq!(err_offset(check(&b)), 1);
        // truncated fixed
        assert_eq!(err_offset(check(&[0x09, 1, 2])), 1);
        assert_eq!(err_offset(check(&[0x0d, 1, 2])), 1);
        // tag above u32
        let mut b = vec![];
        varint(1 << 35, &mut b);
        b.push(0);
        assert_eq!(err_offset(check(&b)), 0);
        assert!(check(&[]).is_ok());
    }

    #[test]
    fn probe_merges_and_last_wins() {
        let p = Probe {
            field: 2,
            subs: [1, 2, 0],
        };
        // field 2 {1: 5, 2: 7}, field 3 junk, field 2 {1: 9}
        let b = [
            0x12, 0x04, 0x08, 0x05, 0x10, 0x07, 0x18, 0x01, 0x12, 0x02, 0x08, 0x09,
        ];
        assert_eq!(probe(&b, [Some(p)]).unwrap(), [Some([9, 7, 0])]);
        // absent
        assert_eq!(probe(&[0x18, 0x01], [Some(p)]).unwrap(), [None]);
        // present but empty
        assert_eq!(probe(&[0x12, 0x00], [Some(p)]).unwrap(), [Some([0; 3])]);
        // wrong wire type for the field
        assert_eq!(err_offset(probe(&[0x10, 0x01], [Some(p)])), 0);
        // wrong wire type for a sub-field: offset inside the nested message
        assert_eq!(
            err_offset(probe(
                &[0x18, 0x01, 0x12, 0x05, 0x0d, 0, 0, 0, 0],
                [Some(p)]
            )),
            4
        );
        // truncated fixed32 inside it: offset of its missing payload
        assert_eq!(
            err_offset(probe(&[0x18, 0x01, 0x12, 0x02, 0x0d, 0x00], [Some(p)])),
            5
        );
        // error after the probed field still counts
        assert!(probe(&[0x12, 0x00, 0x0f], [Some(p)]).is_err());
        // two probes at once, one missing
        let q = Probe {
            field: 1,
            subs: [1, 2, 3],
        };
        assert_eq!(
            probe(&b, [Some(q), Some(p), None]).unwrap(),
            [None, Some([9, 7, 0]), None]
        );
    }
}
