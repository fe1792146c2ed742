//! The textual conventions of OSI traces: semantic versions, the two ISO
//! 8601 time forms (the extended `dateTimeStamp` of OSI 3.8.0 and the
//! compact form of the draft), and the file-name conventions of both rule
//! sets (parse and build).
//!
//! ```
//! use osi_mcap::conventions::{Semver, TraceName, is_date_time_stamp};
//! assert_eq!(Semver::parse("3.8.0").unwrap().triple(), (3, 8, 0));
//! assert!(is_date_time_stamp("2024-06-03T14:38:03.535904Z"));
//! let name = TraceName::parse("20210818T150542Z_multi_312_300_1523_highway.mcap").unwrap();
//! assert_eq!(name.type_code, "multi");
//! assert_eq!(name.to_string(), "20210818T150542Z_multi_312_300_1523_highway.mcap");
//! ```

use std::cmp::Ordering;
use std::fmt;

/// The type codes of file names: the ten top-level messages of OSI 3.8.0
/// and `multi`.
pub const TYPE_CODES: &[&str] = &[
    "sv", "svc", "gt", "hvd", "sd", "tc", "tcu", "tu", "mr", "su", "multi",
];

/// The type codes the draft rules know (no `svc`).
pub const DRAFT_TYPE_CODES: &[&str] = &[
    "sv", "gt", "hvd", "sd", "tc", "tcu", "tu", "mr", "su", "multi",
];

/// A semantic version (SemVer 2.0.0: `major.minor.patch`, optional
/// `-pre.release` and `+build`, no leading zeros).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Semver {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// Patch version.
    pub patch: u64,
    /// Pre-release identifiers (without the `-`), empty when none.
    pub pre: String,
    /// Build metadata (without the `+`), empty when none.
    pub build: String,
}

fn numeric(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    s.parse().ok()
}

fn identifiers_ok(s: &str, numeric_no_leading_zero: bool) -> bool {
    s.split('.').all(|id| {
        !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !(numeric_no_leading_zero
                && id.len() > 1
                && id.starts_with('0')
                && id.bytes().all(|b| b.is_ascii_digit()))
    })
}

impl Semver {
    /// Parses a SemVer string; `None` when it is not one.
    pub fn parse(s: &str) -> Option<Semver> {
        let (rest, build) = match s.split_once('+') {
            Some((r, b)) => (r, b),
            None => (s, ""),
        };
        if s.contains('+') && !identifiers_ok(build, false) {
            return None;
        }
        let (core, pre) = match rest.split_once('-') {
            Some((c, p)) => (c, p),
            None => (rest, ""),
        };
        if rest.contains('-') && !identifiers_ok(pre, true) {
            return None;
        }
        let mut parts = core.split('.');
        let major = numeric(parts.next()?)?;
        let minor = numeric(parts.next()?)?;
        let patch = numeric(parts.next()?)?;
        if parts.next().is_some() {
            return None;
        }
        Some(Semver {
            major,
            minor,
            patch,
            pre: pre.into(),
            build: build.into(),
        })
    }

    /// `(major, minor, patch)`.
    pub fn triple(&self) -> (u64, u64, u64) {
        (self.major, self.minor, self.patch)
    }

    /// The version without dots, as file names write it (`3.8.0` -> `380`).
    pub fn compact(&self) -> String {
        format!("{}{}{}", self.major, self.minor, self.patch)
    }
}

impl PartialOrd for Semver {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Semver {
    /// Precedence by SemVer rules on the core and the pre-release (a
    /// pre-release sorts before its release; build metadata breaks ties
    /// only to keep `Ord` consistent with `Eq`).
    fn cmp(&self, other: &Self) -> Ordering {
        self.triple()
            .cmp(&other.triple())
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => cmp_pre(&self.pre, &other.pre),
            })
            .then_with(|| self.build.cmp(&other.build))
    }
}

fn cmp_pre(a: &str, b: &str) -> Ordering {
    let mut ai = a.split('.');
    let mut bi = b.split('.');
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let o = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(p), Ok(q)) => p.cmp(&q),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    (Err(_), Err(_)) => x.cmp(y),
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

