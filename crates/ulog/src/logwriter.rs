//! [`logcore::LogWriter`] for ULog files: [`ULogWriter`], over [`Writer`].

use std::collections::HashMap;
use std::io::Write;

use logcore::{ChannelId, ChannelInfo, LogWriter, Message, Timestamp};

use crate::format::{FormatDef, Formats};
use crate::write::Writer;

/// A channel: the format it subscribes, its instance, and the msg_id it got
/// once the data section started.
struct Channel {
    name: String,
    multi_id: u8,
    msg_id: Option<u16>,
}

/// Writes a ULog file through [`logcore::LogWriter`], e.g. when converting
/// from another reader.
///
/// A channel is a subscription: its format is the channel's type name and
/// its instance (`multi_id`) the `multi_id` metadata, else the `[N]` suffix
/// of the topic (`sensor_accel[1]`, as [`crate::ULog`]'s reader names
/// topics), else 0. The format definitions come from the channel's schema
/// (encoding `ulog-format`: one `name:type field;...` per line, nested
/// formats included, as the reader gives them); a format already added is
/// not repeated, a different definition under the same name is an error.
/// Payloads are the struct bytes of one sample, whose leading `timestamp`
/// (µs) must be the message's log time.
///
/// Formats go to the definitions section, subscriptions to the data
/// section when the first message is written (channels added after that
/// are subscribed at once, their formats written late, which this crate
/// reads but pyulog skips). Metadata `start_time_us` sets the header's
/// start time (before the first message), `info.KEY` writes a string info
/// message; other keys have no place in the format and are ignored.
///
/// ```
/// use logcore::{ChannelId, ChannelInfo, LogReader, LogWriter, Message, MessageFilter, Payload,
///     Schema, Timestamp};
/// let mut w = ulogfile::ULogWriter::new(Vec::new());
/// let mut info = ChannelInfo::new(ChannelId(0), "imu", "imu", "ulog");
/// info.schema = Some(std::sync::Arc::new(Schema {
///     name: "imu".into(),
///     encoding: "ulog-format".into(),
///     data: b"imu:uint64_t timestamp;float x;".to_vec(),
/// }));
/// let ch = w.add_channel(&info)?;
/// let mut sample = 5u64.to_le_bytes().to_vec();
/// sample.extend_from_slice(&1.5f32.to_le_bytes());
/// w.write_message(&Message::new(ch, Timestamp::from_micros(5).unwrap(), Payload::Borrowed(&sample)))?;
/// w.finish()?;
/// let bytes = w.into_inner().unwrap();
/// let log = ulogfile::ULog::parse(&bytes)?;
/// let m = log.messages(&MessageFilter::all())?.next().unwrap()?;
/// assert_eq!(&*m.payload, &sample[..]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ULogWriter<W: Write> {
    writer: Option<Writer<W>>,
    out: Option<W>,
    formats: Formats,
    /// Definition text of each format added, by name.
    texts: HashMap<String, String>,
    channels: Vec<Channel>,
    data_started: bool,
}

impl<W: Write> std::fmt::Debug for ULogWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ULogWriter")
            .field("channels", &self.channels.len())
            .field("data_started", &self.data_started)
            .finish_non_exhaustive()
    }
}

fn invalid(text: impl Into<String>) -> logcore::Error {
    logcore::Error::InvalidArgument(text.into())
}

impl<W: Write> ULogWriter<W> {
    /// A writer to `out` (header start time 0 unless the `start_time_us`
    /// metadata sets it).
    pub fn new(out: W) -> Self {
        ULogWriter {
            // `Writer::new` does no I/O.
            writer: Writer::new(out, 0).ok(),
            out: None,
            formats: Formats::default(),
            texts: HashMap::new(),
            channels: Vec::new(),
            data_started: false,
        }
    }

    /// The output, once [`LogWriter::finish`] has run.
    pub fn into_inner(self) -> Option<W> {
        self.out
    }

    fn writer(&mut self) -> logcore::Result<&mut Writer<W>> {
        self.writer
            .as_mut()
            .ok_or_else(|| invalid("the ULog writer is finished"))
    }

    fn subscribe(&mut self, index: usize) -> logcore::Result<u16> {
        let (name, multi_id) = {
            let c = &self.channels[index];
            (c.name.clone(), c.multi_id)
        };
        let id = self.writer()?.add_subscription(&name, multi_id)?;
        self.channels[index].msg_id = Some(id);
        Ok(id)
    }

