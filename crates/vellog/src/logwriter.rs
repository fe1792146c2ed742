//! [`logcore::LogWriter`] for the VEL [`Writer`]: a logcore channel becomes
//! a (type, version) pair; topic and sensor need no declaration, as the
//! sensor key travels in the payload.

use std::io::{Read, Seek, Write};

use logcore::{ChannelId, ChannelInfo, FormatError, LogWriter, Message};

use crate::error::{Error, Result};
use crate::registry::Registry;
use crate::write::Writer;

/// The (type, version) a logcore channel writes as: from its `type_id` and
/// `version` metadata, else from its type name in the registry.
fn channel_pair(registry: &Registry, info: &ChannelInfo) -> Result<(i32, i32)> {
    let parse_int = |s: &str| -> Option<i64> {
        let s = s.trim();
        match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(hex) => i64::from_str_radix(hex, 16).ok(),
            None => s.parse().ok(),
        }
    };
    let meta = |k: &str| info.metadata.get(k).map(String::as_str);
    let type_id = match meta("type_id") {
        Some(s) => parse_int(s)
            .and_then(|v| {
                i32::try_from(v)
                    .ok()
                    .or_else(|| u32::try_from(v).ok().map(|u| u as i32))
            })
            .ok_or_else(|| Error::invalid_argument(format!("type_id {s:?} is not an integer")))?,
        None => match registry.type_id(&info.type_name) {
            Some(id) => id,
            None => info
                .type_name
                .strip_prefix("unknown_0x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .map(|u| u as i32)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "channel {:?}: type {:?} is not a registered VEL message type and \
                         has no type_id metadata",
                        info.topic, info.type_name
                    ))
                })?,
        },
    };
    let version = match meta("version") {
        Some(s) => parse_int(s)
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| Error::invalid_argument(format!("version {s:?} is not an integer")))?,
        None => registry.versions(type_id).last().copied().ok_or_else(|| {
            Error::invalid_argument(format!(
                "channel {:?}: no version metadata and no registered version of {:?}",
                info.topic, info.type_name
            ))
        })?,
    };
    Ok((type_id, version))
}

impl<W: Read + Write + Seek> LogWriter for Writer<W> {
    /// Resolves the channel's (type, version) from its `type_id` and
    /// `version` metadata, else from its type name in the registry (the
    /// latest registered version). Topic and sensor need no declaration:
    /// the sensor key travels in the payload.
    fn add_channel(&mut self, info: &ChannelInfo) -> logcore::Result<ChannelId> {
        let pair = channel_pair(&self.registry, info)?;
        self.channels.push(pair);
        Ok(ChannelId((self.channels.len() - 1) as u32))
    }

    fn write_message(&mut self, message: &Message<'_>) -> logcore::Result<()> {
        let &(type_id, version) =
            self.channels
                .get(message.channel.0 as usize)
                .ok_or_else(|| {
                    logcore::Error::InvalidArgument(format!(
                        "channel {} was not returned by add_channel",
                        message.channel
                    ))
                })?;
        let ns = message.log_time.as_nanos();
        // Whole milliseconds stay exact; only the sub-millisecond part is
        // subject to rounding.
        let ms = (ns / 1_000_000) as f64 + (ns % 1_000_000) as f64 / 1e6;
        Ok(self.write_raw(type_id, version, ms, &message.payload)?)
    }

    /// VEL files have no place for metadata: accepted and dropped.
    fn set_metadata(&mut self, _key: &str, _value: &str) -> logcore::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> logcore::Result<()> {
        Ok(Writer::finish(self)?)
    }
}
