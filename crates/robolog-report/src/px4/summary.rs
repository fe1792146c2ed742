//! A PX4 flight's summary, as Flight Review heads its page with: the
//! vehicle and its software, the span logged, how high, fast and far it
//! flew, and the time spent in each flight mode.

use serde::Serialize;
use ulogfile::{InfoValue, Subscription, ULog};

use crate::model::Band;

/// What a PX4 log says about its flight.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlightSummary {
    /// The vehicle type, from the `MAV_TYPE` parameter (`Quadrotor`).
    pub vehicle: Option<String>,
    /// The airframe, from `SYS_AUTOSTART`: its number and the group
    /// PX4's numbering puts it in (`4010 (quadrotor x)`).
    pub airframe: Option<String>,
    /// The software release, from `ver_sw_release` (`v1.14.0 release`).
    pub software: Option<String>,
    /// The software's git hash (`ver_sw`).
    pub git: Option<String>,
    /// The board (`ver_hw`, with `ver_hw_subtype` where there is one).
    pub hardware: Option<String>,
    /// The system (`sys_name`).
    pub system: Option<String>,
    /// The operating system and its release (`NuttX 11.0.0`).
    pub os: Option<String>,
    /// The span shown, ns.
    pub duration: i64,
    /// Time armed (`vehicle_status.arming_state` 2), ns.
    pub armed: Option<i64>,
    /// The greatest height above the first position, m
    /// (`vehicle_local_position` `-z`, else `vehicle_global_position`
    /// `alt`).
    pub max_altitude: Option<f64>,
    /// The greatest horizontal speed (`vehicle_local_position` `vx`, `vy`),
    /// m/s.
    pub max_speed: Option<f64>,
    /// The horizontal distance flown: the sum of the steps between
    /// `vehicle_local_position`'s `x`, `y`, m.
    pub distance: Option<f64>,
    /// The greatest climb and descent rates (`vehicle_local_position`
    /// `-vz` and `vz`), m/s.
    pub max_vertical: Option<(f64, f64)>,
    /// The greatest tilt from level (`vehicle_attitude.q`: the angle
    /// between the body's z axis and the vertical), degrees.
    pub max_tilt: Option<f64>,
    /// The greatest rotation rate (`vehicle_angular_velocity.xyz`'s
    /// norm), degrees/s.
    pub max_rotation: Option<f64>,
    /// The mean battery current (`battery_status.current_a`, its positive
    /// values), A.
    pub mean_current: Option<f64>,
    /// Each flight mode and the time spent in it, ns, in the order first
    /// entered.
    pub modes: Vec<(String, i64)>,
}

/// The summary as the page shows it: one row of text per item.
#[derive(Serialize)]
pub(crate) struct SummaryJson {
    rows: Vec<(String, String)>,
}

/// The name of a MAVLink `MAV_TYPE` value.
pub(crate) fn mav_type_name(v: i64) -> Option<&'static str> {
    Some(match v {
        0 => "Generic",
        1 => "Fixed wing",
        2 => "Quadrotor",
        3 => "Coaxial helicopter",
        4 => "Helicopter",
        5 => "Antenna tracker",
        6 => "Ground control station",
        7 => "Airship",
        8 => "Free balloon",
        9 => "Rocket",
        10 => "Ground rover",
        11 => "Surface boat",
        12 => "Submarine",
        13 => "Hexarotor",
        14 => "Octorotor",
        15 => "Tricopter",
        16 => "Flapping wing",
        17 => "Kite",
        19 => "VTOL tailsitter duorotor",
        20 => "VTOL tailsitter quadrotor",
        21 => "VTOL tiltrotor",
        22 => "VTOL standard",
        23 => "VTOL tailsitter",
        24 => "VTOL tiltwing",
        29 => "Dodecarotor",
        _ => return None,
    })
}

