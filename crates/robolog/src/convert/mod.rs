//! Conversion of any log into MCAP that viewers (Foxglove, Lichtblick)
//! show, and of ROS 1 MCAP files back into bags: [`to_mcap`] dispatches
//! on the log's format to one module per format, all writing through one
//! `Context` that holds the options, the topic/time filter, the counts
//! and the progress callback; [`to_bag`] writes a ROS 1 bag.
//!
//! ROS bags convert losslessly with the conventions of the MCAP CLI's
//! `mcap convert` (profile `ros1`, `ros1msg` schemas, `ros1` payloads
//! unchanged, the connection header as channel metadata), 1.2 and damaged
//! bags included; MCAP files are re-chunked, re-compressed and filtered
//! with their metadata and attachments kept (an OSI trace stays one).
//! With [`ConvertOptions::ros2`], a ROS 1 bag becomes ROS 2 MCAP instead
//! (profile `ros2`, payloads re-encoded as CDR, ROS 2 definitions), mapped
//! as `rosbags-convert` maps it; and [`to_bag`] writes a ROS 2 log (a
//! rosbag2 bag, ROS 2 MCAP) as a ROS 1 bag, the mapping reversed. ULog
//! files, CARLA recordings and VEL logs become channels of types generated
//! from their own definitions plus Foxglove views, `json` or `protobuf` as
//! [`ConvertOptions::encoding`] says (see [`Encoding`] for the default and
//! why).
//!
//! [`convert_file`] writes a ROS 2 bag folder (rosbag2, SQLite or MCAP
//! storage: [`Target::Rosbag2`]) from a ROS 1 bag (the same ROS 2
//! mapping), a ROS 2 bag (re-stored) or a ROS 2 MCAP file: see
//! [`convert_file_to`].
//! [`convert_files_to`] merges several ROS 1 logs, or several ROS 2
//! logs, by log time into one output of any of these kinds.
//! [`filter_files_to`] writes through the same merged writers with a
//! [`Filter`] deciding each message as it is read (topic patterns and
//! exclusions, content keys, windows around events, latched topics), its
//! time shifted and its topic renamed, its bytes unchanged (`robolog
//! filter`; see the `select` module); [`filter_dry_run`] counts what it
//! would keep.
//!
//! Conversions stream: the input is memory-mapped and read one chunk at a
//! time, the output is written one chunk at a time, so memory is bounded
//! by an input chunk, an output chunk (`chunk_size`) and the indexes,
//! never by the size of the file.
//!
//! ```
//! use robolog::convert::{ConvertOptions, to_bag, to_mcap};
//! use rosbag12::{Connection, RosTime, Writer, WriterOptions};
//!
//! // A bag with one message...
//! let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default())?;
//! let c = w.add_connection(Connection::new(0, "/n", "std_msgs/Int32",
//!     "da5909fbe378aeaf85e547e830cc1bb7", "int32 data"))?;
//! w.write(c, RosTime { sec: 7, nsec: 0 }, &5i32.to_le_bytes())?;
//! w.finish()?;
//! let bag = w.into_inner().into_inner();
//!
//! // ...to MCAP, and back.
//! let log = robolog::open_bytes(&bag)?;
//! let (mcap, stats) = to_mcap(&log, Vec::new(), &ConvertOptions::default(), &mut |_| {})?;
//! assert_eq!(stats.messages, 1);
//! let log = robolog::open_bytes(&mcap)?;
//! let (again, _) = to_bag(&log, std::io::Cursor::new(Vec::new()), &ConvertOptions::for_bag(), &mut |_| {})?;
//! let again = rosbag12::Bag::new(again.get_ref())?;
//! assert_eq!(again.connections()[0].md5sum, "da5909fbe378aeaf85e547e830cc1bb7");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{Seek, Write};

use logcore::{Error, Format, FormatError, LogReader, MessageFilter, ReadMode, Timestamp};
use mcapfile::{Compression, WriteOptions};

use crate::Log;

