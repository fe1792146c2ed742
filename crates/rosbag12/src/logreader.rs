//! [`logcore::LogReader`] for [`Bag`]: one channel per connection, the
//! summary from the index, time-ordered filtered iteration and decoding.

use logcore::{
    ChannelId, ChannelInfo, ChannelSummary, Clock, Format, LogReader, Message, MessageFilter,
    MessageIter, Schema, Summary, TimeModel, Value,
};

use crate::bag::{Bag, IndexSource};
use crate::records::Connection;

/// The logcore view of a connection.
pub fn channel_info(c: &Connection) -> ChannelInfo {
    let mut info = ChannelInfo::new(ChannelId(c.id), &c.topic, &c.type_name, "ros1");
    info.schema = Some(Schema {
        name: c.type_name.clone(),
        encoding: "ros1msg".into(),
        data: c.message_definition.clone().into_bytes(),
    });
    info.metadata.insert("md5sum".into(), c.md5sum.clone());
    if let Some(cid) = &c.callerid {
        info.metadata.insert("callerid".into(), cid.clone());
    }
    if c.latching {
        info.metadata.insert("latching".into(), "1".into());
    }
    info
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
    pub compression: crate::records::Compression,
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

impl LogReader for Bag<'_> {
    fn format(&self) -> Format {
        Format::RosBag
    }

    fn summary(&self) -> logcore::Result<Summary> {
        let mut s = Summary::new(
            Format::RosBag,
            self.version().to_string(),
            TimeModel::new(Clock::Unix),
        );
        let counts = self.message_counts();
        let times = self.message_times().unwrap_or_default();
        for c in self.connections() {
            let t = times.get(&c.id);
            s.channels.push(ChannelSummary {
                info: channel_info(c),
                message_count: counts.get(&c.id).copied().unwrap_or(0),
                start: t.and_then(|v| v.first()).map(|x| x.to_timestamp()),
                end: t.and_then(|v| v.last()).map(|x| x.to_timestamp()),
            });
        }
        s.message_count = counts.values().sum();
        if let Some((a, b)) = self.time_range() {
            s.start = Some(a.to_timestamp());
            s.end = Some(b.to_timestamp());
        }
        let indexed = match self.index_source() {
            IndexSource::Stored => "true",
            IndexSource::Scanned => "false (index rebuilt by scanning)",
        };
        s.metadata.insert("indexed".into(), indexed.into());
        if self.version().major == 2 {
            s.metadata
                .insert("chunks".into(), self.chunk_infos().len().to_string());
            let kinds: Vec<String> = self
                .compression_counts()
                .iter()
                .map(|(k, n)| format!("{k} x{n}"))
                .collect();
            s.metadata.insert(
                "compression".into(),
                if kinds.is_empty() {
                    "none".into()
                } else {
                    kinds.join(", ")
                },
            );
        }
        if let Some(h) = self.header() {
            s.metadata
                .insert("index_pos".into(), h.index_pos.to_string());
        }
        s.warnings
            .extend(self.warnings().iter().cloned().map(logcore::Error::from));
        if let Some(e) = self.end_error() {
            s.warnings.push(e.clone().into());
        }
        Ok(s)
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        Ok(self.connections().iter().map(channel_info).collect())
    }

    fn messages<'a>(&'a self, filter: &MessageFilter) -> logcore::Result<MessageIter<'a>> {
        Ok(Box::new(Bag::messages(self, filter).map(|r| {
            r.map(|m| {
                let mut msg = Message::new(ChannelId(m.conn), m.time.to_timestamp(), m.data);
                msg.offset = Some(m.offset);
                msg
            })
            .map_err(logcore::Error::from)
        })))
    }

    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        let t = self.message_type(message.channel.0)?;
        Ok(t.decode(&message.payload, message.offset.unwrap_or(0))?)
    }

    fn decode_into(&self, message: &Message<'_>, out: &mut Value) -> logcore::Result<()> {
        let t = self.message_type(message.channel.0)?;
        Ok(t.decode_into(&message.payload, message.offset.unwrap_or(0), out)?)
    }
}
