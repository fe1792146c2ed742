//! [`convert_file`]: a conversion written to a file, safely, the output's
//! extension choosing its format.

use std::fmt;
use std::path::{Path, PathBuf};

use logcore::Error;

use super::{ConvertOptions, ConvertStats, Progress, to_bag, to_mcap};
use crate::Log;
use crate::write::{OutputPolicy, Refusal, WriteError, write_atomically};

/// The format a conversion writes, chosen by the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An MCAP file (`.mcap`).
    Mcap,
    /// A ROS 1 bag (`.bag`).
    Bag,
}

impl Target {
    /// The target of an output at `path`: `.mcap` or `.bag` (in any case),
    /// `None` for any other extension.
    ///
    /// ```
    /// use robolog::convert::Target;
    /// assert_eq!(Target::of("run.MCAP".as_ref()), Some(Target::Mcap));
    /// assert_eq!(Target::of("run.bag".as_ref()), Some(Target::Bag));
    /// assert_eq!(Target::of("run.db3".as_ref()), None);
    /// ```
    pub fn of(path: &Path) -> Option<Target> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        match ext.as_str() {
            "mcap" => Some(Target::Mcap),
            "bag" => Some(Target::Bag),
            _ => None,
        }
    }
}

/// Why [`convert_file`] wrote nothing.
#[derive(Debug)]
pub enum ConvertFileError {
    /// The output's extension chooses no format (`.mcap` or `.bag`).
    Target(PathBuf),
    /// The output was refused before anything was written: it exists
    /// (and replacing it was not asked for), or it is the input.
    Refused(Refusal),
    /// Reading or converting the input failed (the error describes the
    /// input's bytes).
    Convert(Error),
    /// Creating, writing or renaming the output failed.
    Io(std::io::Error),
}

impl fmt::Display for ConvertFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConvertFileError::Target(p) => write!(
                f,
                "{}: the output's extension chooses its format: end it in .mcap or .bag",
                p.display()
            ),
            ConvertFileError::Refused(r) => r.fmt(f),
            ConvertFileError::Convert(e) => e.fmt(f),
            ConvertFileError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConvertFileError {}

/// Converts `log`, read from `input`, into the file `output` (MCAP or a
/// ROS 1 bag, by its extension: see [`Target`]), through a temporary file
/// renamed into place only when complete: an output that exists is
/// refused unless `force`, the input always. `opts` as for [`to_mcap`]
/// and [`to_bag`] (bags know no zstd: zstd, the MCAP default, means
/// uncompressed chunks for a bag, as [`ConvertOptions::for_bag`] has).
///
/// ```
/// use robolog::convert::{ConvertOptions, convert_file};
/// let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag").as_ref();
/// let dir = std::env::temp_dir().join(format!("robolog-doc-convert-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let log = robolog::open(input)?;
/// let out = dir.join("sample.mcap");
/// let stats = convert_file(&log, input, &out, &ConvertOptions::default(), false, &mut |_| {})?;
/// assert_eq!(stats.messages, 75); // as `robolog info` counts them
/// // It exists now: refused without force.
/// assert!(convert_file(&log, input, &out, &ConvertOptions::default(), false, &mut |_| {}).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_file(
    log: &Log<'_>,
    input: &Path,
    output: &Path,
    opts: &ConvertOptions,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    let target = Target::of(output).ok_or_else(|| ConvertFileError::Target(output.into()))?;
    let mut opts = opts.clone();
    if target == Target::Bag && opts.compression == mcapfile::Compression::Zstd {
        opts.compression = mcapfile::Compression::None;
    }
    let policy = OutputPolicy::new(force).reading(input);
    let written = write_atomically(output, &policy, |f| match target {
        Target::Mcap => to_mcap(log, f, &opts, progress).map(|(_, s)| s),
        Target::Bag => to_bag(log, f, &opts, progress).map(|(_, s)| s),
    });
    written.map_err(|e| match e {
        WriteError::Refused(r) => ConvertFileError::Refused(r),
        WriteError::Io(e) => ConvertFileError::Io(e),
        WriteError::Write(Error::Io(e)) => {
            ConvertFileError::Io(std::io::Error::new(e.kind(), e.to_string()))
        }
        WriteError::Write(e) => ConvertFileError::Convert(e),
    })
}
