//! `--restamp header`: every message whose type starts with a
//! `std_msgs/Header` is written at its `header.stamp` (read from its
//! bytes: see the `rewrite` module); the others keep their log time.
//!
//! **Order.** The output is sorted by the new log times (ties in the
//! order the messages were read): a ROS 1 bag's index must be in time
//! order per connection, rosbag2 and MCAP readers expect it too, and a
//! stamp may be far from the time the message was logged (a replayed
//! driver, a clock not synchronised). The messages are sorted with
//! bounded memory: held in memory up to [`MEMORY`] bytes, and beyond that
//! written as sorted runs into temporary files (in the output's folder,
//! hidden, removed when the filter ends or is interrupted, as the
//! output's own temporary file is), which are merged when the inputs end
//! (64 runs at most: past that many they are merged into one, so a log of
//! any size keeps as many files open).
//! A filter that restamps therefore writes its messages only once it has
//! read them all (per part, for a split output).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use logcore::{ChannelId, Error, Message, Payload, Timestamp};

use crate::write::{AtomicFile, OutputPolicy};

/// Bytes of held messages kept in memory before a run is written out.
pub(crate) const MEMORY: usize = 64 << 20;

/// Runs open at most: past this many, they are merged into one (so a
/// log of any size keeps this many files open and reads them through
/// buffers of 64 KiB).
const MAX_RUNS: usize = 64;

/// One held message, with where it came from.
#[derive(Debug)]
struct Held {
    time: i64,
    /// The order it came in: ties keep it.
    seq: u64,
    input: u32,
    channel: u32,
    publish: Option<i64>,
    sequence: Option<u64>,
    offset: Option<u64>,
    payload: Bytes,
}

impl Held {
    fn key(&self) -> (i64, u64) {
        (self.time, self.seq)
    }

    /// Its size in memory, roughly.
    fn size(&self) -> usize {
        self.payload.len() + 64
    }

    fn into_message(self) -> (usize, Message<'static>) {
        (
            self.input as usize,
            Message {
                channel: ChannelId(self.channel),
                log_time: Timestamp(self.time),
                publish_time: self.publish.map(Timestamp),
                sequence: self.sequence,
                offset: self.offset,
                payload: Payload::Shared(self.payload),
            },
        )
    }

    fn write_to(&self, w: &mut impl Write) -> std::io::Result<()> {
        let flags = u8::from(self.publish.is_some())
            | (u8::from(self.sequence.is_some()) << 1)
            | (u8::from(self.offset.is_some()) << 2);
        w.write_all(&self.time.to_le_bytes())?;
        w.write_all(&self.seq.to_le_bytes())?;
        w.write_all(&self.input.to_le_bytes())?;
        w.write_all(&self.channel.to_le_bytes())?;
        w.write_all(&[flags])?;
        w.write_all(&self.publish.unwrap_or(0).to_le_bytes())?;
        w.write_all(&self.sequence.unwrap_or(0).to_le_bytes())?;
        w.write_all(&self.offset.unwrap_or(0).to_le_bytes())?;
        w.write_all(&(self.payload.len() as u64).to_le_bytes())?;
        w.write_all(&self.payload)
    }

    /// The next record of a run, `None` at its end.
    fn read_from(r: &mut impl Read) -> std::io::Result<Option<Held>> {
        let mut head = [0u8; 8 + 8 + 4 + 4 + 1 + 8 + 8 + 8 + 8];
        match r.read_exact(&mut head[..1]) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        r.read_exact(&mut head[1..])?;
        let u64_at = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().unwrap_or([0; 8]));
        let u32_at = |at: usize| u32::from_le_bytes(head[at..at + 4].try_into().unwrap_or([0; 4]));
        let flags = head[24];
        let len = usize::try_from(u64_at(49))
            .map_err(|_| std::io::Error::other("a sort run's record is too long"))?;
        let mut payload = vec![0u8; len];
        r.read_exact(&mut payload)?;
        Ok(Some(Held {
            time: u64_at(0) as i64,
            seq: u64_at(8),
            input: u32_at(16),
            channel: u32_at(20),
            publish: (flags & 1 != 0).then(|| u64_at(25) as i64),
            sequence: (flags & 2 != 0).then(|| u64_at(33)),
            offset: (flags & 4 != 0).then(|| u64_at(41)),
            payload: Bytes::from(payload),
        }))
    }
}

/// A sorted run written out: its temporary file (removed when dropped)
/// and a reader of it.
struct Run {
    _file: AtomicFile,
    reader: BufReader<File>,
}

/// The messages of a restamping filter, sorted by their new log times
/// with bounded memory (see the module docs).
pub(crate) struct Sorter {
    held: Vec<Held>,
    held_bytes: usize,
    memory: usize,
    runs: Vec<Run>,
    seq: u64,
    /// The folder of the runs' temporary files.
    dir: PathBuf,
}

impl Sorter {
    /// A sorter whose runs go into `dir` once `memory` bytes are held.
    pub(crate) fn new(dir: &Path, memory: usize) -> Self {
        Sorter {
            held: Vec::new(),
            held_bytes: 0,
            memory: memory.max(1),
            runs: Vec::new(),
            seq: 0,
            dir: dir.to_path_buf(),
        }
    }

    /// Holds message `m` of input `input` (its payload copied: a slice of
    /// a decompressed chunk would hold the whole chunk).
    pub(crate) fn push(&mut self, input: usize, m: &Message<'_>) -> Result<(), Error> {
        let held = Held {
            time: m.log_time.as_nanos(),
            seq: self.seq,
            input: input as u32,
            channel: m.channel.0,
            publish: m.publish_time.map(|t| t.as_nanos()),
            sequence: m.sequence,
            offset: m.offset,
            payload: Bytes::copy_from_slice(&m.payload),
        };
        self.seq += 1;
        self.held_bytes += held.size();
        self.held.push(held);
        if self.held_bytes >= self.memory {
            self.spill()?;
        }
        Ok(())
    }