impl fmt::Display for Semver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build)?;
        }
        Ok(())
    }
}

/// A small cursor over ASCII digits and literal characters.
struct Scan<'a> {
    s: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn digits(&mut self, n: usize) -> Option<u32> {
        let d = self.s.get(self.i..self.i + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(d.iter().fold(0, |a, b| a * 10 + u32::from(b - b'0')))
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// One or more digits; whether they were all zeros.
    fn fraction(&mut self) -> Option<bool> {
        let start = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        (self.i > start).then(|| self.s[start..self.i].iter().all(|&b| b == b'0'))
    }

    fn done(&self) -> bool {
        self.i == self.s.len()
    }
}

fn date_ok(month: u32, day: u32) -> bool {
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

fn time_ok(h: u32, m: u32, s: u32, fraction_zero: bool) -> bool {
    (h <= 23 && m <= 59 && s <= 59) || (h == 24 && m == 0 && s == 0 && fraction_zero)
}

/// Whether `s` is in the XML Schema `dateTimeStamp` lexical space that OSI
/// 3.8.0 requires for `zero_time` and `creation_time`: extended ISO 8601
/// with separators and a mandatory zone (`2024-06-03T14:38:03.535904Z`,
/// `2024-01-01T00:00:00+01:00`).
pub fn is_date_time_stamp(s: &str) -> bool {
    let mut c = Scan {
        s: s.as_bytes(),
        i: 0,
    };
    c.eat(b'-');
    let year_start = c.i;
    while c.s.get(c.i).is_some_and(u8::is_ascii_digit) {
        c.i += 1;
    }
    let year_len = c.i - year_start;
    if year_len < 4 || (year_len > 4 && c.s[year_start] == b'0') {
        return false;
    }
    let ok = (|| {
        if !c.eat(b'-') {
            return None;
        }
        let month = c.digits(2)?;
        if !c.eat(b'-') {
            return None;
        }
        let day = c.digits(2)?;
        if !c.eat(b'T') {
            return None;
        }
        let h = c.digits(2)?;
        if !c.eat(b':') {
            return None;
        }
        let m = c.digits(2)?;
        if !c.eat(b':') {
            return None;
        }
        let sec = c.digits(2)?;
        let fraction_zero = if c.eat(b'.') { c.fraction()? } else { true };
        if !date_ok(month, day) || !time_ok(h, m, sec, fraction_zero) {
            return None;
        }
        if c.eat(b'Z') {
            return Some(());
        }
        if !(c.eat(b'+') || c.eat(b'-')) {
            return None;
        }
        let zh = c.digits(2)?;
        if !c.eat(b':') {
            return None;
        }
        let zm = c.digits(2)?;
        (zm <= 59 && (zh <= 13 || (zh == 14 && zm == 0))).then_some(())
    })();
    ok.is_some() && c.done()
}

/// Whether `s` is the compact (basic) ISO 8601 form of the draft rules,
/// `YYYYMMDDThhmmss` with an optional `.f…` fraction and an optional zone
/// (`Z`, `±hh`, `±hhmm`).
pub fn is_compact_date_time(s: &str) -> bool {
    let mut c = Scan {
        s: s.as_bytes(),
        i: 0,
    };
    let ok = (|| {
        let _year = c.digits(4)?;
        let month = c.digits(2)?;
        let day = c.digits(2)?;
        if !c.eat(b'T') {
            return None;
        }
        let h = c.digits(2)?;
        let m = c.digits(2)?;
        let sec = c.digits(2)?;
        let fraction_zero = if c.eat(b'.') || c.eat(b',') {
            c.fraction()?
        } else {
            true
        };
        if !date_ok(month, day) || !time_ok(h, m, sec, fraction_zero) {
            return None;
        }
        if c.done() || c.eat(b'Z') {
            return Some(());
        }
        if !(c.eat(b'+') || c.eat(b'-')) {
            return None;
        }
        let zh = c.digits(2)?;
        let zm = if c.done() { 0 } else { c.digits(2)? };
        (zh <= 14 && zm <= 59).then_some(())
    })();
    ok.is_some() && c.done()
}

/// The UTC calendar fields of a Unix time: (year, month, day, hour,
/// minute, second, nanosecond).
fn utc(unix_ns: i128) -> Option<(i32, u8, u8, u8, u8, u8, u32)> {
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(unix_ns).ok()?;
    Some((
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.nanosecond(),
    ))
}

fn fraction(nanos: u32) -> String {
    if nanos == 0 {
        String::new()
    } else {
        format!(".{nanos:09}").trim_end_matches('0').to_string()
    }
}

/// A Unix time (ns) as a `dateTimeStamp` in UTC
/// (`2024-01-01T00:00:00.5Z`, no fraction when whole seconds).
///
/// ```
/// assert_eq!(osi_mcap::conventions::format_date_time_stamp(1_704_067_200_500_000_000).unwrap(),
///            "2024-01-01T00:00:00.5Z");
/// ```
pub fn format_date_time_stamp(unix_ns: i128) -> Option<String> {
    let (y, mo, d, h, mi, s, ns) = utc(unix_ns)?;
    Some(format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{}Z",
        fraction(ns)
    ))
}

/// A Unix time (ns) in the draft's compact form `YYYYMMDDThhmmss.f` (UTC,
/// no zone designator, as the draft spells it; at least one fraction digit).
///
/// ```
/// assert_eq!(osi_mcap::conventions::format_compact_date_time(1_704_067_200_000_000_000).unwrap(),
///            "20240101T000000.0");
/// ```
pub fn format_compact_date_time(unix_ns: i128) -> Option<String> {
    let (y, mo, d, h, mi, s, ns) = utc(unix_ns)?;
    let f = fraction(ns);
    Some(format!(
        "{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}{}",
        if f.is_empty() { ".0" } else { &f }
    ))
}

/// The file-name timestamp `YYYYMMDDThhmmssZ` (basic ISO 8601, UTC).
pub fn format_name_timestamp(unix_ns: i128) -> Option<String> {
    let (y, mo, d, h, mi, s, _) = utc(unix_ns)?;
    Some(format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z"))
}

/// A file name by the OSI 3.8.0 recommendation:
/// `<timestamp>_<type>_<osi-version>_<protobuf-version>_<frames>_<name>.mcap`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceName {
    /// `YYYYMMDDThhmmssZ`.
    pub timestamp: String,
    /// One of [`TYPE_CODES`].
    pub type_code: String,
    /// OSI version without dots (`380`).
    pub osi_version: String,
    /// Protobuf version without dots (`3200`).
    pub protobuf_version: String,
    /// Number of frames (the largest per-channel message count for `multi`).
    pub frames: u64,
    /// The custom trace name (may contain `_`).
    pub name: String,
    /// The extension (`mcap`).
    pub extension: String,
}

impl TraceName {
    /// Parses a file name (no directory). `Err` says what does not fit.
    pub fn parse(file_name: &str) -> Result<TraceName, String> {
        let (stem, ext) = file_name
            .rsplit_once('.')
            .ok_or("the name has no extension")?;
        let parts: Vec<&str> = stem.splitn(6, '_').collect();
        if parts.len() < 6 {
            return Err(format!(
                "{} `_`-separated fields where six are expected (<timestamp>_<type>_<osi-version>_<protobuf-version>_<frames>_<name>)",
                parts.len()
            ));
        }
        let ts = parts[0];
        if ts.len() != 16 || !is_compact_date_time(ts) || !ts.ends_with('Z') {
            return Err(format!(
                "timestamp {ts:?} is not YYYYMMDDThhmmssZ (basic ISO 8601, UTC)"
            ));
        }
        if !TYPE_CODES.contains(&parts[1]) {
            return Err(format!("type {:?} is not one of {TYPE_CODES:?}", parts[1]));
        }
        for (what, v) in [("OSI version", parts[2]), ("protobuf version", parts[3])] {
            if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!(
                    "{what} {v:?} is not digits (a version without dots)"
                ));
            }
        }
        let frames = numeric(parts[4])
            .ok_or_else(|| format!("frame count {:?} is not a number", parts[4]))?;
        if parts[5].is_empty() {
            return Err("the custom trace name is empty".into());
        }
        Ok(TraceName {
            timestamp: ts.into(),
            type_code: parts[1].into(),
            osi_version: parts[2].into(),
            protobuf_version: parts[3].into(),
            frames,
            name: parts[5].into(),
            extension: ext.into(),
        })
    }
}

