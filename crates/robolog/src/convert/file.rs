//! [`convert_file`]: a conversion written to a file (or a ROS 2 bag
//! folder), safely, the output's extension choosing its format;
//! [`convert_file_to`] for a target chosen otherwise.

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
    /// A ROS 2 bag: a rosbag2 folder of `metadata.yaml` and one storage
    /// file (an output without extension), with a version 9
    /// `metadata.yaml`; [`convert_file_to`] says from which inputs.
    Rosbag2 {
        /// The storage plugin of the bag.
        storage: Storage,
        /// Whether the storage file is zstd-compressed once complete
        /// (`compression_mode: FILE`, as `ros2 bag record
        /// --compression-mode file --compression-format zstd`).
        zstd: bool,
    },
}

/// The storage plugin of a [`Target::Rosbag2`] bag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Storage {
    /// SQLite (`.db3`, `storage_identifier: sqlite3`), what `ros2 bag
    /// record` writes by default up to ROS 2 Humble and what a folder
    /// output gets unless told otherwise.
    #[default]
    Sqlite3,
    /// MCAP (`.mcap`, `storage_identifier: mcap`).
    Mcap,
}

impl Target {
    /// The target of an output at `path`: `.mcap` or `.bag` (in any case),
    /// a ROS 2 bag folder with SQLite storage for a path without
    /// extension, `None` for any other extension.
    ///
    /// ```
    /// use robolog::convert::{Storage, Target};
    /// assert_eq!(Target::of("run.MCAP".as_ref()), Some(Target::Mcap));
    /// assert_eq!(Target::of("run.bag".as_ref()), Some(Target::Bag));
    /// assert_eq!(
    ///     Target::of("out/run".as_ref()),
    ///     Some(Target::Rosbag2 { storage: Storage::Sqlite3, zstd: false })
    /// );
    /// assert_eq!(Target::of("run.db3".as_ref()), None);
    /// ```
    pub fn of(path: &Path) -> Option<Target> {
        let Some(ext) = path.extension() else {
            return Some(Target::Rosbag2 {
                storage: Storage::Sqlite3,
                zstd: false,
            });
        };
        let ext = ext.to_string_lossy().to_ascii_lowercase();
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
    /// The output's extension chooses no format (`.mcap`, `.bag`, or
    /// none for a ROS 2 bag folder).
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
                "{}: the output's extension chooses its format: end it in .mcap or .bag, \
                 or give a folder name without extension for a ROS 2 bag",
                p.display()
            ),
            ConvertFileError::Refused(r) => r.fmt(f),
            ConvertFileError::Convert(e) => e.fmt(f),
            ConvertFileError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ConvertFileError {}

/// Converts `log`, read from `input`, into the file `output` (MCAP, a
/// ROS 1 bag or a ROS 2 bag folder, by its extension: see
/// [`Target::of`]), through a temporary file (or folder) renamed into
/// place only when complete: an output that exists is refused unless
/// `force`, the input always. `opts` as for [`to_mcap`] and [`to_bag`]
/// (bags know no zstd: zstd, the MCAP default, means uncompressed chunks
/// for a bag, as [`ConvertOptions::for_bag`] has; a ROS 2 bag folder
/// takes the topic and time filters only).
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
    convert_file_to(log, input, output, target, opts, force, progress)
}

/// [`convert_file`] writing `target` whatever the output's name: a
/// [`Target::Rosbag2`] folder of another storage or compressed, or a
/// folder whose name has a dot.
///
/// A ROS 2 bag is written from a ROS 1 bag (mapped and re-encoded as
/// with [`ConvertOptions::ros2`]), a ROS 2 bag (its topics and message
/// bytes copied into the chosen storage) or a ROS 2 MCAP file (its `cdr`
/// channels; any other is refused, naming it). The input must not lie in
/// the output folder.
pub fn convert_file_to(
    log: &Log<'_>,
    input: &Path,
    output: &Path,
    target: Target,
    opts: &ConvertOptions,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    let bag = match target {
        Target::Mcap => false,
        Target::Bag => true,
        Target::Rosbag2 { storage, zstd } => {
            let folder = super::to_rosbag2::Folder {
                input,
                output,
                storage,
                zstd,
                force,
                filter: None,
            };
            return folder.write(log, opts, progress);
        }
    };
    let mut opts = opts.clone();
    if bag && opts.compression == mcapfile::Compression::Zstd {
        opts.compression = mcapfile::Compression::None;
    }
    let policy = OutputPolicy::new(force).reading(input);
    let written = write_atomically(output, &policy, |f| {
        if bag {
            to_bag(log, f, &opts, progress).map(|(_, s)| s)
        } else {
            to_mcap(log, f, &opts, progress).map(|(_, s)| s)
        }
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
