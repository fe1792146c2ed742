//! `robolog report --start T --end T`: the page holds the messages `cat`
//! prints for the same range, a ULog's range given in UTC is the one given
//! in seconds after its first message, and a UTC time for a log without
//! an anchor is a usage error (exit 2) that writes nothing.

mod common;

use std::path::Path;

use common::{corpus, robolog, scratch_dir, testdata, text};

/// The page's data (the JSON of its `report-data` script element).
fn page_data(page: &Path) -> serde_json::Value {
    let page = std::fs::read_to_string(page).unwrap();
    let open = "<script type=\"application/json\" id=\"report-data\">";
    let at = page.find(open).unwrap() + open.len();
    let end = at + page[at..].find("</script>").unwrap();
    serde_json::from_str(&page[at..end]).unwrap()
}

/// Runs `robolog report LOG -o OUT ARGS...` and returns the page's data.
fn report(log: &Path, out: &Path, args: &[&str]) -> serde_json::Value {
    robolog()
        .arg("report")
        .arg(log)
        .arg("-o")
        .arg(out)
        .args(["--no-check", "--force"])
        .args(args)
        .assert()
        .success();
    page_data(out)
}

/// The channel of `topic` in a log of the page's data.
fn channel<'a>(log: &'a serde_json::Value, topic: &str) -> &'a serde_json::Value {
    (log["channels"].as_array().unwrap().iter())
        .find(|c| c["topic"] == topic)
        .unwrap_or_else(|| panic!("no channel {topic}"))
}

/// A series of the page's data as (ns on the log's clock, value).
fn points(log: &serde_json::Value, series: &serde_json::Value) -> Vec<(i64, f64)> {
    let start = log["start"].as_i64().unwrap();
    let t = series["t"].as_array().unwrap();
    let v = series["v"].as_array().unwrap();
    t.iter()
        .zip(v)
        .map(|(t, v)| (start + t.as_i64().unwrap(), v.as_f64().unwrap()))
        .collect()
}

#[test]
fn a_bags_range_holds_the_values_cat_prints() {
    let dir = scratch_dir("report-range", "bag");
    let bag = testdata("rosbag/sample.bag");
    let data = report(&bag, &dir.join("p.html"), &["--start", "1", "--end", "2"]);
    let log = &data["logs"][0];

    let out = robolog()
        .args([
            "cat", "--json", "--topic", "/count", "--start", "1", "--end", "2",
        ])
        .arg(&bag)
        .assert()
        .success();
    let want: Vec<(i64, f64)> = text(&out.get_output().stdout)
        .lines()
        .map(|l| {
            let m: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                m["log_time_ns"].as_i64().unwrap(),
                m["data"]["data"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(want.len(), 10);
    assert_eq!(want[0], (1_600_000_001_000_000_000, 5.0));

    let count = channel(log, "/count");
    assert_eq!(count["count"], 10);
    assert_eq!(points(log, &count["series"][0]), want);
    assert_eq!(log["start"], 1_600_000_001_000_000_000i64);
    assert_eq!(log["duration"], 1_000_000_000);
    assert_eq!(log["offset"], 1_000_000_000);
    assert_eq!(log["range"]["start"], 1_000_000_000);
    assert_eq!(log["range"]["end"], 2_000_000_000);
    assert_eq!(
        log["range"]["asked"],
        "from 1 s after the first message, until 2 s after the first message"
    );
    // Every plotted point is in the range.
    for ch in log["channels"].as_array().unwrap() {
        for s in ch["series"].as_array().unwrap() {
            for (t, _) in points(log, s) {
                assert!((1_600_000_001_000_000_000..1_600_000_002_000_000_000).contains(&t));
            }
        }
    }
}

#[test]
fn several_logs_each_count_from_their_own_first_message() {
    let dir = scratch_dir("report-range", "several");
    let out = dir.join("p.html");
    robolog()
        .arg("report")
        .arg(testdata("rosbag/sample.bag"))
        .arg(testdata("ulog/example.ulg"))
        .arg("-o")
        .arg(&out)
        .args(["--no-check", "--start", "1.5s", "--end", "2500ms"])
        .assert()
        .success();
    let data = page_data(&out);
    for log in data["logs"].as_array().unwrap() {
        assert_eq!(log["offset"], 1_500_000_000, "{}", log["name"]);
        assert_eq!(log["range"]["start"], 1_500_000_000, "{}", log["name"]);
        assert_eq!(log["range"]["end"], 2_500_000_000i64, "{}", log["name"]);
        assert!(log["duration"].as_i64().unwrap() <= 1_000_000_000);
    }
}

#[test]
fn a_utc_time_on_an_unanchored_log_is_a_usage_error() {
    let dir = scratch_dir("report-range", "unanchored");
    let out = dir.join("p.html");
    let run = robolog()
        .arg("report")
        .arg(testdata("ulog/example.ulg"))
        .arg("-o")
        .arg(&out)
        .args(["--no-check", "--start", "2019-05-13T14:09:15Z"])
        .assert()
        .code(2);
    let err = text(&run.get_output().stderr);
    assert!(err.contains("example.ulg"), "{err}");
    assert!(err.contains("not anchored to UTC"), "{err}");
    assert!(!out.exists());
    // A time that is not one is refused by the argument parser.
    robolog()
        .arg("report")
        .arg(testdata("ulog/example.ulg"))
        .arg("-o")
        .arg(&out)
        .args(["--end", "soon"])
        .assert()
        .code(2);
    assert!(!out.exists());
}

#[test]
fn a_ulog_range_in_utc_equals_the_range_after_its_first_message() {
    let Some(ulg) = corpus("ulog/pyulog/sample_px4_events.ulg") else {
        return;
    };
    let dir = scratch_dir("report-range", "ulog");
    let info = robolog()
        .args(["info", "--json"])
        .arg(&ulg)
        .assert()
        .success();
    let info: serde_json::Value = serde_json::from_str(&text(&info.get_output().stdout)).unwrap();
    let utc0 = info["start_utc_ns"].as_i64().expect("a GPS-anchored ULog");
    let iso = |ns: i64| {
        let secs = ns.div_euclid(1_000_000_000);
        let nanos = ns.rem_euclid(1_000_000_000);
        let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        // Civil date of a day count since 1970-01-01 (Howard Hinnant's).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{nanos:09}Z",
            rest / 3600,
            rest / 60 % 60,
            rest % 60
        )
    };
    let by_utc = report(
        &ulg,
        &dir.join("utc.html"),
        &[
            "--start",
            &iso(utc0 + 2_000_000_000),
            "--end",
            &iso(utc0 + 5_000_000_000),
        ],
    );
    let by_secs = report(
        &ulg,
        &dir.join("secs.html"),
        &["--start", "2", "--end", "5"],
    );
    let (a, b) = (&by_utc["logs"][0], &by_secs["logs"][0]);
    for key in [
        "start",
        "duration",
        "offset",
        "start_utc",
        "channels",
        "bands",
        "events",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(a["range"]["start"], 2_000_000_000);
    assert_eq!(a["range"]["end"], 5_000_000_000i64);
    assert_eq!(a["range"]["messages"], b["range"]["messages"]);
    assert!(a["range"]["messages"].as_u64().unwrap() > 0);
    let series: usize = (a["channels"].as_array().unwrap().iter())
        .map(|c| c["series"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(series > 10, "{series}");
}
