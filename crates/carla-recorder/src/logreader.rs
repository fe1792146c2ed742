//! [`logcore::LogReader`] for [`Recording`]: one channel per packet kind
//! (channel id = packet id), messages at their frame's elapsed time, clock
//! `RecordingStart` anchored by the header date.

use logcore::{
    ChannelId, ChannelInfo, ChannelSummary, Format, LogReader, Message, MessageFilter, MessageIter,
    Payload, ReadMode, Summary, Timestamp, Value, ValueType,
};

use crate::packet::{PacketId, packet_name};
use crate::read::{FramePackets, Frames, Recording};
use crate::scan::frame_time;
use crate::value::{packet_type, packet_value, raw_packet_type};

fn channel_info(id: u8) -> ChannelInfo {
    let name = packet_name(id);
    ChannelInfo::new(
        ChannelId(u32::from(id)),
        name.as_ref(),
        name.as_ref(),
        "carla",
    )
    .with_metadata("packet_id", id.to_string())
}

struct MessageStream<'a> {
    frames: Frames<'a>,
    /// The rest of the current frame: its packets, time and frame id.
    current: Option<(FramePackets<'a>, Timestamp, u64)>,
    filter: MessageFilter,
}

impl<'a> Iterator for MessageStream<'a> {
    type Item = logcore::Result<Message<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((packets, t, frame)) = &mut self.current {
                for p in packets.by_ref() {
                    let channel = ChannelId(u32::from(p.id));
                    if self.filter.matches_channel(channel) {
                        let mut m = Message::new(channel, *t, Payload::Borrowed(p.payload));
                        m.sequence = Some(*frame);
                        m.offset = Some(p.offset);
                        return Some(Ok(m));
                    }
                }
                self.current = None;
            }
            let f = match self.frames.next()? {
                Ok(f) => f,
                Err(e) => return Some(Err(e)),
            };
            let t = frame_time(f.start.elapsed);
            if !self.filter.matches_time(t) {
                continue;
            }
            self.current = Some((f.packets(), t, f.start.id));
            let channel = ChannelId(u32::from(PacketId::FrameStart as u8));
            if self.filter.matches_channel(channel) {
                let at = f.offset as usize + crate::packet::PACKET_HEADER_LEN;
                let payload = self
                    .frames
                    .data()
                    .get(at..at + crate::frame::FRAME_START_LEN)
                    .unwrap_or_default();
                let mut m = Message::new(channel, t, Payload::Borrowed(payload));
                m.sequence = Some(f.start.id);
                m.offset = Some(f.offset);
                return Some(Ok(m));
            }
        }
    }
}

impl LogReader for Recording<'_> {
    fn format(&self) -> Format {
        Format::CarlaRecorder
    }

    /// Frames are stamped in (float) seconds of the recording.
    fn time_unit(&self) -> logcore::TimeUnit {
        logcore::TimeUnit::Seconds
    }

    fn summary(&self) -> logcore::Result<Summary> {
        let scan = self.scan();
        let h = self.header();
        let mut s = Summary::new(
            Format::CarlaRecorder,
            h.version.to_string(),
            self.time_model(),
        );
        s.channels = scan
            .per_id
            .iter()
            .filter(|(id, ..)| *id != PacketId::FrameEnd as u8)
            .map(|&(id, n, a, b)| ChannelSummary {
                info: channel_info(id),
                message_count: n,
                start: Some(a),
                end: Some(b),
            })
            .collect();
        s.message_count = scan.messages;
        s.start = scan.start;
        s.end = scan.end;
        let l = self.layout();
        let opt = |v: Option<String>| v.unwrap_or_else(|| "none".into());
        let meta = [
            ("map", h.map_name().into_owned()),
            ("date", h.date.to_string()),
            ("header_version", h.version.to_string()),
            ("frames", scan.frames.to_string()),
            (
                "first_frame_id",
                opt(scan.first_frame_id.map(|v| v.to_string())),
            ),
            (
                "last_frame_id",
                opt(scan.last_frame_id.map(|v| v.to_string())),
            ),
            (
                "last_elapsed",
                opt(scan.last_elapsed.map(|v| v.to_string())),
            ),
            (
                "last_frame_duration",
                opt(scan.last_duration.map(|v| v.to_string())),
            ),
            ("packets", scan.packets.to_string()),
            ("event_add_records", scan.event_add_records.to_string()),
            ("event_del_records", scan.event_del_records.to_string()),
            ("vector_width", format!("{:?}", l.vectors).to_lowercase()),
            ("wheel_record_bytes", l.wheels.len().to_string()),
            (
                "attribute_coding",
                match l.attributes {
                    crate::AttributeCoding::ZeroBased => "zero_based".into(),
                    crate::AttributeCoding::OneBased => "one_based".into(),
                },
            ),
        ];
        for (k, v) in meta {
            s.metadata.insert(k.into(), v);
        }
        s.warnings.extend(scan.warnings.iter().cloned());
        Ok(s)
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        Ok(self
            .scan()
            .per_id
            .iter()
            .filter(|(id, ..)| *id != PacketId::FrameEnd as u8)
            .map(|(id, ..)| channel_info(*id))
            .collect())
    }

    fn messages<'a>(&'a self, filter: &MessageFilter) -> logcore::Result<MessageIter<'a>> {
        Ok(Box::new(MessageStream {
            frames: self.frames_with(filter.mode),
            current: None,
            filter: filter.clone(),
        }))
    }

    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        let id = u8::try_from(message.channel.0).map_err(|_| {
            logcore::Error::InvalidArgument(format!(
                "channel {} is not a CARLA packet id",
                message.channel
            ))
        })?;
        let offset = message.offset.unwrap_or(0);
        let layout = self.layout();
        let p = crate::Packet::decode(id, &message.payload, offset, &layout)?;
        Ok(packet_value(&p, &layout))
    }

    /// [`packet_type`] of the channel's packet id in the detected layout.
    /// Id 18 is CARLA's FrameCounter when every id-18 packet holds its 8
    /// bytes, a raw packet when none does (a fork's use of the id), and
    /// [`ValueType::Any`] when the file mixes both.
    fn value_type(&self, channel: ChannelId) -> logcore::Result<Option<ValueType>> {
        let id = u8::try_from(channel.0).map_err(|_| {
            logcore::Error::InvalidArgument(format!("channel {channel} is not a CARLA packet id"))
        })?;
        if id == PacketId::FrameCounter as u8 {
            let (mut counters, mut others) = (false, false);
            let packets = self.packets_from(self.first_packet_offset(), ReadMode::Lenient);
            for p in packets.flatten().filter(|p| p.id == id) {
                if p.payload.len() == 8 {
                    counters = true;
                } else {
                    others = true;
                }
            }
            if counters && others {
                return Ok(Some(ValueType::Any));
            }
            if others {
                return Ok(Some(raw_packet_type()));
            }
        }
        Ok(Some(packet_type(id, &self.layout())))
    }
}
