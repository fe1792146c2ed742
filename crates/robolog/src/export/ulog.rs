//! ULog tables as pyulog 1.3.0's `ulog2csv -o DIR` writes them: the same
//! file names, the same bytes (through `ulogfile::pyulog::csv`).
//!
//! One difference: where `ulog2csv` gives two subscriptions one file
//! (`a/b` and `a_b`, or one name and instance subscribed twice) and loses
//! the rows of one, or makes a name too long for a file system, every
//! subscription gets its own file (see `ulogfile::pyulog::csv_file_names`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use logcore::{Error, LogReader};
use ulogfile::Subscription;
use ulogfile::pyulog;

use crate::Log;
use crate::write::{OutputPolicy, write_atomically};

use super::plan::prepare_folder;
use super::{ExportError, ExportOptions, ExportedLog, ExportedTable, Progress, Selection};

/// The topic of a subscription, as the ULog reader names its channel.
fn topic(sub: &Subscription<'_>) -> String {
    if sub.multi_id == 0 {
        sub.name.clone()
    } else {
        format!("{}[{}]", sub.name, sub.multi_id)
    }
}

/// `ulog2csv`'s name prefix: the input's file name without `.ulg` (in
/// any case).
fn prefix(input: &Path) -> String {
    let mut base = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cut = base.len().saturating_sub(4);
    if base.len() >= 4 && base.is_char_boundary(cut) && base[cut..].eq_ignore_ascii_case(".ulg") {
        base.truncate(cut);
    }
    base
}

