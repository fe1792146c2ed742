//! `recover`: rebuild a valid indexed file from one whose summary or
//! footer is broken or missing (an interrupted writer, a truncated copy),
//! keeping every record the lenient streamed reader can still read.

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