#[cfg(feature = "rosbag")]
mod bag;
#[cfg(feature = "carla")]
mod carla;
#[cfg(any(feature = "ulog", feature = "carla", feature = "vellog"))]
mod foxglove;
#[cfg(any(feature = "ulog", feature = "carla", feature = "vellog"))]
mod jsonschema;
mod mcap;
#[cfg(any(feature = "ulog", feature = "carla", feature = "vellog"))]
mod protobuf;
#[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
mod ros1to2;
#[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
mod ros2to1;
#[cfg(feature = "rosbag2")]
mod rosbag2;
#[cfg(feature = "ulog")]
mod ulog;
#[cfg(feature = "vellog")]
mod vellog;

/// What [`to_mcap`] and [`to_bag`] write.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// Chunk compression of the output (a bag has none or lz4: see
    /// [`ConvertOptions::for_bag`]).
    pub compression: Compression,
    /// Close a chunk once its uncompressed records reach this many bytes.
    pub chunk_size: u64,
    /// Only these topics (empty: all): topic names, globs (`*` within one
    /// name level, `**` across levels, `?`, `[abc]`) or `re:` regular
    /// expressions, each matching whole topic names (see
    /// [`TopicPattern`]); a name matches itself whatever characters it has.
    pub topics: Vec<String>,
    /// Only messages at or after this log time.
    pub start: Option<Timestamp>,
    /// Only messages before this log time.
    pub end: Option<Timestamp>,
    /// A ROS 1 bag converts to ROS 2 MCAP (profile `ros2`, `cdr`
    /// payloads re-encoded from the ROS 1 ones, `ros2msg` schemas of the
    /// ROS 2 types, `offered_qos_profiles` metadata) the way
    /// rosbags-convert maps it, instead of ROS 1 MCAP. Needs the `rosbag`,
    /// `ros2` and `rosbag2` features; other formats ignore it.
    pub ros2: bool,
    /// The message encoding of the channels written from ULog files, CARLA
    /// recordings and VEL logs (see [`Encoding`]); other formats keep their
    /// own (`ros1`, `cdr`, an MCAP file's) and ignore it.
    pub encoding: Encoding,
}

/// How a conversion of a ULog file, CARLA recording or VEL log encodes
/// its messages. Both viewers' best is [`Encoding::Protobuf`]: Foxglove
/// and Lichtblick show either, Rerun's MCAP decoders read only protobuf,
/// and protobuf keeps what JSON cannot (NaN and infinities as floats,
/// 64-bit integers exactly). `robolog convert` defaults to it; the
/// library's [`ConvertOptions::default`] keeps [`Encoding::Json`] so that
/// callers reading the JSON output stay as they are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Encoding {
    /// `json` messages with `jsonschema` schemas: Foxglove's JSON Schemas
    /// for the Foxglove views, JSON Schemas generated from the log's own
    /// types for its topics.
    #[default]
    Json,
    /// `protobuf` messages whose schemas are file descriptor sets:
    /// Foxglove's own `.proto` definitions for the Foxglove views, one
    /// message type generated per ULog format, CARLA packet and VEL record
    /// (the fields of the JSON form; see the `protobuf` module).
    Protobuf,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            compression: Compression::Zstd,
            chunk_size: 1 << 20,
            topics: Vec::new(),
            start: None,
            end: None,
            ros2: false,
            encoding: Encoding::Json,
        }
    }
}

impl ConvertOptions {
    /// The defaults for a bag output: uncompressed chunks (as `rosbag
    /// record` writes them; bags know no zstd).
    pub fn for_bag() -> Self {
        ConvertOptions {
            compression: Compression::None,
            ..ConvertOptions::default()
        }
    }
}

/// How far a conversion has come, given to the progress callback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Input bytes consumed so far (approximate: the position of the last record read).
    pub bytes: u64,
    /// Input size in bytes.
    pub total_bytes: u64,
    /// Messages written so far.
    pub messages: u64,
}

/// What a conversion wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConvertStats {
    /// Messages written.
    pub messages: u64,
    /// Channels written.
    pub channels: u64,
    /// Damaged records skipped by a lenient read, with their descriptions.
    pub skipped: Vec<String>,
    /// What the reader had to repair without losing data (a bag's index
    /// rebuilt by scanning), with their descriptions.
    pub warnings: Vec<String>,
    /// The parts of a split output ([`Filter::split_every`],
    /// [`Filter::split_size`]), in order: each file (or folder) and the
    /// messages written into it (its latched messages carried in
    /// included); empty when the output is one file.
    pub parts: Vec<(std::path::PathBuf, u64)>,
    /// What an anonymisation changed ([`Filter::anonymise`]), one line
    /// per kind of change (topics and counts; never the offset); empty
    /// without one.
    pub anonymised: Vec<String>,
}

