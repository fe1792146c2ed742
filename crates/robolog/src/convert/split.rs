//! Split outputs of a filter ([`Filter::split_every`](super::Filter::split_every),
//! [`Filter::split_size`](super::Filter::split_size)): `OUT_000.mcap`,
//! `OUT_001.mcap`, ... (`OUT_000.bag`, ...; ROS 2 bag folders `OUT_000/`,
//! ...), each a complete log of its own.
//!
//! **How the parts are made.** Each part is one run of the filter's
//! merged writers ([`filter_files_to`](super::filter_files_to) without a
//! split) into its own file, through its own temporary file renamed into
//! place when complete, starting at the part's start time: the run reads
//! the inputs from there (an indexed seek in MCAP files and bags) and
//! stops at the first message that belongs to the next part, whose time
//! is where the next run starts. So a part is a cut of the filtered
//! output at a time, with every rule of a cut: a latched (ROS 1
//! `latching=1`) or transient-local (ROS 2) topic's last message before
//! the part's start is written at the part's start, at its own time (the
//! rule [`Filter::keep_latched`](super::Filter::keep_latched) applies at
//! the start of a filter), and an MCAP input's metadata and attachments
//! are in every part. Messages of one log time are never split across
//! two parts.
//!
//! - `--split-every D`: the parts are the intervals `[t0 + k D, t0 +
//!   (k + 1) D)` of the input log times, `t0` the start given or else the
//!   first message written; an interval without a message makes no part
//!   (the parts are numbered without gaps).
//! - `--split-size N`: a part ends at the first message after it reached
//!   `N` bytes (of an MCAP file or bag as written so far: the writers
//!   write a chunk at a time, so a part exceeds `N` by at most about a
//!   chunk, the summary and the messages of its last log time; of the
//!   messages' bytes for a ROS 2 bag folder, whose storage the filter does
//!   not see). A part holds at least one message.
//!
//! With `--restamp`, the parts are cut by the input's log times (what was
//! received in each interval), each part sorted by its new times.
//!
//! **Safety.** Before anything is written, every name of the family
//! (`OUT_` followed by three or more digits and the extension, compared
//! without case) that exists in the output's folder is checked: an input
//! is refused always, any other unless `force` (a folder with `force`
//! only when it is a ROS 2 bag folder holding nothing but its bag). Each
//! part is written to a temporary file (or folder) and renamed into place
//! when complete, so an interrupted filter leaves the parts completed
//! before it and nothing of the one it was writing. With `force`, the
//! parts of an earlier output beyond the last part written are removed
//! once every part is written, so that the family is this output alone.

use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use logcore::Timestamp;

use super::merge::{Input, write_files};
use super::select::Filter;
use super::{ConvertFileError, ConvertOptions, ConvertStats, Progress, Target};
use crate::write::{OutputPolicy, Refusal};

/// Parses a size: bytes, or a number with a unit (`kB`, `MB`, `GB`, `TB`
/// of 1000; `KiB`, `MiB`, `GiB`, `TiB` of 1024; `K`, `M`, `G`, `T` taken
/// as the decimal ones), case ignored; `None` for anything else or less
/// than a byte.
///
/// ```
/// use robolog::convert::parse_size;
/// assert_eq!(parse_size("1GB"), Some(1_000_000_000));
/// assert_eq!(parse_size("64MiB"), Some(64 << 20));
/// assert_eq!(parse_size("4096"), Some(4096));
/// assert_eq!(parse_size("1 parsec"), None);
/// ```
pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number.parse().ok()?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let bytes = (number * factor).round();
    (1.0..1.8e19).contains(&bytes).then_some(bytes as u64)
}

/// How a filter's output is split; both `None`: not split.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Split {
    /// A part per interval of this many nanoseconds.
    pub(crate) every: Option<i64>,
    /// A part ends once it holds this many bytes.
    pub(crate) size: Option<u64>,
}

