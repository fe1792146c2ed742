//! A chunk's payload (spec 2.3): borrowed from the file when stored
//! uncompressed, else decompressed (bounded by its declared size) into one
//! shared buffer that the messages of the chunk slice.

use bytes::Bytes;
use logcore::Payload;

use crate::Limits;
use crate::bag::Bag;
use crate::compression::decompress_into;
use crate::error::Result;
use crate::record::{Origin, Record};
use crate::records::{ChunkHeader, Compression, op};

/// The records of one chunk, ready to be walked.
#[derive(Debug, Clone)]
pub enum ChunkPayload<'a> {
    /// An uncompressed chunk: its data in the file, at `base`.
    Borrowed {
        /// The payload.
        data: &'a [u8],
        /// File offset of its first byte.
        base: u64,
    },
    /// A decompressed chunk.
    Shared {
        /// The payload.
        data: Bytes,
        /// File offset of the chunk record.
        chunk: u64,
    },
}

impl<'a> ChunkPayload<'a> {
    /// Loads the payload of a chunk record.
    pub(crate) fn load(rec: &Record<'a>, limits: &Limits) -> Result<Self> {
        Self::load_into(rec, Vec::new(), limits)
    }

    /// [`load`](Self::load), decompressing into `spare`'s allocation.
    /// A chunk declaring more than `limits` allow is refused first.
    pub(crate) fn load_into(rec: &Record<'a>, spare: Vec<u8>, limits: &Limits) -> Result<Self> {
        let header = ChunkHeader::from_record(rec)?;
        if header.compression != Compression::None {
            limits.check_chunk(rec.offset(), header.size)?;
        }
        Ok(match header.compression {
            Compression::None => ChunkPayload::Borrowed {
                data: rec.data,
                base: rec.data_offset(),
            },
            c => ChunkPayload::Shared {
                data: Bytes::from(decompress_into(
                    c,
                    rec.data,
                    header.size,
                    rec.offset(),
                    spare,
                )?),
                chunk: rec.offset(),
            },
        })
    }

    /// The payload bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            ChunkPayload::Borrowed { data, .. } => data,
            ChunkPayload::Shared { data, .. } => data,
        }
    }

    pub(crate) fn origin(&self) -> Origin {
        match self {
            ChunkPayload::Borrowed { base, .. } => Origin::File { base: *base },
            ChunkPayload::Shared { chunk, .. } => Origin::Chunk { offset: *chunk },
        }
    }

    /// A message payload at `start..end` of the chunk, without copying.
    pub(crate) fn slice(&self, start: usize, end: usize) -> Payload<'a> {
        match self {
            ChunkPayload::Borrowed { data, .. } => {
                Payload::Borrowed(data.get(start..end).unwrap_or_default())
            }
            ChunkPayload::Shared { data, .. } => {
                if start <= end && end <= data.len() {
                    Payload::Shared(data.slice(start..end))
                } else {
                    Payload::Shared(Bytes::new())
                }
            }
        }
    }
}

/// Calls `f` on every record of a chunk payload, in order. Index data
/// records never occur inside chunks; anything but connection and message
/// data records is left to `f` to refuse.
pub(crate) fn walk_chunk<'b>(
    buf: &'b [u8],
    origin: Origin,
    mut f: impl FnMut(Record<'b>) -> Result<()>,
) -> Result<()> {
    let mut pos = 0;
    while pos < buf.len() {
        let rec = Record::parse(buf, pos, origin)?;
        pos = rec.end;
        f(rec)?;
    }
    Ok(())
}

/// Whether a record inside a chunk is a message.
pub(crate) fn is_message(r: &Record<'_>) -> bool {
    r.op == op::MSG_DATA
}

impl Bag<'_> {
    /// Compression kinds of the chunks and how many of each (2.0).
    pub fn compression_counts(&self) -> std::collections::BTreeMap<&'static str, usize> {
        let mut m = std::collections::BTreeMap::new();
        for info in self.chunk_infos() {
            let name = self
                .chunk_header_and_len(info.chunk_pos)
                .map(|(h, _)| h)
                .map_or("unreadable", |h| h.compression.name());
            *m.entry(name).or_default() += 1;
        }
        m
    }
}

/// Sizes of one chunk, as `rosbag info` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkStats {
    /// File offset of the chunk record.
    pub chunk_pos: u64,
    /// Compression of the payload.
    pub compression: Compression,
    /// Payload size after decompression (the header's `size`).
    pub uncompressed: u64,
    /// Payload size as stored.
    pub compressed: u64,
}

impl Bag<'_> {
    /// Compression and sizes of every chunk (2.0), read from the chunk
    /// record headers without decompressing; unreadable chunks are left out.
    pub fn chunk_stats(&self) -> Vec<ChunkStats> {
        self.chunk_infos()
            .iter()
            .filter_map(|info| {
                let (h, compressed) = self.chunk_header_and_len(info.chunk_pos).ok()?;
                Some(ChunkStats {
                    chunk_pos: info.chunk_pos,
                    compression: h.compression,
                    uncompressed: u64::from(h.size),
                    compressed,
                })
            })
            .collect()
    }
}
