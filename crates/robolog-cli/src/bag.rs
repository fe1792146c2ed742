//! `robolog bag info|reindex|fix`: ROS bag tools with the vocabulary of
//! `rosbag info` / `rosbag reindex` / `rosbag fix`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use rosbag12::{Bag, Compression, IndexSource, RosTime};

use crate::output::{self, Out};
use crate::{Failure, Outcome, report};

/// ROS bag tools.
#[derive(Debug, Subcommand)]
pub(crate) enum BagCommand {
    /// Print the fields of `rosbag info`: version, duration, start, end,
    /// size, messages, compression, types with md5, topics with counts and
    /// frequency.
    Info(InfoArgs),
    /// Rebuild the index of an unindexed, truncated or damaged bag (1.2 or
    /// 2.0) as an indexed 2.0 bag. Without -o, the original is kept as
    /// FILE.orig.bag and the result replaces FILE, as `rosbag reindex` does.
    Reindex(ReindexArgs),
    /// Rewrite a bag (1.2 or 2.0) as an indexed 2.0 bag in OUT.
    Fix(FixArgs),
}

/// Arguments of `robolog bag info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// The bags (several are separated by `---`, as `rosbag info` does).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print YAML with the keys of `rosbag info -y`.
    #[arg(long, short = 'y')]
    yaml: bool,
}

/// Arguments of `robolog bag reindex`.
#[derive(Debug, Args)]
pub(crate) struct ReindexArgs {
    /// The bag.
    file: PathBuf,
    /// Write the reindexed bag here instead of replacing FILE.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Arguments of `robolog bag fix`.
#[derive(Debug, Args)]
pub(crate) struct FixArgs {
    /// The bag to read.
    input: PathBuf,
    /// Where to write the 2.0 bag.
    output: PathBuf,
}

pub(crate) fn run(cmd: &BagCommand) -> Result<Outcome, Failure> {
    match cmd {
        BagCommand::Info(a) => info(a),
        BagCommand::Reindex(a) => match &a.output {
            Some(out) => rewrite(&a.file, out, None),
            None => {
                let mut backup = a.file.clone().into_os_string();
                backup.push(".orig.bag");
                rewrite(&a.file, &a.file, Some(PathBuf::from(backup)))
            }
        },
        BagCommand::Fix(a) => rewrite(&a.input, &a.output, None),
    }
}

fn open(path: &Path) -> Result<logcore::FileBytes, Failure> {
    logcore::FileBytes::open(path).map_err(|e| Failure::new(path, e))
}

fn rewrite(input: &Path, output: &Path, backup: Option<PathBuf>) -> Result<Outcome, Failure> {
    let bytes = open(input)?;
    let (out, report_) = rosbag12::reindex(&bytes, std::io::Cursor::new(Vec::new()))
        .map_err(|e| Failure::new(input, e))?;
    drop(bytes);
    if let Some(b) = &backup {
        std::fs::rename(input, b).map_err(|e| Failure::new(input, e))?;
    }
    std::fs::write(output, out.into_inner()).map_err(|e| Failure::new(output, e))?;
    println!(
        "{}: wrote {} messages on {} connections to {}",
        input.display(),
        report_.messages,
        report_.connections,
        output.display()
    );
    for p in &report_.problems {
        report(input, &p.clone().into());
    }
    Ok(Outcome::Clean)
}

/// "Mon DD YYYY HH:MM:SS.ss" in UTC (ROS prints local time; UTC keeps the
/// output the same on every machine).
fn ros_date(t: RosTime) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = i64::from(t.sec) / 86_400;
    let secs = i64::from(t.sec) % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let centis = t.nsec.min(999_999_999) / 10_000_000;
    format!(
        "{} {:02} {} {:02}:{:02}:{:02}.{:02}",
        MONTHS[(month - 1) as usize],
        day,
        year,
        secs / 3600,
        secs % 3600 / 60,
        secs % 60,
        centis
    )
}

