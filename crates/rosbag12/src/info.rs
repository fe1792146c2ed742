//! The report of `rosbag info`: [`BagInfo`], built from a [`Bag`], and its
//! two printers, the text table ([`BagInfo::write_text`]) and the YAML of
//! `rosbag info -y` ([`BagInfo::write_yaml`]).
//!
//! Durations are truncated to whole seconds as `rosbag info` does
//! (`13:56s (836s)` for 836.9 s); dates are printed in UTC (ROS prints
//! local time) so the output is the same on every machine.
//!
//! ```
//! use rosbag12::{Bag, Connection, RosTime, Writer, WriterOptions};
//! use rosbag12::info::BagInfo;
//! let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default())?;
//! let c = w.add_connection(Connection::new(0, "/n", "std_msgs/Int32",
//!     "da5909fbe378aeaf85e547e830cc1bb7", "int32 data"))?;
//! for i in 0..3u32 {
//!     w.write(c, RosTime { sec: 100 + i, nsec: 0 }, &7i32.to_le_bytes())?;
//! }
//! w.finish()?;
//! let bytes = w.into_inner().into_inner();
//!
//! let info = BagInfo::new(&Bag::new(&bytes)?);
//! assert_eq!(info.messages, 3);
//! let mut text = Vec::new();
//! info.write_text(&mut text, "n.bag")?;
//! let text = String::from_utf8(text).unwrap();
//! assert!(text.contains("duration:     2.0s\n"));
//! assert!(text.contains("topics:       /n  3 msgs @ 1.0000 Hz : std_msgs/Int32\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::io::{self, Write};

use time::OffsetDateTime;
use time::macros::format_description;

use crate::bag::{Bag, IndexSource};
use crate::records::Compression;
use crate::time::RosTime;
use crate::version::Version;

/// The chunks of one compression kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompressionInfo {
    /// The compression.
    pub compression: Compression,
    /// How many chunks use it.
    pub chunks: usize,
    /// Their payload size after decompression.
    pub uncompressed: u64,
    /// Their payload size as stored.
    pub compressed: u64,
}

/// A message type and its md5 sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeInfo {
    /// Type name, e.g. `std_msgs/String`.
    pub name: String,
    /// The md5 sum of its definition.
    pub md5sum: String,
}

/// One topic: its connections together.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicInfo {
    /// Topic name.
    pub topic: String,
    /// Message type (of its first connection).
    pub type_name: String,
    /// Messages on all its connections.
    pub messages: u64,
    /// How many connections publish it.
    pub connections: usize,
    /// Inverse of the median gap between consecutive messages (absent
    /// below two messages or when the median gap is zero).
    pub frequency: Option<f64>,
}

/// What `rosbag info` reports about a bag.
#[derive(Debug, Clone, PartialEq)]
pub struct BagInfo {
    /// Format version.
    pub version: Version,
    /// Whether the index came from the file (false: rebuilt by scanning).
    pub indexed: bool,
    /// Times of the first and last message.
    pub time_range: Option<(RosTime, RosTime)>,
    /// File size in bytes.
    pub size: u64,
    /// Number of messages.
    pub messages: u64,
    /// Chunks by compression kind, in the order of [`Compression`] (2.0).
    pub compression: Vec<CompressionInfo>,
    /// Message types by name.
    pub types: Vec<TypeInfo>,
    /// Topics by name.
    pub topics: Vec<TopicInfo>,
}

