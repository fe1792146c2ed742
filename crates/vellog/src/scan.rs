//! The summary pass: one lenient walk over all message headers that
//! numbers the channels in order of first appearance, counts messages,
//! finds the time range and the GPS wall-clock anchor, checks every index
//! entry against the real message boundaries, and collects warnings.

use logcore::FormatError;
use logcore::cursor::Cursor;
use logcore::{ChannelId, Clock, ReadMode, TimeModel, Timestamp, WallClockAnchor};

use crate::error::Error;
use crate::gps::GpsData;
use crate::hash;
use crate::header::MARKER;
use crate::read::{EndOfRecords, VelLog};
use crate::records::{TypedMessage, string};

/// At most this many warnings are kept; the rest are counted.
const MAX_WARNINGS: usize = 100;

/// The part of a payload that tells sensors of one type apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SensorKey<'p> {
    None,
    /// `ImageM` source id.
    SourceId(i32),
    /// `LaserRange2DDataM` sensor name, and the sensor type next to it.
    Name {
        name: &'p [u8],
        sensor_type: &'p [u8],
    },
}

impl SensorKey<'_> {
    fn same_sensor(&self, other: &SensorKey<'_>) -> bool {
        match (self, other) {
            (SensorKey::None, SensorKey::None) => true,
            (SensorKey::SourceId(a), SensorKey::SourceId(b)) => a == b,
            (SensorKey::Name { name: a, .. }, SensorKey::Name { name: b, .. }) => a == b,
            _ => false,
        }
    }
}

/// Best effort: a payload too damaged to hold its key gets none.
pub(crate) fn sensor_key(type_id: i32, version: i32, payload: &[u8]) -> SensorKey<'_> {
    if type_id == hash::IMAGE && version == hash::IMAGE_VERSION {
        let mut f = Cursor::new(payload, 0, "ImageM payload");
        if let Ok(id) = f.i32("source id") {
            return SensorKey::SourceId(id);
        }
    } else if type_id == hash::LASER_RANGE_2D_DATA && version == hash::LASER_RANGE_2D_DATA_VERSION {
        let mut f = Cursor::new(payload, 0, "LaserRange2DDataM payload");
        if let (Ok(sensor_type), Ok(name)) =
            (string(&mut f, "sensor type"), string(&mut f, "sensor name"))
        {
            return SensorKey::Name { name, sensor_type };
        }
    }
    SensorKey::None
}

#[derive(Debug, Clone)]
enum OwnedKey {
    None,
    SourceId(i32),
    Name { name: Vec<u8>, sensor_type: Vec<u8> },
}

impl OwnedKey {
    fn borrow(&self) -> SensorKey<'_> {
        match self {
            OwnedKey::None => SensorKey::None,
            OwnedKey::SourceId(i) => SensorKey::SourceId(*i),
            OwnedKey::Name { name, sensor_type } => SensorKey::Name { name, sensor_type },
        }
    }
}

/// One channel and its statistics.
#[derive(Debug, Clone)]
pub(crate) struct ChannelEntry {
    /// The channel's number: its position in order of first appearance.
    pub(crate) id: ChannelId,
    pub(crate) type_id: i32,
    pub(crate) version: i32,
    key: OwnedKey,
    pub(crate) count: u64,
    pub(crate) start: Option<Timestamp>,
    pub(crate) end: Option<Timestamp>,
}

impl ChannelEntry {
    /// What tells this channel's sensor apart (with the sensor type seen
    /// in its first message).
    pub(crate) fn key(&self) -> SensorKey<'_> {
        self.key.borrow()
    }
}

impl VelLog<'_> {
    /// The result of the summary pass (computed once).
    pub(crate) fn scan(&self) -> &Scan {
        self.scan.get_or_init(|| Scan::run(self))
    }

    /// The time model: recording-start clock, anchored to UTC by the first
    /// GPS message with a fix and a valid date, when there is one.
    pub fn time_model(&self) -> TimeModel {
        match self.scan().anchor {
            Some(a) => TimeModel::anchored(Clock::RecordingStart, a),
            None => TimeModel::new(Clock::RecordingStart),
        }
    }

    /// Where the messages end: exact end of file, a terminator (with the
    /// number of bytes after it), or damage.
    pub fn end_of_records(&self) -> Option<EndOfRecords> {
        self.scan().end_state
    }
}

/// Everything the summary pass found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    pub(crate) channels: Vec<ChannelEntry>,
    pub(crate) message_count: u64,
    pub(crate) start: Option<Timestamp>,
    pub(crate) end: Option<Timestamp>,
    pub(crate) warnings: Vec<Error>,
    pub(crate) dropped_warnings: u64,
    pub(crate) end_state: Option<EndOfRecords>,
    pub(crate) anchor: Option<WallClockAnchor>,
    pub(crate) ascii_one_markers: u64,
    pub(crate) index_entries_off_boundary: u64,
    pub(crate) monotonic: bool,
}

