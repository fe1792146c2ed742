//! The summary pass: one lenient walk over the frames that counts frames,
//! packets (per packet id, with their first and last time) and event
//! records, and keeps the warnings. Computed once per [`Recording`].

use logcore::{Clock, ReadMode, TimeModel, Timestamp, WallClockAnchor};

use crate::error::Error;
use crate::packet::PacketId;
use crate::read::Recording;

/// At most this many warnings are kept by the summary pass.
const MAX_WARNINGS: usize = 100;

/// What one pass over the frames found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    /// Per packet id: count, first and last time.
    pub(crate) per_id: Vec<(u8, u64, Timestamp, Timestamp)>,
    pub(crate) frames: u64,
    pub(crate) first_frame_id: Option<u64>,
    pub(crate) last_frame_id: Option<u64>,
    pub(crate) last_elapsed: Option<f64>,
    pub(crate) last_duration: Option<f64>,
    /// Packets of complete frames, FrameStart and FrameEnd included.
    pub(crate) packets: u64,
    pub(crate) event_add_records: u64,
    pub(crate) event_del_records: u64,
    pub(crate) messages: u64,
    pub(crate) start: Option<Timestamp>,
    pub(crate) end: Option<Timestamp>,
    pub(crate) warnings: Vec<Error>,
}

/// The time of a frame: its elapsed seconds, or 0 when not finite.
pub(crate) fn frame_time(elapsed: f64) -> Timestamp {
    Timestamp::from_secs_f64(elapsed).unwrap_or(Timestamp::ZERO)
}

impl Scan {
    fn run(rec: &Recording<'_>) -> Scan {
        let mut s = Scan::default();
        let mut counts: Vec<Option<(u64, Timestamp, Timestamp)>> = vec![None; 256];
        let mut note = |t: Timestamp, id: u8| {
            let c = counts[usize::from(id)].get_or_insert((0, t, t));
            c.0 += 1;
            c.1 = c.1.min(t);
            c.2 = c.2.max(t);
        };
        for f in rec.frames_with(ReadMode::Lenient) {
            let f = match f {
                Ok(f) => f,
                Err(e) => {
                    if s.warnings.len() < MAX_WARNINGS {
                        s.warnings.push(e);
                    }
                    continue;
                }
            };
            let t = frame_time(f.start.elapsed);
            s.frames += 1;
            s.first_frame_id.get_or_insert(f.start.id);
            s.last_frame_id = Some(f.start.id);
            s.last_elapsed = Some(f.start.elapsed);
            s.last_duration = Some(f.start.duration);
            s.packets += 2 + f.packet_count() as u64;
            s.start = Some(s.start.map_or(t, |x| x.min(t)));
            s.end = Some(s.end.map_or(t, |x| x.max(t)));
            note(t, PacketId::FrameStart as u8);
            for p in f.packets() {
                note(t, p.id);
                let n = u64::from(p.record_count().unwrap_or(0));
                match p.kind() {
                    Some(PacketId::EventAdd) => s.event_add_records += n,
                    Some(PacketId::EventDel) => s.event_del_records += n,
                    _ => {}
                }
            }
            s.messages += 1 + f.packet_count() as u64;
        }
        s.per_id = counts
            .iter()
            .enumerate()
            .filter_map(|(id, c)| c.map(|(n, a, b)| (id as u8, n, a, b)))
            .collect();
        s
    }
}

impl Recording<'_> {
    /// The result of the summary pass (computed once).
    pub(crate) fn scan(&self) -> &Scan {
        self.scan.get_or_init(|| Scan::run(self))
    }

    /// The time model: seconds since the first recorded frame, anchored to
    /// the header date (the Unix time when recording started).
    pub fn time_model(&self) -> TimeModel {
        match self.header().date.checked_mul(1_000_000_000) {
            Some(ns) => TimeModel::anchored(
                Clock::RecordingStart,
                WallClockAnchor {
                    log_time: Timestamp::ZERO,
                    unix_time: Timestamp(ns),
                    source: "info header date",
                },
            ),
            None => TimeModel::new(Clock::RecordingStart),
        }
    }
}
