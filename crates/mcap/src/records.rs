//! The records of MCAP major version 0, one type per opcode, and the
//! [`Record`] enum that mirrors the spec's opcode table one to one.
//!
//! Byte fields are [`Payload`]s: borrowed from the file where the record
//! lies uncompressed (zero copy), or a shared slice of a decompressed chunk.

use std::collections::BTreeMap;

use logcore::Payload;

use crate::error::Error;

/// The 8 bytes at both ends of an MCAP file (major version `0`).
pub const MAGIC: &[u8; 8] = b"\x89MCAP0\r\n";

/// True when `first_bytes` start with an MCAP magic of any major version:
/// `\x89MCAP`, an ASCII digit, `\r\n`. Only major version `0` ([`MAGIC`])
/// is read; the readers refuse the others as
/// [`logcore::Error::Unsupported`].
///
/// ```
/// assert!(mcapfile::probe(b"\x89MCAP0\r\n"));
/// assert!(mcapfile::probe(b"\x89MCAP1\r\n"));
/// assert!(!mcapfile::probe(b"\x89MCAPx\r\n"));
/// assert!(!mcapfile::probe(b"\x89MCAP"));
/// ```
pub fn probe(first_bytes: &[u8]) -> bool {
    matches!(
        first_bytes,
        [0x89, b'M', b'C', b'A', b'P', major, b'\r', b'\n', ..] if major.is_ascii_digit()
    )
}

/// The error for `magic` (8 bytes at offset `at`) when it is the magic of
/// an MCAP major version other than 0; `None` for any other bytes.
pub(crate) fn unsupported_version(magic: &[u8], at: u64) -> Option<Error> {
    let major = *magic.get(5)?;
    (probe(magic) && major != MAGIC[5]).then(|| {
        Error::unsupported(
            at + 5,
            format!("MCAP major version '{}'", char::from(major)),
            "this reader reads major version 0, the only one the MCAP specification defines",
        )
    })
}

/// Opcodes of the records, as in the spec's table.
pub mod op {
    /// Header.
    pub const HEADER: u8 = 0x01;
    /// Footer.
    pub const FOOTER: u8 = 0x02;
    /// Schema.
    pub const SCHEMA: u8 = 0x03;
    /// Channel.
    pub const CHANNEL: u8 = 0x04;
    /// Message.
    pub const MESSAGE: u8 = 0x05;
    /// Chunk.
    pub const CHUNK: u8 = 0x06;
    /// Message Index.
    pub const MESSAGE_INDEX: u8 = 0x07;
    /// Chunk Index.
    pub const CHUNK_INDEX: u8 = 0x08;
    /// Attachment.
    pub const ATTACHMENT: u8 = 0x09;
    /// Attachment Index.
    pub const ATTACHMENT_INDEX: u8 = 0x0A;
    /// Statistics.
    pub const STATISTICS: u8 = 0x0B;
    /// Metadata.
    pub const METADATA: u8 = 0x0C;
    /// Metadata Index.
    pub const METADATA_INDEX: u8 = 0x0D;
    /// Summary Offset.
    pub const SUMMARY_OFFSET: u8 = 0x0E;
    /// Data End.
    pub const DATA_END: u8 = 0x0F;
}

/// Size of a record's framing: opcode (1) and content length (8).
pub const RECORD_HEADER_LEN: usize = 9;
/// Size of the Footer record including framing.
pub const FOOTER_RECORD_LEN: usize = 29;

/// Header (0x01): the first record of every file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    /// Profile naming the file's conventions (`ros1`, `ros2`, `osi2mcap`, or empty).
    pub profile: String,
    /// Free text naming the writer.
    pub library: String,
}

/// Footer (0x02): the last record, pointing at the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Footer {
    /// Absolute offset of the first summary record; 0 = no summary.
    pub summary_start: u64,
    /// Absolute offset of the first Summary Offset record; 0 = none.
    pub summary_offset_start: u64,
    /// CRC32 of the summary (see the spec, section 5); 0 = not computed.
    pub summary_crc: u32,
}

/// Schema (0x03): how a channel's payloads are defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema<'a> {
    /// Id, unique per file, never 0.
    pub id: u16,
    /// Schema name, e.g. `osi3.SensorView`.
    pub name: String,
    /// Schema language (`protobuf`, `ros1msg`, `jsonschema`, ... or empty).
    pub encoding: String,
    /// The schema text or descriptor.
    pub data: Payload<'a>,
}

/// Channel (0x04): a stream of messages on a topic.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Channel {
    /// Id, unique per file (0 is legal).
    pub id: u16,
    /// Id of its schema; 0 = no schema.
    pub schema_id: u16,
    /// Topic name.
    pub topic: String,
    /// Payload encoding (`protobuf`, `ros1`, `cdr`, `json`, ...).
    pub message_encoding: String,
    /// Free key/value pairs (a repeated key keeps its last value).
    pub metadata: BTreeMap<String, String>,
}