impl Split {
    /// Whether the output is split.
    pub(crate) fn splits(&self) -> bool {
        self.every.is_some() || self.size.is_some()
    }
}

/// What the run of one part and the driver share: the grid's origin
/// (kept from part to part), where the next part starts (set by the
/// run), and the bytes of the part's file so far.
#[derive(Debug, Default)]
pub(crate) struct PartRun {
    state: Mutex<RunState>,
    /// Bytes written into the part's file (MCAP and bag outputs).
    file_bytes: AtomicU64,
    /// Whether `file_bytes` counts the file (else the run counts the
    /// messages' bytes).
    counts_file: AtomicBool,
}

#[derive(Debug, Default)]
struct RunState {
    origin: Option<Timestamp>,
    next: Option<Timestamp>,
}

impl PartRun {
    /// A run whose grid starts at `origin` (`None`: at its first message).
    fn new(origin: Option<Timestamp>) -> Self {
        PartRun {
            state: Mutex::new(RunState { origin, next: None }),
            ..PartRun::default()
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RunState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The part boundary decisions of one run, held by the run's selection.
#[derive(Debug)]
pub(crate) struct PartLimit {
    run: Arc<PartRun>,
    split: Split,
    /// The run's start: earlier messages are the latched ones carried in.
    start: Option<Timestamp>,
    /// The end of the run's interval (`every`), once its first message
    /// came.
    end: Option<Timestamp>,
    /// The input log time of the last message written.
    last: Option<Timestamp>,
    /// The payload bytes written.
    payload: u64,
    /// The file's bytes when last seen to change, and the payload bytes
    /// written by then: the messages since are in the writer's open
    /// chunk, counted by their payloads.
    flushed: (u64, u64),
}

impl PartLimit {
    /// The limit of a run of `split` sharing `run`, starting at `start`.
    pub(crate) fn new(run: Arc<PartRun>, split: Split, start: Option<Timestamp>) -> Self {
        PartLimit {
            run,
            split,
            start,
            end: None,
            last: None,
            payload: 0,
            flushed: (0, 0),
        }
    }

    /// Whether a kept message at input log time `t` belongs to the next
    /// part (then recorded as where it starts); `pending` bytes are held
    /// but not written yet (a restamp's sorting).
    pub(crate) fn ends_before(&mut self, t: Timestamp, pending: u64) -> bool {
        if self.start.is_some_and(|s| t < s) {
            // A latched message carried into the part.
            return false;
        }
        let mut state = self.run.state();
        let origin = *state.origin.get_or_insert(t);
        let mut ends = false;
        if let Some(every) = self.split.every.filter(|&e| e > 0) {
            let end = *self.end.get_or_insert_with(|| {
                let k = (t.0.saturating_sub(origin.0)).div_euclid(every);
                Timestamp(
                    origin
                        .0
                        .saturating_add(k.saturating_add(1).saturating_mul(every)),
                )
            });
            ends |= t >= end;
        }
        if let Some(size) = self.split.size {
            let written = if self.run.counts_file.load(Ordering::Relaxed) {
                let file = self.run.file_bytes.load(Ordering::Relaxed);
                if file != self.flushed.0 {
                    self.flushed = (file, self.payload);
                }
                file + (self.payload - self.flushed.1)
            } else {
                self.payload
            };
            ends |= written.saturating_add(pending) >= size && self.last.is_some_and(|l| t > l);
        }
        if ends {
            state.next = Some(t);
        }
        ends
    }

    /// Records a message written (or held) at input log time `t`.
    pub(crate) fn wrote(&mut self, t: Timestamp, bytes: usize) {
        if self.start.is_none_or(|s| t >= s) {
            self.last = Some(t);
        }
        self.payload += bytes as u64;
    }
}

/// An output sink that counts the bytes written into a part's
/// [`PartRun`] (a writer's seeks back to patch a header are not counted).
pub(crate) struct Counted<W> {
    inner: W,
    run: Option<Arc<PartRun>>,
}

impl<W> Counted<W> {
    /// `inner`, counted into `run` when given.
    pub(crate) fn new(inner: W, run: Option<Arc<PartRun>>) -> Self {
        if let Some(r) = &run {
            r.counts_file.store(true, Ordering::Relaxed);
        }
        Counted { inner, run }
    }

    fn count(&self, n: usize) {
        if let Some(r) = &self.run {
            r.file_bytes.fetch_add(n as u64, Ordering::Relaxed);
        }
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count(n);
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf)?;
        self.count(buf.len());
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Seek> Seek for Counted<W> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// The names of the parts of an output: `STEM_NNN.EXT` for a file,
/// `NAME_NNN` for a ROS 2 bag folder.
#[derive(Debug, Clone)]
pub(crate) struct Family {
    dir: PathBuf,
    stem: String,
    /// `.ext` of a file output; empty for a folder.
    ext: String,
}

impl Family {
    /// The family of `output` written as `target`.
    pub(crate) fn of(output: &Path, target: Target) -> Family {
        let dir = output.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (stem, ext) = match (target, name.rsplit_once('.')) {
            (Target::Rosbag2 { .. }, _) | (_, None) => (name, String::new()),
            (_, Some((s, e))) => (s.to_string(), format!(".{e}")),
        };
        Family { dir, stem, ext }
    }

    /// The path of part `k` (from 0).
    pub(crate) fn part(&self, k: usize) -> PathBuf {
        self.dir.join(format!("{}_{k:03}{}", self.stem, self.ext))
    }

    /// The part number `name` has in the family (compared without case),
    /// if it is one of its names.
    fn number(&self, name: &str) -> Option<usize> {
        let lower = name.to_lowercase();
        let rest = lower.strip_prefix(&format!("{}_", self.stem.to_lowercase()))?;
        let digits = rest.strip_suffix(&self.ext.to_lowercase())?;
        if digits.len() < 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }

    /// The entries of the output's folder that are names of the family,
    /// with their part numbers.
    pub(crate) fn existing(&self) -> io::Result<Vec<(usize, PathBuf)>> {
        let dir = if self.dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.dir
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut found = Vec::new();
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(k) = self.number(&name) {
                found.push((k, self.dir.join(name)));
            }
        }
        found.sort();
        Ok(found)
    }
}

/// Refuses, before anything is written, a family whose existing names
/// include an input (always) or anything at all (unless `force`; a folder
/// with `force` must be a ROS 2 bag folder holding only its bag).
fn check_family(
    existing: &[(usize, PathBuf)],
    inputs: &[Input<'_, '_>],
    target: Target,
    force: bool,
) -> Result<(), ConvertFileError> {
    let mut policy = OutputPolicy::new(force);
    policy.add_inputs(inputs.iter().map(|&(_, p)| p));
    for (_, path) in existing {
        policy.check(path).map_err(ConvertFileError::Refused)?;
        if let Target::Rosbag2 { storage, zstd } = target {
            for &(_, input) in inputs {
                super::to_rosbag2::Folder {
                    input,
                    output: path,
                    storage,
                    zstd,
                    force,
                    filter: None,
                }
                .check()?;
            }
        } else if path.is_dir() {
            return Err(ConvertFileError::Refused(Refusal::NotABag {
                output: path.clone(),
                reason: format!(
                    "{} is a folder, where a part of the output would be written",
                    path.display()
                ),
            }));
        }
    }
    Ok(())
}

/// Writes the parts of a split filter (see the module docs); the stats
/// add up the parts' (each part listed in [`ConvertStats::parts`]).
pub(crate) fn write_parts(
    inputs: &[Input<'_, '_>],
    output: &Path,
    target: Target,
    opts: &ConvertOptions,
    filter: &Filter,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    let family = Family::of(output, target);
    let existing = family.existing().map_err(ConvertFileError::Io)?;
    check_family(&existing, inputs, target, force)?;
    let mut total = ConvertStats::default();
    let mut origin = opts.start;
    let mut start = opts.start;
    // Progress goes forward across the parts: each run reads from its
    // start, and reports its end as the inputs' end.
    let mut seen = Progress::default();
    let mut done = 0u64;
    for k in 0.. {
        let path = family.part(k);
        let run = Arc::new(PartRun::new(origin));
        let mut f = filter.clone();
        f.part = Some(Arc::clone(&run));
        let o = ConvertOptions {
            start,
            // A part overshoots its size by at most a chunk.
            chunk_size: opts
                .chunk_size
                .min(filter.split.size.unwrap_or(u64::MAX))
                .max(1),
            ..opts.clone()
        };
        let mut report = |p: Progress| {
            if p.bytes < p.total_bytes {
                seen.bytes = seen.bytes.max(p.bytes);
            }
            seen.total_bytes = p.total_bytes;
            seen.messages = done + p.messages;
            progress(seen);
        };
        let stats = write_files(inputs, &path, target, &o, Some(&f), force, &mut report)?;
        done += stats.messages;
        total.add_part(path, stats);
        let state = run.state();
        origin = state.origin;
        match state.next {
            Some(t) => start = Some(t),
            None => break,
        }
    }
    progress(Progress {
        bytes: seen.total_bytes,
        ..seen
    });
    if force {
        remove_stale(&existing, total.parts.len(), target);
    }
    Ok(total)
}

/// Removes the parts of an earlier output numbered `from` and beyond
/// (checked by [`check_family`] before the run: files, or ROS 2 bag
/// folders holding only their bag).
pub(crate) fn remove_stale(existing: &[(usize, PathBuf)], from: usize, target: Target) {
    for (k, path) in existing {
        if *k < from {
            continue;
        }
        let _ = match target {
            Target::Rosbag2 { .. } if path.is_dir() => std::fs::remove_dir_all(path),
            _ => std::fs::remove_file(path),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names() {
        let f = Family::of(Path::new("/x/run.MCAP"), Target::Mcap);
        assert_eq!(f.part(0), Path::new("/x/run_000.MCAP"));
        assert_eq!(f.part(1234), Path::new("/x/run_1234.MCAP"));
        assert_eq!(f.number("RUN_007.mcap"), Some(7));
        assert_eq!(f.number("run_07.mcap"), None);
        assert_eq!(f.number("run_007.bag"), None);
        assert_eq!(f.number("run_00a.mcap"), None);
        let d = Family::of(
            Path::new("out/bag.v2"),
            Target::Rosbag2 {
                storage: super::super::Storage::Sqlite3,
                zstd: false,
            },
        );
        assert_eq!(d.part(2), Path::new("out/bag.v2_002"));
    }

    #[test]
    fn every_cuts_on_the_grid_and_size_after_a_time() {
        let t = Timestamp;
        let run = Arc::new(PartRun::new(Some(t(100))));
        let split = Split {
            every: Some(10),
            size: None,
        };
        let mut l = PartLimit::new(Arc::clone(&run), split, Some(t(125)));
        assert!(!l.ends_before(t(90), 0)); // carried in
        assert!(!l.ends_before(t(125), 0));
        l.wrote(t(125), 1);
        assert!(!l.ends_before(t(129), 0));
        assert!(l.ends_before(t(130), 0));
        assert_eq!(run.state().next, Some(t(130)));

        let run = Arc::new(PartRun::new(None));
        let split = Split {
            every: None,
            size: Some(3),
        };
        let mut l = PartLimit::new(Arc::clone(&run), split, None);
        assert!(!l.ends_before(t(5), 0));
        l.wrote(t(5), 5);
        // Full, but the same time stays in the part.
        assert!(!l.ends_before(t(5), 0));
        l.wrote(t(5), 5);
        assert!(l.ends_before(t(6), 0));
        assert_eq!(run.state().origin, Some(t(5)));
    }
}
