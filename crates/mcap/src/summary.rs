//! The footer and the summary section: what an indexed reader starts from.

use std::collections::BTreeMap;

use logcore::error::hex_preview;

use crate::error::{Error, Result};
use crate::parse::{frame_at, parse_record};
use crate::records::*;

/// The summary section of a file, parsed.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The footer.
    pub footer: Footer,
    /// Schemas by id (first occurrence kept), with their data owned.
    pub schemas: BTreeMap<u16, Schema<'static>>,
    /// Channels by id (first occurrence kept).
    pub channels: BTreeMap<u16, Channel>,
    /// The Statistics record, if any.
    pub statistics: Option<Statistics>,
    /// Chunk indexes in the order stored.
    pub chunk_indexes: Vec<ChunkIndex>,
    /// Attachment indexes.
    pub attachment_indexes: Vec<AttachmentIndex>,
    /// Metadata indexes.
    pub metadata_indexes: Vec<MetadataIndex>,
    /// Summary Offset records.
    pub summary_offsets: Vec<SummaryOffset>,
}

/// Offset of the Footer record in a file of `len` bytes.
pub fn footer_offset(len: usize) -> Option<usize> {
    len.checked_sub(FOOTER_RECORD_LEN + MAGIC.len())
}

/// Reads the footer: the closing magic and the 29 bytes before it.
pub fn read_footer(data: &[u8]) -> Result<Footer> {
    let Some(at) = footer_offset(data.len()).filter(|&a| a >= MAGIC.len()) else {
        return Err(Error::truncated(
            data.len() as u64,
            "a Footer record and the closing magic at the end of the file",
            (MAGIC.len() * 2 + FOOTER_RECORD_LEN).saturating_sub(data.len()) as u64,
        ));
    };
    let tail = &data[data.len() - 8..];
    if tail != MAGIC {
        // Both ends carry the magic of another major version: a file this
        // reader does not read, rather than a damaged one.
        if let Some(e) = unsupported_version(tail, 0).filter(|_| data.starts_with(tail)) {
            return Err(e);
        }
        return Err(Error::malformed(
            (data.len() - 8) as u64,
            "the closing MCAP magic",
            hex_preview(tail),
        ));
    }
    let frame = frame_at(data, at, 0, "file")?;
    if frame.opcode != op::FOOTER || frame.len != FOOTER_RECORD_LEN {
        return Err(Error::malformed(
            at as u64,
            "a Footer record (opcode 0x02, length 20) 37 bytes before the end",
            hex_preview(&data[at..at + 9]),
        ));
    }
    match parse_record(frame.opcode, frame.content, at as u64 + 9)? {
        Record::Footer(f) => Ok(f),
        _ => Err(Error::malformed(
            at as u64,
            "a Footer record",
            "another record",
        )),
    }
}

impl Summary {
    /// Reads the footer and the summary section. `Ok(None)` when the file
    /// has no summary (`summary_start` 0); an error when the footer or the
    /// summary is damaged (a caller can then fall back to a linear scan).
    ///
    /// Checks the summary CRC when `validate_crc` and it is non-zero.
    pub fn read(data: &[u8], validate_crc: bool) -> Result<Option<Summary>> {
        let footer = read_footer(data)?;
        let footer_at = footer_offset(data.len()).unwrap_or(0);
        if footer.summary_start == 0 {
            return Ok(None);
        }
        let start = checked_offset(footer.summary_start, footer_at, "summary_start", footer_at)?;
        if start < MAGIC.len() {
            return Err(Error::malformed(
                footer_at as u64 + 9,
                "summary_start after the leading magic",
                footer.summary_start.to_string(),
            ));
        }
        let end = match footer.summary_offset_start {
            0 => footer_at,
            s => checked_offset(s, footer_at, "summary_offset_start", footer_at + 8)?,
        };
        if end < start {
            return Err(Error::malformed(
                footer_at as u64 + 17,
                "summary_offset_start at or after summary_start",
                footer.summary_offset_start.to_string(),
            ));
        }
        if validate_crc && footer.summary_crc != 0 {
            let got = crc32fast::hash(&data[start..footer_at + 25]);
            if got != footer.summary_crc {
                return Err(Error::malformed(
                    footer_at as u64 + 25,
                    format!("summary_crc 0x{:08x}", footer.summary_crc),
                    format!("CRC 0x{got:08x} of the summary"),
                ));
            }
        }
        let mut s = Summary {
            footer,
            ..Summary::default()
        };
        let section = &data[..footer_at];
        let mut pos = start;
        while pos < footer_at {
            let frame = frame_at(section, pos, 0, "summary section")?;
            let content_at = pos as u64 + 9;
            let in_offsets = pos >= end;
            pos += frame.len;
            let record = parse_record(frame.opcode, frame.content, content_at)?;
            match record {
                Record::Schema(r) if !in_offsets && r.id != 0 => {
                    s.schemas.entry(r.id).or_insert_with(|| Schema {
                        id: r.id,
                        name: r.name,
                        encoding: r.encoding,
                        data: r.data.into_owned(),
                    });
                }
                Record::Channel(r) if !in_offsets => {
                    s.channels.entry(r.id).or_insert(r);
                }
                Record::Statistics(r) if !in_offsets => {
                    s.statistics.get_or_insert(r);
                }
                Record::ChunkIndex(r) if !in_offsets => s.chunk_indexes.push(r),
                Record::AttachmentIndex(r) if !in_offsets => s.attachment_indexes.push(r),
                Record::MetadataIndex(r) if !in_offsets => s.metadata_indexes.push(r),
                Record::SummaryOffset(r) => s.summary_offsets.push(r),
                // Unknown and misplaced records are tolerated (spec 7).
                _ => {}
            }
        }
        for ci in &s.chunk_indexes {
            let fits = ci
                .chunk_start_offset
                .checked_add(ci.chunk_length)
                .is_some_and(|e| e <= start as u64 && ci.chunk_start_offset >= 8);
            if !fits {
                return Err(Error::malformed(
                    ci.chunk_start_offset,
                    format!(
                        "a chunk (from a Chunk Index) inside the data section, before byte {start}"
                    ),
                    format!(
                        "{} bytes at byte {}",
                        ci.chunk_length, ci.chunk_start_offset
                    ),
                ));
            }
        }
        Ok(Some(s))
    }
}

fn checked_offset(v: u64, footer_at: usize, what: &str, field_at: usize) -> Result<usize> {
    match usize::try_from(v) {
        Ok(o) if o <= footer_at => Ok(o),
        _ => Err(Error::malformed(
            field_at as u64 + 9,
            format!("{what} at or before the Footer (byte {footer_at})"),
            v.to_string(),
        )),
    }
}
