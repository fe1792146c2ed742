//! `robolog carla info|collisions|blocked FILE`: CARLA's three recorder
//! reports (`show_recorder_file_info`, `show_recorder_collisions`,
//! `show_recorder_actors_blocked`), computed offline from the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use carla_recorder::report::{self, ReportOptions};
use clap::{Args, Subcommand};
use logcore::Format;

use crate::context::Context;
use crate::{Failure, Outcome, output};

/// The `carla` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum CarlaCommand {
    /// What CARLA's show_recorder_file_info prints: header, frames with
    /// events, footer (--show-all: every packet of every frame).
    Info {
        #[command(flatten)]
        common: Common,
        /// Print every frame and every packet kind CARLA shows.
        #[arg(long)]
        show_all: bool,
    },
    /// What CARLA's show_recorder_collisions prints.
    Collisions {
        #[command(flatten)]
        common: Common,
        /// Actor 1 filter: a (any), h (hero), o v w t (other, vehicle,
        /// walker, traffic light); with --fixed also s (sign), n (sensor).
        #[arg(long, default_value = "a", value_parser = letter)]
        type1: char,
        /// Actor 2 filter, as --type1.
        #[arg(long, default_value = "a", value_parser = letter)]
        type2: char,
    },
    /// What CARLA's show_recorder_actors_blocked prints.
    Blocked {
        #[command(flatten)]
        common: Common,
        /// Minimum time blocked, seconds.
        #[arg(long, default_value_t = 30.0)]
        min_time: f64,
        /// Minimum distance to count as moved, centimetres.
        #[arg(long, default_value_t = 10.0)]
        min_distance: f64,
    },
}

/// Arguments every `carla` subcommand takes.
#[derive(Debug, Args)]
pub(crate) struct Common {
    /// The recording.
    file: PathBuf,
    /// Correct CARLA's known bugs instead of reproducing its text exactly.
    #[arg(long)]
    fixed: bool,
    /// Time zone of the header date: `+HH:MM`, `-HH:MM` or `UTC`
    /// (CARLA uses the server's local time; default UTC).
    #[arg(long, default_value = "UTC", value_parser = utc_offset, allow_hyphen_values = true)]
    utc_offset: i32,
}

/// A value of `--type1` and `--type2`: one letter.
fn letter(s: &str) -> Result<char, String> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(format!("`{s}` is not a single letter")),
    }
}

/// A value of `--utc-offset`, in seconds east of UTC.
fn utc_offset(s: &str) -> Result<i32, String> {
    if s.eq_ignore_ascii_case("utc") || s == "Z" {
        return Ok(0);
    }
    let bad = || format!("`{s}` is not an offset like +02:00, -05:30 or UTC");
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'+') => (1, &s[1..]),
        Some(b'-') => (-1, &s[1..]),
        _ => return Err(bad()),
    };
    let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
    let h: i32 = h.parse().map_err(|_| bad())?;
    let m: i32 = m.parse().map_err(|_| bad())?;
    if !(0..=23).contains(&h) || !(0..=59).contains(&m) {
        return Err(bad());
    }
    Ok(sign * (h * 3600 + m * 60))
}

/// Runs a `robolog carla` subcommand.
pub(crate) fn run(ctx: &Context, cmd: &CarlaCommand) -> Result<Outcome, Failure> {
    let common = match cmd {
        CarlaCommand::Info { common, .. }
        | CarlaCommand::Collisions { common, .. }
        | CarlaCommand::Blocked { common, .. } => common,
    };
    let path: &Path = &common.file;
    let log = ctx.open_as(path, Format::CarlaRecorder)?;
    let Some(rec) = log.as_carla() else {
        return Ok(Outcome::Clean);
    };
    let opts = ReportOptions {
        fixed: common.fixed,
        utc_offset_secs: common.utc_offset,
    };
    let mut out = output::stdout();
    let result = match cmd {
        CarlaCommand::Info { show_all, .. } => report::file_info(rec, *show_all, &opts, &mut out),
        CarlaCommand::Collisions { type1, type2, .. } => {
            report::collisions(rec, *type1, *type2, &opts, &mut out)
        }
        CarlaCommand::Blocked {
            min_time,
            min_distance,
            ..
        } => report::actors_blocked(rec, *min_time, *min_distance, &opts, &mut out),
    };
    out.flush().map_err(|e| Failure::new(path, e))?;
    result.map_err(|e| Failure::new(path, e))?;
    Ok(Outcome::Clean)
}
