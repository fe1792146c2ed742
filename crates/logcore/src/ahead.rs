//! Work done ahead on other threads and taken back in submission order:
//! the format crates decompress (and compress) chunks with it while the
//! caller goes through the previous ones.
//!
//! Memory stays bounded: at most [`Ahead::window`] jobs are in flight or
//! waiting to be taken, and the caller submits a new one only when
//! [`Ahead::has_room`]. Results come back in the order the jobs were
//! submitted, whatever order the threads finish them in.
//!
//! A job no thread has started yet when its result is wanted is run by
//! the caller itself, at once: on a machine whose cores are busy with
//! other work the caller never waits for a thread to be scheduled, and
//! the reading degrades to doing the work in place.
//!
//! ```
//! let mut ahead = logcore::ahead::Ahead::with_threads(2, 4, "example").unwrap();
//! for i in 0..4u64 {
//!     assert!(ahead.has_room());
//!     ahead.submit(move || i * i);
//! }
//! assert!(!ahead.has_room());
//! let got: Vec<u64> = std::iter::from_fn(|| ahead.take()).collect();
//! assert_eq!(got, [0, 1, 4, 9]);
//! ```

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, mpsc};

/// At most this many threads per [`Ahead`] (more cores than this rarely
/// pay for a reader that one thread consumes).
pub const MAX_THREADS: usize = 8;

/// Jobs kept in flight beyond one per thread, so a thread finishing early
/// finds the next job waiting.
pub const EXTRA_JOBS: usize = 2;

/// A submitted job's work, taken by whichever side gets to it first.
type Work<T> = Arc<Mutex<Option<Box<dyn FnOnce() -> T + Send>>>>;

type Job<T> = (Work<T>, mpsc::SyncSender<T>);

/// Takes the work out of its slot (`None` when the other side has it).
fn claim<T>(work: &Work<T>) -> Option<Box<dyn FnOnce() -> T + Send>> {
    match work.lock() {
        Ok(mut w) => w.take(),
        Err(p) => p.into_inner().take(),
    }
}

