//! Ctrl-C (`SIGINT`) and `kill` (`SIGTERM`): the command ends at once,
//! leaving no incomplete output behind.
//!
//! Outputs are written to hidden temporary files renamed into place when
//! complete (see [`robolog::write`]). Ended by the default action of those
//! signals, the process would leave those files behind. [`install`] blocks
//! both signals in the main thread before any other thread exists (so
//! every thread inherits the mask and none is interrupted) and starts a
//! thread that waits for them with `sigwait`. When one comes, that thread,
//! an ordinary thread and not a signal handler, removes the temporary
//! files of the outputs being written
//! ([`robolog::write::remove_open_temporaries`]), prints one line on
//! stderr and exits with 128 + the signal's number: [`EXIT_SIGINT`] (130)
//! or [`EXIT_SIGTERM`] (143), as a shell reports a command ended by them.
//! The exit does not wait for the other threads, so a command blocked on a
//! long read, a child or a pipe ends as promptly as before.
//!
//! A signal that was ignored when the process started (`nohup`, a
//! background job of a script) stays ignored. This file and `fault.rs` are
//! the places of the binary that need `unsafe`: `sigaction(2)` to read a
//! disposition, `pthread_sigmask(3)` and `sigwait(3)`.

use std::io::{IsTerminal, Write};

/// The exit code after `SIGINT` (128 + 2).
pub(crate) const EXIT_SIGINT: i32 = 130;

/// The exit code after `SIGTERM` (128 + 15).
pub(crate) const EXIT_SIGTERM: i32 = 143;

/// Blocks `SIGINT` and `SIGTERM` and starts the thread that waits for
/// them (Unix; nothing elsewhere). Call it first in `main`, before any
/// thread is started: a thread started earlier would not inherit the mask
/// and could take the signal with its default action.
pub(crate) fn install() {
    #[cfg(unix)]
    unix::install();
}

/// Ends the process for `signal` (`"SIGINT"` or `"SIGTERM"`): removes the
/// temporary files of unfinished outputs, says so on stderr and exits with
/// `code`.
fn end(signal: &str, code: i32) -> ! {
    let removed = robolog::write::remove_open_temporaries();
    let mut err = std::io::stderr().lock();
    // A progress bar may be drawn on the current line.
    let newline = if err.is_terminal() { "\n" } else { "" };
    // Nothing to do if stderr is gone: the exit is what matters.
    let _ = writeln!(
        err,
        "{newline}robolog: interrupted by {signal}; removed {removed} unfinished output file{}",
        if removed == 1 { "" } else { "s" }
    );
    drop(err);
    std::process::exit(code)
}

/// Blocking the signals and the thread that waits for them (the
/// `unsafe` part).
#[cfg(unix)]
#[allow(unsafe_code)]
mod unix {
    /// The signals waited for, with their names and exit codes.
    const SIGNALS: [(libc::c_int, &str, i32); 2] = [
        (libc::SIGINT, "SIGINT", super::EXIT_SIGINT),
        (libc::SIGTERM, "SIGTERM", super::EXIT_SIGTERM),
    ];

    /// Blocks [`SIGNALS`] (unless ignored) and starts the waiting thread.
    pub(super) fn install() {
        // SAFETY: `sigemptyset`, `sigaddset` and `sigaction` (with no new
        // action: it only reads the current one) get pointers to valid,
        // zero-initialised plain C structs owned by this frame.
        let set = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            let mut any = false;
            for (signal, _, _) in SIGNALS {
                let mut current: libc::sigaction = std::mem::zeroed();
                let ignored = libc::sigaction(signal, std::ptr::null(), &mut current) == 0
                    && current.sa_sigaction == libc::SIG_IGN;
                if !ignored {
                    libc::sigaddset(&mut set, signal);
                    any = true;
                }
            }
            if !any {
                return;
            }
            set
        };
        // SAFETY: `set` is an initialised signal set; the old mask is not
        // asked for.
        if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } != 0 {
            return;
        }
        let waiter = std::thread::Builder::new()
            .name("robolog-signals".into())
            .spawn(move || wait(set));
        if waiter.is_err() {
            // Nobody would take them: back to their default action.
            // SAFETY: as above.
            unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
        }
    }

    /// Waits for a signal of `set` and ends the process for it.
    fn wait(set: libc::sigset_t) {
        loop {
            let mut signal: libc::c_int = 0;
            // SAFETY: `set` is an initialised signal set blocked in every
            // thread, `signal` a valid place for the result.
            if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
                // Only an invalid set fails, which `install` never makes.
                return;
            }
            if let Some(&(_, name, code)) = SIGNALS.iter().find(|(s, _, _)| *s == signal) {
                super::end(name, code);
            }
        }
    }
}
