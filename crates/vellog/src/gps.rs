//! `GPSDataM` v100 and its helpers: the wall-clock anchor a GPS fix gives
//! the log, and the guess between decimal degrees and NMEA `ddmm.mmmm`
//! (spec 3.2 and 5.7).

use logcore::cursor::{Cursor, expect_len};
use logcore::{Timestamp, Value, ValueType};

use crate::error::Result;
use crate::hash;
use crate::records::TypedMessage;
/// `GPSDataM` v100: a GPS fix mirroring NMEA RMC + GGA + GSA (80 bytes).
///
/// All fields are kept as stored; see [`GpsData::unix_time`] and
/// [`GpsData::latitude_degrees`] for interpreted values.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GpsData {
    /// UTC hour.
    pub hour: i32,
    /// UTC minute.
    pub minute: i32,
    /// UTC second (integer).
    pub second: i32,
    /// Warning flag, 0 or 1 (1 most likely means NMEA RMC status `V`).
    pub warning: i32,
    /// Latitude as stored: signed decimal degrees or NMEA `ddmm.mmmm`.
    pub latitude: f64,
    /// Longitude as stored: signed decimal degrees or NMEA `dddmm.mmmm`.
    pub longitude: f64,
    /// Ground speed, km/h.
    pub speed_kmh: f32,
    /// Course over ground (presumably degrees true).
    pub course: f32,
    /// Day of month.
    pub day: i32,
    /// Month, 1-12.
    pub month: i32,
    /// Year, two or four digits.
    pub year: i32,
    /// Fix quality: 0 invalid, 1 GPS, 2 DGPS, 6 estimated.
    pub quality: i32,
    /// Number of satellites used.
    pub satellites: i32,
    /// Horizontal dilution of precision.
    pub hdop: f32,
    /// Height above the geoid (presumably metres).
    pub height: f32,
    /// Geoid separation (presumably metres).
    pub geoid_height: f32,
    /// Vertical dilution of precision.
    pub vdop: f32,
    /// Position dilution of precision.
    pub pdop: f32,
}

/// A coordinate in signed decimal degrees, and whether it was converted from
/// NMEA `ddmm.mmmm` (a guess: see [`GpsData::latitude_degrees`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Degrees {
    /// Signed decimal degrees.
    pub degrees: f64,
    /// True when the stored value was read as `ddmm.mmmm`.
    pub guessed_ddmm: bool,
}

/// Interprets a stored coordinate: values whose magnitude exceeds `limit`
/// (90 for latitude, 180 for longitude) cannot be decimal degrees and are
/// read as `ddmm.mmmm`; others are taken as decimal degrees. `None` when
/// neither reading gives a valid coordinate.
///
/// ```
/// use vellog::gps::coordinate_degrees;
/// let d = coordinate_degrees(5021.5, 90.0).unwrap();
/// assert!((d.degrees - 50.358333).abs() < 1e-6 && d.guessed_ddmm);
/// let d = coordinate_degrees(-7.6, 180.0).unwrap();
/// assert_eq!((d.degrees, d.guessed_ddmm), (-7.6, false));
/// assert!(coordinate_degrees(5075.0, 90.0).is_none()); // 75 minutes
/// ```
pub fn coordinate_degrees(value: f64, limit: f64) -> Option<Degrees> {
    if !value.is_finite() {
        return None;
    }
    if value.abs() <= limit {
        return Some(Degrees {
            degrees: value,
            guessed_ddmm: false,
        });
    }
    let abs = value.abs();
    let whole = (abs / 100.0).trunc();
    let minutes = abs - whole * 100.0;
    let degrees = whole + minutes / 60.0;
    (minutes < 60.0 && degrees <= limit).then(|| Degrees {
        degrees: degrees.copysign(value),
        guessed_ddmm: true,
    })
}

impl GpsData {
    /// Whether the fix is usable: quality not 0 (invalid).
    pub fn has_fix(&self) -> bool {
        self.quality != 0
    }

    /// The four-digit year: two-digit years are taken as 2000 + year (NMEA
    /// RMC stores two digits; the format dates from 2009 onwards).
    pub fn full_year(&self) -> i32 {
        if (0..100).contains(&self.year) {
            2000 + self.year
        } else {
            self.year
        }
    }

    /// The fix's UTC date and time as Unix time; `None` without a fix
    /// (quality 0) or when the fields are not a possible date and time.
    ///
    /// ```
    /// use vellog::GpsData;
    /// let g = GpsData { year: 10, month: 6, day: 1, hour: 12, quality: 1, ..Default::default() };
    /// assert_eq!(g.unix_time().unwrap().as_nanos(), 1_275_393_600_000_000_000);
    /// assert!(GpsData { quality: 0, ..g }.unix_time().is_none());
    /// assert!(GpsData { month: 0, ..g }.unix_time().is_none());
    /// ```
    pub fn unix_time(&self) -> Option<Timestamp> {
        if !self.has_fix() {
            return None;
        }
        let small = |v: i32| u8::try_from(v).ok();
        logcore::time::unix_from_utc(
            self.full_year(),
            small(self.month)?,
            small(self.day)?,
            small(self.hour)?,
            small(self.minute)?,
            small(self.second)?,
        )
    }

    /// Latitude in signed decimal degrees (guessing `ddmm.mmmm` when the
    /// stored magnitude exceeds 90).
    pub fn latitude_degrees(&self) -> Option<Degrees> {
        coordinate_degrees(self.latitude, 90.0)
    }

