//! Work spread over all cores: opening the logs of a set, building a
//! table's schema from each of its logs.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::Error;

/// `f` of every item, on all cores, in the items' order; the first error
/// (in that order) wins. Items go to the threads one at a time, so that a
/// few slow ones do not leave the other cores idle; a thread stops at its
/// first error.
pub(crate) fn on_all_cores<I: Sync, T: Send>(
    items: &[I],
    f: impl Fn(&I) -> Result<T, Error> + Sync,
) -> Result<Vec<T>, Error> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let results: Vec<Vec<(usize, Result<T, Error>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        let r = f(item);
                        let failed = r.is_err();
                        out.push((i, r));
                        if failed {
                            break;
                        }
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut slots: Vec<Option<Result<T, Error>>> = (0..items.len()).map(|_| None).collect();
    for (i, r) in results.into_iter().flatten() {
        slots[i] = Some(r);
    }
    let mut out = Vec::with_capacity(items.len());
    for (slot, item) in slots.into_iter().zip(items) {
        match slot {
            Some(r) => out.push(r?),
            // The threads stopped at errors before reaching this item
            // (they are at later items), or one panicked: done here.
            None => out.push(f(item)?),
        }
    }
    Ok(out)
}
