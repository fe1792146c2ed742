//! `recover`: rebuild a valid indexed file from one whose summary or
//! footer is broken or missing (an interrupted writer, a truncated copy),
//! keeping every record the lenient streamed reader can still read.

use std::fmt;
use std::io::Write;

use crate::error::{Error, Result};
use crate::records::Record;
use crate::stream::{LinearReader, ReadOptions};
use crate::write::{WriteOptions, Writer};

/// What [`recover()`] kept and lost.
#[derive(Debug, Clone, Default)]
pub struct Recovered {
    /// Messages written to the output.
    pub messages: u64,
    /// Attachments written.
    pub attachments: u64,
    /// Metadata records written.
    pub metadata: u64,
    /// Problems met (each names its offset).
    pub problems: Vec<Error>,
    /// Whether data was lost: a record was damaged, cut or dropped. A file
    /// that merely ends after a complete record, without its summary and
    /// footer (what an interrupted writer leaves), loses nothing: the
    /// summary is rebuilt, so its one problem does not make it lossy.
    pub lossy: bool,
}

impl Recovered {
    /// Whether anything was carried over (messages, attachments or
    /// metadata; schemas and channels alone hold no data).
    pub fn is_empty(&self) -> bool {
        self.messages == 0 && self.attachments == 0 && self.metadata == 0
    }

    /// How the recovery ended, in the terms of `mcap recover`'s exit
    /// statuses. A missing summary or footer alone loses nothing (it is
    /// rebuilt), so such a file is [`Recovery::Complete`].
    pub fn recovery(&self) -> Recovery {
        if !self.lossy {
            Recovery::Complete
        } else if self.is_empty() {
            Recovery::Nothing
        } else {
            Recovery::Partial
        }
    }
}

/// What was written, as one line: `wrote 3 messages, 0 attachments, 1
/// metadata records`.
impl fmt::Display for Recovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wrote {} messages, {} attachments, {} metadata records",
            self.messages, self.attachments, self.metadata
        )
    }
}

/// How a [`recover()`] ended (see [`Recovered::recovery`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Everything readable was kept and nothing was lost (`mcap recover`
    /// exits 0).
    Complete,
    /// Data was lost but some was recovered (exit status 3).
    Partial,
    /// Data was lost and nothing could be recovered (exit status 1).
    Nothing,
}

impl Recovery {
    /// What to tell the user when data was lost; `None` when complete.
    ///
    /// ```
    /// use mcapfile::recover::Recovery;
    /// assert_eq!(Recovery::Complete.loss(), None);
    /// assert_eq!(Recovery::Nothing.loss(), Some("nothing could be recovered"));
    /// ```
    pub fn loss(self) -> Option<&'static str> {
        match self {
            Recovery::Complete => None,
            Recovery::Partial => Some("recovered partially; some data was lost"),
            Recovery::Nothing => Some("nothing could be recovered"),
        }
    }
}

