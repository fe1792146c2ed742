//! Time-ordered message iteration.
//!
//! 2.0: chunks are selected by their chunk info (time range, connections
//! present) and visited in order of start time. Chunks whose time ranges
//! do not overlap (the normal case) are read one at a time, so only one
//! decompressed chunk is in memory; chunks that overlap in time (spec 2.7:
//! unsorted or interleaved chunks) are read together as one group and
//! merged, since no other order-preserving choice exists. Within a group,
//! messages are ordered by (time, chunk file order, position).
//!
//! 1.2: the index (or the scan) lists every message with its file offset;
//! entries are sorted by (time, offset) and read in place.

use std::collections::VecDeque;

use logcore::{ChannelId, MessageFilter, Payload, ReadMode};

use crate::bag::Bag;
use crate::chunk::{ChunkPayload, is_message, walk_chunk};
use crate::error::{Error, Result};
use crate::record::{Origin, Record};
use crate::records::{MessageDataHeader, op, unexpected};
use crate::time::RosTime;

/// One message as stored in a bag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BagMessage<'a> {
    /// Connection id.
    pub conn: u32,
    /// The time the bag indexes it by (receive time for `rosbag record`).
    pub time: RosTime,
    /// The serialized message (zero-copy for uncompressed data).
    pub data: Payload<'a>,
    /// File offset of the message record, or of its chunk when compressed.
    pub offset: u64,
}

/// Where a message of the current group is.
#[derive(Debug, Clone, Copy)]
struct Entry {
    time: RosTime,
    chunk: usize,
    start: usize,
    end: usize,
    conn: u32,
    offset: u64,
}

/// Iterator over a bag's messages; see the [module docs](self).
pub struct Messages<'a> {
    bag: &'a Bag<'a>,
    filter: MessageFilter,
    groups: VecDeque<Vec<usize>>,
    /// The chunks of the current group, and its messages in time order.
    payloads: Vec<ChunkPayload<'a>>,
    entries: Vec<Entry>,
    next_entry: usize,
    next_v12: usize,
    done: bool,
    end_reported: bool,
}

impl<'a> Bag<'a> {
    /// Messages passing `filter` (channel = connection id, half-open time
    /// range on the bag time), in time order.
    pub fn messages(&'a self, filter: &MessageFilter) -> Messages<'a> {
        let mut groups: VecDeque<Vec<usize>> = VecDeque::new();
        let mut next_v12 = 0;
        if self.version().major == 2 {
            let mut order: Vec<usize> = (0..self.chunks.len())
                .filter(|&i| {
                    let c = &self.chunks[i];
                    let times = filter.end.is_none_or(|e| c.start_time.to_timestamp() < e)
                        && filter.start.is_none_or(|s| c.end_time.to_timestamp() >= s);
                    let conns = c
                        .counts
                        .iter()
                        .any(|&(id, n)| n > 0 && filter.matches_channel(ChannelId(id)));
                    times && conns
                })
                .collect();
            order.sort_by_key(|&i| (self.chunks[i].start_time, i));
            let mut group_end = RosTime::default();
            for i in order {
                let c = &self.chunks[i];
                match groups.back_mut() {
                    Some(g) if c.start_time <= group_end => {
                        g.push(i);
                        group_end = group_end.max(c.end_time);
                    }
                    _ => {
                        groups.push_back(vec![i]);
                        group_end = c.end_time;
                    }
                }
            }
        } else if let Some(s) = filter.start {
            next_v12 = self
                .entries_v12
                .partition_point(|e| e.time.to_timestamp() < s);
        }
        Messages {
            bag: self,
            filter: filter.clone(),
            groups,
            payloads: Vec::new(),
            entries: Vec::new(),
            next_entry: 0,
            next_v12,
            done: false,
            end_reported: false,
        }
    }
}

impl<'a> Messages<'a> {
    fn wanted(&self, conn: u32, time: RosTime) -> bool {
        self.filter.matches(ChannelId(conn), time.to_timestamp())
    }

