//! [`Limits`]: the bounds the format readers put on what a file can make
//! them allocate, in one place, with documented defaults a caller can
//! raise. The format crates and the `robolog` facade re-export these
//! (`mcapfile::Limits`, `rosbag12::Limits`, `robolog::Limits`).

use crate::error::Error;

/// Default for [`Limits::max_chunk_size`]: 512 MiB.
pub const DEFAULT_MAX_CHUNK_SIZE: u64 = 512 << 20;

/// Default for [`Limits::max_bag_expansion`]: 4 GiB.
pub const DEFAULT_MAX_BAG_EXPANSION: u64 = 4 << 30;

/// The highest nesting limit a reader applies, whatever
/// [`Limits::max_nesting`] asks for: the parsers and decoders recurse once
/// per level, and this many levels fit the 2 MiB stack of a spawned
/// thread even in an unoptimized build (which takes several KiB per
/// level). A larger setting is clamped to it (see [`Limits::nesting_or`]).
pub const MAX_NESTING_CEILING: usize = 128;

/// Resource limits of the readers against hostile or oversized files.
///
/// The struct is `#[non_exhaustive]`: build it from [`Limits::default`]
/// (or [`Limits::UNLIMITED`]) and the `with_*` builders, so that a later
/// limit does not break your code.
///
/// A compressed chunk (MCAP zstd/lz4, bag bz2/lz4) declares its
/// uncompressed size; a chunk declaring more than
/// [`max_chunk_size`](Self::max_chunk_size) is refused before anything is
/// allocated for it, with an error naming the chunk's offset, its declared
/// size and the limit. Chunks up to 32 MiB are decompressed whole; larger
/// ones are decompressed incrementally where the reader's order allows it
/// (`mcapfile::chunk::STREAM_CHUNK_ABOVE` and
/// `rosbag12::STREAM_CHUNK_ABOVE` say which readers), so peak memory is
/// about the file's mapping plus the largest chunk read whole.
///
/// The parsers of message definitions and schemas and the decoders of
/// their messages recurse once per level of nested types;
/// [`max_nesting`](Self::max_nesting) bounds how deep, so a hostile
/// definition (a chain of thousands of types) is an error naming the
/// limit instead of a stack overflow. Each format has its own documented
/// default, used while the field is `None`:
///
/// | format | default |
/// |---|---|
/// | ROS 1 `.msg` definitions (`rosbag12::msg::MAX_NESTING`) | 64 |
/// | ROS 2 `.msg`/IDL definitions (`ros2cdr::msg::MAX_NESTING`) | 64 |
/// | protobuf descriptors and messages (`osi_mcap::proto::MAX_NESTING`) | 100 |
/// | ULog nested formats (`ulogfile::format::MAX_NESTING`) | 32 |
///
/// ```
/// let limits = logcore::Limits::default();
/// assert_eq!(limits.max_chunk_size, 512 << 20);
/// assert_eq!(limits.max_nesting, None);
/// assert_eq!(limits.nesting_or(64), 64);
/// let raised = limits.with_max_chunk_size(4 << 30).with_max_nesting(100);
/// assert_eq!(raised.max_chunk_size, 4 << 30);
/// assert_eq!(raised.nesting_or(64), 100);
/// assert!(raised.check_chunk(0, 4u64 << 30).is_ok());
/// let e = limits.check_chunk(7, 600u32 << 20).unwrap_err();
/// assert_eq!(e.offset(), Some(7));
/// // Past the stack's reach, a nesting limit is clamped.
/// let absurd = limits.with_max_nesting(1 << 40);
/// assert_eq!(absurd.nesting_or(64), logcore::limits::MAX_NESTING_CEILING);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest declared uncompressed size of a chunk that is decompressed,
    /// in bytes; a chunk declaring more is an error naming its offset, its
    /// size and this limit. Default [`DEFAULT_MAX_CHUNK_SIZE`] (512 MiB);
    /// the `robolog` command's `--max-chunk-size` sets it.
    pub max_chunk_size: u64,
    /// Deepest nesting of message types (counting the top-level type as
    /// one level) that a definition or schema may have and that the
    /// decoders follow; deeper is an error naming the limit. `None` (the
    /// default): each format's documented default (see the table above).
    /// A setting above [`MAX_NESTING_CEILING`] is clamped to it, and 0 is
    /// read as 1. Raising it lets the recursion go deeper, so uses more
    /// stack. The `robolog` command's `--max-nesting` sets it.
    pub max_nesting: Option<usize>,
    /// Most bytes the storage files of one ROS 2 bag may expand to, all
    /// together: the decompressed bytes of its zstd `FILE`-compressed
    /// files (`.db3.zstd` decompressed to the temporary folder,
    /// `.mcap.zstd` into memory) and the copies of databases read with
    /// their `-wal` or `-journal` (the database and its log, copied to
    /// the temporary folder). A bag needing more is refused with an error
    /// naming the file, this limit and how to raise it, before anything
    /// is decompressed or copied where the files declare their sizes.
    /// Default [`DEFAULT_MAX_BAG_EXPANSION`] (4 GiB); the `robolog`
    /// command's `--max-bag-expansion` sets it.
    pub max_bag_expansion: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_chunk_size: DEFAULT_MAX_CHUNK_SIZE,
            max_nesting: None,
            max_bag_expansion: DEFAULT_MAX_BAG_EXPANSION,
        }
    }
}

