//! [`logcore::LogWriter`] for [`Bag2Writer`]: one topic per channel.
//!
//! The channel's schema gives the definition when its encoding is
//! `ros2msg` or `ros2idl`; otherwise the type is looked up in the bundled
//! interfaces of the bag's distribution (an unknown type is written with
//! an empty definition, as rosbag2 does). The channel's message encoding
//! is the serialization format (`cdr` when empty); its metadata
//! `offered_qos_profiles` (YAML text) and `type_description_hash`, as
//! [`crate::channel_info`] sets them (or `topic_type_hash`, as rosbag2's
//! MCAP channels hold it), are kept; without a hash the writer computes
//! it from the definition. `set_metadata` entries go to `custom_data`.

use logcore::{ChannelId, ChannelInfo, LogWriter, Message};

use super::{Bag2Writer, TopicDefinition, TopicSpec};
use crate::interfaces::{Definitions, Distro};
use crate::metadata::parse_qos_text;

impl Bag2Writer {
    /// The definition of `type_name` in the bundled interfaces.
    fn bundled_definition(&mut self, type_name: &str) -> Option<String> {
        let distro = Distro::for_ros_distro(&self.options.distro);
        self.definitions
            .get_or_insert_with(|| Definitions::bundled(distro))
            .resolve(type_name)
    }
}

impl LogWriter for Bag2Writer {
    fn add_channel(&mut self, info: &ChannelInfo) -> logcore::Result<ChannelId> {
        let mut spec = TopicSpec::new(&info.topic, &info.type_name);
        if !info.message_encoding.is_empty() {
            spec.serialization_format = info.message_encoding.clone();
        }
        spec.definition = match &info.schema {
            Some(s) if matches!(s.encoding.as_str(), "ros2msg" | "ros2idl") => TopicDefinition {
                encoding: s.encoding.clone(),
                text: String::from_utf8_lossy(&s.data).into_owned(),
            },
            _ => match self.bundled_definition(&info.type_name) {
                Some(text) => TopicDefinition::msg(text),
                None => TopicDefinition::default(),
            },
        };
        if let Some(q) = info.metadata.get("offered_qos_profiles") {
            if !q.trim().is_empty() {
                spec.qos = parse_qos_text(q, "offered_qos_profiles").map_err(|e| {
                    logcore::Error::InvalidArgument(format!(
                        "channel {} ({}): {e}",
                        info.id, info.topic
                    ))
                })?;
            }
        }
        if let Some(h) = info
            .metadata
            .get("type_description_hash")
            .or_else(|| info.metadata.get("topic_type_hash"))
        {
            spec.type_description_hash = h.clone();
        }
        Ok(ChannelId(self.add_topic_with(spec)?))
    }

    fn write_message(&mut self, message: &Message<'_>) -> logcore::Result<()> {
        Ok(self.write(message.channel.0, message.log_time.0, &message.payload)?)
    }

    fn set_metadata(&mut self, key: &str, value: &str) -> logcore::Result<()> {
        self.options
            .custom_data
            .insert(key.to_string(), value.to_string());
        Ok(())
    }

    fn finish(&mut self) -> logcore::Result<()> {
        Ok(self.finish_in_place()?)
    }
}
