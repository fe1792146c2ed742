//! Ctrl-C (`SIGINT`, or any signal whose Python handler raises) during a
//! long call: the one mechanism every entry point that can run for long
//! uses. [`poll`] is also logcore's interrupt hook
//! (`logcore::interrupt::set_hook`), which the libraries' long loops call
//! (decompressing or copying a bag's storage files when it is opened, a
//! check's pass over the messages, a ULog column's pass over the samples,
//! a CARLA file's frames).
//!
//! Python runs its signal handlers only between bytecodes, on the main
//! thread, so a call that spends seconds in Rust would see Ctrl-C only
//! when it returns, with its work done and its output written. Long work
//! therefore calls [`poll`] where it reports progress (a conversion's and
//! an export's progress callback, every block a decompression writes, a
//! query's wait for its answer, a scan's and a message iterator's wait
//! for their reading thread ([`recv`]), every batch of a table, every item and
//! wait of `logcore::parallel::on_cores`). At most every [`EVERY`], `poll`
//! takes the GIL and runs the pending handlers (`PyErr_CheckSignals`);
//! when one raises,
//! `poll` unwinds with a [`Stopped`] payload, the exception kept in the
//! call's [`Stop`] (or, outside any call, with an [`Interrupted`] payload
//! carrying it), without the panic hook: nothing is printed. The
//! unwinding drops what the work
//! holds, as an error would: temporary output files are removed
//! (`AtomicFile`), a ROS 2 bag's temporary folder too, decompressed copies
//! of a bag's storage files. [`guarded`](crate::errors::guarded) turns the
//! payload into the handler's exception (`KeyboardInterrupt`), which the
//! entry point raises.
//!
//! Python runs handlers on its main thread only: on any other thread (a
//! worker, or Python code calling from a thread of its own) `poll` never
//! takes the GIL (which the thread that started the work may hold). A
//! call's work shares one [`Stop`] between its threads (the outermost
//! [`guarded`](crate::errors::guarded) of the call makes it, the threads a
//! call starts carry it, see [`carrying`]): once a handler raised, every
//! thread of the call unwinds at its next `poll`, and the handler's
//! exception is what the call raises.
//!
//! [`before_commit`] is logcore's commit hook, called right before a
//! complete temporary output is renamed into place: when a file the call
//! reads ([`watching`]) changed while it was read, it unwinds with
//! [`Changed`], so that what was written from the file's zeros is dropped
//! instead of put in place.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// How often [`poll`] looks for a pending signal: well under the 100 ms
/// a user notices.
pub(crate) const EVERY: Duration = Duration::from_millis(20);

/// The payload [`poll`] unwinds with when a signal handler raised outside
/// any [`Stop`]: the exception it raised.
pub(crate) struct Interrupted(pub(crate) PyErr);

/// The payload [`poll`] unwinds with on every thread of a call whose
/// [`Stop`] is set; the exception is kept in the `Stop`.
pub(crate) struct Stopped;

/// The payload [`before_commit`] unwinds with: the file that changed
/// while it was read.
pub(crate) struct Changed(pub(crate) PathBuf);

/// The interrupt of one call, shared by its threads.
#[derive(Default)]
pub(crate) struct Stop {
    /// Set once a signal handler raised during the call.
    set: AtomicBool,
    /// The exception it raised, until the call takes it.
    raised: Mutex<Option<PyErr>>,
}

