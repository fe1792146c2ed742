//! Writing output files without losing data.
//!
//! Every tool that writes a file goes through [`AtomicFile`] (or its
//! one-call form [`write_atomically`]): the bytes go to a temporary file in
//! the destination folder, which is flushed, synced and renamed to the final
//! name only when complete. A process killed at any moment therefore leaves
//! either no output or the previous file under the final name. A large
//! file is synced while it is written (write-behind, see [`AtomicFile`]),
//! so the final sync waits for little more than its last megabytes. Before
//! anything is written, an [`OutputPolicy`] refuses an output that resolves
//! to one of the inputs (the same path, another spelling of it, or a symlink
//! to it) and, unless forced, an output that already exists.
//!
//! The temporary file of `DIR/NAME` is `DIR/.NAME.robolog-tmp-PID-N` (PID
//! the writing process, N a counter). A process killed before its commit
//! leaves that file behind, holding what it had written: never deleted
//! here, since it may be all that is left of some data. [`leftovers`] finds
//! those of processes that are no longer running, so a later run can name
//! them and how to recover them; [`remove_empty_leftovers`] removes those
//! that hold nothing. A process that is asked to end (a tool's `SIGINT` or
//! `SIGTERM` handling) removes the temporary files it has open with
//! [`remove_open_temporaries`] first.
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

use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, mpsc};

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
///
/// Checking an output costs the same however many inputs there are: the
/// inputs' canonical paths and (on Unix) device and inode numbers are kept
/// in sets as they are added.
#[derive(Debug, Clone, Default)]
pub struct OutputPolicy {
    /// Replace an existing output (the `--force` of the tools).
    pub force: bool,
    inputs: Vec<PathBuf>,
    canonical: HashSet<PathBuf>,
    ids: HashSet<(u64, u64)>,
}

impl OutputPolicy {
    /// A policy with no inputs yet.
    pub fn new(force: bool) -> Self {
        OutputPolicy {
            force,
            ..OutputPolicy::default()
        }
    }

    /// Adds an input the output must not resolve to.
    pub fn reading(mut self, input: impl Into<PathBuf>) -> Self {
        self.add_input(input.into());
        self
    }

    /// Adds inputs the output must not resolve to.
    pub fn add_inputs<P: Into<PathBuf>>(&mut self, inputs: impl IntoIterator<Item = P>) {
        for input in inputs {
            self.add_input(input.into());
        }
    }

    fn add_input(&mut self, input: PathBuf) {
        if let Some(c) = resolve(&input) {
            self.canonical.insert(c);
        }
        if let Some(id) = file_id(&input) {
            self.ids.insert(id);
        }
        self.inputs.push(input);
    }

    /// The files the command reads, as given.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }

    /// The input `output` resolves to, if any.
    fn input_at(&self, output: &Path) -> Option<&PathBuf> {
        let hit = file_id(output).is_some_and(|id| self.ids.contains(&id))
            || resolve(output).is_some_and(|c| self.canonical.contains(&c));
        if !hit {
            return None;
        }
        // Which one, for the message: found once, on a refusal only.
        self.inputs.iter().find(|i| same_file(output, i))
    }

    /// Checks `output` against the policy: [`Refusal::SameFile`] when it
    /// resolves to an input (compared as canonical paths and, on Unix, as
    /// device and inode of existing files, so `..` spellings and symlinks
    /// are caught), [`Refusal::Exists`] when it exists and `force` is not
    /// set.
    pub fn check(&self, output: &Path) -> Result<(), Refusal> {
        if let Some(input) = self.input_at(output) {
            return Err(Refusal::SameFile {
                output: output.to_path_buf(),
                input: input.clone(),
            });
        }
        if !self.force && std::fs::symlink_metadata(output).is_ok() {
            return Err(Refusal::Exists {
                output: output.to_path_buf(),
            });
        }
        Ok(())
    }
}

