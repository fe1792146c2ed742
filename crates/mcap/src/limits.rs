//! [`Limits`]: the bounds the readers put on what a file can make them
//! allocate, in one place, with documented defaults a caller can raise.

/// Default for [`Limits::max_chunk_size`]: 512 MiB.
pub const DEFAULT_MAX_CHUNK_SIZE: u64 = 512 << 20;

/// Resource limits of the readers against hostile or oversized files.
///
/// A Chunk record declares its uncompressed size; a chunk declaring more
/// than [`max_chunk_size`](Self::max_chunk_size) is refused before
/// anything is allocated for it, with an error naming the chunk's offset,
/// its declared size and the limit. Chunks are decompressed whole, so
/// peak memory is about the file's mapping plus the largest chunk.
///
/// ```
/// let limits = mcapfile::Limits::default();
/// assert_eq!(limits.max_chunk_size, 512 << 20);
/// let raised = mcapfile::Limits { max_chunk_size: 4 << 30 };
/// let opts = mcapfile::ReadOptions { limits: raised, ..Default::default() };
/// assert_eq!(opts.limits.max_chunk_size, 4 << 30);
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
}

/// The error for a chunk at `offset` declaring `declared` uncompressed
/// bytes, more than `limit`.
pub(crate) fn chunk_too_large(offset: u64, declared: u64, limit: u64) -> crate::Error {
    crate::Error::malformed(
        offset,
        format!(
            "a chunk of at most {limit} uncompressed bytes (the reader's limit; \
             raise it with `--max-chunk-size` or `Limits::max_chunk_size`)"
        ),
        format!("a chunk declaring {declared} uncompressed bytes"),
    )
}
