//! What a PX4 flight log is looked at for, as PX4 Flight Review shows it:
//! the flight modes as coloured bands, the logged messages by level, the
//! non-default parameters, and panels of altitude, attitude against its
//! setpoint, velocities, battery and vibration.

use std::collections::BTreeMap;

use ulogfile::{InfoValue, ULog};

use crate::model::{Band, Channel, Event, Panel, Parameter};

/// Logged messages listed per log.
const MAX_EVENTS: usize = 2000;

/// The name of a PX4 `vehicle_status.nav_state` value.
pub(crate) fn nav_state_name(v: f64) -> String {
    let name = match v as i64 {
        0 => "Manual",
        1 => "Altitude",
        2 => "Position",
        3 => "Mission",
        4 => "Hold",
        5 => "Return",
        6 => "Position slow",
        10 => "Acro",
        12 => "Descend",
        13 => "Termination",
        14 => "Offboard",
        15 => "Stabilized",
        17 => "Takeoff",
        18 => "Land",
        19 => "Follow target",
        20 => "Precision land",
        21 => "Orbit",
        22 => "VTOL takeoff",
        n => return format!("nav_state {n}"),
    };
    name.to_string()
}

/// The flight-mode band from `vehicle_status.nav_state`'s changes, each
/// span lasting until the next change (the last until `end`).
pub(crate) fn flight_modes(changes: &[(i64, f64)], end: i64) -> Option<Band> {
    if changes.is_empty() {
        return None;
    }
    let spans = changes
        .iter()
        .enumerate()
        .map(|(i, &(t, v))| {
            let until = changes.get(i + 1).map_or(end, |n| n.0);
            (t, until, nav_state_name(v))
        })
        .collect();
    Some(Band {
        name: "flight mode".into(),
        spans,
    })
}

/// The log's text messages (`L` and tagged `C`), in time order.
pub(crate) fn events(ulog: &ULog<'_>) -> Vec<Event> {
    let mut out: Vec<Event> = ulog
        .logged_messages
        .iter()
        .chain(&ulog.tagged_messages)
        .take(MAX_EVENTS)
        .map(|m| Event {
            t: (m.timestamp as i64).saturating_mul(1000),
            level: m.level_name().to_string(),
            text: m.text(),
        })
        .collect();
    out.sort_by_key(|e| e.t);
    out
}

fn text(v: &InfoValue<'_>) -> String {
    match v {
        InfoValue::String(s) => s.clone(),
        InfoValue::Int(i) => i.to_string(),
        InfoValue::UInt(u) => u.to_string(),
        InfoValue::Float(f) => format!("{f:?}"),
        InfoValue::Double(d) => format!("{d:?}"),
        InfoValue::Bool(b) => b.to_string(),
        InfoValue::Char(c) => char::from(*c).to_string(),
        InfoValue::Bytes(b) => format!("{} bytes", b.len()),
    }
}

/// The parameters worth a look: those whose value differs from the
/// system default the log records (bit 0 of the default type), or, for a
/// log without defaults, the ones changed during the log; with a note
/// saying which.
pub(crate) fn parameters(ulog: &ULog<'_>) -> (String, Vec<Parameter>) {
    let defaults = ulog
        .default_parameters
        .iter()
        .filter(|(kind, _)| *kind & 1 != 0)
        .map(|(_, m)| m)
        .next();
    if let Some(defaults) = defaults {
        let list = ulog
            .initial_parameters
            .iter()
            .filter_map(|(name, v)| {
                let d = defaults.get(name)?;
                (d.as_f64() != v.as_f64()).then(|| Parameter {
                    name: name.to_string(),
                    value: text(v),
                    default: Some(text(d)),
                    t: None,
                })
            })
            .collect();
        return (
            "parameters that differ from the system defaults".into(),
            list,
        );
    }
    let list = ulog
        .changed_parameters
        .iter()
        .map(|c| Parameter {
            name: c.name.to_string(),
            value: text(&c.value),
            default: ulog.initial_parameters.get(&c.name).map(text),
            t: Some((c.timestamp as i64).saturating_mul(1000)),
        })
        .collect();
    (
        format!(
            "this log records no defaults: the parameters changed during the log (the column 'default' holds the value at start; {} parameters at start)",
            ulog.initial_parameters.len()
        ),
        list,
    )
}

