//! A `--where` selection found while the output is written: the scan of
//! the topic's table runs on threads of its own and hands its matching
//! messages to a [`KeyStream`] in time order, saying up to which log time
//! every message is decided; the writing pass, on meeting a message of the
//! topic, waits only until the scan has passed that message's time
//! ([`FilterPlan::run`]). The two overlap instead of one waiting for the
//! whole of the other.
//!
//! ```
//! use logcore::Timestamp;
//! use robolog::convert::{KeyStream, MessageKey};
//! let keys = KeyStream::new();
//! // A scan's first piece: the message at 10 ns matches, and every
//! // message before 20 ns is decided.
//! let at = |t| MessageKey { log_time: Timestamp(t), occurrence: 0 };
//! keys.decided([at(10)], Some(Timestamp(20)));
//! // Nothing writes beside it here, so nothing abandoned it.
//! assert!(!keys.abandoned());
//! ```

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use logcore::{Error, Timestamp, interrupt};

use super::select::{Filter, MatchError, MessageKey, PlanError};
use crate::Log;

/// How long the writing pass waits for the scan between interrupt checks.
const WAIT: Duration = Duration::from_millis(5);

/// The matching messages of one topic of one input, as a scan finds them
/// (see the module docs). Clones share the same keys.
#[derive(Clone, Default)]
pub struct KeyStream(Arc<Shared>);

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// The matching messages found so far, in order.
    keys: Vec<MessageKey>,
    /// How many times keys given out of order were sorted in.
    resorted: u64,
    /// Every message before this log time is decided.
    before: Option<Timestamp>,
    /// Every message is decided.
    done: bool,
    /// Why the scan stopped before deciding every message.
    failed: Option<String>,
    /// The writing pass no longer waits: the scan may stop.
    abandoned: bool,
}

impl fmt::Debug for KeyStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.lock();
        f.debug_struct("KeyStream")
            .field("keys", &s.keys.len())
            .field("before", &s.before)
            .field("done", &s.done)
            .finish()
    }
}

impl KeyStream {
    /// An empty stream: nothing decided yet.
    pub fn new() -> Self {
        KeyStream::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds matching messages `keys` and, with `before`, says that every
    /// message of the topic with a log time before it is now decided (a
    /// scan gives its pieces in time order, each piece's keys in order;
    /// keys given out of order are sorted in). The end of the scan decides
    /// the rest ([`FilterPlan::run`] says so when the scan returns).
    pub fn decided(&self, keys: impl IntoIterator<Item = MessageKey>, before: Option<Timestamp>) {
        let mut s = self.lock();
        let from = s.keys.len();
        s.keys.extend(keys);
        let start = from.saturating_sub(1);
        if !s.keys[start..].is_sorted() {
            s.keys.sort_unstable();
            s.keys.dedup();
            s.resorted += 1;
        }
        if let Some(b) = before {
            s.before = Some(s.before.map_or(b, |old| old.max(b)));
        }
        drop(s);
        self.0.changed.notify_all();
    }

    /// Whether the writing pass stopped waiting for this stream (it ended,
    /// or failed): a scan stops early when it is.
    pub fn abandoned(&self) -> bool {
        self.lock().abandoned
    }

    /// Every message is decided.
    fn finish(&self) {
        self.lock().done = true;
        self.0.changed.notify_all();
    }

    /// The scan stopped: a writing pass waiting for it fails with `why`.
    fn fail(&self, why: String) {
        self.lock().failed = Some(why);
        self.0.changed.notify_all();
    }

    fn abandon(&self) {
        self.lock().abandoned = true;
    }

    /// Every matching message, in order, once the scan ended.
    fn all(&self) -> Result<Vec<MessageKey>, String> {
        let mut s = self.lock();
        match &s.failed {
            Some(why) => Err(why.clone()),
            None => Ok(std::mem::take(&mut s.keys)),
        }
    }
}

/// A writing pass's view of a [`KeyStream`]: the keys decided so far,
/// copied out in order, and a cursor over them (the pass meets the
/// topic's messages in time order, so a key is most often the next one).
#[derive(Debug)]
pub(crate) struct StreamReader {
    stream: KeyStream,
    keys: Vec<MessageKey>,
    /// The stream's `resorted` when `keys` was last copied.
    resorted: u64,
    at: usize,
    before: Option<Timestamp>,
    done: bool,
}

impl StreamReader {
    pub(crate) fn new(stream: KeyStream) -> Self {
        StreamReader {
            stream,
            keys: Vec::new(),
            resorted: 0,
            at: 0,
            before: None,
            done: false,
        }
    }

