//! Frame packets: FrameStart (id 0) and the per-frame clocks VisualTime
//! (20), PlatformTime (14) and FrameCounter (18) (spec §4).

use logcore::cursor::Cursor;

use crate::error::Result;
use crate::wire::Put;

/// Size of the FrameStart payload.
pub const FRAME_START_LEN: usize = 24;

/// The duration CARLA leaves in the last frame (it is back-patched into
/// every other frame when the next one is written).
pub const LAST_FRAME_DURATION: f64 = -1.0;

/// FrameStart (id 0): opens a frame, one per server tick.
///
/// ```
/// use carla_recorder::FrameStart;
/// let last = FrameStart { id: 461, duration: -1.0, elapsed: 15.88 };
/// assert!(last.is_last_placeholder());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameStart {
    /// 1 for the first recorded frame, +1 per frame.
    pub id: u64,
    /// Seconds from this frame to the next; [`LAST_FRAME_DURATION`] (−1.0)
    /// in the last frame. Derive durations from elapsed times instead
    /// (see [`crate::FrameIndex::duration`]).
    pub duration: f64,
    /// Seconds since the first recorded frame.
    pub elapsed: f64,
}

impl FrameStart {
    /// Whether `duration` is CARLA's −1.0 placeholder of the last frame.
    pub fn is_last_placeholder(&self) -> bool {
        self.duration == LAST_FRAME_DURATION
    }

    pub(crate) fn read(f: &mut Cursor<'_>) -> Result<Self> {
        Ok(FrameStart {
            id: f.u64("frame id")?,
            duration: f.f64("duration")?,
            elapsed: f.f64("elapsed time")?,
        })
    }

    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.put_u64(self.id);
        out.put_f64(self.duration);
        out.put_f64(self.elapsed);
    }
}
