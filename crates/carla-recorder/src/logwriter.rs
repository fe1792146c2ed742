//! [`logcore::LogWriter`] for CARLA recordings: [`RecordingWriter`].

use std::collections::BTreeMap;
use std::io::Write;

use logcore::{ChannelId, ChannelInfo, LogWriter, Message, Timestamp};

use crate::error::Error;
use crate::header::InfoHeader;
use crate::layout::Layout;
use crate::packet::{Packet, PacketId};
use crate::write::Writer;

/// A frame being collected: the FrameStart payload when one was given, its
/// time, and the packets (id, payload).
struct OpenFrame {
    start: Option<Vec<u8>>,
    time: Timestamp,
    packets: Vec<(u8, Vec<u8>)>,
}

/// Writes a recording through [`logcore::LogWriter`], e.g. when converting
/// from another reader.
///
/// Channels are packet kinds: a channel's topic must be a CARLA packet name
/// (`Position`, `EventAdd`, ...) or `Custom<id>`. Payloads are written as
/// they are. A message on the `FrameStart` channel starts a frame with that
/// payload; otherwise consecutive messages with the same log time form a
/// frame whose FrameStart is made like [`Writer::tick`] does. Metadata
/// `map` and `date` (Unix seconds) fill the info header; set them before the
/// first message. [`LogWriter::finish`] writes the file to the sink.
///
/// ```
/// use logcore::{ChannelId, ChannelInfo, LogReader, LogWriter, Message, Payload, Timestamp};
/// let mut out = Vec::new();
/// let mut w = carla_recorder::RecordingWriter::new(&mut out);
/// w.set_metadata("map", "Town05")?;
/// let ch = w.add_channel(&ChannelInfo::new(ChannelId(0), "EventDel", "EventDel", "carla"))?;
/// let payload = [1u8, 0, 7, 0, 0, 0]; // one EventDel record: actor 7
/// w.write_message(&Message::new(ch, Timestamp(0), Payload::Borrowed(&payload)))?;
/// w.finish()?;
/// let rec = carla_recorder::Recording::new(&out)?;
/// assert_eq!(rec.summary()?.metadata["map"], "Town05");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RecordingWriter<W: Write> {
    sink: Option<W>,
    layout: Layout,
    map: String,
    date: i64,
    writer: Option<Writer>,
    channels: BTreeMap<ChannelId, u8>,
    open: Option<OpenFrame>,
}

impl<W: Write> RecordingWriter<W> {
    /// A writer in the default layout.
    pub fn new(sink: W) -> Self {
        Self::with_layout(sink, Layout::default())
    }

    /// A writer in `layout` (it matters only for typed packets; payloads
    /// given through [`LogWriter`] are written as they are).
    pub fn with_layout(sink: W, layout: Layout) -> Self {
        RecordingWriter {
            sink: Some(sink),
            layout,
            map: String::new(),
            date: 0,
            writer: None,
            channels: BTreeMap::new(),
            open: None,
        }
    }

    fn writer(&mut self) -> crate::Result<&mut Writer> {
        if self.writer.is_none() {
            let h = InfoHeader::new(self.date, self.map.as_bytes());
            self.writer = Some(Writer::with_layout(h, self.layout)?);
        }
        self.writer
            .as_mut()
            .ok_or_else(|| Error::InvalidArgument("writer state".into()))
    }

    fn flush_frame(&mut self) -> crate::Result<()> {
        let Some(f) = self.open.take() else {
            return Ok(());
        };
        let packets: Vec<Packet<'_>> = f
            .packets
            .iter()
            .map(|(id, payload)| Packet::Raw { id: *id, payload })
            .collect();
        let w = self.writer()?;
        match &f.start {
            Some(start) => {
                w.raw_packet(PacketId::FrameStart as u8, start)?;
                for p in &packets {
                    w.packet(p)?;
                }
                w.packet(&Packet::FrameEnd)
            }
            None => w.tick(f.time.as_secs_f64(), &packets),
        }
    }
}

/// The packet id a channel topic names.
fn packet_id(topic: &str) -> Option<u8> {
    if let Some(n) = topic.strip_prefix("Custom") {
        return n.parse().ok();
    }
    PacketId::ALL
        .iter()
        .find(|p| p.name() == topic)
        .map(|p| *p as u8)
}

impl<W: Write> LogWriter for RecordingWriter<W> {
    fn add_channel(&mut self, info: &ChannelInfo) -> logcore::Result<ChannelId> {
        let id = packet_id(&info.topic).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!(
                "a CARLA channel is a packet kind (FrameStart, EventAdd, Position, ..., or \
                 Custom<id>), not {:?}",
                info.topic
            ))
        })?;
        let ch = ChannelId(u32::from(id));
        self.channels.insert(ch, id);
        Ok(ch)
    }

    fn write_message(&mut self, message: &Message<'_>) -> logcore::Result<()> {
        let id = *self.channels.get(&message.channel).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!(
                "channel {} was not added to this writer",
                message.channel
            ))
        })?;
        let payload = message.payload.to_vec();
        if id == PacketId::FrameStart as u8 {
            self.flush_frame()?;
            self.open = Some(OpenFrame {
                start: Some(payload),
                time: message.log_time,
                packets: Vec::new(),
            });
            return Ok(());
        }
        if id == PacketId::FrameEnd as u8 {
            return self.flush_frame();
        }
        if self
            .open
            .as_ref()
            .is_none_or(|f| f.time != message.log_time)
        {
            self.flush_frame()?;
            self.open = Some(OpenFrame {
                start: None,
                time: message.log_time,
                packets: Vec::new(),
            });
        }
        if let Some(f) = self.open.as_mut() {
            f.packets.push((id, payload));
        }
        Ok(())
    }

    fn set_metadata(&mut self, key: &str, value: &str) -> logcore::Result<()> {
        if self.writer.is_some() {
            return Err(logcore::Error::InvalidArgument(
                "CARLA header metadata must be set before the first message".into(),
            ));
        }
        match key {
            "map" => self.map = value.to_string(),
            "date" => {
                self.date = value.parse().map_err(|_| {
                    logcore::Error::InvalidArgument(format!(
                        "date must be Unix seconds, not {value:?}"
                    ))
                })?
            }
            // Other keys have no place in the format.
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> logcore::Result<()> {
        self.flush_frame()?;
        self.writer()?;
        let bytes = self.writer.take().map(Writer::finish).unwrap_or_default();
        if let Some(mut sink) = self.sink.take() {
            sink.write_all(&bytes)?;
            sink.flush()?;
        }
        Ok(())
    }
}