impl BagInfo {
    /// Collects the report from the bag's index (chunk sizes are read from
    /// the chunk record headers, without decompressing).
    pub fn new(bag: &Bag<'_>) -> BagInfo {
        let counts = bag.message_counts();
        let times = bag.message_times().unwrap_or_default();
        let mut types: BTreeMap<&str, &str> = BTreeMap::new();
        let mut topics: BTreeMap<&str, TopicInfo> = BTreeMap::new();
        for c in bag.connections() {
            types.insert(&c.type_name, &c.md5sum);
            let row = topics.entry(&c.topic).or_insert_with(|| TopicInfo {
                topic: c.topic.clone(),
                type_name: c.type_name.clone(),
                messages: 0,
                connections: 0,
                frequency: None,
            });
            row.messages += counts.get(&c.id).copied().unwrap_or(0);
            row.connections += 1;
        }
        for row in topics.values_mut() {
            let mut all: Vec<RosTime> = bag
                .connections()
                .iter()
                .filter(|c| c.topic == row.topic)
                .filter_map(|c| times.get(&c.id))
                .flatten()
                .copied()
                .collect();
            all.sort_unstable();
            row.frequency = frequency(&all);
        }
        let mut kinds: BTreeMap<Compression, CompressionInfo> = BTreeMap::new();
        for s in bag.chunk_stats() {
            let k = kinds.entry(s.compression).or_insert(CompressionInfo {
                compression: s.compression,
                chunks: 0,
                uncompressed: 0,
                compressed: 0,
            });
            k.chunks += 1;
            k.uncompressed += s.uncompressed;
            k.compressed += s.compressed;
        }
        BagInfo {
            version: bag.version(),
            indexed: bag.index_source() == IndexSource::Stored,
            time_range: bag.time_range(),
            size: bag.data().len() as u64,
            messages: bag.message_count(),
            compression: kinds.into_values().collect(),
            types: types
                .into_iter()
                .map(|(name, md5)| TypeInfo {
                    name: name.to_string(),
                    md5sum: md5.to_string(),
                })
                .collect(),
            topics: topics.into_values().collect(),
        }
    }

    /// Seconds from the first to the last message (0 without messages).
    pub fn duration(&self) -> f64 {
        self.time_range.map_or(0.0, |(a, b)| secs(b) - secs(a))
    }

    /// Payload size of all chunks after decompression.
    pub fn uncompressed(&self) -> u64 {
        self.compression.iter().map(|c| c.uncompressed).sum()
    }

    /// Payload size of all chunks as stored.
    pub fn compressed(&self) -> u64 {
        self.compression.iter().map(|c| c.compressed).sum()
    }

    /// Whether any chunk is compressed.
    pub fn has_compressed_chunks(&self) -> bool {
        self.compression
            .iter()
            .any(|c| c.compression != Compression::None)
    }

    /// Writes the table `rosbag info` prints, `path` on its first line.
    pub fn write_text(&self, out: &mut impl Write, path: &str) -> io::Result<()> {
        let key = |k: &str| {
            if k.is_empty() {
                " ".repeat(14)
            } else {
                format!("{:<13} ", format!("{k}:"))
            }
        };
        let duration = self.duration();
        let version = if self.indexed {
            self.version.to_string()
        } else {
            format!("{} (unindexed)", self.version)
        };
        let mut lines = vec![
            format!("{}{path}", key("path")),
            format!("{}{version}", key("version")),
            format!("{}{}", key("duration"), duration_text(duration)),
        ];
        if let Some((a, b)) = self.time_range {
            lines.push(format!(
                "{}{} ({:.2})",
                key("start"),
                date_text(a)?,
                secs(a)
            ));
            lines.push(format!("{}{} ({:.2})", key("end"), date_text(b)?, secs(b)));
        }
        lines.push(format!("{}{}", key("size"), size_text(self.size)));
        lines.push(format!("{}{}", key("messages"), self.messages));
        let total_chunks: usize = self.compression.iter().map(|k| k.chunks).sum();
        let compression: Vec<String> = self
            .compression
            .iter()
            .map(|k| {
                let n = k.chunks;
                if k.compression == Compression::None {
                    format!("none [{n}/{total_chunks} chunks]")
                } else {
                    format!(
                        "{} [{n}/{total_chunks} chunks; {:.2}%]",
                        k.compression.name(),
                        percent(k.compressed, k.uncompressed)
                    )
                }
            })
            .collect();
        lines.push(format!(
            "{}{}",
            key("compression"),
            if compression.is_empty() {
                "none".into()
            } else {
                compression.join(", ")
            }
        ));
        if self.has_compressed_chunks() {
            let rate = |b: u64| {
                if duration > 0.0 {
                    format!(" @ {}/s", size_text((b as f64 / duration) as u64))
                } else {
                    String::new()
                }
            };
            let (u, c) = (self.uncompressed(), self.compressed());
            lines.push(format!(
                "{}{}{}",
                key("uncompressed"),
                size_text(u),
                rate(u)
            ));
            lines.push(format!(
                "{}{}{} ({:.2}%)",
                key("compressed"),
                size_text(c),
                rate(c),
                percent(c, u)
            ));
        }
        let type_width = self.types.iter().map(|t| t.name.len()).max().unwrap_or(0);
        for (i, t) in self.types.iter().enumerate() {
            let k = if i == 0 { key("types") } else { key("") };
            lines.push(format!("{k}{:<type_width$} [{}]", t.name, t.md5sum));
        }
        let topic_width = self.topics.iter().map(|t| t.topic.len()).max();
        let topic_width = topic_width.unwrap_or(0);
        let count_width = self
            .topics
            .iter()
            .map(|r| r.messages.to_string().len())
            .max()
            .unwrap_or(0);
        for (i, row) in self.topics.iter().enumerate() {
            let k = if i == 0 { key("topics") } else { key("") };
            let msgs = if row.messages == 1 { "msg " } else { "msgs" };
            let conns = if row.connections > 1 {
                format!(" ({} connections)", row.connections)
            } else {
                String::new()
            };
            lines.push(format!(
                "{k}{:<topic_width$}  {:>count_width$} {msgs}{} : {}{conns}",
                row.topic,
                row.messages,
                frequency_text(row.frequency),
                row.type_name
            ));
        }
        for l in lines {
            writeln!(out, "{}", l.trim_end())?;
        }
        Ok(())
    }

