//! Conversion of any log into MCAP that viewers (Foxglove, Lichtblick)
//! show: [`to_mcap`] dispatches on the log's format to one module per
//! format, all writing through one context that holds the options,
//! the topic/time filter, the counts and the progress callback.

// Removed once every format converter uses the shared helpers.
#![allow(dead_code)]

use std::io::Write;

use logcore::{Error, Format, Timestamp};
use mcapfile::{Compression, WriteOptions};

use crate::Log;

#[cfg(feature = "rosbag")]
mod bag;
#[cfg(feature = "carla")]
mod carla;
mod foxglove;
mod jsonschema;
mod mcap;
#[cfg(feature = "ulog")]
mod ulog;
#[cfg(feature = "vellog")]
mod vellog;

/// What [`to_mcap`] writes.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// Chunk compression of the output.
    pub compression: Compression,
    /// Close a chunk once its uncompressed records reach this many bytes.
    pub chunk_size: u64,
    /// Only these topics (empty: all).
    pub topics: Vec<String>,
    /// Only messages at or after this log time.
    pub start: Option<Timestamp>,
    /// Only messages before this log time.
    pub end: Option<Timestamp>,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            compression: Compression::Zstd,
            chunk_size: 1 << 20,
            topics: Vec::new(),
            start: None,
            end: None,
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
}

/// The state shared by every format's converter.
pub(crate) struct Context<'p> {
    pub(crate) opts: ConvertOptions,
    pub(crate) stats: ConvertStats,
    pub(crate) total_bytes: u64,
    progress: &'p mut dyn FnMut(Progress),
}

impl Context<'_> {
    /// Whether a message on `topic` at `time` passes the filter.
    pub(crate) fn keep(&self, topic: &str, time: Timestamp) -> bool {
        self.keep_topic(topic)
            && self.opts.start.is_none_or(|s| time >= s)
            && self.opts.end.is_none_or(|e| time < e)
    }

    /// Whether `topic` passes the topic filter.
    pub(crate) fn keep_topic(&self, topic: &str) -> bool {
        self.opts.topics.is_empty() || self.opts.topics.iter().any(|t| t == topic)
    }

    /// Reports progress: `bytes` of the input consumed.
    pub(crate) fn report(&mut self, bytes: u64) {
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

/// Converts `log` into an MCAP file written to `out`, calling `progress`
/// as it goes, and returns the sink with what was written.
pub fn to_mcap<W: Write>(
    log: &Log<'_>,
    out: W,
    opts: &ConvertOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<(W, ConvertStats), Error> {
    let mut cx = Context {
        opts: opts.clone(),
        stats: ConvertStats::default(),
        total_bytes: log.bytes().len() as u64,
        progress,
    };
    let sink = match log.format() {
        #[cfg(feature = "rosbag")]
        Format::RosBag => bag::convert(log, out, &mut cx)?,
        Format::Mcap => mcap::convert(log, out, &mut cx)?,
        #[cfg(feature = "ulog")]
        Format::ULog => ulog::convert(log, out, &mut cx)?,
        #[cfg(feature = "carla")]
        Format::CarlaRecorder => carla::convert(log, out, &mut cx)?,
        #[cfg(feature = "vellog")]
        Format::VelLog => vellog::convert(log, out, &mut cx)?,
        #[allow(unreachable_patterns)]
        other => return Err(not_yet(other)),
    };
    Ok((sink, cx.stats))
}

/// The error of a conversion this build cannot do yet.
pub(crate) fn not_yet(format: Format) -> Error {
    Error::unsupported(
        0,
        format!("{format:?}"),
        "conversion of this format to MCAP is not available yet",
    )
}
