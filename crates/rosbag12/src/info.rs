//! The report of `rosbag info`: [`BagInfo`], built from a [`Bag`], and its
//! two printers, the text table ([`BagInfo::write_text`], ROS's
//! `Bag.__str__`) and the YAML of `rosbag info -y`
//! ([`BagInfo::write_yaml`], ROS's `Bag._get_yaml_info`).
//!
//! The printers follow the format strings of ROS's `rosbag/bag.py`
//! character for character: the key column as wide as the longest key
//! plus one, durations truncated to whole seconds (`13:56s (836s)` for
//! 836.9 s), `%.2f` hundredths on the dates, sizes and frequencies with
//! one decimal right-aligned to the widest value of their column, topic
//! and type columns padded to the longest name, the compression kinds by
//! chunk count. The report is the one `rosbag info --freq` prints: with
//! frequencies, and without connections that hold no message. Where ROS's
//! output depends on the machine it runs on, this report does not:
//!
//! - dates are printed in UTC (ROS prints local time);
//! - per-topic message counts of 1.2 bags are the real ones (`bag.py`
//!   sums them over 2.0 chunk infos, so it prints `0 msg` for every topic
//!   of a 1.2 bag);
//! - a compressed kind whose chunks hold 0 bytes gives `0.00%`, and chunks
//!   without any message give no `types:`/`topics:` rows, where `bag.py`
//!   stops with an exception (a division by zero, `max()` of nothing);
//! - bags ROS refuses (unindexed, damaged) are reported from the rebuilt
//!   index, with `(unindexed)` after the version and `indexed: False`.
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
//! assert!(text.contains("duration:    2.0s\n"));
//! assert!(text.ends_with("topics:      /n   3 msgs @ 1.0 Hz : std_msgs/Int32\n"));
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
    /// The md5 sum of its definition (of the first connection of the type).
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
    /// Inverse of the median gap between consecutive messages, the median
    /// of an even number of gaps being the mean of the two middle ones
    /// (absent below two messages or when the median gap is not positive).
    pub frequency: Option<f64>,
}

/// What `rosbag info` reports about a bag.
#[derive(Debug, Clone, PartialEq)]
pub struct BagInfo {
    /// Format version.
    pub version: Version,
    /// Whether the index came from the file (false: rebuilt by scanning).
    pub indexed: bool,
    /// Start and end as `rosbag info` takes them: the first chunk's start
    /// time and the last chunk's end time in file order (2.0), the
    /// earliest and latest indexed message (1.2). `None` for a 2.0 bag
    /// without chunks or a 1.2 bag without messages, for which only the
    /// path, version and size are reported.
    pub time_range: Option<(RosTime, RosTime)>,
    /// File size in bytes.
    pub size: u64,
    /// Number of messages.
    pub messages: u64,
    /// Chunks by compression kind (2.0), in the order `rosbag info` lists
    /// them: most chunks first, equal counts by name from `z` to `a`.
    pub compression: Vec<CompressionInfo>,
    /// Message types by name.
    pub types: Vec<TypeInfo>,
    /// Topics by name.
    pub topics: Vec<TopicInfo>,
}