fn human_duration(secs: f64) -> String {
    let total = secs.round() as u64;
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else if secs < 3600.0 {
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

fn human_size(bytes: u64) -> String {
    let mut v = bytes as f64 / 1024.0;
    for unit in ["KB", "MB", "GB", "TB"] {
        if v < 1024.0 || unit == "TB" {
            return format!("{v:.1} {unit}");
        }
        v /= 1024.0;
    }
    String::new()
}

fn secs(t: RosTime) -> f64 {
    f64::from(t.sec) + f64::from(t.nsec) / 1e9
}

/// Inverse of the median gap between consecutive messages.
fn frequency(times: &[RosTime]) -> Option<f64> {
    let mut gaps: Vec<f64> = times.windows(2).map(|w| secs(w[1]) - secs(w[0])).collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_by(f64::total_cmp);
    let median = gaps[gaps.len() / 2];
    (median > 0.0).then(|| 1.0 / median)
}

struct TopicRow {
    topic: String,
    type_name: String,
    count: u64,
    connections: usize,
    freq: Option<f64>,
}

fn info(args: &InfoArgs) -> Result<Outcome, Failure> {
    let mut outcome = Outcome::Clean;
    for (i, path) in args.files.iter().enumerate() {
        if i > 0 {
            let mut out = output::stdout();
            output::line(&mut out, "---")
                .and_then(|()| out.flush())
                .map_err(|e| Failure::new(path, e))?;
        }
        match info_one(path, args.yaml) {
            Ok(Outcome::Clean) => {}
            Ok(Outcome::Damaged | Outcome::PartlyRecovered) => outcome = Outcome::Damaged,
            // Report and go on with the next bag, as rosbag info does.
            Err(f) if args.files.len() > 1 => {
                report(&f.path, &f.error);
                outcome = Outcome::Damaged;
            }
            Err(f) => return Err(f),
        }
    }
    Ok(outcome)
}

fn info_one(path: &Path, yaml: bool) -> Result<Outcome, Failure> {
    let bytes = open(path)?;
    let bag = Bag::new(&bytes).map_err(|e| Failure::new(path, e))?;
    let counts = bag.message_counts();
    let times = bag.message_times().unwrap_or_default();
    let mut topics: BTreeMap<&str, TopicRow> = BTreeMap::new();
    let mut types: BTreeMap<&str, &str> = BTreeMap::new();
    for c in bag.connections() {
        types.insert(&c.type_name, &c.md5sum);
        let row = topics.entry(&c.topic).or_insert_with(|| TopicRow {
            topic: c.topic.clone(),
            type_name: c.type_name.clone(),
            count: 0,
            connections: 0,
            freq: None,
        });
        row.count += counts.get(&c.id).copied().unwrap_or(0);
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
        row.freq = frequency(&all);
    }
    let stats = bag.chunk_stats();
    let mut kinds: BTreeMap<Compression, (usize, u64, u64)> = BTreeMap::new();
    for s in &stats {
        let k = kinds.entry(s.compression).or_default();
        k.0 += 1;
        k.1 += s.uncompressed;
        k.2 += s.compressed;
    }
    let (uncompressed, compressed) = stats.iter().fold((0u64, 0u64), |(u, c), s| {
        (u + s.uncompressed, c + s.compressed)
    });
    let unindexed = bag.index_source() == IndexSource::Scanned;
    let version = if unindexed {
        format!("{} (unindexed)", bag.version())
    } else {
        bag.version().to_string()
    };
    let range = bag.time_range();
    let duration = range.map_or(0.0, |(a, b)| secs(b) - secs(a));
    let size = bytes.len() as u64;
    let mut out = output::stdout();
    let result = if yaml {
        print_yaml(
            &mut out,
            path,
            &version,
            duration,
            range,
            size,
            &bag,
            &kinds,
            uncompressed,
            compressed,
            &types,
            &topics,
            unindexed,
        )
    } else {
        print_text(
            &mut out,
            path,
            &version,
            duration,
            range,
            size,
            &bag,
            &kinds,
            uncompressed,
            compressed,
            &types,
            &topics,
        )
    };
    result
        .and_then(|()| out.flush())
        .map_err(|e| Failure::new(path, e))?;
    let mut damaged = false;
    for w in bag.warnings().iter().chain(bag.end_error()) {
        report(path, &w.clone().into());
        damaged = true;
    }
    Ok(if damaged {
        Outcome::Damaged
    } else {
        Outcome::Clean
    })
}

fn freq_text(f: Option<f64>) -> String {
    match f {
        Some(f) if f >= 1000.0 => format!(" @ {:.1} kHz", f / 1000.0),
        Some(f) => format!(" @ {f:.4} Hz"),
        None => String::new(),
    }
}

#[allow(clippy::too_many_arguments)]
fn print_text(
    out: &mut Out,
    path: &Path,
    version: &str,
    duration: f64,
    range: Option<(RosTime, RosTime)>,
    size: u64,
    bag: &Bag<'_>,
    kinds: &BTreeMap<Compression, (usize, u64, u64)>,
    uncompressed: u64,
    compressed: u64,
    types: &BTreeMap<&str, &str>,
    topics: &BTreeMap<&str, TopicRow>,
) -> std::io::Result<()> {
    let key = |k: &str| {
        if k.is_empty() {
            " ".repeat(14)
        } else {
            format!("{:<13} ", format!("{k}:"))
        }
    };
    let mut lines = vec![
        format!("{}{}", key("path"), path.display()),
        format!("{}{version}", key("version")),
        format!("{}{}", key("duration"), human_duration(duration)),
    ];
    if let Some((a, b)) = range {
        lines.push(format!("{}{} ({:.2})", key("start"), ros_date(a), secs(a)));
        lines.push(format!("{}{} ({:.2})", key("end"), ros_date(b), secs(b)));
    }
    lines.push(format!("{}{}", key("size"), human_size(size)));
    lines.push(format!("{}{}", key("messages"), bag.message_count()));
    let total_chunks: usize = kinds.values().map(|k| k.0).sum();
    let compression: Vec<String> = kinds
        .iter()
        .map(|(c, (n, u, z))| {
            if *c == Compression::None {
                format!("none [{n}/{total_chunks} chunks]")
            } else {
                let pct = if *u > 0 {
                    *z as f64 * 100.0 / *u as f64
                } else {
                    0.0
                };
                format!("{} [{n}/{total_chunks} chunks; {pct:.2}%]", c.name())
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
    if kinds.keys().any(|c| *c != Compression::None) {
        let rate = |b: u64| {
            if duration > 0.0 {
                format!(" @ {}/s", human_size((b as f64 / duration) as u64))
            } else {
                String::new()
            }
        };
        lines.push(format!(
            "{}{}{}",
            key("uncompressed"),
            human_size(uncompressed),
            rate(uncompressed)
        ));
        let pct = if uncompressed > 0 {
            compressed as f64 * 100.0 / uncompressed as f64
        } else {
            0.0
        };
        lines.push(format!(
            "{}{}{} ({pct:.2}%)",
            key("compressed"),
            human_size(compressed),
            rate(compressed)
        ));
    }
    let type_width = types.keys().map(|t| t.len()).max().unwrap_or(0);
    for (i, (t, md5)) in types.iter().enumerate() {
        let k = if i == 0 { key("types") } else { key("") };
        lines.push(format!("{k}{t:<type_width$} [{md5}]"));
    }
    let topic_width = topics.keys().map(|t| t.len()).max().unwrap_or(0);
    let count_width = topics
        .values()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(0);
    for (i, row) in topics.values().enumerate() {
        let k = if i == 0 { key("topics") } else { key("") };
        let msgs = if row.count == 1 { "msg " } else { "msgs" };
        let conns = if row.connections > 1 {
            format!(" ({} connections)", row.connections)
        } else {
            String::new()
        };
        lines.push(format!(
            "{k}{:<topic_width$}  {:>count_width$} {msgs}{} : {}{conns}",
            row.topic,
            row.count,
            freq_text(row.freq),
            row.type_name
        ));
    }
    for l in lines {
        output::line(out, l.trim_end())?;
    }
    Ok(())
}

/// YAML string scalar, quoted where plain style would be ambiguous.
fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[allow(clippy::too_many_arguments)]
fn print_yaml(
    out: &mut Out,
    path: &Path,
    version: &str,
    duration: f64,
    range: Option<(RosTime, RosTime)>,
    size: u64,
    bag: &Bag<'_>,
    kinds: &BTreeMap<Compression, (usize, u64, u64)>,
    uncompressed: u64,
    compressed: u64,
    types: &BTreeMap<&str, &str>,
    topics: &BTreeMap<&str, TopicRow>,
    unindexed: bool,
) -> std::io::Result<()> {
    let mut lines = vec![
        format!("path: {}", yaml_str(&path.display().to_string())),
        format!("version: {}", bag.version()),
        format!("duration: {duration:.6}"),
    ];
    let _ = version;
    if let Some((a, b)) = range {
        lines.push(format!("start: {:.6}", secs(a)));
        lines.push(format!("end: {:.6}", secs(b)));
    }
    lines.push(format!("size: {size}"));
    lines.push(format!("messages: {}", bag.message_count()));
    lines.push(format!(
        "indexed: {}",
        if unindexed { "False" } else { "True" }
    ));
    let dominant = kinds
        .iter()
        .max_by_key(|(_, (n, _, _))| *n)
        .map_or("none", |(c, _)| c.name());
    lines.push(format!("compression: {dominant}"));
    if kinds.keys().any(|c| *c != Compression::None) {
        lines.push(format!("uncompressed: {uncompressed}"));
        lines.push(format!("compressed: {compressed}"));
    }
    lines.push("types:".into());
    for (t, md5) in types {
        lines.push(format!("    - type: {}", yaml_str(t)));
        lines.push(format!("      md5: {}", yaml_str(md5)));
    }
    lines.push("topics:".into());
    for row in topics.values() {
        lines.push(format!("  - topic: {}", yaml_str(&row.topic)));
        lines.push(format!("    type: {}", yaml_str(&row.type_name)));
        lines.push(format!("    messages: {}", row.count));
        if row.connections > 1 {
            lines.push(format!("    connections: {}", row.connections));
        }
        if let Some(f) = row.freq {
            lines.push(format!("    frequency: {f:.4}"));
        }
    }
    for l in lines {
        output::line(out, &l)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_durations() {
        assert_eq!(
            ros_date(RosTime {
                sec: 1275608995,
                nsec: 600_055_000
            }),
            "Jun 03 2010 23:49:55.60"
        );
        assert_eq!(
            ros_date(RosTime { sec: 0, nsec: 0 }),
            "Jan 01 1970 00:00:00.00"
        );
        assert_eq!(human_duration(12.34), "12.3s");
        assert_eq!(human_duration(152.0), "2:32s (152s)");
        assert_eq!(human_duration(3723.0), "1hr 2:03s (3723s)");
        assert_eq!(human_size(868400), "848.0 KB");
        assert_eq!(
            frequency(&[
                RosTime { sec: 0, nsec: 0 },
                RosTime {
                    sec: 0,
                    nsec: 100_000_000
                }
            ]),
            Some(10.0)
        );
    }
}
