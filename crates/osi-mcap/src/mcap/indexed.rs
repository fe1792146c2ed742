//! The indexed reader: messages in log-time order from the chunk indexes,
//! with chunks that overlap in time merged, and only the chunks a filter
//! needs decompressed.

use std::collections::{BTreeSet, VecDeque};

use logcore::ReadMode;

use super::chunk::decompress;
use super::error::{Error, Result};
use super::parse::{frame_at, parse_record};
use super::records::{ChunkIndex, Message, Record, op};
use super::stream::{ReadOptions, read_inner};
use super::summary::Summary;

/// Which messages an [`IndexedMessages`] yields, in MCAP's own terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexFilter {
    /// Only these channel ids (`None`: all).
    pub channels: Option<BTreeSet<u16>>,
    /// Only `log_time >= start`.
    pub start: Option<u64>,
    /// Only `log_time < end`.
    pub end: Option<u64>,
}

impl IndexFilter {
    fn wants(&self, m: &Message<'_>) -> bool {
        self.start.is_none_or(|s| m.log_time >= s)
            && self.end.is_none_or(|e| m.log_time < e)
            && self
                .channels
                .as_ref()
                .is_none_or(|c| c.contains(&m.channel_id))
    }

    fn wants_chunk(&self, ci: &ChunkIndex) -> bool {
        let time = self.start.is_none_or(|s| ci.message_end_time >= s)
            && self.end.is_none_or(|e| ci.message_start_time < e);
        let channels = match &self.channels {
            Some(c) if !ci.message_index_offsets.is_empty() => {
                ci.message_index_offsets.keys().any(|k| c.contains(k))
            }
            _ => true,
        };
        time && channels
    }
}

struct Pending<'a> {
    /// (log_time, chunk offset, position in the chunk): file order breaks ties.
    key: (u64, u64, u64),
    offset: u64,
    message: Message<'a>,
}

/// Messages of the indexed chunks in log-time order (ties in file order).
///
/// Items are `(offset, message)`: the message record's absolute offset, or
/// for a compressed chunk the chunk's. Chunks are decompressed only when
/// the merge reaches their start time, so memory holds the chunks that
/// overlap in time, not the file.
///
/// Messages outside chunks cannot be indexed and are not yielded (a
/// validator warns about them).
pub struct IndexedMessages<'a> {
    data: &'a [u8],
    chunks: Vec<ChunkIndex>,
    next_chunk: usize,
    /// Messages of the loaded chunks, each sorted by key; merged by head.
    active: Vec<VecDeque<Pending<'a>>>,
    filter: IndexFilter,
    opts: ReadOptions,
    done: bool,
}

impl<'a> IndexedMessages<'a> {
    /// Iterates the messages of `data` that pass `filter`, using `summary`.
    pub fn new(data: &'a [u8], summary: &Summary, filter: IndexFilter, opts: ReadOptions) -> Self {
        let mut chunks: Vec<ChunkIndex> = summary
            .chunk_indexes
            .iter()
            .filter(|ci| filter.wants_chunk(ci))
            .cloned()
            .collect();
        chunks.sort_by_key(|c| (c.message_start_time, c.chunk_start_offset));
        IndexedMessages {
            data,
            chunks,
            next_chunk: 0,
            active: Vec::new(),
            filter,
            opts,
            done: false,
        }
    }

    /// How many chunks the filter selected (all others stay untouched).
    pub fn selected_chunks(&self) -> usize {
        self.chunks.len()
    }

    fn load(&mut self, ci: &ChunkIndex) -> Result<()> {
        let at = ci.chunk_start_offset;
        let pos = usize::try_from(at).unwrap_or(usize::MAX);
        let frame = frame_at(self.data, pos, 0, "file")?;
        if frame.opcode != op::CHUNK || frame.len as u64 != ci.chunk_length {
            return Err(Error::malformed(
                at,
                format!(
                    "a Chunk record of {} bytes (from its Chunk Index)",
                    ci.chunk_length
                ),
                format!("opcode 0x{:02x}, {} bytes", frame.opcode, frame.len),
            ));
        }
        let Record::Chunk(chunk) = parse_record(frame.opcode, frame.content, at + 9)? else {
            return Err(Error::malformed(at, "a Chunk record", "another record"));
        };
        let records = decompress(
            &chunk,
            at,
            self.opts.validate_crcs,
            self.opts.max_chunk_size,
        )?;
        let borrowed = matches!(records, super::chunk::ChunkRecords::Borrowed(_));
        let records_offset = at + 9 + 40 + chunk.compression.len() as u64;
        let base = if borrowed { records_offset } else { 0 };
        let len = records.as_slice().len();
        let mut p = 0;
        let mut msgs = Vec::new();
        while p < len {
            let (r, advance) = read_inner(&records, p, base);
            let r = r.map_err(|e| {
                if borrowed {
                    e
                } else {
                    Error::malformed(
                        at,
                        format!("a readable record at decompressed byte {p} of the chunk"),
                        e.to_string(),
                    )
                }
            })?;
            if let Record::Message(m) = r {
                if self.filter.wants(&m) {
                    msgs.push(Pending {
                        key: (m.log_time, at, p as u64),
                        offset: if borrowed { base + p as u64 } else { at },
                        message: m,
                    });
                }
            }
            p += advance;
        }
        // Keys are unique (they hold the position), so an unstable sort
        // keeps file order for equal times; most chunks are sorted already.
        if !msgs.is_sorted_by_key(|m| m.key) {
            msgs.sort_unstable_by_key(|m| m.key);
        }
        if !msgs.is_empty() {
            self.active.push(msgs.into());
        }
        Ok(())
    }

    /// Index of the active chunk whose next message comes first.
    fn first(&self) -> Option<usize> {
        self.active
            .iter()
            .enumerate()
            .filter_map(|(i, q)| q.front().map(|m| (m.key, i)))
            .min()
            .map(|(_, i)| i)
    }
}

impl<'a> Iterator for IndexedMessages<'a> {
    type Item = Result<(u64, Message<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        while let Some(ci) = self.chunks.get(self.next_chunk) {
            let due = match self.first() {
                None => true,
                Some(i) => self.active[i]
                    .front()
                    .is_none_or(|p| ci.message_start_time <= p.key.0),
            };
            if !due {
                break;
            }
            let ci = ci.clone();
            self.next_chunk += 1;
            if let Err(e) = self.load(&ci) {
                if self.opts.mode == ReadMode::Strict {
                    self.done = true;
                    self.active.clear();
                    return Some(Err(e));
                }
                return Some(Err(Error::Skipped {
                    offset: ci.chunk_start_offset,
                    len: ci.chunk_length,
                    reason: e.to_string(),
                }));
            }
        }
        let i = self.first()?;
        let p = self.active[i].pop_front()?;
        if self.active[i].is_empty() {
            self.active.swap_remove(i);
        }
        Some(Ok((p.offset, p.message)))
    }
}