/// Reads `data` leniently and writes every readable schema, channel,
/// message, attachment and metadata record of its data section to `out`
/// as a new file with `opts` (chunks, indexes and summary rebuilt; schema
/// and channel ids kept; the Header's profile and library kept).
///
/// ```
/// use mcapfile::{recover, Summary, WriteOptions, Writer};
/// let mut w = Writer::new(Vec::new(), WriteOptions { chunk_size: 1, ..Default::default() })?;
/// let ch = w.add_channel(0, "/t", "json", &Default::default())?;
/// w.write_message(ch, 0, 1, 1, b"{}")?;
/// let cut = w.into_inner(); // interrupted: no summary, no footer
/// let (fixed, report) = recover(&cut, Vec::new(), WriteOptions::default())?;
/// assert_eq!(report.messages, 1);
/// assert!(!report.lossy); // only the summary and footer were missing
/// assert_eq!(report.recovery(), mcapfile::recover::Recovery::Complete);
/// assert_eq!(report.to_string(), "wrote 1 messages, 0 attachments, 0 metadata records");
/// assert_eq!(Summary::read(&fixed, true)?.unwrap().statistics.unwrap().message_count, 1);
/// # Ok::<(), mcapfile::Error>(())
/// ```
pub fn recover<W: Write>(data: &[u8], out: W, mut opts: WriteOptions) -> Result<(W, Recovered)> {
    let read = ReadOptions {
        mode: logcore::ReadMode::Lenient,
        ..ReadOptions::default()
    };
    if let Some(Ok(Record::Header(h))) = LinearReader::new(data).next() {
        opts.profile = h.profile;
        opts.library = h.library;
    }
    let mut records = LinearReader::with_options(data, read);
    let mut w = Writer::new(out, opts)?;
    let mut report = Recovered::default();
    while let Some(r) = records.next() {
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                // A truncation exactly at the end of the input names the
                // missing footer, not a partial record.
                let clean_end = e.is_truncated() && e.offset() == Some(data.len() as u64);
                report.lossy |= !clean_end;
                report.problems.push(e);
                continue;
            }
        };
        let at = records.last_offset();
        match r {
            // Repeats (in later chunks) are refused as duplicates; that is fine.
            Record::Schema(s) if s.id != 0 => {
                let _ = w.add_schema_with_id(s.id, &s.name, &s.encoding, &s.data);
            }
            Record::Channel(c) => {
                let _ = w.add_channel_with_id(
                    c.id,
                    c.schema_id,
                    &c.topic,
                    &c.message_encoding,
                    &c.metadata,
                );
            }
            Record::Message(m) => {
                match w.write_message(
                    m.channel_id,
                    m.sequence,
                    m.log_time,
                    m.publish_time,
                    &m.data,
                ) {
                    Ok(()) => report.messages += 1,
                    Err(e) => {
                        report.lossy = true;
                        report.problems.push(Error::malformed(
                            at,
                            "a message on a channel defined before it",
                            format!("{e}; message dropped"),
                        ));
                    }
                }
            }
            Record::Attachment(a) => {
                w.write_attachment(a.log_time, a.create_time, &a.name, &a.media_type, &a.data)?;
                report.attachments += 1;
            }
            Record::Metadata(m) => {
                w.write_metadata(&m.name, &m.metadata)?;
                report.metadata += 1;
            }
            Record::DataEnd(_) => break,
            _ => {}
        }
    }
    Ok((w.finish()?, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_follows_mcap_recover_statuses() {
        let mut r = Recovered {
            messages: 2,
            ..Recovered::default()
        };
        // A lost summary alone is a complete recovery.
        r.problems
            .push(Error::malformed(10, "a footer", "the end of the file"));
        assert_eq!(r.recovery(), Recovery::Complete);
        r.lossy = true;
        assert_eq!(r.recovery(), Recovery::Partial);
        r.messages = 0;
        assert_eq!(r.recovery(), Recovery::Nothing);
        r.metadata = 1;
        assert_eq!(r.recovery(), Recovery::Partial);
        assert_eq!(
            r.to_string(),
            "wrote 0 messages, 0 attachments, 1 metadata records"
        );
    }

    #[test]
    fn recovers_an_unfinished_file() {
        let mut w = Writer::new(
            Vec::new(),
            WriteOptions {
                chunk_size: 1,
                ..Default::default()
            },
        )
        .unwrap();
        let ch = w.add_channel(0, "/t", "json", &Default::default()).unwrap();
        w.write_message(ch, 0, 5, 5, b"{}").unwrap();
        let cut = w.into_inner();
        let (fixed, report) = recover(
            &cut,
            std::io::Cursor::new(Vec::new()),
            WriteOptions::default(),
        )
        .unwrap();
        assert_eq!(report.recovery(), Recovery::Complete);
        let fixed = fixed.into_inner();
        let stats = crate::Summary::read(&fixed, true)
            .unwrap()
            .unwrap()
            .statistics
            .unwrap();
        assert_eq!((stats.message_count, stats.message_start_time), (1, 5));
    }
}
