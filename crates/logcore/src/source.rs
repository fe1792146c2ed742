//! Getting a file's bytes into memory: memory-mapped where possible, or
//! read into memory for files that may change while they are read.
//!
//! # Files that shrink while mapped
//!
//! A memory map shows the file as it is now, not as it was when opened.
//! When another process truncates a mapped file (log rotation with
//! `copytruncate`, a recorder restarting on the same name), touching a page
//! past the new end raises `SIGBUS` on Unix, which kills the process with
//! no message. Two ways out:
//!
//! - [`FileBytes::read`] copies the file into memory and checks its size
//!   again afterwards: a file that shrank is an error, never a crash.
//! - A program that keeps the map (fast, no copy) installs a `SIGBUS`
//!   handler that asks [`FileBytes::maps_address`] whether the faulting
//!   address lies in one of the maps of this module, and if so reports the
//!   shrunken input and exits. The `robolog` command-line tool does this
//!   (exit code 4 and the message `the input file shrank while being
//!   read`).
//! - A process that must go on after such an event (a library loaded into
//!   an interpreter, such as the Python package) calls
//!   [`FileBytes::guard_truncation`] once: its `SIGBUS` handler puts
//!   zero-filled anonymous pages in place of the whole map the fault is in
//!   and returns, so the read goes on over zeros (bytes like any other
//!   damage to the parsers). The map is then marked changed
//!   ([`FileBytes::changed`], [`FileBytes::changed_files`]): whoever read
//!   it checks the mark when its work ends, and reports the file instead
//!   of what it read.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    ///
    /// A mapped file that another process truncates while it is read
    /// raises `SIGBUS` (see [the module docs](self)); use
    /// [`FileBytes::read`] for files that may change, or catch the signal
    /// with the help of [`FileBytes::maps_address`].
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let (file, len) = open_regular(path.as_ref())?;
        if len > 0 {
            if let Ok(map) = map_file(&file) {
                register(&map, path.as_ref());
                return Ok(FileBytes::Mapped(map));
            }
        }
        let mut buf = Vec::new();
        (&file).read_to_end(&mut buf)?;
        Ok(FileBytes::Owned(buf))
    }

    /// Reads `path` into memory (no map), for files that may change while
    /// they are read: the bytes are the first N of the file, N being its
    /// size when opened, and a file that holds fewer than N bytes during
    /// or right after the read is an error
    /// ([`UnexpectedEof`](std::io::ErrorKind::UnexpectedEof), `the file
    /// shrank while being read: ...`), since what was read may mix the old
    /// file and the new one. A file that grows meanwhile is fine: its first
    /// N bytes are returned. Non-regular files are refused as by
    /// [`FileBytes::open`].
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("logcore-read-doc-{}", std::process::id()));
    /// std::fs::write(&path, b"hello")?;
    /// let bytes = logcore::FileBytes::read(&path)?;
    /// assert!(matches!(bytes, logcore::FileBytes::Owned(_)));
    /// assert_eq!(&*bytes, b"hello");
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let (file, len) = open_regular(path.as_ref())?;
        let buf = read_exactly(&file, len)?;
        still_holds(file.metadata()?.len(), len)?;
        Ok(FileBytes::Owned(buf))
    }

    /// Whether `addr` lies inside the memory map of a [`FileBytes`] that is
    /// open now (at most 2,048 maps at a time are tracked; more are mapped
    /// but not tracked).
    ///
    /// Only loads atomics (no locks, no allocation), so it may be called
    /// from a signal handler: a `SIGBUS` at such an address means the
    /// mapped file shrank while it was read.
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("logcore-maps-doc-{}", std::process::id()));
    /// std::fs::write(&path, b"hello")?;
    /// let bytes = logcore::FileBytes::open(&path)?;
    /// let at = bytes.as_ptr() as usize;
    /// assert!(logcore::FileBytes::maps_address(at + 4));
    /// drop(bytes);
    /// assert!(!logcore::FileBytes::maps_address(at + 4));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn maps_address(addr: usize) -> bool {
        MAP_STARTS.iter().zip(&MAP_ENDS).any(|(start, end)| {
            let start = start.load(Ordering::Acquire);
            start != 0 && start <= addr && addr < end.load(Ordering::Acquire)
        })
    }

    /// Installs, once per process, a `SIGBUS` handler that survives a
    /// mapped file truncated while it is read (see [the module
    /// docs](self)): a fault inside a map of this module replaces every
    /// page of that map with zero-filled anonymous memory (one
    /// `mmap(MAP_FIXED)` over the map, async-signal-safe), marks the map
    /// [changed](FileBytes::changed), and returns, so the faulting read
    /// repeats and reads zeros. Any other `SIGBUS` goes to the handler
    /// that was installed before (or, without one, ends the process as it
    /// would have). Returns whether the handler is in place (false on
    /// systems without `SIGBUS`, or when `sigaction` failed).
    ///
    /// Readers must then check [`FileBytes::changed`] (or
    /// [`FileBytes::changed_files`]) when their work ends: bytes read from
    /// a changed map are zeros, not the file's.
    pub fn guard_truncation() -> bool {
        #[cfg(unix)]
        {
            guard::install()
        }
        #[cfg(not(unix))]
        {
            false
        }
    }

    /// Whether this map's pages were replaced by zeros because its file
    /// was truncated (or rewritten shorter) while it was read: see
    /// [`FileBytes::guard_truncation`]. Always false for bytes read into
    /// memory. Once true it stays true: reopen the file.
    pub fn changed(&self) -> bool {
        let FileBytes::Mapped(map) = self else {
            return false;
        };
        let start = map.as_ptr() as usize;
        MAP_STARTS
            .iter()
            .zip(&MAP_CHANGED)
            .any(|(s, c)| s.load(Ordering::Acquire) == start && c.load(Ordering::Acquire) != 0)
    }

    /// The paths (as given to [`FileBytes::open`]) of the maps open now
    /// that are [changed](FileBytes::changed); empty, without taking a
    /// lock, while no fault was ever caught.
    pub fn changed_files() -> Vec<PathBuf> {
        if CHANGES.load(Ordering::Acquire) == 0 {
            return Vec::new();
        }
        let paths = MAP_PATHS.lock().unwrap_or_else(|e| e.into_inner());
        MAP_CHANGED
            .iter()
            .zip(paths.iter())
            .filter(|(c, _)| c.load(Ordering::Acquire) != 0)
            .filter_map(|(_, p)| p.clone())
            .collect()
    }

    /// How many changed maps the guard has caught in this process so far
    /// (see [`FileBytes::guard_truncation`]): a mark to give
    /// [`FileBytes::changed_since`].
    pub fn change_count() -> usize {
        CHANGES.load(Ordering::Acquire)
    }

    /// The paths of the maps caught changed after [`FileBytes::change_count`]
    /// gave `count`, whether still open or dropped since (the last
    /// [`GONE_KEPT`] dropped ones are remembered): for work that opens and
    /// drops its files before it can check them. Empty, without a lock,
    /// while nothing changed since.
    pub fn changed_since(count: usize) -> Vec<PathBuf> {
        if CHANGES.load(Ordering::Acquire) <= count {
            return Vec::new();
        }
        let mut out: Vec<PathBuf> = {
            let paths = MAP_PATHS.lock().unwrap_or_else(|e| e.into_inner());
            MAP_CHANGED
                .iter()
                .zip(paths.iter())
                .filter(|(c, _)| c.load(Ordering::Acquire) > count)
                .filter_map(|(_, p)| p.clone())
                .collect()
        };
        let gone = GONE.lock().unwrap_or_else(|e| e.into_inner());
        out.extend(
            gone.iter()
                .filter(|(seq, _)| *seq > count)
                .map(|(_, p)| p.clone()),
        );
        out
    }

    /// For a reader about to walk the whole file: maps every page of a
    /// mapped file into the process now, in one call, rather than one page
    /// fault for each run of pages as they are first touched (pages not in
    /// the page cache are read first). Does nothing for bytes read into
    /// memory, or where the system cannot do it (Linux before 5.14, other
    /// systems); a file truncated meanwhile is left to the reads, as before.
    pub fn populate(&self) {
        #[cfg(target_os = "linux")]
        if let FileBytes::Mapped(map) = self {
            let _ = map.advise(memmap2::Advice::PopulateRead);
        }
    }
}