impl ConvertStats {
    /// Adds the stats of one part of a split output written to `path`:
    /// its messages, its channels (the most of any part), its warnings and
    /// skipped records (each text once), its anonymisation lines (each
    /// led by the part's file name, since their counts are the part's),
    /// and the part itself.
    pub(crate) fn add_part(&mut self, path: std::path::PathBuf, part: ConvertStats) {
        fn join(all: &mut Vec<String>, more: Vec<String>) {
            for line in more {
                if !all.contains(&line) {
                    all.push(line);
                }
            }
        }
        self.messages += part.messages;
        self.channels = self.channels.max(part.channels);
        join(&mut self.warnings, part.warnings);
        join(&mut self.skipped, part.skipped);
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        join(
            &mut self.anonymised,
            part.anonymised
                .into_iter()
                .map(|line| format!("{name}: {line}"))
                .collect(),
        );
        self.parts.push((path, part.messages));
    }
}

/// The state shared by every format's converter.
pub(crate) struct Context<'p> {
    pub(crate) opts: ConvertOptions,
    pub(crate) stats: ConvertStats,
    pub(crate) total_bytes: u64,
    progress: &'p mut dyn FnMut(Progress),
    /// Input position and message count at the last report.
    reported: (u64, u64),
    /// How far each input of a merge has been read ([`Context::tick_at`]).
    positions: Vec<u64>,
    /// The topic patterns of the options, compiled.
    topics: select::TopicPatterns,
    /// The message selection of a filter ([`filter_files_to`]).
    pub(crate) selecting: Option<select::Selecting>,
    /// Set when a part of a split output is complete: the merged reads
    /// stop there.
    stop: bool,
}

impl<'p> Context<'p> {
    /// A conversion of `log` with `opts`, reporting to `progress`.
    fn new(log: &Log<'_>, opts: &ConvertOptions, progress: &'p mut dyn FnMut(Progress)) -> Self {
        Self::of_logs(&[log], opts, progress)
    }