/// The device and inode numbers of an existing file (Unix only).
fn file_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Whether `a` and `b` name the same file. A path that does not exist yet
/// is compared through its canonical folder.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Some(x), Some(y)) = (file_id(a), file_id(b))
        && x == y
    {
        return true;
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

/// What the names of temporary files hold between the output's name and
/// the writing process's id: `.NAME.robolog-tmp-PID-N`.
pub(crate) const TEMP_MARKER: &str = ".robolog-tmp-";

/// The temporary file name for `name`, process `pid`, counter `n`.
fn temp_name(name: &str, pid: u32, n: u64) -> String {
    format!(".{name}{TEMP_MARKER}{pid}-{n}")
}

/// The process id in `file_name` when it is a temporary file of the output
/// `name`.
fn temp_pid(file_name: &str, name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?.strip_prefix(name)?;
    let (pid, n) = rest.strip_prefix(TEMP_MARKER)?.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// A temporary file left by a process that was killed (or crashed) while
/// writing an output, found by [`leftovers`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// The temporary file.
    pub path: PathBuf,
    /// The process that wrote it.
    pub pid: u32,
}

/// The temporary files of `dest` (see `.robolog-tmp-` (`TEMP_MARKER`)) whose process is
/// not running any more, named as `dest` is (same folder spelling), sorted
/// by name: what interrupted runs writing
/// `dest` left. They are not touched. Where it cannot be told whether a
/// process runs (no `/proc`), every temporary file of another process is
/// listed.
///
/// ```
/// use robolog::write::{Leftover, leftovers};
///
/// let dir = std::env::temp_dir().join(format!("robolog-doc-leftovers-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// // Process ids are below 2^22 on Linux: this one never runs.
/// let left = dir.join(".out.mcap.robolog-tmp-4294967295-0");
/// std::fs::write(&left, "partial")?;
/// assert_eq!(leftovers(&dir.join("out.mcap")), [Leftover { path: left, pid: u32::MAX }]);
/// assert!(leftovers(&dir.join("other.mcap")).is_empty());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn leftovers(dest: &Path) -> Vec<Leftover> {
    let Some(name) = dest.file_name() else {
        return Vec::new();
    };
    leftovers_in(parent_dir(dest))
        .into_iter()
        .filter(|(n, _)| n.as_os_str() == name)
        .map(|(_, mut left)| {
            left.path = dest.with_file_name(left.path.file_name().unwrap_or_default());
            left
        })
        .collect()
}

/// Every temporary file in the folder `dir` (see `.robolog-tmp-` (`TEMP_MARKER`)) whose
/// process is not running any more, with the name of the output it was
/// written for, sorted by path: [`leftovers`] of every output in `dir` at
/// the cost of one listing, for a command writing many files there.
pub fn leftovers_in(dir: &Path) -> Vec<(PathBuf, Leftover)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, Leftover)> = entries
        .filter_map(|e| {
            let file_name = e.ok()?.file_name();
            let text = file_name.to_string_lossy();
            let at = text.rfind(TEMP_MARKER)?;
            let name = text.get(1..at).filter(|_| text.starts_with('.'))?;
            let pid = temp_pid(&text, name)?;
            (process_running(pid) != Some(true)).then(|| {
                (
                    PathBuf::from(name),
                    Leftover {
                        path: dir.join(&file_name),
                        pid,
                    },
                )
            })
        })
        .collect();
    found.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    found
}