impl FileBytes {
    /// For a reader done with `range` of the file for now (a scan that has
    /// copied those messages out): takes the pages of that range out of
    /// the process's memory, so they no longer count in its resident size.
    /// They stay in the system's page cache, and a later read maps them
    /// back with the same bytes. Does nothing for bytes read into memory,
    /// or on systems other than Linux.
    pub fn release(&self, range: std::ops::Range<usize>) {
        #[cfg(target_os = "linux")]
        if let FileBytes::Mapped(map) = self {
            release_pages(map, range);
        }
    }
}

/// The other place the toolkit uses `unsafe` (see [`map_file`]).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn release_pages(map: &memmap2::Mmap, range: std::ops::Range<usize>) {
    let end = range.end.min(map.len());
    if range.start >= end {
        return;
    }
    // SAFETY: the map is read-only and shared (`Mmap::map`), so
    // MADV_DONTNEED only unmaps its pages from this process: the next read
    // of any of them maps the file's page again, with the same bytes, and
    // every slice borrowed from the map keeps reading what it read before
    // (a file changed on disk meanwhile is the limitation `map_file`
    // describes, not a new one). A failure leaves the pages mapped.
    let _ = unsafe {
        map.unchecked_advise_range(
            memmap2::UncheckedAdvice::DontNeed,
            range.start,
            end - range.start,
        )
    };
}