/// Message (0x05): one timestamped payload on a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    /// Channel id.
    pub channel_id: u16,
    /// Gap-detection counter (0 if unused).
    pub sequence: u32,
    /// When it was recorded (ns).
    pub log_time: u64,
    /// When it was published (ns).
    pub publish_time: u64,
    /// The payload in the channel's message encoding.
    pub data: Payload<'a>,
}

/// Chunk (0x06): a (possibly compressed) run of Schema, Channel and Message records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Smallest log time inside (0 if no messages).
    pub message_start_time: u64,
    /// Largest log time inside (0 if no messages).
    pub message_end_time: u64,
    /// Size of `records` after decompression.
    pub uncompressed_size: u64,
    /// CRC32 of the decompressed records; 0 = not computed.
    pub uncompressed_crc: u32,
    /// `""`, `lz4` or `zstd`.
    pub compression: String,
    /// The records as stored (compressed).
    pub records: Payload<'a>,
}

/// Message Index (0x07): where one channel's messages lie in the preceding chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MessageIndex {
    /// Channel id.
    pub channel_id: u16,
    /// `(log_time, offset into the decompressed chunk records)`, in file order.
    pub records: Vec<(u64, u64)>,
}

/// Chunk Index (0x08, summary): where a chunk is and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChunkIndex {
    /// Copy of the chunk's start time.
    pub message_start_time: u64,
    /// Copy of the chunk's end time.
    pub message_end_time: u64,
    /// Absolute offset of the Chunk record.
    pub chunk_start_offset: u64,
    /// Size of the Chunk record with its framing.
    pub chunk_length: u64,
    /// Channel id to absolute offset of its Message Index record.
    pub message_index_offsets: BTreeMap<u16, u64>,
    /// Size of the Message Index run after the chunk.
    pub message_index_length: u64,
    /// The chunk's compression.
    pub compression: String,
    /// Size of the chunk's records as stored.
    pub compressed_size: u64,
    /// Size of the chunk's records decompressed.
    pub uncompressed_size: u64,
}

/// Attachment (0x09): a named blob (a file) in the data section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment<'a> {
    /// Log time (ns).
    pub log_time: u64,
    /// Creation time (ns, 0 if unknown).
    pub create_time: u64,
    /// Name, e.g. a file name.
    pub name: String,
    /// MIME type.
    pub media_type: String,
    /// The content.
    pub data: Payload<'a>,
    /// CRC32 of the record content up to the end of `data`; 0 = not computed.
    pub crc: u32,
}

/// Attachment Index (0x0A, summary).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AttachmentIndex {
    /// Absolute offset of the Attachment record.
    pub offset: u64,
    /// Size of the record with framing.
    pub length: u64,
    /// Its log time.
    pub log_time: u64,
    /// Its creation time.
    pub create_time: u64,
    /// Size of its data.
    pub data_size: u64,
    /// Its name.
    pub name: String,
    /// Its media type.
    pub media_type: String,
}

/// Statistics (0x0B, summary).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Statistics {
    /// Number of messages.
    pub message_count: u64,
    /// Number of distinct non-zero schema ids.
    pub schema_count: u16,
    /// Number of distinct channel ids.
    pub channel_count: u32,
    /// Number of attachments.
    pub attachment_count: u32,
    /// Number of metadata records.
    pub metadata_count: u32,
    /// Number of chunks.
    pub chunk_count: u32,
    /// Smallest log time (0 if no messages).
    pub message_start_time: u64,
    /// Largest log time (0 if no messages).
    pub message_end_time: u64,
    /// Channel id to message count (empty = not provided).
    pub channel_message_counts: BTreeMap<u16, u64>,
}

/// Metadata (0x0C): a named map of strings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Metadata {
    /// Name.
    pub name: String,
    /// The entries.
    pub metadata: BTreeMap<String, String>,
}

/// Metadata Index (0x0D, summary).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MetadataIndex {
    /// Absolute offset of the Metadata record.
    pub offset: u64,
    /// Size of the record with framing.
    pub length: u64,
    /// Its name.
    pub name: String,
}

/// Summary Offset (0x0E): where a group of summary records lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SummaryOffset {
    /// The opcode of every record in the group.
    pub group_opcode: u8,
    /// Absolute offset of the group's first record.
    pub group_start: u64,
    /// Total bytes of the group.
    pub group_length: u64,
}

/// Data End (0x0F): the end of the data section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DataEnd {
    /// CRC32 of every byte before this record; 0 = not computed.
    pub data_section_crc: u32,
}

