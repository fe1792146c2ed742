//! The statistics `mcap info` prints, computed from the typed summary
//! records (Header, Statistics, Chunk Index, Schema, Channel, Attachment
//! and Metadata indexes), and a printer in the layout of the Go `mcap`
//! CLI: sizes as [`human_bytes`] (`1.50 KiB`), channel rates as
//! `(7.49 Hz)`, aligned columns.
//!
//! A file without a readable summary gets its numbers from one pass over
//! the records (see [`Mcap`]'s `LogReader::summary`).
//!
//! ```
//! use mcapfile::{Mcap, WriteOptions, Writer, info::Info};
//!
//! let mut w = Writer::new(Vec::new(), WriteOptions::default())?;
//! let ch = w.add_channel(0, "/speed", "json", &Default::default())?;
//! w.write_message(ch, 0, 0, 0, b"{}")?;
//! w.write_message(ch, 1, 500_000_000, 500_000_000, b"{}")?;
//! let file = w.finish()?;
//!
//! let info = Info::new(&Mcap::new(&file)?)?;
//! let mut out = Vec::new();
//! info.write(&mut out)?;
//! let text = String::from_utf8(out)?;
//! assert!(text.contains("\t(0) /speed  2 msgs (4.00 Hz)   : <no schema>\n"), "{text}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::io::Write;

use logcore::LogReader;

use crate::logreader::Mcap;

/// What `mcap info` reports about a file.
#[derive(Debug)]
pub struct Info {
    /// Header library.
    pub library: String,
    /// Header profile.
    pub profile: String,
    /// Messages in the file.
    pub message_count: u64,
    /// First and last log time (ns), when the file has messages.
    pub time_range: Option<(u64, u64)>,
    /// Chunk totals per compression (sorted by name; `""` is none).
    pub compression: Vec<CompressionStats>,
    /// Chunk sizes and overlaps, when the file has chunk indexes.
    pub chunks: Option<ChunkStats>,
    /// Channels in id order.
    pub channels: Vec<ChannelStats>,
    /// Attachments in the file.
    pub attachments: u64,
    /// Metadata records in the file.
    pub metadata: u64,
    /// Problems met while reading the summary or scanning the file.
    pub warnings: Vec<logcore::Error>,
}

/// Chunk totals of one compression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressionStats {
    /// The compression (`""` for none, `lz4`, `zstd`).
    pub compression: String,
    /// Chunks of it.
    pub chunks: u64,
    /// Their compressed bytes.
    pub compressed_size: u64,
    /// Their uncompressed bytes.
    pub uncompressed_size: u64,
}

/// Chunk sizes and time overlaps from the Chunk Index records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkStats {
    /// All chunks.
    pub count: u64,
    /// Largest uncompressed chunk.
    pub max_uncompressed_size: u64,
    /// Largest compressed chunk.
    pub max_compressed_size: u64,
    /// Most chunks whose time ranges overlap at one instant (1 when none
    /// overlap).
    pub max_concurrent: u64,
    /// Their uncompressed bytes together: what a reader in log-time order
    /// holds decompressed at once.
    pub max_concurrent_size: u64,
}

/// One channel's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelStats {
    /// Channel id.
    pub id: u32,
    /// Topic.
    pub topic: String,
    /// Messages on it.
    pub message_count: u64,
    /// Schema name and encoding, when the channel has a schema.
    pub schema: Option<(String, String)>,
}

impl Info {
    /// Computes the report of `mcap`.
    pub fn new(mcap: &Mcap<'_>) -> logcore::Result<Info> {
        let summary = mcap.summary()?;
        let header = mcap.header();
        let time_range = match (summary.start, summary.end) {
            (Some(s), Some(e)) if summary.message_count > 0 => {
                Some((s.as_nanos().max(0) as u64, e.as_nanos().max(0) as u64))
            }
            _ => None,
        };
        let mut info = Info {
            library: header.library.clone(),
            profile: header.profile.clone(),
            message_count: summary.message_count,
            time_range,
            compression: Vec::new(),
            chunks: None,
            channels: summary
                .channels
                .iter()
                .map(|c| ChannelStats {
                    id: c.info.id.0,
                    topic: c.info.topic.clone(),
                    message_count: c.message_count,
                    schema: c
                        .info
                        .schema
                        .as_ref()
                        .map(|s| (s.name.clone(), s.encoding.clone())),
                })
                .collect(),
            attachments: 0,
            metadata: 0,
            warnings: summary.warnings,
        };
        match mcap.mcap_summary() {
            Some(s) => {
                info.attachments = s.attachment_indexes.len() as u64;
                info.metadata = s.metadata_indexes.len() as u64;
                let mut by: BTreeMap<&str, CompressionStats> = BTreeMap::new();
                for ci in &s.chunk_indexes {
                    let e = by
                        .entry(ci.compression.as_str())
                        .or_insert_with(|| CompressionStats {
                            compression: ci.compression.clone(),
                            chunks: 0,
                            compressed_size: 0,
                            uncompressed_size: 0,
                        });
                    e.chunks += 1;
                    e.compressed_size = e.compressed_size.saturating_add(ci.compressed_size);
                    e.uncompressed_size = e.uncompressed_size.saturating_add(ci.uncompressed_size);
                }
                info.compression = by.into_values().collect();
                if !s.chunk_indexes.is_empty() {
                    let ranges: Vec<(u64, u64, u64)> = s
                        .chunk_indexes
                        .iter()
                        .map(|c| {
                            (
                                c.message_start_time,
                                c.message_end_time,
                                c.uncompressed_size,
                            )
                        })
                        .collect();
                    let (max_concurrent, max_concurrent_size) = overlaps(&ranges);
                    info.chunks = Some(ChunkStats {
                        count: s.chunk_indexes.len() as u64,
                        max_uncompressed_size: s
                            .chunk_indexes
                            .iter()
                            .map(|c| c.uncompressed_size)
                            .max()
                            .unwrap_or(0),
                        max_compressed_size: s
                            .chunk_indexes
                            .iter()
                            .map(|c| c.compressed_size)
                            .max()
                            .unwrap_or(0),
                        max_concurrent,
                        max_concurrent_size,
                    });
                }
            }
            None => {
                let scan = mcap.scan();
                info.attachments = scan.attachments;
                info.metadata = scan.metadata.len() as u64;
            }
        }
        Ok(info)
    }