impl fmt::Display for TraceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}_{}_{}_{}_{}_{}.{}",
            self.timestamp,
            self.type_code,
            self.osi_version,
            self.protobuf_version,
            self.frames,
            self.name,
            self.extension
        )
    }
}

/// A file name by the draft rules:
/// `<opt. prefix>_<opt. timestamp>_<type>_<opt. suffix>.mcap`, omitted
/// fields dropping their `_`, prefix and suffix without `_`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DraftName {
    /// Optional prefix.
    pub prefix: Option<String>,
    /// Optional ISO 8601 timestamp.
    pub timestamp: Option<String>,
    /// One of [`DRAFT_TYPE_CODES`].
    pub type_code: String,
    /// Optional suffix.
    pub suffix: Option<String>,
}

impl DraftName {
    /// Parses a file name (no directory). The draft's own examples put the
    /// timestamp before or after the prefix, so either order is accepted.
    pub fn parse(file_name: &str) -> Result<DraftName, String> {
        let stem = file_name
            .strip_suffix(".mcap")
            .ok_or("the name does not end in .mcap")?;
        let parts: Vec<&str> = stem.split('_').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err("an empty field (double, leading or trailing `_`)".into());
        }
        // The type is the last type-code token with at most one token after it.
        let n = parts.len();
        let candidates = (n.saturating_sub(2)..n).rev();
        for i in candidates {
            if !DRAFT_TYPE_CODES.contains(&parts[i]) || i > 2 {
                continue;
            }
            let before = &parts[..i];
            let mut name = DraftName {
                type_code: parts[i].into(),
                suffix: parts.get(i + 1).map(|s| s.to_string()),
                ..DraftName::default()
            };
            match before {
                [] => {}
                [one] if is_compact_date_time(one) => name.timestamp = Some(one.to_string()),
                [one] => name.prefix = Some(one.to_string()),
                [a, b] if is_compact_date_time(b) => {
                    name.prefix = Some(a.to_string());
                    name.timestamp = Some(b.to_string());
                }
                [a, b] if is_compact_date_time(a) => {
                    name.timestamp = Some(a.to_string());
                    name.prefix = Some(b.to_string());
                }
                _ => continue,
            }
            return Ok(name);
        }
        Err(format!(
            "no type field ({DRAFT_TYPE_CODES:?}) where <prefix>_<timestamp>_<type>_<suffix> puts it"
        ))
    }
}

