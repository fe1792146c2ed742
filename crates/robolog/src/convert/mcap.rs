//! MCAP to MCAP: re-chunk, re-compress, filter by topic and time.
//!
//! One lenient pass over the input's records in file order (chunks
//! decompressed one at a time). What is carried over unchanged: the
//! Header profile, schemas and channels with their ids (only those of
//! kept channels; a schema when a kept channel first needs it), messages
//! with their sequence numbers, log and publish times and payloads (those
//! passing the topic and time filter, in file order), and every Metadata
//! and Attachment record (whatever the filter: they describe the whole
//! recording, as an OSI trace's `net.asam.osi.trace` record does), in
//! their place among the messages. The output gets new chunks of the
//! chosen size and compression, every index, statistics and CRCs, so an
//! OSI trace stays a valid OSI trace.
//!
//! Damaged records (a chunk whose CRC fails, a cut record) are skipped and
//! listed in [`ConvertStats::skipped`](super::ConvertStats); the records
//! before and after them are converted.
//!
//! Memory: one decompressed input chunk and one output chunk, plus the
//! schemas, channels and the output's chunk indexes; never the file.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use logcore::{Error, ReadMode, Timestamp};
use mcapfile::{Channel, ReadOptions, Record, Schema, Writer};

use super::Context;
use crate::Log;

/// Converts the Mcap `log` into MCAP written to `out`.
pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let Some(mcap) = log.as_mcap() else {
        return Err(super::not_a("an MCAP file", log));
    };
    let profile = mcap.header().profile.clone();
    let mut out = Output {
        w: Writer::new(out, super::write_options(&cx.opts, &profile))?,
        schemas: BTreeMap::new(),
        summary_channels: BTreeMap::new(),
        written_schemas: BTreeSet::new(),
        channels: BTreeMap::new(),
        unknown: BTreeMap::new(),
    };
    // The summary's schemas and channels stand in for those in a damaged
    // chunk (and for channels only the summary holds).
    if let Some(s) = mcap.mcap_summary() {
        out.schemas = s.schemas.clone();
        out.summary_channels = s.channels.clone();
    }
    let opts = ReadOptions {
        mode: ReadMode::Lenient,
        ..ReadOptions::default()
    };
    let mut records = mcap.records(opts);
    while let Some(item) = records.next() {
        let record = match item {
            Ok(r) => r,
            Err(e) => {
                if cx.skip(&e) {
                    break;
                }
                continue;
            }
        };
        match record {
            Record::Schema(s) if s.id != 0 => {
                out.schemas.entry(s.id).or_insert_with(|| Schema {
                    id: s.id,
                    name: s.name,
                    encoding: s.encoding,
                    data: s.data.into_owned(),
                });
            }
            Record::Channel(c) => {
                out.channel(&c, records.last_offset(), cx)?;
            }
            Record::Message(m) => {
                let kept = match out.channels.get(&m.channel_id) {
                    Some(&k) => k,
                    None => match out.summary_channels.get(&m.channel_id).cloned() {
                        Some(c) => out.channel(&c, records.last_offset(), cx)?,
                        None => {
                            let at = records.last_offset();
                            out.unknown.entry(m.channel_id).or_insert((at, 0)).1 += 1;
                            false
                        }
                    },
                };
                let time = Timestamp(i64::try_from(m.log_time).unwrap_or(i64::MAX));
                if kept && cx.keep_time(time) {
                    out.w.write_message(
                        m.channel_id,
                        m.sequence,
                        m.log_time,
                        m.publish_time,
                        &m.data,
                    )?;
                    cx.stats.messages += 1;
                }
                cx.tick(records.position());
            }
            Record::Attachment(a) => {
                out.w.write_attachment(
                    a.log_time,
                    a.create_time,
                    &a.name,
                    &a.media_type,
                    &a.data,
                )?;
            }
            Record::Metadata(m) => out.w.write_metadata(&m.name, &m.metadata)?,
            _ => {}
        }
    }
    // Channels only the summary holds (no message in the data section).
    let rest: Vec<_> = out
        .summary_channels
        .values()
        .filter(|c| !out.channels.contains_key(&c.id))
        .cloned()
        .collect();
    let end = records.position();
    for c in rest {
        out.channel(&c, end, cx)?;
    }
    for (id, (at, count)) in &out.unknown {
        cx.stats.skipped.push(
            Error::malformed(
                *at,
                format!("a Channel record for channel {id}"),
                format!("{count} message(s) of a channel the file never defines (dropped)"),
            )
            .to_string(),
        );
    }
    let sink = out.w.finish()?;
    cx.report(cx.total_bytes);
    Ok(sink)
}

