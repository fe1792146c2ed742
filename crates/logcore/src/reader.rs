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

/// The unit a format writes its times in (a ROS time in seconds and
/// nanoseconds counts as seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
    /// Microseconds.
    Microseconds,
    /// Nanoseconds.
    Nanoseconds,
}

/// A value a format's messages carry besides their channel, log time and
/// payload, which a table of the messages has as a column of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageColumn {
    /// The time the message was published ([`Message::publish_time`](crate::Message)).
    PublishTime,
    /// The publisher's sequence number ([`Message::sequence`](crate::Message)).
    Sequence,
    /// The instance of a message published by several instances of one
    /// module (ULog's `multi_id`): the channel's `multi_id` metadata.
    MultiId,
}

/// Read access to a log of any format. Object safe: the command-line tool
/// holds a `Box<dyn LogReader>`.
///
/// Besides reading, a reader says the facts of its format that the layers
/// above need, so that none of them matches on [`Format`]: what a table of
/// its messages is keyed by ([`LogReader::table_key`]), the unit of its
/// times ([`LogReader::time_unit`]), the values its messages carry besides
/// the log time ([`LogReader::message_columns`]) and whether its payloads
/// are decoded by message encoding ([`LogReader::decodes_by_encoding`]).
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

    /// What the messages of one table have in common: the channel's topic,
    /// unless the format groups its channels otherwise (a ULog's table is
    /// a message name, whose instances are told apart by
    /// [`MessageColumn::MultiId`]). Channels of one key are one table.
    fn table_key<'c>(&self, channel: &'c ChannelInfo) -> &'c str {
        &channel.topic
    }

    /// The unit the format writes its times in: exports show times in it
    /// beside nanoseconds. Nanoseconds unless the format says otherwise.
    fn time_unit(&self) -> TimeUnit {
        TimeUnit::Nanoseconds
    }

    /// The values the format's messages carry besides their log time and
    /// payload, each a column of their tables. None unless the format says
    /// otherwise.
    fn message_columns(&self) -> &'static [MessageColumn] {
        &[]
    }

    /// Whether a message's payload is decoded by its channel's message
    /// encoding and schema (MCAP: `ros1`, `protobuf`, `json`, ...), with
    /// decoders a caller may add to, rather than by the format itself.
    fn decodes_by_encoding(&self) -> bool {
        false
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
