//! The reading and writing traits every format implements.

use std::collections::BTreeSet;

use crate::{
    ChannelId, ChannelInfo, Format, Message, Result, Summary, Timestamp, Value, ValueType,
};

/// How a reader treats damaged records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadMode {
    /// Stop at the first damaged record with an error naming its offset.
    #[default]
    Strict,
    /// Skip to the next recognisable record, reporting what was skipped as
    /// an [`Error::Skipped`](crate::Error::Skipped) item, and go on.
    Lenient,
}

/// Which messages an iteration yields.
///
/// The time range is half-open: `start <= log_time < end`.
///
/// ```
/// use logcore::{ChannelId, MessageFilter, Timestamp};
/// let f = MessageFilter::all()
///     .channels([ChannelId(2)])
///     .start(Timestamp(10))
///     .end(Timestamp(20));
/// assert!(f.matches(ChannelId(2), Timestamp(10)));
/// assert!(!f.matches(ChannelId(2), Timestamp(20)));
/// assert!(!f.matches(ChannelId(1), Timestamp(15)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageFilter {
    /// Only these channels (`None`: all).
    pub channels: Option<BTreeSet<ChannelId>>,
    /// Only messages at or after this time.
    pub start: Option<Timestamp>,
    /// Only messages before this time.
    pub end: Option<Timestamp>,
    /// Treatment of damaged records.
    pub mode: ReadMode,
}

impl MessageFilter {
    /// Every message, strict mode.
    pub fn all() -> Self {
        Self::default()
    }

    /// Restricts to `channels`.
    pub fn channels(mut self, channels: impl IntoIterator<Item = ChannelId>) -> Self {
        self.channels = Some(channels.into_iter().collect());
        self
    }

    /// Sets the inclusive start time.
    pub fn start(mut self, t: Timestamp) -> Self {
        self.start = Some(t);
        self
    }

    /// Sets the exclusive end time.
    pub fn end(mut self, t: Timestamp) -> Self {
        self.end = Some(t);
        self
    }

    /// Sets the read mode.
    pub fn mode(mut self, mode: ReadMode) -> Self {
        self.mode = mode;
        self
    }

    /// Whether a message on `channel` at `t` passes the filter.
    pub fn matches(&self, channel: ChannelId, t: Timestamp) -> bool {
        self.matches_time(t) && self.matches_channel(channel)
    }

    /// Whether `channel` passes the channel part of the filter.
    pub fn matches_channel(&self, channel: ChannelId) -> bool {
        self.channels.as_ref().is_none_or(|c| c.contains(&channel))
    }

    /// Whether `t` passes the time part of the filter.
    pub fn matches_time(&self, t: Timestamp) -> bool {
        self.start.is_none_or(|s| t >= s) && self.end.is_none_or(|e| t < e)
    }
}

/// A boxed message iterator as returned by [`LogReader::messages`].
///
/// Items are messages in file order (or time order where the format's
/// index defines one); an `Err` item reports damage. After a truncation or
/// a strict-mode error the iterator ends; in lenient mode it continues
/// after an [`Error::Skipped`](crate::Error::Skipped).
pub type MessageIter<'a> = Box<dyn Iterator<Item = Result<Message<'a>>> + 'a>;

/// Read access to a log of any format. Object safe: the command-line tool
/// holds a `Box<dyn LogReader>`.
pub trait LogReader {
    /// The file's format.
    fn format(&self) -> Format;

    /// Channels, counts, time range, metadata. May scan the file when it has
    /// no summary of its own.
    fn summary(&self) -> Result<Summary>;

    /// The channels, without counting messages.
    fn channels(&self) -> Result<Vec<ChannelInfo>>;

    /// Iterates the messages that pass `filter`, using the file's index to
    /// skip ahead where it has one.
    fn messages<'a>(&'a self, filter: &MessageFilter) -> Result<MessageIter<'a>>;

    /// Decodes a message's payload into a [`Value`].
    fn decode(&self, message: &Message<'_>) -> Result<Value>;

    /// Decodes a message's payload into `out`, which may hold the value of
    /// an earlier message: formats that can reuse its allocations do so
    /// (ROS bags); the others replace it with [`decode`](Self::decode)'s
    /// result. The outcome equals `decode`'s either way.
    fn decode_into(&self, message: &Message<'_>, out: &mut Value) -> Result<()> {
        *out = self.decode(message)?;
        Ok(())
    }

    /// The type every decoded value of `channel` has, as the format's own
    /// definitions declare it (a ROS `.msg`, a ULog format, a protobuf
    /// descriptor, a packet layout), without reading any message; `None`
    /// when the format declares none (a JSON channel without a schema, a
    /// channel nobody decodes). Every value [`decode`](Self::decode)
    /// returns for the channel is [admitted](ValueType::admits) by it.
    fn value_type(&self, channel: ChannelId) -> Result<Option<ValueType>> {
        let _ = channel;
        Ok(None)
    }
}

/// Write access to a log of any format.
pub trait LogWriter {
    /// Declares a channel; the returned id is used for its messages. The
    /// writer may use `info.id` or assign its own.
    fn add_channel(&mut self, info: &ChannelInfo) -> Result<ChannelId>;

    /// Appends a message on a channel returned by [`LogWriter::add_channel`].
    fn write_message(&mut self, message: &Message<'_>) -> Result<()>;

    /// Records a metadata entry, where the format has a place for it.
    fn set_metadata(&mut self, key: &str, value: &str) -> Result<()>;

    /// Writes indexes and summaries and flushes. Until this is called the
    /// file is still readable up to the last complete message.
    fn finish(&mut self) -> Result<()>;
}
