//! The time model: integer-nanosecond timestamps, the clock they count
//! from, and an optional anchor to wall-clock (Unix) time.

use std::fmt;

/// A point in time, in integer nanoseconds since the origin of the log's
/// [`Clock`].
///
/// Signed so that differences and hostile negative inputs stay
/// representable; 64 bits cover ±292 years.
///
/// ```
/// use logcore::Timestamp;
/// let t = Timestamp::from_secs_nanos(12, 345_000_000);
/// assert_eq!(t.as_nanos(), 12_345_000_000);
/// assert_eq!(t.to_string(), "12.345000000");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The origin of the clock.
    pub const ZERO: Timestamp = Timestamp(0);
    /// The largest representable timestamp.
    pub const MAX: Timestamp = Timestamp(i64::MAX);
    /// The smallest representable timestamp.
    pub const MIN: Timestamp = Timestamp(i64::MIN);

    /// From integer nanoseconds.
    pub const fn from_nanos(ns: i64) -> Self {
        Timestamp(ns)
    }

    /// From unsigned nanoseconds (MCAP); `None` above `i64::MAX`.
    pub fn from_nanos_u64(ns: u64) -> Option<Self> {
        i64::try_from(ns).ok().map(Timestamp)
    }

    /// From integer microseconds (ULog); `None` on overflow.
    pub fn from_micros(us: u64) -> Option<Self> {
        i64::try_from(us).ok()?.checked_mul(1_000).map(Timestamp)
    }

    /// From seconds and nanoseconds (ROS `time`). Never overflows for `u32`
    /// seconds.
    pub const fn from_secs_nanos(secs: u32, nanos: u32) -> Self {
        Timestamp(secs as i64 * 1_000_000_000 + nanos as i64)
    }

    /// From floating-point milliseconds (VEL), rounded to the nearest
    /// nanosecond. `None` when not finite or out of range.
    pub fn from_millis_f64(ms: f64) -> Option<Self> {
        Self::from_f64_scaled(ms, 1e6)
    }

    /// From floating-point seconds (CARLA), rounded to the nearest
    /// nanosecond. `None` when not finite or out of range.
    pub fn from_secs_f64(s: f64) -> Option<Self> {
        Self::from_f64_scaled(s, 1e9)
    }

    fn from_f64_scaled(v: f64, scale: f64) -> Option<Self> {
        let ns = (v * scale).round();
        // i64::MAX is not exactly representable; stay strictly inside.
        if ns.is_finite() && ns > -9.2e18 && ns < 9.2e18 {
            Some(Timestamp(ns as i64))
        } else {
            None
        }
    }

    /// Integer nanoseconds.
    pub const fn as_nanos(self) -> i64 {
        self.0
    }

    /// Seconds as `f64` (lossy; for display and rates).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// `self - earlier` in nanoseconds, saturating.
    pub const fn saturating_sub(self, earlier: Timestamp) -> i64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for Timestamp {
    /// Seconds with nine decimals, e.g. `-0.000000001` or `12.345000000`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(
            f,
            "{sign}{}.{:09}",
            abs / 1_000_000_000,
            abs % 1_000_000_000
        )
    }
}

/// What a log's timestamps count from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Clock {
    /// Nanoseconds since the Unix epoch, 1970-01-01 UTC (ROS bags, most MCAP).
    Unix,
    /// Time since the recording device booted (ULog).
    Boot,
    /// Time since the recording program started (VEL, CARLA).
    RecordingStart,
}

impl Clock {
    /// Lower-case name used in text and JSON output.
    pub const fn name(self) -> &'static str {
        match self {
            Clock::Unix => "unix",
            Clock::Boot => "boot",
            Clock::RecordingStart => "recording_start",
        }
    }
}

/// Ties one log timestamp to a wall-clock instant, so any other timestamp on
/// the same clock can be shown as a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WallClockAnchor {
    /// A timestamp on the log's own clock.
    pub log_time: Timestamp,
    /// The Unix time (ns since 1970-01-01 UTC) that `log_time` corresponds to.
    pub unix_time: Timestamp,
    /// Where the anchor came from, e.g. `"first GPS fix"` or `"time_ref_utc"`.
    pub source: &'static str,
}

/// The clock of a log and, where the file holds one, its anchor to wall-clock time.
///
/// ```
/// use logcore::{Clock, TimeModel, Timestamp};
/// let unix = TimeModel::new(Clock::Unix);
/// let t = Timestamp::from_secs_nanos(1_599_118_744, 0);
/// assert_eq!(unix.to_unix(t), Some(t));
/// assert_eq!(unix.format_date(t).unwrap(), "2020-09-03T07:39:04.000000000Z");
/// assert_eq!(TimeModel::new(Clock::Boot).to_unix(t), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeModel {
    /// What the timestamps count from.
    pub clock: Clock,
    /// Anchor to wall-clock time, for clocks other than [`Clock::Unix`].
    pub anchor: Option<WallClockAnchor>,
}

impl TimeModel {
    /// A model without an anchor.
    pub const fn new(clock: Clock) -> Self {
        TimeModel {
            clock,
            anchor: None,
        }
    }

