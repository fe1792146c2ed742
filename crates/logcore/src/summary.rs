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

/// A topic and every channel on it, as one: several channels share a
/// topic where several ROS publishers (connections) or MCAP channels
/// carry it, possibly with different types.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSummary {
    /// The topic.
    pub topic: String,
    /// The types of its channels, each once, in channel order.
    pub types: Vec<String>,
    /// Messages on all its channels.
    pub message_count: u64,
    /// Time of its first message.
    pub start: Option<Timestamp>,
    /// Time of its last message.
    pub end: Option<Timestamp>,
    /// Its channels, in channel order.
    pub channels: Vec<ChannelId>,
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

    /// Each topic once, in the order of its first channel, with the
    /// totals of its channels.
    ///
    /// ```
    /// use logcore::{ChannelId, ChannelInfo, ChannelSummary, Clock, Format, Summary, TimeModel, Timestamp};
    /// let mut s = Summary::new(Format::RosBag, "2.0", TimeModel::new(Clock::Unix));
    /// for (id, n, t) in [(0, 8, 5), (1, 30, 1), (2, 7, 2)] {
    ///     let topic = if id == 1 { "/count" } else { "/chatter" };
    ///     s.channels.push(ChannelSummary {
    ///         info: ChannelInfo::new(ChannelId(id), topic, "std_msgs/String", "ros1"),
    ///         message_count: n,
    ///         start: Some(Timestamp(t)),
    ///         end: Some(Timestamp(t + 10)),
    ///     });
    /// }
    /// let topics = s.topics();
    /// assert_eq!(topics.len(), 2);
    /// assert_eq!((topics[0].topic.as_str(), topics[0].message_count), ("/chatter", 15));
    /// assert_eq!((topics[0].start, topics[0].end), (Some(Timestamp(2)), Some(Timestamp(15))));
    /// assert_eq!(topics[0].channels, vec![ChannelId(0), ChannelId(2)]);
    /// ```
    pub fn topics(&self) -> Vec<TopicSummary> {
        let mut out: Vec<TopicSummary> = Vec::new();
        let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for c in &self.channels {
            let i = *at.entry(c.info.topic.as_str()).or_insert_with(|| {
                out.push(TopicSummary {
                    topic: c.info.topic.clone(),
                    types: Vec::new(),
                    message_count: 0,
                    start: None,
                    end: None,
                    channels: Vec::new(),
                });
                out.len() - 1
            });
            let t = &mut out[i];
            if !t.types.contains(&c.info.type_name) {
                t.types.push(c.info.type_name.clone());
            }
            t.message_count += c.message_count;
            t.start = match (t.start, c.start) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            t.end = match (t.end, c.end) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            t.channels.push(c.info.id);
        }
        out
    }

    /// The channel with id `id`.
    pub fn channel(&self, id: ChannelId) -> Option<&ChannelSummary> {
        self.channels.iter().find(|c| c.info.id == id)
    }
}
