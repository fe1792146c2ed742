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

/// What a thread doing work for another carries of it: the embedding
/// program's state of the call the work is for (opaque here).
pub type Carried = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// The hooks [`capture`] and [`carrying`] call, set once per process.
struct CarryHooks {
    capture: fn() -> Option<Carried>,
    enter: fn(Option<Carried>, &mut dyn FnMut()),
}

static CARRY_HOOKS: OnceLock<CarryHooks> = OnceLock::new();

/// Sets the hooks that let threads a library starts work for the calling
/// thread's call ([`crate::parallel::on_cores`] uses them): `capture`
/// gives the calling thread's state, `enter` runs a function on another
/// thread with that state in place (so that the hook of [`check`] there
/// stops when the call is interrupted). False when they were set already
/// (they stay).
pub fn set_carry_hooks(
    capture: fn() -> Option<Carried>,
    enter: fn(Option<Carried>, &mut dyn FnMut()),
) -> bool {
    CARRY_HOOKS.set(CarryHooks { capture, enter }).is_ok()
}

/// The calling thread's state for [`carrying`], by the hook; `None`
/// without one.
pub fn capture() -> Option<Carried> {
    CARRY_HOOKS.get().and_then(|h| (h.capture)())
}

/// Runs `f` with `carried` (from [`capture`] on the thread the work is
/// for) in place, by the hook; without one, just runs `f`.
pub fn carrying<T>(carried: Option<Carried>, f: impl FnOnce() -> T) -> T {
    let Some(hooks) = CARRY_HOOKS.get() else {
        return f();
    };
    let mut f = Some(f);
    let mut out = None;
    (hooks.enter)(carried, &mut || {
        if let Some(f) = f.take() {
            out = Some(f());
        }
    });
    match out {
        Some(out) => out,
        // The hook did not run the function: run it as it is.
        None => match f.take() {
            Some(f) => f(),
            None => unreachable!("the function ran but gave nothing"),
        },
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