    /// Subscribes every channel, in the order they were added.
    fn start_data(&mut self) -> logcore::Result<()> {
        if !self.data_started {
            self.data_started = true;
            for i in 0..self.channels.len() {
                self.subscribe(i)?;
            }
        }
        Ok(())
    }

    fn add_format(&mut self, def: FormatDef) -> logcore::Result<()> {
        let text = def.to_text();
        match self.texts.get(&def.name) {
            Some(known) if *known == text => return Ok(()),
            Some(known) => {
                return Err(invalid(format!(
                    "format {} defined twice: {known:?} and {text:?}",
                    def.name
                )));
            }
            None => {}
        }
        self.writer()?.add_format_def(&def)?;
        self.texts.insert(def.name.clone(), text);
        self.formats.insert(def);
        Ok(())
    }
}

/// The format and instance of a channel.
fn name_and_instance(info: &ChannelInfo) -> logcore::Result<(String, u8)> {
    let (base, suffix) = match info
        .topic
        .strip_suffix(']')
        .and_then(|t| t.rsplit_once('['))
    {
        Some((b, n)) => (b, n.parse::<u8>().ok()),
        None => (info.topic.as_str(), None),
    };
    let multi_id = match info.metadata.get("multi_id") {
        Some(m) => m
            .parse()
            .map_err(|_| invalid(format!("multi_id must be 0..=255, not {m:?}")))?,
        None => suffix.unwrap_or(0),
    };
    let name = if !info.type_name.is_empty() {
        info.type_name.clone()
    } else if let Some(s) = &info.schema {
        s.name.clone()
    } else {
        base.to_string()
    };
    Ok((name, multi_id))
}

impl<W: Write> LogWriter for ULogWriter<W> {
    fn add_channel(&mut self, info: &ChannelInfo) -> logcore::Result<ChannelId> {
        let (name, multi_id) = name_and_instance(info)?;
        if let Some(schema) = &info.schema {
            if schema.encoding != "ulog-format" {
                return Err(invalid(format!(
                    "a ULog channel's schema is ulog-format, not {:?}",
                    schema.encoding
                )));
            }
            let text = String::from_utf8_lossy(&schema.data);
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let def = FormatDef::parse(line, 0).map_err(|e| invalid(e.to_string()))?;
                self.add_format(def)?;
            }
        }
        // The format and the formats it nests must be known by now.
        self.formats
            .layout(&name, 0)
            .map_err(|e| invalid(format!("channel {:?}: {e}", info.topic)))?;
        self.channels.push(Channel {
            name,
            multi_id,
            msg_id: None,
        });
        let index = self.channels.len() - 1;
        if self.data_started {
            self.subscribe(index)?;
        }
        Ok(ChannelId(index as u32))
    }

    fn write_message(&mut self, message: &Message<'_>) -> logcore::Result<()> {
        let index = message.channel.0 as usize;
        if index >= self.channels.len() {
            return Err(invalid(format!(
                "channel {} was not added to this writer",
                message.channel
            )));
        }
        self.start_data()?;
        let msg_id = match self.channels[index].msg_id {
            Some(id) => id,
            None => self.subscribe(index)?,
        };
        let timestamp = message
            .payload
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes);
        if timestamp.and_then(Timestamp::from_micros) != Some(message.log_time) {
            return Err(invalid(format!(
                "a ULog sample's time is its leading timestamp (µs): {timestamp:?} µs in the \
                 payload, log time {} ns",
                message.log_time.as_nanos()
            )));
        }
        Ok(self.writer()?.write_data(msg_id, &message.payload)?)
    }

    fn set_metadata(&mut self, key: &str, value: &str) -> logcore::Result<()> {
        if key == "start_time_us" {
            if self.data_started {
                return Err(invalid(
                    "start_time_us must be set before the first message",
                ));
            }
            let us = value
                .parse()
                .map_err(|_| invalid(format!("start_time_us must be µs, not {value:?}")))?;
            self.writer()?.set_start_timestamp(us);
        } else if let Some(name) = key.strip_prefix("info.") {
            self.writer()?.add_info_str(name, value)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> logcore::Result<()> {
        self.start_data()?;
        if let Some(w) = self.writer.take() {
            self.out = Some(w.finish()?);
        }
        Ok(())
    }
}
