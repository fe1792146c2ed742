//! Anonymisation for `robolog filter --anonymise` and `--drop-text`
//! ([`Anonymise`]), applied by the filter as it copies: only the messages
//! it changes are encoded again, the others stay byte for byte.
//!
//! - **Positions** (`positions`): every GPS position moves by one fixed
//!   offset per output (random, or [`Anonymise::gps_offset`]), written
//!   nowhere in the output and not reported. Covered:
//!   - `sensor_msgs/NavSatFix` (ROS 1, and CDR as `sensor_msgs/msg/NavSatFix`)
//!     and Foxglove's `LocationFix` (ROS 1 `foxglove_msgs/LocationFix`, CDR
//!     `foxglove_msgs/msg/LocationFix`, protobuf `foxglove.LocationFix`):
//!     `latitude` and `longitude`, patched in place in the payload;
//!   - JSON channels: any object with `latitude`/`longitude`,
//!     `latitude_deg`/`longitude_deg`, `ref_lat`/`ref_lon` (degrees), or
//!     `lat`/`lon` (integers: 1e-7 degrees; numbers with a fraction:
//!     degrees), at any depth;
//!   - ULog samples: the same field pairs in any struct of any format
//!     (`vehicle_gps_position`, `sensor_gps`, `vehicle_global_position`,
//!     `home_position`, `estimator_global_position`, the local position's
//!     `ref_lat`/`ref_lon`, setpoints' `current.lat`, ...), `int32_t`/
//!     `int64_t` as 1e-7 degrees, `float`/`double` as degrees (see
//!     [`ulog`]).
//!
//!   A position of (0, 0) (no fix) and a NaN stay as they are: moved, they
//!   would show the offset. Latitudes are clamped to ±90°, longitudes
//!   wrapped into ±180°.
//! - **Identifiers** (`identifiers`): ULog information and multi
//!   information whose key names an identifier (see [`is_identifier`]:
//!   `sys_uuid`, `*_id`, serial numbers, ...) is left out, and the text of
//!   those values is replaced by `*` wherever else it appears in text
//!   (information, logged strings: the boot console prints it); messages
//!   of unknown ULog types are left out. A bag connection's `callerid`
//!   (the publishing node, often named after its host) is left out of
//!   connection headers and channel metadata, with every channel metadata
//!   key [`is_identifier`] names; MCAP metadata records named by it are
//!   left out, and such keys of the others, and MCAP attachments whose
//!   file name it names (`serial.txt`, `robot_uuid.json`). PX4 parameters
//!   that identify hardware (`CAL_<SENSOR><N>_ID` device ids, names
//!   holding `uuid` or `serial` such as `COM_FLIGHT_UUID`) are zeroed (see
//!   [`ulog`]).
//! - **Logged text** (`drop_text`): ULog logged and tagged strings, and
//!   the topics of log types (`rosgraph_msgs/Log` as `/rosout`,
//!   `rcl_interfaces/msg/Log`, `foxglove.Log`), are left out.
//!
//! What changed is reported as lines ([`ConvertStats::anonymised`](super::ConvertStats::anonymised)).

use std::collections::BTreeMap;
use std::fmt;

use logcore::{ChannelInfo, Error};

pub(crate) mod positions;
#[cfg(feature = "ulog")]
pub(crate) mod ulog;

/// What anonymisation a filter applies (see the module docs); the
/// default changes nothing.
///
/// ```
/// use robolog::convert::Anonymise;
/// let a = Anonymise { gps_offset: Some((0.5, -1.25)), ..Anonymise::all() };
/// assert!(a.positions && a.identifiers && !a.drop_text && !a.is_empty());
/// assert!(Anonymise::default().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Anonymise {
    /// Move every GPS position by one offset.
    pub positions: bool,
    /// The offset (latitude, longitude, degrees); `None`: a random one of
    /// 1 to 5 degrees of latitude and 1 to 10 of longitude, either sign.
    pub gps_offset: Option<(f64, f64)>,
    /// Leave out vehicle and hardware identifiers.
    pub identifiers: bool,
    /// Leave out logged free text.
    pub drop_text: bool,
}

impl Anonymise {
    /// Positions and identifiers (what `--anonymise` asks).
    pub fn all() -> Self {
        Anonymise {
            positions: true,
            identifiers: true,
            ..Anonymise::default()
        }
    }