/// The group PX4's airframe numbering (`SYS_AUTOSTART`) puts a number in.
fn airframe_group(n: i64) -> Option<&'static str> {
    Some(match n / 1000 {
        1 => "simulation",
        2 => "standard plane",
        3 => "flying wing",
        4 => "quadrotor x",
        5 => "quadrotor +",
        6 => "hexarotor x",
        7 => "hexarotor +",
        8 => "octorotor x",
        9 => "octorotor +",
        10 => "quadrotor wide",
        11 => "hexarotor coaxial",
        12 => "octorotor coaxial",
        13 => "VTOL",
        14 => "tricopter",
        50 => "rover",
        _ => return None,
    })
}

/// A PX4 version number `0xAABBCCTT` as `AA.BB.CC` and its type (`TT`:
/// 255 a release, 192 and up a release candidate, 128 a beta, 64 an alpha,
/// below a development build).
pub(crate) fn version_text(v: u32) -> String {
    let [major, minor, patch, kind] = v.to_be_bytes();
    let kind = match kind {
        255 => "release",
        192..=254 => "rc",
        128..=191 => "beta",
        64..=127 => "alpha",
        _ => "dev",
    };
    format!("{major}.{minor}.{patch} {kind}")
}

fn info_text(ulog: &ULog<'_>, key: &str) -> Option<String> {
    match ulog.info_value(key)? {
        InfoValue::String(s) if !s.is_empty() => Some(s.clone()),
        InfoValue::String(_) => None,
        v => v.as_i64().map(|i| i.to_string()),
    }
}

fn info_u32(ulog: &ULog<'_>, key: &str) -> Option<u32> {
    ulog.info_value(key)?
        .as_i64()
        .map(|v| (v as u64 & 0xffff_ffff) as u32)
}

/// The `multi_id` 0 instance of a topic.
fn topic<'u, 'a>(ulog: &'u ULog<'a>, name: &str) -> Option<&'u Subscription<'a>> {
    ulog.subscription(name, 0)
}

/// A field's finite values in the span `[from, until)` (ns), with their
/// times.
fn values(sub: &Subscription<'_>, name: &str, span: (i64, i64)) -> Option<Vec<(i64, f64)>> {
    let f = sub.field(name)?;
    Some(
        sub.samples
            .iter()
            .filter_map(|s| {
                let t = (s.timestamp as i64).saturating_mul(1000);
                let v = f.get(&s)?.as_f64();
                (t >= span.0 && t < span.1).then_some((t, v))
            })
            .collect(),
    )
}

/// Several fields sampled together, each sample kept where every one is
/// finite.
fn rows<const N: usize>(
    sub: &Subscription<'_>,
    names: [&str; N],
    span: (i64, i64),
) -> Option<Vec<[f64; N]>> {
    let cols: Vec<Vec<(i64, f64)>> = names
        .iter()
        .map(|n| values(sub, n, span))
        .collect::<Option<_>>()?;
    let len = cols.first().map_or(0, Vec::len);
    Some(
        (0..len)
            .map(|i| std::array::from_fn(|k| cols[k][i].1))
            .filter(|r: &[f64; N]| r.iter().all(|v| v.is_finite()))
            .collect(),
    )
}

fn fold_max(it: impl Iterator<Item = f64>) -> Option<f64> {
    it.fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
}

