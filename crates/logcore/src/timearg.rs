//! One grammar for the times users give to choose part of a log (the
//! CLI's `--start`/`--end`, Python's `start=`/`end=`), and for durations
//! (`tolerance`, window lengths).
//!
//! A time is one of:
//! - seconds after the log's first message: `12.5`, `12.5s`, `-2`, or
//!   with another unit, `1500ms`, `250us` (or `µs`), `300ns`, `2min`;
//! - an instant on the log's own clock, in seconds: `@1599118744.5`
//!   (Python gives the same as an `int` of nanoseconds);
//! - an ISO 8601 instant in UTC, for logs whose clock is UTC or anchored
//!   to it: `2019-05-13T14:09:15Z`, `2019-05-13T14:09:15.25Z`,
//!   `2019-05-13 16:09:15+02:00` (a date alone means its midnight, UTC).
//!
//! Decimal seconds become nanoseconds without going through floats, so
//! `@1599118744.123456789` is exact.
//!
//! ```
//! use logcore::timearg::TimeArg;
//! use logcore::{Clock, TimeModel, Timestamp};
//! let first = Some(Timestamp(1_000_000_000));
//! let unix = TimeModel::new(Clock::Unix);
//! let t: TimeArg = "2.5s".parse().unwrap();
//! assert_eq!(t.resolve(first, &unix), Ok(Timestamp(3_500_000_000)));
//! let t: TimeArg = "1970-01-01T00:00:04Z".parse().unwrap();
//! assert_eq!(t.resolve(first, &unix), Ok(Timestamp(4_000_000_000)));
//! // A boot clock without an anchor has no UTC instants.
//! assert!(t.resolve(first, &TimeModel::new(Clock::Boot)).is_err());
//! ```

use crate::time::{TimeModel, Timestamp, unix_from_utc};

/// A time given by a user (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeArg {
    /// Nanoseconds after the log's first message.
    AfterFirst(i64),
    /// An instant on the log's own clock.
    OnClock(Timestamp),
    /// An instant in UTC (nanoseconds since 1970-01-01T00:00:00Z).
    Utc(Timestamp),
}

/// What a time argument must look like, for error messages.
pub const TIME_FORMS: &str = "seconds after the first message (12.5, 12.5s, 1500ms), \
     @SECONDS on the log's clock, or an ISO 8601 UTC instant (2019-05-13T14:09:15Z)";

impl std::str::FromStr for TimeArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let parsed = if let Some(rest) = t.strip_prefix('@') {
            parse_seconds(rest).map(|ns| TimeArg::OnClock(Timestamp(ns)))
        } else if looks_like_date(t) {
            parse_iso8601(t).map(TimeArg::Utc)
        } else {
            parse_duration(t).map(TimeArg::AfterFirst)
        };
        parsed.ok_or_else(|| format!("`{s}` is not a time: give {TIME_FORMS}"))
    }
}

impl TimeArg {
    /// The instant on the log's clock: `first` is the time of the log's
    /// first message (relative times count from it, or from zero for a
    /// log without messages), `model` its clock (UTC instants need a
    /// clock that is UTC or anchored to it).
    pub fn resolve(self, first: Option<Timestamp>, model: &TimeModel) -> Result<Timestamp, String> {
        match self {
            TimeArg::OnClock(t) => Ok(t),
            TimeArg::AfterFirst(ns) => Ok(Timestamp(
                first.unwrap_or(Timestamp::ZERO).0.saturating_add(ns),
            )),
            TimeArg::Utc(u) => model.from_unix(u).ok_or_else(|| {
                format!(
                    "a UTC time was given, but this log's clock ({}) is not anchored to UTC: \
                     give seconds after the first message or @SECONDS on its clock",
                    model.clock.name()
                )
            }),
        }
    }
}

/// Whether `s` starts as a date does (`YYYY-MM-DD`).
fn looks_like_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-'
}

