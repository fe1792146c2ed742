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
//! here, since it may be all that is left of some data.
//! [`leftovers`](fn@leftovers) finds those of processes that are no longer
//! running, so a later run can name them and how to recover them;
//! [`remove_empty_leftovers`] removes those that hold nothing. A process
//! that is asked to end (a tool's `SIGINT` or `SIGTERM` handling) removes
//! the temporary files it has open with [`remove_open_temporaries`] first.
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
//!
//! The modules: `policy` (what may be written), `error` (why not),
//! `names` (where temporary files go and what they are called), `atomic`
//! (the file written and renamed into place), `behind` (its write-behind
//! thread), `temporaries` (the files this process has open) and
//! `leftovers` (those that killed processes left).

mod atomic;
mod behind;
mod error;
mod leftovers;
mod names;
mod policy;
mod temporaries;
#[cfg(test)]
mod testing;

pub use atomic::{AtomicFile, replace_keeping_backup, write_atomically};
pub(crate) use behind::WRITE_BEHIND_STEP;
pub use error::{Refusal, WriteError};
pub use leftovers::{
    Leftover, leftovers, leftovers_in, remove_empty_leftovers, remove_if_empty,
    temporary_copy_leftovers,
};
pub(crate) use names::TEMP_MARKER;
pub use policy::{OutputPolicy, same_file};
pub use temporaries::{TemporaryFolder, remove_open_temporaries, remove_temporary_copies};
