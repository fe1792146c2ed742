//! Record framing and Message headers (nom) and record contents (read with
//! [`logcore::cursor::Cursor`]), over `&[u8]`, with absolute offsets in
//! every error.

use std::collections::BTreeMap;

use logcore::Payload;
use logcore::cursor::{Cursor, Wording};
use logcore::error::hex_preview;
use nom::Parser;
use nom::number::complete::{le_u16, le_u32, le_u64, u8 as le_u8};

use crate::error::{Error, Result};
use crate::records::*;

type NomError<'a> = nom::error::Error<&'a [u8]>;

/// How record-content errors read: "4-byte id of the Schema record, found
/// only 2 bytes left in the record". Maps and arrays inside a record are
/// read with a cursor named after the field ("the metadata record").
static WORDING: Wording = Wording {
    field_in: "of the",
    bytes_in: "within the",
    unit: " record",
    left: "in the record",
    end_note: " (it is never extended)",
};

/// A cursor over one record's content, whose first byte sits at absolute
/// offset `base`; `what` names the record (its opcode's name).
#[inline]
fn fields<'a>(content: &'a [u8], base: u64, what: &'static str) -> Cursor<'a> {
    Cursor::with_wording(content, base, what, &WORDING)
}

/// A u32-length-prefixed UTF-8 string.
fn string(f: &mut Cursor<'_>, field: &str) -> Result<String> {
    let (at, b) = f.prefixed_u32(field)?;
    match std::str::from_utf8(b) {
        Ok(s) => Ok(s.to_owned()),
        Err(e) => Err(Error::malformed(
            at + 4 + e.valid_up_to() as u64,
            format!("UTF-8 text in {field} of the {} record", f.what()),
            hex_preview(&b[e.valid_up_to()..]),
        )),
    }
}

/// A map or array: u32 byte length, then entries that must fill it exactly;
/// the returned cursor names the field in its errors.
fn sub<'a>(f: &mut Cursor<'a>, field: &'static str) -> Result<Cursor<'a>> {
    let (at, b) = f.prefixed_u32(field)?;
    Ok(fields(b, at + 4, field))
}

fn string_map(f: &mut Cursor<'_>, field: &'static str) -> Result<BTreeMap<String, String>> {
    let mut m = sub(f, field)?;
    let mut out = BTreeMap::new();
    while !m.is_empty() {
        let k = string(&mut m, "key")?;
        let v = string(&mut m, "value")?;
        out.insert(k, v);
    }
    Ok(out)
}

fn u16_u64_map(f: &mut Cursor<'_>, field: &'static str) -> Result<BTreeMap<u16, u64>> {
    let mut m = sub(f, field)?;
    let mut out = BTreeMap::new();
    while !m.is_empty() {
        let k = m.u16("key")?;
        let v = m.u64("value")?;
        out.insert(k, v);
    }
    Ok(out)
}

fn time_offset_array(f: &mut Cursor<'_>, field: &'static str) -> Result<Vec<(u64, u64)>> {
    let mut m = sub(f, field)?;
    if m.remaining() % 16 != 0 {
        return Err(Error::malformed(
            m.offset(),
            format!("{field} of 16-byte entries"),
            format!("{} bytes", m.remaining()),
        ));
    }
    let mut out = Vec::with_capacity(m.remaining() / 16);
    while !m.is_empty() {
        out.push((m.u64("log_time")?, m.u64("offset")?));
    }
    Ok(out)
}

/// A record's framing, as found at some position.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame<'a> {
    pub(crate) opcode: u8,
    pub(crate) content: &'a [u8],
    /// Total size with the 9-byte framing.
    pub(crate) len: usize,
}

/// Reads the framing of the record at `pos` of `buf` (`base` is the
/// absolute offset of `buf[0]`, `what` names the area for messages).
/// A record that runs past the end of `buf` is a truncation.
pub(crate) fn frame_at<'a>(buf: &'a [u8], pos: usize, base: u64, what: &str) -> Result<Frame<'a>> {
    let rest = buf.get(pos..).unwrap_or_default();
    let at = base + pos as u64;
    let parsed: nom::IResult<&[u8], (u8, u64), NomError<'_>> = (le_u8, le_u64).parse(rest);
    let Ok((after, (opcode, len))) = parsed else {
        return Err(Error::truncated(
            at,
            format!("a 9-byte record header in the {what}"),
            (RECORD_HEADER_LEN - rest.len()) as u64,
        ));
    };
    match usize::try_from(len) {
        Ok(n) if n <= after.len() => Ok(Frame {
            opcode,
            content: &after[..n],
            len: RECORD_HEADER_LEN + n,
        }),
        _ => Err(Error::truncated(
            at,
            format!(
                "{} record of {len} content bytes in the {what}",
                opcode_name(opcode)
            ),
            len.saturating_sub(after.len() as u64),
        )),
    }
}

