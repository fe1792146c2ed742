//! `robolog filter IN... OUT` against independent readings of its inputs:
//! every output is read back message by message (topic, log time, payload
//! bytes) with rosbag12's `Bag` or mcapfile's `LinearReader`, and compared
//! with what the test computes from the input read the same way (the IMU
//! values decoded from the raw `sensor_msgs/Imu` bytes here, not by the
//! project's decoders). Corpus logs (`../shared/corpus` or
//! `$ROBOLOG_CORPUS`) are skipped when absent; the latched bag is written
//! here with rosbag12's writer.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::io::Cursor;
use std::path::{Path, PathBuf};

use common::{corpus, robolog, scratch_dir, text};
use logcore::MessageFilter;
use mcapfile::{LinearReader, Record};
use rosbag12::{Bag, Connection, RosTime, Writer, WriterOptions};

/// One message as the tests compare them: topic, log time (ns), payload.
type Msg = (String, i64, Vec<u8>);

/// The messages of the bag or MCAP file at `path`, sorted (time, topic,
/// bytes).
fn read(path: &Path) -> Vec<Msg> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = if path.extension().is_some_and(|e| e == "mcap") {
        mcap_messages(&bytes)
            .into_iter()
            .map(|(t, l, _, d)| (t, l, d))
            .collect()
    } else {
        bag_messages(&bytes)
    };
    out.sort_by(|a, b| (a.1, &a.0, &a.2).cmp(&(b.1, &b.0, &b.2)));
    out
}

/// A bag's messages with rosbag12's reader, and its latched connections'
/// ids.
fn bag_messages(bytes: &[u8]) -> Vec<Msg> {
    let bag = Bag::new(bytes).unwrap();
    let topics: HashMap<u32, String> = bag
        .connections()
        .iter()
        .map(|c| (c.id, c.topic.clone()))
        .collect();
    bag.messages(&MessageFilter::all())
        .map(|m| {
            let m = m.unwrap();
            (
                topics[&m.conn].clone(),
                m.time.to_timestamp().as_nanos(),
                m.data.to_vec(),
            )
        })
        .collect()
}

/// An MCAP file's messages: topic, log time, publish time, payload.
fn mcap_messages(bytes: &[u8]) -> Vec<(String, i64, i64, Vec<u8>)> {
    let mut topics = HashMap::new();
    let mut out = Vec::new();
    for r in LinearReader::new(bytes) {
        match r.unwrap() {
            Record::Channel(c) => {
                topics.insert(c.id, c.topic.to_string());
            }
            Record::Message(m) => out.push((
                topics[&m.channel_id].clone(),
                m.log_time as i64,
                m.publish_time as i64,
                m.data.to_vec(),
            )),
            _ => {}
        }
    }
    out
}

/// The `linear_acceleration.z` and `header.frame_id` of a ROS 1
/// `sensor_msgs/Imu` payload, read from its bytes: header (seq, stamp,
/// frame_id), orientation (4 f64), its covariance (9), angular velocity
/// (3), its covariance (9), then linear acceleration x, y, z.
fn imu_z_and_frame(data: &[u8]) -> (f64, String) {
    let n = u32::from_le_bytes(data[12..16].try_into().unwrap()) as usize;
    let frame = String::from_utf8(data[16..16 + n].to_vec()).unwrap();
    let at = 16 + n + 8 * (4 + 9 + 3 + 9) + 16;
    (
        f64::from_le_bytes(data[at..at + 8].try_into().unwrap()),
        frame,
    )
}

