//! [`logcore::LogReader`] for [`VelLog`]: channels per (type, version,
//! sensor), the summary, filtered message iteration and decoding.

use logcore::FormatError;
use logcore::{
    ChannelInfo, ChannelSummary, Format, LogReader, Message, MessageFilter, MessageIter, Payload,
    ReadMode, Schema, Summary, Value, ValueType,
};

use crate::error::Error;
use crate::read::{EndOfRecords, Records, VelLog};
use crate::records::display_string;
use crate::registry::Registry;
use crate::scan::{ChannelEntry, SensorKey, sensor_key};

/// The logcore description of a channel the summary pass found: the
/// topic is the type name, `@v<version>` for an unknown version, and the
/// sensor (`/<source id>` or `/<sensor name>`).
fn channel_info(registry: &Registry, entry: &ChannelEntry) -> ChannelInfo {
    let (id, type_id, version, key) = (entry.id, entry.type_id, entry.version, entry.key());
    let type_name = registry.type_name(type_id);
    let mut topic = type_name.clone();
    if !registry.is_known(type_id, version) {
        topic.push_str(&format!("@v{version}"));
    }
    let mut info = ChannelInfo::new(id, String::new(), type_name.clone(), "vel")
        .with_metadata("type_id", format!("0x{type_id:08x}"))
        .with_metadata("version", version.to_string());
    match key {
        SensorKey::None => {}
        SensorKey::SourceId(s) => {
            topic.push_str(&format!("/{s}"));
            info = info.with_metadata("source_id", s.to_string());
        }
        SensorKey::Name { name, sensor_type } => {
            let name = display_string(name);
            topic.push('/');
            topic.push_str(&name);
            info = info
                .with_metadata("sensor_name", name)
                .with_metadata("sensor_type", display_string(sensor_type));
        }
    }
    info.topic = topic;
    info.schema = registry.schema(type_id, version).map(|text| {
        std::sync::Arc::new(Schema {
            name: type_name,
            encoding: "vel-builtin".into(),
            data: text.as_bytes().to_vec(),
        })
    });
    info
}

struct MessageStream<'a> {
    log: &'a VelLog<'a>,
    records: Records<'a>,
    filter: MessageFilter,
    done: bool,
}

impl<'a> Iterator for MessageStream<'a> {
    type Item = logcore::Result<Message<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let scan = self.log.scan();
        loop {
            let rec = match self.records.next()? {
                Ok(rec) => rec,
                Err(e) => return Some(Err(e.into())),
            };
            let key = sensor_key(rec.type_id, rec.version, rec.payload);
            let Some(channel) = scan.channel_for(rec.type_id, rec.version, &key) else {
                // Only reachable when this walk found a message the lenient
                // summary pass did not (a seek that started elsewhere).
                let e = Error::malformed(
                    rec.offset,
                    "a message on a channel found by the summary pass",
                    format!("type 0x{:08x} v{}", rec.type_id, rec.version),
                );
                return Some(Err(self.fail(e, rec.end() - rec.offset)));
            };
            if !self.filter.matches_channel(channel) {
                continue;
            }
            let time = match rec.timestamp() {
                Ok(t) => t,
                Err(e) => return Some(Err(self.fail(e, rec.end() - rec.offset))),
            };
            if !self.filter.matches_time(time) {
                continue;
            }
            let mut m = Message::new(channel, time, Payload::Borrowed(rec.payload));
            m.offset = Some(rec.offset);
            return Some(Ok(m));
        }
    }
}

impl MessageStream<'_> {
    /// A message that frames correctly but cannot be delivered: strict mode
    /// ends with the error, lenient mode reports it as skipped.
    fn fail(&mut self, e: Error, len: u64) -> logcore::Error {
        if self.filter.mode == ReadMode::Strict {
            self.done = true;
            e.into()
        } else {
            logcore::Error::skipped(e.offset().unwrap_or(0), len, e.to_string())
        }
    }
}

