//! The typed records, one per op code of the spec's table (spec 1.3):
//! bag header, chunk, connection, message data, index data and chunk info
//! for 2.0; message definition, message data and index data version 0 for
//! 1.2.

use crate::error::{Error, Result};
use crate::record::{Record, u32_at};
use crate::time::RosTime;

/// The op codes (spec 1.3).
pub mod op {
    /// 1.2 message definition.
    pub const MSG_DEF: u8 = 0x01;
    /// Message data (1.2 and 2.0).
    pub const MSG_DATA: u8 = 0x02;
    /// Bag (file) header.
    pub const BAG_HEADER: u8 = 0x03;
    /// Index data (version 0 in 1.2, version 1 in 2.0).
    pub const INDEX_DATA: u8 = 0x04;
    /// 2.0 chunk.
    pub const CHUNK: u8 = 0x05;
    /// 2.0 chunk info.
    pub const CHUNK_INFO: u8 = 0x06;
    /// 2.0 connection.
    pub const CONNECTION: u8 = 0x07;
}

/// Size of the padded bag header record: `header_len + data_len = 4096`
/// plus the two length words (spec 2.2, 3.3).
pub const BAG_HEADER_RECORD_LEN: usize = 4104;

/// The bag header record (op 0x03).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BagHeader {
    /// Offset of the index section (2.0: first connection record; 1.2:
    /// first index data record); 0 when the bag was not closed.
    pub index_pos: u64,
    /// 2.0: number of connection records in the index section.
    pub conn_count: u32,
    /// 2.0: number of chunk info records in the index section.
    pub chunk_count: u32,
    /// The encryptor plugin, for encrypted bags (which this crate cannot read).
    pub encryptor: Option<String>,
}

impl BagHeader {
    pub(crate) fn from_record(r: &Record<'_>, v2: bool) -> Result<Self> {
        r.expect_op(op::BAG_HEADER, "the bag header record")?;
        let index_pos = r.header.u64("index_pos", "bag header")?;
        let (conn_count, chunk_count) = if v2 {
            (
                r.header.u32("conn_count", "bag header")?,
                r.header.u32("chunk_count", "bag header")?,
            )
        } else {
            (0, 0)
        };
        Ok(BagHeader {
            index_pos,
            conn_count,
            chunk_count,
            encryptor: r.header.opt_string("encryptor"),
        })
    }
}

/// How a chunk's payload is stored (spec 2.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Compression {
    /// Stored as is.
    #[default]
    None,
    /// One bzip2 stream.
    Bz2,
    /// One LZ4 frame.
    Lz4,
}

impl Compression {
    /// The name stored in the chunk header.
    pub const fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Bz2 => "bz2",
            Compression::Lz4 => "lz4",
        }
    }

    /// Parses a stored name.
    pub fn from_name(name: &[u8]) -> Option<Self> {
        match name {
            b"none" => Some(Compression::None),
            b"bz2" => Some(Compression::Bz2),
            b"lz4" => Some(Compression::Lz4),
            _ => None,
        }
    }
}

/// The header of a chunk record (op 0x05).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Compression of the payload.
    pub compression: Compression,
    /// Size of the payload after decompression.
    pub size: u32,
}

impl ChunkHeader {
    pub(crate) fn from_record(r: &Record<'_>) -> Result<Self> {
        r.expect_op(op::CHUNK, "a chunk record")?;
        let name = r.header.get("compression").ok_or_else(|| {
            r.malformed("field `compression` in the chunk header", "no such field")
        })?;
        let compression = Compression::from_name(name.value).ok_or_else(|| {
            r.malformed(
                "chunk compression `none`, `bz2` or `lz4`",
                format!("`{}`", String::from_utf8_lossy(name.value)),
            )
        })?;
        let size = r.header.u32("size", "chunk")?;
        if compression == Compression::None && size as usize != r.data.len() {
            return Err(r.malformed(
                format!("an uncompressed chunk of its declared size {size}"),
                format!("{} bytes of data", r.data.len()),
            ));
        }
        Ok(ChunkHeader { compression, size })
    }
}

/// A connection (2.0, op 0x07), or for 1.2 bags a topic with its message
/// definition record (op 0x01), which plays the same role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    /// Connection id (1.2: numbered by first appearance of the topic).
    pub id: u32,
    /// The topic the bag stores the data under.
    pub topic: String,
    /// Message type, e.g. `sensor_msgs/LaserScan`.
    pub type_name: String,
    /// md5 of the definition (32 hex digits, or `*`).
    pub md5sum: String,
    /// Full definition text (spec 6.1); empty when the bag has none.
    pub message_definition: String,
    /// Publishing node, when recorded by `rosbag record`.
    pub callerid: Option<String>,
    /// Whether the publisher latched.
    pub latching: bool,
    /// Every field of the connection header, in stored order, unknown
    /// ones included (they round-trip through rewriting).
    pub header: Vec<(String, Vec<u8>)>,
    /// File offset of the record it was read from.
    pub offset: u64,
}

