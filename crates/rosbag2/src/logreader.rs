//! [`logcore::LogReader`] for [`Bag2`]: one channel per topic, the
//! summary from the storage files' own counts, time-ordered filtered
//! iteration and CDR decoding through `ros2cdr`.

use std::sync::Arc;

use logcore::{
    ChannelInfo, ChannelSummary, Clock, Format, LogReader, Message, MessageFilter, MessageIter,
    Schema, Summary, TimeModel, Timestamp, Value, ValueType,
};

use crate::bag::{Bag2, DefinitionSource, Topic};

/// The logcore view of a topic: encoding its serialization format
/// (`cdr`), the definition as schema, QoS profiles, type hash and the
/// definition's source as metadata.
pub fn channel_info(t: &Topic) -> ChannelInfo {
    let mut info = ChannelInfo::new(t.id, &t.name, &t.type_name, &t.serialization_format);
    if let Some(d) = &t.definition {
        info.schema = Some(Arc::new(Schema {
            name: t.type_name.clone(),
            encoding: d.encoding.clone(),
            data: d.text.clone().into_bytes(),
        }));
        let source = match d.source {
            DefinitionSource::Bag => "bag".to_string(),
            DefinitionSource::Added => "added".to_string(),
            DefinitionSource::Bundled(x) => format!("bundled {}", x.name()),
        };
        info.metadata.insert("definition_source".into(), source);
    }
    info.metadata.insert(
        "offered_qos_profiles".into(),
        t.offered_qos_profiles.clone(),
    );
    if !t.type_description_hash.is_empty() {
        info.metadata.insert(
            "type_description_hash".into(),
            t.type_description_hash.clone(),
        );
    }
    if let Some(n) = t.metadata_message_count {
        info.metadata
            .insert("metadata_message_count".into(), n.to_string());
    }
    info
}

impl LogReader for Bag2 {
    fn format(&self) -> Format {
        Format::Rosbag2
    }

    fn summary(&self) -> logcore::Result<Summary> {
        let version = self
            .metadata()
            .map_or_else(String::new, |m| m.version.to_string());
        let mut s = Summary::new(Format::Rosbag2, version, TimeModel::new(Clock::Unix));
        let all = self.stats()?;
        let stats = &all.channels;
        for t in self.topics() {
            let st = stats.get(&t.id);
            s.channels.push(ChannelSummary {
                info: channel_info(t),
                message_count: st.map_or(0, |x| x.count),
                start: st.map(|x| Timestamp(x.start)),
                end: st.map(|x| Timestamp(x.end)),
            });
        }
        s.message_count = stats.values().map(|x| x.count).sum();
        s.start = stats.values().map(|x| Timestamp(x.start)).min();
        s.end = stats.values().map(|x| Timestamp(x.end)).max();
        let m = &mut s.metadata;
        m.insert(
            "storage_identifier".into(),
            self.files
                .iter()
                .map(|f| f.identifier)
                .collect::<Vec<_>>()
                .join(", "),
        );
        m.insert("files".into(), self.files.len().to_string());
        m.insert("distro_definitions".into(), self.distro().name().into());
        if let Some(v) = self.files.iter().find_map(|f| f.schema_version) {
            m.insert("sqlite_schema_version".into(), v.to_string());
        }
        if let Some(md) = self.metadata() {
            m.insert("metadata.version".into(), md.version.to_string());
            m.insert(
                "metadata.message_count".into(),
                md.message_count.to_string(),
            );
            m.insert(
                "metadata.starting_time".into(),
                md.starting_time.to_string(),
            );
            m.insert("metadata.duration".into(), md.duration.to_string());
            m.insert("compression_format".into(), md.compression_format.clone());
            m.insert("compression_mode".into(), md.compression_mode.clone());
            if !md.ros_distro.is_empty() {
                m.insert("ros_distro".into(), md.ros_distro.clone());
            }
            for (k, v) in &md.custom_data {
                m.insert(format!("custom_data.{k}"), v.clone());
            }
        }
        s.warnings
            .extend(all.orphans.iter().cloned().map(logcore::Error::from));
        for n in self.notices() {
            s.warnings.push(logcore::Error::unsupported(
                0,
                match &n.topic {
                    Some(t) => format!("ROS 2 bag topic {t}"),
                    None => "ROS 2 bag".to_string(),
                },
                n.text.clone(),
            ));
        }
        Ok(s)
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        Ok(self.topics().iter().map(channel_info).collect())
    }

    fn messages<'a>(&'a self, filter: &MessageFilter) -> logcore::Result<MessageIter<'a>> {
        let it = Bag2::messages(self, filter)?;
        Ok(Box::new(it.map(|r| r.map_err(logcore::Error::from))))
    }

    /// The CDR payload decoded with the topic's definition; the payload
    /// as [`Value::Bytes`] for a topic without a usable definition or
    /// whose serialization format is not CDR (see [`Bag2::notices`]).
    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        let t = self.topic(message.channel).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!(
                "channel {} does not exist in this bag",
                message.channel
            ))
        })?;
        match &t.message_type {
            Some(mt) => mt
                .decode(&message.payload, message.offset.unwrap_or(0))
                .map_err(|e| match logcore::Error::from(e) {
                    logcore::Error::Malformed {
                        offset,
                        expected,
                        found,
                    } => logcore::Error::malformed(
                        offset,
                        format!("{expected} (a {} message on {})", t.type_name, t.name),
                        found,
                    ),
                    other => other,
                }),
            None => Ok(Value::Bytes(message.payload.to_vec())),
        }
    }

    /// The type the topic's definition declares; [`ValueType::Bytes`]
    /// for a topic read as raw bytes.
    fn value_type(&self, channel: logcore::ChannelId) -> logcore::Result<Option<ValueType>> {
        let t = self.topic(channel).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!("channel {channel} does not exist in this bag"))
        })?;
        Ok(match &t.message_type {
            Some(mt) => mt.value_type(),
            None => Some(ValueType::Bytes),
        })
    }

    fn message_columns(&self) -> &'static [logcore::MessageColumn] {
        &[]
    }
}
