//! Parsing `--start` / `--end` arguments.

use clap::Args;
use logcore::Timestamp;

/// The message filter `cat` and `convert` take: topics and a time range.
#[derive(Debug, Args)]
pub(crate) struct FilterArgs {
    /// Only messages on this topic (repeat for several).
    #[arg(long = "topic", value_name = "T")]
    pub(crate) topics: Vec<String>,
    /// Only messages at or after this time: seconds after the first message
    /// (`12.5`), or `@SECONDS` on the log's own clock.
    #[arg(long, value_name = "S", value_parser = parse_time_arg, allow_hyphen_values = true)]
    pub(crate) start: Option<TimeArg>,
    /// Only messages before this time (same forms as --start).
    #[arg(long, value_name = "S", value_parser = parse_time_arg, allow_hyphen_values = true)]
    pub(crate) end: Option<TimeArg>,
}

impl FilterArgs {
    /// Sets `start` and `end` from `--start` and `--end` when either is
    /// given (else leaves both); relative times count from the first
    /// message, which `first` is asked for only then.
    pub(crate) fn resolve_times<E>(
        &self,
        first: impl FnOnce() -> Result<Option<Timestamp>, E>,
        start: &mut Option<Timestamp>,
        end: &mut Option<Timestamp>,
    ) -> Result<(), E> {
        if self.start.is_none() && self.end.is_none() {
            return Ok(());
        }
        let relative = matches!(self.start, Some(TimeArg::Relative(_)))
            || matches!(self.end, Some(TimeArg::Relative(_)));
        let first = if relative { first()? } else { None };
        *start = self.start.map(|t| t.resolve(first));
        *end = self.end.map(|t| t.resolve(first));
        Ok(())
    }
}

/// A time given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeArg {
    /// Seconds after the log's first message (`12.5`).
    Relative(i64),
    /// A timestamp on the log's own clock, in seconds (`@1599118744.5`).
    Absolute(Timestamp),
}

impl TimeArg {
    /// Resolves against the time of the log's first message.
    pub(crate) fn resolve(self, first: Option<Timestamp>) -> Timestamp {
        match self {
            TimeArg::Absolute(t) => t,
            TimeArg::Relative(ns) => Timestamp(
                first
                    .unwrap_or(Timestamp::ZERO)
                    .as_nanos()
                    .saturating_add(ns),
            ),
        }
    }
}

/// Parses `S` (seconds after the first message) or `@S` (seconds on the
/// log's clock). Seconds may have up to nine decimals.
pub(crate) fn parse_time_arg(s: &str) -> Result<TimeArg, String> {
    let (absolute, num) = match s.strip_prefix('@') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let ns = parse_seconds(num).ok_or_else(|| {
        format!("`{s}` is not a time: give seconds after the first message (e.g. 12.5) or @SECONDS on the log's clock")
    })?;
    Ok(if absolute {
        TimeArg::Absolute(Timestamp(ns))
    } else {
        TimeArg::Relative(ns)
    })
}

/// Decimal seconds to integer nanoseconds without going through floats, so
/// `@1599118744.123456789` is exact.
fn parse_seconds(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_relative_and_absolute() {
        assert_eq!(parse_time_arg("1.5"), Ok(TimeArg::Relative(1_500_000_000)));
        assert_eq!(parse_time_arg(".25"), Ok(TimeArg::Relative(250_000_000)));
        assert_eq!(
            parse_time_arg("@1599118744.123456789"),
            Ok(TimeArg::Absolute(Timestamp(1_599_118_744_123_456_789)))
        );
        assert_eq!(parse_time_arg("-2"), Ok(TimeArg::Relative(-2_000_000_000)));
        for bad in [
            "",
            ".",
            "1.2.3",
            "abc",
            "1e3",
            "0.1234567891",
            "99999999999999999999",
        ] {
            assert!(parse_time_arg(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolves_relative_to_first_message() {
        let first = Some(Timestamp(1_000_000_000));
        assert_eq!(
            TimeArg::Relative(500).resolve(first),
            Timestamp(1_000_000_500)
        );
        assert_eq!(TimeArg::Absolute(Timestamp(7)).resolve(first), Timestamp(7));
    }
}
