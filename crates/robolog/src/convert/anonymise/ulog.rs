//! The anonymisation of a ULog file as the filter copies it (an
//! [`Editor`] of the `native::ulog` walk): position fields of samples
//! moved, identifying information left out and its text replaced
//! elsewhere, logged strings and messages of unknown types left out.
//!
//! Position fields are found in each format's flattened fields: a field
//! `P lat` with a sibling `P lon` (and `latitude`/`longitude`,
//! `latitude_deg`/`longitude_deg`, `ref_lat`/`ref_lon`) under the same
//! prefix `P` (`current.` in a setpoint triplet); `int32_t`/`int64_t`
//! fields are 1e-7 degrees (PX4's `lat`/`lon`), `float`/`double` fields
//! degrees.
//!
//! Parameters (`P`, and defaults `Q`) that identify hardware are zeroed
//! (kept, so a reader still finds every parameter; see
//! [`is_hardware_parameter`]): PX4's sensor calibration device ids
//! `CAL_<SENSOR><N>_ID` (`CAL_ACC0_ID`, `CAL_GYRO1_ID`, `CAL_MAG0_ID`,
//! `CAL_BARO0_ID`, ...: each the bus type, bus, address and device type
//! of a sensor: the hardware configuration, not a unit's serial) and
//! any parameter whose name [`is_identifier`](super::is_identifier)
//! names (`uuid`, `serial`, ...). `MAV_SYS_ID` and other numbers a
//! configuration gives (not the hardware) stay, and so do the same device
//! ids in samples (`sensor_accel.device_id`,
//! `estimator_status.accel_device_id`, ...), which analyses use to tell
//! the sensors apart.

use std::collections::HashMap;

use ulogfile::{BasicType, InfoValue, Record, Subscription, ULog};

use super::{Anonymiser, Report, is_identifier_info, redact};
use crate::convert::native::ulog::{Edit, Editor, topic_of};

/// The field name pairs that hold a position (latitude, longitude).
const PAIRS: [(&str, &str); 4] = [
    ("lat", "lon"),
    ("latitude", "longitude"),
    ("latitude_deg", "longitude_deg"),
    ("ref_lat", "ref_lon"),
];

/// One position in a sample: the types and offsets of its latitude and
/// longitude.
#[derive(Debug, Clone, Copy)]
struct Pair {
    lat: (BasicType, usize),
    lon: (BasicType, usize),
}

/// The position pairs of a subscription's format.
fn pairs(sub: &Subscription<'_>) -> Vec<Pair> {
    let fields = sub.fields();
    let find = |name: &str| fields.iter().find(|f| f.name.as_str() == name);
    let mut out = Vec::new();
    for f in fields {
        let name = f.name.as_str();
        for (a, o) in PAIRS {
            let Some(prefix) = name.strip_suffix(a) else {
                continue;
            };
            if !(prefix.is_empty() || prefix.ends_with('.')) {
                continue;
            }
            let Some(g) = find(&format!("{prefix}{o}")) else {
                continue;
            };
            let usable = |t: BasicType| {
                matches!(
                    t,
                    BasicType::Int32 | BasicType::Int64 | BasicType::Float | BasicType::Double
                )
            };
            let ints = |t: BasicType| matches!(t, BasicType::Int32 | BasicType::Int64);
            if usable(f.ty) && usable(g.ty) && ints(f.ty) == ints(g.ty) {
                out.push(Pair {
                    lat: (f.ty, f.offset),
                    lon: (g.ty, g.offset),
                });
            }
        }
    }
    out
}

/// Whether the ULog parameter `name` identifies hardware (see the module
/// docs): `CAL_<LETTERS><DIGITS>_ID`, or a name
/// [`is_identifier`](super::is_identifier) names.
pub(crate) fn is_hardware_parameter(name: &str) -> bool {
    if super::is_identifier(name) {
        return true;
    }
    let Some(mid) = name
        .strip_prefix("CAL_")
        .and_then(|r| r.strip_suffix("_ID"))
    else {
        return false;
    };
    let digits = mid.trim_end_matches(|c: char| c.is_ascii_digit());
    !digits.is_empty() && digits.len() < mid.len() && digits.bytes().all(|b| b.is_ascii_uppercase())
}