/// Threads running submitted jobs; results taken back in order. Dropping
/// it lets the threads finish their current job and joins them, so none
/// outlives it.
pub struct Ahead<T: Send + 'static> {
    jobs: mpsc::Sender<Job<T>>,
    pending: VecDeque<(Work<T>, mpsc::Receiver<T>)>,
    window: usize,
    threads: usize,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl<T: Send + 'static> Drop for Ahead<T> {
    fn drop(&mut self) {
        // Jobs not started are nobody's now: claim them so no thread runs
        // them, then close the queue, which ends each thread after its
        // current job.
        for (work, _) in self.pending.drain(..) {
            drop(claim(&work));
        }
        drop(std::mem::replace(&mut self.jobs, mpsc::channel().0));
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

impl<T: Send + 'static> std::fmt::Debug for Ahead<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ahead")
            .field("threads", &self.threads)
            .field("window", &self.window)
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl<T: Send + 'static> Ahead<T> {
    /// One thread per core (at most [`MAX_THREADS`]) and a window of one
    /// job per thread plus [`EXTRA_JOBS`]; `None` on a single core (doing
    /// the work in place is then as fast), on a thread of an
    /// [`on_cores`](crate::parallel::on_cores) call that keeps every core
    /// busy already ([`spread`](crate::parallel::spread): more threads
    /// than cores only take turns), or when no thread starts.
    pub fn per_core(name: &str) -> Option<Self> {
        let cores = crate::parallel::cores();
        if cores < 2 || crate::parallel::spread() {
            return None;
        }
        let threads = cores.min(MAX_THREADS);
        Self::with_threads(threads, threads + EXTRA_JOBS, name)
    }

    /// `threads` threads (at least one) named `name`, at most `window`
    /// jobs (at least one) submitted and not taken; `None` when no thread
    /// starts.
    pub fn with_threads(threads: usize, window: usize, name: &str) -> Option<Self> {
        let (jobs, rx) = mpsc::channel::<Job<T>>();
        let rx = Arc::new(Mutex::new(rx));
        let mut handles = Vec::new();
        for _ in 0..threads.max(1) {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(name.to_string())
                .spawn(move || {
                    loop {
                        // A poisoned lock only means another thread died.
                        let job = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(p) => p.into_inner().recv(),
                        };
                        let Ok((work, done)) = job else { break };
                        if let Some(work) = claim(&work) {
                            // The taker may be gone (the reader was dropped).
                            let _ = done.send(work());
                        }
                    }
                });
            if let Ok(h) = spawned {
                handles.push(h);
            }
        }
        (!handles.is_empty()).then(|| Ahead {
            jobs,
            pending: VecDeque::new(),
            window: window.max(1),
            threads: handles.len(),
            handles,
        })
    }

    /// How many jobs may be submitted and not taken at once.
    pub fn window(&self) -> usize {
        self.window
    }

    /// How many threads run the jobs.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Jobs submitted and not taken yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Whether another job fits in the window.
    pub fn has_room(&self) -> bool {
        self.pending.len() < self.window
    }

    /// Queues `work` (the caller keeps to the window: see
    /// [`has_room`](Self::has_room)). Returns false when the threads are
    /// gone, in which case the caller does the work itself.
    pub fn submit(&mut self, work: impl FnOnce() -> T + Send + 'static) -> bool {
        let (done, result) = mpsc::sync_channel(1);
        let work: Work<T> = Arc::new(Mutex::new(Some(Box::new(work))));
        if self.jobs.send((work.clone(), done)).is_err() {
            return false;
        }
        self.pending.push_back((work, result));
        true
    }

    /// The result of the oldest job not taken yet: run here when no
    /// thread started it (a panic in it is then the caller's), else waited
    /// for. `None` when none is pending, or
    /// when the thread running it died (the caller then does that job
    /// itself).
    pub fn take(&mut self) -> Option<T> {
        let (work, result) = self.pending.pop_front()?;
        match claim(&work) {
            Some(work) => Some(work()),
            None => result.recv().ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::{cores, on_cores};

    /// Work spread over every core by `on_cores` reads ahead in place;
    /// the same call outside does not.
    #[test]
    fn no_read_ahead_threads_inside_work_on_every_core() {
        let inside = on_cores(
            vec![1u64, 2],
            |&x| x,
            |_| Ahead::<u8>::per_core("test").is_none(),
        );
        assert_eq!(inside, [true, true]);
        assert_eq!(Ahead::<u8>::per_core("test").is_none(), cores() < 2);
    }

    #[test]
    fn results_come_back_in_submission_order() {
        let mut ahead = Ahead::with_threads(3, 5, "test").unwrap();
        let mut got = Vec::new();
        let mut next = 0u64;
        while got.len() < 40 {
            while ahead.has_room() && next < 40 {
                // Later jobs finish first: the order must still hold.
                let n = next;
                assert!(ahead.submit(move || {
                    std::thread::sleep(std::time::Duration::from_micros((40 - n) * 50));
                    n
                }));
                next += 1;
            }
            assert!(ahead.pending() <= 5);
            got.push(ahead.take().unwrap());
        }
        assert_eq!(got, (0..40).collect::<Vec<_>>());
        assert_eq!(ahead.take(), None);
    }

    #[test]
    fn jobs_no_thread_started_run_in_the_caller() {
        // No thread at all: every job waits in the queue until taken.
        let (jobs, queue) = mpsc::channel();
        let mut ahead = Ahead {
            jobs,
            pending: VecDeque::new(),
            window: 3,
            threads: 0,
            handles: Vec::new(),
        };
        for i in 0..3u32 {
            assert!(ahead.submit(move || (i, std::thread::current().id())));
        }
        let here = std::thread::current().id();
        let got: Vec<_> = std::iter::from_fn(|| ahead.take()).collect();
        assert_eq!(got, [(0, here), (1, here), (2, here)]);
        // What a thread would find later is already claimed.
        let (work, _) = queue.recv().unwrap();
        assert!(claim(&work).is_none());
    }

    #[test]
    fn dropping_it_joins_its_threads() {
        let mut ahead = Ahead::with_threads(2, 4, "ahead-drop-test").unwrap();
        let (started, running) = mpsc::channel();
        let (finish, wait) = mpsc::channel::<()>();
        assert!(ahead.submit(move || {
            let _ = started.send(());
            let _ = wait.recv();
            7u8
        }));
        running.recv().unwrap();
        let alive = std::sync::Arc::new(());
        let seen = alive.clone();
        // The job is running: dropping waits for it to end.
        let t = std::thread::spawn(move || {
            drop(ahead);
            drop(seen);
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert_eq!(
            std::sync::Arc::strong_count(&alive),
            2,
            "drop returned early"
        );
        finish.send(()).unwrap();
        t.join().unwrap();
        assert_eq!(std::sync::Arc::strong_count(&alive), 1);
    }

    #[test]
    fn a_job_that_panics_on_a_thread_is_reported_as_gone() {
        let mut ahead = Ahead::with_threads(2, 4, "test").unwrap();
        let (started, running) = mpsc::channel();
        assert!(ahead.submit(move || -> u8 {
            let _ = started.send(());
            panic!("job fails")
        }));
        // Taken by a thread (not by the caller, who would panic itself).
        running.recv().unwrap();
        assert!(ahead.submit(|| 7u8));
        assert_eq!(ahead.take(), None);
        assert_eq!(ahead.take(), Some(7));
    }
}