    /// A conversion merging `logs` with `opts`, reporting to `progress`
    /// (the input size is the sum of theirs).
    pub(crate) fn of_logs(
        logs: &[&Log<'_>],
        opts: &ConvertOptions,
        progress: &'p mut dyn FnMut(Progress),
    ) -> Self {
        Context {
            opts: opts.clone(),
            stats: ConvertStats::default(),
            total_bytes: logs.iter().map(|l| l.size()).sum(),
            progress,
            reported: (0, 0),
            positions: vec![0; logs.len()],
            topics: select::TopicPatterns::new(&opts.topics),
            selecting: None,
            stop: false,
        }
    }

    /// Runs `each` on the messages of several lenient reads merged by
    /// time, as [`Context::each_merged`], each message first decided by
    /// the filter's selection (when the conversion has one): a message it
    /// drops is not given to `each`, a kept one comes with its times
    /// shifted. The writers of merged conversions read through it, so
    /// that a filter is one step of their pipeline.
    pub(crate) fn each_message_merged<'m, I>(
        &mut self,
        streams: Vec<I>,
        mut each: impl FnMut(&mut Self, usize, logcore::Message<'m>) -> Result<(), Error>,
    ) -> Result<(), Error>
    where
        I: Iterator<Item = Result<logcore::Message<'m>, Error>>,
    {
        // A restamp sorts the kept messages by their new times.
        let mut sorter = self.selecting.as_ref().and_then(|s| s.sorter());
        self.each_merged(
            streams,
            |m| m.log_time.as_nanos(),
            |cx, i, m| match cx.selecting.as_mut() {
                None => each(cx, i, m),
                Some(sel) => {
                    if !sel.keep(i, &m)? {
                        if let Some(at) = m.offset {
                            cx.tick_at(i, at);
                        }
                        return Ok(());
                    }
                    let t = m.log_time;
                    if let Some(part) = sel.part.as_mut()
                        && part.ends_before(t, 0)
                    {
                        cx.stop = true;
                        return Ok(());
                    }
                    let m = sel.reframed(i, m)?;
                    let m = sel.restamped(i, m);
                    let m = sel.shifted(m)?;
                    let m = sel.anonymised(i, m);
                    let bytes = m.payload.len();
                    match sorter.as_mut() {
                        Some(s) => s.push(i, &m)?,
                        None => each(cx, i, m)?,
                    }
                    if let Some(part) = cx.selecting.as_mut().and_then(|s| s.part.as_mut()) {
                        part.wrote(t, bytes);
                    }
                    Ok(())
                }
            },
        )?;
        if let Some(sel) = self.selecting.as_mut() {
            let lines = sel.take_anonymised();
            self.stats.anonymised.extend(lines);
        }
        match sorter {
            Some(mut s) => s.drain(|i, m| each(self, i, m)),
            None => Ok(()),
        }
    }

    /// The name topic `topic` of an input is written under (a filter's
    /// renames).
    pub(crate) fn out_topic(&self, topic: &str) -> String {
        match &self.selecting {
            Some(s) => s.filter().renamed(topic),
            None => topic.to_string(),
        }
    }

    /// Runs `each` on the messages of several lenient reads merged by
    /// time (`time` of each item): the earliest first, ties in the order
    /// of `streams` and then in each stream's own order. `each` gets the
    /// index of the stream the message came from. What a stream skips is
    /// recorded as in [`Context::each_message`], and damage it cannot read
    /// past ends that stream, not the others. Each stream holds one
    /// message ahead, so memory is what the readers hold plus one message
    /// per stream.
    pub(crate) fn each_merged<T, E, I>(
        &mut self,
        streams: Vec<I>,
        time: impl Fn(&T) -> i64,
        mut each: impl FnMut(&mut Self, usize, T) -> Result<(), Error>,
    ) -> Result<(), Error>
    where
        E: FormatError + std::fmt::Display,
        I: Iterator<Item = Result<T, E>>,
    {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;

        let mut streams: Vec<Option<I>> = streams.into_iter().map(Some).collect();
        let mut heads: Vec<Option<T>> = streams.iter().map(|_| None).collect();
        let mut order = BinaryHeap::new();
        for i in 0..streams.len() {
            if let Some(m) = self.next_of(&mut streams[i]) {
                order.push(Reverse((time(&m), i)));
                heads[i] = Some(m);
            }
        }
        while let Some(Reverse((_, i))) = order.pop() {
            let Some(m) = heads[i].take() else { continue };
            each(self, i, m)?;
            if self.stop {
                break;
            }
            if let Some(m) = self.next_of(&mut streams[i]) {
                order.push(Reverse((time(&m), i)));
                heads[i] = Some(m);
            }
        }
        Ok(())
    }

    /// The next message of `stream`, recording what it skips; `None`
    /// (and the stream dropped) at its end or at damage it cannot read
    /// past.
    fn next_of<T, E, I>(&mut self, stream: &mut Option<I>) -> Option<T>
    where
        E: FormatError + std::fmt::Display,
        I: Iterator<Item = Result<T, E>>,
    {
        while let Some(s) = stream {
            match s.next() {
                Some(Ok(m)) => return Some(m),
                Some(Err(e)) => {
                    if self.skip(&e) {
                        *stream = None;
                    }
                }
                None => *stream = None,
            }
        }
        None
    }

    /// Runs `each` on every item of a lenient read that is a message; a
    /// damaged stretch the read skipped is recorded ([`Context::skip`]),
    /// and damage it cannot read past ends the read there. `each` gets the
    /// context back, to count and report.
    #[cfg_attr(not(any(feature = "rosbag", feature = "rosbag2")), allow(dead_code))]
    pub(crate) fn each_message<T, E: FormatError + std::fmt::Display>(
        &mut self,
        items: impl Iterator<Item = Result<T, E>>,
        mut each: impl FnMut(&mut Self, T) -> Result<(), Error>,
    ) -> Result<(), Error> {
        for item in items {
            match item {
                Ok(m) => each(self, m)?,
                Err(e) if self.skip(&e) => break,
                Err(_) => {}
            }
        }
        Ok(())
    }

    /// The value of `r`, or `None` with its error recorded as skipped.
    #[cfg_attr(
        not(any(feature = "ulog", feature = "carla", feature = "vellog")),
        allow(dead_code)
    )]
    pub(crate) fn passed<T, E: std::fmt::Display>(&mut self, r: Result<T, E>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.stats.skipped.push(e.to_string());
                None
            }
        }
    }

    /// A lenient filter of the messages between the options' start and end.
    #[cfg_attr(
        not(any(feature = "rosbag", feature = "ulog", feature = "vellog")),
        allow(dead_code)
    )]
    pub(crate) fn lenient_filter(&self) -> MessageFilter {
        let mut filter = MessageFilter::all().mode(ReadMode::Lenient);
        filter.start = match &self.selecting {
            // A filter reads from its earliest latched message, and
            // decides the start itself.
            Some(s) => s.read_start(),
            None => self.opts.start,
        };
        filter.end = self.opts.end;
        filter
    }

    /// Records the read error `e` as skipped and says whether reading ends
    /// there (a truncation: nothing readable follows) rather than going on
    /// past damage.
    pub(crate) fn skip<E: FormatError + std::fmt::Display>(&mut self, e: &E) -> bool {
        self.stats.skipped.push(e.to_string());
        !e.is_skipped()
    }

    /// Whether a message on `topic` at `time` passes the filter.
    #[cfg_attr(
        not(any(feature = "ulog", feature = "carla", feature = "vellog")),
        allow(dead_code)
    )]
    pub(crate) fn keep(&self, topic: &str, time: Timestamp) -> bool {
        self.keep_topic(topic) && self.keep_time(time)
    }

    /// Whether `time` passes the time filter.
    pub(crate) fn keep_time(&self, time: Timestamp) -> bool {
        self.opts.start.is_none_or(|s| time >= s) && self.opts.end.is_none_or(|e| time < e)
    }

    /// Whether `topic` passes the topic filter.
    pub(crate) fn keep_topic(&self, topic: &str) -> bool {
        self.topics.selects(topic)
            && !self
                .selecting
                .as_ref()
                .is_some_and(|s| s.filter().excludes(topic))
    }

    /// Reports progress when enough has happened since the last report
    /// (256 KiB of input or 1024 messages): converters call it after every
    /// message, the callback runs a few thousand times per gigabyte.
    pub(crate) fn tick(&mut self, bytes: u64) {
        let (b, m) = self.reported;
        if bytes.abs_diff(b) >= 1 << 18 || self.stats.messages.saturating_sub(m) >= 1024 {
            self.report(bytes);
        }
    }

    /// [`Context::tick`] for input `input` of a merge read up to `bytes`:
    /// the progress is the sum over the inputs.
    pub(crate) fn tick_at(&mut self, input: usize, bytes: u64) {
        if let Some(p) = self.positions.get_mut(input) {
            *p = bytes;
        }
        let sum = self.positions.iter().sum();
        self.tick(sum);
    }

    /// Reports progress: `bytes` of the input consumed.
    pub(crate) fn report(&mut self, bytes: u64) {
        self.reported = (bytes, self.stats.messages);
        let p = Progress {
            bytes,
            total_bytes: self.total_bytes,
            messages: self.stats.messages,
        };
        (self.progress)(p);
    }
}

