//! Work spread over the machine's cores: the one helper the workspace's
//! crates share (the Python package's frames and tables, `robolog-sql`'s
//! opening of a set of logs, `robolog-arrow`'s flat ULog frames).
//!
//! [`on_cores`] runs a function on every item, on up to as many threads as
//! the machine has cores, the calling thread one of them; each thread
//! takes the heaviest item left when done with one, so that no thread is
//! left with a large item at the end. A panic on any thread (a bug, or the
//! embedding program's interrupt, see [`interrupt`]) stops the other
//! threads at their next item and continues on the calling thread once
//! every thread stopped.
//!
//! ```
//! let squares = logcore::parallel::on_cores((1..=4u64).collect(), |&x| x, |x| x * x);
//! assert_eq!(squares, vec![1, 4, 9, 16]);
//! ```

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::interrupt;

thread_local! {
    /// Whether this thread is one of the threads an [`on_cores`] call
    /// spreads its work over.
    static SPREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread runs an item of an [`on_cores`] call that uses
/// more than one thread: every core already has work, so the work done
/// here should not start threads of its own (a reader's read-ahead, see
/// [`Ahead::per_core`](crate::ahead::Ahead::per_core)).
///
/// ```
/// use logcore::parallel::{on_cores, spread};
/// assert!(!spread());
/// let inside = on_cores(vec![1u64, 2, 3, 4], |&x| x, |_| spread());
/// // On a machine of one core the items run on the calling thread alone.
/// let cores = logcore::parallel::cores();
/// assert!(inside.iter().all(|&s| s == (cores > 1)));
/// assert!(!spread());
/// ```
pub fn spread() -> bool {
    SPREAD.with(std::cell::Cell::get)
}

/// Marks the thread as [`spread`] until dropped, then restores what it was.
struct Spreading(bool);

impl Spreading {
    fn enter() -> Self {
        Spreading(SPREAD.with(|s| s.replace(true)))
    }
}

impl Drop for Spreading {
    fn drop(&mut self) {
        SPREAD.with(|s| s.set(self.0));
    }
}

/// The threads the machine runs at once, asked of the system once per
/// process: the standard library reads the cgroup's CPU quota from files
/// on each call, which costs more than a small call's work.
///
/// ```
/// assert!(logcore::parallel::cores() >= 1);
/// ```
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How often the calling thread, waiting for the others, calls
/// [`interrupt::check`]: well under the 100 ms a user notices.
const WAIT: Duration = Duration::from_millis(20);

/// `f` of each of `items`, given back in the items' order, run on up to as
/// many threads as the machine has cores (the calling thread one of
/// them), the heaviest items (by `weight`) first.
///
/// Every thread calls [`interrupt::check`] before each item, and the
/// calling thread also while it waits for the others; the other threads
/// carry the calling thread's [`interrupt::capture`], so they do the work
/// for the same call of the embedding program. A panic (or an interrupt's
/// unwinding) on any thread stops the others before their next item and,
/// once every thread stopped, continues on the calling thread (the first
/// one, the calling thread's own first).
pub fn on_cores<I: Send, T: Send>(
    items: Vec<I>,
    weight: impl Fn(&I) -> u64,
    f: impl Fn(I) -> T + Sync,
) -> Vec<T> {
    on_threads(cores(), items, weight, f)
}

/// [`on_cores`] on at most `threads` threads (the calling thread one of
/// them): for work that leaves cores to other work of the same call (a
/// scan beside a writing pass takes all cores but the writer's).
///
/// ```
/// let out = logcore::parallel::on_threads(1, vec![3u64, 1, 2], |&x| x, |x| x * 2);
/// assert_eq!(out, [6, 2, 4]);
/// ```
pub fn on_threads<I: Send, T: Send>(
    threads: usize,
    items: Vec<I>,
    weight: impl Fn(&I) -> u64,
    f: impl Fn(I) -> T + Sync,
) -> Vec<T> {
    interrupt::check();
    let workers = threads.min(items.len());
    if workers <= 1 {
        return items
            .into_iter()
            .map(|i| {
                interrupt::check();
                f(i)
            })
            .collect();
    }
    let count = items.len();
    let mut by_weight: Vec<(u64, usize, I)> = items
        .into_iter()
        .enumerate()
        .map(|(at, i)| (weight(&i), at, i))
        .collect();
    // Heaviest first; equal weights in the items' order.
    by_weight.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let queue = Mutex::new(by_weight.into_iter());
    let halted = AtomicBool::new(false);
    let next = || {
        if halted.load(Ordering::Acquire) {
            return None;
        }
        queue.lock().unwrap_or_else(PoisonError::into_inner).next()
    };
    let work = || {
        let _spreading = Spreading::enter();
        let mut mine = Vec::new();
        while let Some((_, at, item)) = next() {
            interrupt::check();
            mine.push((at, f(item)));
        }
        mine
    };
    /// Halts the other threads when the calling thread unwinds.
    struct HaltOnUnwind<'a>(&'a AtomicBool);
    impl Drop for HaltOnUnwind<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.store(true, Ordering::Release);
            }
        }
    }
    let carried = interrupt::capture();
    let caller = std::thread::current();
    let (work, halted) = (&work, &halted);
    let mut done: Vec<Option<T>> = std::iter::repeat_with(|| None).take(count).collect();
    std::thread::scope(|s| {
        let _halt = HaltOnUnwind(halted);
        let helpers: Vec<_> = (1..workers)
            .map(|_| {
                let (carried, caller) = (carried.clone(), caller.clone());
                s.spawn(move || {
                    let mine = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        interrupt::carrying(carried, work)
                    }));
                    if mine.is_err() {
                        halted.store(true, Ordering::Release);
                    }
                    caller.unpark();
                    mine
                })
            })
            .collect();
        let own = work();
        // Waits for the others, calling the interrupt check meanwhile
        // (they wake this thread when done).
        while helpers.iter().any(|h| !h.is_finished()) {
            std::thread::park_timeout(WAIT);
            interrupt::check();
        }
        let mut failed = None;
        let mut theirs = Vec::new();
        for h in helpers {
            match h.join() {
                Ok(Ok(mine)) => theirs.extend(mine),
                Ok(Err(payload)) | Err(payload) => {
                    failed.get_or_insert(payload);
                }
            }
        }
        if let Some(payload) = failed {
            std::panic::resume_unwind(payload);
        }
        for (at, r) in own.into_iter().chain(theirs) {
            if let Some(slot) = done.get_mut(at) {
                *slot = Some(r);
            }
        }
    });
    // Every item was taken: no thread stopped early without unwinding.
    done.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_items_order_whatever_their_weights() {
        let items: Vec<u64> = (0..200).collect();
        // Weights reversed from the order: the heaviest (last) first.
        let out = on_cores(items.clone(), |&x| x, |x| x * 3);
        assert_eq!(out, items.iter().map(|x| x * 3).collect::<Vec<_>>());
        assert!(on_cores(Vec::<u8>::new(), |_| 0, |x| x).is_empty());
    }

    #[test]
    fn a_panic_on_any_thread_reaches_the_caller_after_the_others_stop() {
        // Each item in turn panics, whichever thread takes it.
        for bad in [0u64, 5, 63] {
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
                on_cores(
                    (0..64u64).collect(),
                    |_| 1,
                    |x| {
                        if x == bad {
                            std::panic::panic_any(format!("item {x}"));
                        }
                        x
                    },
                )
            }));
            let payload = result.expect_err("the panic reaches the caller");
            assert_eq!(
                payload.downcast_ref::<String>(),
                Some(&format!("item {bad}"))
            );
        }
    }
}
