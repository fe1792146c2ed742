//! What a log's clock is, in the names every door uses (Python's
//! `Log.clock`, SQL's `logs.clock`): `utc`, `boot`, `simulation`,
//! `recording_start` or `unknown`, and its instants in UTC where it has
//! them.
//!
//! The readers say what their format's clock counts from
//! ([`crate::Clock`]); this adds what the values themselves show: a ROS
//! bag or MCAP file whose times start before 2000 was not stamped with
//! the time of day (simulated time, `use_sim_time`, a robot without a
//! time source), so its clock is `unknown` and it has no UTC instants
//! rather than dates in 1970.

use crate::{Clock, Format, Summary, Timestamp};

/// 2000-01-01T00:00:00Z in ns: Unix-clocked times before it are not
/// taken as dates.
pub const UTC_FROM: Timestamp = Timestamp(946_684_800_000_000_000);

/// The kind of a log's clock (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockKind {
    /// Nanoseconds since 1970-01-01 UTC.
    Utc,
    /// Time since the recording device booted (ULog).
    Boot,
    /// Simulated time (CARLA).
    Simulation,
    /// Time since the recording program started (VEL).
    RecordingStart,
    /// Not known to be any of the others (a Unix clock whose times are
    /// before 2000).
    Unknown,
}

impl ClockKind {
    /// The kind of `summary`'s clock.
    pub fn of(summary: &Summary) -> ClockKind {
        match summary.time_model.clock {
            Clock::Unix if summary.start.is_some_and(|s| s < UTC_FROM) => ClockKind::Unknown,
            Clock::Unix => ClockKind::Utc,
            Clock::Boot => ClockKind::Boot,
            Clock::RecordingStart if summary.format == Format::CarlaRecorder => {
                ClockKind::Simulation
            }
            Clock::RecordingStart => ClockKind::RecordingStart,
        }
    }

    /// Its name: `utc`, `boot`, `simulation`, `recording_start` or
    /// `unknown`.
    pub const fn name(self) -> &'static str {
        match self {
            ClockKind::Utc => "utc",
            ClockKind::Boot => "boot",
            ClockKind::Simulation => "simulation",
            ClockKind::RecordingStart => "recording_start",
            ClockKind::Unknown => "unknown",
        }
    }
}

/// `t`, a time on `summary`'s clock, in UTC (ns since 1970): through the
/// clock itself or its anchor; `None` where the log has no UTC instants.
///
/// ```
/// use logcore::{Clock, Format, Summary, TimeModel, Timestamp};
/// let mut s = Summary::new(Format::Mcap, "0", TimeModel::new(Clock::Unix));
/// s.start = Some(Timestamp(1_600_000_000_000_000_000));
/// assert_eq!(logcore::clock::to_utc(&s, Timestamp(1_600_000_001_000_000_000)),
///            Some(Timestamp(1_600_000_001_000_000_000)));
/// // Simulated time starting at 5 s: no dates in 1970.
/// s.start = Some(Timestamp(5_000_000_000));
/// assert_eq!(logcore::clock::to_utc(&s, Timestamp(6_000_000_000)), None);
/// assert_eq!(logcore::clock::ClockKind::of(&s).name(), "unknown");
/// ```
pub fn to_utc(summary: &Summary, t: Timestamp) -> Option<Timestamp> {
    if ClockKind::of(summary) == ClockKind::Unknown {
        return None;
    }
    summary.time_model.to_unix(t)
}