impl Stop {
    /// Whether the call was interrupted.
    pub(crate) fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// The exception the handler raised (taken once), if it did.
    pub(crate) fn take(&self) -> Option<PyErr> {
        self.raised
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// The thread that loaded the module: Python's main thread.
static MAIN: OnceLock<ThreadId> = OnceLock::new();

/// Notes the calling thread (the one loading the module) as the one
/// [`poll`] runs handlers on.
pub(crate) fn set_main_thread() {
    let _ = MAIN.set(std::thread::current().id());
}

thread_local! {
    /// When this thread last looked for a pending signal.
    static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The [`Stop`] of the call this thread works for.
    static STOP: RefCell<Option<Arc<Stop>>> = const { RefCell::new(None) };
    /// The files (or folders of files) the call on this thread reads.
    static WATCHED: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
}

/// The [`Stop`] of the call the calling thread works for, if any.
pub(crate) fn current() -> Option<Arc<Stop>> {
    STOP.with(|s| s.borrow().clone())
}

/// Puts back a thread's previous [`Stop`] when dropped (also when
/// unwinding).
struct Restore(Option<Arc<Stop>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        STOP.with(|s| *s.borrow_mut() = previous);
    }
}

/// logcore's capture hook (`logcore::interrupt::set_carry_hooks`): the
/// calling thread's [`Stop`], which the threads of
/// `logcore::parallel::on_cores` carry.
pub(crate) fn capture() -> Option<logcore::interrupt::Carried> {
    current().map(|s| s as logcore::interrupt::Carried)
}

/// logcore's enter hook: runs `f` carrying the [`Stop`] that [`capture`]
/// gave.
pub(crate) fn enter(carried: Option<logcore::interrupt::Carried>, f: &mut dyn FnMut()) {
    let stop = carried.and_then(|c| c.downcast::<Stop>().ok());
    carrying(stop, f)
}

/// Runs `f` on this thread as part of the call `stop` belongs to (a
/// thread the call started: it unwinds at its next [`poll`] once the call
/// is interrupted).
pub(crate) fn carrying<T>(stop: Option<Arc<Stop>>, f: impl FnOnce() -> T) -> T {
    let previous = STOP.with(|s| std::mem::replace(&mut *s.borrow_mut(), stop));
    let _restore = Restore(previous);
    f()
}

/// Runs `f` as a call of its own when this thread works for none: with a
/// new [`Stop`], given to `f`'s result (`None` when the thread already
/// works for a call, whose `Stop` `f` shares).
pub(crate) fn as_call<T>(f: impl FnOnce() -> T) -> (T, Option<Arc<Stop>>) {
    if current().is_some() {
        return (f(), None);
    }
    let stop = Arc::new(Stop::default());
    let out = carrying(Some(Arc::clone(&stop)), f);
    (out, Some(stop))
}

/// Runs Python's pending signal handlers if [`EVERY`] passed since this
/// thread last did; unwinds when one raised (see the module docs), or
/// when the call this thread works for was interrupted on another thread.
/// Call it without the GIL, from a thread of the call.
pub(crate) fn poll() {
    if STOP.with(|s| s.borrow().as_ref().is_some_and(|s| s.is_set())) {
        std::panic::resume_unwind(Box::new(Stopped));
    }
    if MAIN.get() != Some(&std::thread::current().id()) {
        return;
    }
    let now = Instant::now();
    let due = LAST.with(|last| match last.get() {
        Some(t) if now.duration_since(t) < EVERY => false,
        _ => {
            last.set(Some(now));
            true
        }
    });
    if !due {
        return;
    }
    if let Err(e) = Python::attach(|py| py.check_signals()) {
        match current() {
            Some(s) => {
                *s.raised.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                s.set.store(true, Ordering::Release);
                std::panic::resume_unwind(Box::new(Stopped));
            }
            None => std::panic::resume_unwind(Box::new(Interrupted(e))),
        }
    }
}

/// Waits for what a thread of the call's sends on `rx`, looking for
/// Ctrl-C every [`EVERY`] meanwhile (a wait without it would see a signal
/// only once the thread sent, which may be the whole log later). Call it
/// without the GIL, under [`guarded`](crate::errors::guarded).
pub(crate) fn recv<T>(rx: &std::sync::mpsc::Receiver<T>) -> Result<T, std::sync::mpsc::RecvError> {
    use std::sync::mpsc::RecvTimeoutError;
    loop {
        match rx.recv_timeout(EVERY) {
            Ok(t) => return Ok(t),
            Err(RecvTimeoutError::Timeout) => poll(),
            Err(RecvTimeoutError::Disconnected) => return Err(std::sync::mpsc::RecvError),
        }
    }
}

/// The next thing a reading thread sent on the channel `slot` holds
/// between calls (`Log.messages`, `Log.scan`, `Log.images`), waited for
/// without the GIL ([`recv`]); `None` once the channel is gone or closed.
/// Interrupted, the receiver goes back into `slot`, so the iteration goes
/// on from where it was at the next call; `path` names the log in the
/// exception.
pub(crate) fn next_from<T: Send>(
    py: Python<'_>,
    slot: &mut Mutex<Option<std::sync::mpsc::Receiver<T>>>,
    path: Option<&str>,
) -> PyResult<Option<T>> {
    let slot = slot.get_mut().unwrap_or_else(PoisonError::into_inner);
    let Some(rx) = slot.take() else {
        return Ok(None);
    };
    let (rx, got) = py.detach(move || {
        let got = crate::errors::guarded(|| Ok(recv(&rx)));
        (rx, got)
    });
    match got {
        Ok(Ok(t)) => {
            *slot = Some(rx);
            Ok(Some(t))
        }
        // Closed without its end: an end too.
        Ok(Err(_)) => Ok(None),
        Err(f) => {
            *slot = Some(rx);
            Err(f.into_py(py, path))
        }
    }
}

/// Runs `f` with `files` (logs, or folders of them) watched by
/// [`before_commit`] on this thread.
pub(crate) fn watching<T>(files: &[&Path], f: impl FnOnce() -> T) -> T {
    /// Forgets the watched files when dropped (also when unwinding).
    struct Forget(usize);
    impl Drop for Forget {
        fn drop(&mut self) {
            WATCHED.with(|w| w.borrow_mut().truncate(self.0));
        }
    }
    let before = WATCHED.with(|w| {
        let mut w = w.borrow_mut();
        let n = w.len();
        w.extend(files.iter().map(|p| p.to_path_buf()));
        n
    });
    let _forget = Forget(before);
    f()
}

/// logcore's commit hook: unwinds with [`Changed`] when a file watched on
/// this thread ([`watching`]) changed while it was read. One atomic load
/// while no file ever changed.
pub(crate) fn before_commit() {
    let changed = WATCHED.with(|w| {
        w.borrow()
            .iter()
            .find_map(|root| crate::errors::changed_under(root))
    });
    if let Some(file) = changed {
        std::panic::resume_unwind(Box::new(Changed(file)));
    }
}
