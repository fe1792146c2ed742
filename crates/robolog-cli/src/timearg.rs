//! Parsing `--start` / `--end` arguments (the grammar of
//! [`logcore::timearg`], shared with Python and the report).

use clap::Args;
use logcore::timearg::TimeArg;
use logcore::{TimeModel, Timestamp};

/// The message filter `cat` and `convert` take: topics and a time range.
#[derive(Debug, Args)]
pub(crate) struct FilterArgs {
    /// Only messages on this topic (repeat for several).
    #[arg(long = "topic", value_name = "T")]
    pub(crate) topics: Vec<String>,
    #[command(flatten)]
    pub(crate) range: TimeRangeArgs,
}

/// `--start` and `--end`.
#[derive(Debug, Clone, Args, Default)]
pub(crate) struct TimeRangeArgs {
    /// Only messages at or after this time: seconds after the first message
    /// (`12.5`, `12.5s`, `1500ms`), `@SECONDS` on the log's own clock, or an
    /// ISO 8601 UTC instant (`2019-05-13T14:09:15Z`) for logs whose clock
    /// is UTC or anchored to it.
    #[arg(long, value_name = "T", value_parser = parse_time_arg, allow_hyphen_values = true)]
    pub(crate) start: Option<TimeArg>,
    /// Only messages before this time (same forms as --start).
    #[arg(long, value_name = "T", value_parser = parse_time_arg, allow_hyphen_values = true)]
    pub(crate) end: Option<TimeArg>,
}

impl TimeRangeArgs {
    /// Whether --start or --end is given.
    pub(crate) fn any(&self) -> bool {
        self.start.is_some() || self.end.is_some()
    }

    /// Sets `start` and `end` from `--start` and `--end` when either is
    /// given (else leaves both). `log` gives the time of the log's first
    /// message and its clock, asked for only when a time needs them;
    /// `refused` makes the error of a UTC time on a clock without an
    /// anchor.
    pub(crate) fn resolve_times<E>(
        &self,
        log: impl FnOnce() -> Result<(Option<Timestamp>, TimeModel), E>,
        refused: impl Fn(String) -> E,
        start: &mut Option<Timestamp>,
        end: &mut Option<Timestamp>,
    ) -> Result<(), E> {
        if self.start.is_none() && self.end.is_none() {
            return Ok(());
        }
        let on_clock = |t: &Option<TimeArg>| t.is_none_or(|t| matches!(t, TimeArg::OnClock(_)));
        let (first, model) = if on_clock(&self.start) && on_clock(&self.end) {
            (None, TimeModel::new(logcore::Clock::Unix))
        } else {
            log()?
        };
        let resolve = |t: Option<TimeArg>| t.map(|t| t.resolve(first, &model)).transpose();
        *start = resolve(self.start).map_err(&refused)?;
        *end = resolve(self.end).map_err(&refused)?;
        Ok(())
    }
}

/// Parses a `--start` / `--end` value.
pub(crate) fn parse_time_arg(s: &str) -> Result<TimeArg, String> {
    s.parse()
}