impl BagInfo {
    /// Collects the report from the bag's index (chunk sizes are read from
    /// the chunk record headers, without decompressing). Connections that
    /// hold no message are left out, as `rosbag info --freq` leaves them.
    pub fn new(bag: &Bag<'_>) -> BagInfo {
        let counts = bag.message_counts();
        let times = bag.message_times().unwrap_or_default();
        let count = |id: u32| counts.get(&id).copied().unwrap_or(0);
        let mut types: BTreeMap<&str, &str> = BTreeMap::new();
        let mut topics: BTreeMap<&str, TopicInfo> = BTreeMap::new();
        // The connections of each topic, so that each is visited once.
        let mut of_topic: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for c in bag.connections() {
            of_topic.entry(&c.topic).or_default().push(c.id);
        }
        for c in bag.connections().iter().filter(|c| count(c.id) > 0) {
            types.entry(&c.type_name).or_insert(&c.md5sum);
            let row = topics.entry(&c.topic).or_insert_with(|| TopicInfo {
                topic: c.topic.clone(),
                type_name: c.type_name.clone(),
                messages: 0,
                connections: 0,
                frequency: None,
            });
            row.messages += count(c.id);
            row.connections += 1;
        }
        for row in topics.values_mut() {
            let mut all: Vec<RosTime> = of_topic
                .get(row.topic.as_str())
                .into_iter()
                .flatten()
                .filter_map(|id| times.get(id))
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
        let mut compression: Vec<CompressionInfo> = kinds.into_values().collect();
        sort_as_rosbag_info(&mut compression);
        let time_range = if bag.version().major == 2 {
            match (bag.chunk_infos().first(), bag.chunk_infos().last()) {
                (Some(first), Some(last)) => Some((first.start_time, last.end_time)),
                _ => None,
            }
        } else {
            bag.time_range()
        };
        BagInfo {
            version: bag.version(),
            indexed: bag.index_source() == IndexSource::Stored,
            time_range,
            size: bag.data().len() as u64,
            messages: bag.message_count(),
            compression,
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

    /// Seconds from start to end (0 without a time range; negative when
    /// the last chunk ends before the first one starts).
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
        let version = if self.indexed {
            self.version.to_string()
        } else {
            format!("{} (unindexed)", self.version)
        };
        let mut rows: Vec<(&str, String)> = vec![("path", path.to_string()), ("version", version)];
        if let Some((a, b)) = self.time_range {
            let duration = self.duration();
            rows.push(("duration", duration_text(duration)));
            let (a, b) = (secs(a), secs(b));
            rows.push(("start", format!("{} ({a:.2})", date_text(a)?)));
            rows.push(("end", format!("{} ({b:.2})", date_text(b)?)));
            rows.push(("size", size_text(self.size as f64)));
            rows.push(("messages", self.messages.to_string()));
            self.compression_rows(&mut rows, duration);
            self.type_and_topic_rows(&mut rows);
        } else {
            rows.push(("size", size_text(self.size as f64)));
        }
        let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 1;
        let mut text = String::new();
        for (k, v) in rows {
            let k = if k.is_empty() {
                String::new()
            } else {
                format!("{k}:")
            };
            text.push_str(&format!("{k:<width$} {v}\n"));
        }
        // Only the end of the whole table is stripped: inner rows keep
        // the padding of their last column.
        writeln!(out, "{}", text.trim_end())
    }

    fn compression_rows(&self, rows: &mut Vec<(&str, String)>, duration: f64) {
        let total: usize = self.compression.iter().map(|k| k.chunks).sum();
        let kinds: Vec<String> = self
            .compression
            .iter()
            .map(|k| {
                let (name, n) = (k.compression.name(), k.chunks);
                if k.compression == Compression::None {
                    format!("{name} [{n}/{total} chunks]")
                } else {
                    let pct = percent(k.compressed, k.uncompressed);
                    format!("{name} [{n}/{total} chunks; {pct:.2}%]")
                }
            })
            .collect();
        rows.push((
            "compression",
            if kinds.is_empty() {
                "none".into()
            } else {
                kinds.join(", ")
            },
        ));
        if !self.has_compressed_chunks() {
            return;
        }
        let (u, c) = (self.uncompressed(), self.compressed());
        let (us, cs) = (size_text(u as f64), size_text(c as f64));
        let sw = us.len().max(cs.len());
        if duration > 0.0 {
            let ur = size_text(u as f64 / duration);
            let cr = size_text(c as f64 / duration);
            let rw = ur.len().max(cr.len());
            rows.push(("uncompressed", format!("{us:>sw$} @ {ur:>rw$}/s")));
            let pct = percent(c, u);
            rows.push(("compressed", format!("{cs:>sw$} @ {cr:>rw$}/s ({pct:.2}%)")));
        } else {
            rows.push(("uncompressed", format!("{us:>sw$}")));
            rows.push(("compressed", format!("{cs:>sw$}")));
        }
    }

    fn type_and_topic_rows(&self, rows: &mut Vec<(&str, String)>) {
        let width = |it: &mut dyn Iterator<Item = usize>| it.max().unwrap_or(0);
        let type_w = width(&mut self.types.iter().map(|t| t.name.chars().count()));
        let topic_w = width(&mut self.topics.iter().map(|t| t.topic.chars().count()));
        let count_w = width(&mut self.topics.iter().map(|t| t.messages.to_string().len()));
        let freqs: Vec<Option<String>> = self
            .topics
            .iter()
            .map(|t| t.frequency.map(frequency_text))
            .collect();
        let freq_w = width(&mut freqs.iter().flatten().map(|f| f.chars().count()));
        for (i, t) in self.types.iter().enumerate() {
            let k = if i == 0 { "types" } else { "" };
            rows.push((k, format!("{:<type_w$} [{}]", t.name, t.md5sum)));
        }
        for (i, (row, freq)) in self.topics.iter().zip(&freqs).enumerate() {
            let k = if i == 0 { "topics" } else { "" };
            let msgs = if row.messages > 1 { "msgs" } else { "msg " };
            let mut s = format!(
                "{:<topic_w$}   {:>count_w$} {msgs}",
                row.topic, row.messages
            );
            match freq {
                Some(f) => s.push_str(&format!(" @ {f:>freq_w$}")),
                None => s.push_str(&format!("   {:>freq_w$}", "")),
            }
            s.push_str(&format!(" : {:<type_w$}", row.type_name));
            if row.connections > 1 {
                s.push_str(&format!(" ({} connections)", row.connections));
            }
            rows.push((k, s));
        }
    }

    /// Writes the YAML of `rosbag info -y`, `path` as its first key.
    /// Strings are written as they are, unquoted, as `rosbag info -y`
    /// writes them.
    pub fn write_yaml(&self, out: &mut impl Write, path: &str) -> io::Result<()> {
        writeln!(out, "path: {path}")?;
        writeln!(out, "version: {}", self.version)?;
        let Some((a, b)) = self.time_range else {
            writeln!(out, "size: {}", self.size)?;
            return writeln!(out, "indexed: False");
        };
        writeln!(out, "duration: {:.6}", self.duration())?;
        writeln!(out, "start: {:.6}", secs(a))?;
        writeln!(out, "end: {:.6}", secs(b))?;
        writeln!(out, "size: {}", self.size)?;
        writeln!(out, "messages: {}", self.messages)?;
        let indexed = if self.indexed { "True" } else { "False" };
        writeln!(out, "indexed: {indexed}")?;
        // The first kind of the text's list: most chunks, then last name.
        let main = self
            .compression
            .first()
            .map_or("none", |k| k.compression.name());
        writeln!(out, "compression: {main}")?;
        if self.has_compressed_chunks() {
            writeln!(out, "uncompressed: {}", self.uncompressed())?;
            writeln!(out, "compressed: {}", self.compressed())?;
        }
        writeln!(out, "types:")?;
        for t in &self.types {
            writeln!(out, "    - type: {}", t.name)?;
            writeln!(out, "      md5: {}", t.md5sum)?;
        }
        writeln!(out, "topics:")?;
        for row in &self.topics {
            writeln!(out, "    - topic: {}", row.topic)?;
            writeln!(out, "      type: {}", row.type_name)?;
            writeln!(out, "      messages: {}", row.messages)?;
            if row.connections > 1 {
                writeln!(out, "      connections: {}", row.connections)?;
            }
            if let Some(f) = row.frequency {
                writeln!(out, "      frequency: {f:.4}")?;
            }
        }
        Ok(())
    }
}

/// Seconds as a double, as ROS's `Time.to_sec()` computes them.
fn secs(t: RosTime) -> f64 {
    f64::from(t.sec) + f64::from(t.nsec) / 1e9
}

/// Most chunks first, equal counts by name descending (the reverse of
/// sorting `(count, name)` pairs).
fn sort_as_rosbag_info(kinds: &mut [CompressionInfo]) {
    kinds.sort_by(|a, b| (b.chunks, b.compression.name()).cmp(&(a.chunks, a.compression.name())));
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        part as f64 * 100.0 / whole as f64
    } else {
        0.0
    }
}

/// Inverse of the median gap between consecutive times: the middle gap of
/// an odd number, the mean of the two middle ones of an even number.
fn frequency(times: &[RosTime]) -> Option<f64> {
    let mut gaps: Vec<f64> = times.windows(2).map(|w| secs(w[1]) - secs(w[0])).collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_by(f64::total_cmp);
    let n = gaps.len();
    let median = if n % 2 == 1 {
        gaps[n / 2]
    } else {
        (gaps[n / 2 - 1] + gaps[n / 2]) / 2.0
    };
    (median > 0.0).then(|| 1.0 / median)
}

/// `12.3s`, `13:56s (836s)`, `1hr 2:03s (3723s)`: below a minute (and
/// when negative) with one decimal, else in whole seconds, truncated as
/// `%d` of a float truncates.
fn duration_text(secs: f64) -> String {
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
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

/// Bytes in KB to YB (of 1024) with one decimal: the first unit in which
/// the value is below 1024, `-` past YB.
fn size_text(bytes: f64) -> String {
    let mut v = bytes;
    for unit in ["KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"] {
        v /= 1024.0;
        if v < 1024.0 {
            return format!("{v:.1} {unit}");
        }
    }
    "-".into()
}

/// Hz to YHz (of 1000) with one decimal: the first unit in which the
/// value is below 1000, `-` past YHz.
fn frequency_text(hz: f64) -> String {
    let mut v = hz;
    for unit in ["Hz", "kHz", "MHz", "GHz", "THz", "PHz", "EHz", "ZHz", "YHz"] {
        if v < 1000.0 {
            return format!("{v:.1} {unit}");
        }
        v /= 1000.0;
    }
    "-".into()
}

/// `Mon DD YYYY HH:MM:SS.ss` in UTC: the whole seconds of the double
/// `secs`, then the `%.2f` of its fraction without the leading digit, so a
/// fraction that rounds up to `1.00` prints `.00` and carries nothing.
fn date_text(secs: f64) -> io::Result<String> {
    let whole = secs.trunc();
    let when = OffsetDateTime::from_unix_timestamp(whole as i64).map_err(io::Error::other)?;
    let text = when
        .format(format_description!(
            "[month repr:short] [day] [year] [hour]:[minute]:[second]"
        ))
        .map_err(io::Error::other)?;
    let frac = format!("{:.2}", secs - whole);
    Ok(format!("{text}{}", &frac[1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(sec: u32, nsec: u32) -> RosTime {
        RosTime { sec, nsec }
    }

    // The expected strings below apply bag.py's format strings by hand:
    // `_time_to_str` (strftime of the whole seconds + `('%.2f' % frac)[1:]`),
    // `_human_readable_size` (divide by 1024.0 first, then `'%.1f %s'`
    // below 1024), `_human_readable_frequency` (`'%.1f %s'` below 1000,
    // then divide), `_median`, and the rows of `Bag.__str__`.

    #[test]
    fn dates_round_the_hundredths_without_carry() {
        assert_eq!(date_text(1600000000.0).unwrap(), "Sep 13 2020 12:26:40.00");
        assert_eq!(date_text(0.0).unwrap(), "Jan 01 1970 00:00:00.00");
        // 1275608995.600055: '%.2f' % 0.600055... = '0.60'.
        assert_eq!(
            date_text(secs(t(1275608995, 600_055_000))).unwrap(),
            "Jun 03 2010 23:49:55.60"
        );
        // 1000.996: '%.2f' % 0.996 = '1.00', [1:] = '.00'; the seconds
        // stay 40 (int(secs)), the carry is lost.
        assert_eq!(
            date_text(secs(t(1000, 996_000_000))).unwrap(),
            "Jan 01 1970 00:16:40.00"
        );
        // 1.125 and 1.375 are exact doubles: '%.2f' rounds half to even.
        assert_eq!(date_text(1.125).unwrap(), "Jan 01 1970 00:00:01.12");
        assert_eq!(date_text(1.375).unwrap(), "Jan 01 1970 00:00:01.38");
        // 1600000000 + 0.999999999 is the double 1600000001.0 (its spacing
        // there is 2^-22), so to_sec() already lands on the next second.
        assert_eq!(
            date_text(secs(t(1600000000, 999_999_999))).unwrap(),
            "Sep 13 2020 12:26:41.00"
        );
        assert_eq!(
            date_text(f64::from(u32::MAX)).unwrap(),
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
        // Negative (last chunk ends before the first starts): int(d / 60)
        // is not above 0, so '%.1fs'.
        assert_eq!(duration_text(-100.0), "-100.0s");
    }

    #[test]
    fn sizes_go_up_to_yottabytes() {
        assert_eq!(size_text(0.0), "0.0 KB");
        assert_eq!(size_text(868400.0), "848.0 KB");
        // 1048575 / 1024 = 1023.999 is below 1024: '%.1f' gives 1024.0.
        assert_eq!(size_text(1048575.0), "1024.0 KB");
        assert_eq!(size_text(1048576.0), "1.0 MB");
        assert_eq!(size_text((3u64 << 30) as f64), "3.0 GB");
        assert_eq!(size_text((2048u64 << 30) as f64), "2.0 TB");
        assert_eq!(size_text((5u64 << 50) as f64), "5.0 PB");
        assert_eq!(size_text(u64::MAX as f64), "16.0 EB");
        assert_eq!(size_text(2f64.powi(75)), "32.0 ZB");
        // 2^80 is 1024 ZB, not below 1024: one more unit.
        assert_eq!(size_text(2f64.powi(80)), "1.0 YB");
        assert_eq!(size_text(2f64.powi(89)), "512.0 YB");
        // 2^90 is 1024 YB: past the last unit.
        assert_eq!(size_text(2f64.powi(90)), "-");
        // Rates are fractional byte counts: 300 / 10 s = 30 B/s.
        assert_eq!(size_text(300.0 / 10.0), "0.0 KB");
    }

    #[test]
    fn frequencies_take_the_mean_of_the_two_middle_gaps() {
        assert_eq!(frequency(&[t(0, 0), t(0, 100_000_000)]), Some(10.0));
        assert_eq!(frequency(&[t(0, 0)]), None);
        assert_eq!(frequency(&[]), None);
        assert_eq!(frequency(&[t(5, 0), t(5, 0)]), None);
        // Gaps 1 s and 3 s: median (1 + 3) / 2 = 2 s (the upper gap alone
        // would give 1/3 Hz).
        assert_eq!(frequency(&[t(0, 0), t(1, 0), t(4, 0)]), Some(0.5));
        // Gaps 1, 2, 1: the middle of the sorted odd list, 1 s.
        assert_eq!(frequency(&[t(0, 0), t(1, 0), t(3, 0), t(4, 0)]), Some(1.0));
        // Gaps 0, 0, 2, 2: median 1 s.
        let times = [t(7, 0), t(7, 0), t(7, 0), t(9, 0), t(11, 0)];
        assert_eq!(frequency(&times), Some(1.0));
        // Gaps 0, 0, 0, 2: median 0, no frequency.
        let times = [t(7, 0), t(7, 0), t(7, 0), t(7, 0), t(9, 0)];
        assert_eq!(frequency(&times), None);
    }

    #[test]
    fn frequency_units() {
        assert_eq!(frequency_text(5.0), "5.0 Hz");
        assert_eq!(frequency_text(999.94), "999.9 Hz");
        // Below 1000, so Hz, rounded by '%.1f' to 1000.0.
        assert_eq!(frequency_text(999.96), "1000.0 Hz");
        assert_eq!(frequency_text(1000.0), "1.0 kHz");
        assert_eq!(frequency_text(2500.0), "2.5 kHz");
        assert_eq!(frequency_text(1.5e6), "1.5 MHz");
        assert_eq!(frequency_text(3e9), "3.0 GHz");
        assert_eq!(frequency_text(1e30), "-");
    }

    fn kind(compression: Compression, chunks: usize, u: u64, c: u64) -> CompressionInfo {
        CompressionInfo {
            compression,
            chunks,
            uncompressed: u,
            compressed: c,
        }
    }

    fn topic(name: &str, messages: u64, f: Option<f64>, ty: &str, conns: usize) -> TopicInfo {
        TopicInfo {
            topic: name.into(),
            type_name: ty.into(),
            messages,
            connections: conns,
            frequency: f,
        }
    }

    fn sample() -> BagInfo {
        BagInfo {
            version: Version { major: 2, minor: 0 },
            indexed: true,
            time_range: Some((t(1000, 0), t(1010, 0))),
            size: 2_000_000,
            messages: 23,
            compression: vec![
                kind(Compression::Lz4, 3, 149_000, 2_000),
                kind(Compression::None, 1, 1_000, 1_000),
            ],
            types: vec![
                TypeInfo {
                    name: "A/Long_type".into(),
                    md5sum: "m1".into(),
                },
                TypeInfo {
                    name: "B/T".into(),
                    md5sum: "m2".into(),
                },
            ],
            topics: vec![
                topic("/a", 0, None, "B/T", 1),
                topic("/bb", 1, None, "A/Long_type", 1),
                topic("/c", 2, Some(5.0), "B/T", 2),
                topic("/long_topic", 20, Some(1234.5), "A/Long_type", 1),
            ],
        }
    }

    #[test]
    fn the_table_follows_bag_py_column_by_column() {
        // Key column: len('uncompressed') + 1 = 13, then a space. Sizes:
        // 150000 -> 146.5 KB and 3000 -> 2.9 KB right-aligned to 8; rates
        // over 10 s 14.6 KB and 0.3 KB right-aligned to 7; 100 * 2000 /
        // 149000 = 1.34%. Topics: '%-*s   %*d %s' with widths 11 and 2,
        // 'msg ' for 0 and 1; ' @ %*s' with width 7, or 3 + 7 spaces;
        // ' : %-*s' with width 11; only the table's end is stripped.
        let want = "\
path:         x.bag
version:      2.0
duration:     10.0s
start:        Jan 01 1970 00:16:40.00 (1000.00)
end:          Jan 01 1970 00:16:50.00 (1010.00)
size:         1.9 MB
messages:     23
compression:  lz4 [3/4 chunks; 1.34%], none [1/4 chunks]
uncompressed: 146.5 KB @ 14.6 KB/s
compressed:     2.9 KB @  0.3 KB/s (2.00%)
types:        A/Long_type [m1]
              B/T         [m2]
topics:       /a             0 msg            : B/T        \n              \
/bb            1 msg            : A/Long_type
              /c             2 msgs @  5.0 Hz : B/T         (2 connections)
              /long_topic   20 msgs @ 1.2 kHz : A/Long_type
";
        let mut out = Vec::new();
        sample().write_text(&mut out, "x.bag").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn without_compressed_chunks_the_key_column_is_narrower() {
        // len('compression') + 1 = 12; no topic has a frequency, so the
        // frequency column is 3 spaces and an empty '%0s'.
        let mut info = sample();
        info.compression = vec![kind(Compression::None, 2, 10, 10)];
        info.topics = vec![topic("/bb", 1, None, "B/T", 1)];
        info.types.truncate(1);
        let mut out = Vec::new();
        info.write_text(&mut out, "x.bag").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("path:        x.bag\nversion:     2.0\n"),
            "{text}"
        );
        assert!(
            text.contains("\ncompression: none [2/2 chunks]\ntypes:"),
            "{text}"
        );
        assert!(
            text.ends_with("\ntopics:      /bb   1 msg     : B/T\n"),
            "{text}"
        );
        // Compressed chunks but no duration: sizes without rates or ratio.
        let mut info = sample();
        info.time_range = Some((t(5, 0), t(5, 0)));
        let mut out = Vec::new();
        info.write_text(&mut out, "x.bag").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("\nuncompressed: 146.5 KB\ncompressed:     2.9 KB\ntypes:"),
            "{text}"
        );
    }

    #[test]
    fn a_bag_without_chunks_reports_path_version_and_size() {
        let info = BagInfo {
            time_range: None,
            size: 4117,
            messages: 0,
            compression: Vec::new(),
            types: Vec::new(),
            topics: Vec::new(),
            ..sample()
        };
        // len('version') + 1 = 8; 4117 / 1024 = 4.02.
        let mut out = Vec::new();
        info.write_text(&mut out, "e.bag").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "path:    e.bag\nversion: 2.0\nsize:    4.0 KB\n"
        );
        let mut out = Vec::new();
        info.write_yaml(&mut out, "e.bag").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "path: e.bag\nversion: 2.0\nsize: 4117\nindexed: False\n"
        );
    }

    #[test]
    fn yaml_indents_by_four_and_leaves_strings_unquoted() {
        let mut out = Vec::new();
        sample().write_yaml(&mut out, "a b: c.bag").unwrap();
        let want = "\
path: a b: c.bag
version: 2.0
duration: 10.000000
start: 1000.000000
end: 1010.000000
size: 2000000
messages: 23
indexed: True
compression: lz4
uncompressed: 150000
compressed: 3000
types:
    - type: A/Long_type
      md5: m1
    - type: B/T
      md5: m2
topics:
    - topic: /a
      type: B/T
      messages: 0
    - topic: /bb
      type: A/Long_type
      messages: 1
    - topic: /c
      type: B/T
      messages: 2
      connections: 2
      frequency: 5.0000
    - topic: /long_topic
      type: A/Long_type
      messages: 20
      frequency: 1234.5000
";
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn compression_kinds_by_chunk_count_then_name_descending() {
        let mut v = vec![
            kind(Compression::None, 2, 0, 0),
            kind(Compression::Bz2, 1, 0, 0),
            kind(Compression::Lz4, 2, 0, 0),
        ];
        sort_as_rosbag_info(&mut v);
        // sorted((count, name)) = (1,bz2), (2,lz4), (2,none); reversed.
        let names: Vec<&str> = v.iter().map(|k| k.compression.name()).collect();
        assert_eq!(names, ["none", "lz4", "bz2"]);
    }
}
