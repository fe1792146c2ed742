//! Opening a log: [`OpenOptions`], and its shortcuts [`open`](crate::open)
//! and [`open_bytes`](crate::open_bytes).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use logcore::{Error, FileBytes, Format};

use crate::log::{self, Log};
use crate::probe::{PROBE_LEN, probe};
use crate::{Limits, Registry};

/// Which message types a reader keeps (see [`OpenOptions::select`]).
type Selection = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// How to open a log: the resource limits, the one format a tool reads
/// (if any), the message types it wants, and the decoder registry. Built
/// with its setters, then [`OpenOptions::open`] for a file or
/// [`OpenOptions::open_bytes`] for bytes in memory.
///
/// ```no_run
/// use robolog::{Format, Limits, OpenOptions};
/// let log = OpenOptions::new()
///     .limits(Limits::default().with_max_chunk_size(2 << 30))
///     .format(Format::Mcap)
///     .open("big.mcap")?;
/// # Ok::<(), robolog::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct OpenOptions {
    limits: Limits,
    format: Option<Format>,
    select: Option<Selection>,
    registry: Option<Arc<Registry>>,
}

impl fmt::Debug for OpenOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenOptions")
            .field("limits", &self.limits)
            .field("format", &self.format)
            .field("select", &self.select.is_some())
            .field("registry", &self.registry.is_some())
            .finish()
    }
}

impl OpenOptions {
    /// The defaults: default [`Limits`], any format, every message type,
    /// the built-in decoders.
    pub fn new() -> Self {
        Self::default()
    }

    /// Resource [`Limits`] other than the defaults (for example a larger
    /// decompressed chunk for a trusted file, or message types nested
    /// deeper than a format's default). The format's reader and the log's
    /// decoder [`Registry`] apply them.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// For a tool that reads one format only: a file of another format is
    /// refused before its reader is built, with the error every tool gives
    /// (`at byte 0: expected an MCAP file, found a ROS 1 bag`).
    ///
    /// ```
    /// let bag = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag"))?;
    /// let err = robolog::OpenOptions::new()
    ///     .format(robolog::Format::Mcap)
    ///     .open_bytes(&bag)
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), "at byte 0: expected an MCAP file, found a ROS 1 bag");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }

    /// For a reader that wants the channels of some message types only (a
    /// query naming a few tables of many logs): a ULog indexes only the
    /// samples of the subscriptions whose format name `keep` accepts,
    /// keeps no parameters, and leaves its other channels out of its
    /// summary (see [`ulogfile::ULog::parse_selected`]), which costs much
    /// less memory and time than a full read. The other formats index
    /// lazily anyway, and open as without a selection.
    ///
    /// ```no_run
    /// use robolog::LogReader;
    /// let log = robolog::OpenOptions::new()
    ///     .select(|name| name == "vehicle_global_position")
    ///     .open("flight.ulg")?;
    /// // The selected channels (and the GPS ones, which anchor the clock).
    /// for c in log.summary()?.channels {
    ///     println!("{}: {} messages", c.info.topic, c.message_count);
    /// }
    /// # Ok::<(), robolog::Error>(())
    /// ```
    pub fn select(mut self, keep: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        self.select = Some(Arc::new(keep));
        self
    }

    /// Decodes with `registry` instead of the built-in decoders (for
    /// example the default registry with a decoder of your own added). Its
    /// built-in decoders apply the registry's own limits
    /// ([`Registry::with_limits`]), not [`OpenOptions::limits`].
    pub fn registry(mut self, registry: impl Into<Arc<Registry>>) -> Self {
        self.registry = Some(registry.into());
        self
    }

    /// The limits set (the defaults unless [`OpenOptions::limits`] was
    /// called).
    pub fn get_limits(&self) -> Limits {
        self.limits
    }

    /// Opens the log at `path`: maps the file, recognises its format and
    /// builds its reader (which reads the header and, where the format has
    /// one, the index; messages are read when iterated).
    ///
    /// Errors: I/O errors, [`Error::UnknownFormat`] when no format of this
    /// build recognises the first bytes, [`Error::Unsupported`] for a
    /// recognised format in a version this build cannot read, the error of
    /// [`OpenOptions::format`] for a file of another format, and the
    /// format's parse errors (with byte offsets) when its header is
    /// damaged.
    pub fn open(&self, path: impl AsRef<Path>) -> Result<Log<'static>, Error> {
        let path = path.as_ref();
        #[cfg(feature = "rosbag2")]
        if is_rosbag2(path)? {
            if let Some(wanted) = self.format {
                log::expect_format(Format::Rosbag2, wanted)?;
            }
            return Ok(self.with_registry(Log::rosbag2(path, &self.limits)?));
        }
        let bytes = FileBytes::open(path)?;
        let format = self.detect(&bytes)?;
        let log = Log::owned(format, bytes, &self.limits, self.keep())?;
        Ok(self.with_registry(log))
    }

    /// [`OpenOptions::open`] over bytes already in memory (borrowed, not
    /// copied).
    pub fn open_bytes<'a>(&self, bytes: &'a [u8]) -> Result<Log<'a>, Error> {
        let format = self.detect(bytes)?;
        let log = Log::borrowed(format, bytes, &self.limits, self.keep())?;
        Ok(self.with_registry(log))
    }

    /// The format of `bytes`, checked against the one expected.
    fn detect(&self, bytes: &[u8]) -> Result<Format, Error> {
        let found = detect(bytes)?;
        match self.format {
            Some(wanted) => log::expect_format(found, wanted).map(|()| wanted),
            None => Ok(found),
        }
    }

    fn keep(&self) -> Option<&dyn Fn(&str) -> bool> {
        self.select.as_deref().map(|k| k as &dyn Fn(&str) -> bool)
    }

    fn with_registry<'a>(&self, log: Log<'a>) -> Log<'a> {
        match &self.registry {
            Some(r) => log.with_registry(Arc::clone(r)),
            None => log,
        }
    }
}

