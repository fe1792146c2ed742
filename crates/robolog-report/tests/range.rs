//! A report of part of a log (`ReportOptions::start` / `end`): only the
//! messages in the range are read and plotted, the span shown is the
//! range's, the page says which range was asked for; a UTC instant on a
//! log anchored to UTC is the same range as the seconds after its first
//! message, and is refused for a log without an anchor.

use std::path::{Path, PathBuf};

use logcore::{LogReader as _, MessageFilter, Timestamp, Value};
use robolog_report::{
    LogReport, PAGE_BUDGET, ReportError, ReportOptions, TimeArg, data_json, report_log,
    write_report,
};

fn testdata(rel: &str) -> PathBuf {
    robolog_testkit::workspace_root().join("testdata").join(rel)
}

fn arg(s: &str) -> Option<TimeArg> {
    Some(s.parse().unwrap())
}

fn report(path: &Path, start: &str, end: &str) -> Result<LogReport, logcore::Error> {
    let opts = ReportOptions {
        check: false,
        start: arg(start),
        end: arg(end),
        ..ReportOptions::default()
    };
    let log = robolog::open(path).unwrap();
    report_log(&log, path, &opts)
}

/// The page's data of `report`, parsed.
fn page_data(report: &LogReport) -> serde_json::Value {
    let data = data_json(std::slice::from_ref(report), "t", PAGE_BUDGET);
    let mut v: serde_json::Value = serde_json::from_str(&data).unwrap();
    v["logs"][0].take()
}

/// The messages of `topic` at or after `start` and before `end` as the
/// log's reader gives them (what `robolog cat` prints): (time, `data`).
fn read_counts(path: &Path, topic: &str, start: i64, end: i64) -> Vec<(i64, f64)> {
    let log = robolog::open(path).unwrap();
    let ids: Vec<_> = (log.channels().unwrap().iter())
        .filter(|c| c.topic == topic)
        .map(|c| c.id)
        .collect();
    let filter = MessageFilter::all()
        .channels(ids)
        .start(Timestamp(start))
        .end(Timestamp(end));
    log.messages(&filter)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let v = log.decode(&m).unwrap();
            let Some(Value::I64(n)) = v.get("data") else {
                panic!("{v:?}")
            };
            (m.log_time.as_nanos(), *n as f64)
        })
        .collect()
}

#[test]
fn a_bags_range_holds_exactly_its_messages() {
    let path = testdata("rosbag/sample.bag");
    let r = report(&path, "1", "2s").unwrap();
    let first = 1_600_000_000_000_000_000i64;
    assert_eq!((r.log_start, r.log_end), (first, first + 2_900_000_000));
    assert_eq!(
        (r.start, r.end),
        (first + 1_000_000_000, first + 2_000_000_000)
    );
    let range = r.range.as_ref().unwrap();
    assert_eq!(
        (range.start, range.end),
        (Some(first + 1_000_000_000), Some(first + 2_000_000_000))
    );
    assert_eq!(
        range.asked,
        "from 1 s after the first message, until 2 s after the first message"
    );
    // 10 messages each of /count and /point, 5 of /chatter.
    assert_eq!(range.messages, 25);
    assert_eq!(r.message_count, 75);

    let want = read_counts(
        &path,
        "/count",
        first + 1_000_000_000,
        first + 2_000_000_000,
    );
    assert_eq!(
        want,
        (0..10)
            .map(|i| (
                first + 1_000_000_000 + i * 100_000_000,
                f64::from(5 + i as i32)
            ))
            .collect::<Vec<_>>()
    );
    let count = r.channels.iter().find(|c| c.topic == "/count").unwrap();
    assert_eq!(count.message_count, 10);
    assert_eq!(count.start, Some(first + 1_000_000_000));
    assert_eq!(count.end, Some(first + 1_900_000_000));
    assert_eq!(count.series[0].points, want);
    assert_eq!(count.density.iter().sum::<u64>(), 10);

    // The page: times from the range's start, which it says.
    let page = page_data(&r);
    assert_eq!(page["start"], first + 1_000_000_000);
    assert_eq!(page["duration"], 1_000_000_000);
    assert_eq!(page["offset"], 1_000_000_000);
    assert_eq!(page["log_duration"], 2_900_000_000i64);
    assert_eq!(page["start_utc"], "2020-09-13T12:26:41.000000000Z");
    assert_eq!(page["range"]["start"], 1_000_000_000);
    assert_eq!(page["range"]["end"], 2_000_000_000);
    assert_eq!(page["range"]["messages"], 25);
    let ch = (page["channels"].as_array().unwrap().iter())
        .find(|c| c["topic"] == "/count")
        .unwrap();
    assert_eq!(ch["count"], 10);
    let series = &ch["series"][0];
    let t: Vec<i64> = (series["t"].as_array().unwrap().iter())
        .map(|v| v.as_i64().unwrap())
        .collect();
    let v: Vec<f64> = (series["v"].as_array().unwrap().iter())
        .map(|v| v.as_f64().unwrap())
        .collect();
    let shifted: Vec<(i64, f64)> = t
        .into_iter()
        .zip(v)
        .map(|(t, v)| (t + r.start, v))
        .collect();
    assert_eq!(shifted, want);
}

