//! The five formats and recognising them by their first bytes.

use std::fmt;

/// A log file format known to the toolkit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// ROS 1 bag: `#ROSBAG V2.0`, `#ROSRECORD V1.2` (and the older
    /// `#ROSRECORD V1.1` / `#ROSLOG V1.1`, recognised so they can be refused
    /// with a clear message).
    RosBag,
    /// Koblenz-Landau / V&R sensor log (`\xA4VEL`).
    VelLog,
    /// PX4 ULog (`ULog\x01\x12\x35`).
    ULog,
    /// MCAP (`\x89MCAP0\r\n`), including OSI traces.
    Mcap,
    /// CARLA simulator recorder file (u16 version, then the string `CARLA_RECORDER`).
    CarlaRecorder,
}

impl Format {
    /// All formats, in probe order.
    pub const ALL: [Format; 5] = [
        Format::RosBag,
        Format::VelLog,
        Format::ULog,
        Format::Mcap,
        Format::CarlaRecorder,
    ];

    /// Short lower-case name used in CLI and JSON output (`"rosbag"`, `"vellog"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Format::RosBag => "rosbag",
            Format::VelLog => "vellog",
            Format::ULog => "ulog",
            Format::Mcap => "mcap",
            Format::CarlaRecorder => "carla-recorder",
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
        }
    }

    /// How many leading bytes [`probe`] needs to be sure.
    pub const PROBE_LEN: usize = 18;
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.long_name())
    }
}

/// ROS bag magic prefixes; the version digits and a newline follow.
/// Version 2.0 writes `#ROSBAG V2.0`, versions 1.1 and 1.2 `#ROSRECORD V1.x`,
/// some early 1.1 bags `#ROSLOG V1.1`.
pub const ROSBAG_MAGIC_PREFIXES: [&[u8]; 3] = [b"#ROSBAG V", b"#ROSRECORD V", b"#ROSLOG V"];
/// VEL magic.
pub const VELLOG_MAGIC: &[u8] = b"\xA4VEL";
/// ULog magic (7 bytes; a version byte follows).
pub const ULOG_MAGIC: &[u8] = b"ULog\x01\x12\x35";
/// MCAP magic (major version `0`).
pub const MCAP_MAGIC: &[u8] = b"\x89MCAP0\r\n";
/// CARLA recorder magic string, stored as u16 length 14 + bytes after a u16 version.
pub const CARLA_MAGIC: &[u8] = b"CARLA_RECORDER";

/// Recognises a format by the first bytes of a file (pass at least
/// [`Format::PROBE_LEN`] bytes when the file has them).
///
/// ```
/// use logcore::{probe, Format};
/// assert_eq!(probe(b"#ROSBAG V2.0\n"), Some(Format::RosBag));
/// assert_eq!(probe(b"#ROSRECORD V1.2\n"), Some(Format::RosBag));
/// assert_eq!(probe(b"\xA4VEL\x01\x00\x01\x00"), Some(Format::VelLog));
/// assert_eq!(probe(b"\x01\x00\x0e\x00CARLA_RECORDER"), Some(Format::CarlaRecorder));
/// assert_eq!(probe(b"hello"), None);
/// ```
pub fn probe(first_bytes: &[u8]) -> Option<Format> {
    let b = first_bytes;
    if ROSBAG_MAGIC_PREFIXES.iter().any(|m| b.starts_with(m)) {
        Some(Format::RosBag)
    } else if b.starts_with(VELLOG_MAGIC) {
        Some(Format::VelLog)
    } else if b.starts_with(ULOG_MAGIC) {
        Some(Format::ULog)
    } else if b.starts_with(MCAP_MAGIC) {
        Some(Format::Mcap)
    } else if b.len() >= 4 + CARLA_MAGIC.len()
        && b[2..4] == (CARLA_MAGIC.len() as u16).to_le_bytes()
        && &b[4..4 + CARLA_MAGIC.len()] == CARLA_MAGIC
    {
        Some(Format::CarlaRecorder)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_every_magic() {
        assert_eq!(probe(b"#ROSRECORD V1.2\n"), Some(Format::RosBag));
        assert_eq!(probe(b"#ROSRECORD V1.1\n"), Some(Format::RosBag));
        assert_eq!(probe(b"#ROSBAG V2.0\nE\0\0\0"), Some(Format::RosBag));
        assert_eq!(probe(b"#ROSLOG V1.1\n"), Some(Format::RosBag));
        assert_eq!(probe(b"ULog\x01\x12\x35\x01"), Some(Format::ULog));
        assert_eq!(probe(b"\x89MCAP0\r\n\x01"), Some(Format::Mcap));
        // CARLA 0.9.10 sample header: version 1, then the length-prefixed magic.
        assert_eq!(
            probe(b"\x01\x00\x0e\x00CARLA_RECORDER\x98\x9d"),
            Some(Format::CarlaRecorder)
        );
    }

    #[test]
    fn rejects_near_misses() {
        assert_eq!(probe(b""), None);
        assert_eq!(probe(b"\xA4VE"), None);
        assert_eq!(probe(b"ULog\x01\x12\x36"), None);
        assert_eq!(probe(b"\x89MCAP1\r\n"), None);
        assert_eq!(probe(b"\x01\x00\x0d\x00CARLA_RECORDER"), None);
        assert_eq!(probe(b"\x01\x00\x0e\x00CARLA_RECORDE"), None);
    }
}
