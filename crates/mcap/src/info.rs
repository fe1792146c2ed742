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
//! assert!(text.contains("\t(0) /speed  2 msgs (4.00 Hz)   : <no schema>  \n"), "{text}");
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
    /// Channels in the file (the Statistics record's count when the
    /// summary has one, else the channels found).
    pub channel_count: u64,
    /// Attachments in the file (likewise from the Statistics record).
    pub attachments: u64,
    /// Metadata records in the file.
    pub metadata: u64,
    /// Whether the numbers above come with statistics: from the summary's
    /// Statistics record, or from a pass over a file without a readable
    /// summary. A summary without a Statistics record leaves this false and
    /// the printer says `unknown`, as the Go CLI does.
    pub has_statistics: bool,
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
    /// The channel's schema (shared with the reader's channel table and the
    /// other channels of that schema), when it has one.
    pub schema: Option<std::sync::Arc<logcore::Schema>>,
    /// The schema id of a channel whose schema is not in the file (printed
    /// `<missing schema N>`, as the Go CLI does); `None` otherwise.
    pub missing_schema: Option<u16>,
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
                    schema: c.info.schema.clone(),
                    missing_schema: None,
                })
                .collect(),
            channel_count: summary.channels.len() as u64,
            attachments: 0,
            metadata: 0,
            has_statistics: mcap.mcap_summary().is_none_or(|s| s.statistics.is_some()),
            warnings: summary.warnings,
        };
        match mcap.mcap_summary() {
            Some(s) => {
                for c in info.channels.iter_mut().filter(|c| c.schema.is_none()) {
                    c.missing_schema = u16::try_from(c.id)
                        .ok()
                        .and_then(|id| s.channels.get(&id))
                        .map(|ch| ch.schema_id)
                        .filter(|&id| id != 0);
                }
                // The Go CLI prints the Statistics record's counts.
                (info.channel_count, info.attachments, info.metadata) = match &s.statistics {
                    Some(st) => (
                        u64::from(st.channel_count),
                        u64::from(st.attachment_count),
                        u64::from(st.metadata_count),
                    ),
                    None => (
                        info.channels.len() as u64,
                        s.attachment_indexes.len() as u64,
                        s.metadata_indexes.len() as u64,
                    ),
                };
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

    /// Prints the report as the Go `mcap info` does: the header fields and
    /// the channel lines as two tables whose cells are padded to their
    /// column's width and followed by two spaces (the last cell too, so
    /// table lines end in spaces, as the Go table writer leaves them); the
    /// duration as Go's `time.Duration` prints it (see [`go_duration`]);
    /// start and end as RFC 3339 dates only when they lie within the last
    /// 20 years (older times, such as times since boot, only as
    /// `seconds.nanoseconds`). A summary without a Statistics record gives
    /// no message count, times or rates, and `unknown` counts at the end.
    pub fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut header = vec![
            vec!["library:".to_string(), self.library.clone()],
            vec!["profile:".to_string(), self.profile.clone()],
        ];
        let (start, end) = self.time_range.unwrap_or((0, 0));
        let dur = self.duration_ns();
        if self.has_statistics {
            header.push(vec!["messages:".into(), self.message_count.to_string()]);
            let duration = match i64::try_from(dur) {
                Ok(ns) => go_duration(ns),
                Err(_) => format!("{:.3}s", dur as f64 / 1e9),
            };
            header.push(vec!["duration:".into(), duration]);
            let recent = recent_cutoff_ns();
            for (label, t) in [("start:", start), ("end:", end)] {
                let value = match rfc3339_nano(t) {
                    Some(date) if t > recent => format!("{date} ({})", decimal_time(t)),
                    _ => decimal_time(t),
                };
                header.push(vec![label.into(), value]);
            }
        }
        write_table(out, &header)?;
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
        write_table(out, &self.channel_rows())?;
        if self.has_statistics {
            writeln!(out, "channels: {}", self.channel_count)?;
            writeln!(out, "attachments: {}", self.attachments)?;
            writeln!(out, "metadata: {}", self.metadata)
        } else {
            writeln!(out, "channels: unknown")?;
            writeln!(out, "attachments: unknown")?;
            writeln!(out, "metadata: unknown")
        }
    }

    /// The channel table's cells: `(id) topic` (ids aligned), `N msgs
    /// (R Hz)` (counts right-aligned; only with statistics), ` : schema
    /// [encoding]`.
    fn channel_rows(&self) -> Vec<Vec<String>> {
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
                let mut row = vec![format!("\t({id}){pad}{}", c.topic)];
                if self.has_statistics {
                    row.push(format!(
                        "{:>count_width$} msgs ({})",
                        c.message_count,
                        hz(c.message_count, dur)
                    ));
                }
                row.push(match (&c.schema, c.missing_schema) {
                    (Some(s), _) => format!(" : {} [{}]", s.name, s.encoding),
                    (None, Some(id)) => format!(" : <missing schema {id}>"),
                    (None, None) => " : <no schema>".to_string(),
                });
                row
            })
            .collect()
    }
}

