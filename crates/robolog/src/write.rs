//! Writing output files without losing data.
//!
//! Every tool that writes a file goes through [`AtomicFile`] (or its
//! one-call form [`write_atomically`]): the bytes go to a temporary file in
//! the destination folder, which is flushed, synced and renamed to the final
//! name only when complete. A process killed at any moment therefore leaves
//! either no output or the previous file under the final name. Before
//! anything is written, an [`OutputPolicy`] refuses an output that resolves
//! to one of the inputs (the same path, another spelling of it, or a symlink
//! to it) and, unless forced, an output that already exists.
//!
//! ```
//! use std::io::Write;
//! use robolog::write::{OutputPolicy, write_atomically};
//!
//! let dir = std::env::temp_dir().join(format!("robolog-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let input = dir.join("in.txt");
//! std::fs::write(&input, "input")?;
//! let policy = OutputPolicy::new(false).reading(&input);
//! // Writing onto the input is refused before anything is touched.
//! assert!(write_atomically(&input, &policy, |w| w.write_all(b"x")).is_err());
//! assert_eq!(std::fs::read(&input)?, b"input");
//! let out = dir.join("out.txt");
//! write_atomically(&out, &policy, |w| w.write_all(b"output")).unwrap();
//! assert_eq!(std::fs::read(&out)?, b"output");
//! // An existing output is kept without force.
//! assert!(write_atomically(&out, &policy, |w| w.write_all(b"again")).is_err());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output file is not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The output resolves to the same file as an input.
    SameFile {
        /// The output as given.
        output: PathBuf,
        /// The input it resolves to.
        input: PathBuf,
    },
    /// The output exists and replacing it was not asked for.
    Exists {
        /// The output as given.
        output: PathBuf,
    },
    /// A file is to be replaced in place, but the name its original would
    /// be kept under is taken: a backup is never replaced.
    BackupExists {
        /// The backup's name.
        backup: PathBuf,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::SameFile { output, input } => write!(
                f,
                "the output {} is the input {} (writing it would destroy the input)",
                output.display(),
                input.display()
            ),
            Refusal::Exists { output } => {
                write!(f, "the output {} exists already", output.display())
            }
            Refusal::BackupExists { backup } => write!(
                f,
                "the backup {} of the original exists already and is never replaced; move it away first",
                backup.display()
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// What happened when an output could not be written.
#[derive(Debug)]
pub enum WriteError<E = io::Error> {
    /// The output was refused before anything was written.
    Refused(Refusal),
    /// Creating, syncing or renaming the file failed.
    Io(io::Error),
    /// The caller's writing function failed.
    Write(E),
}

impl<E: fmt::Display> fmt::Display for WriteError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Refused(r) => r.fmt(f),
            WriteError::Io(e) => e.fmt(f),
            WriteError::Write(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for WriteError<E> {}

impl WriteError {
    /// The same failure for a caller whose own writing errors are `E`: an
    /// I/O error of the file itself stays [`WriteError::Io`].
    fn for_caller<E>(self) -> WriteError<E> {
        match self {
            WriteError::Refused(r) => WriteError::Refused(r),
            WriteError::Io(e) | WriteError::Write(e) => WriteError::Io(e),
        }
    }
}

impl From<WriteError<io::Error>> for io::Error {
    fn from(e: WriteError<io::Error>) -> io::Error {
        match e {
            WriteError::Refused(r @ Refusal::Exists { .. }) => {
                io::Error::new(io::ErrorKind::AlreadyExists, r)
            }
            WriteError::Refused(r) => io::Error::new(io::ErrorKind::InvalidInput, r),
            WriteError::Io(e) | WriteError::Write(e) => e,
        }
    }
}

/// The rules an output file must pass before it is written: not one of
/// the inputs, and not an existing file unless `force` is set.
#[derive(Debug, Clone, Default)]
pub struct OutputPolicy {
    /// Replace an existing output (the `--force` of the tools).
    pub force: bool,
    /// The files the command reads; an output may resolve to none of them.
    pub inputs: Vec<PathBuf>,
}

impl OutputPolicy {
    /// A policy with no inputs yet.
    pub fn new(force: bool) -> Self {
        OutputPolicy {
            force,
            inputs: Vec::new(),
        }
    }

    /// Adds an input the output must not resolve to.
    pub fn reading(mut self, input: impl Into<PathBuf>) -> Self {
        self.inputs.push(input.into());
        self
    }

    /// Checks `output` against the policy: [`Refusal::SameFile`] when it
    /// resolves to an input (compared as canonical paths and, on Unix, as
    /// device and inode of existing files, so `..` spellings and symlinks
    /// are caught), [`Refusal::Exists`] when it exists and `force` is not
    /// set.
    pub fn check(&self, output: &Path) -> Result<(), Refusal> {
        for input in &self.inputs {
            if same_file(output, input) {
                return Err(Refusal::SameFile {
                    output: output.to_path_buf(),
                    input: input.clone(),
                });
            }
        }
        if !self.force && std::fs::symlink_metadata(output).is_ok() {
            return Err(Refusal::Exists {
                output: output.to_path_buf(),
            });
        }
        Ok(())
    }
}

/// Whether `a` and `b` name the same file. A path that does not exist yet
/// is compared through its canonical folder.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            if ma.dev() == mb.dev() && ma.ino() == mb.ino() {
                return true;
            }
        }
    }
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The canonical form of `path`, or of its folder joined with its name when
/// the file does not exist.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let name = path.file_name()?;
    let dir = parent_dir(path).canonicalize().ok()?;
    Some(dir.join(name))
}

