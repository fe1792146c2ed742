//! [`AtomicFile`], the output file written under a temporary name and
//! renamed into place when complete, and the one-call forms
//! [`write_atomically`] and [`replace_keeping_backup`].

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::behind::WriteBehind;
use super::names::{COUNTER, parent_dir, temp_name};
use super::temporaries::open_temporaries;
use super::{OutputPolicy, Refusal, WRITE_BEHIND_STEP, WriteError};

/// An output file being written: the bytes go to a hidden temporary file
/// in the destination folder (`.NAME.robolog-tmp-PID-N`), which
/// [`commit`](AtomicFile::commit) flushes, syncs and renames to the final
/// name. Dropped without a commit, the temporary file is removed and the
/// destination is untouched. Until then the temporary file is listed for
/// [`remove_open_temporaries`](super::remove_open_temporaries).
///
/// Write-behind: once a file reaches 8 MiB (`WRITE_BEHIND_STEP`), a thread
/// syncs its data every time that many more were written, while the
/// writing goes on. The disk then writes the file as it grows, not all of
/// it in the final sync, which has only what came since the last step
/// left to wait for (a large output is on disk about as soon as its last
/// byte is written). A failed sync of that thread fails the commit.
#[derive(Debug)]
pub struct AtomicFile {
    /// The open temporary file; `None` once committed.
    file: Option<BufWriter<File>>,
    /// The temporary file's path.
    temp: PathBuf,
    /// The final name.
    dest: PathBuf,
    /// Bytes given to the file so far, and at the last write-behind request.
    written: (u64, u64),
    /// The write-behind thread, once the file reached its first step.
    behind: Option<WriteBehind>,
}