impl Connection {
    /// A connection with the four fields a decoder needs.
    pub fn new(
        id: u32,
        topic: impl Into<String>,
        type_name: impl Into<String>,
        md5sum: impl Into<String>,
        message_definition: impl Into<String>,
    ) -> Self {
        let (topic, type_name, md5sum, def) = (
            topic.into(),
            type_name.into(),
            md5sum.into(),
            message_definition.into(),
        );
        let header = vec![
            ("topic".to_string(), topic.clone().into_bytes()),
            ("type".to_string(), type_name.clone().into_bytes()),
            ("md5sum".to_string(), md5sum.clone().into_bytes()),
            ("message_definition".to_string(), def.clone().into_bytes()),
        ];
        Connection {
            id,
            topic,
            type_name,
            md5sum,
            message_definition: def,
            callerid: None,
            latching: false,
            header,
            offset: 0,
        }
    }

    /// The value of a connection header field.
    pub fn field(&self, name: &str) -> Option<&[u8]> {
        self.header
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// Parses a 2.0 connection record.
    pub(crate) fn from_record(r: &Record<'_>) -> Result<Self> {
        r.expect_op(op::CONNECTION, "a connection record")?;
        let id = r.header.u32("conn", "connection")?;
        let topic = r.header.string("topic", "connection")?;
        // The data is a second header block without its outer length.
        let inner = crate::record::Header::parse(r.data, r.data_pos, r.origin)?;
        let header: Vec<(String, Vec<u8>)> = inner
            .fields()
            .map(|f| {
                (
                    String::from_utf8_lossy(f.name).into_owned(),
                    f.value.to_vec(),
                )
            })
            .collect();
        let text = |name: &str| inner.opt_string(name);
        let type_name = text("type")
            .ok_or_else(|| r.malformed("field `type` in the connection header", "no such field"))?;
        Ok(Connection {
            id,
            topic,
            type_name,
            md5sum: text("md5sum").unwrap_or_default(),
            message_definition: text("message_definition").unwrap_or_default(),
            callerid: text("callerid"),
            latching: inner.get("latching").is_some_and(|f| f.value == b"1"),
            header,
            offset: r.offset(),
        })
    }

    /// Builds a 1.2 topic connection from a message definition (op 0x01)
    /// or message data (op 0x02) record.
    pub(crate) fn from_v12_record(r: &Record<'_>, id: u32) -> Result<Self> {
        let what = if r.op == op::MSG_DEF {
            "message definition"
        } else {
            "message data"
        };
        let topic = r.header.string("topic", what)?;
        let type_name = r.header.string("type", what)?;
        let md5sum = r.header.string("md5", what)?;
        let def = r.header.opt_string("def").unwrap_or_default();
        let mut c = Connection::new(id, topic, type_name, md5sum, def);
        c.callerid = r.header.opt_string("callerid");
        c.latching = r.header.get("latching").is_some_and(|f| f.value == b"1");
        if let Some(cid) = &c.callerid {
            c.header.push(("callerid".into(), cid.clone().into_bytes()));
        }
        if c.latching {
            c.header.push(("latching".into(), b"1".to_vec()));
        }
        c.offset = r.offset();
        Ok(c)
    }
}

/// The header of a 2.0 message data record (op 0x02).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageDataHeader {
    /// Connection id.
    pub conn: u32,
    /// The time the bag indexes the message by.
    pub time: RosTime,
}

impl MessageDataHeader {
    pub(crate) fn from_record(r: &Record<'_>) -> Result<Self> {
        // One pass over the fields; the checked accessors only run to
        // build the error when something is missing or mis-sized.
        if let (Some(conn), Some(time)) = r.header.conn_and_time() {
            if let (Some(c), 8) = (u32_at(conn.value, 0), time.value.len()) {
                if conn.value.len() == 4 {
                    return Ok(MessageDataHeader {
                        conn: c,
                        time: RosTime::from_le_bytes(time.value),
                    });
                }
            }
        }
        Ok(MessageDataHeader {
            conn: r.header.u32("conn", "message data")?,
            time: r.header.time("time", "message data")?,
        })
    }
}

