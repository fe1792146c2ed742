//! Recognising a file's format by asking each format crate.
//!
//! `logcore` knows the formats by name only; the bytes that identify a
//! format live in its own crate (`rosbag12::probe`, `vellog::probe`, ...).
//! This module asks each crate that is part of the build, in a fixed order.

use logcore::Format;

/// How many leading bytes [`probe`] needs to be sure of any format.
pub const PROBE_LEN: usize = 18;

/// Recognises a format by the first bytes of a file (pass at least
/// [`PROBE_LEN`] bytes when the file has them). Formats whose feature is
/// not part of this build are not recognised.
///
/// ```
/// use robolog::{probe, Format};
/// assert_eq!(probe(b"#ROSBAG V2.0\n"), Some(Format::RosBag));
/// assert_eq!(probe(b"#ROSRECORD V1.2\n"), Some(Format::RosBag));
/// assert_eq!(probe(b"\xA4VEL\x01\x00\x01\x00"), Some(Format::VelLog));
/// assert_eq!(probe(b"ULog\x01\x12\x35\x01"), Some(Format::ULog));
/// assert_eq!(probe(b"\x89MCAP0\r\n"), Some(Format::Mcap));
/// assert_eq!(probe(b"\x01\x00\x0e\x00CARLA_RECORDER"), Some(Format::CarlaRecorder));
/// assert_eq!(probe(b"hello"), None);
/// ```
pub fn probe(first_bytes: &[u8]) -> Option<Format> {
    PROBES
        .iter()
        .find(|(_, recognises)| recognises(first_bytes))
        .map(|(format, _)| *format)
}

/// A format crate's probe: true when the first bytes are that format's.
type Probe = fn(&[u8]) -> bool;

/// The probe function of each format crate in this build.
const PROBES: &[(Format, Probe)] = &[
    #[cfg(feature = "rosbag")]
    (Format::RosBag, rosbag12::probe),
    #[cfg(feature = "vellog")]
    (Format::VelLog, vellog::probe),
    #[cfg(feature = "ulog")]
    (Format::ULog, ulogfile::probe),
    #[cfg(feature = "mcap")]
    (Format::Mcap, mcapfile::probe),
    #[cfg(feature = "carla")]
    (Format::CarlaRecorder, carla_recorder::probe),
    // A ROS 2 bag's storage file (`.db3`); a bag's MCAP storage files are
    // MCAP files.
    #[cfg(feature = "rosbag2")]
    (Format::Rosbag2, rosbag2::probe),
];

/// The format named with its article, as error messages use it
/// (`"an MCAP file"`).
pub(crate) fn described(format: Format) -> &'static str {
    match format {
        Format::RosBag => "a ROS 1 bag",
        Format::VelLog => "a VEL sensor log",
        Format::ULog => "a PX4 ULog file",
        Format::Mcap => "an MCAP file",
        Format::CarlaRecorder => "a CARLA recorder file",
        Format::Rosbag2 => "a ROS 2 bag",
        _ => "a log file",
    }
}

/// The Cargo feature that builds `format` in.
pub(crate) fn feature(format: Format) -> &'static str {
    match format {
        Format::RosBag => "rosbag",
        Format::VelLog => "vellog",
        Format::ULog => "ulog",
        Format::Mcap => "mcap",
        Format::CarlaRecorder => "carla",
        Format::Rosbag2 => "rosbag2",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(all(
        feature = "rosbag",
        feature = "vellog",
        feature = "ulog",
        feature = "mcap",
        feature = "carla"
    ))]
    #[test]
    fn probes_every_magic_and_rejects_near_misses() {
        assert_eq!(probe(b"#ROSRECORD V1.1\n"), Some(Format::RosBag));
        assert_eq!(probe(b"#ROSLOG V1.1\n"), Some(Format::RosBag));
        assert_eq!(probe(b"#ROSBAG V2.0\nE\0\0\0"), Some(Format::RosBag));
        // A later MCAP major version is still MCAP (the reader refuses it
        // as unsupported, not as an unknown format).
        assert_eq!(probe(b"\x89MCAP1\r\n"), Some(Format::Mcap));
        // CARLA 0.9.10 sample header: version 1, then the length-prefixed magic.
        assert_eq!(
            probe(b"\x01\x00\x0e\x00CARLA_RECORDER\x98\x9d"),
            Some(Format::CarlaRecorder)
        );
        for miss in [
            &b""[..],
            b"\xA4VE",
            b"ULog\x01\x12\x36",
            b"\x89MCAPx\r\n",
            b"\x01\x00\x0d\x00CARLA_RECORDER",
            b"\x01\x00\x0e\x00CARLA_RECORDE",
        ] {
            assert_eq!(probe(miss), None, "{miss:?}");
        }
    }

    #[cfg(feature = "rosbag2")]
    #[test]
    fn a_db3_header_is_asked_of_rosbag2() {
        assert_eq!(probe(b"SQLite format 3\0\x10\x00"), Some(Format::Rosbag2));
        assert_eq!(probe(b"SQLite format 3"), None);
    }

    #[test]
    fn every_format_has_a_description_and_feature() {
        for f in Format::ALL {
            assert!(described(f).ends_with(match f {
                Format::RosBag | Format::Rosbag2 => "bag",
                Format::VelLog => "log",
                _ => "file",
            }));
            assert_ne!(feature(f), "?");
        }
    }
}