/// The writer and what it was given.
struct Output<W: Write> {
    w: Writer<W>,
    /// Every schema seen (the summary's first).
    schemas: BTreeMap<u16, Schema<'static>>,
    /// The summary's channels.
    summary_channels: BTreeMap<u16, Channel>,
    written_schemas: BTreeSet<u16>,
    /// Channel id -> whether it is kept; each channel decided once.
    channels: BTreeMap<u16, bool>,
    /// Messages of channels defined nowhere: first offset, count.
    unknown: BTreeMap<u16, (u64, u64)>,
}

impl<W: Write> Output<W> {
    /// Writes channel `c` (and its schema) the first time it is seen when
    /// the topic filter keeps it; whether it is kept. `at` is the input
    /// offset errors name.
    fn channel(&mut self, c: &Channel, at: u64, cx: &mut Context<'_>) -> Result<bool, Error> {
        if let Some(&k) = self.channels.get(&c.id) {
            return Ok(k);
        }
        let keep = cx.keep_topic(&c.topic);
        self.channels.insert(c.id, keep);
        if !keep {
            return Ok(false);
        }
        let mut schema_id = c.schema_id;
        if schema_id != 0 && self.written_schemas.insert(schema_id) {
            match self.schemas.get(&schema_id) {
                Some(s) => self
                    .w
                    .add_schema_with_id(s.id, &s.name, &s.encoding, &s.data)?,
                None => {
                    cx.stats.skipped.push(
                        Error::malformed(
                            at,
                            format!("schema {schema_id} of channel {} ({})", c.id, c.topic),
                            "no such schema in the file (channel written without one)",
                        )
                        .to_string(),
                    );
                    self.written_schemas.remove(&schema_id);
                    schema_id = 0;
                }
            }
        }
        self.w
            .add_channel_with_id(c.id, schema_id, &c.topic, &c.message_encoding, &c.metadata)?;
        cx.stats.channels += 1;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use mcapfile::{Compression, LinearReader, WriteOptions};

    use super::*;
    use crate::convert::testing::{convert, records};
    use crate::convert::{ConvertOptions, to_mcap};

    /// Metadata first, two channels (ids 4 and 9), an attachment between
    /// messages, lz4 chunks of a few messages.
    fn sample() -> Vec<u8> {
        let opts = WriteOptions {
            profile: "osi2mcap".into(),
            compression: Compression::Lz4,
            chunk_size: 200,
            ..WriteOptions::default()
        };
        let mut w = Writer::new(Vec::new(), opts).unwrap();
        let meta: BTreeMap<String, String> = [("version".to_string(), "3.8.0".to_string())].into();
        w.write_metadata("net.asam.osi.trace", &meta).unwrap();
        w.add_schema_with_id(7, "osi3.SensorView", "protobuf", b"\x01\x02")
            .unwrap();
        let ch_meta: BTreeMap<String, String> = [("k".to_string(), "v".to_string())].into();
        w.add_channel_with_id(4, 7, "/a", "protobuf", &ch_meta)
            .unwrap();
        w.add_channel_with_id(9, 0, "/b", "json", &BTreeMap::new())
            .unwrap();
        for i in 0..10u64 {
            w.write_message(4, i as u32 + 10, i * 100, i * 100 + 1, &[i as u8; 30])
                .unwrap();
            w.write_message(9, 0, i * 100 + 50, i * 100 + 50, b"{}")
                .unwrap();
            if i == 4 {
                w.write_attachment(7, 8, "calib.txt", "text/plain", b"abc")
                    .unwrap();
            }
        }
        w.finish().unwrap()
    }

    #[test]
    fn rechunks_keeping_everything() {
        let input = sample();
        let opts = ConvertOptions {
            compression: Compression::Zstd,
            ..ConvertOptions::default()
        };
        let (out, stats) = convert(&input, &opts);
        assert_eq!((stats.messages, stats.channels), (20, 2));
        let (a, b) = (records(&input), records(&out));
        let Record::Header(h) = &b[0] else {
            panic!("header")
        };
        assert_eq!(h.profile, "osi2mcap");
        // The same schemas, channels, messages, metadata and attachments,
        // in the same order; only chunking and indexes differ.
        let content = |recs: &[Record<'static>]| -> Vec<Record<'static>> {
            recs.iter()
                .filter(|r| {
                    matches!(
                        r,
                        Record::Schema(_)
                            | Record::Channel(_)
                            | Record::Message(_)
                            | Record::Metadata(_)
                            | Record::Attachment(_)
                    )
                })
                .map(|r| match r {
                    Record::Attachment(x) => Record::Attachment(mcapfile::Attachment {
                        crc: 0,
                        ..x.clone()
                    }),
                    other => other.clone(),
                })
                .collect()
        };
        assert_eq!(content(&a), content(&b));
        let chunks = LinearReader::with_options(
            &out,
            ReadOptions {
                flatten_chunks: false,
                ..ReadOptions::default()
            },
        )
        .filter_map(|r| match r.unwrap() {
            Record::Chunk(c) => Some(c.compression.clone()),
            _ => None,
        })
        .collect::<Vec<_>>();
        assert!(!chunks.is_empty() && chunks.iter().all(|c| c == "zstd"));
        let findings = mcapfile::doctor(&out, Default::default());
        assert_eq!(mcapfile::doctor::error_count(&findings), 0, "{findings:?}");
    }

    #[test]
    fn filters_messages_and_keeps_metadata() {
        let opts = ConvertOptions {
            topics: vec!["/a".into()],
            start: Some(Timestamp(200)),
            end: Some(Timestamp(500)),
            ..ConvertOptions::default()
        };
        let (out, stats) = convert(&sample(), &opts);
        assert_eq!((stats.messages, stats.channels), (3, 1));
        let recs = records(&out);
        let times: Vec<(u16, u32, u64, u64)> = recs
            .iter()
            .filter_map(|r| match r {
                Record::Message(m) => Some((m.channel_id, m.sequence, m.log_time, m.publish_time)),
                _ => None,
            })
            .collect();
        assert_eq!(
            times,
            [(4, 12, 200, 201), (4, 13, 300, 301), (4, 14, 400, 401)]
        );
        assert!(
            recs.iter()
                .any(|r| matches!(r, Record::Metadata(m) if m.name == "net.asam.osi.trace"))
        );
        assert!(
            recs.iter()
                .any(|r| matches!(r, Record::Attachment(a) if a.name == "calib.txt"))
        );
        assert!(
            !recs
                .iter()
                .any(|r| matches!(r, Record::Channel(c) if c.id == 9))
        );
    }

    #[test]
    fn skips_a_damaged_chunk() {
        let mut input = sample();
        // Flip a byte inside the first chunk's compressed records: its CRC
        // (or its lz4 frame) fails, the rest converts.
        let first_chunk = LinearReader::with_options(
            &input,
            ReadOptions {
                flatten_chunks: false,
                ..ReadOptions::default()
            },
        );
        let mut at = None;
        let mut reader = first_chunk;
        while let Some(r) = reader.next() {
            if matches!(r.unwrap(), Record::Chunk(_)) {
                at = Some(reader.last_offset() as usize);
                break;
            }
        }
        let at = at.unwrap();
        input[at + 60] ^= 0xff;
        let log = crate::open_bytes(&input).unwrap();
        let (out, stats) =
            to_mcap(&log, Vec::new(), &ConvertOptions::default(), &mut |_| {}).unwrap();
        assert!(!stats.skipped.is_empty());
        assert!(stats.messages > 0 && stats.messages < 20, "{stats:?}");
        let findings = mcapfile::doctor(&out, Default::default());
        assert_eq!(mcapfile::doctor::error_count(&findings), 0, "{findings:?}");
    }
}
