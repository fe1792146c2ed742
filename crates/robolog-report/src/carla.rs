//! What a CARLA recording is looked at for: the ego vehicle (the actor
//! whose `role_name` attribute is `hero` or `ego_vehicle`) with its speed
//! and path, collisions on the timeline, and the traffic lights whose state
//! changes as coloured bands.

use std::collections::BTreeMap;

use logcore::{LogReader, MessageFilter, ReadMode, Value};
use robolog::Log;

use crate::collect::number;
use crate::model::{Band, Event, LogReport, Panel, Path as XyPath, Series};

/// Traffic lights shown as bands at most (those that change most).
const MAX_LIGHTS: usize = 6;

/// The name of a CARLA `TrafficLightState`.
fn light_state(v: i64) -> String {
    match v {
        0 => "Red".into(),
        1 => "Yellow".into(),
        2 => "Green".into(),
        3 => "Off".into(),
        n => format!("state {n}"),
    }
}

fn records(v: &Value) -> &[Value] {
    match v.get("records") {
        Some(Value::Array(r)) => r,
        _ => &[],
    }
}

fn id(v: &Value) -> Option<i64> {
    number(v.get("id")?).map(|n| n as i64)
}

/// The role name of an `EventAdd` record, if it has one.
fn role(v: &Value) -> Option<&str> {
    let Some(Value::Array(attrs)) = v.get("attributes") else {
        return None;
    };
    attrs
        .iter()
        .find_map(|a| match (a.get("id"), a.get("value")) {
            (Some(Value::String(k)), Some(Value::String(val))) if k == "role_name" => {
                Some(val.as_str())
            }
            _ => None,
        })
}

/// Adds the ego's speed panel and path, the collisions and the traffic
/// lights to `report` of the recording `log`: those in `range` (at or
/// after its start, before its end), the lights' states cut to it. The
/// actors are named from the whole recording.
pub(crate) fn extras(
    log: &Log<'_>,
    report: &mut LogReport,
    range: (Option<i64>, Option<i64>),
    opts: &crate::ReportOptions,
) -> Result<(), logcore::Error> {
    let within = |t: i64| range.0.is_none_or(|f| t >= f) && range.1.is_none_or(|u| t < u);
    let channels = log.channels()?;
    let wanted = ["EventAdd", "Kinematics", "Position", "Collision", "State"];
    let ids: BTreeMap<_, _> = channels
        .iter()
        .filter(|c| wanted.contains(&c.topic.as_str()))
        .map(|c| (c.id, c.topic.clone()))
        .collect();
    let filter = MessageFilter::all()
        .mode(ReadMode::Lenient)
        .channels(ids.keys().copied());
    let mut ego: Option<(i64, String)> = None;
    let mut names: BTreeMap<i64, String> = BTreeMap::new();
    let mut speed: Vec<(i64, f64)> = Vec::new();
    let mut path: Vec<(i64, f64, f64)> = Vec::new();
    let mut lights: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
    let mut events = Vec::new();
    for item in log.messages(&filter)? {
        let Ok(msg) = item else { continue };
        let Ok(v) = log.decode(&msg) else { continue };
        let t = msg.log_time.as_nanos();
        match ids.get(&msg.channel).map(String::as_str) {
            Some("EventAdd") => {
                for r in records(&v) {
                    let (Some(i), Some(Value::String(d))) = (id(r), r.get("description")) else {
                        continue;
                    };
                    names.insert(i, d.clone());
                    if ego.is_none() && matches!(role(r), Some("hero" | "ego_vehicle")) {
                        ego = Some((i, d.clone()));
                    }
                }
            }
            Some("Kinematics") => {
                let Some((e, _)) = &ego else { continue };
                if !within(t) {
                    continue;
                }
                for r in records(&v).iter().filter(|r| id(r) == Some(*e)) {
                    let Some(lv) = r.get("linear_velocity") else {
                        continue;
                    };
                    let c = |n| lv.get(n).and_then(number).unwrap_or(0.0);
                    speed.push((t, (c("x").powi(2) + c("y").powi(2) + c("z").powi(2)).sqrt()));
                }
            }
            Some("Position") => {
                let Some((e, _)) = &ego else { continue };
                if !within(t) {
                    continue;
                }
                for r in records(&v).iter().filter(|r| id(r) == Some(*e)) {
                    let Some(l) = r.get("location") else { continue };
                    if let (Some(x), Some(y)) =
                        (l.get("x").and_then(number), l.get("y").and_then(number))
                    {
                        path.push((t, x, y));
                    }
                }
            }
            Some("Collision") if within(t) => {
                for r in records(&v) {
                    let a = r.get("actor1").and_then(number).map(|n| n as i64);
                    let b = r.get("actor2").and_then(number).map(|n| n as i64);
                    let name = |i: Option<i64>| {
                        i.map_or("?".to_string(), |i| {
                            format!("{i} ({})", names.get(&i).map_or("?", String::as_str))
                        })
                    };
                    events.push(Event {
                        t,
                        level: "COLLISION".into(),
                        text: format!("actor {} hit actor {}", name(a), name(b)),
                    });
                }
            }
            Some("State") => {
                for r in records(&v) {
                    let (Some(i), Some(s)) = (id(r), r.get("state").and_then(number)) else {
                        continue;
                    };
                    let list = lights.entry(i).or_default();
                    if list.last().is_none_or(|l| l.1 != s as i64) {
                        list.push((t, s as i64));
                    }
                }
            }
            _ => {}
        }
    }
    let (start, end) = (report.start, report.end);
    // Changes before the range still say the state at its start.
    let mut changing: Vec<(i64, Vec<(i64, i64)>)> =
        lights.into_iter().filter(|(_, l)| l.len() > 1).collect();
    changing.sort_by_key(|(i, l)| (std::cmp::Reverse(l.len()), *i));
    for (i, list) in changing.into_iter().take(MAX_LIGHTS) {
        let spans = list
            .iter()
            .enumerate()
            .map(|(k, &(t, s))| {
                let until = list.get(k + 1).map_or(end, |n| n.0);
                (t.max(start), until.min(end), light_state(s))
            })
            .filter(|(a, b, _)| a <= b)
            .collect();
        report.bands.push(Band {
            name: format!("traffic light {i}"),
            spans,
        });
    }
    report.events.extend(events);
    report.events.sort_by_key(|e| e.t);
    if let Some((e, desc)) = ego {
        if path.len() > 1 {
            report.paths.push(XyPath {
                channel: report
                    .channels
                    .iter()
                    .position(|c| c.topic == "Position")
                    .unwrap_or(0),
                points: path,
                title: Some(format!("ego actor {e} ({desc})")),
            });
        }
        if !speed.is_empty() {
            let mut reducer =
                crate::reduce::Reducer::new(report.start, report.end, opts.max_points);
            for &(t, v) in &speed {
                reducer.push(t, v);
            }
            report.panels.push(Panel {
                title: format!("Ego speed: actor {e} ({desc}), |linear_velocity|"),
                series: Vec::new(),
                own: vec![Series {
                    name: "speed".into(),
                    kind: crate::collect::Kind::F64,
                    count: reducer.count(),
                    nan: reducer.nan(),
                    reduced: reducer.reduced(),
                    points: reducer.points(),
                }],
            });
        }
    }
    Ok(())
}