    /// Reads a group of chunks and orders its messages.
    fn load_group(&mut self, group: &[usize]) -> Result<()> {
        self.payloads.clear();
        self.entries.clear();
        self.next_entry = 0;
        let bag = self.bag;
        let filter = &self.filter;
        for (order, &i) in group.iter().enumerate() {
            let info = &bag.chunks[i];
            let (_, payload) = bag.read_chunk(info.chunk_pos)?;
            let chunk_offset = info.chunk_pos;
            let entries = &mut self.entries;
            walk_chunk(payload.bytes(), payload.origin(), |r| {
                if !is_message(&r) {
                    return if r.op == op::CONNECTION {
                        Ok(())
                    } else {
                        Err(unexpected(
                            &r,
                            "a connection or message data record in a chunk",
                        ))
                    };
                }
                let h = MessageDataHeader::from_record(&r)?;
                if bag.position(h.conn).is_none() {
                    return Err(r.malformed(
                        "a message on a connection the bag declares",
                        format!("connection {}", h.conn),
                    ));
                }
                if filter.matches(ChannelId(h.conn), h.time.to_timestamp()) {
                    let offset = match r.origin {
                        Origin::File { .. } => r.offset(),
                        Origin::Chunk { .. } => chunk_offset,
                    };
                    entries.push(Entry {
                        time: h.time,
                        chunk: order,
                        start: r.data_pos,
                        end: r.end,
                        conn: h.conn,
                        offset,
                    });
                }
                Ok(())
            })?;
            self.payloads.push(payload);
        }
        // Recorders write in receive order: sorting is usually not needed.
        let key = |e: &Entry| (e.time, e.chunk, e.start);
        if !self.entries.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
            self.entries.sort_unstable_by_key(key);
        }
        Ok(())
    }

    fn next_v12(&mut self) -> Option<Result<BagMessage<'a>>> {
        let entries = &self.bag.entries_v12;
        while let Some(e) = entries.get(self.next_v12).copied() {
            self.next_v12 += 1;
            let t = e.time.to_timestamp();
            if self.filter.end.is_some_and(|end| t >= end) {
                self.next_v12 = entries.len();
                break;
            }
            if !self.wanted(e.conn, e.time) {
                continue;
            }
            return Some(self.read_v12(e.pos, e.conn));
        }
        None
    }

    /// Reads the 1.2 message at `pos`, skipping a definition record first
    /// (spec 3.3: a topic's first index entry points at its definition).
    fn read_v12(&self, pos: u64, conn: u32) -> Result<BagMessage<'a>> {
        let data = self.bag.data();
        let mut at = usize::try_from(pos).unwrap_or(usize::MAX);
        let origin = Origin::File { base: 0 };
        for _ in 0..2 {
            let rec = Record::parse(data, at, origin)?;
            match rec.op {
                op::MSG_DEF => at = rec.end,
                op::MSG_DATA => {
                    let sec = rec.header.u32("sec", "message data")?;
                    let nsec = rec.header.u32("nsec", "message data")?;
                    let topic = rec.header.get("topic").map(|f| f.value).unwrap_or_default();
                    let expected = self.bag.connection(conn).map(|c| c.topic.as_bytes());
                    if expected != Some(topic) {
                        return Err(rec.malformed(
                            format!(
                                "a message of topic {} (the index entry's)",
                                String::from_utf8_lossy(expected.unwrap_or_default())
                            ),
                            format!("topic {}", String::from_utf8_lossy(topic)),
                        ));
                    }
                    return Ok(BagMessage {
                        conn,
                        time: RosTime { sec, nsec },
                        data: Payload::Borrowed(rec.data),
                        offset: rec.offset(),
                    });
                }
                _ => break,
            }
        }
        let rec = Record::parse(data, at, origin)?;
        Err(unexpected(
            &rec,
            "a message data record where the index points",
        ))
    }

    fn fail(&mut self, e: Error, offset: u64) -> Error {
        if self.filter.mode == ReadMode::Strict {
            self.done = true;
            e
        } else {
            Error::Skipped {
                offset,
                len: 0,
                reason: e.to_string(),
            }
        }
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<BagMessage<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.entries.get(self.next_entry) {
                self.next_entry += 1;
                let data = match self.payloads.get(e.chunk) {
                    Some(p) => p.slice(e.start, e.end),
                    None => Payload::Borrowed(&[]),
                };
                return Some(Ok(BagMessage {
                    conn: e.conn,
                    time: e.time,
                    data,
                    offset: e.offset,
                }));
            }
            if self.done {
                return None;
            }
            if self.bag.version().major == 2 {
                if let Some(group) = self.groups.pop_front() {
                    if let Err(e) = self.load_group(&group) {
                        let at = self.bag.chunks[group[0]].chunk_pos;
                        return Some(Err(self.fail(e, at)));
                    }
                    continue;
                }
            } else if let Some(r) = self.next_v12() {
                return Some(match r {
                    Ok(m) => Ok(m),
                    Err(e) => {
                        let at = e.offset().unwrap_or(0);
                        Err(self.fail(e, at))
                    }
                });
            }
            self.done = true;
            if !self.end_reported {
                self.end_reported = true;
                if let Some(e) = self.bag.end_error() {
                    return Some(Err(e.clone()));
                }
            }
            return None;
        }
    }
}