/// The summary of a PX4 log over the span `[from, until)` (ns on its
/// clock), with the flight-mode band of that span.
pub(crate) fn summary(ulog: &ULog<'_>, span: (i64, i64), modes: Option<&Band>) -> FlightSummary {
    let param = |name: &str| ulog.initial_parameters.get(name).and_then(|v| v.as_i64());
    let vehicle = param("MAV_TYPE").map(|t| match mav_type_name(t) {
        Some(n) => format!("{n} (MAV_TYPE {t})"),
        None => format!("MAV_TYPE {t}"),
    });
    let airframe = param("SYS_AUTOSTART").map(|n| match airframe_group(n) {
        Some(g) => format!("{n} ({g})"),
        None => n.to_string(),
    });
    let software = info_u32(ulog, "ver_sw_release").map(|v| format!("v{}", version_text(v)));
    let hardware = info_text(ulog, "ver_hw").map(|hw| match info_text(ulog, "ver_hw_subtype") {
        Some(sub) => format!("{hw} ({sub})"),
        None => hw,
    });
    let os =
        info_text(ulog, "sys_os_name").map(|name| match info_u32(ulog, "sys_os_ver_release") {
            Some(v) => {
                let [a, b, c, _] = v.to_be_bytes();
                format!("{name} {a}.{b}.{c}")
            }
            None => name,
        });
    let mut out = FlightSummary {
        vehicle,
        airframe,
        software,
        git: info_text(ulog, "ver_sw"),
        hardware,
        system: info_text(ulog, "sys_name"),
        os,
        duration: span.1.saturating_sub(span.0).max(0),
        ..FlightSummary::default()
    };
    if let Some(lp) = topic(ulog, "vehicle_local_position") {
        if let Some(z) = values(lp, "z", span) {
            let z: Vec<f64> = z
                .into_iter()
                .map(|p| p.1)
                .filter(|v| v.is_finite())
                .collect();
            if let Some(&z0) = z.first() {
                out.max_altitude = fold_max(z.iter().map(|z| z0 - z));
            }
        }
        if let Some(v) = rows(lp, ["vx", "vy"], span) {
            out.max_speed = fold_max(v.iter().map(|[x, y]| x.hypot(*y)));
        }
        if let Some(p) = rows(lp, ["x", "y"], span) {
            out.distance = (!p.is_empty()).then(|| {
                p.windows(2)
                    .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
                    .sum()
            });
        }
    }
    if let Some(lp) = topic(ulog, "vehicle_local_position")
        && let Some(v) = rows(lp, ["vz"], span)
        && !v.is_empty()
    {
        let up = fold_max(v.iter().map(|[vz]| -vz)).unwrap_or(0.0);
        let down = fold_max(v.iter().map(|[vz]| *vz)).unwrap_or(0.0);
        out.max_vertical = Some((up, down));
    }
    if let Some(q) = topic(ulog, "vehicle_attitude")
        .and_then(|a| rows(a, ["q[0]", "q[1]", "q[2]", "q[3]"], span))
    {
        // The body z axis' vertical component: 1 - 2 (x^2 + y^2) of a
        // unit quaternion (w, x, y, z).
        out.max_tilt = fold_max(q.iter().map(|[w, x, y, z]| {
            let n = w * w + x * x + y * y + z * z;
            (1.0 - 2.0 * (x * x + y * y) / n)
                .clamp(-1.0, 1.0)
                .acos()
                .to_degrees()
        }));
    }
    if let Some(r) = topic(ulog, "vehicle_angular_velocity")
        .and_then(|a| rows(a, ["xyz[0]", "xyz[1]", "xyz[2]"], span))
    {
        out.max_rotation = fold_max(
            r.iter()
                .map(|[x, y, z]| (x * x + y * y + z * z).sqrt().to_degrees()),
        );
    }
    if let Some(c) = topic(ulog, "battery_status").and_then(|b| rows(b, ["current_a"], span)) {
        let pos: Vec<f64> = c.iter().map(|[a]| *a).filter(|a| *a > 0.0).collect();
        out.mean_current = (!pos.is_empty()).then(|| pos.iter().sum::<f64>() / pos.len() as f64);
    }
    if out.max_altitude.is_none()
        && let Some(alt) =
            topic(ulog, "vehicle_global_position").and_then(|g| values(g, "alt", span))
    {
        let alt: Vec<f64> = alt
            .into_iter()
            .map(|p| p.1)
            .filter(|v| v.is_finite())
            .collect();
        if let Some(&a0) = alt.first() {
            out.max_altitude = fold_max(alt.iter().map(|a| a - a0));
        }
    }
    if let Some(arming) =
        topic(ulog, "vehicle_status").and_then(|s| values(s, "arming_state", span))
    {
        let mut armed = 0i64;
        for (i, &(t, v)) in arming.iter().enumerate() {
            let next = arming.get(i + 1).map_or(span.1, |n| n.0);
            if v == 2.0 {
                armed += next.saturating_sub(t).max(0);
            }
        }
        out.armed = (!arming.is_empty()).then_some(armed);
    }
    if let Some(band) = modes {
        for (a, b, name) in &band.spans {
            let d = b.saturating_sub(*a).max(0);
            match out.modes.iter_mut().find(|m| m.0 == *name) {
                Some(m) => m.1 += d,
                None => out.modes.push((name.clone(), d)),
            }
        }
    }
    out
}

