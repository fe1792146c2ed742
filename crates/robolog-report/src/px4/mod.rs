//! What a PX4 flight log is looked at for, as PX4 Flight Review shows it:
//! a summary of the flight, the flight modes as coloured bands, the logged
//! messages by level, every parameter (those that differ from their
//! default or change in flight marked), the panels of Flight Review's
//! list that the log has topics for, and the gyro's and accelerometer's
//! spectra and spectrograms.

mod spectrum;
mod summary;

use std::collections::BTreeMap;

use ulogfile::{InfoValue, ULog};

use crate::model::{Band, Channel, Event, Panel, Parameter, Series};

pub use spectrum::{Spectrogram, Spectrum};
pub use summary::FlightSummary;

/// What a PX4 flight's page shows beyond its channels: its summary and
/// its gyro's and accelerometer's spectra.
#[derive(Debug, Clone, PartialEq)]
pub struct Flight {
    /// The summary table.
    pub summary: FlightSummary,
    /// The spectra and spectrograms of the gyro, then the accelerometer,
    /// where the log has enough samples of each.
    pub spectra: Vec<Spectrum>,
}

/// The flight of a PX4 log over the span `[from, until)` (ns on its
/// clock), with its flight-mode band.
pub(crate) fn flight(ulog: &ULog<'_>, span: (i64, i64), modes: Option<&Band>) -> Flight {
    Flight {
        summary: summary::summary(ulog, span, modes),
        spectra: spectrum::spectra(ulog, span),
    }
}

/// A flight in the page.
#[derive(serde::Serialize)]
pub(crate) struct FlightJson<'a> {
    summary: summary::SummaryJson,
    spectra: Vec<spectrum::SpectrumJson<'a>>,
}

impl Flight {
    /// The flight as the page holds it, times from `start`.
    pub(crate) fn json(&self, start: i64) -> FlightJson<'_> {
        FlightJson {
            summary: self.summary.json(),
            spectra: self.spectra.iter().map(|s| s.json(start)).collect(),
        }
    }
}

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

/// Every parameter at the log's start, with its system default where the
/// log records defaults (`Q` messages with bit 0 of their type set), then
/// every change during the log with its time; with a note saying how
/// many and what is marked. A log without defaults has none (not the value
/// at start in their place).
pub(crate) fn parameters(ulog: &ULog<'_>) -> (String, Vec<Parameter>) {
    // `ULog::default_parameters` by bit index: 0 the system defaults.
    let system = ulog.default_parameters.get(&0);
    let has_defaults = system.is_some();
    let default = |name: &str| system.and_then(|m| m.get(name)).map(text);
    let mut list: Vec<Parameter> = ulog
        .initial_parameters
        .iter()
        .map(|(name, v)| Parameter {
            name: name.to_string(),
            value: text(v),
            default: default(name),
            t: None,
        })
        .collect();
    let differ = if has_defaults {
        ulog.initial_parameters
            .iter()
            .filter(|(name, v)| {
                system
                    .and_then(|m| m.get(name.as_ref()))
                    .is_some_and(|d| d.as_f64() != v.as_f64())
            })
            .count()
    } else {
        0
    };
    let changes = ulog.changed_parameters.len();
    list.extend(ulog.changed_parameters.iter().map(|c| Parameter {
        name: c.name.to_string(),
        value: text(&c.value),
        default: default(&c.name),
        t: Some((c.timestamp as i64).saturating_mul(1000)),
    }));
    let mut note = format!("{} parameters at start", ulog.initial_parameters.len());
    if has_defaults {
        note.push_str(&format!(
            "; the log records {} system defaults, {differ} of them unlike the value (marked; a dash: no default recorded)",
            ulog.default_parameters.get(&0).map_or(0, |m| m.len())
        ));
    } else {
        note.push_str("; the log records no defaults");
    }
    note.push_str(&match changes {
        0 => "; none changed during the log".to_string(),
        1 => "; 1 change during the log, listed with its time".to_string(),
        n => format!("; {n} changes during the log, listed with their times"),
    });
    (note, list)
}

