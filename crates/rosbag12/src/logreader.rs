//! [`logcore::LogReader`] for [`Bag`]: one channel per connection, the
//! summary from the index, time-ordered filtered iteration and decoding.

use logcore::{
    ChannelId, ChannelInfo, ChannelSummary, Clock, Format, LogReader, Message, MessageFilter,
    MessageIter, Schema, Summary, TimeModel, Value, ValueType,
};

use crate::bag::{Bag, IndexSource};
use crate::records::Connection;

/// The logcore view of a connection.
pub fn channel_info(c: &Connection) -> ChannelInfo {
    let mut info = ChannelInfo::new(ChannelId(c.id), &c.topic, &c.type_name, "ros1");
    info.schema = Some(std::sync::Arc::new(Schema {
        name: c.type_name.clone(),
        encoding: "ros1msg".into(),
        data: c.message_definition.clone().into_bytes(),
    }));
    info.metadata.insert("md5sum".into(), c.md5sum.clone());
    if let Some(cid) = &c.callerid {
        info.metadata.insert("callerid".into(), cid.clone());
    }
    if c.latching {
        info.metadata.insert("latching".into(), "1".into());
    }
    info
}

impl LogReader for Bag<'_> {
    fn format(&self) -> Format {
        Format::RosBag
    }

    /// ROS times are seconds and nanoseconds.
    fn time_unit(&self) -> logcore::TimeUnit {
        logcore::TimeUnit::Seconds
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

    /// The bag's messages, and the damage its scan skipped when opening
    /// (records whose data is lost, e.g. a chunk over the size limit): as
    /// `Err` items after the messages in lenient mode, and as the first
    /// and only item in strict mode, which stops at damage.
    fn messages<'a>(&'a self, filter: &MessageFilter) -> logcore::Result<MessageIter<'a>> {
        let lost: Vec<logcore::Error> = self
            .warnings()
            .iter()
            .cloned()
            .map(logcore::Error::from)
            .filter(|e| matches!(e, logcore::Error::Skipped { .. }))
            .collect();
        if filter.mode == logcore::ReadMode::Strict {
            if let Some(first) = lost.into_iter().next() {
                return Ok(Box::new(std::iter::once(Err(first))));
            }
            return Ok(Box::new(self.converted(filter)));
        }
        Ok(Box::new(
            self.converted(filter).chain(lost.into_iter().map(Err)),
        ))
    }

    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        let t = self.message_type(message.channel.0)?;
        Ok(t.decode(&message.payload, message.offset.unwrap_or(0))?)
    }

    fn decode_into(&self, message: &Message<'_>, out: &mut Value) -> logcore::Result<()> {
        let t = self.message_type(message.channel.0)?;
        Ok(t.decode_into(&message.payload, message.offset.unwrap_or(0), out)?)
    }

    /// The type the connection's message definition declares (see
    /// [`MessageType::value_type`](crate::MessageType::value_type)):
    /// `None` when the definition does not parse (its messages do not
    /// decode either), an error when the bag has no such connection.
    fn value_type(&self, channel: ChannelId) -> logcore::Result<Option<ValueType>> {
        match self.message_type(channel.0) {
            Ok(t) => Ok(t.value_type()),
            Err(_) if self.connection(channel.0).is_some() => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

impl Bag<'_> {
    /// [`Bag::messages`] as `logcore` messages.
    fn converted<'a>(
        &'a self,
        filter: &MessageFilter,
    ) -> impl Iterator<Item = logcore::Result<Message<'a>>> + 'a {
        Bag::messages(self, filter).map(|r| {
            r.map(|m| {
                let mut msg = Message::new(ChannelId(m.conn), m.time.to_timestamp(), m.data);
                msg.offset = Some(m.offset);
                msg
            })
            .map_err(logcore::Error::from)
        })
    }
}