    /// Duration between the first and the last message, in ns.
    pub fn duration_ns(&self) -> u64 {
        self.time_range.map_or(0, |(s, e)| e.saturating_sub(s))
    }

    /// Prints the report as the Go `mcap info` does.
    pub fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out, "library:   {}", self.library)?;
        writeln!(out, "profile:   {}", self.profile)?;
        writeln!(out, "messages:  {}", self.message_count)?;
        let (start, end) = self.time_range.unwrap_or((0, 0));
        let dur = self.duration_ns();
        writeln!(
            out,
            "duration:  {}",
            logcore::time::format_duration(dur.min(i64::MAX as u64) as i64)
        )?;
        let date = |ns: u64| {
            logcore::time::format_unix(logcore::Timestamp(ns.min(i64::MAX as u64) as i64))
                .unwrap_or_default()
        };
        writeln!(out, "start:     {} ({})", date(start), decimal_time(start))?;
        writeln!(out, "end:       {} ({})", date(end), decimal_time(end))?;
        if let Some(chunks) = &self.chunks {
            writeln!(out, "compression:")?;
            let secs = dur as f64 / 1e9;
            for c in &self.compression {
                let name = if c.compression.is_empty() {
                    "none"
                } else {
                    &c.compression
                };
                write!(
                    out,
                    "\t{name}: [{}/{} chunks] [{}/{} ({:.2}%)] ",
                    c.chunks,
                    chunks.count,
                    human_bytes(c.uncompressed_size),
                    human_bytes(c.compressed_size),
                    compression_ratio(c.compressed_size, c.uncompressed_size)
                )?;
                if secs > 0.0 {
                    write!(
                        out,
                        "[{}/sec] ",
                        human_bytes((c.compressed_size as f64 / secs) as u64)
                    )?;
                }
                writeln!(out)?;
            }
            writeln!(out, "chunks:")?;
            writeln!(
                out,
                "\tmax uncompressed size: {}",
                human_bytes(chunks.max_uncompressed_size)
            )?;
            writeln!(
                out,
                "\tmax compressed size: {}",
                human_bytes(chunks.max_compressed_size)
            )?;
            if chunks.max_concurrent > 1 {
                writeln!(
                    out,
                    "\toverlaps: [max concurrent: {}, decompressed: {}]",
                    chunks.max_concurrent,
                    human_bytes(chunks.max_concurrent_size)
                )?;
            } else {
                writeln!(out, "\toverlaps: no")?;
            }
        }
        writeln!(out, "channels:")?;
        let rows: Vec<[String; 3]> = self.channel_rows();
        write_table(out, &rows)?;
        writeln!(out, "channels: {}", self.channels.len())?;
        writeln!(out, "attachments: {}", self.attachments)?;
        writeln!(out, "metadata: {}", self.metadata)
    }

    /// The channel table's cells: `(id) topic` (ids aligned), `N msgs
    /// (R Hz)` (counts right-aligned), ` : schema [encoding]`.
    fn channel_rows(&self) -> Vec<[String; 3]> {
        let count_width = self
            .channels
            .iter()
            .map(|c| c.message_count.to_string().len())
            .max()
            .unwrap_or(0);
        let id_width = self
            .channels
            .iter()
            .map(|c| c.id.to_string().len())
            .max()
            .unwrap_or(0);
        let dur = self.duration_ns();
        self.channels
            .iter()
            .map(|c| {
                let id = c.id.to_string();
                let pad = " ".repeat(id_width - id.len() + 1);
                let rate = if dur > 0 {
                    format!(" ({})", hz(c.message_count, dur))
                } else {
                    String::new()
                };
                let schema = match &c.schema {
                    Some((name, enc)) => format!(" : {name} [{enc}]"),
                    None => " : <no schema>".to_string(),
                };
                [
                    format!("\t({id}){pad}{}", c.topic),
                    format!("{:>count_width$} msgs{rate}", c.message_count),
                    schema,
                ]
            })
            .collect()
    }
}

