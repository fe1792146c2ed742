//! Series reduced per pixel column: a [`Reducer`] keeps every point of a
//! series until it has more than its budget, then one bucket per column of
//! the time range, each holding the bucket's smallest and largest value
//! with their times. Drawn as lines through both, the reduced series looks
//! like the full one at that width, and its extremes are exact: the
//! smallest and largest value of the whole series are points of the
//! reduced one, at their own times.

/// One bucket of a reduced series.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    min: (i64, f64),
    max: (i64, f64),
}

impl Bucket {
    fn new(t: i64, v: f64) -> Self {
        Bucket {
            min: (t, v),
            max: (t, v),
        }
    }

    fn add(&mut self, t: i64, v: f64) {
        if v < self.min.1 {
            self.min = (t, v);
        }
        if v > self.max.1 {
            self.max = (t, v);
        }
    }

    /// The bucket's points in time order (one when min and max are one).
    fn points(&self) -> impl Iterator<Item = (i64, f64)> {
        let (a, b) = if self.min.0 <= self.max.0 {
            (self.min, self.max)
        } else {
            (self.max, self.min)
        };
        std::iter::once(a).chain((a != b).then_some(b))
    }
}

/// A series of (time, value) points reduced to at most about `max_points`
/// points over the time range `[t0, t1]` (see the module docs). NaN values
/// are kept apart: they are counted but not drawn.
#[derive(Debug, Clone)]
pub(crate) struct Reducer {
    t0: i64,
    span: i64,
    max_points: usize,
    raw: Vec<(i64, f64)>,
    buckets: Option<Vec<Option<Bucket>>>,
    count: u64,
    nan: u64,
}

impl Reducer {
    /// A reducer over the time range `[t0, t1]` keeping at most
    /// `max_points` points (at least 2).
    pub(crate) fn new(t0: i64, t1: i64, max_points: usize) -> Self {
        Reducer {
            t0,
            span: t1.saturating_sub(t0).max(1),
            max_points: max_points.max(2),
            raw: Vec::new(),
            buckets: None,
            count: 0,
            nan: 0,
        }
    }

    /// Adds the value `v` at time `t`.
    pub(crate) fn push(&mut self, t: i64, v: f64) {
        self.count += 1;
        if v.is_nan() {
            self.nan += 1;
            return;
        }
        match &mut self.buckets {
            Some(b) => add(b, self.t0, self.span, t, v),
            None => {
                self.raw.push((t, v));
                if self.raw.len() > self.max_points {
                    let mut b = vec![None; self.max_points / 2];
                    for &(t, v) in &self.raw {
                        add(&mut b, self.t0, self.span, t, v);
                    }
                    self.raw = Vec::new();
                    self.buckets = Some(b);
                }
            }
        }
    }

    /// How many values were pushed (NaN ones included).
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// How many pushed values were NaN.
    pub(crate) fn nan(&self) -> u64 {
        self.nan
    }

    /// Whether the points are a reduction (some values are not among
    /// them).
    pub(crate) fn reduced(&self) -> bool {
        self.buckets.is_some()
    }

    /// The points: every one pushed (NaN left out) while within the
    /// budget, else the buckets' minima and maxima in time order.
    pub(crate) fn points(&self) -> Vec<(i64, f64)> {
        match &self.buckets {
            None => self.raw.clone(),
            Some(b) => b.iter().flatten().flat_map(Bucket::points).collect(),
        }
    }
}

fn add(buckets: &mut [Option<Bucket>], t0: i64, span: i64, t: i64, v: f64) {
    let n = buckets.len();
    let rel = t.saturating_sub(t0).clamp(0, span) as i128;
    let i = ((rel * n as i128) / (span as i128 + 1)) as usize;
    let slot = &mut buckets[i.min(n - 1)];
    match slot {
        Some(b) => b.add(t, v),
        None => *slot = Some(Bucket::new(t, v)),
    }
}