/// Parses a record's content. `offset` is the absolute offset of the
/// content's first byte.
pub fn parse_record(opcode: u8, content: &[u8], offset: u64) -> Result<Record<'_>> {
    let mut f = fields(content, offset, opcode_name(opcode));
    let r = match opcode {
        op::HEADER => Record::Header(Header {
            profile: string(&mut f, "profile")?,
            library: string(&mut f, "library")?,
        }),
        op::FOOTER => {
            let r = Footer {
                summary_start: f.u64("summary_start")?,
                summary_offset_start: f.u64("summary_offset_start")?,
                summary_crc: f.u32("summary_crc")?,
            };
            f.end()?;
            Record::Footer(r)
        }
        op::SCHEMA => Record::Schema(Schema {
            id: f.u16("id")?,
            name: string(&mut f, "name")?,
            encoding: string(&mut f, "encoding")?,
            data: Payload::Borrowed(f.prefixed_u32("data")?.1),
        }),
        op::CHANNEL => Record::Channel(Channel {
            id: f.u16("id")?,
            schema_id: f.u16("schema_id")?,
            topic: string(&mut f, "topic")?,
            message_encoding: string(&mut f, "message_encoding")?,
            metadata: string_map(&mut f, "metadata")?,
        }),
        op::MESSAGE => Record::Message(parse_message(content, offset)?),
        op::CHUNK => Record::Chunk(Chunk {
            message_start_time: f.u64("message_start_time")?,
            message_end_time: f.u64("message_end_time")?,
            uncompressed_size: f.u64("uncompressed_size")?,
            uncompressed_crc: f.u32("uncompressed_crc")?,
            compression: string(&mut f, "compression")?,
            records: Payload::Borrowed(f.bytes_u64("records")?),
        }),
        op::MESSAGE_INDEX => Record::MessageIndex(MessageIndex {
            channel_id: f.u16("channel_id")?,
            records: time_offset_array(&mut f, "records")?,
        }),
        op::CHUNK_INDEX => Record::ChunkIndex(ChunkIndex {
            message_start_time: f.u64("message_start_time")?,
            message_end_time: f.u64("message_end_time")?,
            chunk_start_offset: f.u64("chunk_start_offset")?,
            chunk_length: f.u64("chunk_length")?,
            message_index_offsets: u16_u64_map(&mut f, "message_index_offsets")?,
            message_index_length: f.u64("message_index_length")?,
            compression: string(&mut f, "compression")?,
            compressed_size: f.u64("compressed_size")?,
            uncompressed_size: f.u64("uncompressed_size")?,
        }),
        op::ATTACHMENT => Record::Attachment(Attachment {
            log_time: f.u64("log_time")?,
            create_time: f.u64("create_time")?,
            name: string(&mut f, "name")?,
            media_type: string(&mut f, "media_type")?,
            data: Payload::Borrowed(f.bytes_u64("data")?),
            crc: f.u32("crc")?,
        }),
        op::ATTACHMENT_INDEX => Record::AttachmentIndex(AttachmentIndex {
            offset: f.u64("offset")?,
            length: f.u64("length")?,
            log_time: f.u64("log_time")?,
            create_time: f.u64("create_time")?,
            data_size: f.u64("data_size")?,
            name: string(&mut f, "name")?,
            media_type: string(&mut f, "media_type")?,
        }),
        op::STATISTICS => Record::Statistics(Statistics {
            message_count: f.u64("message_count")?,
            schema_count: f.u16("schema_count")?,
            channel_count: f.u32("channel_count")?,
            attachment_count: f.u32("attachment_count")?,
            metadata_count: f.u32("metadata_count")?,
            chunk_count: f.u32("chunk_count")?,
            message_start_time: f.u64("message_start_time")?,
            message_end_time: f.u64("message_end_time")?,
            channel_message_counts: u16_u64_map(&mut f, "channel_message_counts")?,
        }),
        op::METADATA => Record::Metadata(Metadata {
            name: string(&mut f, "name")?,
            metadata: string_map(&mut f, "metadata")?,
        }),
        op::METADATA_INDEX => Record::MetadataIndex(MetadataIndex {
            offset: f.u64("offset")?,
            length: f.u64("length")?,
            name: string(&mut f, "name")?,
        }),
        op::SUMMARY_OFFSET => Record::SummaryOffset(SummaryOffset {
            group_opcode: f.u8("group_opcode")?,
            group_start: f.u64("group_start")?,
            group_length: f.u64("group_length")?,
        }),
        op::DATA_END => {
            let r = DataEnd {
                data_section_crc: f.u32("data_section_crc")?,
            };
            f.end()?;
            Record::DataEnd(r)
        }
        0 => {
            return Err(Error::malformed(
                offset.saturating_sub(9),
                "a record opcode (0x00 is never used)",
                "opcode 0x00",
            ));
        }
        _ => Record::Unknown {
            opcode,
            data: Payload::Borrowed(f.rest()),
        },
    };
    Ok(r)
}