    /// Writes the YAML of `rosbag info -y`, `path` as its first key.
    pub fn write_yaml(&self, out: &mut impl Write, path: &str) -> io::Result<()> {
        writeln!(out, "path: {}", yaml_str(path))?;
        writeln!(out, "version: {}", self.version)?;
        writeln!(out, "duration: {:.6}", self.duration())?;
        if let Some((a, b)) = self.time_range {
            writeln!(out, "start: {:.6}", secs(a))?;
            writeln!(out, "end: {:.6}", secs(b))?;
        }
        writeln!(out, "size: {}", self.size)?;
        writeln!(out, "messages: {}", self.messages)?;
        let indexed = if self.indexed { "True" } else { "False" };
        writeln!(out, "indexed: {indexed}")?;
        // The kind with the most chunks; the last of equal ones.
        let dominant = self
            .compression
            .iter()
            .max_by_key(|k| k.chunks)
            .map_or("none", |k| k.compression.name());
        writeln!(out, "compression: {dominant}")?;
        if self.has_compressed_chunks() {
            writeln!(out, "uncompressed: {}", self.uncompressed())?;
            writeln!(out, "compressed: {}", self.compressed())?;
        }
        writeln!(out, "types:")?;
        for t in &self.types {
            writeln!(out, "    - type: {}", yaml_str(&t.name))?;
            writeln!(out, "      md5: {}", yaml_str(&t.md5sum))?;
        }
        writeln!(out, "topics:")?;
        for row in &self.topics {
            writeln!(out, "  - topic: {}", yaml_str(&row.topic))?;
            writeln!(out, "    type: {}", yaml_str(&row.type_name))?;
            writeln!(out, "    messages: {}", row.messages)?;
            if row.connections > 1 {
                writeln!(out, "    connections: {}", row.connections)?;
            }
            if let Some(f) = row.frequency {
                writeln!(out, "    frequency: {f:.4}")?;
            }
        }
        Ok(())
    }
}

fn secs(t: RosTime) -> f64 {
    f64::from(t.sec) + f64::from(t.nsec) / 1e9
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        part as f64 * 100.0 / whole as f64
    } else {
        0.0
    }
}

/// Inverse of the median gap between consecutive times.
fn frequency(times: &[RosTime]) -> Option<f64> {
    let mut gaps: Vec<f64> = times.windows(2).map(|w| secs(w[1]) - secs(w[0])).collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_by(f64::total_cmp);
    let median = gaps[gaps.len() / 2];
    (median > 0.0).then(|| 1.0 / median)
}

/// `12.3s`, `13:56s (836s)`, `1hr 2:03s (3723s)`: below a minute with one
/// decimal, else in whole seconds, truncated.
fn duration_text(secs: f64) -> String {
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
    // Truncation, as `%d` of a float does in Python.
    let total = secs as u64;
    if total < 3600 {
        format!("{}:{:02}s ({total}s)", total / 60, total % 60)
    } else {
        format!(
            "{}hr {}:{:02}s ({total}s)",
            total / 3600,
            total % 3600 / 60,
            total % 60
        )
    }
}

