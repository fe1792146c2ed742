//! Work spread over the machine's cores, heaviest first.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};

use crate::errors::Failure;
use crate::interrupt;

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
///
/// Ctrl-C: every thread calls [`interrupt::poll`] before each item, and
/// the calling thread polls while it waits for the others; the others
/// work for the calling thread's call ([`interrupt::carrying`]), so they
/// stop at their next poll once it is interrupted. The interrupt then
/// unwinds out of `on_cores` (to the call's `guarded`) once every thread
/// stopped.
pub(crate) fn on_cores<I: Send, T: Send>(
    items: Vec<I>,
    weight: impl Fn(&I) -> u64,
    f: impl Fn(I) -> T + Sync,
) -> Vec<Option<T>> {
    interrupt::poll();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if workers <= 1 {
        return items
            .into_iter()
            .map(|i| {
                interrupt::poll();
                Some(f(i))
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
    let next = || queue.lock().unwrap_or_else(PoisonError::into_inner).next();
    let work = || {
        let mut mine = Vec::new();
        while let Some((_, at, item)) = next() {
            interrupt::poll();
            mine.push((at, f(item)));
        }
        mine
    };
    let (stop, private) = match interrupt::current() {
        Some(stop) => (stop, false),
        None => (Arc::new(interrupt::Stop::default()), true),
    };
    let caller = std::thread::current();
    let work = &work;
    let mut done: Vec<Option<T>> = std::iter::repeat_with(|| None).take(count).collect();
    // Stops the others (at their next poll), waits for them, and unwinds
    // with `payload`.
    let unwind = |helpers: Vec<std::thread::ScopedJoinHandle<'_, _>>, payload| -> ! {
        stop.halt();
        for h in helpers {
            let _ = h.join();
        }
        interrupt::resume(payload, private.then_some(&*stop))
    };
    interrupt::carrying(Some(Arc::clone(&stop)), || {
        std::thread::scope(|s| {
            // The calling thread is one of the workers: a thread spawned
            // costs about 0.05 ms, as much as a small item.
            let helpers: Vec<_> = (1..workers)
                .map(|_| {
                    let (stop, caller) = (Arc::clone(&stop), caller.clone());
                    s.spawn(move || {
                        let mine = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            interrupt::carrying(Some(stop), work)
                        }));
                        caller.unpark();
                        mine.unwrap_or_default()
                    })
                })
                .collect();
            let own = match std::panic::catch_unwind(AssertUnwindSafe(work)) {
                Ok(own) => own,
                Err(payload) if interrupt::is_interrupt(payload.as_ref()) => {
                    unwind(helpers, payload)
                }
                Err(_) => Vec::new(),
            };
            // Waits for the others, looking for Ctrl-C meanwhile (they wake
            // this thread when done).
            while helpers.iter().any(|h| !h.is_finished()) {
                std::thread::park_timeout(interrupt::EVERY);
                if let Err(payload) = std::panic::catch_unwind(interrupt::poll) {
                    unwind(helpers, payload);
                }
            }
            let theirs = helpers
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default());
            for (at, r) in own.into_iter().chain(theirs) {
                if let Some(slot) = done.get_mut(at) {
                    *slot = Some(r);
                }
            }
        })
    });
    done
}