impl AtomicFile {
    /// Checks `dest` against `policy` and creates the temporary file beside
    /// it.
    pub fn create(dest: &Path, policy: &OutputPolicy) -> Result<AtomicFile, WriteError> {
        policy.check(dest).map_err(WriteError::Refused)?;
        let name = dest
            .file_name()
            .ok_or_else(|| {
                WriteError::Io(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} does not name a file", dest.display()),
                ))
            })?
            .to_string_lossy()
            .into_owned();
        let dir = parent_dir(dest);
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let temp = dir.join(temp_name(&name, std::process::id(), n));
            match File::options().write(true).create_new(true).open(&temp) {
                Ok(f) => {
                    if !open_temporaries().register(&temp) {
                        drop(f);
                        let _ = std::fs::remove_file(&temp);
                        return Err(WriteError::Io(io::Error::new(
                            io::ErrorKind::Interrupted,
                            "the process is ending: no output is started",
                        )));
                    }
                    return Ok(AtomicFile {
                        file: Some(BufWriter::with_capacity(1 << 16, f)),
                        temp,
                        dest: dest.to_path_buf(),
                        written: (0, 0),
                        behind: None,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(WriteError::Io(e)),
            }
        }
    }

    /// The temporary file the bytes go to until the commit.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// The final name.
    pub fn dest_path(&self) -> &Path {
        &self.dest
    }

    /// Flushes and syncs the temporary file, renames it to the final name
    /// and syncs the folder (where the platform allows). On error the
    /// temporary file is removed and the destination is untouched.
    pub fn commit(mut self) -> io::Result<()> {
        // A program embedding the library may stop here (its hook
        // unwinds): the temporary file is then removed on drop.
        logcore::interrupt::before_commit();
        let Some(w) = self.file.take() else {
            return Ok(());
        };
        let behind = self.behind.take().map_or(Ok(()), WriteBehind::finish);
        let result = behind
            .and_then(|()| w.into_inner().map_err(|e| e.into_error()))
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::rename(&self.temp, &self.dest));
        if let Err(e) = result {
            let _ = std::fs::remove_file(&self.temp);
            return Err(e);
        }
        #[cfg(unix)]
        if let Ok(d) = File::open(parent_dir(&self.dest)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl AtomicFile {
    /// Counts `n` bytes written and, every 8 MiB (`WRITE_BEHIND_STEP`), asks the
    /// write-behind thread (started at the first step) to sync them.
    fn wrote(&mut self, n: usize) {
        self.written.0 += n as u64;
        if self.written.0 - self.written.1 < WRITE_BEHIND_STEP {
            return;
        }
        self.written.1 = self.written.0;
        if self.behind.is_none() {
            // Without a thread (none can be started) the final sync does
            // it all, as it would anyway.
            self.behind = self
                .file
                .as_ref()
                .and_then(|f| WriteBehind::start(f.get_ref()).ok());
        }
        if let Some(b) = &self.behind {
            // A thread that stopped on an error has it for the commit.
            let _ = b.wake.send(());
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = match &mut self.file {
            Some(f) => f.write(buf)?,
            None => return Err(io::Error::other("the file was committed")),
        };
        self.wrote(n);
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.write_all(buf)?,
            None => return Err(io::Error::other("the file was committed")),
        }
        self.wrote(buf.len());
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

/// Formats whose writers patch their header at the end (a ROS bag's index
/// position) seek back: the buffer is flushed first.
impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match &mut self.file {
            Some(f) => f.seek(pos),
            None => Err(io::Error::other("the file was committed")),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(b) = self.behind.take() {
            let _ = b.finish();
        }
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
        // Committed (renamed) or removed: no longer open either way.
        open_temporaries().unregister(&self.temp);
    }
}

/// Writes `dest` through an [`AtomicFile`]: checks the policy, lets `write`
/// fill the temporary file, and renames it into place only when `write`
/// succeeded (the temporary file is removed otherwise).
pub fn write_atomically<T, E>(
    dest: &Path,
    policy: &OutputPolicy,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, E>,
) -> Result<T, WriteError<E>> {
    let mut file = AtomicFile::create(dest, policy).map_err(WriteError::for_caller)?;
    let value = write(&mut file).map_err(WriteError::Write)?;
    file.commit().map_err(WriteError::Io)?;
    Ok(value)
}

/// Replaces `file` in place, keeping its original under `backup`: the new
/// contents are written completely to a temporary file first (by `write`),
/// then the original gets its second name `backup` (a hard link where the
/// file system has them, else a copy written atomically), then the
/// temporary file is renamed onto `file`. Killed at any moment, `file` is
/// the original or the complete new file, and a backup that exists already
/// is never replaced ([`Refusal::BackupExists`], checked before `write`
/// runs).
///
/// ```
/// use std::io::Write;
/// use robolog::write::replace_keeping_backup;
///
/// let dir = std::env::temp_dir().join(format!("robolog-doc-backup-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let (file, backup) = (dir.join("run.bag"), dir.join("run.orig.bag"));
/// std::fs::write(&file, "old")?;
/// replace_keeping_backup(&file, &backup, |w| w.write_all(b"new")).unwrap();
/// assert_eq!((std::fs::read(&file)?, std::fs::read(&backup)?), (b"new".to_vec(), b"old".to_vec()));
/// // A second run would replace the backup: refused, nothing touched.
/// assert!(replace_keeping_backup(&file, &backup, |w| w.write_all(b"newer")).is_err());
/// assert_eq!(std::fs::read(&backup)?, b"old");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn replace_keeping_backup<T, E>(
    file: &Path,
    backup: &Path,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, E>,
) -> Result<T, WriteError<E>> {
    let backup_taken = || {
        WriteError::Refused(Refusal::BackupExists {
            backup: backup.to_path_buf(),
        })
    };
    if std::fs::symlink_metadata(backup).is_ok() {
        return Err(backup_taken());
    }
    // Replacing `file` is the point, so no input and forced.
    let mut new =
        AtomicFile::create(file, &OutputPolicy::new(true)).map_err(WriteError::for_caller)?;
    let value = write(&mut new).map_err(WriteError::Write)?;
    match std::fs::hard_link(file, backup) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(backup_taken()),
        Err(_) => {
            let data = std::fs::read(file).map_err(WriteError::Io)?;
            let policy = OutputPolicy::new(false).reading(file);
            write_atomically(backup, &policy, |w| w.write_all(&data))
                .map_err(WriteError::for_caller)?;
        }
    }
    new.commit().map_err(WriteError::Io)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;
    use crate::write::leftovers;
    use crate::write::testing::{entries, scratch};

    #[test]
    fn renames_only_on_success() {
        let dir = scratch("ok");
        let out = dir.join("out.bin");
        let policy = OutputPolicy::new(false);
        let mut f = AtomicFile::create(&out, &policy).unwrap();
        f.write_all(b"hello").unwrap();
        // Nothing under the final name before the commit.
        assert!(!out.exists());
        assert!(f.temp_path().exists());
        assert_eq!(f.temp_path().parent(), Some(dir.as_path()));
        let temp = f.temp_path().file_name().unwrap().to_string_lossy();
        assert!(
            temp.starts_with(&format!(".out.bin.robolog-tmp-{}-", std::process::id())),
            "{temp}"
        );
        // A file of a running process (this one) is no leftover.
        assert!(leftovers(&out).is_empty());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"hello");
        assert_eq!(entries(&dir), ["out.bin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn large_files_are_synced_behind_the_writing() {
        let dir = scratch("behind");
        let out = dir.join("out.bin");
        let mut f = AtomicFile::create(&out, &OutputPolicy::new(false)).unwrap();
        let block: Vec<u8> = (0..=255u8).cycle().take(1 << 20).collect();
        let blocks = (WRITE_BEHIND_STEP >> 20) as usize * 2 + 3;
        for i in 0..blocks {
            f.write_all(&block).unwrap();
            // The thread starts at the first step, not before.
            assert_eq!(
                f.behind.is_some(),
                (i as u64 + 1) << 20 >= WRITE_BEHIND_STEP,
                "after {} MiB",
                i + 1
            );
        }
        f.commit().unwrap();
        let back = std::fs::read(&out).unwrap();
        assert_eq!(back.len(), blocks << 20);
        assert!(back.chunks(1 << 20).all(|c| c == block.as_slice()));
        assert_eq!(entries(&dir), ["out.bin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_sync_behind_fails_the_commit() {
        let dir = scratch("behind-err");
        let out = dir.join("out.bin");
        std::fs::write(&out, b"previous").unwrap();
        let mut f = AtomicFile::create(&out, &OutputPolicy::new(true)).unwrap();
        f.write_all(b"new").unwrap();
        let (wake, _) = mpsc::channel();
        let thread = std::thread::spawn(|| Err(io::Error::other("sync failed")));
        f.behind = Some(WriteBehind { wake, thread });
        let e = f.commit().unwrap_err();
        assert_eq!(e.to_string(), "sync failed");
        assert_eq!(std::fs::read(&out).unwrap(), b"previous");
        assert_eq!(entries(&dir), ["out.bin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn seeks_back_to_patch_a_header() {
        let dir = scratch("seek");
        let out = dir.join("out.bin");
        write_atomically(&out, &OutputPolicy::new(false), |w| {
            w.write_all(b"head0body")?;
            w.seek(SeekFrom::Start(4))?;
            w.write_all(b"!")?;
            w.seek(SeekFrom::End(0))
        })
        .unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"head!body");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn removes_the_temp_file_on_error() {
        let dir = scratch("err");
        let out = dir.join("out.bin");
        std::fs::write(&out, b"previous").unwrap();
        let policy = OutputPolicy::new(true);
        let r: Result<(), _> = write_atomically(&out, &policy, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("boom"))
        });
        assert!(matches!(r, Err(WriteError::Write(_))));
        assert_eq!(std::fs::read(&out).unwrap(), b"previous");
        assert_eq!(entries(&dir), ["out.bin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keeps_an_existing_output_without_force() {
        let dir = scratch("exists");
        let out = dir.join("out.bin");
        std::fs::write(&out, b"previous").unwrap();
        let r = write_atomically(&out, &OutputPolicy::new(false), |w| w.write_all(b"new"));
        match r {
            Err(WriteError::Refused(Refusal::Exists { output })) => assert_eq!(output, out),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert_eq!(std::fs::read(&out).unwrap(), b"previous");
        write_atomically(&out, &OutputPolicy::new(true), |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        assert_eq!(entries(&dir), ["out.bin"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
