//! The span a log's time axis shows: where the bulk of its messages lie,
//! not where a single stray message (a topic stamped twenty minutes after
//! the flight, a clock reset to 1970) would stretch it.
//!
//! The rule, over the messages read (those of the range, where one is
//! asked for):
//!
//! 1. the core runs from the message at the [`TAIL`] quantile of the
//!    message times to the one at `1 - TAIL` (the 0.1% at either end set
//!    aside, none for fewer than 1000 messages), of the messages within
//!    the log's own span as its summary gives it (a ULog's starts at its
//!    header's timestamp: topics stamped before it, such as one whose
//!    timestamp stays 0, are not part of the core however many);
//! 2. the span grows outwards from the core over every message that lies
//!    within `gap` of it (a quarter of the core's width, and at least a
//!    second; a second at most for messages outside the log's own span):
//!    runs of messages that continue the log stay in;
//! 3. what is left beyond a gap wider than that is an outlier: shown at the
//!    edge of the timeline with its time and count, not on the axis.
//!
//! Times are counted in `BINS` equal parts of the whole span with each
//! part's first and last time, so the rule needs no second copy of the
//! times and the span's ends are exact message times (the quantiles are
//! taken at the resolution of a part).

/// The share of messages at either end that the core leaves out.
pub const TAIL: f64 = 0.001;

/// Equal parts of the whole span the message times are counted in.
pub(crate) const BINS: usize = 1 << 15;

/// Groups of outliers listed at most on each side of the span (further
/// ones join the farthest group).
pub const MAX_OUTLIER_GROUPS: usize = 16;

/// The smallest gap that makes an outlier, ns.
const MIN_GAP: i64 = 1_000_000_000;

/// The widest gap a span grows over from a core `width` ns wide: a
/// quarter of it, and at least a second.
pub(crate) fn gap(width: i64) -> i64 {
    (width / 4).max(MIN_GAP)
}

/// One part of the span: how many messages, the first and last time.
#[derive(Debug, Clone, Copy)]
struct Bin {
    count: u64,
    min: i64,
    max: i64,
}

/// Message times counted over `[t0, t1]` in [`BINS`] parts; the times
/// outside it (a summary's span can leave out messages stamped before the
/// log's start) kept each, up to [`MAX_OUTSIDE`], the rest in one part on
/// either side.
#[derive(Debug, Clone)]
pub(crate) struct TimeHistogram {
    t0: i64,
    span: i128,
    bins: Vec<Bin>,
    /// The times outside `[t0, t1]`, each with its tag.
    outside: Vec<(i64, usize)>,
    count: u64,
}

/// Times outside the counted span kept one by one at most.
const MAX_OUTSIDE: usize = 1 << 16;

const EMPTY: Bin = Bin {
    count: 0,
    min: i64::MAX,
    max: i64::MIN,
};

/// A group of messages outside a log's span: from `start` to `end` (ns on
/// the log's clock), `count` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) start: i64,
    pub(crate) end: i64,
    pub(crate) count: u64,
}

/// Where the bulk of the messages lie, and the groups of the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bulk {
    /// The first message time of the bulk, ns.
    pub(crate) start: i64,
    /// The last message time of the bulk, ns.
    pub(crate) end: i64,
    /// The messages outside it, in time order.
    pub(crate) outliers: Vec<Group>,
    /// Whether every outlier is a time outside the counted span kept by
    /// itself (see [`TimeHistogram::outside_outliers`]).
    pub(crate) outside_only: bool,
}

impl TimeHistogram {
    /// Counts over `[t0, t1]`.
    pub(crate) fn new(t0: i64, t1: i64) -> Self {
        TimeHistogram {
            t0,
            span: (t1 as i128 - t0 as i128).max(1),
            bins: Vec::new(),
            outside: Vec::new(),
            count: 0,
        }
    }

    /// Counts a message at `t`, tagged `tag` (its channel).
    pub(crate) fn add(&mut self, t: i64, tag: usize) {
        if self.bins.is_empty() {
            self.bins = vec![EMPTY; BINS + 2];
        }
        self.count += 1;
        let rel = t as i128 - self.t0 as i128;
        if (rel < 0 || rel > self.span) && self.outside.len() < MAX_OUTSIDE {
            self.outside.push((t, tag));
            return;
        }
        let i = if rel < 0 {
            0
        } else if rel > self.span {
            BINS + 1
        } else {
            1 + ((rel * BINS as i128) / (self.span + 1)) as usize
        };
        let b = &mut self.bins[i];
        b.count += 1;
        b.min = b.min.min(t);
        b.max = b.max.max(t);
    }

