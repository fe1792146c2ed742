//! [`Limits`]: the bounds the reader puts on what a bag can make it
//! allocate, in one place, with documented defaults a caller can raise.

use crate::error::{Error, FormatError};

/// Default for [`Limits::max_chunk_size`]: 512 MiB.
pub const DEFAULT_MAX_CHUNK_SIZE: u64 = 512 << 20;

/// Resource limits of [`Bag`](crate::Bag) against hostile or oversized
/// files.
///
/// A compressed chunk (bz2, lz4) declares its uncompressed `size` (up to
/// 4 GiB); a chunk declaring more than
/// [`max_chunk_size`](Self::max_chunk_size) is refused before anything is
/// allocated for it, with an error naming the chunk's offset, its declared
/// size and the limit. Message definitions nest at most
/// [`msg::MAX_NESTING`](crate::msg::MAX_NESTING) levels.
///
/// ```
/// let limits = rosbag12::Limits::default();
/// assert_eq!(limits.max_chunk_size, 512 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest declared uncompressed size of a chunk that is decompressed
    /// (bytes; default [`DEFAULT_MAX_CHUNK_SIZE`], 512 MiB).
    pub max_chunk_size: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_chunk_size: DEFAULT_MAX_CHUNK_SIZE,
        }
    }
}

impl Limits {
    /// No limit (every declared size is decompressed; for trusted files).
    pub const UNLIMITED: Limits = Limits {
        max_chunk_size: u64::MAX,
    };

    /// `Ok` when a chunk at `offset` declaring `declared` uncompressed
    /// bytes may be decompressed, else the error that names them and the
    /// limit.
    pub fn check_chunk(&self, offset: u64, declared: u32) -> Result<(), Error> {
        let limit = self.max_chunk_size;
        if u64::from(declared) <= limit {
            return Ok(());
        }
        Err(Error::malformed(
            offset,
            format!(
                "a chunk of at most {limit} uncompressed bytes (the reader's limit; \
                 raise it with `--max-chunk-size` or `Limits::max_chunk_size`)"
            ),
            format!("a chunk declaring {declared} uncompressed bytes"),
        ))
    }
}