    /// Writes the held messages, sorted, as a run (and merges the runs
    /// into one when there are [`MAX_RUNS`]).
    fn spill(&mut self) -> Result<(), Error> {
        let mut held = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        held.sort_by_key(Held::key);
        let io = |e: std::io::Error| Error::Io(e.into());
        let mut file = self.run_file()?;
        for h in &held {
            h.write_to(&mut file).map_err(io)?;
        }
        self.runs.push(Run::of(file)?);
        if self.runs.len() >= MAX_RUNS {
            let mut runs = std::mem::take(&mut self.runs);
            let mut file = self.run_file()?;
            merge(&mut runs, Vec::new(), |h| h.write_to(&mut file).map_err(io))?;
            drop(runs);
            self.runs.push(Run::of(file)?);
        }
        Ok(())
    }

    /// A new run's temporary file, in the sorter's folder.
    fn run_file(&self) -> Result<AtomicFile, Error> {
        let dest = self.dir.join(".robolog-restamp-run");
        // Never committed: only its temporary file is used, and removed.
        AtomicFile::create(&dest, &OutputPolicy::new(true)).map_err(|e| {
            Error::Io(std::io::Error::other(format!("a restamp's sort run: {e}")).into())
        })
    }

    /// Gives every message held to `each`, by new log time (ties in the
    /// order they came), and empties the sorter.
    pub(crate) fn drain(
        &mut self,
        mut each: impl FnMut(usize, Message<'static>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut held = std::mem::take(&mut self.held);
        self.held_bytes = 0;
        held.sort_by_key(Held::key);
        let mut runs = std::mem::take(&mut self.runs);
        merge(&mut runs, held, |h| {
            let (i, m) = h.into_message();
            each(i, m)
        })
    }
}

impl Run {
    /// The run written into `file`, read from its start.
    fn of(mut file: AtomicFile) -> Result<Run, Error> {
        let io = |e: std::io::Error| Error::Io(e.into());
        file.flush().map_err(io)?;
        let reader = BufReader::with_capacity(1 << 16, File::open(file.temp_path()).map_err(io)?);
        Ok(Run {
            _file: file,
            reader,
        })
    }
}

/// Gives `each` the messages of the sorted `runs` and of the sorted
/// `memory`, merged by (new time, arrival).
fn merge(
    runs: &mut [Run],
    memory: Vec<Held>,
    mut each: impl FnMut(Held) -> Result<(), Error>,
) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Io(e.into());
    if runs.is_empty() {
        return memory.into_iter().try_for_each(each);
    }
    // What is still in memory is the last source.
    let mut memory = memory.into_iter();
    let mut heads: Vec<Option<Held>> = Vec::with_capacity(runs.len() + 1);
    for r in runs.iter_mut() {
        heads.push(Held::read_from(&mut r.reader).map_err(io)?);
    }
    heads.push(memory.next());
    let mut order: BinaryHeap<Reverse<((i64, u64), usize)>> = heads
        .iter()
        .enumerate()
        .filter_map(|(k, h)| h.as_ref().map(|h| Reverse((h.key(), k))))
        .collect();
    while let Some(Reverse((_, k))) = order.pop() {
        let Some(h) = heads[k].take() else { continue };
        let next = match runs.get_mut(k) {
            Some(r) => Held::read_from(&mut r.reader).map_err(io)?,
            None => memory.next(),
        };
        if let Some(n) = &next {
            order.push(Reverse((n.key(), k)));
        }
        heads[k] = next;
        each(h)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_time_then_arrival_through_runs() {
        let dir = std::env::temp_dir().join(format!("robolog-restamp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Runs of about three messages each.
        let mut s = Sorter::new(&dir, 3 * (64 + 2));
        let mut times = vec![5i64, 3, 9, 3, -1, 7, 5, 0, 2, 8, 1];
        // Enough for more than MAX_RUNS runs: merged into one on the way.
        times.extend((0..3 * MAX_RUNS as i64 + 5).map(|k| (k * 7919) % 1000));
        for (n, &t) in times.iter().enumerate() {
            let mut m = Message::new(
                ChannelId(n as u32),
                Timestamp(t),
                Payload::Borrowed(&[1, 2]),
            );
            m.publish_time = (n % 2 == 0).then_some(Timestamp(100 + t));
            s.push(n % 3, &m).unwrap();
        }
        assert!(!s.runs.is_empty() && s.runs.len() < MAX_RUNS);
        let mut got = Vec::new();
        s.drain(|i, m| {
            got.push((
                m.log_time.0,
                m.channel.0,
                i,
                m.publish_time,
                m.payload.to_vec(),
            ));
            Ok(())
        })
        .unwrap();
        let mut want: Vec<(i64, u32)> = times
            .iter()
            .enumerate()
            .map(|(n, &t)| (t, n as u32))
            .collect();
        want.sort();
        assert_eq!(got.iter().map(|g| (g.0, g.1)).collect::<Vec<_>>(), want);
        assert!(
            got.iter()
                .all(|g| g.2 == g.1 as usize % 3 && g.4 == vec![1, 2])
        );
        assert!(
            got.iter()
                .all(|g| g.3 == (g.1 % 2 == 0).then_some(Timestamp(100 + g.0)))
        );
        // The runs' temporary files are gone.
        drop(s);
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