    /// Whether nothing is changed.
    pub fn is_empty(&self) -> bool {
        !self.positions && !self.identifiers && !self.drop_text
    }
}

/// The types of logged text messages (`drop_text`).
pub(crate) const LOG_TYPES: [&str; 5] = [
    "rosgraph_msgs/Log",
    "rcl_interfaces/msg/Log",
    "foxglove.Log",
    "foxglove_msgs/Log",
    "foxglove_msgs/msg/Log",
];

/// Whether channel `c` carries logged text (`drop_text`).
pub(crate) fn is_log_channel(c: &ChannelInfo) -> bool {
    LOG_TYPES.contains(&c.type_name.as_str())
}

/// Key names that identify a vehicle, a machine or a person: `callerid`,
/// `hostname`, `host`, `vin`, `serial`, `mac_address` and the ids
/// `robot_id`, `vehicle_id`, `device_id`, `machine_id`, `hardware_id`,
/// `drone_id`, `airframe_id`.
pub const IDENTIFIER_KEYS: [&str; 14] = [
    "callerid",
    "hostname",
    "host",
    "vin",
    "serial",
    "mac_address",
    "robot_id",
    "vehicle_id",
    "device_id",
    "machine_id",
    "hardware_id",
    "drone_id",
    "airframe_id",
    "user",
];

/// Whether the key `name` (an information field, a metadata key or
/// record name, ASCII case ignored) names an identifier: one of
/// [`IDENTIFIER_KEYS`], or a name holding `uuid`, `guid`, `serial` or
/// `hostname`. (`msg_id`, `multi_id` and the like are not: they number
/// things inside the log.)
///
/// ```
/// use robolog::convert::is_identifier;
/// assert!(is_identifier("sys_uuid") && is_identifier("callerid") && is_identifier("sys_mcu_serial"));
/// assert!(!is_identifier("multi_id") && !is_identifier("sys_name") && !is_identifier("ver_hw"));
/// ```
pub fn is_identifier(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    IDENTIFIER_KEYS.contains(&n.as_str())
        || ["uuid", "guid", "serial", "hostname"]
            .iter()
            .any(|p| n.contains(p))
}

/// Whether the ULog information key `name` names an identifier:
/// [`is_identifier`], or a name ending in `_id` or `_uid` (information
/// describes the system, so its ids are the system's).
#[cfg_attr(not(feature = "ulog"), allow(dead_code))]
pub(crate) fn is_identifier_info(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    is_identifier(&n) || n.ends_with("_id") || n.ends_with("_uid")
}

/// The offset of an anonymisation: 1e-7 degrees of latitude and
/// longitude.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offset {
    lat_e7: i64,
    lon_e7: i64,
}

/// Not shown: an offset printed would undo the anonymisation.
impl fmt::Debug for Offset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Offset(..)")
    }
}

/// 1e7: degrees to the integer units of PX4's `lat`/`lon`.
const E7: f64 = 1e7;

impl Offset {
    /// The offset `(lat, lon)` in degrees, or a random one.
    pub(crate) fn new(given: Option<(f64, f64)>) -> Result<Offset, Error> {
        match given {
            Some((lat, lon)) => {
                if !(lat.is_finite() && lon.is_finite() && lat.abs() <= 90.0 && lon.abs() <= 180.0)
                {
                    return Err(Error::invalid_argument(format!(
                        "--gps-offset {lat},{lon}: give a latitude within ±90 and a longitude \
                         within ±180 degrees"
                    )));
                }
                Ok(Offset {
                    lat_e7: (lat * E7).round() as i64,
                    lon_e7: (lon * E7).round() as i64,
                })
            }
            None => {
                let r = random_u64();
                let sign = |bit: u64| if r >> bit & 1 == 1 { -1 } else { 1 };
                // 1 to 5 degrees of latitude, 1 to 10 of longitude, in
                // whole 1e-7 degrees (so that integer positions move by
                // exactly the same offset).
                let lat = 10_000_000 + (r & 0xFFFF_FFFF) as i64 % 40_000_000;
                let lon = 10_000_000 + (r >> 32 & 0x3FFF_FFFF) as i64 % 90_000_000;
                Ok(Offset {
                    lat_e7: sign(62) * lat,
                    lon_e7: sign(63) * lon,
                })
            }
        }
    }

