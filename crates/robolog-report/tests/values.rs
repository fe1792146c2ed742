//! A report's plotted values are the log's: every series of a ULog's
//! subscriptions, checked against the samples `ulogfile` reads for the
//! same field name (pyulog's flattened names, which the report uses too):
//! all of them, at their times, where the series is within its budget; the
//! exact extremes, at their times, and only real samples where it is
//! reduced. Run on the testdata flights and, when the corpus is there
//! (`../shared/corpus` or `$ROBOLOG_CORPUS`), on pyulog's small sample log.

use std::collections::HashMap;
use std::path::PathBuf;

use robolog_report::{ReportOptions, report_log};
use ulogfile::ULog;

fn logs() -> Vec<PathBuf> {
    let root = robolog_testkit::workspace_root();
    let mut out = vec![root.join("testdata/ulog/features.ulg")];
    out.extend(robolog_testkit::corpus("ulog/pyulog/sample_log_small.ulg"));
    out
}

#[test]
fn ulog_series_equal_the_samples() {
    let opts = ReportOptions {
        check: false,
        max_points: 400,
        ..ReportOptions::default()
    };
    let mut compared = 0;
    let mut reduced = 0;
    for path in logs() {
        let bytes = std::fs::read(&path).unwrap();
        let ulog = ULog::parse(&bytes).unwrap();
        let log = robolog::open(&path).unwrap();
        let report = report_log(&log, &path, &opts).unwrap();
        let mut names: HashMap<&str, usize> = HashMap::new();
        for s in &ulog.subscriptions {
            *names.entry(s.name.as_str()).or_default() += 1;
        }
        for sub in &ulog.subscriptions {
            // Topics logged by several instances are numbered in the report.
            if names[sub.name.as_str()] > 1 {
                continue;
            }
            let Some(ch) = report
                .channels
                .iter()
                .find(|c| c.topic == sub.name.as_str())
            else {
                panic!("{}: no channel {}", path.display(), sub.name.as_str());
            };
            for series in &ch.series {
                let Some(field) = sub.field(&series.name) else {
                    // Derived angles.
                    assert!(series.name.contains(':'), "{}: {}", ch.label, series.name);
                    continue;
                };
                let want: Vec<(i64, f64)> = sub
                    .samples
                    .iter()
                    .filter_map(|s| {
                        // A char plots as its byte value, as it decodes.
                        let v = field.get(&s)?.as_f64();
                        (!v.is_nan()).then_some((s.timestamp as i64 * 1000, v))
                    })
                    .collect();
                let where_ = format!("{}: {}.{}", path.display(), ch.label, series.name);
                if !series.reduced {
                    assert_eq!(series.points, want, "{where_}");
                } else {
                    reduced += 1;
                    assert!(series.points.len() <= 400, "{where_}");
                    let min = want
                        .iter()
                        .cloned()
                        .fold((0, f64::MAX), |a, b| if b.1 < a.1 { b } else { a });
                    let max = want
                        .iter()
                        .cloned()
                        .fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a });
                    let lo = series.points.iter().map(|p| p.1).fold(f64::MAX, f64::min);
                    let hi = series.points.iter().map(|p| p.1).fold(f64::MIN, f64::max);
                    assert_eq!((lo, hi), (min.1, max.1), "{where_}");
                    let all: std::collections::HashSet<(i64, u64)> =
                        want.iter().map(|p| (p.0, p.1.to_bits())).collect();
                    assert!(
                        series
                            .points
                            .iter()
                            .all(|p| all.contains(&(p.0, p.1.to_bits()))),
                        "{where_}: a reduced point that is no sample"
                    );
                }
                compared += 1;
            }
        }
    }
    assert!(compared > 20, "{compared} series compared");
    eprintln!("{compared} series compared, {reduced} of them reduced");
}