/// Seconds as the summary shows them (`1 h 2 min 3.4 s`).
fn duration_text(ns: i64) -> String {
    let s = ns as f64 / 1e9;
    if s < 60.0 {
        return format!("{s:.1} s");
    }
    let whole = s.floor() as i64;
    let (h, m) = (whole / 3600, (whole / 60) % 60);
    let rest = s - (whole - whole % 60) as f64;
    if h > 0 {
        format!("{h} h {m} min {rest:.0} s")
    } else {
        format!("{m} min {rest:.0} s")
    }
}

impl FlightSummary {
    /// The rows the page shows: a label and its text, for what the log
    /// has.
    pub fn rows(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut push = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                out.push((k.to_string(), v));
            }
        };
        push("vehicle type", self.vehicle.clone());
        push("airframe (SYS_AUTOSTART)", self.airframe.clone());
        push("software", self.software.clone());
        push("git hash", self.git.clone());
        push("hardware", self.hardware.clone());
        push("system", self.system.clone());
        push("operating system", self.os.clone());
        push("duration", Some(duration_text(self.duration)));
        push("time armed", self.armed.map(duration_text));
        push(
            "maximum altitude above the start",
            self.max_altitude.map(|v| format!("{v:.1} m")),
        );
        push(
            "maximum horizontal speed",
            self.max_speed
                .map(|v| format!("{v:.1} m/s ({:.1} km/h)", v * 3.6)),
        );
        push("distance flown", self.distance.map(|v| format!("{v:.1} m")));
        push(
            "maximum climb and descent rates",
            self.max_vertical
                .map(|(u, d)| format!("{u:.1} m/s up, {d:.1} m/s down")),
        );
        push(
            "maximum tilt",
            self.max_tilt.map(|v| format!("{v:.1}\u{b0}")),
        );
        push(
            "maximum rotation rate",
            self.max_rotation.map(|v| format!("{v:.1}\u{b0}/s")),
        );
        push(
            "mean battery current",
            self.mean_current.map(|v| format!("{v:.1} A")),
        );
        let total: i64 = self.modes.iter().map(|m| m.1).sum();
        push(
            "flight modes",
            (!self.modes.is_empty()).then(|| {
                self.modes
                    .iter()
                    .map(|(n, d)| {
                        let pct = if total > 0 {
                            100.0 * *d as f64 / total as f64
                        } else {
                            0.0
                        };
                        format!("{n} {} ({pct:.0}%)", duration_text(*d))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            }),
        );
        out
    }

    pub(crate) fn json(&self) -> SummaryJson {
        SummaryJson { rows: self.rows() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_as_px4_encodes_them() {
        assert_eq!(version_text(0x010e_00ff), "1.14.0 release");
        assert_eq!(version_text(0x010b_0200), "1.11.2 dev");
        assert_eq!(version_text(0x010f_00c1), "1.15.0 rc");
        assert_eq!(mav_type_name(2), Some("Quadrotor"));
        assert_eq!(airframe_group(4010), Some("quadrotor x"));
        assert_eq!(duration_text(65_500_000_000), "1 min 6 s");
        assert_eq!(duration_text(3_723_000_000_000), "1 h 2 min 3 s");
    }
}