impl Drop for FileBytes {
    fn drop(&mut self) {
        if let FileBytes::Mapped(map) = self {
            unregister(map);
        }
    }
}

/// How many maps [`FileBytes::maps_address`] knows at a time: more than
/// a set of logs kept open between planning and scanning a query holds
/// (`robolog-sql` keeps at most 1,024), so that every one of them is known.
const TRACKED_MAPS: usize = 2048;

/// The first and one-past-last address of each tracked map; 0 marks a free
/// slot. A slot's start is claimed first and its end set after, so a
/// reader sees an empty range while a slot is being filled.
static MAP_STARTS: [AtomicUsize; TRACKED_MAPS] = [const { AtomicUsize::new(0) }; TRACKED_MAPS];
static MAP_ENDS: [AtomicUsize; TRACKED_MAPS] = [const { AtomicUsize::new(0) }; TRACKED_MAPS];
/// Whether each tracked map's pages were replaced by zeros (its file
/// shrank while it was read; see [`FileBytes::guard_truncation`]): 0 when
/// not, else the value of [`CHANGES`] the fault made.
static MAP_CHANGED: [AtomicUsize; TRACKED_MAPS] = [const { AtomicUsize::new(0) }; TRACKED_MAPS];
/// How many dropped changed maps [`FileBytes::changed_since`] remembers.
pub const GONE_KEPT: usize = 64;
/// The dropped maps that were changed: the fault's [`CHANGES`] value and
/// the path, the last [`GONE_KEPT`].
static GONE: Mutex<Vec<(usize, PathBuf)>> = Mutex::new(Vec::new());
/// How many faults the guard has caught in this process (0: no map was
/// ever changed, the common case, checked without a lock).
static CHANGES: AtomicUsize = AtomicUsize::new(0);
/// The path of each tracked map, by slot (never touched by the signal
/// handler).
static MAP_PATHS: Mutex<Vec<Option<PathBuf>>> = Mutex::new(Vec::new());