/// One record, named as in the spec's opcode table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record<'a> {
    /// 0x01.
    Header(Header),
    /// 0x02.
    Footer(Footer),
    /// 0x03.
    Schema(Schema<'a>),
    /// 0x04.
    Channel(Channel),
    /// 0x05.
    Message(Message<'a>),
    /// 0x06.
    Chunk(Chunk<'a>),
    /// 0x07.
    MessageIndex(MessageIndex),
    /// 0x08.
    ChunkIndex(ChunkIndex),
    /// 0x09.
    Attachment(Attachment<'a>),
    /// 0x0A.
    AttachmentIndex(AttachmentIndex),
    /// 0x0B.
    Statistics(Statistics),
    /// 0x0C.
    Metadata(Metadata),
    /// 0x0D.
    MetadataIndex(MetadataIndex),
    /// 0x0E.
    SummaryOffset(SummaryOffset),
    /// 0x0F.
    DataEnd(DataEnd),
    /// Any other opcode (reserved or private), kept as raw content.
    Unknown {
        /// The opcode.
        opcode: u8,
        /// The record content.
        data: Payload<'a>,
    },
}

impl Record<'_> {
    /// The record's opcode.
    pub fn opcode(&self) -> u8 {
        match self {
            Record::Header(_) => op::HEADER,
            Record::Footer(_) => op::FOOTER,
            Record::Schema(_) => op::SCHEMA,
            Record::Channel(_) => op::CHANNEL,
            Record::Message(_) => op::MESSAGE,
            Record::Chunk(_) => op::CHUNK,
            Record::MessageIndex(_) => op::MESSAGE_INDEX,
            Record::ChunkIndex(_) => op::CHUNK_INDEX,
            Record::Attachment(_) => op::ATTACHMENT,
            Record::AttachmentIndex(_) => op::ATTACHMENT_INDEX,
            Record::Statistics(_) => op::STATISTICS,
            Record::Metadata(_) => op::METADATA,
            Record::MetadataIndex(_) => op::METADATA_INDEX,
            Record::SummaryOffset(_) => op::SUMMARY_OFFSET,
            Record::DataEnd(_) => op::DATA_END,
            Record::Unknown { opcode, .. } => *opcode,
        }
    }

    /// Makes the record independent of the input's lifetime.
    pub fn into_owned(self) -> Record<'static> {
        match self {
            Record::Header(r) => Record::Header(r),
            Record::Footer(r) => Record::Footer(r),
            Record::Schema(r) => Record::Schema(Schema {
                id: r.id,
                name: r.name,
                encoding: r.encoding,
                data: r.data.into_owned(),
            }),
            Record::Channel(r) => Record::Channel(r),
            Record::Message(r) => Record::Message(Message {
                data: r.data.into_owned(),
                ..r
            }),
            Record::Chunk(r) => Record::Chunk(Chunk {
                records: r.records.into_owned(),
                ..r
            }),
            Record::MessageIndex(r) => Record::MessageIndex(r),
            Record::ChunkIndex(r) => Record::ChunkIndex(r),
            Record::Attachment(r) => Record::Attachment(Attachment {
                data: r.data.into_owned(),
                ..r
            }),
            Record::AttachmentIndex(r) => Record::AttachmentIndex(r),
            Record::Statistics(r) => Record::Statistics(r),
            Record::Metadata(r) => Record::Metadata(r),
            Record::MetadataIndex(r) => Record::MetadataIndex(r),
            Record::SummaryOffset(r) => Record::SummaryOffset(r),
            Record::DataEnd(r) => Record::DataEnd(r),
            Record::Unknown { opcode, data } => Record::Unknown {
                opcode,
                data: data.into_owned(),
            },
        }
    }
}

/// The spec's name of an opcode (`"Chunk Index"`), or `"unknown"`.
pub fn opcode_name(opcode: u8) -> &'static str {
    match opcode {
        op::HEADER => "Header",
        op::FOOTER => "Footer",
        op::SCHEMA => "Schema",
        op::CHANNEL => "Channel",
        op::MESSAGE => "Message",
        op::CHUNK => "Chunk",
        op::MESSAGE_INDEX => "Message Index",
        op::CHUNK_INDEX => "Chunk Index",
        op::ATTACHMENT => "Attachment",
        op::ATTACHMENT_INDEX => "Attachment Index",
        op::STATISTICS => "Statistics",
        op::METADATA => "Metadata",
        op::METADATA_INDEX => "Metadata Index",
        op::SUMMARY_OFFSET => "Summary Offset",
        op::DATA_END => "Data End",
        0x80..=0xFF => "private",
        _ => "unknown",
    }
}