/// The MCAP writer options of a conversion with header `profile`.
pub(crate) fn write_options(opts: &ConvertOptions, profile: &str) -> WriteOptions {
    WriteOptions {
        profile: profile.into(),
        library: concat!("robolog ", env!("CARGO_PKG_VERSION")).into(),
        compression: opts.compression,
        chunk_size: opts.chunk_size,
        ..WriteOptions::default()
    }
}

/// The topics a conversion of `log` writes when their messages pass the
/// time filter, sorted: what [`ConvertOptions::topics`] selects from (a
/// topic outside them selects nothing). For bags and MCAP files these are
/// the log's own topics (which [`to_bag`] writes too); for ULog files,
/// CARLA recordings and VEL logs the topics of their JSON channels and of
/// the Foxglove views derived from them (`tf`, `pose`, `scene`,
/// `location_fix/...`, `TOPIC/fix`, ...; a ULog subscription is
/// `NAME/MULTI_ID`).
pub fn topics(log: &Log<'_>) -> Result<Vec<String>, Error> {
    let topics: std::collections::BTreeSet<String> = match log.format() {
        #[cfg(feature = "ulog")]
        Format::ULog => ulog::topics(log)?,
        #[cfg(feature = "carla")]
        Format::CarlaRecorder => carla::topics(log)?,
        #[cfg(feature = "vellog")]
        Format::VelLog => vellog::topics(log)?,
        _ => log.channels()?.into_iter().map(|c| c.topic).collect(),
    };
    Ok(topics.into_iter().collect())
}