#[test]
fn without_a_range_the_page_has_none() {
    let path = testdata("rosbag/sample.bag");
    let log = robolog::open(&path).unwrap();
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let r = report_log(&log, &path, &opts).unwrap();
    assert!(r.range.is_none());
    assert_eq!((r.start, r.end), (r.log_start, r.log_end));
    let count = r.channels.iter().find(|c| c.topic == "/count").unwrap();
    assert_eq!(count.series[0].points.len(), 30);
    let page = page_data(&r);
    assert!(page.get("range").is_none());
    assert_eq!(page["offset"], 0);
}

#[test]
fn a_range_past_the_log_shows_nothing_and_an_open_end_reaches_the_last_message() {
    let path = testdata("rosbag/sample.bag");
    let r = report(&path, "10", "20").unwrap();
    assert_eq!(r.range.as_ref().unwrap().messages, 0);
    assert_eq!(r.start, r.end);
    assert!(r.channels.iter().all(|c| c.series.is_empty()));

    let log = robolog::open(&path).unwrap();
    let opts = ReportOptions {
        check: false,
        start: arg("2.5"),
        ..ReportOptions::default()
    };
    let r = report_log(&log, &path, &opts).unwrap();
    assert_eq!(r.end, r.log_end);
    let count = r.channels.iter().find(|c| c.topic == "/count").unwrap();
    // 2.5 s .. 2.9 s.
    assert_eq!(count.message_count, 5);
    assert_eq!(
        r.range.as_ref().unwrap().asked,
        "from 2.5 s after the first message"
    );
}

#[test]
fn a_utc_range_on_an_unanchored_log_is_refused() {
    let path = testdata("ulog/example.ulg");
    let e = report(&path, "2019-05-13T14:09:15Z", "60").unwrap_err();
    assert!(e.to_string().contains("not anchored to UTC"), "{e}");
    let out = std::env::temp_dir().join(format!("range-refused-{}.html", std::process::id()));
    let opts = ReportOptions {
        check: false,
        start: arg("2019-05-13T14:09:15Z"),
        ..ReportOptions::default()
    };
    match write_report(std::slice::from_ref(&path), &out, &opts, true) {
        Err(ReportError::Time(p, m)) => {
            assert_eq!(p, path);
            assert!(m.starts_with("start: a UTC time was given"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!out.exists());
}

/// A ULog anchored by its GPS time: the range given as UTC instants is the
/// one given as seconds after its first message, part for part.
#[test]
fn a_ulog_range_by_utc_equals_the_range_after_the_first_message() {
    let Some(path) = robolog_testkit::corpus("ulog/pyulog/sample_px4_events.ulg") else {
        return;
    };
    let log = robolog::open(&path).unwrap();
    let summary = log.summary().unwrap();
    let first = summary.start.unwrap();
    let utc = |secs: i64| {
        let t = summary
            .time_model
            .to_unix(Timestamp(first.as_nanos() + secs * 1_000_000_000))
            .unwrap();
        logcore::time::format_unix(t).unwrap()
    };
    let by_utc = report(&path, &utc(2), &utc(5)).unwrap();
    let by_secs = report(&path, "2", "5").unwrap();
    let whole = {
        let opts = ReportOptions {
            check: false,
            ..ReportOptions::default()
        };
        report_log(&log, &path, &opts).unwrap()
    };
    let (a, b) = (
        by_utc.range.as_ref().unwrap(),
        by_secs.range.as_ref().unwrap(),
    );
    assert_eq!((a.start, a.end), (b.start, b.end));
    assert_eq!(a.start, Some(first.as_nanos() + 2_000_000_000));
    assert!(a.asked.starts_with("from 2024-03-18T"), "{}", a.asked);
    assert!(a.messages > 0 && a.messages < whole.message_count);
    assert_eq!((by_utc.start, by_utc.end), (by_secs.start, by_secs.end));
    let mut compared = 0;
    for (x, y) in by_utc.channels.iter().zip(&by_secs.channels) {
        assert_eq!(x.topic, y.topic);
        assert_eq!(
            (x.message_count, x.start, x.end),
            (y.message_count, y.start, y.end)
        );
        assert_eq!(x.density, y.density);
        for (s, t) in x.series.iter().zip(&y.series) {
            assert_eq!((&s.name, &s.points), (&t.name, &t.points));
            for p in &s.points {
                assert!(
                    p.0 >= first.as_nanos() + 2_000_000_000
                        && p.0 < first.as_nanos() + 5_000_000_000,
                    "{}: {} at {}",
                    x.topic,
                    s.name,
                    p.0
                );
            }
            compared += 1;
        }
    }
    assert!(compared > 10, "{compared}");
    // The flight modes and logged messages follow the range; the
    // parameters are the log's.
    let span = (by_secs.start, by_secs.end);
    for e in &by_secs.events {
        assert!(
            e.t >= span.0 && e.t < first.as_nanos() + 5_000_000_000,
            "{e:?}"
        );
    }
    assert!(by_secs.events.len() < whole.events.len() || whole.events.is_empty());
    let events = |r: &LogReport| {
        r.events
            .iter()
            .map(|e| (e.t, e.text.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(events(&by_utc), events(&by_secs));
    for b in &by_secs.bands {
        for s in &b.spans {
            assert!(s.0 >= span.0 && s.1 <= span.1, "{s:?}");
        }
    }
    let params = |r: &LogReport| {
        r.parameters.as_ref().map(|(n, ps)| {
            (
                n.clone(),
                ps.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
            )
        })
    };
    assert_eq!(params(&by_secs), params(&whole));
}