/// Removes the temporary files of `dest` that [`leftovers`] finds and
/// that are provably of no use: empty (0 bytes, a regular file) and of a
/// process known not to run any more (never where that cannot be told).
/// Returns how many were removed. Those holding bytes are kept, as by
/// [`leftovers`]: they may be all that is left of some data.
///
/// ```
/// use robolog::write::{leftovers, remove_empty_leftovers};
///
/// let dir = std::env::temp_dir().join(format!("robolog-doc-empty-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// // Process ids are below 2^22 on Linux: these never run.
/// let empty = dir.join(".out.mcap.robolog-tmp-4294967295-0");
/// let partial = dir.join(".out.mcap.robolog-tmp-4294967295-1");
/// std::fs::write(&empty, "")?;
/// std::fs::write(&partial, "partial")?;
/// let out = dir.join("out.mcap");
/// if std::path::Path::new("/proc/self").exists() {
///     assert_eq!(remove_empty_leftovers(&out), 1);
///     assert!(!empty.exists());
///     assert_eq!(leftovers(&out).len(), 1);
/// }
/// assert_eq!(std::fs::read(&partial)?, b"partial");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_empty_leftovers(dest: &Path) -> usize {
    leftovers(dest)
        .iter()
        .filter(|left| remove_if_empty(left))
        .count()
}

/// Removes `left` if it is an empty file whose process is known to be
/// gone (see [`remove_empty_leftovers`]); whether it did.
pub fn remove_if_empty(left: &Leftover) -> bool {
    process_running(left.pid) == Some(false)
        && std::fs::symlink_metadata(&left.path).is_ok_and(|m| m.is_file() && m.len() == 0)
        && std::fs::remove_file(&left.path).is_ok()
}

