//! The time-base rule: all channels share one time base.

use super::*;

/// Log times from 10^17 ns (March 1973) on are taken as Unix-epoch times;
/// simulation times counted from a scenario start stay far below.
pub(super) const EPOCH_LIKE_NS: u64 = 100_000_000_000_000_000;

pub(super) fn time_base(sink: &mut Sink, scan: &Scan, states: &BTreeMap<u16, ChannelState>) {
    let mut absolute = Vec::new();
    let mut relative = Vec::new();
    for (id, (lo, _)) in &scan.ranges {
        if *lo >= EPOCH_LIKE_NS {
            absolute.push(*id);
        } else {
            relative.push(*id);
        }
    }
    if !absolute.is_empty() && !relative.is_empty() {
        let osi = |ids: &[u16]| {
            ids.iter()
                .any(|i| states.get(i).is_some_and(|s| s.top.is_some()))
        };
        if osi(&absolute) || osi(&relative) {
            sink.add(rule::TIME_BASE, Location::default(), || {
                format!(
                    "channels {absolute:?} have Unix-epoch log times, channels {relative:?} times relative to a start: the file mixes time bases"
                )
            });
        }
    }
}
