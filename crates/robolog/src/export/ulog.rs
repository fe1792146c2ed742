//! ULog tables as pyulog 1.3.0's `ulog2csv -o DIR` writes them: the same
//! file names, the same bytes (through `ulogfile::pyulog::csv`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use logcore::LogReader;
use ulogfile::pyulog;
use ulogfile::{Subscription, ULog};

use crate::Log;
use crate::write::{OutputPolicy, write_atomically};

use super::{
    ExportError, ExportOptions, ExportStats, ExportedTable, Progress, check_topics, prepare_folder,
};

/// The topic of a subscription, as the ULog reader names its channel.
fn topic(sub: &Subscription<'_>) -> String {
    if sub.multi_id == 0 {
        sub.name.clone()
    } else {
        format!("{}[{}]", sub.name, sub.multi_id)
    }
}

/// `ulog2csv`'s name prefix: the input's file name without `.ulg` (in
/// any case), in `dir`.
fn prefix(input: &Path, dir: &Path) -> String {
    let mut base = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cut = base.len().saturating_sub(4);
    if base.len() >= 4 && base.is_char_boundary(cut) && base[cut..].eq_ignore_ascii_case(".ulg") {
        base.truncate(cut);
    }
    dir.join(base).to_string_lossy().into_owned()
}

pub(super) fn export(
    log: &Log<'_>,
    ulog: &ULog<'_>,
    input: &Path,
    dir: &Path,
    opts: &ExportOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<ExportStats, ExportError> {
    let channels = log.channels()?;
    check_topics(&channels, &opts.topics)?;
    let prefix = prefix(input, dir);
    let sets: Vec<(&Subscription<'_>, String, PathBuf)> = pyulog::datasets(ulog)
        .into_iter()
        .map(|s| (s, topic(s)))
        .filter(|(_, t)| opts.topics.is_empty() || opts.topics.contains(t))
        .map(|(s, t)| (s, t, PathBuf::from(pyulog::csv_file_name(&prefix, s))))
        .collect();
    // Two subscriptions of one name and instance share a file name;
    // `ulog2csv` writes both, so the later is what stays.
    let sets: Vec<_> = sets
        .iter()
        .enumerate()
        .filter(|(i, (_, _, p))| !sets[i + 1..].iter().any(|(_, _, q)| q == p))
        .map(|(_, s)| s)
        .collect();
    let policy = OutputPolicy::new(opts.force).reading(input);
    for (_, _, path) in &sets {
        policy.check(path).map_err(ExportError::Refused)?;
    }
    prepare_folder(dir)?;

    let size = log.bytes().len() as u64;
    let total_rows: u64 = sets.iter().map(|(s, _, _)| s.samples.len() as u64).sum();
    let mut stats = ExportStats::default();
    let mut rows_before = 0u64;
    for (sub, topic, path) in sets {
        let mut report = |lines: u64| {
            let rows = rows_before + lines.saturating_sub(1);
            progress(Progress {
                bytes: size * rows / total_rows.max(1),
                total_bytes: size,
                rows,
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
        stats.tables.push(ExportedTable {
            topic: topic.clone(),
            type_name: sub.name.clone(),
            path: path.clone(),
            rows,
            columns,
        });
    }
    progress(Progress {
        bytes: size,
        total_bytes: size,
        rows: rows_before,
    });
    stats.problems = ulog
        .warnings
        .iter()
        .chain(&ulog.truncation)
        .cloned()
        .map(Into::into)
        .collect();
    Ok(stats)
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