/// Converts `log` into an MCAP file written to `out`, calling `progress`
/// as it goes, and returns the sink with what was written.
pub fn to_mcap<W: Write>(
    log: &Log<'_>,
    out: W,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<(W, ConvertStats), Error> {
    let mut cx = Context::new(log, opts, progress);
    let sink = match log.format() {
        #[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
        Format::RosBag if opts.ros2 => ros1to2::convert(&[log], out, &mut cx)?,
        #[cfg(all(feature = "rosbag", not(all(feature = "ros2", feature = "rosbag2"))))]
        Format::RosBag if opts.ros2 => {
            return Err(Error::unsupported(
                0,
                "a ROS 2 output of a ROS 1 bag",
                "this build leaves out the `ros2` or `rosbag2` feature of the robolog library",
            ));
        }
        #[cfg(feature = "rosbag")]
        Format::RosBag => bag::convert(log, out, &mut cx)?,
        Format::Mcap => mcap::convert(log, out, &mut cx)?,
        #[cfg(feature = "ulog")]
        Format::ULog => ulog::convert(log, out, &mut cx)?,
        #[cfg(feature = "carla")]
        Format::CarlaRecorder => carla::convert(log, out, &mut cx)?,
        #[cfg(feature = "vellog")]
        Format::VelLog => vellog::convert(log, out, &mut cx)?,
        #[cfg(feature = "rosbag2")]
        Format::Rosbag2 => rosbag2::convert(log, out, &mut cx)?,
        #[allow(unreachable_patterns)]
        other => return Err(not_yet(other)),
    };
    Ok((sink, cx.stats))
}

/// Converts `log` into a ROS 1 bag (2.0) written to `out`, calling
/// `progress` as it goes, and returns the sink with what was written.
///
/// The log is an MCAP file whose (kept) channels are ROS 1 ones (message
/// encoding `ros1`, schema encoding `ros1msg`), as [`to_mcap`] writes
/// them from a bag, or a bag. The conversion is lossless: a bag converted
/// to MCAP and back has the same messages (times and bytes), definitions,
/// md5sums and connection header fields (written in name order, as `rosbag
/// record` does). Any other channel is refused ([`Error::Unsupported`]
/// naming it); filter it out with [`ConvertOptions::topics`]. Compression
/// is none or lz4 ([`Compression::Zstd`] is [`Error::InvalidArgument`]).
///
/// A ROS 2 log, a rosbag2 bag or an MCAP file of `cdr` channels (and no
/// `ros1` ones), converts too (with the `ros2` and `rosbag2` features):
/// payloads re-encoded from CDR to ROS 1, definitions and md5sums in ROS 1
/// form, latching from the QoS profiles, mapped as `rosbags-convert`
/// maps it; a channel that does not map, or a payload that does not
/// re-encode, is left out and listed in [`ConvertStats::skipped`].
pub fn to_bag<W: Write + Seek>(
    log: &Log<'_>,
    out: W,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<(W, ConvertStats), Error> {
    let mut cx = Context::new(log, opts, progress);
    #[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
    if ros2to1::applies(log, &cx)? {
        let sink = ros2to1::to_bag(log, out, &mut cx)?;
        return Ok((sink, cx.stats));
    }
    #[cfg(feature = "rosbag")]
    {
        let sink = bag::to_bag(log, out, &mut cx)?;
        Ok((sink, cx.stats))
    }
    #[cfg(not(feature = "rosbag"))]
    {
        let _ = (out, &mut cx);
        Err(Error::unsupported(
            0,
            "a bag output",
            "this build leaves out the `rosbag` feature of the robolog library",
        ))
    }
}

mod anonymise;
mod file;
mod filterconfig;
mod keystream;
mod merge;
mod native;
mod restamp;
mod rewrite;
mod select;
mod split;
mod to_rosbag2;

/// The ROS 1 definition text and md5sum of a ROS 2 type (`crate::encode`).
#[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
pub(crate) use ros2to1::ros1_definition as ros1_of_ros2;

/// Protobuf message types of a descriptor set and their encoder
/// (`crate::encode`).
#[cfg(any(feature = "ulog", feature = "carla", feature = "vellog"))]
pub(crate) mod protobuf_type {
    use std::sync::Arc;

    use prost::Message as _;
    use prost_types::FileDescriptorSet;

    pub(crate) use super::protobuf::{MessageType, encode};

    /// The message `full` of the encoded descriptor set `bytes`.
    pub(crate) fn from_set(bytes: &[u8], full: &str) -> Result<Arc<MessageType>, String> {
        let set = FileDescriptorSet::decode(bytes)
            .map_err(|e| format!("not a FileDescriptorSet: {e}"))?;
        super::protobuf::resolve(&set.file, full.trim_start_matches('.'))
    }
}
pub use anonymise::{Anonymise, IDENTIFIER_KEYS, is_identifier};
pub use file::{ConvertFileError, Storage, Target, convert_file, convert_file_to};
pub use filterconfig::{ConfigError, FilterConfig};
pub use keystream::{FilterPlan, KeyStream, Prepare, Scan};
pub use merge::{Input, check_merge, convert_files_to, filter_files_to};
pub use native::{filter_own_format_to, filter_topics, own_format_extensions};
pub use select::{
    Filter, FilterSpec, MatchError, Matcher, MessageKey, PlanError, TopicCount, TopicPattern,
    filter_dry_run, is_latched, numbered, plan_filter, plan_filter_streaming,
};
pub use split::parse_size;

/// The error of a converter given a log of another format: `wanted`
/// names the format it converts (`"a ROS 1 bag"`).
pub(crate) fn not_a(wanted: &str, log: &Log<'_>) -> Error {
    Error::malformed(0, wanted, format!("{:?}", log.format()))
}

/// The log time of message `m` of `log` as an MCAP file stores it
/// (unsigned nanoseconds since 1970). A negative time is refused, naming
/// the message's topic and time: every stamp is written as it is or not
/// at all.
pub(crate) fn mcap_time(log: &Log<'_>, m: &logcore::Message<'_>) -> Result<u64, Error> {
    u64::try_from(m.log_time.as_nanos()).map_err(|_| {
        time_refused(
            &topic_of(log, m),
            m.log_time,
            m.offset,
            "MCAP times are unsigned nanoseconds since 1970",
        )
    })
}

/// The topic of message `m` of `log`, for an error.
pub(crate) fn topic_of(log: &Log<'_>, m: &logcore::Message<'_>) -> String {
    log.channels()
        .ok()
        .and_then(|cs| cs.into_iter().find(|c| c.id == m.channel))
        .map_or_else(|| format!("channel {}", m.channel.0), |c| c.topic)
}

/// The error of a message time the output cannot hold: `why` says what
/// the output's times are.
pub(crate) fn time_refused(topic: &str, time: Timestamp, offset: Option<u64>, why: &str) -> Error {
    Error::unsupported(
        offset.unwrap_or(0),
        format!("the time {} ns of a message on {topic}", time.as_nanos()),
        format!(
            "{why}, so it cannot be written, and nothing was (a ROS 2 bag folder of \
             sqlite3 storage keeps every time)"
        ),
    )
}

/// The error of a conversion this build cannot do yet.
pub(crate) fn not_yet(format: Format) -> Error {
    Error::unsupported(
        0,
        format!("{format:?}"),
        "conversion of this format to MCAP is not available yet",
    )
}

/// Helpers of the converters' tests.
#[cfg(test)]
pub(crate) mod testing {
    use mcapfile::{LinearReader, Record};

    use super::{ConvertOptions, ConvertStats, to_mcap};

    /// The log `bytes` converted to MCAP with `opts`, and what was written.
    pub(crate) fn convert(bytes: &[u8], opts: &ConvertOptions) -> (Vec<u8>, ConvertStats) {
        let log = crate::open_bytes(bytes).unwrap();
        to_mcap(&log, Vec::new(), opts, &mut |_| {}).unwrap()
    }

    /// The records of the MCAP file `mcap`.
    pub(crate) fn records(mcap: &[u8]) -> Vec<Record<'static>> {
        LinearReader::new(mcap)
            .map(|r| r.unwrap().into_owned())
            .collect()
    }
}
