//! Getting a file's bytes into memory: memory-mapped where possible.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

/// The bytes of an opened file: a read-only memory map, or an owned buffer
/// when the file cannot be mapped (pipes, empty files, some special files).
///
/// ```no_run
/// let bytes = logcore::FileBytes::open("log.vel").unwrap();
/// println!("{} bytes", bytes.len());
/// ```
#[derive(Debug)]
pub enum FileBytes {
    /// Memory-mapped file.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory.
    Owned(Vec<u8>),
}

impl FileBytes {
    /// Opens and maps `path`; falls back to reading it when mapping fails.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            if let Ok(map) = map_file(&file) {
                return Ok(FileBytes::Mapped(map));
            }
        }
        let mut buf = Vec::new();
        (&file).read_to_end(&mut buf)?;
        Ok(FileBytes::Owned(buf))
    }
}

/// The one place the toolkit uses `unsafe`.
#[allow(unsafe_code)]
fn map_file(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only. If another process truncates or rewrites
    // the file while it is mapped, reads may see changed bytes or fault;
    // this is the documented limitation of memory-mapped I/O, which every
    // parser here tolerates for changed bytes (they are validated as
    // untrusted input anyway).
    unsafe { memmap2::Mmap::map(file) }
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Owned(v) => v,
        }
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}