/// Exports the ULog `log`, read from `input`, as CSV files in `dir` byte
/// for byte as pyulog 1.3.0's `ulog2csv -o DIR` writes them (see the
/// [module](super) docs for the file names), calling `progress` as the
/// work goes on. A `--topic` ([`ExportOptions::topics`]) is a message name
/// with its instance after it when not 0 (`esc_status[1]`), as
/// `robolog info` lists it. A log of another format is
/// [`ExportError::Read`].
pub fn ulog2csv(
    log: &Log<'_>,
    input: &Path,
    dir: &Path,
    opts: &ExportOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<ExportedLog, ExportError> {
    let Some(ulog) = log.as_ulog() else {
        let e = Error::invalid_argument(format!(
            "ulog2csv: a {} log is no ULog file",
            log.format().name()
        ));
        return Err(ExportError::read(input)(e));
    };
    let channels = log.channels().map_err(ExportError::read(input))?;
    let mut selection = Selection::new(&opts.topics);
    for c in &channels {
        selection.selects(&c.topic, &c.topic);
    }
    selection.check(channels.iter().map(|c| c.topic.as_str()))?;
    let datasets = pyulog::datasets(ulog);
    let names = pyulog::csv_file_names(&prefix(input), &datasets);
    let sets: Vec<(&Subscription<'_>, String, PathBuf)> = datasets
        .into_iter()
        .zip(names)
        .map(|(s, name)| (s, topic(s), dir.join(name)))
        .filter(|(_, t, _)| selection.contains(t, t))
        .collect();
    let policy = OutputPolicy::new(opts.force).reading(input);
    for (_, _, path) in &sets {
        policy.check(path).map_err(ExportError::Refused)?;
    }
    prepare_folder(dir)?;

    let size = log.size();
    let total_rows: u64 = sets.iter().map(|(s, _, _)| s.samples.len() as u64).sum();
    let log_id = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = ExportedLog::new(input, &log_id, log.format());
    let mut rows_before = 0u64;
    for (sub, topic, path) in &sets {
        let mut report = |lines: u64| {
            let rows = rows_before + lines.saturating_sub(1);
            progress(Progress {
                bytes: size * rows / total_rows.max(1),
                total_bytes: size,
                rows,
                log: 0,
                logs: 1,
            });
        };
        let columns = write_atomically(path, &policy, |f| {
            let mut w = Counting {
                inner: f,
                lines: 0,
                header_commas: 0,
                report: &mut report,
            };
            pyulog::csv(sub, ",", None, None, &mut w)?;
            Ok(w.header_commas + 1)
        })
        .map_err(ExportError::write(path))?;
        let rows = sub.samples.len() as u64;
        rows_before += rows;
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let mut table = ExportedTable::new(&stem, topic, &sub.name, path);
        table.rows = rows;
        table.columns = columns;
        out.tables.push(table);
    }
    progress(Progress {
        bytes: size,
        total_bytes: size,
        rows: rows_before,
        log: 0,
        logs: 1,
    });
    out.problems = ulog
        .warnings
        .iter()
        .chain(&ulog.truncation)
        .cloned()
        .map(Into::into)
        .collect();
    Ok(out)
}

/// A writer that counts the lines going through it (and the commas of the
/// first, the header) and reports the count after each write.
struct Counting<'a, W> {
    inner: W,
    lines: u64,
    header_commas: usize,
    report: &'a mut dyn FnMut(u64),
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let done = &buf[..n];
        if self.lines == 0 {
            let header = done.split(|&b| b == b'\n').next().unwrap_or_default();
            self.header_commas += header.iter().filter(|&&b| b == b',').count();
        }
        self.lines += done.iter().filter(|&&b| b == b'\n').count() as u64;
        (self.report)(self.lines);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ExportOptions, ulog2csv};

    /// A ULog of `subs` (format name, multi id, timestamps of its samples),
    /// subscribed in that order; every format has one `uint64_t` field
    /// `timestamp` and one `int32_t` field `v`, the sample's index.
    fn ulog(subs: &[(&str, u8, &[u64])]) -> Vec<u8> {
        let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
        let mut formats: Vec<&str> = Vec::new();
        for (name, _, _) in subs {
            if !formats.contains(name) {
                w.add_format(&format!("{name}:uint64_t timestamp;int32_t v;"))
                    .unwrap();
                formats.push(name);
            }
        }
        let ids: Vec<u16> = subs
            .iter()
            .map(|(name, multi, _)| w.add_subscription(name, *multi).unwrap())
            .collect();
        for (id, (_, _, times)) in ids.iter().zip(subs) {
            for (i, t) in times.iter().enumerate() {
                let mut s = t.to_le_bytes().to_vec();
                s.extend_from_slice(&(i as i32).to_le_bytes());
                w.write_data(*id, &s).unwrap();
            }
        }
        w.finish().unwrap()
    }

    #[test]
    fn messages_whose_file_names_collide_get_files_of_their_own() {
        // `a/b` and `a_b` are both `ulog2csv`'s `clash_a_b_0.csv`; the
        // suffix `_2` the second would get is the `ulog2csv` name of
        // `a_b_0` instance 2, so it gets `_3`; `a_b` subscribed twice
        // (instance 1) gets `_2` for its second.
        let bytes = ulog(&[
            ("a/b", 0, &[2_000, 3_000]),
            ("a_b", 0, &[2_500, 3_500, 4_500]),
            ("a_b_0", 2, &[2_600]),
            ("a_b", 1, &[2_700, 3_700, 4_700, 5_700]),
            ("a_b", 1, &[2_800]),
        ]);
        let dir =
            std::env::temp_dir().join(format!("robolog-export-ulog-clash-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let log = crate::open_bytes(&bytes).unwrap();
        let input = dir.join("clash.ulg");
        let stats = ulog2csv(&log, &input, &dir, &ExportOptions::default(), &mut |_| {}).unwrap();
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                "clash_a_b_0.csv",
                "clash_a_b_0_2.csv",
                "clash_a_b_0_3.csv",
                "clash_a_b_1.csv",
                "clash_a_b_1_2.csv",
            ]
        );
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        assert_eq!(read("clash_a_b_0.csv"), "timestamp,v\n2000,0\n3000,1\n");
        assert_eq!(read("clash_a_b_0_2.csv"), "timestamp,v\n2600,0\n");
        assert_eq!(
            read("clash_a_b_0_3.csv"),
            "timestamp,v\n2500,0\n3500,1\n4500,2\n"
        );
        assert_eq!(
            read("clash_a_b_1.csv"),
            "timestamp,v\n2700,0\n3700,1\n4700,2\n5700,3\n"
        );
        assert_eq!(read("clash_a_b_1_2.csv"), "timestamp,v\n2800,0\n");
        let mut rows: Vec<(String, u64)> = stats
            .tables
            .iter()
            .map(|t| (t.path.file_name().unwrap().to_string_lossy().into(), t.rows))
            .collect();
        rows.sort();
        assert_eq!(
            rows,
            [
                ("clash_a_b_0.csv".to_string(), 2),
                ("clash_a_b_0_2.csv".to_string(), 1),
                ("clash_a_b_0_3.csv".to_string(), 3),
                ("clash_a_b_1.csv".to_string(), 4),
                ("clash_a_b_1_2.csv".to_string(), 1),
            ]
        );

        // Names do not depend on the topics selected.
        let one = dir.join("one");
        let opts = ExportOptions {
            topics: vec!["a_b".into()],
            ..ExportOptions::default()
        };
        ulog2csv(&log, &input, &one, &opts, &mut |_| {}).unwrap();
        let files: Vec<String> = std::fs::read_dir(&one)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(files, ["clash_a_b_0_3.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
