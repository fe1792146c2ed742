//! The context of a run: what `main` sets up once from the global options
//! and hands to every command (the limits every reader applies), and what
//! the run remembers while it goes (the stderr lines said, whether an input
//! was read in spite of damage). The ways to open an input are its methods
//! in [`crate::open`].

use std::collections::HashSet;
use std::fmt::Display;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{Failure, Outcome};

/// What every command of a run shares.
pub(crate) struct Context {
    /// The resource limits of this run (`--max-chunk-size`,
    /// `--max-nesting`).
    limits: robolog::Limits,
    /// The lines said on stderr in this run: each is said once.
    said: Mutex<HashSet<String>>,
    /// Whether an input was read although damaged ([`Context::note_opened`]).
    damaged: AtomicBool,
}

impl Context {
    /// A run whose readers apply `limits`.
    pub(crate) fn new(limits: robolog::Limits) -> Self {
        Context {
            limits,
            said: Mutex::new(HashSet::new()),
            damaged: AtomicBool::new(false),
        }
    }

    /// The limits every reader of this run applies (a bag's and an MCAP
    /// reader's too: the formats share the one type).
    pub(crate) fn limits(&self) -> robolog::Limits {
        self.limits
    }

    /// Prints `robolog: SUBJECT: TEXT` on stderr unless this run said it
    /// already.
    pub(crate) fn say_once(&self, subject: impl Display, text: impl Display) {
        let line = format!("robolog: {subject}: {text}");
        let mut said = self
            .said
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !said.contains(&line) {
            crate::shown::say!("{line}");
            said.insert(line);
        }
    }

    /// Prints one problem with a file as a single stderr line (once per
    /// run).
    pub(crate) fn report(&self, path: &Path, problem: impl Display) {
        self.say_once(path.display(), problem);
    }

    /// Reports each problem with `path` on stderr, one line each: the
    /// outcome is [`Outcome::Damaged`] when there was any.
    pub(crate) fn report_all<E: Display>(
        &self,
        path: &Path,
        problems: impl IntoIterator<Item = E>,
    ) -> Outcome {
        let mut outcome = Outcome::Clean;
        for problem in problems {
            self.report(path, problem);
            outcome = Outcome::Damaged;
        }
        outcome
    }

    /// Reports `failure` on stderr as every problem is reported: what it
    /// is about, then what went wrong (once per run).
    pub(crate) fn report_failure(&self, failure: &Failure) {
        self.say_once(&failure.subject, &failure.error);
    }

    /// The one rule for an input read in spite of damage found when
    /// opening it (a bag without its index, read by scanning its chunks:
    /// see [`robolog::Log::open_warnings`]), whatever the command: each
    /// problem is one stderr line, once per file per run, and the exit
    /// code is 1.
    pub(crate) fn note_opened<'a>(
        &self,
        path: &Path,
        warnings: impl IntoIterator<Item = &'a logcore::Error>,
    ) {
        for w in warnings {
            self.report(path, w);
            self.damaged.store(true, Ordering::Relaxed);
        }
    }

    /// Whether [`Context::note_opened`] reported a damaged input in this
    /// run.
    pub(crate) fn noted_damage(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }
}