/// Tracks `map` of the file at `path` in a free slot, if there is one.
fn register(map: &memmap2::Mmap, path: &Path) {
    let start = map.as_ptr() as usize;
    for (i, (slot, end)) in MAP_STARTS.iter().zip(&MAP_ENDS).enumerate() {
        // A load first: most slots are taken when many logs are open.
        if slot.load(Ordering::Relaxed) == 0
            && slot
                .compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            {
                let mut paths = MAP_PATHS.lock().unwrap_or_else(|e| e.into_inner());
                if paths.len() <= i {
                    paths.resize(i + 1, None);
                }
                paths[i] = Some(path.to_path_buf());
            }
            MAP_CHANGED[i].store(0, Ordering::Release);
            end.store(start + map.len(), Ordering::Release);
            return;
        }
    }
}

/// Forgets `map` before it is unmapped.
fn unregister(map: &memmap2::Mmap) {
    let start = map.as_ptr() as usize;
    for (i, (slot, end)) in MAP_STARTS.iter().zip(&MAP_ENDS).enumerate() {
        if slot.load(Ordering::Acquire) == start {
            end.store(0, Ordering::Release);
            let seq = MAP_CHANGED[i].swap(0, Ordering::AcqRel);
            let path = MAP_PATHS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_mut(i)
                .and_then(Option::take);
            if let (true, Some(path)) = (seq != 0, path) {
                let mut gone = GONE.lock().unwrap_or_else(|e| e.into_inner());
                if gone.len() >= GONE_KEPT {
                    gone.remove(0);
                }
                gone.push((seq, path));
            }
            slot.store(0, Ordering::Release);
            return;
        }
    }
}

/// The `SIGBUS` guard of [`FileBytes::guard_truncation`]: with
/// [`map_file`] and `release_pages`, the places the toolkit uses `unsafe`.
#[cfg(unix)]
#[allow(unsafe_code)]
mod guard {
    use std::sync::OnceLock;
    use std::sync::atomic::Ordering;

    use super::{CHANGES, MAP_CHANGED, MAP_ENDS, MAP_STARTS};

    /// The `SIGBUS` disposition before the guard's, set once the guard is
    /// installed (whether it was is the `Some`'s value).
    static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

    /// Installs [`on_sigbus`] once; whether it is installed.
    pub(super) fn install() -> bool {
        PREVIOUS
            .get_or_init(|| {
                // SAFETY: `sigaction` only reads `action` and writes
                // `previous`, both valid zero-initialised plain C structs;
                // the handler makes only async-signal-safe calls.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    let handler: extern "C" fn(
                        libc::c_int,
                        *mut libc::siginfo_t,
                        *mut libc::c_void,
                    ) = on_sigbus;
                    action.sa_sigaction = handler as usize;
                    action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut previous: libc::sigaction = std::mem::zeroed();
                    (libc::sigaction(libc::SIGBUS, &action, &mut previous) == 0).then_some(previous)
                }
            })
            .is_some()
    }

    /// Replaces the pages of the tracked map holding `addr` with zeros and
    /// marks it changed; false when no tracked map holds `addr` (or the
    /// replacement failed). Async-signal-safe: atomics and one `mmap`.
    fn replace_map_at(addr: usize) -> bool {
        for (i, (start, end)) in MAP_STARTS.iter().zip(&MAP_ENDS).enumerate() {
            let start = start.load(Ordering::Acquire);
            let end = end.load(Ordering::Acquire);
            if start == 0 || addr < start || addr >= end {
                continue;
            }
            // SAFETY: [start, end) is a live read-only map of this module
            // (a reader is touching it, so its `FileBytes` is borrowed and
            // cannot be dropped meanwhile). MAP_FIXED replaces exactly
            // those pages (the length is rounded up to a page, as the
            // file's map was) with private zero-filled ones, which
            // `munmap` on drop and MADV_DONTNEED handle as before.
            let placed = unsafe {
                libc::mmap(
                    start as *mut libc::c_void,
                    end - start,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if placed as usize != start {
                return false;
            }
            let seq = CHANGES.fetch_add(1, Ordering::AcqRel) + 1;
            MAP_CHANGED[i].store(seq, Ordering::Release);
            return true;
        }
        false
    }

    /// The guard's `SIGBUS` handler (see `FileBytes::guard_truncation`).
    extern "C" fn on_sigbus(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid `siginfo_t` for a handler
        // installed with SA_SIGINFO; for SIGBUS its address field is set.
        let addr = unsafe { (*info).si_addr() } as usize;
        if replace_map_at(addr) {
            return;
        }
        // Not a map of ours: the handler that was there before decides.
        let previous = PREVIOUS.get().copied().flatten();
        // SAFETY: the previous handler is called as it was installed
        // (with SA_SIGINFO: three arguments, else one), with the
        // arguments this handler got; SIG_DFL and SIG_IGN are put back
        // with signal(2) (async-signal-safe), so that the access repeats
        // and ends the process as it would have without the guard.
        unsafe {
            match previous {
                Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
                    if p.sa_flags & libc::SA_SIGINFO != 0 {
                        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                            std::mem::transmute(p.sa_sigaction);
                        f(signal, info, context);
                    } else {
                        let f: extern "C" fn(libc::c_int) = std::mem::transmute(p.sa_sigaction);
                        f(signal);
                    }
                }
                _ => {
                    libc::signal(libc::SIGBUS, libc::SIG_DFL);
                }
            }
        }
    }
}