/// A series picked for a panel: topic, field, label.
type Pick = (&'static str, String, String);

fn pick(topic: &'static str, field: &str, label: &str) -> Pick {
    (topic, field.to_string(), label.to_string())
}

/// `field[0]` .. `field[n-1]` of a topic, labelled `label i`.
fn indexed(topic: &'static str, field: &str, label: &str, n: usize) -> Vec<Pick> {
    (0..n)
        .map(|i| pick(topic, &format!("{field}[{i}]"), &format!("{label} {i}")))
        .collect()
}

/// Fields of one topic labelled by their names.
fn named(topic: &'static str, fields: &[&str]) -> Vec<Pick> {
    fields.iter().map(|f| pick(topic, f, f)).collect()
}

/// Flight Review's panels, as (title, the series wanted): each panel is
/// drawn with the series the log has, and left out when it has none.
fn specs() -> Vec<(&'static str, Vec<Pick>)> {
    let axis = ["x", "y", "z"];
    let mut out: Vec<(&'static str, Vec<Pick>)> = vec![(
        "Altitude",
        vec![
            pick("vehicle_global_position", "alt", "fused altitude"),
            pick("vehicle_gps_position", "alt", "GPS altitude (mm)"),
            pick("vehicle_gps_position", "altitude_msl_m", "GPS altitude"),
            pick("sensor_gps", "altitude_msl_m", "GPS altitude"),
            pick("vehicle_air_data", "baro_alt_meter", "barometer"),
        ],
    )];
    for (title, q, rate, sp) in [
        ("Roll angle (deg)", "q:roll", "Roll rate (rad/s)", "roll"),
        (
            "Pitch angle (deg)",
            "q:pitch",
            "Pitch rate (rad/s)",
            "pitch",
        ),
        ("Yaw angle (deg)", "q:yaw", "Yaw rate (rad/s)", "yaw"),
    ] {
        out.push((
            title,
            vec![
                pick("vehicle_attitude", q, sp),
                pick(
                    "vehicle_attitude_setpoint",
                    &q.replace("q:", "q_d:"),
                    &format!("{sp} setpoint"),
                ),
            ],
        ));
        let i = ["roll", "pitch", "yaw"]
            .iter()
            .position(|a| *a == sp)
            .unwrap_or(0);
        out.push((
            rate,
            vec![
                pick(
                    "vehicle_angular_velocity",
                    &format!("xyz[{i}]"),
                    &format!("{sp} rate"),
                ),
                pick("vehicle_rates_setpoint", sp, &format!("{sp} rate setpoint")),
            ],
        ));
    }
    for (title, a) in [
        ("Local position x (m)", 0),
        ("Local position y (m)", 1),
        ("Local position z (m)", 2),
    ] {
        out.push((
            title,
            vec![
                pick("vehicle_local_position", axis[a], axis[a]),
                pick(
                    "vehicle_local_position_setpoint",
                    axis[a],
                    &format!("{} setpoint", axis[a]),
                ),
            ],
        ));
    }
    out.push((
        "Local velocity (m/s)",
        ["vx", "vy", "vz"]
            .iter()
            .flat_map(|v| {
                [
                    pick("vehicle_local_position", v, v),
                    pick(
                        "vehicle_local_position_setpoint",
                        v,
                        &format!("{v} setpoint"),
                    ),
                ]
            })
            .collect(),
    ));
    out.push(("Manual control inputs", {
        let mut v = named(
            "manual_control_setpoint",
            &["roll", "pitch", "yaw", "throttle", "x", "y", "z", "r"],
        );
        v.extend(named("manual_control_setpoint", &["aux1", "aux2"]));
        v
    }));
    out.push(("Actuator controls", {
        let mut v = indexed("actuator_controls_0", "control", "control", 4);
        v.extend(indexed("vehicle_torque_setpoint", "xyz", "torque", 3));
        v.extend(indexed("vehicle_thrust_setpoint", "xyz", "thrust", 3));
        v
    }));
    out.push(("Actuator outputs", {
        let mut v = indexed("actuator_motors", "control", "motor", 8);
        v.extend(indexed("actuator_outputs", "output", "output", 8));
        v
    }));
    out.push((
        "Raw acceleration (m/s\u{b2})",
        indexed("sensor_combined", "accelerometer_m_s2", "accel", 3),
    ));
    out.push((
        "Raw angular speed, gyro (rad/s)",
        indexed("sensor_combined", "gyro_rad", "gyro", 3),
    ));
    out.push(("Raw magnetic field (gauss)", {
        let mut v = indexed("vehicle_magnetometer", "magnetometer_ga", "mag", 3);
        v.extend(
            axis.iter()
                .map(|a| pick("sensor_mag", a, &format!("sensor_mag {a}"))),
        );
        v
    }));
    out.push(("Airspeed (m/s)", {
        let mut v = named(
            "airspeed_validated",
            &[
                "indicated_airspeed_m_s",
                "calibrated_airspeed_m_s",
                "true_airspeed_m_s",
            ],
        );
        v.extend([
            pick("airspeed", "indicated_airspeed_m_s", "sensor indicated"),
            pick("airspeed", "true_airspeed_m_s", "sensor true"),
        ]);
        v
    }));
    out.push((
        "TECS (total energy control)",
        named(
            "tecs_status",
            &[
                "altitude_sp",
                "altitude_filtered",
                "airspeed_sp",
                "airspeed_filtered",
                "true_airspeed_sp",
                "true_airspeed_filtered",
            ],
        ),
    ));
    out.push(("Distance to the ground (m)", {
        let mut v = named("distance_sensor", &["current_distance"]);
        v.push(pick(
            "vehicle_local_position",
            "dist_bottom",
            "estimated distance to the bottom",
        ));
        v
    }));
    out.push(("Optical flow", {
        let mut v = named(
            "vehicle_optical_flow",
            &[
                "pixel_flow[0]",
                "pixel_flow[1]",
                "delta_angle[0]",
                "delta_angle[1]",
                "quality",
            ],
        );
        v.extend(named(
            "optical_flow",
            &[
                "pixel_flow_x_integral",
                "pixel_flow_y_integral",
                "gyro_x_rate_integral",
                "gyro_y_rate_integral",
                "quality",
            ],
        ));
        v
    }));
    out.push((
        "Hover thrust estimate",
        named("hover_thrust_estimate", &["hover_thrust", "accel_innov"]),
    ));
    out.push((
        "Vibration",
        vec![
            pick(
                "vehicle_imu_status",
                "accel_vibration_metric",
                "accel vibration",
            ),
            pick(
                "vehicle_imu_status",
                "gyro_vibration_metric",
                "gyro vibration",
            ),
            pick("estimator_status", "vibe[0]", "vibe[0]"),
            pick("estimator_status", "vibe[1]", "vibe[1]"),
            pick("estimator_status", "vibe[2]", "vibe[2]"),
        ],
    ));
    for gps in ["vehicle_gps_position", "sensor_gps"] {
        out.push((
            "GPS uncertainty",
            named(
                gps,
                &["satellites_used", "eph", "epv", "hdop", "vdop", "fix_type"],
            ),
        ));
        out.push((
            "GPS noise and jamming",
            named(gps, &["noise_per_ms", "jamming_indicator"]),
        ));
    }
    out.push((
        "Battery",
        vec![
            pick("battery_status", "voltage_v", "voltage (V)"),
            pick(
                "battery_status",
                "voltage_filtered_v",
                "voltage filtered (V)",
            ),
            pick("battery_status", "current_a", "current (A)"),
            pick("battery_status", "remaining", "remaining"),
        ],
    ));
    out.push(("Temperature (\u{b0}C)", {
        let mut v = vec![
            pick("sensor_baro", "temperature", "barometer"),
            pick("sensor_accel", "temperature", "accelerometer"),
            pick("sensor_gyro", "temperature", "gyro"),
            pick("sensor_mag", "temperature", "magnetometer"),
            pick("battery_status", "temperature", "battery"),
        ];
        v.extend(named("vehicle_air_data", &["baro_temp_celcius"]));
        v
    }));
    out.push((
        "Power",
        named(
            "system_power",
            &[
                "voltage5v_v",
                "voltage5V_v",
                "sensors3v3[0]",
                "voltage3v3_v",
            ],
        ),
    ));
    out.push(("CPU and RAM", named("cpuload", &["load", "ram_usage"])));
    out.push(("Failsafe flags", {
        let mut v = named("vehicle_status", &["failsafe"]);
        v.extend(named(
            "failsafe_flags",
            &[
                "manual_control_signal_lost",
                "gcs_connection_lost",
                "battery_warning",
                "battery_unhealthy",
                "geofence_breached",
                "mission_failure",
                "vtol_fixed_wing_system_failure",
                "wind_limit_exceeded",
                "flight_time_limit_exceeded",
                "local_position_invalid",
                "global_position_invalid",
                "fd_critical_failure",
                "fd_esc_arming_failure",
                "fd_imbalanced_prop",
                "fd_motor_failure",
            ],
        ));
        v
    }));
    out.push((
        "Estimator test ratios",
        named(
            "estimator_status",
            &[
                "mag_test_ratio",
                "vel_test_ratio",
                "pos_test_ratio",
                "hgt_test_ratio",
                "tas_test_ratio",
                "hagl_test_ratio",
                "beta_test_ratio",
            ],
        ),
    ));
    out.push(("Estimator innovations", {
        let mut v = named(
            "estimator_innovations",
            &[
                "gps_hvel[0]",
                "gps_hvel[1]",
                "gps_vvel",
                "gps_hpos[0]",
                "gps_hpos[1]",
                "gps_vpos",
                "baro_vpos",
                "heading",
                "mag_field[0]",
                "mag_field[1]",
                "mag_field[2]",
            ],
        );
        v.extend(named(
            "ekf2_innovations",
            &[
                "vel_pos_innov[0]",
                "vel_pos_innov[1]",
                "vel_pos_innov[2]",
                "vel_pos_innov[3]",
                "vel_pos_innov[4]",
                "vel_pos_innov[5]",
                "heading_innov",
                "mag_innov[0]",
                "mag_innov[1]",
                "mag_innov[2]",
            ],
        ));
        v
    }));
    out.push((
        "Estimator flags",
        named(
            "estimator_status",
            &[
                "filter_fault_flags",
                "innovation_check_flags",
                "solution_status_flags",
                "gps_check_fail_flags",
            ],
        ),
    ));
    out
}