/// Bytes in KB, MB, GB or TB (of 1024) with one decimal.
fn size_text(bytes: u64) -> String {
    let mut v = bytes as f64 / 1024.0;
    for unit in ["KB", "MB", "GB"] {
        if v < 1024.0 {
            return format!("{v:.1} {unit}");
        }
        v /= 1024.0;
    }
    format!("{v:.1} TB")
}

/// ` @ 5.0000 Hz`, ` @ 1.2 kHz`, or nothing.
fn frequency_text(f: Option<f64>) -> String {
    match f {
        Some(f) if f >= 1000.0 => format!(" @ {:.1} kHz", f / 1000.0),
        Some(f) => format!(" @ {f:.4} Hz"),
        None => String::new(),
    }
}

/// `Mon DD YYYY HH:MM:SS.ss` in UTC (hundredths truncated).
fn date_text(t: RosTime) -> io::Result<String> {
    let when = OffsetDateTime::from_unix_timestamp(i64::from(t.sec)).map_err(io::Error::other)?;
    let text = when
        .format(format_description!(
            "[month repr:short] [day] [year] [hour]:[minute]:[second]"
        ))
        .map_err(io::Error::other)?;
    let centis = t.nsec.min(999_999_999) / 10_000_000;
    Ok(format!("{text}.{centis:02}"))
}

/// A YAML double-quoted scalar (JSON string syntax, which YAML accepts).
fn yaml_str(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for ch in s.chars() {
        match ch {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\r' => q.push_str("\\r"),
            '\t' => q.push_str("\\t"),
            '\u{8}' => q.push_str("\\b"),
            '\u{c}' => q.push_str("\\f"),
            c if u32::from(c) < 0x20 => q.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(sec: u32, nsec: u32) -> RosTime {
        RosTime { sec, nsec }
    }

    #[test]
    fn dates_are_utc_with_truncated_hundredths() {
        assert_eq!(
            date_text(t(1275608995, 600_055_000)).unwrap(),
            "Jun 03 2010 23:49:55.60"
        );
        assert_eq!(date_text(t(0, 0)).unwrap(), "Jan 01 1970 00:00:00.00");
        assert_eq!(
            date_text(t(1600000000, 999_999_999)).unwrap(),
            "Sep 13 2020 12:26:40.99"
        );
        assert_eq!(
            date_text(t(u32::MAX, 0)).unwrap(),
            "Feb 07 2106 06:28:15.00"
        );
    }

    #[test]
    fn durations_truncate_to_whole_seconds() {
        assert_eq!(duration_text(0.0), "0.0s");
        assert_eq!(duration_text(12.34), "12.3s");
        assert_eq!(duration_text(59.99), "60.0s");
        assert_eq!(duration_text(60.0), "1:00s (60s)");
        assert_eq!(duration_text(152.0), "2:32s (152s)");
        // rosbag info prints 836.9 s as 836 s, not 837.
        assert_eq!(duration_text(836.9), "13:56s (836s)");
        assert_eq!(duration_text(3599.99), "59:59s (3599s)");
        assert_eq!(duration_text(3723.0), "1hr 2:03s (3723s)");
        assert_eq!(duration_text(3723.7), "1hr 2:03s (3723s)");
    }

    #[test]
    fn sizes_and_frequencies() {
        assert_eq!(size_text(868400), "848.0 KB");
        assert_eq!(size_text(0), "0.0 KB");
        assert_eq!(size_text(5 << 20), "5.0 MB");
        assert_eq!(size_text(3 << 30), "3.0 GB");
        assert_eq!(size_text(2048 << 30), "2.0 TB");
        assert_eq!(frequency(&[t(0, 0), t(0, 100_000_000)]), Some(10.0));
        assert_eq!(frequency(&[t(0, 0)]), None);
        assert_eq!(frequency(&[t(5, 0), t(5, 0)]), None);
        assert_eq!(frequency_text(Some(5.0)), " @ 5.0000 Hz");
        assert_eq!(frequency_text(Some(2500.0)), " @ 2.5 kHz");
        assert_eq!(frequency_text(None), "");
    }

    #[test]
    fn yaml_strings_are_json_strings() {
        for s in [
            "plain",
            "/a b",
            "quo\"te",
            "back\\slash",
            "nl\ntab\t\u{1}\u{7f}é",
        ] {
            assert_eq!(yaml_str(s), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }
}