    /// A model with an anchor.
    pub const fn anchored(clock: Clock, anchor: WallClockAnchor) -> Self {
        TimeModel {
            clock,
            anchor: Some(anchor),
        }
    }

    /// The Unix time of `t`, when the clock is Unix or anchored.
    pub fn to_unix(&self, t: Timestamp) -> Option<Timestamp> {
        match (self.clock, self.anchor) {
            (Clock::Unix, _) => Some(t),
            (_, Some(a)) => {
                t.0.checked_sub(a.log_time.0)
                    .and_then(|d| a.unix_time.0.checked_add(d))
                    .map(Timestamp)
            }
            _ => None,
        }
    }

    /// The time on the log's clock of the Unix time `unix`, when the
    /// clock is Unix or anchored (the inverse of [`TimeModel::to_unix`]).
    pub fn from_unix(&self, unix: Timestamp) -> Option<Timestamp> {
        match (self.clock, self.anchor) {
            (Clock::Unix, _) => Some(unix),
            (_, Some(a)) => unix
                .0
                .checked_sub(a.unix_time.0)
                .and_then(|d| a.log_time.0.checked_add(d))
                .map(Timestamp),
            _ => None,
        }
    }

    /// `t` as an ISO 8601 UTC date with nanoseconds, when the clock allows.
    pub fn format_date(&self, t: Timestamp) -> Option<String> {
        format_unix(self.to_unix(t)?)
    }
}

/// Formats a Unix timestamp as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`.
pub fn format_unix(t: Timestamp) -> Option<String> {
    let dt = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(t.0)).ok()?;
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:9]Z"
    );
    dt.format(&fmt).ok()
}

/// Unix time of a UTC calendar date and time of day; `None` when the fields
/// are not a valid date (e.g. month 13, or a GPS receiver's zeroed fields).
///
/// ```
/// use logcore::time::unix_from_utc;
/// assert_eq!(unix_from_utc(2020, 9, 3, 7, 39, 4).unwrap().as_nanos(), 1_599_118_744_000_000_000);
/// assert!(unix_from_utc(2020, 13, 1, 0, 0, 0).is_none());
/// ```
pub fn unix_from_utc(
    year: i32,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
    second: u8,
) -> Option<Timestamp> {
    let month = time::Month::try_from(month).ok()?;
    let date = time::Date::from_calendar_date(year, month, day).ok()?;
    let tod = time::Time::from_hms(hour, minute, second).ok()?;
    let dt = time::PrimitiveDateTime::new(date, tod).assume_utc();
    i64::try_from(dt.unix_timestamp_nanos()).ok().map(Timestamp)
}

/// Formats a duration in nanoseconds for people, e.g. `1:02:03.5s` or `12.345s`.
///
/// ```
/// assert_eq!(logcore::time::format_duration(12_345_000_000), "12.345s");
/// assert_eq!(logcore::time::format_duration(3_723_500_000_000), "1:02:03.500s");
/// ```
pub fn format_duration(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let ns = ns.unsigned_abs();
    let ms_total = ns / 1_000_000;
    let ms = ms_total % 1000;
    let s_total = ms_total / 1000;
    let (h, m, s) = (s_total / 3600, (s_total / 60) % 60, s_total % 60);
    if h > 0 {
        format!("{sign}{h}:{m:02}:{s:02}.{ms:03}s")
    } else if m > 0 {
        format!("{sign}{m}:{s:02}.{ms:03}s")
    } else {
        format!("{sign}{s}.{ms:03}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_lossless_where_they_can_be() {
        assert_eq!(Timestamp::from_micros(1_500).unwrap().0, 1_500_000);
        assert_eq!(Timestamp::from_micros(u64::MAX), None);
        assert_eq!(Timestamp::from_millis_f64(1000.0).unwrap().0, 1_000_000_000);
        assert_eq!(Timestamp::from_millis_f64(0.0000004).unwrap().0, 0);
        assert_eq!(Timestamp::from_millis_f64(f64::NAN), None);
        assert_eq!(Timestamp::from_millis_f64(1e300), None);
        assert_eq!(Timestamp::from_secs_f64(0.05).unwrap().0, 50_000_000);
        assert_eq!(
            Timestamp::from_secs_nanos(u32::MAX, 999_999_999).0,
            4_294_967_295_999_999_999
        );
        assert_eq!(Timestamp::from_nanos_u64(u64::MAX), None);
    }

    #[test]
    fn display_handles_negative() {
        assert_eq!(Timestamp(-1).to_string(), "-0.000000001");
        assert_eq!(Timestamp(1_000_000_001).to_string(), "1.000000001");
    }

    #[test]
    fn anchored_clock_maps_to_dates() {
        let anchor = WallClockAnchor {
            log_time: Timestamp(5_000_000_000),
            unix_time: unix_from_utc(2010, 6, 1, 12, 0, 0).unwrap(),
            source: "test",
        };
        let m = TimeModel::anchored(Clock::RecordingStart, anchor);
        assert_eq!(
            m.format_date(Timestamp(6_500_000_000)).unwrap(),
            "2010-06-01T12:00:01.500000000Z"
        );
        assert_eq!(
            m.format_date(Timestamp(0)).unwrap(),
            "2010-06-01T11:59:55.000000000Z"
        );
    }
}