/// Reduces already drawn points (in time order) to at most about
/// `max_points` by the same min/max rule over their own time range: the
/// extremes stay exact, since the extremes of extremes are the extremes.
pub(crate) fn rereduce(points: &[(i64, f64)], max_points: usize) -> Vec<(i64, f64)> {
    if points.len() <= max_points.max(2) {
        return points.to_vec();
    }
    let (t0, t1) = (points[0].0, points[points.len() - 1].0);
    let mut r = Reducer::new(t0, t1, max_points);
    let mut b = vec![None; r.max_points / 2];
    for &(t, v) in points {
        add(&mut b, r.t0, r.span, t, v);
    }
    r.buckets = Some(b);
    r.points()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_point_within_budget() {
        let mut r = Reducer::new(0, 100, 10);
        for i in 0..10 {
            r.push(i * 10, i as f64);
        }
        assert!(!r.reduced());
        assert_eq!(r.points().len(), 10);
        assert_eq!(r.points()[3], (30, 3.0));
    }

    #[test]
    fn reduction_keeps_extremes_exact_and_in_order() {
        let mut r = Reducer::new(0, 9_999, 100);
        let mut exact = Vec::new();
        for i in 0..10_000i64 {
            let v = ((i as f64) * 0.37).sin() * (i as f64);
            exact.push((i, v));
            r.push(i, v);
        }
        let pts = r.points();
        assert!(r.reduced());
        assert!(pts.len() <= 100, "{}", pts.len());
        assert!(pts.windows(2).all(|w| w[0].0 <= w[1].0));
        let min = exact
            .iter()
            .cloned()
            .fold((0, f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
        let max = exact
            .iter()
            .cloned()
            .fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a });
        assert!(pts.contains(&min));
        assert!(pts.contains(&max));
        // Every reduced point is a point of the series.
        assert!(pts.iter().all(|p| exact[p.0 as usize] == *p));
        // Re-reducing keeps them too.
        let again = rereduce(&pts, 20);
        assert!(again.len() <= 20);
        assert!(again.contains(&min) && again.contains(&max));
    }

    #[test]
    fn each_bucket_keeps_its_own_min_and_max() {
        // A known series: a sawtooth with a spike every 97 samples, over
        // 10,000 ns in 50 buckets (max_points 100).
        let (t0, t1, n) = (1_000i64, 10_999i64, 50i64);
        let mut r = Reducer::new(t0, t1, 100);
        let mut exact = Vec::new();
        for i in 0..10_000i64 {
            let v = (i % 13) as f64 - if i % 97 == 0 { 1000.0 } else { 0.0 };
            exact.push((t0 + i, v));
            r.push(t0 + i, v);
        }
        assert!(r.reduced());
        let pts = r.points();
        // Bucket b holds the times whose offset from t0 times n,
        // divided by the span plus one, is b.
        let bucket = |t: i64| (t - t0) * n / (t1 - t0 + 1);
        for b in 0..n {
            let of = |p: &&(i64, f64)| bucket(p.0) == b;
            let want: Vec<f64> = exact.iter().filter(of).map(|p| p.1).collect();
            let got: Vec<f64> = pts.iter().filter(of).map(|p| p.1).collect();
            let lo = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
            let hi = |v: &[f64]| v.iter().copied().fold(f64::MIN, f64::max);
            assert_eq!((lo(&got), hi(&got)), (lo(&want), hi(&want)), "bucket {b}");
            assert!(got.len() <= 2, "bucket {b}: {got:?}");
        }
        // 200 ns per bucket, each holding 0..12 and two or three spikes.
        assert_eq!(pts.len(), 100);
        assert_eq!(pts.iter().filter(|p| p.1 < -900.0).count(), 50);
    }

    #[test]
    fn nan_is_counted_not_drawn() {
        let mut r = Reducer::new(0, 10, 10);
        r.push(0, f64::NAN);
        r.push(1, 1.0);
        assert_eq!((r.count(), r.nan(), r.points().len()), (2, 1, 1));
    }
}
