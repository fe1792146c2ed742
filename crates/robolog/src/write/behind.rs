//! Write-behind: a thread that syncs a large temporary file's data while
//! more is written, so that the final sync of a commit has only the last
//! few megabytes left to wait for.

use std::fs::File;
use std::io;
use std::sync::mpsc;

/// Bytes written between two requests to the write-behind thread to sync
/// what the file holds so far (see [`AtomicFile`](super::AtomicFile)).
pub(crate) const WRITE_BEHIND_STEP: u64 = 8 << 20;

/// A thread syncing the temporary file's data while more is written, so
/// the disk writes overlap the work that produces the bytes and the final
/// sync has only the last few megabytes left to wait for.
#[derive(Debug)]
pub(super) struct WriteBehind {
    /// One message per 8 MiB (`WRITE_BEHIND_STEP`) written; closed at the end.
    pub(super) wake: mpsc::Sender<()>,
    /// The first failed sync ends the thread with its error.
    pub(super) thread: std::thread::JoinHandle<io::Result<()>>,
}

impl WriteBehind {
    /// Starts the thread on a second handle of `file` (the same open file,
    /// so a failed sync of its data is reported by the thread: the kernel
    /// reports a write-back error once per open file, and it is not lost
    /// since [`WriteBehind::finish`] returns it).
    pub(super) fn start(file: &File) -> io::Result<WriteBehind> {
        let file = file.try_clone()?;
        let (wake, woken) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("robolog-write-behind".into())
            .spawn(move || {
                while woken.recv().is_ok() {
                    // Requests that came while the last sync ran are one.
                    while woken.try_recv().is_ok() {}
                    file.sync_data()?;
                }
                Ok(())
            })?;
        Ok(WriteBehind { wake, thread })
    }

    /// Closes the thread's queue and waits for its last sync: its error,
    /// if any sync failed.
    pub(super) fn finish(self) -> io::Result<()> {
        drop(self.wake);
        match self.thread.join() {
            Ok(r) => r,
            Err(_) => Err(io::Error::other("the write-behind thread panicked")),
        }
    }
}
