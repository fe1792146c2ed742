//! The five formats, by name. Recognising them by their bytes is each
//! format crate's own business (`rosbag12::probe`, `vellog::probe`, ...);
//! the `robolog` facade asks each one.

use std::fmt;

/// A log file format known to the toolkit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// ROS 1 bag (versions 2.0 and 1.2; older ones are recognised so they
    /// can be refused with a clear message).
    RosBag,
    /// Koblenz-Landau / V&R sensor log.
    VelLog,
    /// PX4 ULog.
    ULog,
    /// MCAP, including ASAM OSI traces.
    Mcap,
    /// CARLA simulator recorder file.
    CarlaRecorder,
    /// ROS 2 bag (rosbag2): a folder of `metadata.yaml` and SQLite
    /// (`.db3`) or MCAP storage files.
    Rosbag2,
}

impl Format {
    /// All formats.
    pub const ALL: [Format; 6] = [
        Format::RosBag,
        Format::VelLog,
        Format::ULog,
        Format::Mcap,
        Format::CarlaRecorder,
        Format::Rosbag2,
    ];

    /// Short lower-case name used in CLI and JSON output (`"rosbag"`, `"vellog"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Format::RosBag => "rosbag",
            Format::VelLog => "vellog",
            Format::ULog => "ulog",
            Format::Mcap => "mcap",
            Format::CarlaRecorder => "carla-recorder",
            Format::Rosbag2 => "rosbag2",
        }
    }

    /// The full name people use for the format.
    pub const fn long_name(self) -> &'static str {
        match self {
            Format::RosBag => "ROS 1 bag",
            Format::VelLog => "VEL sensor log",
            Format::ULog => "PX4 ULog",
            Format::Mcap => "MCAP",
            Format::CarlaRecorder => "CARLA recorder",
            Format::Rosbag2 => "ROS 2 bag",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.long_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Format::ALL.len());
        assert_eq!(Format::Mcap.to_string(), "MCAP");
        assert_eq!(Format::CarlaRecorder.name(), "carla-recorder");
    }
}
