//! ROS `time`: u32 seconds and u32 nanoseconds since the Unix epoch.

use logcore::Timestamp;

/// A ROS time as stored in a bag (spec 1.2: 8 bytes, sec then nsec).
///
/// ```
/// use rosbag12::RosTime;
/// let t = RosTime { sec: 1, nsec: 5 };
/// assert_eq!(t.to_timestamp().as_nanos(), 1_000_000_005);
/// assert_eq!(RosTime::from_timestamp(t.to_timestamp()), Some(t));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RosTime {
    /// Whole seconds.
    pub sec: u32,
    /// Nanoseconds (ROS keeps them below 1e9; files may not).
    pub nsec: u32,
}

impl RosTime {
    /// Reads 8 bytes (shorter input reads as zero bytes).
    pub fn from_le_bytes(b: &[u8]) -> Self {
        let word = |i: usize| {
            let mut w = [0u8; 4];
            for (k, x) in w.iter_mut().enumerate() {
                *x = b.get(i + k).copied().unwrap_or(0);
            }
            u32::from_le_bytes(w)
        };
        RosTime {
            sec: word(0),
            nsec: word(4),
        }
    }

    /// The 8 stored bytes.
    pub fn to_le_bytes(self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&self.sec.to_le_bytes());
        b[4..].copy_from_slice(&self.nsec.to_le_bytes());
        b
    }

    /// Nanoseconds since the epoch (lossless: fits i64 for every u32 pair).
    pub fn to_timestamp(self) -> Timestamp {
        Timestamp::from_nanos(i64::from(self.sec) * 1_000_000_000 + i64::from(self.nsec))
    }

    /// The normalised ROS time of a timestamp, if it is in ROS's range.
    pub fn from_timestamp(t: Timestamp) -> Option<Self> {
        let ns = t.as_nanos();
        let sec = u32::try_from(ns.div_euclid(1_000_000_000)).ok()?;
        Some(RosTime {
            sec,
            nsec: ns.rem_euclid(1_000_000_000) as u32,
        })
    }
}