    /// The bulk of the messages counted, when some lie outside it (`None`
    /// when every message is in it, or there is none).
    pub(crate) fn bulk(&self) -> Option<Bulk> {
        let n = self.count;
        if n == 0 {
            return None;
        }
        // The parts in time order: the times before the counted span one
        // by one, then the parts, then the times after it.
        let mut outside: Vec<i64> = self.outside.iter().map(|o| o.0).collect();
        outside.sort_unstable();
        let cut = outside.partition_point(|&t| t < self.t0);
        let one = |&t: &i64| Bin {
            count: 1,
            min: t,
            max: t,
        };
        let parts: Vec<Bin> = (outside[..cut].iter().map(one))
            .chain(self.bins.iter().copied())
            .chain(outside[cut..].iter().map(one))
            .collect();
        // The core is taken from the messages within the counted span
        // (the log's own, as its summary gives it: a ULog's from its
        // header's start), where it holds messages: those stamped outside
        // it (a topic's stale timestamp from before the log started,
        // however many) join the span only within the gap of it.
        let inner = (cut + 1, cut + BINS);
        let inner_n: u64 = parts[inner.0..=inner.1].iter().map(|b| b.count).sum();
        let lumped = (cut, cut + BINS + 1);
        if inner_n > 0 {
            Self::bulk_of(&parts, inner, inner_n, lumped)
        } else {
            Self::bulk_of(&parts, (0, parts.len() - 1), n, lumped)
        }
    }

    /// The times outside the counted span that are outliers of `bulk`
    /// (one whose [`Bulk::outside_only`] is true: they are all of them),
    /// each as (its group in `bulk.outliers`, its tag, whether it is
    /// before the counted span).
    pub(crate) fn outside_outliers(&self, bulk: &Bulk) -> Vec<(usize, usize, bool)> {
        (self.outside.iter())
            .filter(|&&(t, _)| t < bulk.start || t > bulk.end)
            .map(|&(t, tag)| {
                let g = bulk.outliers.partition_point(|g| g.end < t);
                (
                    g.min(bulk.outliers.len().saturating_sub(1)),
                    tag,
                    t < self.t0,
                )
            })
            .collect()
    }

    /// [`bulk`](Self::bulk) over parts in time order: its core from the
    /// parts `within` (first and last, inclusive), which hold `n`
    /// messages, grown over every part within the gap. The parts
    /// `lumped` (first and last) hold the counted span's parts and those
    /// of the times outside it not kept by themselves.
    fn bulk_of(
        bins: &[Bin],
        within: (usize, usize),
        n: u64,
        lumped: (usize, usize),
    ) -> Option<Bulk> {
        let skip = (n as f64 * TAIL).floor() as u64;
        // The parts holding message number `skip` and `n - 1 - skip` (in
        // time order, from 0) of those within.
        let at = |k: u64| {
            let mut seen = 0;
            for (i, b) in bins.iter().enumerate().take(within.1 + 1).skip(within.0) {
                seen += b.count;
                if seen > k {
                    return i;
                }
            }
            within.1
        };
        let (mut lo, mut hi) = (at(skip), at(n - 1 - skip));
        let g = gap(bins[hi].max.saturating_sub(bins[lo].min));
        // Outwards over every part that lies within the gap.
        let full = |i: usize| bins[i].count > 0;
        // Outside the parts within, only over a second: a stale timestamp
        // is not brought in by a wide core.
        let reach = |j: usize| {
            if (within.0..=within.1).contains(&j) {
                g
            } else {
                g.min(MIN_GAP)
            }
        };
        while let Some(j) = (0..lo).rev().find(|&j| full(j)) {
            if bins[lo].min.saturating_sub(bins[j].max) > reach(j) {
                break;
            }
            lo = j;
        }
        while let Some(j) = (hi + 1..bins.len()).find(|&j| full(j)) {
            if bins[j].min.saturating_sub(bins[hi].max) > reach(j) {
                break;
            }
            hi = j;
        }
        let before: Vec<usize> = (0..lo).filter(|&j| full(j)).collect();
        let after: Vec<usize> = (hi + 1..bins.len()).filter(|&j| full(j)).collect();
        if before.is_empty() && after.is_empty() && lo >= within.0 && hi <= within.1 {
            return None;
        }
        // Before the span: groups from the span outwards, then in time
        // order.
        let outside_only = (before.iter().chain(&after)).all(|&j| j < lumped.0 || j > lumped.1);
        let mut early = groups(bins, before.iter().rev().copied(), g);
        early.reverse();
        let mut outliers = early;
        outliers.extend(groups(bins, after.into_iter(), g));
        Some(Bulk {
            start: bins[lo].min,
            end: bins[hi].max,
            outliers,
            outside_only,
        })
    }
}

