//! Serialising records: the inverse of [`parse`](crate::parse).

use std::collections::BTreeMap;

use crate::records::*;

/// Appends the content encoders the records need.
pub(crate) struct Enc(pub(crate) Vec<u8>);

impl Enc {
    pub(crate) fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    pub(crate) fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn bytes32(&mut self, b: &[u8]) -> &mut Self {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
        self
    }
    pub(crate) fn string(&mut self, s: &str) -> &mut Self {
        self.bytes32(s.as_bytes())
    }
    pub(crate) fn string_map(&mut self, m: &BTreeMap<String, String>) -> &mut Self {
        let mut inner = Enc(Vec::new());
        for (k, v) in m {
            inner.string(k).string(v);
        }
        self.bytes32(&inner.0)
    }
    pub(crate) fn u16_u64_map(&mut self, m: &BTreeMap<u16, u64>) -> &mut Self {
        let mut inner = Enc(Vec::new());
        for (k, v) in m {
            inner.u16(*k).u64(*v);
        }
        self.bytes32(&inner.0)
    }
}

/// The framed bytes of a record.
pub fn encode_record(r: &Record<'_>) -> Vec<u8> {
    let mut e = Enc(Vec::new());
    match r {
        Record::Header(h) => {
            e.string(&h.profile).string(&h.library);
        }
        Record::Footer(f) => {
            e.u64(f.summary_start)
                .u64(f.summary_offset_start)
                .u32(f.summary_crc);
        }
        Record::Schema(s) => {
            e.u16(s.id)
                .string(&s.name)
                .string(&s.encoding)
                .bytes32(&s.data);
        }
        Record::Channel(c) => {
            e.u16(c.id)
                .u16(c.schema_id)
                .string(&c.topic)
                .string(&c.message_encoding)
                .string_map(&c.metadata);
        }
        Record::Message(m) => {
            e.u16(m.channel_id)
                .u32(m.sequence)
                .u64(m.log_time)
                .u64(m.publish_time);
            e.0.extend_from_slice(&m.data);
        }
        Record::Chunk(c) => {
            e.u64(c.message_start_time)
                .u64(c.message_end_time)
                .u64(c.uncompressed_size)
                .u32(c.uncompressed_crc)
                .string(&c.compression)
                .u64(c.records.len() as u64);
            e.0.extend_from_slice(&c.records);
        }
        Record::MessageIndex(m) => {
            e.u16(m.channel_id).u32((m.records.len() * 16) as u32);
            for (t, o) in &m.records {
                e.u64(*t).u64(*o);
            }
        }
        Record::ChunkIndex(c) => {
            e.u64(c.message_start_time)
                .u64(c.message_end_time)
                .u64(c.chunk_start_offset)
                .u64(c.chunk_length)
                .u16_u64_map(&c.message_index_offsets)
                .u64(c.message_index_length)
                .string(&c.compression)
                .u64(c.compressed_size)
                .u64(c.uncompressed_size);
        }
        Record::Attachment(a) => {
            e.u64(a.log_time)
                .u64(a.create_time)
                .string(&a.name)
                .string(&a.media_type)
                .u64(a.data.len() as u64);
            e.0.extend_from_slice(&a.data);
            e.u32(a.crc);
        }
        Record::AttachmentIndex(a) => {
            e.u64(a.offset)
                .u64(a.length)
                .u64(a.log_time)
                .u64(a.create_time)
                .u64(a.data_size)
                .string(&a.name)
                .string(&a.media_type);
        }
        Record::Statistics(s) => {
            e.u64(s.message_count)
                .u16(s.schema_count)
                .u32(s.channel_count)
                .u32(s.attachment_count)
                .u32(s.metadata_count)
                .u32(s.chunk_count)
                .u64(s.message_start_time)
                .u64(s.message_end_time)
                .u16_u64_map(&s.channel_message_counts);
        }
        Record::Metadata(m) => {
            e.string(&m.name).string_map(&m.metadata);
        }
        Record::MetadataIndex(m) => {
            e.u64(m.offset).u64(m.length).string(&m.name);
        }
        Record::SummaryOffset(s) => {
            e.u8(s.group_opcode).u64(s.group_start).u64(s.group_length);
        }
        Record::DataEnd(d) => {
            e.u32(d.data_section_crc);
        }
        Record::Unknown { data, .. } => e.0.extend_from_slice(data),
    }
    frame(r.opcode(), &e.0)
}

fn frame(opcode: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() + RECORD_HEADER_LEN);
    out.push(opcode);
    out.extend_from_slice(&(content.len() as u64).to_le_bytes());
    out.extend_from_slice(content);
    out
}

pub(crate) fn message_header(
    channel: u16,
    sequence: u32,
    log_time: u64,
    publish_time: u64,
    len: usize,
) -> [u8; 31] {
    let mut h = [0u8; 31];
    h[0] = op::MESSAGE;
    h[1..9].copy_from_slice(&(22 + len as u64).to_le_bytes());
    h[9..11].copy_from_slice(&channel.to_le_bytes());
    h[11..15].copy_from_slice(&sequence.to_le_bytes());
    h[15..23].copy_from_slice(&log_time.to_le_bytes());
    h[23..31].copy_from_slice(&publish_time.to_le_bytes());
    h
}