impl Scan {
    fn warn(&mut self, e: Error) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(e);
        } else {
            self.dropped_warnings += 1;
        }
    }

    /// The channel of a message, if the scan saw one like it.
    pub(crate) fn channel_for(
        &self,
        type_id: i32,
        version: i32,
        key: &SensorKey<'_>,
    ) -> Option<ChannelId> {
        self.channels
            .iter()
            .find(|c| {
                c.type_id == type_id && c.version == version && c.key.borrow().same_sensor(key)
            })
            .map(|c| c.id)
    }

    /// The channel with id `id`.
    pub(crate) fn channel(&self, id: ChannelId) -> Option<&ChannelEntry> {
        self.channels.get(id.0 as usize)
    }

    pub(crate) fn run(log: &VelLog<'_>) -> Scan {
        let mut scan = Scan {
            monotonic: true,
            ..Scan::default()
        };
        let header = log.header();
        if header.minor != 1 {
            scan.warn(Error::malformed(
                6,
                "minor version 1 (the documented one)",
                format!("{}; read as 1.1", header.minor),
            ));
        }

        // Index entries in offset order, to be matched against the real
        // boundaries (4 bytes per 8-byte entry: bounded by the input).
        let len = log.data().len() as i64;
        let index = log.index();
        let entry = |k: u32| index.get(k as usize).unwrap_or(i64::MAX);
        let mut order: Vec<u32> = (0..index.len() as u32).collect();
        order.sort_unstable_by_key(|&k| (entry(k), k));
        let entries = order.iter().map(|&k| (entry(k), k as usize));
        let mut entries = entries.peekable();
        let off_boundary = |scan: &mut Scan, k: usize, o: i64| {
            scan.index_entries_off_boundary += 1;
            let why = if o < log.first_message_offset() as i64 || o >= len {
                "outside the message area"
            } else {
                "in the middle of a message"
            };
            scan.warn(Error::malformed(
                12 + 8 * k as u64,
                format!("index entry {k} pointing at a message header"),
                format!("offset {o}, {why} (entry ignored)"),
            ));
        };

        let mut last_time: Option<Timestamp> = None;
        let mut records = log.records_with(ReadMode::Lenient);
        for item in records.by_ref() {
            let rec = match item {
                Ok(rec) => rec,
                Err(e) => {
                    scan.warn(e);
                    continue;
                }
            };
            let o = rec.offset as i64;
            while let Some((eo, k)) = entries.next_if(|&(eo, _)| eo <= o) {
                if eo < o {
                    off_boundary(&mut scan, k, eo);
                }
            }
            if rec.marker != MARKER {
                scan.ascii_one_markers += 1;
                if scan.ascii_one_markers == 1 {
                    scan.warn(Error::malformed(
                        rec.offset + 4,
                        "message marker 0x49",
                        "0x31 ('1'); accepted in lenient mode",
                    ));
                }
            }
            let key = sensor_key(rec.type_id, rec.version, rec.payload);
            let id = match scan.channel_for(rec.type_id, rec.version, &key) {
                Some(id) => id,
                None => {
                    let id = ChannelId(scan.channels.len() as u32);
                    scan.channels.push(ChannelEntry {
                        id,
                        type_id: rec.type_id,
                        version: rec.version,
                        key: match key {
                            SensorKey::None => OwnedKey::None,
                            SensorKey::SourceId(s) => OwnedKey::SourceId(s),
                            SensorKey::Name { name, sensor_type } => OwnedKey::Name {
                                name: name.to_vec(),
                                sensor_type: sensor_type.to_vec(),
                            },
                        },
                        count: 0,
                        start: None,
                        end: None,
                    });
                    id
                }
            };
            scan.message_count += 1;
            let time = match rec.timestamp() {
                Ok(t) => t,
                Err(e) => {
                    scan.warn(e);
                    continue;
                }
            };
            if let Some(ch) = scan.channels.get_mut(id.0 as usize) {
                ch.count += 1;
                ch.start = Some(ch.start.map_or(time, |s| s.min(time)));
                ch.end = Some(ch.end.map_or(time, |e| e.max(time)));
            }
            scan.start = Some(scan.start.map_or(time, |s| s.min(time)));
            scan.end = Some(scan.end.map_or(time, |e| e.max(time)));
            if last_time.is_some_and(|l| time < l) {
                scan.monotonic = false;
            }
            last_time = Some(time);
            if scan.anchor.is_none()
                && rec.type_id == GpsData::TYPE_ID
                && rec.version == GpsData::VERSION
            {
                if let Some(unix) = GpsData::parse(rec.payload, rec.payload_offset())
                    .ok()
                    .and_then(|g| g.unix_time())
                {
                    scan.anchor = Some(WallClockAnchor {
                        log_time: time,
                        unix_time: unix,
                        source: "first GPSDataM message with a fix and a valid date",
                    });
                }
            }
        }
        for (eo, k) in entries {
            off_boundary(&mut scan, k, eo);
        }
        scan.end_state = records.end();
        if let Some(EndOfRecords::Terminator { offset, trailing }) = scan.end_state {
            if trailing > 0 {
                scan.warn(Error::malformed(
                    offset + 4,
                    "end of file after the FF FF FF FF terminator",
                    format!("{trailing} more bytes (ignored)"),
                ));
            }
        }
        scan
    }
}