/// The Go CLI's table: every cell padded to its column's width (a tab
/// counts as no width) and followed by two spaces.
fn write_table(out: &mut impl Write, rows: &[Vec<String>]) -> std::io::Result<()> {
    let cell_width = |s: &str| s.chars().filter(|&c| c != '\t').count();
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| cell_width(c))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        for (cell, width) in row.iter().zip(&widths) {
            let pad = width - cell_width(cell);
            write!(out, "{cell}{:pad$}  ", "")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// A duration as Go's `time.Duration` prints it: `0s`; below a second in
/// the largest of `ns`, `µs`, `ms` that fits, with the fraction's trailing
/// zeros dropped (`1.5ms`); from a second on as `[Hh][Mm]S[.fff]s` with
/// minutes shown once there are any and hours once there are any
/// (`1.87s`, `1m0s`, `1h0m0.5s`).
///
/// ```
/// use mcapfile::info::go_duration;
/// assert_eq!(go_duration(1_870_000_000), "1.87s");
/// assert_eq!(go_duration(3_600_000_000_000), "1h0m0s");
/// assert_eq!(go_duration(1_500_000), "1.5ms");
/// ```
pub fn go_duration(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let u = ns.unsigned_abs();
    if u == 0 {
        return "0s".into();
    }
    if u < 1_000_000_000 {
        return match u {
            0..1_000 => format!("{sign}{u}ns"),
            1_000..1_000_000 => format!("{sign}{}µs", with_fraction(u, 3)),
            _ => format!("{sign}{}ms", with_fraction(u, 6)),
        };
    }
    let secs = u / 1_000_000_000;
    let s = with_fraction(u, 9);
    // Only the fraction of `with_fraction`: the whole seconds are split below.
    let frac = s.find('.').map_or("", |i| &s[i..]);
    let (mins, hours) = (secs / 60, secs / 3600);
    let mut text = sign.to_string();
    if hours > 0 {
        text.push_str(&format!("{hours}h"));
    }
    if mins > 0 {
        text.push_str(&format!("{}m", mins % 60));
    }
    text.push_str(&format!("{}{frac}s", secs % 60));
    text
}

/// `v / 10^digits` with the fraction's trailing zeros (and a bare point)
/// dropped.
fn with_fraction(v: u64, digits: u32) -> String {
    let scale = 10u64.pow(digits);
    let frac = format!("{:0width$}", v % scale, width = digits as usize);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{}", v / scale)
    } else {
        format!("{}.{frac}", v / scale)
    }
}

/// A log time as Go's `time.RFC3339Nano` prints it in UTC: fraction
/// without trailing zeros, none when whole.
fn rfc3339_nano(ns: u64) -> Option<String> {
    let full = logcore::time::format_unix(logcore::Timestamp(i64::try_from(ns).ok()?))?;
    let (date, frac) = full.strip_suffix('Z')?.split_once('.')?;
    let frac = frac.trim_end_matches('0');
    Some(if frac.is_empty() {
        format!("{date}Z")
    } else {
        format!("{date}.{frac}Z")
    })
}

