#![forbid(unsafe_code)]
#![doc = include_str!("../README.md")]

mod check;
#[cfg(feature = "mcap")]
pub mod convert;
pub mod export;
pub mod info;
mod lenient;
mod log;
mod probe;
pub mod registry;
mod text;
pub mod write;

use std::path::Path;

pub use check::{StrictCheck, check_strict};
pub use lenient::{DecodeFailures, LenientDecoder};
pub use log::{Log, Reader};
pub use logcore::{
    ChannelId, ChannelInfo, Error, FileBytes, Format, LogReader, Message, MessageFilter, ReadMode,
    Summary, Timestamp, Value,
};
pub use probe::{PROBE_LEN, probe};
pub use registry::{Decoder, DecoderFactory, Registry};
pub use text::render_text;

/// Opens the log at `path`: maps the file, recognises its format and
/// builds its reader (which reads the header and, where the format has
/// one, the index; messages are read when iterated).
///
/// Errors: I/O errors, [`Error::UnknownFormat`] when no format of this
/// build recognises the first bytes, [`Error::Unsupported`] for a
/// recognised format in a version this build cannot read, and the
/// format's parse errors (with byte offsets) when its header is damaged.
pub fn open(path: impl AsRef<Path>) -> Result<Log<'static>, Error> {
    open_with(path, &Limits::default())
}

/// [`open`] with resource [`Limits`] other than the defaults (for example
/// a larger decompressed chunk for a trusted file, or message types nested
/// deeper than a format's default). The format's reader and the log's
/// decoder [`Registry`] apply them.
///
/// ```no_run
/// let limits = robolog::Limits::default()
///     .with_max_chunk_size(2 << 30)
///     .with_max_nesting(100);
/// let log = robolog::open_with("big.mcap", &limits)?;
/// # Ok::<(), robolog::Error>(())
/// ```
pub fn open_with(path: impl AsRef<Path>, limits: &Limits) -> Result<Log<'static>, Error> {
    let bytes = FileBytes::open(path)?;
    let format = detect(&bytes)?;
    Log::owned(format, bytes, limits, None)
}

/// [`open_with`] for a reader that wants the channels of some message
/// types only (a query naming a few tables of many logs): a ULog indexes
/// only the samples of the subscriptions whose format name `keep` accepts,
/// keeps no parameters, and leaves its other channels out of its summary
/// (see [`ulogfile::ULog::parse_selected`]), which costs much less memory
/// and time than a full read. The other formats index lazily anyway, and
/// open as [`open_with`] opens them.
///
/// ```no_run
/// use robolog::LogReader;
/// let log = robolog::open_selected("flight.ulg", &Default::default(), &|name| {
///     name == "vehicle_global_position"
/// })?;
/// // The selected channels (and the GPS ones, which anchor the clock).
/// for c in log.summary()?.channels {
///     println!("{}: {} messages", c.info.topic, c.message_count);
/// }
/// # Ok::<(), robolog::Error>(())
/// ```
pub fn open_selected(
    path: impl AsRef<Path>,
    limits: &Limits,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Log<'static>, Error> {
    let bytes = FileBytes::open(path)?;
    let format = detect(&bytes)?;
    Log::owned(format, bytes, limits, Some(keep))
}

/// Like [`open`], for a tool that reads one format only: a file of another
/// format is refused before its reader is built, with the error every tool
/// gives (`at byte 0: expected an MCAP file, found a ROS 1 bag`).
///
/// ```no_run
/// let log = robolog::open_as("run.bag", robolog::Format::RosBag)?;
/// let bag = log.as_bag().expect("a bag");
/// println!("{} connections", bag.connections().len());
/// # Ok::<(), robolog::Error>(())
/// ```
pub fn open_as(path: impl AsRef<Path>, format: Format) -> Result<Log<'static>, Error> {
    open_as_with(path, format, &Limits::default())
}

/// [`open_as`] with resource [`Limits`] other than the defaults.
pub fn open_as_with(
    path: impl AsRef<Path>,
    format: Format,
    limits: &Limits,
) -> Result<Log<'static>, Error> {
    let bytes = FileBytes::open(path)?;
    let found = detect(&bytes)?;
    log::expect_format(found, format)?;
    Log::owned(format, bytes, limits, None)
}

/// Like [`open`], over bytes already in memory (borrowed, not copied).
///
/// ```
/// let err = robolog::open_bytes(b"hello world").unwrap_err();
/// assert!(matches!(err, robolog::Error::UnknownFormat { .. }));
/// assert_eq!(err.offset(), Some(0));
/// ```
pub fn open_bytes(bytes: &[u8]) -> Result<Log<'_>, Error> {
    open_bytes_with(bytes, &Limits::default())
}

/// [`open_bytes`] with resource [`Limits`] other than the defaults.
pub fn open_bytes_with<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Log<'a>, Error> {
    let format = detect(bytes)?;
    Log::borrowed(format, bytes, limits)
}

// Resource limits applied by the format readers `open_with` builds,
// against hostile or oversized files (the same type as
// `mcapfile::Limits` and `rosbag12::Limits`).
pub use logcore::limits::{DEFAULT_MAX_CHUNK_SIZE, Limits, MAX_NESTING_CEILING};

/// The format of `bytes`, or the error naming what was found instead.
fn detect(bytes: &[u8]) -> Result<Format, Error> {
    let head = &bytes[..bytes.len().min(PROBE_LEN)];
    probe(head).ok_or_else(|| Error::UnknownFormat {
        found: logcore::error::hex_preview(head),
    })
}