/// One entry of a 2.0 index data record: time and position of the message
/// record inside the decompressed chunk payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct IndexEntry {
    /// Message time.
    pub time: RosTime,
    /// Offset in the decompressed chunk payload.
    pub offset: u32,
}

/// A 2.0 chunk info record (op 0x06).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkInfo {
    /// File offset of the chunk record.
    pub chunk_pos: u64,
    /// Earliest message time in the chunk.
    pub start_time: RosTime,
    /// Latest message time in the chunk.
    pub end_time: RosTime,
    /// (connection id, message count) for each connection in the chunk.
    pub counts: Vec<(u32, u32)>,
}

impl ChunkInfo {
    pub(crate) fn from_record(r: &Record<'_>) -> Result<Self> {
        r.expect_op(op::CHUNK_INFO, "a chunk info record")?;
        let ver = r.header.u32("ver", "chunk info")?;
        if ver != 1 {
            return Err(r.malformed("chunk info version 1", format!("version {ver}")));
        }
        let count = r.header.u32("count", "chunk info")?;
        if u64::from(count) * 8 != r.data.len() as u64 {
            return Err(r.malformed(
                format!("{count} (connection, count) pairs of 8 bytes in the chunk info"),
                format!("{} bytes", r.data.len()),
            ));
        }
        let counts = r
            .data
            .chunks_exact(8)
            .map(|p| (u32_at(p, 0).unwrap_or(0), u32_at(p, 4).unwrap_or(0)))
            .collect();
        Ok(ChunkInfo {
            chunk_pos: r.header.u64("chunk_pos", "chunk info")?,
            start_time: r.header.time("start_time", "chunk info")?,
            end_time: r.header.time("end_time", "chunk info")?,
            counts,
        })
    }

    /// Total number of messages in the chunk.
    pub fn message_count(&self) -> u64 {
        self.counts.iter().map(|&(_, n)| u64::from(n)).sum()
    }
}

/// A 1.2 index entry (version 0): time and absolute file offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct IndexEntryV0 {
    /// Message time.
    pub time: RosTime,
    /// Absolute file offset of the record (for a topic's first entry,
    /// possibly its message definition record, spec 3.3).
    pub pos: u64,
}

/// A 1.2 index data record (op 0x04, version 0): one topic's entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDataV0 {
    /// The topic.
    pub topic: String,
    /// The message type, as the recorder wrote it.
    pub type_name: Option<String>,
    /// The entries.
    pub entries: Vec<IndexEntryV0>,
}

impl IndexDataV0 {
    pub(crate) fn from_record(r: &Record<'_>) -> Result<Self> {
        r.expect_op(op::INDEX_DATA, "an index data record")?;
        let ver = r.header.u32("ver", "index data")?;
        if ver != 0 {
            return Err(r.malformed("1.2 index data version 0", format!("version {ver}")));
        }
        let count = r.header.u32("count", "index data")?;
        if u64::from(count) * 16 != r.data.len() as u64 {
            return Err(r.malformed(
                format!("{count} index entries of 16 bytes"),
                format!("{} bytes of data", r.data.len()),
            ));
        }
        let entries = r
            .data
            .chunks_exact(16)
            .map(|e| IndexEntryV0 {
                time: RosTime::from_le_bytes(&e[..8]),
                pos: u64::from(u32_at(e, 8).unwrap_or(0))
                    | (u64::from(u32_at(e, 12).unwrap_or(0)) << 32),
            })
            .collect();
        Ok(IndexDataV0 {
            topic: r.header.string("topic", "index data")?,
            type_name: r.header.opt_string("type"),
            entries,
        })
    }
}

/// Checks a 2.0 index data record and returns its connection and entries.
pub(crate) fn index_data_v1(r: &Record<'_>) -> Result<(u32, Vec<IndexEntry>)> {
    r.expect_op(op::INDEX_DATA, "an index data record")?;
    let ver = r.header.u32("ver", "index data")?;
    if ver != 1 {
        return Err(r.malformed("2.0 index data version 1", format!("version {ver}")));
    }
    let conn = r.header.u32("conn", "index data")?;
    let entries = r
        .data
        .chunks_exact(12)
        .map(|e| IndexEntry {
            time: RosTime::from_le_bytes(&e[..8]),
            offset: u32_at(e, 8).unwrap_or(0),
        })
        .collect();
    Ok((conn, entries))
}

/// Error for a record of an op code that is not allowed where it was found.
pub(crate) fn unexpected(r: &Record<'_>, expected: &str) -> Error {
    r.malformed(expected, format!("a record with op 0x{:02x}", r.op))
}