impl fmt::Display for DraftName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fields: Vec<&str> = [
            self.prefix.as_deref(),
            self.timestamp.as_deref(),
            Some(self.type_code.as_str()),
            self.suffix.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect();
        write!(f, "{}.mcap", fields.join("_"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semver() {
        assert_eq!(Semver::parse("3.7.1").unwrap().triple(), (3, 7, 1));
        assert_eq!(
            Semver::parse("1.0.0-rc.1+b5").unwrap().to_string(),
            "1.0.0-rc.1+b5"
        );
        for bad in [
            "", "3", "3.8", "3.8.0.1", "03.8.0", "3.8.x", "v3.8.0", "3.8.0-", "3.8.0-01",
        ] {
            assert!(Semver::parse(bad).is_none(), "{bad}");
        }
        let v = |s| Semver::parse(s).unwrap();
        assert!(v("3.8.0") > v("3.7.9"));
        assert!(v("3.8.0-rc.1") < v("3.8.0"));
        assert!(v("3.8.0-alpha") < v("3.8.0-alpha.1"));
        assert!(v("3.8.0-alpha.2") < v("3.8.0-alpha.10"));
        assert_eq!(v("3.12.0").compact(), "3120");
    }

    #[test]
    fn date_time_stamp() {
        for ok in [
            "2025-08-11T14:49:09.4Z",
            "2024-06-03T14:38:03.535904Z",
            "2024-01-01T00:00:00+01:00",
            "2024-01-01T24:00:00.000Z",
            "-0044-03-15T12:00:00Z",
            "12024-01-01T00:00:00-14:00",
        ] {
            assert!(is_date_time_stamp(ok), "{ok}");
        }
        for bad in [
            "20240101T000000Z",
            "2024-01-01T00:00:00",
            "2024-13-01T00:00:00Z",
            "2024-01-01T24:00:01Z",
            "2024-01-01T00:00:00.Z",
            "2024-01-01T00:00:00+14:30",
            "024-01-01T00:00:00Z",
            "02024-01-01T00:00:00Z",
            "2024-01-01 00:00:00Z",
            "2024-01-01T00:00:00Zx",
        ] {
            assert!(!is_date_time_stamp(bad), "{bad}");
        }
    }

    #[test]
    fn compact() {
        for ok in [
            "20240101T000000Z",
            "20240101T000000.5",
            "20210818T150542",
            "20240101T000000+0100",
        ] {
            assert!(is_compact_date_time(ok), "{ok}");
        }
        for bad in [
            "2024-01-01T00:00:00Z",
            "20240101T0000",
            "20241301T000000",
            "20240101T000000.Z",
        ] {
            assert!(!is_compact_date_time(bad), "{bad}");
        }
        assert_eq!(
            format_compact_date_time(1_704_067_200_250_000_000).unwrap(),
            "20240101T000000.25"
        );
        assert_eq!(
            format_name_timestamp(1_629_299_142_000_000_000).unwrap(),
            "20210818T150542Z"
        );
        assert_eq!(
            format_date_time_stamp(1_629_299_142_000_000_001).unwrap(),
            "2021-08-18T15:05:42.000000001Z"
        );
    }

    #[test]
    fn names_38() {
        let n = TraceName::parse("20240101T000000Z_multi_380_7362_10_lz4.mcap").unwrap();
        assert_eq!(
            (n.osi_version.as_str(), n.frames, n.name.as_str()),
            ("380", 10, "lz4")
        );
        let n = TraceName::parse("20210818T150542Z_sv_312_300_5_my_run.mcap").unwrap();
        assert_eq!(n.name, "my_run");
        assert_eq!(n.to_string(), "20210818T150542Z_sv_312_300_5_my_run.mcap");
        for bad in [
            "MovingHostWith3DModel.mcap",
            "20240101T000000Z_xx_380_7362_10_a.mcap",
            "2024-01-01_sv_380_7362_10_a.mcap",
            "20240101T000000Z_sv_3.8.0_7362_10_a.mcap",
            "20240101T000000Z_sv_380_7362_ten_a.mcap",
        ] {
            assert!(TraceName::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_draft() {
        // The draft's own examples.
        for (name, ty) in [
            ("20210818T150542Z_highway_sv.mcap", "sv"),
            ("20210818T150542Z_highway_sv_run-1.mcap", "sv"),
            ("20210818T150542Z_highway_gt_OSI-3-7.mcap", "gt"),
            ("Highway_sd_version-1.mcap", "sd"),
            ("Highway-cut-in-no-collision_sd.mcap", "sd"),
            ("Target-5m_sd_resimulated-measurement.mcap", "sd"),
        ] {
            let n = DraftName::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(n.type_code, ty);
        }
        let n = DraftName::parse("cut-in_20210818T150542Z_gt_v2.mcap").unwrap();
        assert_eq!(n.prefix.as_deref(), Some("cut-in"));
        assert_eq!(n.timestamp.as_deref(), Some("20210818T150542Z"));
        assert_eq!(n.to_string(), "cut-in_20210818T150542Z_gt_v2.mcap");
        for bad in [
            "highway__sv.mcap",
            "highway_sv.osi",
            "a_b_c_sv.mcap",
            "highway.mcap",
            "highway_svc.mcap",
        ] {
            assert!(DraftName::parse(bad).is_err(), "{bad}");
        }
    }
}