/// Twenty 365-day years before now, in ns since the epoch: the Go CLI
/// prints a time as a date only when it is later than that.
fn recent_cutoff_ns() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(u128::from(u64::MAX)) as u64);
    now.saturating_sub(20 * 365 * 24 * 3600 * 1_000_000_000)
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
///
/// Over a zero duration the rate is infinite, or undefined without
/// messages, printed as Go prints such floats:
///
/// ```
/// assert_eq!(mcapfile::info::hz(3, 0), "+Inf Hz");
/// assert_eq!(mcapfile::info::hz(0, 0), "NaN Hz");
/// ```
pub fn hz(messages: u64, duration_ns: u64) -> String {
    let rate = messages as f64 * 1e9 / duration_ns as f64;
    if rate.is_nan() {
        "NaN Hz".into()
    } else if rate.is_infinite() {
        "+Inf Hz".into()
    } else {
        format!("{rate:.2} Hz")
    }
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
        // The Go table writer: each cell padded to its column (tabs have no
        // width) and followed by two spaces, the last one too.
        let rows = vec![
            vec!["\t(1)  /a".to_string(), " 5 msgs".into(), " : x".into()],
            vec!["\t(10) /long".to_string(), "15 msgs".into(), " : yy".into()],
        ];
        let mut out = Vec::new();
        write_table(&mut out, &rows).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\t(1)  /a      5 msgs   : x   \n\t(10) /long  15 msgs   : yy  \n"
        );
    }

    #[test]
    fn durations_as_go_prints_them() {
        // Expected strings worked out by hand from Go's Duration.String:
        // below 1 s the unit is ns, µs or ms with the fraction's trailing
        // zeros dropped; from 1 s on h, m (each once non-zero) and s with
        // up to nine fraction digits, trailing zeros dropped.
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(999), "999ns");
        assert_eq!(go_duration(1_000), "1µs");
        assert_eq!(go_duration(1_500), "1.5µs");
        assert_eq!(go_duration(1_000_000), "1ms");
        assert_eq!(go_duration(999_999_999), "999.999999ms");
        assert_eq!(go_duration(1_000_000_000), "1s");
        assert_eq!(go_duration(1_870_000_000), "1.87s");
        assert_eq!(go_duration(59_000_000_001), "59.000000001s");
        assert_eq!(go_duration(60_000_000_000), "1m0s");
        assert_eq!(go_duration(90_500_000_000), "1m30.5s");
        assert_eq!(go_duration(3_600_000_000_000), "1h0m0s");
        assert_eq!(go_duration(3_723_250_000_000), "1h2m3.25s");
        assert_eq!(go_duration(-1_500_000_000), "-1.5s");
        assert_eq!(go_duration(i64::MAX), "2562047h47m16.854775807s");
    }

    #[test]
    fn dates_as_rfc3339_nano() {
        // Go's RFC3339Nano in UTC drops the fraction's trailing zeros.
        assert_eq!(rfc3339_nano(0).unwrap(), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339_nano(1_700_000_000_500_000_000).unwrap(),
            "2023-11-14T22:13:20.5Z"
        );
        assert_eq!(
            rfc3339_nano(1_700_000_000_000_000_001).unwrap(),
            "2023-11-14T22:13:20.000000001Z"
        );
    }

    #[test]
    fn zero_duration_rates() {
        // Go's %.2f of +Inf and NaN.
        assert_eq!(hz(5, 0), "+Inf Hz");
        assert_eq!(hz(0, 0), "NaN Hz");
    }

    fn render(opts: crate::WriteOptions, times: &[u64]) -> String {
        let mut w = crate::Writer::new(Vec::new(), opts).unwrap();
        let ch = w.add_channel(0, "/a", "json", &Default::default()).unwrap();
        for (i, &t) in times.iter().enumerate() {
            w.write_message(ch, i as u32, t, t, b"{}").unwrap();
        }
        let file = w.finish().unwrap();
        let info = Info::new(&Mcap::new(&file).unwrap()).unwrap();
        let mut out = Vec::new();
        info.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn without_statistics_like_go() {
        // printInfo of the Go CLI with `info.Statistics == nil`: only
        // library and profile in the header, no counts or rates in the
        // channel lines, `unknown` for the totals.
        let opts = crate::WriteOptions {
            library: "lib".into(),
            use_chunks: false,
            statistics: false,
            ..Default::default()
        };
        assert_eq!(
            render(opts, &[0, 1_000_000_000]),
            "library:  lib  \nprofile:       \nchannels:\n\t(0) /a   : <no schema>  \n\
             channels: unknown\nattachments: unknown\nmetadata: unknown\n"
        );
    }

    #[test]
    fn zero_duration_and_old_times_like_go() {
        // One message at 5 s after the epoch: duration 0s, a rate of
        // 1e9 * 1 / 0 = +Inf, and times more than 20 years ago printed
        // without a date.
        let opts = crate::WriteOptions {
            library: "lib".into(),
            use_chunks: false,
            ..Default::default()
        };
        assert_eq!(
            render(opts, &[5_000_000_000]),
            "library:   lib          \nprofile:                \nmessages:  1            \n\
             duration:  0s           \nstart:     5.000000000  \nend:       5.000000000  \n\
             channels:\n\t(0) /a  1 msgs (+Inf Hz)   : <no schema>  \n\
             channels: 1\nattachments: 0\nmetadata: 0\n"
        );
    }

    #[test]
    fn totals_from_the_statistics_record() {
        // printInfo takes attachments and metadata from Statistics, not
        // from the index records (here not written).
        let opts = crate::WriteOptions {
            attachment_indexes: false,
            metadata_indexes: false,
            ..Default::default()
        };
        let mut w = crate::Writer::new(Vec::new(), opts).unwrap();
        w.write_attachment(0, 0, "a", "text/plain", b"x").unwrap();
        w.write_metadata("m", &Default::default()).unwrap();
        let file = w.finish().unwrap();
        let info = Info::new(&Mcap::new(&file).unwrap()).unwrap();
        assert_eq!(
            (info.channel_count, info.attachments, info.metadata),
            (0, 1, 1)
        );
    }

    #[test]
    fn a_channel_whose_schema_is_missing() {
        // printInfo: ` : <missing schema N>` for a channel whose schema id
        // is not 0 but names no schema in the file.
        use crate::records::{Channel, DataEnd, Footer, Header, MAGIC, Record, Statistics};
        let mut file = MAGIC.to_vec();
        let put = |file: &mut Vec<u8>, r: Record<'_>| {
            file.extend_from_slice(&crate::encode_record(&r));
        };
        put(&mut file, Record::Header(Header::default()));
        put(&mut file, Record::DataEnd(DataEnd::default()));
        let summary_start = file.len() as u64;
        let channel = Channel {
            id: 1,
            schema_id: 5,
            topic: "/x".into(),
            message_encoding: "json".into(),
            metadata: Default::default(),
        };
        put(&mut file, Record::Channel(channel));
        let stats = Statistics {
            channel_count: 1,
            ..Default::default()
        };
        put(&mut file, Record::Statistics(stats));
        let footer = Footer {
            summary_start,
            ..Default::default()
        };
        put(&mut file, Record::Footer(footer));
        file.extend_from_slice(MAGIC);
        let info = Info::new(&Mcap::new(&file).unwrap()).unwrap();
        assert_eq!(info.channels[0].missing_schema, Some(5));
        let mut out = Vec::new();
        info.write(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("channels:\n\t(1) /x  0 msgs (NaN Hz)   : <missing schema 5>  \n"),
            "{text}"
        );
    }
}