    /// The position `(lat, lon)` in degrees moved; `None` for a position
    /// that stays: not finite, or (0, 0).
    pub(crate) fn moved_deg(&self, lat: f64, lon: f64) -> Option<(f64, f64)> {
        if !(lat.is_finite() && lon.is_finite()) || (lat == 0.0 && lon == 0.0) {
            return None;
        }
        let lat = (lat + self.lat_e7 as f64 / E7).clamp(-90.0, 90.0);
        let mut lon = lon + self.lon_e7 as f64 / E7;
        if lon > 180.0 {
            lon -= 360.0;
        } else if lon < -180.0 {
            lon += 360.0;
        }
        Some((lat, lon))
    }

    /// The position `(lat, lon)` in 1e-7 degrees moved; `None` for (0, 0).
    pub(crate) fn moved_e7(&self, lat: i64, lon: i64) -> Option<(i64, i64)> {
        if lat == 0 && lon == 0 {
            return None;
        }
        let lat = (lat + self.lat_e7).clamp(-900_000_000, 900_000_000);
        let mut lon = lon + self.lon_e7;
        if lon > 1_800_000_000 {
            lon -= 3_600_000_000;
        } else if lon < -1_800_000_000 {
            lon += 3_600_000_000;
        }
        Some((lat, lon))
    }
}

/// 64 random bits from the operating system (`/dev/urandom`); where it
/// cannot be read (not a Unix system, a sandbox without `/dev`), the
/// standard library's per-process random hash keys over the time and the
/// process id.
fn random_u64() -> u64 {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_ok() {
        let mut out = [0u8; 8];
        for (i, b) in bytes.iter().enumerate() {
            out[i % 8] ^= *b;
        }
        return u64::from_le_bytes(out);
    }
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.write_u32(std::process::id());
    h.finish()
}

/// An anonymisation resolved for one filter: what it does and its
/// offset.
#[derive(Debug, Clone)]
pub(crate) struct Anonymiser {
    pub(crate) spec: Anonymise,
    pub(crate) offset: Offset,
}

impl Anonymiser {
    /// `spec` with its offset chosen (or checked).
    pub(crate) fn new(spec: &Anonymise) -> Result<Self, Error> {
        Ok(Anonymiser {
            spec: spec.clone(),
            offset: Offset::new(spec.gps_offset)?,
        })
    }
}

/// What an anonymisation changed, gathered as it goes and said as lines.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// Topic -> messages whose positions moved.
    pub(crate) moved: BTreeMap<String, u64>,
    /// Topic -> messages with no position to move ((0, 0), NaN, too short).
    pub(crate) unmoved: BTreeMap<String, u64>,
    /// Identifier fields left out (ULog information keys).
    pub(crate) fields: Vec<String>,
    /// Messages whose text had an identifier replaced.
    pub(crate) redacted: u64,
    /// Logged strings left out.
    pub(crate) text: u64,
    /// Messages of unknown types left out.
    pub(crate) unknown: u64,
    /// Connections or channels whose `callerid` (or other identifying
    /// metadata) was left out, and the keys.
    pub(crate) channel_keys: BTreeMap<String, u64>,
    /// MCAP metadata: records and keys left out.
    pub(crate) metadata: Vec<String>,
    /// Topics of logged text left out.
    pub(crate) text_topics: Vec<String>,
}

/// `n` and `noun`, with an `s` unless `n` is 1.
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

impl Report {
    /// The lines of the report (nothing when nothing changed).
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (topic, n) in &self.moved {
            let without = self.unmoved.get(topic).copied().unwrap_or(0);
            out.push(format!(
                "positions moved by the log's offset: {topic}: {}{}",
                counted(*n, "message"),
                if without > 0 {
                    format!(" ({without} without a position, unchanged)")
                } else {
                    String::new()
                }
            ));
        }
        for (topic, n) in &self.unmoved {
            if !self.moved.contains_key(topic) {
                out.push(format!(
                    "positions: {topic}: {} without a position, unchanged",
                    counted(*n, "message")
                ));
            }
        }
        if !self.fields.is_empty() {
            out.push(format!("identifiers left out: {}", self.fields.join(", ")));
        }
        if self.redacted > 0 {
            out.push(format!(
                "identifier text replaced by * in {}",
                counted(self.redacted, "message")
            ));
        }
        for (key, n) in &self.channel_keys {
            out.push(format!(
                "{key} left out of {}",
                counted(*n, "connection or channel")
                    .replace("connection or channels", "connections or channels")
            ));
        }
        if !self.metadata.is_empty() {
            out.push(format!("metadata left out: {}", self.metadata.join(", ")));
        }
        if self.text > 0 {
            out.push(format!(
                "logged text left out: {}",
                counted(self.text, "message")
            ));
        }
        if !self.text_topics.is_empty() {
            out.push(format!(
                "topics of logged text left out: {}",
                self.text_topics.join(", ")
            ));
        }
        if self.unknown > 0 {
            out.push(format!(
                "messages of unknown types left out: {}",
                self.unknown
            ));
        }
        out
    }
}

