//! Inputs that shrink while they are read.
//!
//! Inputs are memory-mapped ([`logcore::FileBytes`]). When another process
//! truncates a mapped file (log rotation, a recorder restarting on the same
//! name), touching a page past its new end raises `SIGBUS`, which would end
//! the process with no message. [`install`] catches that signal: when the
//! faulting address lies in one of the maps of `FileBytes`, the handler
//! writes [`MESSAGE`] to stderr and exits with [`EXIT_SHRANK`] (4) at once
//! (buffered output not yet written is lost; nothing printed can be
//! trusted to be complete). Any other `SIGBUS` is handed back to the
//! handler that was there before, so it ends the process as it would have.
//!
//! This is the one place of the binary that needs `unsafe`: installing a
//! signal handler and, inside it, the async-signal-safe calls `write(2)`,
//! `_exit(2)` and `sigaction(2)`.

/// The exit code after an input shrank while it was read.
pub(crate) const EXIT_SHRANK: u8 = 4;

/// What the handler prints (one line, fixed: a signal handler may not
/// format or allocate).
pub(crate) const MESSAGE: &str = "robolog: the input file shrank while being read \
(it was truncated or replaced by another process, e.g. log rotation or a recorder \
restarting); the output is incomplete. Copy the file, or wait until nothing writes \
it, and run again.\n";

/// Installs the `SIGBUS` handler (Unix; nothing elsewhere, where a mapped
/// file cannot be truncated).
pub(crate) fn install() {
    #[cfg(unix)]
    unix::install();
}

/// The handler and its installation (the `unsafe` part).
#[cfg(unix)]
#[allow(unsafe_code)]
mod unix {
    use std::sync::OnceLock;

    /// The `SIGBUS` disposition before ours: restored for faults that are
    /// not in a mapped input.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

    /// Installs [`on_sigbus`] for `SIGBUS`, keeping the disposition it
    /// replaces in [`PREVIOUS`].
    pub(super) fn install() {
        // SAFETY: `sigaction` only reads `action` and writes `previous`,
        // both valid, zero-initialised plain C structs; the handler only
        // makes async-signal-safe calls (see `on_sigbus`).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                on_sigbus;
            action.sa_sigaction = handler as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGBUS, &action, &mut previous) == 0 {
                let _ = PREVIOUS.set(previous);
            }
        }
    }

    /// The `SIGBUS` handler: [`super::MESSAGE`] and exit code
    /// [`super::EXIT_SHRANK`] for a fault in a mapped input; any other
    /// fault goes back to the previous disposition.
    extern "C" fn on_sigbus(
        _signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _context: *mut libc::c_void,
    ) {
        // SAFETY: the kernel passes a valid `siginfo_t` for a handler
        // installed with SA_SIGINFO; for SIGBUS its address field is set.
        let addr = unsafe { (*info).si_addr() } as usize;
        if logcore::FileBytes::maps_address(addr) {
            let msg = super::MESSAGE.as_bytes();
            // SAFETY: write(2) and _exit(2) are async-signal-safe; the
            // buffer is a static string.
            unsafe {
                libc::write(2, msg.as_ptr().cast(), msg.len());
                libc::_exit(i32::from(super::EXIT_SHRANK));
            }
        }
        // Not an input: put the previous disposition back and return; the
        // faulting access repeats and is handled as without us.
        // SAFETY: sigaction(2) and signal(2) for SIG_DFL are
        // async-signal-safe; `previous` is the saved disposition.
        unsafe {
            match PREVIOUS.get() {
                Some(previous) => {
                    libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut());
                }
                None => {
                    libc::signal(libc::SIGBUS, libc::SIG_DFL);
                }
            }
        }
    }
}