/// Parses a Message record's content (the hot path: no allocation).
pub fn parse_message(content: &[u8], offset: u64) -> Result<Message<'_>> {
    let parsed: nom::IResult<&[u8], (u16, u32, u64, u64), NomError<'_>> =
        (le_u16, le_u32, le_u64, le_u64).parse(content);
    match parsed {
        Ok((data, (channel_id, sequence, log_time, publish_time))) => Ok(Message {
            channel_id,
            sequence,
            log_time,
            publish_time,
            data: Payload::Borrowed(data),
        }),
        Err(_) => Err(Error::malformed(
            offset,
            "Message record of at least 22 bytes (channel_id, sequence, log_time, publish_time)",
            format!("{} bytes", content.len()),
        )),
    }
}

/// The Attachment CRC's scope: the content from `log_time` to the end of
/// `data` (padding after the crc field is outside it).
pub(crate) fn attachment_crc_scope<'c>(content: &'c [u8], a: &Attachment<'_>) -> &'c [u8] {
    let len = 16 + 4 + a.name.len() + 4 + a.media_type.len() + 8 + a.data.len();
    &content[..len.min(content.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_bytes_are_ignored_on_extensible_records() {
        let mut c = Vec::new();
        c.extend_from_slice(&3u32.to_le_bytes());
        c.extend_from_slice(b"ros");
        c.extend_from_slice(&1u32.to_le_bytes());
        c.extend_from_slice(b"x");
        c.extend_from_slice(&[1, 0xff, 0xff]);
        let r = parse_record(op::HEADER, &c, 17).unwrap();
        assert_eq!(
            r,
            Record::Header(Header {
                profile: "ros".into(),
                library: "x".into()
            })
        );
    }

    #[test]
    fn lengths_are_checked_before_taking() {
        let mut c = Vec::new();
        c.extend_from_slice(&u32::MAX.to_le_bytes());
        let e = parse_record(op::HEADER, &c, 100).unwrap_err();
        assert!(e.to_string().contains("4294967295 bytes of profile"), "{e}");
        assert_eq!(e.offset(), Some(100));
        let e = parse_message(&[0; 21], 50).unwrap_err();
        assert_eq!(e.offset(), Some(50));
        let e = frame_at(&[5, 0xff, 0, 0, 0, 0, 0, 0, 0, 1], 0, 8, "data section").unwrap_err();
        assert!(e.is_truncated());
        assert_eq!(e.offset(), Some(8));
    }

    #[test]
    fn footer_and_data_end_are_never_extended() {
        let e = parse_record(op::DATA_END, &[0, 0, 0, 0, 1], 9).unwrap_err();
        assert_eq!(e.offset(), Some(13));
        assert_eq!(
            parse_record(op::DATA_END, &[1, 0, 0, 0], 9).unwrap(),
            Record::DataEnd(DataEnd {
                data_section_crc: 1
            })
        );
    }

    #[test]
    fn errors_name_the_field_the_record_and_the_offset() {
        let msg = |op: u8, c: &[u8]| parse_record(op, c, 100).unwrap_err().to_string();
        assert_eq!(
            msg(op::SCHEMA, &[1]),
            "at byte 100: expected 2-byte id of the Schema record, \
             found only 1 bytes left in the record"
        );
        assert_eq!(
            msg(op::SCHEMA, &[1, 0, 9, 0, 0, 0, b'a']),
            "at byte 102: expected 9 bytes of name (length prefix) within the Schema record, \
             found only 1 bytes left in the record"
        );
        let mut chunk = vec![0u8; 28];
        chunk.extend_from_slice(&0u32.to_le_bytes());
        chunk.extend_from_slice(&5u64.to_le_bytes());
        assert_eq!(
            msg(op::CHUNK, &chunk),
            "at byte 140: expected 5 bytes of records within the Chunk record, \
             found only 0 bytes left in the record"
        );
        // Inside a map, the map's field names the structure.
        let mut meta = vec![1, 0, 0, 0, b'm'];
        meta.extend_from_slice(&12u32.to_le_bytes());
        meta.extend_from_slice(&[1, 0, 0, 0, b'k', 3, 0, 0, 0, b'v', 0xff, 0]);
        assert_eq!(
            msg(op::METADATA, &meta),
            "at byte 119: expected UTF-8 text in value of the metadata record, found ff 00"
        );
        meta.truncate(5);
        meta.extend_from_slice(&2u32.to_le_bytes());
        meta.extend_from_slice(&[1, 0]);
        assert_eq!(
            msg(op::METADATA, &meta),
            "at byte 109: expected 4-byte key of the metadata record, \
             found only 2 bytes left in the record"
        );
        assert_eq!(
            msg(op::FOOTER, &[0; 21]),
            "at byte 120: expected end of the Footer record (it is never extended), \
             found 1 extra bytes"
        );
    }

    #[test]
    fn maps_must_end_on_an_entry_boundary() {
        let mut c = vec![0u8; 32];
        c.extend_from_slice(&5u32.to_le_bytes());
        c.extend_from_slice(&[1, 0, 2, 0, 0]);
        c.extend_from_slice(&[0; 8]);
        let e = parse_record(op::CHUNK_INDEX, &c, 0).unwrap_err();
        assert!(e.to_string().contains("message_index_offsets"), "{e}");
    }
}