/// The parts `which` of `bins` (from the span outwards) as groups: a part
/// within `g` of the group before joins it; past [`MAX_OUTLIER_GROUPS`]
/// every part joins the last group.
fn groups(bins: &[Bin], which: impl Iterator<Item = usize>, g: i64) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for i in which {
        let b = bins[i];
        let full = out.len() >= MAX_OUTLIER_GROUPS;
        match out.last_mut() {
            Some(last)
                if full || b.min.max(last.start).saturating_sub(b.max.min(last.end)) <= g =>
            {
                last.start = last.start.min(b.min);
                last.end = last.end.max(b.max);
                last.count += b.count;
            }
            _ => out.push(Group {
                start: b.min,
                end: b.max,
                count: b.count,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    /// The histogram of `times` over their own span.
    fn of(times: &[i64]) -> TimeHistogram {
        let (a, b) = (*times.iter().min().unwrap(), *times.iter().max().unwrap());
        let mut h = TimeHistogram::new(a, b);
        for &t in times {
            h.add(t, 0);
        }
        h
    }

    /// A flight of `secs` seconds at 100 Hz from `t0`.
    fn flight(t0: i64, secs: i64) -> Vec<i64> {
        (0..=secs * 100).map(|i| t0 + i * S / 100).collect()
    }

    #[test]
    fn a_log_without_strays_keeps_its_whole_span() {
        assert_eq!(of(&flight(5 * S, 69)).bulk(), None);
        // Few messages, far apart: every one counts.
        assert_eq!(of(&[0, 10 * S, 3600 * S]).bulk(), None);
    }

    #[test]
    fn one_stray_message_an_hour_later_is_an_outlier() {
        let mut t = flight(112 * S, 69);
        let stray = 112 * S + 3669 * S + 17;
        t.push(stray);
        let bulk = of(&t).bulk().unwrap();
        assert_eq!((bulk.start, bulk.end), (112 * S, 181 * S));
        // Within the counted span: the span has to be counted again.
        assert!(!bulk.outside_only);
        assert_eq!(
            bulk.outliers,
            vec![Group {
                start: stray,
                end: stray,
                count: 1
            }]
        );
    }

    #[test]
    fn strays_on_both_sides_group_by_their_gaps() {
        let mut t = flight(1000 * S, 60);
        // A clock reset: three messages near 0, two an hour after the end.
        t.extend([0, 1, S / 2]);
        t.extend([4660 * S, 4660 * S + S / 10]);
        let bulk = of(&t).bulk().unwrap();
        assert_eq!((bulk.start, bulk.end), (1000 * S, 1060 * S));
        let counts: Vec<u64> = bulk.outliers.iter().map(|g| g.count).collect();
        assert_eq!(counts, [3, 2]);
        assert_eq!((bulk.outliers[0].start, bulk.outliers[0].end), (0, S / 2));
        assert_eq!(bulk.outliers[1].start, 4660 * S);
    }

    #[test]
    fn times_outside_the_counted_span_are_outliers_however_many() {
        // Counted over 20 s .. 47 s (the log's own span, from a ULog
        // header's start), with two messages stamped 0 and a topic of 100
        // messages stuck at 2 s (3.6% of them).
        let mut h = TimeHistogram::new(20 * S, 47 * S);
        let stale = std::iter::repeat_n(2 * S, 100);
        for (i, t) in flight(20 * S, 27)
            .into_iter()
            .chain([0, 0])
            .chain(stale)
            .enumerate()
        {
            h.add(t, i);
        }
        let bulk = h.bulk().unwrap();
        // Each a time kept by itself: the pass that counted them stands.
        assert!(bulk.outside_only);
        let each = h.outside_outliers(&bulk);
        assert_eq!(each.len(), 102);
        assert_eq!(each[0], (0, 2701, true));
        assert_eq!(each[101], (0, 2802, true));
        assert_eq!((bulk.start, bulk.end), (20 * S, 47 * S));
        assert_eq!(
            bulk.outliers,
            vec![Group {
                start: 0,
                end: 2 * S,
                count: 102
            }]
        );
    }

    #[test]
    fn stale_times_just_before_the_counted_span_join_it() {
        // Counted from 20 s: messages at 19.5 s and 19.8 s (within a
        // second of it) join the span, those at 2 s stay outliers.
        let mut h = TimeHistogram::new(20 * S, 47 * S);
        for t in flight(20 * S, 27)
            .into_iter()
            .chain([2 * S, 19_500_000_000, 19_800_000_000])
        {
            h.add(t, 0);
        }
        let bulk = h.bulk().unwrap();
        assert_eq!((bulk.start, bulk.end), (19_500_000_000, 47 * S));
        assert_eq!(bulk.outliers.len(), 1);
        assert_eq!(bulk.outliers[0].start, 2 * S);
        // Only the near ones: no outlier, but a wider span.
        let mut h = TimeHistogram::new(20 * S, 47 * S);
        for t in flight(20 * S, 27).into_iter().chain([19_800_000_000]) {
            h.add(t, 0);
        }
        let bulk = h.bulk().unwrap();
        assert_eq!((bulk.start, bulk.outliers.len()), (19_800_000_000, 0));
    }

    #[test]
    fn a_slow_topic_continuing_the_log_stays_in() {
        let mut t = flight(0, 100);
        // 1 Hz for 30 s after the others stop: 30 messages, under 0.1% of
        // 10,031 beyond the core, each within a second of the one before.
        t.extend((1..=30).map(|i| 100 * S + i * S));
        assert_eq!(of(&t).bulk(), None);
    }

    #[test]
    fn many_stray_messages_past_the_tail_share_stay_in() {
        // 0.5% of the messages an hour later are not a stray few: the span
        // keeps them.
        let mut t = flight(0, 10);
        t.extend((0..6).map(|i| 3600 * S + i));
        assert_eq!(of(&t).bulk(), None);
    }
}