/// A duration: a decimal number with an optional unit (`s` when none):
/// `ns`, `us`/`µs`, `ms`, `s`, `min`, `h`. Returns nanoseconds.
///
/// ```
/// use logcore::timearg::parse_duration;
/// assert_eq!(parse_duration("20ms"), Some(20_000_000));
/// assert_eq!(parse_duration("1.5"), Some(1_500_000_000));
/// assert_eq!(parse_duration("2min"), Some(120_000_000_000));
/// assert_eq!(parse_duration("1e3"), None);
/// ```
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let scale: i64 = match unit.trim() {
        "" | "s" | "sec" => 1,
        "ms" => return scaled(num, 1_000_000),
        "us" | "µs" => return scaled(num, 1_000),
        "ns" => return scaled(num, 1),
        "min" | "m" => 60,
        "h" => 3_600,
        _ => return None,
    };
    parse_seconds(num)?.checked_mul(scale)
}

/// `num` (decimal, up to nine places in all) times `unit_ns`.
fn scaled(num: &str, unit_ns: i64) -> Option<i64> {
    // As seconds (nine decimals exact), then scaled down: ms have six
    // decimals of ns, so `1.5ms` is 1_500_000 exactly.
    let as_secs = parse_seconds(num)?;
    let ns = i128::from(as_secs) * i128::from(unit_ns) / 1_000_000_000;
    i64::try_from(ns).ok()
}

