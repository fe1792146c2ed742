//! What a log holds, at a glance.

use std::collections::BTreeMap;

use crate::{ChannelId, ChannelInfo, Format, TimeModel, Timestamp};

/// A channel and how many messages it carries.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelSummary {
    /// The channel.
    pub info: ChannelInfo,
    /// Number of messages on it.
    pub message_count: u64,
    /// Time of its first message.
    pub start: Option<Timestamp>,
    /// Time of its last message.
    pub end: Option<Timestamp>,
}

/// Overview of a log: format, channels, counts, time range and metadata.
#[derive(Debug)]
pub struct Summary {
    /// The file format.
    pub format: Format,
    /// The format version as the file states it (`"2.0"`, `"1.1"`, ...).
    pub version: String,
    /// The clock of all timestamps in this summary and in the messages.
    pub time_model: TimeModel,
    /// Every channel, in id order.
    pub channels: Vec<ChannelSummary>,
    /// Total number of messages.
    pub message_count: u64,
    /// Earliest message time.
    pub start: Option<Timestamp>,
    /// Latest message time.
    pub end: Option<Timestamp>,
    /// Header fields, parameters, info records and similar, as text.
    pub metadata: BTreeMap<String, String>,
    /// Problems found while summarising (truncation, skipped bytes, index
    /// entries that did not hold up). Empty for a healthy file.
    pub warnings: Vec<crate::Error>,
}

impl Summary {
    /// An empty summary for `format`.
    pub fn new(format: Format, version: impl Into<String>, time_model: TimeModel) -> Self {
        Summary {
            format,
            version: version.into(),
            time_model,
            channels: Vec::new(),
            message_count: 0,
            start: None,
            end: None,
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Duration from first to last message in nanoseconds (0 when empty).
    pub fn duration_ns(&self) -> i64 {
        match (self.start, self.end) {
            (Some(s), Some(e)) => e.saturating_sub(s),
            _ => 0,
        }
    }

    /// The ids of the channels whose topic is `topic` (several channels may
    /// share a topic, e.g. ROS connections from different publishers).
    pub fn channels_on_topic(&self, topic: &str) -> Vec<ChannelId> {
        self.channels
            .iter()
            .filter(|c| c.info.topic == topic)
            .map(|c| c.info.id)
            .collect()
    }

    /// The channel with id `id`.
    pub fn channel(&self, id: ChannelId) -> Option<&ChannelSummary> {
        self.channels.iter().find(|c| c.info.id == id)
    }
}