/// Channel (or connection header) metadata without its identifying keys
/// (see [`is_identifier`]), counted in `report`.
pub(crate) fn clean_metadata(metadata: &mut BTreeMap<String, String>, report: Option<&mut Report>) {
    let gone: Vec<String> = metadata
        .keys()
        .filter(|k| is_identifier(k))
        .cloned()
        .collect();
    for k in &gone {
        metadata.remove(k);
    }
    if let Some(r) = report {
        for k in gone {
            *r.channel_keys.entry(k).or_default() += 1;
        }
    }
}

/// ASCII case-insensitive replacement of every occurrence of each of
/// `needles` in `text` by `*`s; whether any was found.
#[cfg_attr(not(feature = "ulog"), allow(dead_code))]
pub(crate) fn redact(text: &mut [u8], needles: &[Vec<u8>]) -> bool {
    let mut found = false;
    for n in needles {
        if n.is_empty() || n.len() > text.len() {
            continue;
        }
        let mut i = 0;
        while i + n.len() <= text.len() {
            if text[i..i + n.len()].eq_ignore_ascii_case(n) {
                text[i..i + n.len()].fill(b'*');
                found = true;
                i += n.len();
            } else {
                i += 1;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_move_wrap_and_clamp() {
        let o = Offset::new(Some((2.5, 10.0))).unwrap();
        assert_eq!(o.moved_deg(47.0, 8.0), Some((49.5, 18.0)));
        assert_eq!(o.moved_deg(0.0, 0.0), None);
        assert_eq!(o.moved_deg(f64::NAN, 1.0), None);
        assert_eq!(o.moved_deg(89.0, 175.0), Some((90.0, -175.0)));
        assert_eq!(
            o.moved_e7(470_000_000, 80_000_000),
            Some((495_000_000, 180_000_000))
        );
        assert_eq!(o.moved_e7(0, 0), None);
        assert!(Offset::new(Some((91.0, 0.0))).is_err());
        for _ in 0..20 {
            let r = Offset::new(None).unwrap();
            let (lat, lon) = (r.lat_e7.abs(), r.lon_e7.abs());
            assert!((10_000_000..50_000_000).contains(&lat), "{lat}");
            assert!((10_000_000..100_000_000).contains(&lon), "{lon}");
        }
        assert_eq!(format!("{o:?}"), "Offset(..)");
    }

    #[test]
    fn redacts_ignoring_case() {
        let mut t = b"UID: 004f0041 and 004F0041.".to_vec();
        assert!(redact(&mut t, &[b"004F0041".to_vec()]));
        assert_eq!(t, b"UID: ******** and ********.");
        assert!(!redact(&mut t, &[b"zz".to_vec()]));
    }
}

/// The anonymisation of the messages of a merged filter's inputs (ROS
/// bags, ROS 2 bags, MCAP files): each channel's position codec, and
/// what changed.
#[derive(Debug)]
pub(crate) struct ForMessages {
    offset: Offset,
    /// Per input: channel -> its position codec and topic.
    codecs: Vec<std::collections::HashMap<logcore::ChannelId, (positions::Codec, String)>>,
    report: Report,
}

impl ForMessages {
    /// The anonymisation `anon` of the channels of `logs` (`None` when it
    /// changes no message); what it leaves out of channels and metadata
    /// (kept topics only, as `kept` says) is reported from the start.
    pub(crate) fn new(
        anon: &Anonymiser,
        logs: &[&crate::Log<'_>],
        kept: &dyn Fn(&str) -> bool,
        text_topics: &[String],
    ) -> Result<Self, Error> {
        let mut codecs = Vec::with_capacity(logs.len());
        let mut report = Report::default();
        for log in logs {
            let channels = logcore::LogReader::channels(*log)?;
            let mut mine = std::collections::HashMap::new();
            for c in &channels {
                if !kept(&c.topic) {
                    continue;
                }
                if anon.spec.positions
                    && let Some(codec) = positions::codec_of(c)
                {
                    mine.insert(c.id, (codec, c.topic.clone()));
                }
                if anon.spec.identifiers {
                    let mut m = c.metadata.clone();
                    clean_metadata(&mut m, Some(&mut report));
                }
            }
            codecs.push(mine);
            if anon.spec.identifiers {
                report.metadata.extend(metadata_left_out(log));
            }
        }
        report.text_topics = text_topics.to_vec();
        Ok(ForMessages {
            offset: anon.offset,
            codecs,
            report,
        })
    }

    /// `m` of input `i` with its positions moved when its channel has
    /// them.
    pub(crate) fn apply<'m>(&mut self, i: usize, m: logcore::Message<'m>) -> logcore::Message<'m> {
        let Some((codec, topic)) = self.codecs.get(i).and_then(|c| c.get(&m.channel)) else {
            return m;
        };
        match positions::move_positions(*codec, &m.payload, &self.offset) {
            positions::Moved::Changed(p) => {
                *self.report.moved.entry(topic.clone()).or_default() += 1;
                logcore::Message {
                    payload: logcore::Payload::Shared(bytes::Bytes::from(p)),
                    ..m
                }
            }
            positions::Moved::Unchanged => {
                *self.report.unmoved.entry(topic.clone()).or_default() += 1;
                m
            }
            positions::Moved::NoPosition => m,
        }
    }

    /// The report so far, as lines; what it held is said once.
    pub(crate) fn take_lines(&mut self) -> Vec<String> {
        std::mem::take(&mut self.report).lines()
    }
}

/// Whether an MCAP attachment named `name` is left out by an
/// anonymisation of identifiers: its file name (after the last `/`), or
/// that name up to its first `.`, is named by [`is_identifier`]
/// (`serial.txt`, `robot_uuid.json`, `hostname`, `calib/vin.yaml`); its
/// media type and bytes are not searched.
pub(crate) fn is_identifying_attachment(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    let stem = file.split('.').next().unwrap_or(file);
    is_identifier(file) || is_identifier(stem)
}

/// The names of the MCAP metadata records of `log` left out (named by
/// [`is_identifier`]), as `record.key` the keys left out of the others,
/// and as `attachment NAME` the attachments left out
/// ([`is_identifying_attachment`]).
pub(crate) fn metadata_left_out(log: &crate::Log<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(mcap) = log.as_mcap() else {
        return out;
    };
    let Some(summary) = mcap.mcap_summary() else {
        return out;
    };
    for index in &summary.metadata_indexes {
        let Ok(m) = mcap.metadata(index) else {
            continue;
        };
        if is_identifier(&m.name) {
            out.push(m.name.to_string());
            continue;
        }
        for k in m.metadata.keys().filter(|k| is_identifier(k)) {
            out.push(format!("{}.{k}", m.name));
        }
    }
    for index in &summary.attachment_indexes {
        if is_identifying_attachment(&index.name) {
            out.push(format!("attachment {}", index.name));
        }
    }
    out
}

/// The metadata record `name` with `metadata` as an anonymisation of
/// identifiers writes it: `None` when the record is left out, else
/// without its identifying keys.
pub(crate) fn cleaned_record(
    name: &str,
    metadata: &BTreeMap<String, String>,
) -> Option<BTreeMap<String, String>> {
    if is_identifier(name) {
        return None;
    }
    let mut m = metadata.clone();
    clean_metadata(&mut m, None);
    Some(m)
}

impl super::Context<'_> {
    /// The anonymisation of the filter of this conversion, when it has one.
    pub(crate) fn anonymiser(&self) -> Option<&Anonymiser> {
        self.selecting.as_ref()?.filter().anonymiser()
    }

    /// Whether identifiers are left out of connections, channels and
    /// metadata.
    pub(crate) fn anonymises_identifiers(&self) -> bool {
        self.anonymiser().is_some_and(|a| a.spec.identifiers)
    }
}