/// Runs `robolog filter ARGS`, asserting exit code 0.
fn filter_ok(args: &[&str]) -> String {
    let out = robolog().arg("filter").args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// Runs `robolog filter ARGS`, asserting exit code 2; its stderr.
fn filter_usage(args: &[&str]) -> String {
    let out = robolog().arg("filter").args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stderr)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn turtles() -> Option<PathBuf> {
    Some(corpus("rosbag")?.join("rosbagjs-example.bag"))
}

fn imu_bag() -> Option<PathBuf> {
    Some(corpus("sensors")?.join("robot_localization-test1.bag"))
}

/// The last message of each latched connection of the bag `bytes` before
/// `cut` whose topic `keep` keeps.
fn latched_before(bytes: &[u8], cut: i64, keep: impl Fn(&str) -> bool) -> Vec<Msg> {
    let bag = Bag::new(bytes).unwrap();
    let mut last: BTreeMap<u32, Msg> = BTreeMap::new();
    for c in bag
        .connections()
        .iter()
        .filter(|c| c.latching && keep(&c.topic))
    {
        for m in bag.messages(&MessageFilter::all()) {
            let m = m.unwrap();
            let t = m.time.to_timestamp().as_nanos();
            if m.conn == c.id && t < cut {
                last.insert(c.id, (c.topic.clone(), t, m.data.to_vec()));
            }
        }
    }
    last.into_values().collect()
}

fn sorted(mut v: Vec<Msg>) -> Vec<Msg> {
    v.sort_by(|a, b| (a.1, &a.0, &a.2).cmp(&(b.1, &b.0, &b.2)));
    v
}

#[test]
fn globs_and_regexes_select_and_exclude_on_a_bag() {
    let Some(bag) = turtles() else { return };
    let dir = scratch_dir("filter", "glob-bag");
    let out = dir.join("out.bag");
    filter_ok(&[
        s(&bag),
        s(&out),
        "--topic",
        "/turtle1/*",
        "--topic",
        "re:/tf(_static)?",
        "--exclude-topic",
        "/turtle1/color_*",
    ]);
    let want: Vec<Msg> = read(&bag)
        .into_iter()
        .filter(|m| {
            matches!(
                m.0.as_str(),
                "/turtle1/pose" | "/turtle1/cmd_vel" | "/tf" | "/tf_static"
            )
        })
        .collect();
    assert!(want.len() > 4000);
    assert_eq!(read(&out), want);

    // `**` across levels, and `convert --topic` takes the same patterns.
    let conv = dir.join("conv.mcap");
    let run = robolog()
        .args(["convert", s(&bag), s(&conv), "--topic", "/**/pose"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let want: Vec<Msg> = read(&bag)
        .into_iter()
        .filter(|m| m.0.ends_with("/pose"))
        .collect();
    assert_eq!(read(&conv), want);
    // An exact name still works.
    let exact = dir.join("exact.mcap");
    let run = robolog()
        .args(["convert", s(&bag), s(&exact), "--topic", "/turtle2/pose"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(read(&exact).len(), 1344);
}

#[test]
fn globs_and_regexes_select_and_exclude_on_an_mcap() {
    let Some(dir) = corpus("ros2-mcap") else {
        return;
    };
    let input = dir.join("wbag_0.mcap");
    let tmp = scratch_dir("filter", "glob-mcap");
    let out = tmp.join("out.mcap");
    filter_ok(&[
        s(&input),
        s(&out),
        "--topic",
        "re:[A-E]{3}",
        "--exclude-topic",
        "B*",
        "--exclude-topic",
        "[E]??",
    ]);
    let want: Vec<Msg> = read(&input)
        .into_iter()
        .filter(|m| matches!(m.0.as_str(), "AAA" | "CCC" | "DDD"))
        .collect();
    assert_eq!(want.len(), 174 + 157 + 163);
    assert_eq!(read(&out), want);
}

#[test]
fn a_pattern_matching_no_topic_is_a_usage_error_listing_the_topics() {
    let Some(bag) = turtles() else { return };
    let dir = scratch_dir("filter", "nomatch");
    let out = dir.join("out.mcap");
    for (flag, pattern) in [
        ("--topic", "/turtle3/*"),
        ("--exclude-topic", "re:/nothing.*"),
    ] {
        let err = filter_usage(&[s(&bag), s(&out), flag, pattern]);
        assert!(err.contains(&format!("{flag} {pattern:?}")), "{err}");
        assert!(err.contains("\"/turtle1/pose\""), "{err}");
        assert!(!out.exists());
    }
    let err = filter_usage(&[s(&bag), s(&out), "--topic", "re:("]);
    assert!(err.contains("re:("), "{err}");
    // `convert` refuses it the same way.
    let run = robolog()
        .args(["convert", s(&bag), s(&out), "--topic", "/turtle3/*"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("\"/turtle1/pose\""));
}

#[test]
fn where_keeps_exactly_the_imu_messages_whose_values_match() {
    let Some(bag) = imu_bag() else { return };
    let dir = scratch_dir("filter", "where");
    let input = read(&bag);
    let frame = input
        .iter()
        .find(|m| m.0 == "/imu/data")
        .map(|m| imu_z_and_frame(&m.2).1)
        .unwrap();
    let out = dir.join("out.bag");
    let cond = format!("/imu/data: linear_acceleration.z > 0.5 AND header.frame_id = '{frame}'");
    filter_ok(&[s(&bag), s(&out), "--where", &cond]);
    let want: Vec<Msg> = input
        .iter()
        .filter(|m| m.0 != "/imu/data" || imu_z_and_frame(&m.2).0 > 0.5)
        .cloned()
        .collect();
    let kept_imu = want.iter().filter(|m| m.0 == "/imu/data").count();
    assert!(kept_imu > 100 && kept_imu < 11865, "{kept_imu}");
    assert_eq!(read(&out), want);

    // To MCAP, the same messages.
    let mcap = dir.join("out.mcap");
    filter_ok(&[s(&bag), s(&mcap), "--where", &cond]);
    assert_eq!(read(&mcap), want);
}

#[test]
fn bad_expressions_and_statements_are_usage_errors_naming_the_columns() {
    let Some(bag) = imu_bag() else { return };
    let dir = scratch_dir("filter", "bad-where");
    let out = dir.join("out.mcap");
    let err = filter_usage(&[s(&bag), s(&out), "--where", "/imu/data: nope > 1"]);
    assert!(err.contains("nope"), "{err}");
    assert!(err.contains("linear_acceleration.z"), "{err}");
    assert!(err.contains("header.frame_id"), "{err}");
    for bad in [
        "/imu/data: 1 = 1; DROP TABLE imu_data",
        "/imu/data: DROP TABLE imu_data",
        "/imu/data: linear_acceleration.z >",
        "/imu/data: header.frame_id",
    ] {
        let err = filter_usage(&[s(&bag), s(&out), "--where", bad]);
        assert!(err.contains("the columns of /imu/data are"), "{bad}: {err}");
    }
    let err = filter_usage(&[s(&bag), s(&out), "--where", "/nope: x > 1"]);
    assert!(err.contains("\"/imu/data\""), "{err}");
    let err = filter_usage(&[s(&bag), s(&out), "--where", "no colon"]);
    assert!(err.contains("TOPIC: EXPR"), "{err}");
    // An expression that only fails on the data (an integer division by
    // zero), found by the scan while the output is being written: the
    // same exit, and nothing left behind.
    let err = filter_usage(&[
        s(&bag),
        s(&out),
        "--where",
        "/imu/data: header.seq / (header.seq - header.seq) > 0",
    ]);
    assert!(err.contains("--where /imu/data:"), "{err}");
    assert!(err.contains("Divide by zero"), "{err}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn around_keeps_merged_windows_of_every_topic() {
    let Some(bag) = imu_bag() else { return };
    let dir = scratch_dir("filter", "around");
    let out = dir.join("out.mcap");
    filter_ok(&[
        s(&bag),
        s(&out),
        "--around",
        "/imu/data: linear_acceleration.z > 3",
        "--before",
        "1s",
        "--after",
        "2500ms",
    ]);
    let input = read(&bag);
    let events: Vec<i64> = input
        .iter()
        .filter(|m| m.0 == "/imu/data" && imu_z_and_frame(&m.2).0 > 3.0)
        .map(|m| m.1)
        .collect();
    assert!(events.len() > 1);
    // Windows merged by hand.
    let mut windows: Vec<(i64, i64)> = Vec::new();
    for t in events {
        let (a, b) = (t - 1_000_000_000, t + 2_500_000_000);
        match windows.last_mut() {
            Some(w) if a <= w.1 => w.1 = w.1.max(b),
            _ => windows.push((a, b)),
        }
    }
    let want: Vec<Msg> = input
        .into_iter()
        .filter(|m| windows.iter().any(|&(a, b)| a <= m.1 && m.1 <= b))
        .collect();
    let got = read(&out);
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);
    assert!(got.iter().any(|m| m.0 == "/fix") && got.iter().any(|m| m.0.contains("odom")));
}

#[test]
fn start_end_shift_and_rename() {
    let Some(bag) = turtles() else { return };
    let dir = scratch_dir("filter", "shift");
    let out = dir.join("out.mcap");
    filter_ok(&[
        s(&bag),
        s(&out),
        "--start",
        "2",
        "--end",
        "5s",
        "--shift",
        "-1.5s",
        "--rename",
        "/turtle1/pose=/t1/pose",
        "--rename",
        "/turtle2/*=/t2/*",
    ]);
    let bytes = std::fs::read(&bag).unwrap();
    let input = read(&bag);
    let first = input.iter().map(|m| m.1).min().unwrap();
    let (start, end) = (first + 2_000_000_000, first + 5_000_000_000);
    let rename = |t: &str| match t {
        "/turtle1/pose" => "/t1/pose".to_string(),
        t => match t.strip_prefix("/turtle2/") {
            Some(rest) => format!("/t2/{rest}"),
            None => t.to_string(),
        },
    };
    let mut want: Vec<Msg> = input
        .iter()
        .filter(|m| start <= m.1 && m.1 < end)
        .cloned()
        .collect();
    // Latched connections keep their last message before the start.
    want.extend(latched_before(&bytes, start, |_| true));
    let want = sorted(
        want.into_iter()
            .map(|(t, l, d)| (rename(&t), l - 1_500_000_000, d))
            .collect(),
    );
    assert_eq!(read(&out), want);
    // Publish times move with the log times.
    for (_, log_time, publish, _) in mcap_messages(&std::fs::read(&out).unwrap()) {
        assert_eq!(log_time, publish);
    }
    assert!(read(&out).iter().any(|m| m.0 == "/t2/cmd_vel"));
}

/// A bag with a latched `/map` whose only message is at 1 s, an unlatched
/// `/once` with one at 1 s, and `/data` every second from 1 to 10 s.
fn latched_bag() -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    const STRING: &str = "992ce8a1687cec8c8bd883ec73ca41d1";
    let mut map = Connection::new(0, "/map", "std_msgs/String", STRING, "string data");
    map.latching = true;
    map.header = vec![
        ("topic".into(), b"/map".to_vec()),
        ("type".into(), b"std_msgs/String".to_vec()),
        ("md5sum".into(), STRING.as_bytes().to_vec()),
        ("message_definition".into(), b"string data".to_vec()),
        ("latching".into(), b"1".to_vec()),
    ];
    let map = w.add_connection(map).unwrap();
    let once = w
        .add_connection(Connection::new(
            1,
            "/once",
            "std_msgs/String",
            STRING,
            "string data",
        ))
        .unwrap();
    let data = w
        .add_connection(Connection::new(
            2,
            "/data",
            "std_msgs/String",
            STRING,
            "string data",
        ))
        .unwrap();
    let payload = |s: &str| {
        let mut b = (s.len() as u32).to_le_bytes().to_vec();
        b.extend_from_slice(s.as_bytes());
        b
    };
    w.write(map, RosTime { sec: 1, nsec: 0 }, &payload("the map"))
        .unwrap();
    w.write(once, RosTime { sec: 1, nsec: 0 }, &payload("once"))
        .unwrap();
    for i in 1..=10 {
        w.write(
            data,
            RosTime { sec: i, nsec: 0 },
            &payload(&format!("d{i}")),
        )
        .unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

#[test]
fn a_latched_message_before_the_start_is_kept() {
    let dir = scratch_dir("filter", "latched");
    let input = dir.join("latched.bag");
    std::fs::write(&input, latched_bag()).unwrap();
    let out = dir.join("out.bag");
    filter_ok(&[s(&input), s(&out), "--start", "@5"]);
    let got = read(&out);
    let topics: Vec<(&str, i64)> = got
        .iter()
        .map(|m| (m.0.as_str(), m.1 / 1_000_000_000))
        .collect();
    let mut want = vec![("/map", 1)];
    want.extend((5..=10).map(|i| ("/data", i)));
    assert_eq!(topics, want);
    let map = read(&input).into_iter().find(|m| m.0 == "/map").unwrap();
    assert_eq!(got[0], map);
    // The output connection is latched still.
    let bytes = std::fs::read(&out).unwrap();
    let bag = Bag::new(&bytes).unwrap();
    assert!(
        bag.connections()
            .iter()
            .any(|c| c.topic == "/map" && c.latching)
    );

    // The cut of --around is the first window's start.
    let out2 = dir.join("around.mcap");
    filter_ok(&[
        s(&input),
        s(&out2),
        "--around",
        "/data: data = 'd7'",
        "--before",
        "1s",
    ]);
    let got: Vec<(String, i64)> = read(&out2)
        .into_iter()
        .map(|m| (m.0, m.1 / 1_000_000_000))
        .collect();
    assert_eq!(
        got,
        [("/map", 1), ("/data", 6), ("/data", 7)].map(|(t, s)| (t.to_string(), s))
    );
}

/// The dry run's lines `TOPIC KEPT KEPT_BYTES DROPPED DROPPED_BYTES`.
fn dry_counts(out: &str) -> BTreeMap<String, [u64; 4]> {
    out.lines()
        .skip(1)
        .filter(|l| !l.starts_with("total"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let n = |i: usize| f[i].parse::<u64>().unwrap();
            (f[0].to_string(), [n(1), n(2), n(3), n(4)])
        })
        .collect()
}

#[test]
fn dry_run_writes_nothing_and_counts_what_the_run_writes() {
    let Some(bag) = imu_bag() else { return };
    let dir = scratch_dir("filter", "dry");
    let out = dir.join("out.mcap");
    let args = [
        s(&bag),
        s(&out),
        "--exclude-topic",
        "/fix",
        "--where",
        "/imu/data: linear_acceleration.z > 0.5",
        "--start",
        "30",
        "--end",
        "200",
    ];
    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let printed = filter_ok(&dry);
    assert!(!out.exists());
    let counts = dry_counts(&printed);
    filter_ok(&args);
    let written = read(&out);
    let input = read(&bag);
    for (topic, [kept, kept_bytes, dropped, dropped_bytes]) in &counts {
        let mine: Vec<&Msg> = written.iter().filter(|m| &m.0 == topic).collect();
        assert_eq!(mine.len() as u64, *kept, "{topic}");
        assert_eq!(
            mine.iter().map(|m| m.2.len() as u64).sum::<u64>(),
            *kept_bytes,
            "{topic}"
        );
        let all: Vec<&Msg> = input.iter().filter(|m| &m.0 == topic).collect();
        assert_eq!(kept + dropped, all.len() as u64, "{topic}");
        assert_eq!(
            kept_bytes + dropped_bytes,
            all.iter().map(|m| m.2.len() as u64).sum::<u64>()
        );
    }
    assert_eq!(counts["/fix"][0], 0);
    assert!(counts["/imu/data"][0] > 0 && counts["/imu/data"][2] > 0);
}

#[test]
fn never_over_an_input_and_an_existing_output_needs_force() {
    let Some(bag) = turtles() else { return };
    let dir = scratch_dir("filter", "safe");
    let input = dir.join("in.bag");
    std::fs::copy(&bag, &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let err = filter_usage(&[s(&input), s(&input), "--topic", "/tf", "--force"]);
    assert!(err.contains("in.bag"), "{err}");
    assert_eq!(std::fs::read(&input).unwrap(), before);

    let out = dir.join("out.mcap");
    std::fs::write(&out, b"keep me").unwrap();
    let err = filter_usage(&[s(&input), s(&out), "--topic", "/tf"]);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    filter_ok(&[s(&input), s(&out), "--topic", "/tf", "--force"]);
    assert_eq!(read(&out).len(), 2688);
    // Nothing else left in the folder (no temporaries).
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["in.bag", "out.mcap"]);
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn split_parts_are_printed_checked_first_and_hold_every_message() {
    let Some(bag) = turtles() else { return };
    let dir = scratch_dir("filter", "split");
    let out = dir.join("out.bag");
    let run = robolog()
        .args(["filter", s(&bag), s(&out), "--split-every", "5s"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let said = text(&run.stderr);
    let parts: Vec<String> = (0..5).map(|k| format!("out_{k:03}.bag")).collect();
    assert_eq!(names_in(&dir), parts);
    for p in &parts {
        assert!(said.contains(p.as_str()), "{said}");
    }
    // Every input message is in a part (the latched ones again in each
    // part after the first).
    let input = read(&bag);
    let mut got: Vec<Msg> = parts.iter().flat_map(|p| read(&dir.join(p))).collect();
    got.sort();
    got.dedup();
    let mut want = input.clone();
    want.sort();
    want.dedup();
    assert_eq!(got, want);
    // Again: refused before anything is written, naming a part.
    let err = filter_usage(&[s(&bag), s(&out), "--split-size", "300kB"]);
    assert!(
        err.contains("out_000.bag") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(names_in(&dir), parts);
    filter_usage(&[s(&bag), s(&out), "--split-size", "lots"]);
    filter_usage(&[s(&bag), s(&out), "--split-every", "0"]);
    // With --force: fewer, larger parts, the earlier ones beyond removed.
    filter_ok(&[s(&bag), s(&out), "--split-every", "15s", "--force"]);
    assert_eq!(names_in(&dir), ["out_000.bag", "out_001.bag"]);
}

#[test]
fn restamp_header_writes_the_stamps_sorted() {
    let Some(bag) = imu_bag() else { return };
    let dir = scratch_dir("filter", "restamp");
    let out = dir.join("r.bag");
    filter_ok(&[s(&bag), s(&out), "--restamp", "header"]);
    // Every message here starts with a header: seq, secs, nsecs.
    let stamp = |d: &[u8]| {
        let w = |at: usize| i64::from(u32::from_le_bytes(d[at..at + 4].try_into().unwrap()));
        w(4) * 1_000_000_000 + w(8)
    };
    let mut want: Vec<Msg> = read(&bag)
        .into_iter()
        .map(|(t, _, d)| (t, stamp(&d), d))
        .collect();
    want.sort_by(|a, b| (a.1, &a.0, &a.2).cmp(&(b.1, &b.0, &b.2)));
    assert_eq!(read(&out), want);
    filter_usage(&[s(&bag), s(&dir.join("x.bag")), "--restamp", "publish"]);
}

#[test]
fn frame_id_renames_only_the_frames_asked_for() {
    let Some(bag) = imu_bag() else { return };
    let dir = scratch_dir("filter", "frames");
    let out = dir.join("f.mcap");
    filter_ok(&[s(&bag), s(&out), "--frame-id", "imu_link=imu"]);
    let (before, after) = (read(&bag), read(&out));
    assert_eq!(before.len(), after.len());
    for (a, b) in before.iter().zip(&after) {
        assert_eq!((&a.0, a.1), (&b.0, b.1));
        if a.0 == "/imu/data" {
            let (za, fa) = imu_z_and_frame(&a.2);
            let (zb, fb) = imu_z_and_frame(&b.2);
            assert_eq!((fa.as_str(), fb.as_str()), ("imu_link", "imu"));
            assert_eq!(za.to_bits(), zb.to_bits());
            assert_eq!(a.2.len(), b.2.len() + 5);
        } else {
            assert_eq!(a.2, b.2);
        }
    }
    let err = filter_usage(&[s(&bag), s(&dir.join("x.bag")), "--frame-id", "imu_link"]);
    assert!(err.contains("OLD=NEW"), "{err}");
}
