//! The version line (spec 1.1): `#ROS<word> V<major>.<minor>\n`.

use crate::error::{Error, Result};
use logcore::FormatError;

/// The starts of a bag's version line: `#ROSBAG V2.0`, `#ROSRECORD V1.2`
/// (and `V1.1`), and `#ROSLOG V1.1` in some early bags. The version digits
/// and a newline follow.
pub const MAGIC_PREFIXES: [&[u8]; 3] = [b"#ROSBAG V", b"#ROSRECORD V", b"#ROSLOG V"];

/// True when `first_bytes` start like a ROS bag of any version, including
/// the old versions [`Version::parse`] refuses (so that a tool can say
/// "unsupported version" rather than "unknown format").
///
/// ```
/// assert!(rosbag12::probe(b"#ROSBAG V2.0\n"));
/// assert!(rosbag12::probe(b"#ROSRECORD V1.1\n"));
/// assert!(!rosbag12::probe(b"#ROS"));
/// ```
pub fn probe(first_bytes: &[u8]) -> bool {
    MAGIC_PREFIXES.iter().any(|m| first_bytes.starts_with(m))
}

/// A bag format version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Major version (1 or 2).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl Version {
    /// Format 2.0, what ROS writes since mid-2010.
    pub const V2_0: Version = Version { major: 2, minor: 0 };
    /// Format 1.2 (ROS 0.5 to 1.0).
    pub const V1_2: Version = Version { major: 1, minor: 2 };

    /// The version line this crate writes for the version.
    pub fn magic(self) -> String {
        if self.major >= 2 {
            format!("#ROSBAG V{}.{}\n", self.major, self.minor)
        } else {
            format!("#ROSRECORD V{}.{}\n", self.major, self.minor)
        }
    }

    /// Parses the version line at the start of `data`; returns the version
    /// and the length of the line including its `\n`.
    ///
    /// Accepts 1.2 and any 2.x (spec 2.11); refuses 1.1 and older with
    /// [`logcore::Error::Unsupported`].
    ///
    /// ```
    /// use rosbag12::Version;
    /// assert_eq!(Version::parse(b"#ROSBAG V2.0\n...").unwrap(), (Version::V2_0, 13));
    /// assert!(Version::parse(b"#ROSRECORD V1.1\n").is_err());
    /// ```
    pub fn parse(data: &[u8]) -> Result<(Version, usize)> {
        let head = &data[..data.len().min(32)];
        let Some(nl) = head.iter().position(|&b| b == b'\n') else {
            return Err(if data.len() < 32 {
                Error::truncated(0, "the bag's version line `#ROSBAG V2.0\\n`", 1)
            } else {
                Error::malformed(
                    0,
                    "the bag's version line `#ROSBAG V2.0\\n` or `#ROSRECORD V1.2\\n`",
                    logcore::error::hex_preview(head),
                )
            });
        };
        let line = &head[..nl];
        let bad = || {
            Error::malformed(
                0,
                "a version line `#ROS<word> V<major>.<minor>`",
                format!("`{}`", String::from_utf8_lossy(line).escape_debug()),
            )
        };
        let rest = line.strip_prefix(b"#ROS").ok_or_else(bad)?;
        let space = rest.iter().position(|&b| b == b' ').ok_or_else(bad)?;
        let word = &rest[..space];
        let num = rest[space + 1..].strip_prefix(b"V").ok_or_else(bad)?;
        let text = std::str::from_utf8(num).map_err(|_| bad())?;
        let (major, minor) = text.split_once('.').ok_or_else(bad)?;
        let version = Version {
            major: major.parse().map_err(|_| bad())?,
            minor: minor.parse().map_err(|_| bad())?,
        };
        let known_word = match version.major {
            2 => word == b"BAG",
            1 => word == b"RECORD" || word == b"LOG",
            _ => true,
        };
        if !known_word {
            return Err(bad());
        }
        match (version.major, version.minor) {
            (2, _) => Ok((version, nl + 1)),
            (1, 2) => Ok((version, nl + 1)),
            (1, _) | (0, _) => Err(Error::unsupported(
                0,
                format!("ROS bag version {version}"),
                "this reader reads versions 1.2 and 2.x; this 2008-2009 format has no \
                 message definitions and no record framing; convert it with `rosbag fix` \
                 of a ROS release before 1.0",
            )),
            _ => Err(Error::unsupported(
                0,
                format!("ROS bag version {version}"),
                "this reader reads versions 1.2 and 2.x; a newer major version than this \
                 reader knows",
            )),
        }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            Version::parse(b"#ROSRECORD V1.2\n").unwrap(),
            (Version::V1_2, 16)
        );
        assert_eq!(
            Version::parse(b"#ROSBAG V2.1\n").unwrap().0,
            Version { major: 2, minor: 1 }
        );
        for old in [
            &b"#ROSRECORD V1.1\n"[..],
            b"#ROSLOG V1.1\n",
            b"#ROSLOG V1.0\n",
        ] {
            let e = Version::parse(old).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::Parse(logcore::Error::Unsupported { offset: 0, .. })
                ),
                "{e}"
            );
            assert!(e.to_string().contains("ROS bag version 1."), "{e}");
        }
        assert!(Version::parse(b"#ROSBAG V2.0").unwrap_err().is_truncated());
        assert!(Version::parse(b"#ROSBAG Vx.0\n").is_err());
        assert!(Version::parse(b"#ROSRECORD V2.0\n").is_err());
        assert_eq!(Version::V2_0.magic(), "#ROSBAG V2.0\n");
        assert_eq!(Version::V1_2.magic(), "#ROSRECORD V1.2\n");
    }
}