/// Decimal seconds (`-`, digits, `.`, up to nine decimals) to integer
/// nanoseconds.
pub fn parse_seconds(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > 9 {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut frac_ns: i64 = 0;
    if !frac.is_empty() {
        frac_ns = frac.parse::<i64>().ok()? * 10i64.pow(9 - frac.len() as u32);
    }
    let ns = whole.checked_mul(1_000_000_000)?.checked_add(frac_ns)?;
    Some(if neg { -ns } else { ns })
}

/// An ISO 8601 instant: `YYYY-MM-DD`, then optionally `T` (or a space)
/// and `HH:MM[:SS[.fraction]]`, then `Z`, `±HH:MM` or nothing (UTC).
/// Returns nanoseconds since 1970 UTC.
///
/// ```
/// use logcore::timearg::parse_iso8601;
/// let t = parse_iso8601("2019-05-13T14:09:15.5Z").unwrap();
/// assert_eq!(t.0, 1_557_756_555_500_000_000);
/// assert_eq!(parse_iso8601("2019-05-13T16:09:15.5+02:00"), Some(t));
/// assert_eq!(parse_iso8601("2019-02-30T00:00:00Z"), None);
/// ```
pub fn parse_iso8601(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    let num = |t: &str| -> Option<u32> {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    let date = s.get(..10)?;
    let (y, rest) = date.split_once('-')?;
    let (mo, d) = rest.split_once('-')?;
    let (year, month, day) = (num(y)?, num(mo)?, num(d)?);
    let mut rest = &s[10..];
    let (mut hour, mut minute, mut second, mut frac_ns) = (0u32, 0u32, 0u32, 0i64);
    if let Some(r) = rest.strip_prefix(['T', 't', ' ']) {
        let end = r
            .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.' || c == ','))
            .unwrap_or(r.len());
        let (clock, zone) = r.split_at(end);
        let (hms, frac) = match clock.split_once(['.', ',']) {
            Some((a, b)) => (a, Some(b)),
            None => (clock, None),
        };
        let mut parts = hms.split(':');
        hour = num(parts.next()?)?;
        minute = num(parts.next()?)?;
        if let Some(sec) = parts.next() {
            second = num(sec)?;
        }
        if parts.next().is_some() {
            return None;
        }
        if let Some(f) = frac {
            frac_ns = parse_seconds(&format!("0.{f}"))?;
        }
        rest = zone;
    }
    let offset_s: i64 = match rest {
        "" | "Z" | "z" => 0,
        z => {
            let sign = match z.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = z[1..]
                .split_once(':')
                .unwrap_or((z.get(1..3)?, z.get(3..)?));
            let (h, m) = (num(h)?, num(m)?);
            if h > 23 || m > 59 {
                return None;
            }
            sign * i64::from(h * 3600 + m * 60)
        }
    };
    let day_start = unix_from_utc(
        i32::try_from(year).ok()?,
        u8::try_from(month).ok()?,
        u8::try_from(day).ok()?,
        u8::try_from(hour).ok()?,
        u8::try_from(minute).ok()?,
        u8::try_from(second).ok()?,
    )?;
    let ns = day_start
        .0
        .checked_add(frac_ns)?
        .checked_sub(offset_s.checked_mul(1_000_000_000)?)?;
    Some(Timestamp(ns))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Clock, WallClockAnchor};

    fn parse(s: &str) -> Result<TimeArg, String> {
        s.parse()
    }

    #[test]
    fn relative_absolute_and_utc_forms() {
        assert_eq!(parse("1.5"), Ok(TimeArg::AfterFirst(1_500_000_000)));
        assert_eq!(parse(".25"), Ok(TimeArg::AfterFirst(250_000_000)));
        assert_eq!(parse("2.5s"), Ok(TimeArg::AfterFirst(2_500_000_000)));
        assert_eq!(parse("1500ms"), Ok(TimeArg::AfterFirst(1_500_000_000)));
        assert_eq!(parse("1.5ms"), Ok(TimeArg::AfterFirst(1_500_000)));
        assert_eq!(parse("250us"), Ok(TimeArg::AfterFirst(250_000)));
        assert_eq!(parse("250µs"), Ok(TimeArg::AfterFirst(250_000)));
        assert_eq!(parse("300ns"), Ok(TimeArg::AfterFirst(300)));
        assert_eq!(parse("2min"), Ok(TimeArg::AfterFirst(120_000_000_000)));
        assert_eq!(parse("-2"), Ok(TimeArg::AfterFirst(-2_000_000_000)));
        assert_eq!(
            parse("@1599118744.123456789"),
            Ok(TimeArg::OnClock(Timestamp(1_599_118_744_123_456_789)))
        );
        // Python: datetime(2019, 5, 13, 14, 9, 15, tzinfo=timezone.utc)
        // .timestamp() == 1557756555.
        assert_eq!(
            parse("2019-05-13T14:09:15Z"),
            Ok(TimeArg::Utc(Timestamp(1_557_756_555_000_000_000)))
        );
        assert_eq!(
            parse("2019-05-13 14:09:15.123456789"),
            Ok(TimeArg::Utc(Timestamp(1_557_756_555_123_456_789)))
        );
        assert_eq!(
            parse("2019-05-13T10:09:15-04:00"),
            Ok(TimeArg::Utc(Timestamp(1_557_756_555_000_000_000)))
        );
        assert_eq!(
            parse("2019-05-13"),
            Ok(TimeArg::Utc(Timestamp(1_557_705_600_000_000_000)))
        );
        for bad in [
            "",
            ".",
            "1.2.3",
            "abc",
            "1e3",
            "0.1234567891",
            "99999999999999999999",
            "2s5",
            "5 parsecs",
            "2019-13-01T00:00:00Z",
            "2019-05-13T25:00:00Z",
            "2019-05-13T14:09:15+25:00",
            "2019-05-13T14:09:15Q",
            "2019-05-13T14",
            "@",
            "@x",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(
                e.contains("is not a time") && e.contains("ISO 8601"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn resolves_against_the_first_message_and_the_anchor() {
        let first = Some(Timestamp(1_000_000_000));
        let unix = TimeModel::new(Clock::Unix);
        assert_eq!(
            TimeArg::AfterFirst(500).resolve(first, &unix),
            Ok(Timestamp(1_000_000_500))
        );
        assert_eq!(
            TimeArg::AfterFirst(500).resolve(None, &unix),
            Ok(Timestamp(500))
        );
        assert_eq!(
            TimeArg::OnClock(Timestamp(7)).resolve(first, &unix),
            Ok(Timestamp(7))
        );
        // A boot clock anchored by GPS: 10 s after boot was this instant.
        let boot = TimeModel::anchored(
            Clock::Boot,
            WallClockAnchor {
                log_time: Timestamp(10_000_000_000),
                unix_time: Timestamp(1_557_756_555_000_000_000),
                source: "GPS",
            },
        );
        let t = TimeArg::Utc(Timestamp(1_557_756_556_500_000_000));
        assert_eq!(t.resolve(first, &boot), Ok(Timestamp(11_500_000_000)));
        let e = t.resolve(first, &TimeModel::new(Clock::Boot)).unwrap_err();
        assert!(e.contains("not anchored to UTC"), "{e}");
    }
}