/// Whether `path` is a ROS 2 bag read from its files: a folder (see
/// [`probe_folder`]), a `metadata.yaml`, or a file whose first bytes are
/// SQLite's (a lone `.db3`).
#[cfg(feature = "rosbag2")]
pub(crate) fn is_rosbag2(path: &Path) -> Result<bool, Error> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        // Any other folder is refused as every input that is no regular
        // file is.
        return Ok(probe_folder(path).is_some());
    }
    if !meta.is_file() {
        return Ok(false);
    }
    if path.file_name().is_some_and(|n| n == "metadata.yaml") {
        return Ok(true);
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head))?;
    Ok(probe(&head[..n]) == Some(Format::Rosbag2))
}

/// The format of the log that the folder `dir` is, if any: a ROS 2 bag
/// when it holds a `metadata.yaml` (`rosbag2::probe_folder`; in any
/// form: one that is not a regular file is refused by the reader as what
/// it is). None in a build without the `rosbag2` feature.
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata");
/// assert_eq!(robolog::probe_folder(std::path::Path::new(dir)), None);
/// ```
pub fn probe_folder(dir: &Path) -> Option<Format> {
    #[cfg(feature = "rosbag2")]
    if rosbag2::probe_folder(dir) {
        return Some(Format::Rosbag2);
    }
    #[cfg(not(feature = "rosbag2"))]
    let _ = dir;
    None
}

/// The format of a log whose bytes (at least its first
/// [`PROBE_LEN`](crate::PROBE_LEN)) are `bytes`, or the error naming what
/// was found instead ([`Error::UnknownFormat`], at byte 0).
///
/// ```
/// assert_eq!(robolog::detect(b"\x89MCAP0\r\n").unwrap(), robolog::Format::Mcap);
/// assert_eq!(robolog::detect(b"hello").unwrap_err().offset(), Some(0));
/// ```
pub fn detect(bytes: &[u8]) -> Result<Format, Error> {
    let head = &bytes[..bytes.len().min(PROBE_LEN)];
    probe(head).ok_or_else(|| Error::UnknownFormat {
        found: logcore::error::hex_preview(head),
    })
}
