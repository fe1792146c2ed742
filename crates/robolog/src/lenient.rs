//! Decoding that never drops a message: a payload that does not decode is
//! kept as raw bytes, and the failures are summarised per channel.

use std::collections::BTreeMap;
use std::fmt;

use logcore::{ChannelId, Error, LogReader, Message, Value};

/// Decodes messages through any [`LogReader`] (usually a [`Log`](crate::Log));
/// a payload that fails to decode becomes [`Value::Bytes`] holding the
/// payload, and the failure is counted for its channel, so a tool can
/// print every message and then one warning per channel.
///
/// ```
/// use logcore::{ChannelId, LogReader, Value};
/// use robolog::LenientDecoder;
///
/// # let file = {
/// #     use mcapfile::{Writer, WriteOptions};
/// #     let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default())?;
/// #     let ch = w.add_channel(0, "/speed", "json", &Default::default())?;
/// #     w.write_message(ch, 0, 1, 1, br#"{"v": 3}"#)?;
/// #     w.write_message(ch, 1, 2, 2, b"\x00\x01 not json")?;
/// #     w.finish()?.into_inner()
/// # };
/// // An MCAP file whose `json` channel holds one document and one binary payload.
/// let log = robolog::open_bytes(&file)?;
/// let mut decoder = LenientDecoder::new(&log);
/// let mut values = Vec::new();
/// for msg in log.messages(&Default::default())? {
///     values.push(decoder.decode(&msg?));
/// }
/// assert_eq!(values[0].get("v").and_then(Value::as_i64), Some(3));
/// assert_eq!(values[1], Value::Bytes(b"\x00\x01 not json".to_vec()));
/// let failures = decoder.failures();
/// assert_eq!(failures.len(), 1);
/// assert_eq!(failures[0].count, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct LenientDecoder<'r> {
    reader: &'r dyn LogReader,
    failures: BTreeMap<ChannelId, DecodeFailures>,
}

/// The payloads of one channel that did not decode.
#[derive(Debug)]
pub struct DecodeFailures {
    /// The channel.
    pub channel: ChannelId,
    /// How many of its payloads did not decode (each was kept raw).
    pub count: u64,
    /// The first failure.
    pub first: Error,
}

impl fmt::Display for DecodeFailures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} message{} of channel {} could not be decoded and {} shown as raw bytes; the first: {}",
            self.count,
            if self.count == 1 { "" } else { "s" },
            self.channel,
            if self.count == 1 { "is" } else { "are" },
            self.first
        )
    }
}

impl<'r> LenientDecoder<'r> {
    /// A decoder over `reader`.
    pub fn new(reader: &'r dyn LogReader) -> Self {
        LenientDecoder {
            reader,
            failures: BTreeMap::new(),
        }
    }

    /// The decoded value, or the raw payload when it does not decode.
    pub fn decode(&mut self, message: &Message<'_>) -> Value {
        match self.reader.decode(message) {
            Ok(v) => v,
            Err(e) => {
                self.failures
                    .entry(message.channel)
                    .and_modify(|f| f.count += 1)
                    .or_insert(DecodeFailures {
                        channel: message.channel,
                        count: 1,
                        first: e,
                    });
                Value::Bytes(message.payload.to_vec())
            }
        }
    }

    /// The failures so far, by channel id.
    pub fn failures(&self) -> Vec<&DecodeFailures> {
        self.failures.values().collect()
    }

    /// The failures, by channel id.
    pub fn into_failures(self) -> Vec<DecodeFailures> {
        self.failures.into_values().collect()
    }
}