    /// Longitude in signed decimal degrees (guessing `dddmm.mmmm` when the
    /// stored magnitude exceeds 180).
    pub fn longitude_degrees(&self) -> Option<Degrees> {
        coordinate_degrees(self.longitude, 180.0)
    }
}

impl TypedMessage<'_> for GpsData {
    const NAME: &'static str = "GPSDataM";
    const TYPE_ID: i32 = hash::GPS_DATA;
    const VERSION: i32 = hash::GPS_DATA_VERSION;

    fn parse(payload: &[u8], offset: u64) -> Result<Self> {
        expect_len(payload, 80, offset, "GPSDataM v100 payload")?;
        let mut f = Cursor::new(payload, offset, "GPSDataM v100 payload");
        Ok(GpsData {
            hour: f.i32("hour")?,
            minute: f.i32("minute")?,
            second: f.i32("second")?,
            warning: f.i32("warning flag")?,
            latitude: f.f64("latitude")?,
            longitude: f.f64("longitude")?,
            speed_kmh: f.f32("speed")?,
            course: f.f32("course")?,
            day: f.i32("day")?,
            month: f.i32("month")?,
            year: f.i32("year")?,
            quality: f.i32("fix quality")?,
            satellites: f.i32("satellite count")?,
            hdop: f.f32("HDOP")?,
            height: f.f32("height")?,
            geoid_height: f.f32("geoid height")?,
            vdop: f.f32("VDOP")?,
            pdop: f.f32("PDOP")?,
        })
    }

    fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        for v in [self.hour, self.minute, self.second, self.warning] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.latitude.to_le_bytes());
        out.extend_from_slice(&self.longitude.to_le_bytes());
        out.extend_from_slice(&self.speed_kmh.to_le_bytes());
        out.extend_from_slice(&self.course.to_le_bytes());
        for v in [
            self.day,
            self.month,
            self.year,
            self.quality,
            self.satellites,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [
            self.hdop,
            self.height,
            self.geoid_height,
            self.vdop,
            self.pdop,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }

    fn to_value(&self) -> Value {
        let i = |v: i32| Value::I64(v.into());
        Value::record([
            ("hour", i(self.hour)),
            ("minute", i(self.minute)),
            ("second", i(self.second)),
            ("warning", i(self.warning)),
            ("latitude", Value::F64(self.latitude)),
            ("longitude", Value::F64(self.longitude)),
            ("speed_kmh", Value::F32(self.speed_kmh)),
            ("course", Value::F32(self.course)),
            ("day", i(self.day)),
            ("month", i(self.month)),
            ("year", i(self.year)),
            ("quality", i(self.quality)),
            ("satellites", i(self.satellites)),
            ("hdop", Value::F32(self.hdop)),
            ("height", Value::F32(self.height)),
            ("geoid_height", Value::F32(self.geoid_height)),
            ("vdop", Value::F32(self.vdop)),
            ("pdop", Value::F32(self.pdop)),
        ])
    }

    fn value_type() -> ValueType {
        use ValueType::{F32, F64, I32};
        ValueType::record([
            ("hour", I32),
            ("minute", I32),
            ("second", I32),
            ("warning", I32),
            ("latitude", F64),
            ("longitude", F64),
            ("speed_kmh", F32),
            ("course", F32),
            ("day", I32),
            ("month", I32),
            ("year", I32),
            ("quality", I32),
            ("satellites", I32),
            ("hdop", F32),
            ("height", F32),
            ("geoid_height", F32),
            ("vdop", F32),
            ("pdop", F32),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::FormatError;

    fn fix() -> GpsData {
        GpsData {
            hour: 14,
            minute: 3,
            second: 27,
            latitude: 50.3636,
            longitude: 7.5586,
            day: 17,
            month: 6,
            year: 2009,
            quality: 1,
            satellites: 8,
            ..Default::default()
        }
    }

    #[test]
    fn round_trips_and_has_80_bytes() {
        let g = fix();
        let b = g.to_bytes().unwrap();
        assert_eq!(b.len(), 80);
        assert_eq!(GpsData::parse(&b, 0).unwrap(), g);
        assert_eq!(GpsData::parse(&b[..79], 7).unwrap_err().offset(), Some(7));
    }

    #[test]
    fn anchors() {
        let g = fix();
        let expect = logcore::time::unix_from_utc(2009, 6, 17, 14, 3, 27).unwrap();
        assert_eq!(g.unix_time(), Some(expect));
        assert_eq!(GpsData { year: 9, ..g }.unix_time(), Some(expect));
        assert_eq!(GpsData { day: 31, ..g }.unix_time(), None); // 31 June
        assert_eq!(GpsData { hour: -1, ..g }.unix_time(), None);
        assert_eq!(GpsData { second: 300, ..g }.unix_time(), None);
        assert_eq!(GpsData { quality: 0, ..g }.unix_time(), None);
    }

    #[test]
    fn degree_guess() {
        let d = GpsData {
            latitude: -5021.5,
            longitude: 735.3516,
            ..fix()
        };
        let lat = d.latitude_degrees().unwrap();
        assert!((lat.degrees + 50.358_333_333).abs() < 1e-9 && lat.guessed_ddmm);
        // 735.35 exceeds 180, so it is 7 degrees 35.3516 minutes.
        let lon = d.longitude_degrees().unwrap();
        assert!((lon.degrees - 7.589_193_333).abs() < 1e-8 && lon.guessed_ddmm);
        assert_eq!(fix().latitude_degrees().unwrap().degrees, 50.3636);
        assert!(coordinate_degrees(f64::NAN, 90.0).is_none());
        assert!(coordinate_degrees(18_100.0, 180.0).is_none());
    }
}