#[test]
fn gps_track_of_a_bag_is_its_fixes() {
    // The corpus's GPS bag: its track holds the first fix's coordinates.
    let Some(path) = robolog_testkit::corpus("rosbag/ccny-gpsd_viewer-demo.bag") else {
        return;
    };
    let log = robolog::open(&path).unwrap();
    let report = report_log(&log, &path, &ReportOptions::default()).unwrap();
    assert_eq!(report.tracks.len(), 1);
    let track = &report.tracks[0];
    assert_eq!(report.channels[track.channel].topic, "/fix");
    // The first message on /fix, decoded.
    let fix = report.channels[track.channel]
        .series
        .iter()
        .find(|s| s.name == "latitude")
        .unwrap();
    assert_eq!(track.points[0].0, fix.points[0].0);
    assert_eq!(track.points[0].1, fix.points[0].1);
    assert!(
        track.points.iter().all(|p| (40.0..41.0).contains(&p.1)),
        "New York latitudes"
    );
}

#[test]
fn ros_byte_arrays_and_messages_without_fields_are_not_series() {
    // rosbag2's test message of every array type, as its own CDR bag
    // writes it: `byte[3]`, `char[3]` and `uint8[3]` are bytes in ROS
    // (mcap-ros2-support decodes them as `bytes`), `Constants[3]` messages
    // without fields; the other arrays are numbers, one series per
    // element, with the values of each of the 4 messages (mcap-ros2-support
    // reads `int8_values` as `[0, 0, 0]` in each).
    let Some(path) = robolog_testkit::corpus("ros2-mcap/cdr_test_0.mcap") else {
        return;
    };
    let log = robolog::open(&path).unwrap();
    let opts = ReportOptions {
        check: false,
        max_fields: 1000,
        ..ReportOptions::default()
    };
    let report = report_log(&log, &path, &opts).unwrap();
    let arrays = report
        .channels
        .iter()
        .find(|c| c.topic == "/array_topic")
        .unwrap();
    let names: Vec<&str> = arrays.series.iter().map(|s| s.name.as_str()).collect();
    for gone in [
        "byte_values",
        "char_values",
        "uint8_values",
        "constants_values",
    ] {
        assert!(
            !names.iter().any(|n| n.starts_with(gone)),
            "{gone}: {names:?}"
        );
    }
    let int8: Vec<f64> = (0..3)
        .map(|i| {
            let name = format!("int8_values[{i}]");
            let s = arrays.series.iter().find(|s| s.name == name).unwrap();
            assert_eq!(s.count, 4, "{name}");
            s.points[0].1
        })
        .collect();
    assert_eq!(int8, [0.0, 0.0, 0.0]);
    // Fixed arrays of messages are spread: `basic_types_values[2].int8_value`.
    assert!(
        names.contains(&"basic_types_values[2].int8_value"),
        "{names:?}"
    );
    assert_eq!(arrays.fields_skipped, 0);
}

/// A topic recorded through several connections (rosbag.js's example bag:
/// `/rosout` three times, `/tf` twice) is one channel of the report: its
/// total count, every message in its timeline, each topic once.
#[test]
fn a_topic_of_several_connections_is_listed_once() {
    use logcore::LogReader;
    let Some(path) = robolog_testkit::corpus("rosbag/rosbagjs-example.bag") else {
        return;
    };
    let log = robolog::open(&path).unwrap();
    let summary = log.summary().unwrap();
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let report = report_log(&log, &path, &opts).unwrap();
    let mut connections: HashMap<&str, (usize, u64)> = HashMap::new();
    for c in &summary.channels {
        let e = connections.entry(c.info.topic.as_str()).or_default();
        e.0 += 1;
        e.1 += c.message_count;
    }
    assert_eq!(connections["/rosout"].0, 3);
    assert_eq!(connections["/tf"].0, 2);
    assert_eq!(report.channels.len(), connections.len());
    for (topic, (_, count)) in &connections {
        let listed: Vec<_> = report
            .channels
            .iter()
            .filter(|c| c.topic == *topic)
            .collect();
        assert_eq!(listed.len(), 1, "{topic}");
        assert_eq!(listed[0].label, *topic);
        assert_eq!(listed[0].message_count, *count, "{topic}");
        assert_eq!(listed[0].density.iter().sum::<u64>(), *count, "{topic}");
    }
}
