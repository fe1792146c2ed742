#![forbid(unsafe_code)]
#![doc = include_str!("../README.md")]

mod check;
/// What a log's clock is and its UTC instants (see [`logcore::clock`]).
pub use logcore::clock;
#[cfg(feature = "mcap")]
pub mod convert;
#[cfg(feature = "mcap")]
pub mod encode;
pub mod export;
pub mod info;
mod lenient;
mod log;
pub mod names;
mod open;
mod probe;
pub mod registry;
mod text;
pub mod write;

use std::path::Path;

pub use check::{CheckOptions, Checked, StrictCheck, check, check_path, check_strict};
pub use lenient::{DecodeFailures, LenientDecoder};
pub use log::{FormatReader, Log, RELEASE_EVERY};
pub use logcore::{
    ChannelId, ChannelInfo, Error, FileBytes, Format, LogReader, Message, MessageFilter, ReadMode,
    Summary, Timestamp, Value,
};
pub use open::{OpenOptions, detect, probe_folder};
pub use probe::{PROBE_LEN, probe};
pub use registry::{Decoder, DecoderFactory, Registry};
pub use text::render_text;

/// Opens the log at `path` with the default [`OpenOptions`]: maps the
/// file, recognises its format and builds its reader (see
/// [`OpenOptions::open`]).
///
/// ```no_run
/// use robolog::LogReader;
/// let log = robolog::open("run.bag")?;
/// println!("{} channels", log.channels()?.len());
/// # Ok::<(), robolog::Error>(())
/// ```
pub fn open(path: impl AsRef<Path>) -> Result<Log<'static>, Error> {
    OpenOptions::new().open(path)
}

/// Like [`open`], over bytes already in memory (borrowed, not copied).
///
/// ```
/// let err = robolog::open_bytes(b"hello world").unwrap_err();
/// assert!(matches!(err, robolog::Error::UnknownFormat { .. }));
/// assert_eq!(err.offset(), Some(0));
/// ```
pub fn open_bytes(bytes: &[u8]) -> Result<Log<'_>, Error> {
    OpenOptions::new().open_bytes(bytes)
}

// Resource limits applied by the format readers `OpenOptions` builds,
// against hostile or oversized files (the same type as
// `mcapfile::Limits` and `rosbag12::Limits`).
pub use logcore::limits::{DEFAULT_MAX_CHUNK_SIZE, Limits, MAX_NESTING_CEILING};