/// A series picked for a panel: topic, field, label.
type Pick = (&'static str, &'static str, &'static str);

/// The panels Flight Review users know, from the series the log has.
pub(crate) fn panels(channels: &[Channel]) -> Vec<Panel> {
    let specs: &[(&str, &[Pick])] = &[
        (
            "Altitude",
            &[
                ("vehicle_global_position", "alt", "fused altitude"),
                ("vehicle_gps_position", "altitude_msl_m", "GPS altitude"),
                ("sensor_gps", "altitude_msl_m", "GPS altitude"),
                ("vehicle_air_data", "baro_alt_meter", "barometer"),
            ],
        ),
        (
            "Roll angle (deg)",
            &[
                ("vehicle_attitude", "q:roll", "roll"),
                ("vehicle_attitude_setpoint", "q_d:roll", "roll setpoint"),
            ],
        ),
        (
            "Pitch angle (deg)",
            &[
                ("vehicle_attitude", "q:pitch", "pitch"),
                ("vehicle_attitude_setpoint", "q_d:pitch", "pitch setpoint"),
            ],
        ),
        (
            "Yaw angle (deg)",
            &[
                ("vehicle_attitude", "q:yaw", "yaw"),
                ("vehicle_attitude_setpoint", "q_d:yaw", "yaw setpoint"),
            ],
        ),
        (
            "Local velocity",
            &[
                ("vehicle_local_position", "vx", "vx"),
                ("vehicle_local_position", "vy", "vy"),
                ("vehicle_local_position", "vz", "vz"),
                ("vehicle_local_position_setpoint", "vx", "vx setpoint"),
                ("vehicle_local_position_setpoint", "vy", "vy setpoint"),
                ("vehicle_local_position_setpoint", "vz", "vz setpoint"),
            ],
        ),
        (
            "Battery",
            &[
                ("battery_status", "voltage_v", "voltage (V)"),
                (
                    "battery_status",
                    "voltage_filtered_v",
                    "voltage filtered (V)",
                ),
                ("battery_status", "current_a", "current (A)"),
                ("battery_status", "remaining", "remaining"),
            ],
        ),
        (
            "Vibration",
            &[
                (
                    "vehicle_imu_status",
                    "accel_vibration_metric",
                    "accel vibration",
                ),
                (
                    "vehicle_imu_status",
                    "gyro_vibration_metric",
                    "gyro vibration",
                ),
                ("estimator_status", "vibe[0]", "vibe[0]"),
                ("estimator_status", "vibe[1]", "vibe[1]"),
                ("estimator_status", "vibe[2]", "vibe[2]"),
            ],
        ),
    ];
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, c) in channels.iter().enumerate() {
        first.entry(c.topic.as_str()).or_insert(i);
    }
    let mut out = Vec::new();
    for (title, wanted) in specs {
        let series: Vec<(usize, usize, String)> = wanted
            .iter()
            .filter_map(|(topic, field, label)| {
                let ci = *first.get(topic)?;
                let si = channels[ci].series.iter().position(|s| s.name == *field)?;
                (!channels[ci].series[si].points.is_empty()).then(|| (ci, si, label.to_string()))
            })
            .collect();
        if !series.is_empty() {
            out.push(Panel {
                title: title.to_string(),
                series,
                own: Vec::new(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_span_until_the_next_change() {
        let b = flight_modes(&[(0, 0.0), (10, 2.0), (20, 5.0)], 30).unwrap();
        assert_eq!(
            b.spans,
            vec![
                (0, 10, "Manual".to_string()),
                (10, 20, "Position".to_string()),
                (20, 30, "Return".to_string())
            ]
        );
        assert_eq!(nav_state_name(99.0), "nav_state 99");
    }
}
