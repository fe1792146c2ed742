//! Getting a file's bytes into memory: memory-mapped where possible.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

/// The bytes of an opened file: a read-only memory map, or an owned buffer
/// when a regular file cannot be mapped (empty files, some file systems).
///
/// Only regular files (or symbolic links to them) are read: a device such
/// as `/dev/zero` would be read until memory runs out and a FIFO without a
/// writer would block forever, so those, sockets and directories are
/// refused before they are opened.
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
    ///
    /// Fails with an [`InvalidInput`](std::io::ErrorKind::InvalidInput)
    /// error such as `is a FIFO, not a regular file` when `path` is not a
    /// regular file: its type is checked before the file is opened, since
    /// opening a FIFO blocks until a writer appears.
    ///
    /// ```
    /// let e = logcore::FileBytes::open(std::env::temp_dir()).unwrap_err();
    /// assert_eq!(e.to_string(), "is a directory, not a regular file");
    /// ```
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref();
        regular_file(&std::fs::metadata(path)?)?;
        let file = File::open(path)?;
        // The path may have been replaced between the check and the open.
        let meta = file.metadata()?;
        regular_file(&meta)?;
        if meta.len() > 0 {
            if let Ok(map) = map_file(&file) {
                return Ok(FileBytes::Mapped(map));
            }
        }
        let mut buf = Vec::new();
        (&file).read_to_end(&mut buf)?;
        Ok(FileBytes::Owned(buf))
    }
}

/// Fails unless `meta` is that of a regular file, naming what it is.
fn regular_file(meta: &std::fs::Metadata) -> std::io::Result<()> {
    let ty = meta.file_type();
    if ty.is_file() {
        return Ok(());
    }
    let what = if ty.is_dir() {
        "a directory"
    } else {
        special_kind(&ty)
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("is {what}, not a regular file"),
    ))
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(unix)]
fn special_kind(ty: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ty.is_fifo() {
        "a FIFO"
    } else if ty.is_char_device() {
        "a character device"
    } else if ty.is_block_device() {
        "a block device"
    } else if ty.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Opens `path` on another thread and waits at most ten seconds, so a
    /// blocking open fails the test instead of hanging it.
    fn open_within_seconds(path: PathBuf) -> std::io::Result<FileBytes> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(FileBytes::open(path));
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("FileBytes::open returned within ten seconds")
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("logcore-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    fn refusal(r: std::io::Result<FileBytes>) -> (std::io::ErrorKind, String) {
        let e = r.unwrap_err();
        (e.kind(), e.to_string())
    }

    #[cfg(unix)]
    #[test]
    fn a_character_device_is_refused() {
        assert_eq!(
            refusal(open_within_seconds("/dev/zero".into())),
            (
                std::io::ErrorKind::InvalidInput,
                "is a character device, not a regular file".into()
            )
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_without_a_writer_is_refused() {
        let fifo = scratch("fifo");
        let _ = std::fs::remove_file(&fifo);
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let got = refusal(open_within_seconds(fifo.clone()));
        std::fs::remove_file(&fifo).unwrap();
        assert_eq!(
            got,
            (
                std::io::ErrorKind::InvalidInput,
                "is a FIFO, not a regular file".into()
            )
        );
    }

    #[test]
    fn a_directory_is_refused() {
        assert_eq!(
            refusal(open_within_seconds(std::env::temp_dir())),
            (
                std::io::ErrorKind::InvalidInput,
                "is a directory, not a regular file".into()
            )
        );
    }

    #[test]
    fn regular_files_are_mapped_and_empty_ones_read() {
        let full = scratch("full");
        std::fs::write(&full, b"hello").unwrap();
        let bytes = FileBytes::open(&full).unwrap();
        assert!(matches!(bytes, FileBytes::Mapped(_)));
        assert_eq!(&*bytes, b"hello");
        let empty = scratch("empty");
        std::fs::write(&empty, b"").unwrap();
        let bytes = FileBytes::open(&empty).unwrap();
        assert!(matches!(&bytes, FileBytes::Owned(v) if v.is_empty()));
        #[cfg(unix)]
        {
            let link = scratch("link");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&full, &link).unwrap();
            assert_eq!(&*FileBytes::open(&link).unwrap(), b"hello");
            std::fs::remove_file(&link).unwrap();
        }
        std::fs::remove_file(&full).unwrap();
        std::fs::remove_file(&empty).unwrap();
    }

    #[test]
    fn a_missing_file_keeps_its_error() {
        let e = FileBytes::open(scratch("missing")).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }
}
