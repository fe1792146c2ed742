//! [`Limits`]: the bounds the format readers put on what a file can make
//! them allocate, in one place, with documented defaults a caller can
//! raise. The format crates and the `robolog` facade re-export these
//! (`mcapfile::Limits`, `rosbag12::Limits`, `robolog::Limits`).

use crate::error::Error;

/// Default for [`Limits::max_chunk_size`]: 512 MiB.
pub const DEFAULT_MAX_CHUNK_SIZE: u64 = 512 << 20;

/// Resource limits of the readers against hostile or oversized files.
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
/// ```
/// let limits = logcore::Limits::default();
/// assert_eq!(limits.max_chunk_size, 512 << 20);
/// let raised = logcore::Limits { max_chunk_size: 4 << 30 };
/// assert_eq!(limits.with_max_chunk_size(4 << 30), raised);
/// assert!(raised.check_chunk(0, 4u64 << 30).is_ok());
/// let e = limits.check_chunk(7, 600u32 << 20).unwrap_err();
/// assert_eq!(e.offset(), Some(7));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest declared uncompressed size of a chunk that is decompressed,
    /// in bytes; a chunk declaring more is an error naming its offset, its
    /// size and this limit. Default [`DEFAULT_MAX_CHUNK_SIZE`] (512 MiB);
    /// the `robolog` command's `--max-chunk-size` sets it.
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

    /// These limits with [`max_chunk_size`](Self::max_chunk_size) set to `bytes`.
    pub fn with_max_chunk_size(mut self, bytes: u64) -> Self {
        self.max_chunk_size = bytes;
        self
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_refusal_text() {
        assert_eq!(Limits::default().max_chunk_size, 512 << 20);
        assert_eq!(Limits::UNLIMITED.max_chunk_size, u64::MAX);
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
}