/// The panels Flight Review users know, from the series the log has.
pub(crate) fn panels(channels: &[Channel]) -> Vec<Panel> {
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, c) in channels.iter().enumerate() {
        first.entry(c.topic.as_str()).or_insert(i);
    }
    let mut out: Vec<Panel> = Vec::new();
    for (title, wanted) in specs() {
        let series: Vec<(usize, usize, String)> = wanted
            .iter()
            .filter_map(|(topic, field, label)| {
                let ci = *first.get(topic)?;
                let si = channels[ci].series.iter().position(|s| s.name == *field)?;
                (!channels[ci].series[si].points.is_empty()).then(|| (ci, si, label.clone()))
            })
            .collect();
        // A title met twice (the GPS topic of either name) is drawn once.
        if !series.is_empty() && !out.iter().any(|p| p.title == title) {
            out.push(Panel {
                title: title.to_string(),
                series,
                own: Vec::new(),
            });
        }
    }
    out
}

/// A value computed from several fields of a topic's `multi_id` 0
/// instance (`f` of their values) over `[from, until)`, reduced to
/// `max_points`.
fn derived(
    ulog: &ULog<'_>,
    topic: &str,
    fields: &[&str],
    f: impl Fn(&[f64]) -> f64,
    (span, max_points): ((i64, i64), usize),
    name: &str,
) -> Option<Series> {
    let sub = ulog.subscription(topic, 0)?;
    let refs: Vec<_> = fields.iter().map(|f| sub.field(f)).collect::<Option<_>>()?;
    let mut reducer = crate::reduce::Reducer::new(span.0, span.1, max_points);
    let mut v = vec![0.0; refs.len()];
    for s in sub.samples.iter() {
        let t = (s.timestamp as i64).saturating_mul(1000);
        if t < span.0 || t >= span.1 {
            continue;
        }
        for (x, r) in v.iter_mut().zip(&refs) {
            *x = r.get(&s).map_or(f64::NAN, |v| v.as_f64());
        }
        reducer.push(t, f(&v));
    }
    (reducer.count() > 0).then(|| Series {
        name: name.to_string(),
        kind: crate::collect::Kind::F64,
        count: reducer.count(),
        nan: reducer.nan(),
        reduced: reducer.reduced(),
        points: reducer.points(),
    })
}