/// Left-aligned columns: every cell but the last padded to its column's
/// width, two spaces between columns.
fn write_table(out: &mut impl Write, rows: &[[String; 3]]) -> std::io::Result<()> {
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1) = (width(0), width(1));
    for [a, b, c] in rows {
        writeln!(out, "{a:<w0$}  {b:<w1$}  {c}")?;
    }
    Ok(())
}

/// `seconds.nanoseconds` of a log time.
fn decimal_time(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// Percent saved by compression (`100 * (1 - compressed / uncompressed)`).
fn compression_ratio(compressed: u64, uncompressed: u64) -> f64 {
    if uncompressed == 0 {
        0.0
    } else {
        100.0 * (1.0 - compressed as f64 / uncompressed as f64)
    }
}

/// A channel's rate over the file's duration, as `mcap info` prints it.
///
/// ```
/// assert_eq!(mcapfile::info::hz(501, 10_000_000_000), "50.10 Hz");
/// ```
pub fn hz(messages: u64, duration_ns: u64) -> String {
    format!("{:.2} Hz", messages as f64 * 1e9 / duration_ns as f64)
}

/// A byte count as `mcap info` prints it: divided by 1024 while above
/// 1024 (B, KiB, MiB, GiB at most), two decimals.
///
/// ```
/// use mcapfile::info::human_bytes;
/// assert_eq!(human_bytes(1536), "1.50 KiB");
/// assert_eq!(human_bytes(1024), "1024.00 B");
/// ```
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v > 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.2} {}", UNITS[unit])
}

/// The most chunks overlapping in time at one instant and their total
/// uncompressed size (a sweep over start and end events, starts first at
/// equal times).
fn overlaps(chunks: &[(u64, u64, u64)]) -> (u64, u64) {
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(chunks.len() * 2);
    for &(start, end, size) in chunks {
        events.push((start, true, size));
        events.push((end, false, size));
    }
    // Starts (true) before ends (false) at the same time.
    events.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let (mut active, mut size, mut best, mut best_size) = (0u64, 0u64, 0u64, 0u64);
    for (_, is_start, s) in events {
        if is_start {
            active += 1;
            size = size.saturating_add(s);
            if active > best || (active == best && size > best_size) {
                best = active;
                best_size = size;
            }
        } else {
            active = active.saturating_sub(1);
            size = size.saturating_sub(s);
        }
    }
    (best, best_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_matches_the_go_cli() {
        // humanBytes of the Go CLI: > 1024 moves to the next unit.
        assert_eq!(human_bytes(0), "0.00 B");
        assert_eq!(human_bytes(1023), "1023.00 B");
        assert_eq!(human_bytes(1024), "1024.00 B");
        assert_eq!(human_bytes(1025), "1.00 KiB");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(human_bytes(2005), "1.96 KiB");
        assert_eq!(human_bytes(5 * 1024 * 1024 + 512 * 1024), "5.50 MiB");
        assert_eq!(human_bytes(3 << 30), "3.00 GiB");
        // GiB is the last unit.
        assert_eq!(human_bytes(2048 << 30), "2048.00 GiB");
    }

    #[test]
    fn rates_and_ratios() {
        assert_eq!(hz(14, 1_870_000_000), "7.49 Hz");
        assert_eq!(hz(100, 1_000_000_000), "100.00 Hz");
        assert_eq!(format!("{:.2}", compression_ratio(1405, 2005)), "29.93");
        assert_eq!(compression_ratio(0, 0), 0.0);
    }

    #[test]
    fn overlap_sweep() {
        assert_eq!(overlaps(&[(0, 10, 5)]), (1, 5));
        assert_eq!(overlaps(&[(0, 10, 5), (11, 20, 7)]), (1, 7));
        // Touching ends count as overlapping (starts first).
        assert_eq!(overlaps(&[(0, 10, 5), (10, 20, 7)]), (2, 12));
        assert_eq!(overlaps(&[(0, 100, 1), (10, 20, 2), (15, 30, 4)]), (3, 7));
    }

    #[test]
    fn table_columns_align() {
        let rows = vec![
            ["\t(1)  /a".to_string(), " 5 msgs".into(), " : x".into()],
            ["\t(10) /long".to_string(), "15 msgs".into(), " : y".into()],
        ];
        let mut out = Vec::new();
        write_table(&mut out, &rows).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\t(1)  /a      5 msgs   : x\n\t(10) /long  15 msgs   : y\n"
        );
    }
}
