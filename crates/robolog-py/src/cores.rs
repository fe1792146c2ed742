//! Work spread over the machine's cores, heaviest first.

use std::panic::AssertUnwindSafe;
use std::sync::{Mutex, PoisonError};

use crate::errors::Failure;

/// The failure of work whose thread stopped (a panic not caught).
pub(crate) fn stopped() -> Failure {
    Failure::Panic("a worker thread stopped".into())
}

/// `f` of each of `items`, given back in the items' order, run on up to
/// as many threads as the machine has cores, the calling thread one of
/// them. Each thread takes the heaviest item left (by `weight`) when done
/// with one, so that no thread is left with a large item at the end.
/// `None` for the items of a thread that panicked (`f` is expected to
/// catch its own panics).
pub(crate) fn on_cores<I: Send, T: Send>(
    items: Vec<I>,
    weight: impl Fn(&I) -> u64,
    f: impl Fn(I) -> T + Sync,
) -> Vec<Option<T>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if workers <= 1 {
        return items.into_iter().map(|i| Some(f(i))).collect();
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
    let next = || queue.lock().unwrap_or_else(PoisonError::into_inner).next();
    let work = || {
        let mut mine = Vec::new();
        while let Some((_, at, item)) = next() {
            mine.push((at, f(item)));
        }
        mine
    };
    let mut done: Vec<Option<T>> = std::iter::repeat_with(|| None).take(count).collect();
    std::thread::scope(|s| {
        // The calling thread is one of the workers: a thread spawned
        // costs about 0.05 ms, as much as a small item.
        let helpers: Vec<_> = (1..workers).map(|_| s.spawn(work)).collect();
        let own = std::panic::catch_unwind(AssertUnwindSafe(work)).unwrap_or_default();
        let theirs = helpers
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default());
        for (at, r) in own.into_iter().chain(theirs) {
            if let Some(slot) = done.get_mut(at) {
                *slot = Some(r);
            }
        }
    });
    done
}