/// The norm of several fields.
fn norm(
    ulog: &ULog<'_>,
    topic: &str,
    fields: &[&str],
    span: (i64, i64),
    max_points: usize,
    name: &str,
) -> Option<Series> {
    let f = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    derived(ulog, topic, fields, f, (span, max_points), name)
}

/// The panels of series computed here rather than picked from the
/// channels: RC inputs, sampling regularity, thrust and magnetic field.
pub(crate) fn own_panels(ulog: &ULog<'_>, span: (i64, i64), max_points: usize) -> Vec<Panel> {
    [
        rc_inputs(ulog, span, max_points),
        sampling(ulog, span, max_points),
        thrust_and_mag(ulog, span, max_points),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// RC inputs: `input_rc.values[0..8]` (an array longer than the channels'
/// plotted arrays), each as its own series.
fn rc_inputs(ulog: &ULog<'_>, span: (i64, i64), max_points: usize) -> Option<Panel> {
    let own: Vec<Series> = (0..8)
        .filter_map(|i| {
            let field = format!("values[{i}]");
            derived(
                ulog,
                "input_rc",
                &[&field],
                |v| v[0],
                (span, max_points),
                &format!("channel {}", i + 1),
            )
        })
        .collect();
    (!own.is_empty()).then(|| Panel {
        title: "RC inputs".into(),
        series: Vec::new(),
        own,
    })
}

/// Flight Review's sampling regularity: the interval between consecutive
/// `sensor_combined` samples (ms), which shows the logger or the sensors
/// falling behind.
fn sampling(ulog: &ULog<'_>, span: (i64, i64), max_points: usize) -> Option<Panel> {
    let sub = ulog.subscription("sensor_combined", 0)?;
    let mut reducer = crate::reduce::Reducer::new(span.0, span.1, max_points);
    let mut last: Option<i64> = None;
    for s in sub.samples.iter() {
        let t = (s.timestamp as i64).saturating_mul(1000);
        if t < span.0 || t >= span.1 {
            continue;
        }
        if let Some(l) = last {
            reducer.push(t, (t - l) as f64 / 1e6);
        }
        last = Some(t);
    }
    (reducer.count() > 0).then(|| Panel {
        title: "Sampling regularity of sensor data".into(),
        series: Vec::new(),
        own: vec![Series {
            name: "sensor_combined interval (ms)".into(),
            kind: crate::collect::Kind::F64,
            count: reducer.count(),
            nan: reducer.nan(),
            reduced: reducer.reduced(),
            points: reducer.points(),
        }],
    })
}

/// Flight Review's thrust and magnetic field panel: the norm of the thrust
/// setpoint (`vehicle_thrust_setpoint`, else `actuator_controls_0`'s
/// thrust) and of the magnetic field (`vehicle_magnetometer`, else
/// `sensor_mag`), which rise together when the motors' currents disturb
/// the magnetometer.
fn thrust_and_mag(ulog: &ULog<'_>, span: (i64, i64), max_points: usize) -> Option<Panel> {
    let thrust = norm(
        ulog,
        "vehicle_thrust_setpoint",
        &["xyz[0]", "xyz[1]", "xyz[2]"],
        span,
        max_points,
        "thrust |vehicle_thrust_setpoint|",
    )
    .or_else(|| {
        norm(
            ulog,
            "actuator_controls_0",
            &["control[3]"],
            span,
            max_points,
            "thrust (actuator_controls_0 control[3])",
        )
    });
    let mag = norm(
        ulog,
        "vehicle_magnetometer",
        &[
            "magnetometer_ga[0]",
            "magnetometer_ga[1]",
            "magnetometer_ga[2]",
        ],
        span,
        max_points,
        "|magnetic field| (gauss)",
    )
    .or_else(|| {
        norm(
            ulog,
            "sensor_mag",
            &["x", "y", "z"],
            span,
            max_points,
            "|magnetic field| (gauss)",
        )
    });
    let own: Vec<Series> = thrust.into_iter().chain(mag).collect();
    (!own.is_empty()).then(|| Panel {
        title: "Thrust and magnetic field".into(),
        series: Vec::new(),
        own,
    })
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