    fn decided(&self, key: &MessageKey) -> bool {
        self.done || self.before.is_some_and(|b| key.log_time < b)
    }

    /// Whether `key` matches, once the scan decided it (the writing pass
    /// waits until then, checking for an interrupt now and then).
    pub(crate) fn contains(&mut self, key: &MessageKey) -> Result<bool, Error> {
        if !self.decided(key) {
            self.wait_for(key)?;
        }
        while self.keys.get(self.at).is_some_and(|k| k < key) {
            self.at += 1;
        }
        if self.keys.get(self.at) == Some(key) {
            self.at += 1;
            return Ok(true);
        }
        // Met out of order (a key before the cursor).
        Ok(self.keys.binary_search(key).is_ok())
    }

    /// Copies out what the scan decided until `key` is.
    fn wait_for(&mut self, key: &MessageKey) -> Result<(), Error> {
        let mut s = self.stream.lock();
        loop {
            match s.keys.get(self.keys.len()..) {
                Some(new) if s.resorted == self.resorted => self.keys.extend_from_slice(new),
                _ => {
                    self.keys.clone_from(&s.keys);
                    self.resorted = s.resorted;
                    self.at = 0;
                }
            }
            self.before = s.before;
            self.done = s.done;
            if self.decided(key) {
                return Ok(());
            }
            if let Some(why) = &s.failed {
                return Err(Error::invalid_argument(why.clone()));
            }
            s = self
                .stream
                .0
                .changed
                .wait_timeout(s, WAIT)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            drop(s);
            interrupt::check();
            s = self.stream.lock();
        }
    }
}

/// A content filter's scan, ready to run on the log it was made for: it
/// gives `keys` the matching messages in time order ([`KeyStream::decided`])
/// and returns when every message is decided or the stream is
/// [abandoned](KeyStream::abandoned).
pub type Scan = Box<dyn FnOnce(&Log<'_>, &KeyStream) -> Result<(), MatchError> + Send>;

/// Checks an expression over a topic of a log (it must parse, name the
/// topic's columns and be boolean) and makes its [`Scan`]
/// (`robolog_sql::prepare_where`).
pub type Prepare<'m> = dyn Fn(&Log<'_>, &str, &str) -> Result<Scan, MatchError> + 'm;

/// Runs `scan` on `log` to its end and gives every matching message, in
/// order (what `--around` needs before anything is written, and the own
/// formats' writers).
pub(crate) fn run_to_end(scan: Scan, log: &Log<'_>) -> Result<Vec<MessageKey>, MatchError> {
    let keys = KeyStream::new();
    scan(log, &keys)?;
    keys.finish();
    keys.all().map_err(MatchError::Read)
}

/// A scan to run beside the writing pass.
pub(crate) struct Pending {
    pub(crate) input: usize,
    pub(crate) topic: String,
    pub(crate) scan: Scan,
    pub(crate) keys: KeyStream,
}

/// What [`plan_filter_streaming`](super::plan_filter_streaming) planned:
/// the [`Filter`], and the `--where` scans that run while the output is
/// written ([`FilterPlan::run`]).
pub struct FilterPlan {
    pub(crate) filter: Filter,
    pub(crate) pending: Vec<Pending>,
}

impl fmt::Debug for FilterPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FilterPlan")
            .field("filter", &self.filter)
            .field(
                "scans",
                &self.pending.iter().map(|p| &p.topic).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Abandons the streams when the writing pass ends, however it ends.
struct Abandon<'a>(&'a [KeyStream]);

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        for k in self.0 {
            k.abandon();
        }
    }
}