/// The anonymisation of one ULog file.
pub(crate) struct UlogAnonymiser<'r> {
    anon: Anonymiser,
    /// Per format name: its position pairs.
    pairs: HashMap<String, Vec<Pair>>,
    /// The text of the identifying values, replaced wherever it appears.
    needles: Vec<Vec<u8>>,
    report: &'r mut Report,
}

impl<'r> UlogAnonymiser<'r> {
    /// The anonymisation `anon` of `ulog`: the identifying information's
    /// values found first (the boot console may print them before the
    /// information that names them).
    pub(crate) fn new(anon: &Anonymiser, ulog: &ULog<'_>, report: &'r mut Report) -> Self {
        let mut needles: Vec<Vec<u8>> = Vec::new();
        let mut text = |v: &InfoValue<'_>| {
            if let InfoValue::String(s) = v {
                let s = s.trim_matches(char::from(0)).trim();
                if s.len() >= 6 {
                    needles.push(s.as_bytes().to_vec());
                }
            }
        };
        if anon.spec.identifiers {
            for (name, info) in &ulog.info {
                if is_identifier_info(name) {
                    text(&info.value);
                }
            }
            for (name, m) in &ulog.multi_info {
                if is_identifier_info(name) {
                    m.groups.iter().flatten().for_each(&mut text);
                }
            }
        }
        needles.sort();
        needles.dedup();
        UlogAnonymiser {
            anon: anon.clone(),
            pairs: HashMap::new(),
            needles,
            report,
        }
    }

    /// A key/value message (`I`, `M`) kept, left out (an identifier) or
    /// with identifying text replaced; `value_at` is where its key length
    /// byte is.
    fn key_value(&mut self, payload: &[u8], key_at: usize, ty: u8) -> Edit {
        if !self.anon.spec.identifiers {
            return Edit::Keep;
        }
        let rec = Record::parse(ty, payload, 0);
        let kv = match &rec {
            Ok(Record::Info(kv) | Record::MultiInfo(_, kv)) => kv,
            _ => return Edit::Keep,
        };
        if let Some(name) = kv.name()
            && is_identifier_info(&name)
        {
            if !self.report.fields.contains(&name) {
                self.report.fields.push(name);
            }
            return Edit::Drop;
        }
        let value_at = key_at + 1 + kv.key.len();
        self.redacted(payload, value_at)
    }

    /// A parameter message (`P`, or `Q` with `key_at` 1) with its value
    /// zeroed when it identifies hardware.
    fn parameter(&mut self, payload: &[u8], key_at: usize, ty: u8) -> Edit {
        if !self.anon.spec.identifiers {
            return Edit::Keep;
        }
        let rec = Record::parse(ty, payload, 0);
        let kv = match &rec {
            Ok(Record::Parameter(kv) | Record::DefaultParameter(_, kv)) => kv,
            _ => return Edit::Keep,
        };
        let Some(name) = kv.name() else {
            return Edit::Keep;
        };
        if !is_hardware_parameter(&name) {
            return Edit::Keep;
        }
        let value_at = key_at + 1 + kv.key.len();
        if value_at >= payload.len() || payload[value_at..].iter().all(|&b| b == 0) {
            return Edit::Keep;
        }
        let label = format!("{name} (zeroed)");
        if !self.report.fields.contains(&label) {
            self.report.fields.push(label);
        }
        let mut p = payload.to_vec();
        p[value_at..].fill(0);
        Edit::Replace(p)
    }

    /// `payload` with identifying text from `from` on replaced.
    fn redacted(&mut self, payload: &[u8], from: usize) -> Edit {
        if self.needles.is_empty() || from >= payload.len() {
            return Edit::Keep;
        }
        let mut p = payload.to_vec();
        if redact(&mut p[from..], &self.needles) {
            self.report.redacted += 1;
            Edit::Replace(p)
        } else {
            Edit::Keep
        }
    }

    /// A sample with its positions moved.
    fn sample(&mut self, payload: &[u8], sub: &Subscription<'_>) -> Edit {
        if !self.anon.spec.positions {
            return Edit::Keep;
        }
        let pairs = self
            .pairs
            .entry(sub.layout.name.clone())
            .or_insert_with(|| pairs(sub));
        if pairs.is_empty() {
            return Edit::Keep;
        }
        let offset = self.anon.offset;
        // The struct bytes follow the msg_id.
        let mut p = payload.to_vec();
        let mut moved = false;
        let mut without = false;
        for pair in pairs.iter() {
            let (lt, la) = (pair.lat.0, 2 + pair.lat.1);
            let (ot, oa) = (pair.lon.0, 2 + pair.lon.1);
            if la + lt.size() > p.len() || oa + ot.size() > p.len() {
                continue;
            }
            let done = match (lt, ot) {
                (BasicType::Int32 | BasicType::Int64, _) => {
                    let (a, o) = (read_int(&p, la, lt), read_int(&p, oa, ot));
                    offset.moved_e7(a, o).map(|(a, o)| {
                        write_int(&mut p, la, lt, a);
                        write_int(&mut p, oa, ot, o);
                    })
                }
                _ => {
                    let (a, o) = (read_float(&p, la, lt), read_float(&p, oa, ot));
                    offset.moved_deg(a, o).map(|(a, o)| {
                        write_float(&mut p, la, lt, a);
                        write_float(&mut p, oa, ot, o);
                    })
                }
            };
            match done {
                Some(()) => moved = true,
                None => without = true,
            }
        }
        let topic = topic_of(sub);
        if moved {
            *self.report.moved.entry(topic).or_default() += 1;
            Edit::Replace(p)
        } else {
            if without {
                *self.report.unmoved.entry(topic).or_default() += 1;
            }
            Edit::Keep
        }
    }
}