/// Whether process `pid` runs, when that can be told.
fn process_running(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

/// Bytes written between two requests to the write-behind thread to sync
/// what the file holds so far (see [`AtomicFile`]).
pub(crate) const WRITE_BEHIND_STEP: u64 = 8 << 20;

/// A thread syncing the temporary file's data while more is written, so
/// the disk writes overlap the work that produces the bytes and the final
/// sync has only the last few megabytes left to wait for.
#[derive(Debug)]
struct WriteBehind {
    /// One message per 8 MiB (`WRITE_BEHIND_STEP`) written; closed at the end.
    wake: mpsc::Sender<()>,
    /// The first failed sync ends the thread with its error.
    thread: std::thread::JoinHandle<io::Result<()>>,
}

impl WriteBehind {
    /// Starts the thread on a second handle of `file` (the same open file,
    /// so a failed sync of its data is reported by the thread: the kernel
    /// reports a write-back error once per open file, and it is not lost
    /// since [`WriteBehind::finish`] returns it).
    fn start(file: &File) -> io::Result<WriteBehind> {
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
    fn finish(self) -> io::Result<()> {
        drop(self.wake);
        match self.thread.join() {
            Ok(r) => r,
            Err(_) => Err(io::Error::other("the write-behind thread panicked")),
        }
    }
}

/// The temporary files of [`AtomicFile`]s this process has open (created,
/// neither committed nor dropped yet), for [`remove_open_temporaries`].
#[derive(Debug)]
struct OpenTemporaries {
    paths: Vec<PathBuf>,
    /// Set by [`remove_open_temporaries`]: the process is ending, and a
    /// temporary file created after that is removed at once.
    closed: bool,
}

static OPEN: Mutex<OpenTemporaries> = Mutex::new(OpenTemporaries {
    paths: Vec::new(),
    closed: false,
});

/// The registry, also after a thread panicked holding it (its list stays
/// valid: every change to it is one push or one removal).
fn open_temporaries() -> MutexGuard<'static, OpenTemporaries> {
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

impl OpenTemporaries {
    /// Lists `temp`, unless the process is ending: then false.
    fn register(&mut self, temp: &Path) -> bool {
        if !self.closed {
            self.paths.push(temp.to_path_buf());
        }
        !self.closed
    }

    /// Takes `temp` off the list.
    fn unregister(&mut self, temp: &Path) {
        if let Some(i) = self.paths.iter().rposition(|p| p == temp) {
            self.paths.swap_remove(i);
        }
    }

    /// Marks the process as ending, empties the list and removes the
    /// files of this process on it: how many were removed.
    fn remove_all(&mut self) -> usize {
        self.closed = true;
        std::mem::take(&mut self.paths)
            .iter()
            .filter(|temp| is_own_temporary(temp) && std::fs::remove_file(temp).is_ok())
            .count()
    }
}

/// Whether `temp`'s file name is that of a temporary file of this process
/// (it holds `.robolog-tmp-` (`TEMP_MARKER`) followed by this process's id).
fn is_own_temporary(temp: &Path) -> bool {
    let mine = format!("{TEMP_MARKER}{}-", std::process::id());
    temp.file_name()
        .is_some_and(|n| n.to_string_lossy().contains(&mine))
}

/// Removes the temporary file of every [`AtomicFile`] of this process that
/// is open (created, neither committed nor dropped), and returns how many
/// files it removed. Only files whose names carry `.robolog-tmp-` (`TEMP_MARKER`) and this
/// process's id are touched.
///
/// Meant for a process that is about to exit without unwinding (on
/// `SIGINT` or `SIGTERM`, from a thread that waits for the signal, never
/// inside a signal handler: it takes a lock, allocates and removes files),
/// so that no incomplete output is left behind; the destinations stay
/// untouched. From then on the process is taken to be ending: an
/// [`AtomicFile`] created afterwards fails (its temporary file is removed
/// at once, the error is [`io::ErrorKind::Interrupted`]), and one being
/// committed fails if its temporary file was removed first.
///
/// ```
/// use std::io::Write;
/// use robolog::write::{AtomicFile, OutputPolicy, remove_open_temporaries};
///
/// let dir = std::env::temp_dir().join(format!("robolog-doc-open-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let mut f = AtomicFile::create(&dir.join("out.csv"), &OutputPolicy::new(false)).unwrap();
/// f.write_all(b"t,x\n")?;
/// let temp = f.temp_path().to_path_buf();
/// assert_eq!(remove_open_temporaries(), 1);
/// assert!(!temp.exists());
/// // The process is ending: no new output is started.
/// assert!(AtomicFile::create(&dir.join("more.csv"), &OutputPolicy::new(false)).is_err());
/// # drop(f);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_open_temporaries() -> usize {
    open_temporaries().remove_all()
}

/// An output file being written: the bytes go to a hidden temporary file
/// in the destination folder (`.NAME.robolog-tmp-PID-N`), which
/// [`commit`](AtomicFile::commit) flushes, syncs and renames to the final
/// name. Dropped without a commit, the temporary file is removed and the
/// destination is untouched. Until then the temporary file is listed for
/// [`remove_open_temporaries`].
///
/// Write-behind: once a file reaches 8 MiB (`WRITE_BEHIND_STEP`), a thread
/// syncs its data every time that many more were written, while the
/// writing goes on. The disk then writes the file as it grows, not all of
/// it in the final sync, which has only what came since the last step
/// left to wait for (a large output is on disk about as soon as its last
/// byte is written). A failed sync of that thread fails the commit.
#[derive(Debug)]
pub struct AtomicFile {
    file: Option<BufWriter<File>>,
    temp: PathBuf,
    dest: PathBuf,
    /// Bytes given to the file so far, and at the last write-behind request.
    written: (u64, u64),
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
    fn leftovers_are_the_temp_files_of_processes_that_are_gone() {
        let dir = scratch("leftovers");
        let out = dir.join("run.bag");
        let names = [
            ".run.bag.robolog-tmp-4294967295-3",
            ".run.bag.robolog-tmp-4294967294-0",
            // Not temporary files of run.bag.
            ".run.bag.orig.bag.robolog-tmp-4294967295-0",
            ".run.bag.robolog-tmp-x-0",
            ".run.bag.robolog-tmp-4294967295",
            "run.bag.robolog-tmp-4294967295-0",
        ];
        for n in names {
            std::fs::write(dir.join(n), n).unwrap();
        }
        let mine = dir.join(temp_name("run.bag", std::process::id(), 7));
        std::fs::write(&mine, "being written").unwrap();
        assert_eq!(
            leftovers(&out),
            [
                Leftover {
                    path: dir.join(names[1]),
                    pid: 4294967294
                },
                Leftover {
                    path: dir.join(names[0]),
                    pid: 4294967295
                },
            ]
        );
        // Listing touches nothing.
        assert_eq!(entries(&dir).len(), names.len() + 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn listed(temp: &Path) -> bool {
        open_temporaries().paths.iter().any(|p| p == temp)
    }

    #[test]
    fn open_temporaries_are_listed_until_committed_or_dropped() {
        let dir = scratch("registry");
        let policy = OutputPolicy::new(false);
        let mut a = AtomicFile::create(&dir.join("a.csv"), &policy).unwrap();
        let b = AtomicFile::create(&dir.join("b.csv"), &policy).unwrap();
        a.write_all(b"a").unwrap();
        let (ta, tb) = (a.temp_path().to_path_buf(), b.temp_path().to_path_buf());
        assert!(listed(&ta) && listed(&tb));
        a.commit().unwrap();
        assert!(!listed(&ta) && listed(&tb));
        drop(b);
        assert!(!listed(&tb));
        assert_eq!(entries(&dir), ["a.csv"]);

        // Removing: on a list of its own, so that the files of the tests
        // running beside this one stay and the process is not ending.
        let c = AtomicFile::create(&dir.join("c.csv"), &policy).unwrap();
        let d = AtomicFile::create(&dir.join("d.csv"), &policy).unwrap();
        let (tc, td) = (c.temp_path().to_path_buf(), d.temp_path().to_path_buf());
        // Not a temporary file of this process: never removed.
        let other = dir.join(temp_name("e.csv", 4_294_967_295, 0));
        std::fs::write(&other, "another process's").unwrap();
        let mut list = OpenTemporaries {
            paths: vec![tc.clone(), other.clone(), td.clone(), dir.join("gone")],
            closed: false,
        };
        assert_eq!(list.remove_all(), 2);
        assert!(list.paths.is_empty() && list.closed);
        assert!(!tc.exists() && !td.exists() && other.exists());
        assert!(!dir.join("c.csv").exists() && !dir.join("d.csv").exists());
        // Ending: nothing more is listed, nothing is removed twice.
        assert!(!list.register(&tc));
        assert_eq!(list.remove_all(), 0);
        // The committed file is no temporary: never touched.
        assert_eq!(std::fs::read(dir.join("a.csv")).unwrap(), b"a");
        // A commit whose temporary file was removed fails, and leaves no
        // output.
        assert!(d.commit().is_err());
        drop(c);
        assert!(!listed(&tc) && !listed(&td));
        assert_eq!(entries(&dir).len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn empty_leftovers_of_gone_processes_are_removed() {
        let dir = scratch("empty-leftovers");
        let out = dir.join("run.mcap");
        let empty = dir.join(temp_name("run.mcap", 4_294_967_295, 0));
        let partial = dir.join(temp_name("run.mcap", 4_294_967_295, 1));
        let other = dir.join(temp_name("other.mcap", 4_294_967_295, 0));
        let mine = dir.join(temp_name("run.mcap", std::process::id(), 0));
        for (p, data) in [
            (&empty, ""),
            (&partial, "partial"),
            (&other, ""),
            (&mine, ""),
        ] {
            std::fs::write(p, data).unwrap();
        }
        let can_tell = process_running(4_294_967_295) == Some(false);
        assert_eq!(remove_empty_leftovers(&out), usize::from(can_tell));
        assert_eq!(empty.exists(), !can_tell);
        // Data, another output's file and a running process's are kept.
        assert_eq!(std::fs::read(&partial).unwrap(), b"partial");
        assert!(other.exists() && mine.exists());
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
        assert!(!entries(&dir).iter().any(|e| e.contains(TEMP_MARKER)));
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