impl FilterPlan {
    /// The filter: its content filters' keys come from the scans while
    /// [`FilterPlan::run`] writes.
    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    /// The plan's filter with every scan run to its end first (for a
    /// writing pass that needs every key before it starts).
    pub fn finished(self, logs: &[&Log<'_>]) -> Result<Filter, PlanError> {
        let FilterPlan {
            mut filter,
            pending,
        } = self;
        for p in pending {
            let log = logs.get(p.input).ok_or_else(|| PlanError::Read {
                input: p.input,
                message: format!("--where {}: no input {}", p.topic, p.input),
            })?;
            let keys = run_to_end(p.scan, log)
                .map_err(|e| super::select::plan_error("--where", p.input, e))?;
            filter.streamed.remove(&(p.input, p.topic.clone()));
            filter.keep_only(p.input, &p.topic, keys);
        }
        Ok(filter)
    }

    /// Runs `write` (the writing pass, given the filter) with the
    /// `--where` scans on threads beside it, over `logs` (the inputs the
    /// plan was made of), and gives what `write` gave. A scan that fails
    /// makes the writing pass fail where it waits for it; the scan's
    /// error is then the one returned. Once the writing pass ends, scans
    /// still running stop.
    pub fn run<T, E>(
        self,
        logs: &[&Log<'_>],
        write: impl FnOnce(&Filter) -> Result<T, E>,
    ) -> Result<Result<T, E>, PlanError> {
        let FilterPlan { filter, pending } = self;
        if pending.is_empty() {
            return Ok(write(&filter));
        }
        let streams: Vec<KeyStream> = pending.iter().map(|p| p.keys.clone()).collect();
        let carried = interrupt::capture();
        std::thread::scope(|s| {
            let mut scans = Vec::with_capacity(pending.len());
            for p in pending {
                let Some(&log) = logs.get(p.input) else {
                    p.keys
                        .fail(format!("--where {}: no input {}", p.topic, p.input));
                    continue;
                };
                let carried = carried.clone();
                scans.push(s.spawn(move || {
                    let Pending {
                        input,
                        topic,
                        scan,
                        keys,
                    } = p;
                    let ran = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        interrupt::carrying(carried, || scan(log, &keys))
                    }));
                    match &ran {
                        Ok(Ok(())) => keys.finish(),
                        Ok(Err(MatchError::Expression(e) | MatchError::Read(e))) => {
                            keys.fail(format!("--where {topic}: {e}"));
                        }
                        Err(_) => keys.fail(format!("--where {topic}: the scan stopped")),
                    }
                    (input, ran)
                }));
            }
            let abandon = Abandon(&streams);
            let written = write(&filter);
            drop(abandon);
            let mut failed = None;
            let mut unwound = None;
            for h in scans {
                match h.join() {
                    Ok((_, Ok(Ok(())))) => {}
                    Ok((input, Ok(Err(e)))) => {
                        failed
                            .get_or_insert_with(|| super::select::plan_error("--where", input, e));
                    }
                    Ok((_, Err(payload))) | Err(payload) => {
                        unwound.get_or_insert(payload);
                    }
                }
            }
            match written {
                // What was written did not wait for a scan that failed
                // after it: every message it took was decided.
                Ok(t) => Ok(Ok(t)),
                Err(e) => {
                    if let Some(payload) = unwound {
                        std::panic::resume_unwind(payload);
                    }
                    failed.map_or(Ok(Err(e)), Err)
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(t: i64, occurrence: u32) -> MessageKey {
        MessageKey {
            log_time: Timestamp(t),
            occurrence,
        }
    }

    #[test]
    fn a_reader_waits_for_the_scan_and_finds_keys_in_and_out_of_order() {
        let stream = KeyStream::new();
        let mut r = StreamReader::new(stream.clone());
        let feeder = std::thread::spawn({
            let s = stream.clone();
            move || {
                s.decided([k(1, 0), k(1, 1), k(5, 0)], Some(Timestamp(6)));
                std::thread::sleep(Duration::from_millis(20));
                s.decided([k(7, 0)], Some(Timestamp(9)));
                std::thread::sleep(Duration::from_millis(20));
                // Given out of order: sorted in.
                s.decided([k(3, 0)], None);
                s.finish();
            }
        });
        assert!(r.contains(&k(1, 1)).unwrap());
        assert!(!r.contains(&k(2, 0)).unwrap());
        assert!(r.contains(&k(5, 0)).unwrap());
        // Waits for the second piece.
        assert!(r.contains(&k(7, 0)).unwrap());
        assert!(!r.contains(&k(8, 0)).unwrap());
        // Behind the cursor.
        assert!(r.contains(&k(1, 0)).unwrap());
        // Waits for the end.
        assert!(!r.contains(&k(20, 0)).unwrap());
        assert!(r.contains(&k(3, 0)).unwrap());
        assert!(r.contains(&k(7, 0)).unwrap());
        feeder.join().unwrap();

        // A scan that fails: what it decided stands, the rest is the error.
        let s = KeyStream::new();
        s.decided([k(1, 0)], Some(Timestamp(2)));
        let mut r = StreamReader::new(s.clone());
        s.fail("--where /x: boom".into());
        assert!(r.contains(&k(1, 0)).unwrap());
        let e = r.contains(&k(3, 0)).unwrap_err().to_string();
        assert!(e.contains("--where /x: boom"), "{e}");
        s.abandon();
        assert!(s.abandoned());
    }
}