/// Opens `path` if it is a regular file, with its size.
fn open_regular(path: &Path) -> std::io::Result<(File, u64)> {
    regular_file(&std::fs::metadata(path)?)?;
    let file = File::open(path)?;
    // The path may have been replaced between the check and the open.
    let meta = file.metadata()?;
    regular_file(&meta)?;
    Ok((file, meta.len()))
}

/// The first `len` bytes of `from`; fewer is the error of a file that
/// shrank.
fn read_exactly(from: impl Read, len: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(1 << 30));
    from.take(len).read_to_end(&mut buf)?;
    if (buf.len() as u64) < len {
        return Err(shrank(len, buf.len() as u64));
    }
    Ok(buf)
}

/// Fails when a file of `len` bytes when opened now holds only `now`.
fn still_holds(now: u64, len: u64) -> std::io::Result<()> {
    if now < len {
        return Err(shrank(len, now));
    }
    Ok(())
}

fn shrank(len: u64, now: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!(
            "the file shrank while being read: {len} bytes when opened, only {now} left \
             (was it truncated or replaced by another process?)"
        ),
    )
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

/// The one place the toolkit uses `unsafe` to get bytes (the other,
/// `release_pages`, gives pages back).
#[allow(unsafe_code)]
fn map_file(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only. If another process truncates or rewrites
    // the file while it is mapped, reads may see changed bytes or fault;
    // this is the documented limitation of memory-mapped I/O, which every
    // parser here tolerates for changed bytes (they are validated as
    // untrusted input anyway). The fault (SIGBUS) is what the module docs
    // describe: `FileBytes::read` avoids it, `FileBytes::maps_address`
    // lets a signal handler recognise it.
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

    /// The resident kilobytes of the map starting at `start`, as the
    /// kernel lists them in `/proc/self/smaps`.
    #[cfg(target_os = "linux")]
    fn resident_kb(start: usize) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let head = format!("{start:x}-");
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&head));
        lines
            .find_map(|l| l.strip_prefix("Rss:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("the map is listed with its Rss")
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn released_pages_leave_memory_and_read_back_the_same() {
        let path = scratch("release.bin");
        let bytes: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let map = FileBytes::open(&path).unwrap();
        assert!(matches!(map, FileBytes::Mapped(_)));
        let start = map.as_ptr() as usize;
        assert_eq!(
            map.iter().map(|&b| u64::from(b)).sum::<u64>(),
            bytes.iter().map(|&b| u64::from(b)).sum::<u64>()
        );
        assert_eq!(resident_kb(start), 1024);
        map.release(0..512 << 10);
        assert_eq!(resident_kb(start), 512);
        map.release(0..map.len() + 4096);
        assert_eq!(resident_kb(start), 0);
        assert_eq!(&map[..], &bytes[..]);
        assert_eq!(resident_kb(start), 1024);
        map.release(std::ops::Range { start: 10, end: 5 });
        map.release(map.len()..map.len() + 10);
        assert_eq!(resident_kb(start), 1024);
        std::fs::remove_file(&path).unwrap();
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
    fn read_copies_the_file_and_tracks_no_map() {
        let path = scratch("read");
        std::fs::write(&path, b"hello").unwrap();
        let bytes = FileBytes::read(&path).unwrap();
        assert!(matches!(&bytes, FileBytes::Owned(v) if v == b"hello"));
        assert!(!FileBytes::maps_address(bytes.as_ptr() as usize));
        assert_eq!(
            refusal(FileBytes::read(std::env::temp_dir())),
            (
                std::io::ErrorKind::InvalidInput,
                "is a directory, not a regular file".into()
            )
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn fewer_bytes_than_when_opened_is_an_error() {
        // Cut during the read: the source ends before the size at open.
        let e = read_exactly(&b"hel"[..], 5).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
        assert_eq!(
            e.to_string(),
            "the file shrank while being read: 5 bytes when opened, only 3 left \
             (was it truncated or replaced by another process?)"
        );
        // Grown meanwhile: the first bytes, as many as at open.
        assert_eq!(read_exactly(&b"hello, world"[..], 5).unwrap(), b"hello");
        // Cut right after the read.
        assert!(still_holds(5, 5).is_ok() && still_holds(9, 5).is_ok());
        assert_eq!(
            still_holds(0, 5).unwrap_err().to_string(),
            "the file shrank while being read: 5 bytes when opened, only 0 left \
             (was it truncated or replaced by another process?)"
        );
    }

    #[test]
    fn maps_are_tracked_while_open() {
        assert!(!FileBytes::maps_address(0));
        let path = scratch("tracked");
        std::fs::write(&path, vec![7u8; 10_000]).unwrap();
        let maps: Vec<FileBytes> = (0..3).map(|_| FileBytes::open(&path).unwrap()).collect();
        for m in &maps {
            let start = m.as_ptr() as usize;
            assert!(FileBytes::maps_address(start));
            assert!(FileBytes::maps_address(start + 9_999));
        }
        // Forgetting them on drop is the doc example's (another test's map
        // could take the same address here).
        drop(maps);
        std::fs::remove_file(&path).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_map_truncated_while_read_reads_zeros_and_is_marked_changed() {
        assert!(FileBytes::guard_truncation());
        let path = scratch("truncated");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let map = FileBytes::open(&path).unwrap();
        let mark = FileBytes::change_count();
        let kept = scratch("kept");
        std::fs::write(&kept, b"//kept").unwrap();
        let other = FileBytes::open(&kept).unwrap();
        assert_eq!(std::hint::black_box(&map[..])[0], 7);
        assert!(!map.changed());
        assert!(!FileBytes::changed_files().contains(&path));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        // Past the new end: without the guard, SIGBUS ends the process.
        assert_eq!(std::hint::black_box(&map[..])[(1 << 20) - 1], 0);
        assert!(map.changed());
        // The whole map reads zeros now, also the page the file kept.
        assert!(map.iter().all(|&b| b == 0));
        assert!(FileBytes::changed_files().contains(&path));
        // Other maps are untouched.
        assert!(!other.changed());
        assert_eq!(&other[..2], b"//");
        assert!(FileBytes::changed_since(mark).contains(&path));
        drop(map);
        assert!(!FileBytes::changed_files().contains(&path));
        // Work that dropped its map before checking still finds it.
        assert!(FileBytes::changed_since(mark).contains(&path));
        assert!(!FileBytes::changed_since(FileBytes::change_count()).contains(&path));
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_file(&kept).unwrap();
    }

    #[test]
    fn a_missing_file_keeps_its_error() {
        let e = FileBytes::open(scratch("missing")).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }
}