/// The folder of `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// An output file being written: the bytes go to a hidden temporary file
/// in the destination folder (`.NAME.PID.N.tmp`), which
/// [`commit`](AtomicFile::commit) flushes, syncs and renames to the final
/// name. Dropped without a commit, the temporary file is removed and the
/// destination is untouched.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<BufWriter<File>>,
    temp: PathBuf,
    dest: PathBuf,
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
            let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
            match File::options().write(true).create_new(true).open(&temp) {
                Ok(f) => {
                    return Ok(AtomicFile {
                        file: Some(BufWriter::with_capacity(1 << 16, f)),
                        temp,
                        dest: dest.to_path_buf(),
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
        let Some(w) = self.file.take() else {
            return Ok(());
        };
        let result = w
            .into_inner()
            .map_err(|e| e.into_error())
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

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("the file was committed")),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.write_all(buf),
            None => Err(io::Error::other("the file was committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

/// Seeking flushes the buffered bytes first; writers that patch a header
/// at the end (a ROS bag's index position) use it.
impl Seek for AtomicFile {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        match &mut self.file {
            Some(f) => f.seek(pos),
            None => Err(io::Error::other("the file was committed")),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
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
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "robolog-write-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

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
        f.commit().unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"hello");
        assert_eq!(entries(&dir), ["out.bin"]);
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

    #[test]
    fn refuses_the_input_under_any_spelling() {
        let dir = scratch("same");
        let input = dir.join("in.bin");
        std::fs::write(&input, b"input").unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        let policy = OutputPolicy::new(true).reading(&input);
        let mut spellings = vec![input.clone(), dir.join("sub").join("..").join("in.bin")];
        #[cfg(unix)]
        {
            let link = dir.join("link.bin");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            spellings.push(link);
        }
        for out in spellings {
            let r = write_atomically(&out, &policy, |w| w.write_all(b"x"));
            assert!(
                matches!(r, Err(WriteError::Refused(Refusal::SameFile { .. }))),
                "{} was not refused",
                out.display()
            );
            assert_eq!(std::fs::read(&input).unwrap(), b"input");
        }
        // A new file beside it is fine.
        assert!(policy.check(&dir.join("other.bin")).is_ok());
        assert!(!entries(&dir).iter().any(|e| e.ends_with(".tmp")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn same_file_compares_new_paths_through_their_folder() {
        let dir = scratch("new");
        let a = dir.join("a.bin");
        let b = dir.join("sub").join("..").join("a.bin");
        std::fs::create_dir(dir.join("sub")).unwrap();
        assert!(same_file(&a, &b));
        assert!(!same_file(&a, &dir.join("b.bin")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