impl Limits {
    /// No chunk size or bag expansion limit (every declared size is decompressed; for
    /// trusted files). Nesting keeps each format's default: the recursion
    /// must stay within the stack whatever the file.
    pub const UNLIMITED: Limits = Limits {
        max_chunk_size: u64::MAX,
        max_nesting: None,
        max_bag_expansion: u64::MAX,
    };

    /// These limits with [`max_chunk_size`](Self::max_chunk_size) set to `bytes`.
    pub fn with_max_chunk_size(mut self, bytes: u64) -> Self {
        self.max_chunk_size = bytes;
        self
    }

    /// These limits with [`max_bag_expansion`](Self::max_bag_expansion)
    /// set to `bytes`.
    pub fn with_max_bag_expansion(mut self, bytes: u64) -> Self {
        self.max_bag_expansion = bytes;
        self
    }

    /// These limits with [`max_nesting`](Self::max_nesting) set to `levels`.
    pub fn with_max_nesting(mut self, levels: usize) -> Self {
        self.max_nesting = Some(levels);
        self
    }

    /// The nesting limit a format whose documented default is `default`
    /// applies: [`max_nesting`](Self::max_nesting) when set, else
    /// `default`, clamped to `1..=`[`MAX_NESTING_CEILING`].
    pub fn nesting_or(&self, default: usize) -> usize {
        self.max_nesting
            .unwrap_or(default)
            .clamp(1, MAX_NESTING_CEILING)
    }

    /// `Ok` when a chunk at `offset` declaring `declared` uncompressed
    /// bytes may be decompressed, else the error that names them and the
    /// limit (see [`chunk_too_large`]).
    pub fn check_chunk(&self, offset: u64, declared: impl Into<u64>) -> Result<(), Error> {
        let declared = declared.into();
        if declared <= self.max_chunk_size {
            return Ok(());
        }
        Err(chunk_too_large(offset, declared, self.max_chunk_size))
    }
}

/// How a nesting error names the limit and says how to raise it:
/// `at most {limit} levels deep (the reader's limit; raise it with
/// `--max-nesting` or `Limits::max_nesting`)`, for the format crates to
/// put in their own errors.
///
/// ```
/// assert_eq!(
///     logcore::limits::nesting_limit(64),
///     "at most 64 levels deep (the reader's limit; raise it with \
///      `--max-nesting` or `Limits::max_nesting`)"
/// );
/// ```
pub fn nesting_limit(limit: usize) -> String {
    format!(
        "at most {limit} levels deep (the reader's limit; raise it with \
         `--max-nesting` or `Limits::max_nesting`)"
    )
}

