//! Opening a file and picking the reader for its format.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use logcore::{
    ChannelId, ChannelInfo, Error, FileBytes, Format, LogReader, Message, MessageFilter,
    MessageIter, Summary, Value,
};
use osi_mcap::proto::{ProtoError, ProtobufDecoder};

use crate::Failure;

/// A file's bytes and its detected format.
pub(crate) struct Opened {
    pub(crate) bytes: FileBytes,
    pub(crate) format: Format,
}

/// Maps `path` and recognises its format by its magic bytes.
pub(crate) fn open_file(path: &Path) -> Result<Opened, Failure> {
    let bytes = FileBytes::open(path).map_err(|e| Failure::new(path, e))?;
    let head = &bytes[..bytes.len().min(Format::PROBE_LEN)];
    let format = logcore::probe(head).ok_or_else(|| {
        Failure::new(
            path,
            Error::UnknownFormat {
                found: logcore::error::hex_preview(head),
            },
        )
    })?;
    Ok(Opened { bytes, format })
}

/// The reader for `format` over `bytes`; formats whose crate is not part of
/// this build report that they are not supported yet.
pub(crate) fn reader<'a>(
    format: Format,
    bytes: &'a [u8],
) -> Result<Box<dyn LogReader + 'a>, Error> {
    match format {
        Format::VelLog => Ok(Box::new(vellog::VelLog::new(bytes)?)),
        Format::ULog => Ok(Box::new(ulogfile::ULog::parse(bytes)?)),
        Format::RosBag => Ok(Box::new(rosbag12::Bag::new(bytes)?)),
        Format::Mcap => Ok(Box::new(ProtobufMcap::new(mcapfile::Mcap::new(bytes)?))),
        Format::CarlaRecorder => Ok(Box::new(carla_recorder::Recording::new(bytes)?)),
        other => Err(Error::Unsupported {
            format: other,
            detail: None,
        }),
    }
}

/// An MCAP reader that also decodes `protobuf` channels whose schema is a
/// FileDescriptorSet (one decoder per channel, built on first use); every
/// other channel decodes as [`mcapfile::Mcap`] does.
struct ProtobufMcap<'a> {
    mcap: mcapfile::Mcap<'a>,
    channels: OnceLock<HashMap<ChannelId, ChannelInfo>>,
    decoders: Mutex<HashMap<ChannelId, Result<ProtobufDecoder, ProtoError>>>,
}

impl<'a> ProtobufMcap<'a> {
    fn new(mcap: mcapfile::Mcap<'a>) -> Self {
        ProtobufMcap {
            mcap,
            channels: OnceLock::new(),
            decoders: Mutex::new(HashMap::new()),
        }
    }
}

impl LogReader for ProtobufMcap<'_> {
    fn format(&self) -> Format {
        self.mcap.format()
    }

    fn summary(&self) -> logcore::Result<Summary> {
        self.mcap.summary()
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        self.mcap.channels()
    }

    fn messages<'b>(&'b self, filter: &MessageFilter) -> logcore::Result<MessageIter<'b>> {
        self.mcap.messages(filter)
    }

    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        let channels = self.channels.get_or_init(|| {
            let list = self.mcap.channels().unwrap_or_default();
            list.into_iter().map(|c| (c.id, c)).collect()
        });
        let Some((channel, schema)) = channels.get(&message.channel).and_then(|c| {
            let s = c.schema.as_ref()?;
            (c.message_encoding == "protobuf" && s.encoding == "protobuf").then_some((c, s))
        }) else {
            return self.mcap.decode(message);
        };
        let mut decoders = self
            .decoders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let decoder = decoders
            .entry(message.channel)
            .or_insert_with(|| ProtobufDecoder::new(&schema.name, &schema.data));
        let offset = message.offset.unwrap_or(0);
        let decoder = decoder.as_ref().map_err(|e| {
            Error::malformed(
                offset,
                format!(
                    "a protobuf schema {:?} for channel {:?}",
                    schema.name, channel.topic
                ),
                e.to_string(),
            )
        })?;
        decoder.decode(&message.payload).map_err(|e| {
            Error::malformed(
                offset,
                format!(
                    "a protobuf {} message on channel {:?}",
                    schema.name, channel.topic
                ),
                e.to_string(),
            )
        })
    }
}
