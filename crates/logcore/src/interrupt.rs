//! A hook that long work of the libraries calls now and then (every block
//! a decompression writes), so that a program embedding them can stop it:
//! the Python package's hook runs Python's pending signal handlers and,
//! when one raises (Ctrl-C), unwinds out of the work, whose owned state
//! (temporary files and folders) is dropped as on an error. Without a hook
//! [`check`] does nothing.
//!
//! A second hook, [`before_commit`], is called right before work makes
//! its output final (renames a complete temporary file or folder into
//! place): the Python package's hook unwinds when an input file changed
//! while it was read, so that output written from what was read is
//! dropped instead of put in place.
//!
//! ```
//! logcore::interrupt::check(); // no hook: returns at once
//! ```

use std::sync::OnceLock;

/// The hook, set once per process.
static HOOK: OnceLock<fn()> = OnceLock::new();

/// Sets the hook [`check`] calls; false when one was set already (it
/// stays). The hook may unwind (`std::panic::resume_unwind`) to stop the
/// work; it should return quickly otherwise (it is called often).
pub fn set_hook(hook: fn()) -> bool {
    HOOK.set(hook).is_ok()
}

/// Calls the hook, if one is set: long work calls this between steps.
/// May unwind, when the hook does.
pub fn check() {
    if let Some(hook) = HOOK.get() {
        hook();
    }
}

/// The hook [`before_commit`] calls, set once per process.
static COMMIT_HOOK: OnceLock<fn()> = OnceLock::new();

/// Sets the hook [`before_commit`] calls; false when one was set already
/// (it stays). The hook may unwind to keep the output from being put in
/// place (the temporary output is then dropped, as on an error).
pub fn set_commit_hook(hook: fn()) -> bool {
    COMMIT_HOOK.set(hook).is_ok()
}

/// Calls the commit hook, if one is set: work calls this right before it
/// renames a complete temporary output into place. May unwind, when the
/// hook does.
pub fn before_commit() {
    if let Some(hook) = COMMIT_HOOK.get() {
        hook();
    }
}

/// A writer that calls [`check`] before each write to `inner`: for work
/// that copies a stream into a file or a buffer.
#[derive(Debug)]
pub struct Checked<W>(pub W);

impl<W: std::io::Write> std::io::Write for Checked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        check();
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