fn read_int(p: &[u8], at: usize, t: BasicType) -> i64 {
    match t {
        BasicType::Int32 => i64::from(i32::from_le_bytes(
            p[at..at + 4].try_into().unwrap_or_default(),
        )),
        _ => i64::from_le_bytes(p[at..at + 8].try_into().unwrap_or_default()),
    }
}

fn write_int(p: &mut [u8], at: usize, t: BasicType, v: i64) {
    match t {
        BasicType::Int32 => p[at..at + 4].copy_from_slice(&(v as i32).to_le_bytes()),
        _ => p[at..at + 8].copy_from_slice(&v.to_le_bytes()),
    }
}

fn read_float(p: &[u8], at: usize, t: BasicType) -> f64 {
    match t {
        BasicType::Float => f64::from(f32::from_le_bytes(
            p[at..at + 4].try_into().unwrap_or_default(),
        )),
        _ => f64::from_le_bytes(p[at..at + 8].try_into().unwrap_or_default()),
    }
}

fn write_float(p: &mut [u8], at: usize, t: BasicType, v: f64) {
    match t {
        BasicType::Float => p[at..at + 4].copy_from_slice(&(v as f32).to_le_bytes()),
        _ => p[at..at + 8].copy_from_slice(&v.to_le_bytes()),
    }
}

impl Editor for UlogAnonymiser<'_> {
    fn edit(&mut self, ty: u8, payload: &[u8], sub: Option<&Subscription<'_>>) -> Edit {
        match ty {
            b'D' => match sub {
                Some(s) => self.sample(payload, s),
                None => Edit::Keep,
            },
            b'I' => self.key_value(payload, 0, ty),
            b'M' => self.key_value(payload, 1, ty),
            b'L' | b'C' => {
                if self.anon.spec.drop_text {
                    self.report.text += 1;
                    return Edit::Drop;
                }
                // Level, (tag,) timestamp, then the text.
                let at = if ty == b'L' { 9 } else { 11 };
                self.redacted(payload, at)
            }
            b'P' => self.parameter(payload, 0, ty),
            b'Q' => self.parameter(payload, 1, ty),
            b'F' | b'A' | b'R' | b'O' | b'S' | b'B' => Edit::Keep,
            _ if self.anon.spec.identifiers => {
                self.report.unknown += 1;
                Edit::Drop
            }
            _ => Edit::Keep,
        }
    }
}

#[cfg(test)]
mod parameter_tests {
    use super::is_hardware_parameter;

    #[test]
    fn hardware_parameters() {
        for p in [
            "CAL_ACC0_ID",
            "CAL_GYRO12_ID",
            "CAL_MAG0_ID",
            "CAL_BARO1_ID",
            "SYS_SERIAL",
        ] {
            assert!(is_hardware_parameter(p), "{p}");
        }
        for p in [
            "CAL_ACC0_PRIO",
            "CAL_MAG_SIDES",
            "MAV_SYS_ID",
            "CAL_0_ID",
            "CAL_ACC_ID",
        ] {
            assert!(!is_hardware_parameter(p), "{p}");
        }
    }
}
