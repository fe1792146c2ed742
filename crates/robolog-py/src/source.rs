//! An opened log shared by the Python objects that read it: the file's
//! reader (or the reader of bytes the log owns), its summary, and the
//! problems found while reading it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use logcore::{LogReader, Summary};
use robolog::{Limits, OpenOptions};

use crate::errors::{Failure, guarded, unless_changed};

/// The library's log over bytes of its own (the name `self_cell` needs
/// for the type it builds).
type BytesLog<'a> = robolog::Log<'a>;

self_cell::self_cell!(
    /// A log over bytes the Python caller passed, copied once so that
    /// the log owns them.
    struct InMemory {
        owner: Vec<u8>,
        #[covariant]
        dependent: BytesLog,
    }
);

/// Where a log's bytes are.
enum Opened {
    /// A file (memory-mapped by the library).
    File(Box<robolog::Log<'static>>),
    /// Bytes in memory.
    Bytes(InMemory),
}

/// What a log is opened from.
pub(crate) enum Input {
    /// A file.
    Path(PathBuf),
    /// Bytes (copied).
    Bytes(Vec<u8>),
}

/// An opened log, shared (in an [`Arc`]) by the `Log` object and the
/// iterators and tables reading it, which may outlive its `close`.
pub(crate) struct Shared {
    opened: Opened,
    /// The file, as the caller named it; `None` for bytes.
    pub(crate) path: Option<String>,
    /// The summary the log was opened with.
    pub(crate) summary: Summary,
    /// What the readers worked around or found damaged, each once.
    problems: Mutex<Vec<String>>,
}

impl Shared {
    /// Opens `input` with `limits` and reads its summary: the work of
    /// `robolog.open`, done without the GIL.
    pub(crate) fn open(input: Input, limits: Limits) -> Result<Arc<Shared>, Failure> {
        guarded(|| {
            let options = OpenOptions::new().limits(limits);
            let (opened, path) = match input {
                Input::Path(p) => {
                    let log =
                        unless_changed(Some(p.as_path()), options.open(&p).map_err(Failure::from))?;
                    (Opened::File(Box::new(log)), Some(p.display().to_string()))
                }
                Input::Bytes(b) => {
                    let log = InMemory::try_new(b, |b| options.open_bytes(b))?;
                    (Opened::Bytes(log), None)
                }
            };
            let (summary, problems) = {
                let log = match &opened {
                    Opened::File(l) => l,
                    Opened::Bytes(m) => m.borrow_dependent(),
                };
                let summary = log.summary()?;
                let mut problems: Vec<String> = Vec::new();
                for p in log
                    .open_warnings()
                    .iter()
                    .chain(&summary.warnings)
                    .map(ToString::to_string)
                {
                    if !problems.contains(&p) {
                        problems.push(p);
                    }
                }
                (summary, problems)
            };
            let shared = Shared {
                opened,
                path,
                summary,
                problems: Mutex::new(problems),
            };
            shared.unless_changed(Ok(()))?;
            Ok(Arc::new(shared))
        })
    }

    /// `r`, unless a file of this log changed while it was read (see
    /// [`unless_changed`]): every call that read the log ends with it.
    pub(crate) fn unless_changed<T>(&self, r: Result<T, Failure>) -> Result<T, Failure> {
        unless_changed(self.path.as_deref().map(std::path::Path::new), r)
    }

    /// The library's log.
    pub(crate) fn log(&self) -> &robolog::Log<'_> {
        match &self.opened {
            Opened::File(l) => l,
            Opened::Bytes(m) => m.borrow_dependent(),
        }
    }

    /// Records a problem, unless it is recorded already.
    pub(crate) fn add_problem(&self, problem: String) {
        let mut problems = self.problems.lock().unwrap_or_else(PoisonError::into_inner);
        if !problems.contains(&problem) {
            problems.push(problem);
        }
    }

    /// The problems so far.
    pub(crate) fn problems(&self) -> Vec<String> {
        self.problems
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The topic of `channel`, or `"?"` for a channel the summary lacks.
    pub(crate) fn topic_of(&self, channel: logcore::ChannelId) -> &str {
        self.summary
            .channel(channel)
            .map_or("?", |c| c.info.topic.as_str())
    }
}