impl LogReader for VelLog<'_> {
    fn format(&self) -> Format {
        Format::VelLog
    }

    fn time_unit(&self) -> logcore::TimeUnit {
        logcore::TimeUnit::Milliseconds
    }

    fn summary(&self) -> logcore::Result<Summary> {
        let scan = self.scan();
        let header = self.header();
        let mut s = Summary::new(
            Format::VelLog,
            format!("{}.{}", header.major, header.minor),
            self.time_model(),
        );
        s.channels = scan
            .channels
            .iter()
            .map(|c| ChannelSummary {
                info: channel_info(self.registry(), c),
                message_count: c.count,
                start: c.start,
                end: c.end,
            })
            .collect();
        s.message_count = scan.message_count;
        s.start = scan.start;
        s.end = scan.end;
        let check = self.index_check();
        let conv = self.size_convention();
        let meta = [
            ("file_version", format!("{}.{}", header.major, header.minor)),
            (
                "size_convention",
                format!(
                    "{} ({})",
                    conv.letter(),
                    match conv {
                        crate::SizeConvention::IncludesHeader =>
                            "size counts the whole message with its 21-byte header",
                        crate::SizeConvention::ExcludesSizeField =>
                            "size excludes its own 4 bytes: payload = size - 17",
                    }
                ),
            ),
            (
                "size_convention_evidence",
                format!("{} leading messages", self.size_convention_evidence()),
            ),
            (
                "first_message_offset",
                self.first_message_offset().to_string(),
            ),
            ("index_entries", check.entries.to_string()),
            (
                "index_valid",
                // An empty index (an unfinished writer) is useless, not wrong.
                ((check.usable || check.entries == 0) && scan.index_entries_off_boundary == 0)
                    .to_string(),
            ),
            ("index_used_for_seeking", check.usable.to_string()),
            ("timestamps_monotonic", scan.monotonic.to_string()),
        ];
        for (k, v) in meta {
            s.metadata.insert(k.into(), v);
        }
        if let Some(reason) = &check.reason {
            s.metadata.insert("index_note".into(), reason.clone());
        }
        let terminator = match scan.end_state {
            Some(EndOfRecords::Terminator { offset, trailing }) => {
                s.metadata
                    .insert("trailing_bytes".into(), trailing.to_string());
                format!("at byte {offset}")
            }
            _ => "none".into(),
        };
        s.metadata.insert("terminator".into(), terminator);
        if scan.ascii_one_markers > 0 {
            s.metadata.insert(
                "marker_0x31_messages".into(),
                scan.ascii_one_markers.to_string(),
            );
        }
        if scan.dropped_warnings > 0 {
            s.metadata.insert(
                "warnings_not_listed".into(),
                scan.dropped_warnings.to_string(),
            );
        }
        if !check.usable && check.entries > 0 {
            s.warnings.push(logcore::Error::malformed(
                8,
                "an index following spec 5.4 (used for seeking)",
                format!(
                    "{}; time seeks scan from the first message",
                    check.reason.as_deref().unwrap_or("an unusable index")
                ),
            ));
        }
        s.warnings
            .extend(scan.warnings.iter().cloned().map(logcore::Error::from));
        Ok(s)
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        Ok(self
            .scan()
            .channels
            .iter()
            .map(|c| channel_info(self.registry(), c))
            .collect())
    }

    fn messages<'a>(&'a self, filter: &MessageFilter) -> logcore::Result<MessageIter<'a>> {
        let start = match filter.start {
            Some(t) => self.start_offset_for(t),
            None => self.first_message_offset(),
        };
        Ok(Box::new(MessageStream {
            log: self,
            records: self.records_from(start, filter.mode),
            filter: filter.clone(),
            done: false,
        }))
    }

    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        let channel = self.scan().channel(message.channel).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!(
                "channel {} does not exist in this VEL log",
                message.channel
            ))
        })?;
        let offset = message
            .offset
            .map_or(0, |o| o + crate::header::MESSAGE_HEADER_LEN as u64);
        Ok(self
            .registry()
            .decode(channel.type_id, channel.version, &message.payload, offset)?)
    }

    /// [`Registry::value_type`] of the channel's (type, version).
    fn value_type(&self, channel: logcore::ChannelId) -> logcore::Result<Option<ValueType>> {
        let entry = self.scan().channel(channel).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!(
                "channel {channel} does not exist in this VEL log"
            ))
        })?;
        Ok(self.registry().value_type(entry.type_id, entry.version))
    }
}