/// The error for a chunk at `offset` declaring `declared` uncompressed
/// bytes, more than `limit`.
///
/// ```
/// let e = logcore::limits::chunk_too_large(64, 100, 10);
/// assert_eq!(e.offset(), Some(64));
/// ```
pub fn chunk_too_large(offset: u64, declared: u64, limit: u64) -> Error {
    Error::malformed(
        offset,
        format!(
            "a chunk of at most {limit} uncompressed bytes (the reader's limit; \
             raise it with `--max-chunk-size` or `Limits::max_chunk_size`)"
        ),
        format!("a chunk declaring {declared} uncompressed bytes"),
    )
}

/// A per-thread override of the streaming threshold of the format readers
/// (`mcapfile::chunk::STREAM_CHUNK_ABOVE`, `rosbag12::STREAM_CHUNK_ABOVE`)
/// for those crates' own tests, which lower it to reach the incremental
/// path with small chunks. The readers consult it only in their test
/// builds: elsewhere their constant is the threshold, and this is not
/// part of the public API.
#[doc(hidden)]
pub mod stream_override {
    use std::cell::Cell;

    thread_local! {
        /// The override in force on this thread, if any.
        static ABOVE: Cell<Option<u64>> = const { Cell::new(None) };
    }

    /// Sets the threshold of readers used on this thread to `bytes`
    /// bytes; `None` restores each reader's own default.
    pub fn set(bytes: Option<u64>) {
        ABOVE.with(|c| c.set(bytes));
    }

    /// The threshold in force on this thread: the one [`set`] on it,
    /// else `default` (the reader's constant).
    pub fn above(default: u64) -> u64 {
        ABOVE.with(Cell::get).unwrap_or(default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_refusal_text() {
        assert_eq!(Limits::default().max_chunk_size, 512 << 20);
        assert_eq!(Limits::UNLIMITED.max_chunk_size, u64::MAX);
        assert_eq!(Limits::UNLIMITED.max_nesting, None);
        let small = Limits::default().with_max_chunk_size(100);
        assert!(small.check_chunk(0, 100u64).is_ok());
        let e = small.check_chunk(42, 101u32).unwrap_err();
        assert_eq!(e.to_string(), chunk_too_large(42, 101, 100).to_string());
        assert!(e.to_string().contains(
            "a chunk of at most 100 uncompressed bytes (the reader's limit; raise it with \
             `--max-chunk-size` or `Limits::max_chunk_size`)"
        ));
        assert!(
            e.to_string()
                .contains("a chunk declaring 101 uncompressed bytes")
        );
    }

    #[test]
    fn stream_override_is_per_thread() {
        assert_eq!(stream_override::above(1 << 25), 1 << 25);
        stream_override::set(Some(1 << 10));
        assert_eq!(stream_override::above(1 << 25), 1 << 10);
        let other = std::thread::spawn(|| stream_override::above(1 << 25));
        assert_eq!(other.join().unwrap(), 1 << 25);
        stream_override::set(None);
        assert_eq!(stream_override::above(7), 7);
    }

    #[test]
    fn nesting_defaults_overrides_and_clamps() {
        let d = Limits::default();
        assert_eq!(d.max_nesting, None);
        assert_eq!(d.nesting_or(64), 64);
        assert_eq!(d.nesting_or(32), 32);
        let l = d.with_max_nesting(7);
        assert_eq!(l.max_nesting, Some(7));
        assert_eq!(l.nesting_or(64), 7);
        assert_eq!(l.max_chunk_size, DEFAULT_MAX_CHUNK_SIZE);
        assert_eq!(d.with_max_nesting(0).nesting_or(64), 1);
        assert_eq!(MAX_NESTING_CEILING, 128);
        assert_eq!(d.with_max_nesting(128).nesting_or(64), 128);
        assert_eq!(d.with_max_nesting(129).nesting_or(64), 128);
        assert_eq!(d.with_max_nesting(usize::MAX).nesting_or(64), 128);
        assert_eq!(
            nesting_limit(3),
            "at most 3 levels deep (the reader's limit; raise it with `--max-nesting` or \
             `Limits::max_nesting`)"
        );
    }
}
