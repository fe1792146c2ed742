//! Messages and their payload bytes.

use std::ops::Deref;

use bytes::Bytes;

use crate::{ChannelId, Timestamp};

/// The bytes of one message: borrowed from the file where they are stored
/// as-is (zero copy), or shared when they had to be decompressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload<'a> {
    /// A slice of the input.
    Borrowed(&'a [u8]),
    /// A cheaply clonable buffer, e.g. a slice of a decompressed chunk.
    Shared(Bytes),
}

impl Payload<'_> {
    /// Makes the payload independent of the input's lifetime (copies a
    /// borrowed slice).
    pub fn into_owned(self) -> Payload<'static> {
        match self {
            Payload::Borrowed(b) => Payload::Shared(Bytes::copy_from_slice(b)),
            Payload::Shared(b) => Payload::Shared(b),
        }
    }
}

impl Deref for Payload<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Payload::Borrowed(b) => b,
            Payload::Shared(b) => b,
        }
    }
}

impl AsRef<[u8]> for Payload<'_> {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// One message of a log.
///
/// ```
/// use logcore::{ChannelId, Message, Payload, Timestamp};
/// let data = [1u8, 2, 3];
/// let m = Message::new(ChannelId(0), Timestamp(5), Payload::Borrowed(&data));
/// assert_eq!(&*m.payload, &[1, 2, 3]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    /// The channel it was logged on.
    pub channel: ChannelId,
    /// When it was logged, on the reader's clock.
    pub log_time: Timestamp,
    /// When it was published, where the format records it separately
    /// (MCAP `publish_time`, the ROS header stamp is *not* used here).
    pub publish_time: Option<Timestamp>,
    /// Sequence number, where the format records one.
    pub sequence: Option<u64>,
    /// Byte offset of the message's record in the file (for compressed
    /// formats, of the chunk holding it), for error reports and seeking.
    pub offset: Option<u64>,
    /// The payload bytes, in the channel's message encoding.
    pub payload: Payload<'a>,
}

impl<'a> Message<'a> {
    /// A message with only channel, time and payload.
    pub fn new(channel: ChannelId, log_time: Timestamp, payload: Payload<'a>) -> Self {
        Message {
            channel,
            log_time,
            publish_time: None,
            sequence: None,
            offset: None,
            payload,
        }
    }

    /// Detaches the message from the input's lifetime.
    pub fn into_owned(self) -> Message<'static> {
        Message {
            channel: self.channel,
            log_time: self.log_time,
            publish_time: self.publish_time,
            sequence: self.sequence,
            offset: self.offset,
            payload: self.payload.into_owned(),
        }
    }
}
