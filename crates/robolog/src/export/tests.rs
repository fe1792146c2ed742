// The helpers serve the tests of every format; a build with some formats left out uses only some.
#![cfg_attr(
    not(all(
        feature = "rosbag",
        feature = "ulog",
        feature = "mcap",
        feature = "vellog",
        feature = "carla"
    )),
    allow(dead_code)
)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::*;

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// A new, empty folder (not created: the export creates it).
fn scratch(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "robolog-export-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// CSV files of `log` as `robolog export` writes them: ULog logs as
/// `ulog2csv` does, the others as CSV tables.
fn export_csv(
    log: &crate::Log<'_>,
    input: &Path,
    dir: &Path,
    opts: &ExportOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<ExportedLog, ExportError> {
    #[cfg(feature = "ulog")]
    if log.as_ulog().is_some() {
        return ulog2csv(log, input, dir, opts, progress);
    }
    export_tables(log, input, dir, opts, &Csv, progress)
}

fn export(input: &Path, dir: &Path, opts: &ExportOptions) -> Result<ExportedLog, ExportError> {
    let log = crate::open(input).unwrap();
    export_csv(&log, input, dir, opts, &mut |_| {})
}

#[cfg(feature = "rosbag")]
#[test]
fn bag_tables_have_the_known_columns_and_values() {
    let input = testdata("rosbag/sample.bag");
    let dir = scratch("bag");
    let mut calls = Vec::new();
    let log = crate::open(&input).unwrap();
    let stats = export_csv(&log, &input, &dir, &ExportOptions::default(), &mut |p| {
        calls.push(p)
    })
    .unwrap();
    assert_eq!(files(&dir), ["chatter.csv", "count.csv", "point.csv"]);
    let got: Vec<(&str, u64, usize)> = stats
        .tables
        .iter()
        .map(|t| (t.topic.as_str(), t.rows, t.columns))
        .collect();
    // The two connections of /chatter make one table.
    assert_eq!(
        got,
        [("/chatter", 15, 3), ("/count", 30, 3), ("/point", 30, 8)]
    );
    assert!(stats.is_clean());
    let point = read(&dir, "point.csv");
    let mut lines = point.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,log_time_ns,header.seq,header.stamp,header.frame_id,point.x,point.y,point.z")
    );
    assert_eq!(
        lines.next(),
        Some("1600000000.000000000,1600000000000000000,0,1600000000000000000,map,0.0,-1.0,2.25")
    );
    assert_eq!(
        lines.next(),
        Some("1600000000.100000000,1600000000100000000,1,1600000000100000000,map,0.5,-1.0,2.25")
    );
    assert_eq!(point.lines().count(), 31);
    // (`header.stamp`: the stamp in ns, rosbags' Time(sec, nanosec) as
    // sec * 10^9 + nanosec.)
    let chatter = read(&dir, "chatter.csv");
    assert_eq!(
        chatter.lines().take(2).collect::<Vec<_>>(),
        [
            "time_s,log_time_ns,data",
            "1600000000.000000000,1600000000000000000,hello world 0"
        ]
    );
    // Progress ends at every byte of both passes and every row.
    let last = calls.last().copied().unwrap();
    let size = std::fs::metadata(&input).unwrap().len();
    assert_eq!(
        last,
        Progress {
            bytes: 2 * size,
            total_bytes: 2 * size,
            rows: 75,
            log: 0,
            logs: 1,
        }
    );
    assert!(calls.windows(2).all(|w| w[0].bytes <= w[1].bytes));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "rosbag")]
#[test]
fn existing_files_are_refused_without_force_and_nothing_is_written() {
    let input = testdata("rosbag/sample.bag");
    let dir = scratch("force");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("point.csv"), "mine").unwrap();
    let err = export(&input, &dir, &ExportOptions::default()).unwrap_err();
    match err {
        ExportError::Refused(crate::write::Refusal::Exists { output }) => {
            assert_eq!(output, dir.join("point.csv"))
        }
        other => panic!("expected a refusal, got {other}"),
    }
    // Refused before the first file: nothing else appeared.
    assert_eq!(files(&dir), ["point.csv"]);
    assert_eq!(read(&dir, "point.csv"), "mine");
    let opts = ExportOptions {
        force: true,
        ..ExportOptions::default()
    };
    export(&input, &dir, &opts).unwrap();
    assert!(read(&dir, "point.csv").starts_with("time_s,"));
    assert_eq!(files(&dir), ["chatter.csv", "count.csv", "point.csv"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "rosbag")]
#[test]
fn an_unknown_topic_names_the_topics_there_are() {
    let dir = scratch("topic");
    let opts = ExportOptions {
        topics: vec!["/count".into(), "/nope".into()],
        ..ExportOptions::default()
    };
    let err = export(&testdata("rosbag/sample.bag"), &dir, &opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"no topic or table "/nope" in the logs read; their topics: /chatter, /count, /point"#
    );
    assert!(!dir.exists());
}

#[cfg(feature = "ulog")]
#[test]
fn ulog_files_equal_ulog2csv_byte_for_byte() {
    let input = testdata("ulog/features.ulg");
    let dir = scratch("ulog");
    let stats = export(&input, &dir, &ExportOptions::default()).unwrap();
    // What `ulogfile::pyulog::ulog2csv -o DIR` writes (which the corpus
    // check holds equal to pyulog 1.3.0's files).
    let bytes = std::fs::read(&input).unwrap();
    let log = ulogfile::ULog::parse(&bytes).unwrap();
    let opts = ulogfile::pyulog::CsvOptions {
        output: Some(dir.clone()),
        ..Default::default()
    };
    let mut want = Vec::new();
    ulogfile::pyulog::ulog2csv(&log, &input, &opts, &mut std::io::sink(), |p, body| {
        let mut b = Vec::new();
        body(&mut b)?;
        want.push((p.file_name().unwrap().to_string_lossy().into_owned(), b));
        Ok(())
    })
    .unwrap();
    want.sort();
    assert!(want.len() > 2);
    let names: Vec<String> = want.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(files(&dir), names);
    for (name, body) in &want {
        assert_eq!(&std::fs::read(dir.join(name)).unwrap(), body, "{name}");
    }
    assert_eq!(stats.tables.len(), want.len());
    assert!(stats.problems.is_empty());
    // One topic alone.
    let one = scratch("ulog-one");
    let opts = ExportOptions {
        topics: vec!["sensor_gps".into()],
        ..ExportOptions::default()
    };
    let stats = export(&input, &one, &opts).unwrap();
    assert_eq!(files(&one), ["features_sensor_gps_0.csv"]);
    assert_eq!(stats.tables[0].rows, 6);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&one).unwrap();
}

#[cfg(feature = "ulog")]
#[test]
fn a_truncated_ulog_is_reported() {
    let dir = scratch("ulog-cut");
    let stats = export(
        &testdata("ulog/truncated.ulg"),
        &dir,
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(stats.problems.len(), 1);
    assert!(stats.problems[0].is_truncated());
    assert!(!stats.tables.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "ulog")]
#[test]
fn ulog_bool_bytes_print_as_pyulog_prints_them() {
    let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
    w.add_format("flags:uint64_t timestamp;bool armed;bool[2] landed;uint8_t[5] _padding0;")
        .unwrap();
    let id = w.add_subscription("flags", 0).unwrap();
    for (i, b) in [[0u8, 1, 0], [65, 0, 255], [1, 2, 1]].iter().enumerate() {
        let mut s = (2_000 + i as u64 * 1_000).to_le_bytes().to_vec();
        s.extend_from_slice(b);
        s.extend_from_slice(&[0; 5]);
        w.write_data(id, &s).unwrap();
    }
    let bytes = w.finish().unwrap();
    let dir = scratch("bools");
    let input = dir.join("bools.ulg");
    let log = crate::open_bytes(&bytes).unwrap();
    let stats = export_csv(&log, &input, &dir, &ExportOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(stats.tables[0].columns, 4);
    // pyulog reads bools as int8: 65 stays 65, 255 is -1.
    assert_eq!(
        read(&dir, "bools_flags_0.csv"),
        "timestamp,armed,landed[0],landed[1]\n2000,0,1,0\n3000,65,0,-1\n4000,1,2,1\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "mcap")]
fn json_mcap(messages: &[&[u8]]) -> Vec<u8> {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let ch = w
        .add_channel(0, "/odd topic", "json", &Default::default())
        .unwrap();
    for (i, m) in messages.iter().enumerate() {
        let t = 1_000 + i as u64;
        w.write_message(ch, i as u32, t, t + 5, m).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The CSV export of the MCAP `file` into `dir`, with default options.
#[cfg(feature = "mcap")]
fn export_bytes(file: &[u8], dir: &Path) -> ExportedLog {
    let log = crate::open_bytes(file).unwrap();
    export_csv(
        &log,
        &dir.join("in.mcap"),
        dir,
        &ExportOptions::default(),
        &mut |_| {},
    )
    .unwrap()
}

/// An MCAP file with one JSON message `{"i": i}` at time `i` on the
/// `i`th of `topics`.
#[cfg(feature = "mcap")]
fn topics_mcap<S: AsRef<str>>(topics: &[S]) -> Vec<u8> {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    for (i, topic) in topics.iter().enumerate() {
        let ch = w
            .add_channel(0, topic.as_ref(), "json", &Default::default())
            .unwrap();
        let doc = format!(r#"{{"i": {i}}}"#);
        w.write_message(ch, 0, i as u64, i as u64, doc.as_bytes())
            .unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[cfg(feature = "mcap")]
#[test]
fn variable_arrays_get_columns_for_the_longest_and_text_is_quoted() {
    let file = json_mcap(&[
        br#"{"a": [1], "s": "plain"}"#,
        br#"{"a": [1, -2, 3.5], "s": "x,\"y\""}"#,
        br#"{"a": [], "n": null, "t": {"v": true}}"#,
    ]);
    let dir = scratch("json");
    let stats = export_bytes(&file, &dir);
    assert_eq!(files(&dir), ["odd_topic.csv"]);
    assert!(stats.is_clean());
    assert_eq!(
        read(&dir, "odd_topic.csv"),
        "log_time_ns,publish_time_ns,a[0],a[1],a[2],s,n,t.v\n\
         1000,1005,1,,,plain,,\n\
         1001,1006,1,-2,3.5,\"x,\"\"y\"\"\",,\n\
         1002,1007,,,,,,true\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "mcap")]
#[test]
fn long_arrays_are_one_json_cell_and_undecodable_messages_are_reported() {
    let file = json_mcap(&[br#"{"a": [1, 2, 3]}"#, b"\x00 not json", br#"{"a": [4]}"#]);
    let log = crate::open_bytes(&file).unwrap();
    let dir = scratch("cap");
    let opts = ExportOptions {
        max_array_columns: 2,
        ..ExportOptions::default()
    };
    let stats = export_csv(&log, &dir.join("in.mcap"), &dir, &opts, &mut |_| {}).unwrap();
    assert_eq!(
        read(&dir, "odd_topic.csv"),
        "log_time_ns,publish_time_ns,a\n1000,1005,\"[1,2,3]\"\n1001,1006,\n1002,1007,[4]\n"
    );
    let undecoded: Vec<(u64, bool)> = stats
        .tables
        .iter()
        .filter(|t| t.undecoded > 0)
        .map(|t| (t.undecoded, t.raw))
        .collect();
    assert_eq!(undecoded, [(1, false)]);
    // The message that does not decode is a row with an empty value, as
    // it is a row of null fields in the Parquet and SQL tables.
    assert_eq!(stats.tables[0].rows, 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "mcap")]
#[test]
fn a_channel_nothing_decodes_is_exported_raw() {
    let file = json_mcap(&[b"\x01\x02", b"\x03"]);
    let dir = scratch("raw");
    let stats = export_bytes(&file, &dir);
    assert_eq!(
        read(&dir, "odd_topic.csv"),
        "log_time_ns,publish_time_ns,data[0],data[1]\n1000,1005,1,2\n1001,1006,3,\n"
    );
    assert_eq!((stats.tables[0].undecoded, stats.tables[0].raw), (2, true));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "vellog")]
#[test]
fn vel_tables_count_milliseconds() {
    let dir = scratch("vel");
    let stats = export(
        &testdata("vellog/sensors.vel"),
        &dir,
        &ExportOptions::default(),
    )
    .unwrap();
    let obd = read(&dir, "OBDDataM.csv");
    assert_eq!(
        obd.lines().take(2).collect::<Vec<_>>(),
        [
            "time_ms,log_time_ns,speed_kmh,engine_rpm,unused_8,unused_12,unused_16,throttle_position,unused_24",
            "250.000000,250000000,42,1850,0.0,0,0,18.0,0"
        ]
    );
    assert!(files(&dir).contains(&"LaserRange2DDataM_front.csv".to_string()));
    assert_eq!(stats.tables.iter().map(|t| t.rows).sum::<u64>(), 216);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "carla")]
#[test]
fn carla_records_flatten_to_numbered_columns() {
    let dir = scratch("carla");
    export(
        &testdata("carla/scene-0.9.13.rec"),
        &dir,
        &ExportOptions::default(),
    )
    .unwrap();
    let pos = read(&dir, "Position.csv");
    let header = pos.lines().next().unwrap();
    assert!(
        header.starts_with("time_s,log_time_ns,records[0].id,records[0].location.x,"),
        "{header}"
    );
    assert!(
        pos.lines()
            .nth(1)
            .unwrap()
            .starts_with("0.000000000,0,24,-6446.0,2400.0,0.25,0.0,0.0,180.0,25,-6500.0,")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "mcap")]
#[test]
fn topics_whose_names_collide_get_files_of_their_own() {
    // Base names equal, or equal but for case (one file on a disk that
    // ignores case).
    let topics = ["/a-b", "/a_b", "a/b", "/Imu", "/imu"];
    let file = topics_mcap(&topics);
    let dir = scratch("collide");
    let out = export_bytes(&file, &dir);
    let names = crate::names::TableNames::new(topics);
    let mut lower = std::collections::HashSet::new();
    for (i, topic) in topics.iter().enumerate() {
        let t = out.tables.iter().find(|t| t.topic == *topic).unwrap();
        assert_eq!(Some(t.name.as_str()), names.name(topic));
        assert!(lower.insert(t.name.to_lowercase()), "{}", t.name);
        // Each file holds its own topic's one message.
        assert_eq!(
            read(&dir, &format!("{}.csv", t.name)),
            format!("log_time_ns,publish_time_ns,i\n{i},{i},{i}\n")
        );
    }
    assert_eq!(names.name("/a_b"), Some("a_b"));
    assert_eq!(names.name("/Imu"), Some("Imu"));
    assert_eq!(files(&dir).len(), topics.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "mcap")]
#[test]
fn more_tables_than_open_files_are_written_in_several_passes() {
    let n = super::tables::MAX_OPEN_TABLES + 3;
    let topics: Vec<String> = (0..n).map(|i| format!("/t{i:03}")).collect();
    let file = topics_mcap(&topics);
    let log = crate::open_bytes(&file).unwrap();
    let dir = scratch("many");
    let mut last = Progress::default();
    let stats = export_csv(
        &log,
        &dir.join("in.mcap"),
        &dir,
        &ExportOptions::default(),
        &mut |p| last = p,
    )
    .unwrap();
    assert_eq!(stats.tables.len(), n);
    assert_eq!(files(&dir).len(), n);
    assert_eq!(
        read(&dir, &format!("t{:03}.csv", n - 1)),
        format!("log_time_ns,publish_time_ns,i\n{0},{0},{0}\n", n - 1)
    );
    // One pass for the columns, two for the rows.
    let size = file.len() as u64;
    assert_eq!(
        last,
        Progress {
            bytes: 3 * size,
            total_bytes: 3 * size,
            rows: n as u64,
            log: 0,
            logs: 1,
        }
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "mcap")]
#[test]
fn column_names_are_unique() {
    // A key with a dot beside a nested key of the same path, and a field
    // named as a time column.
    let file = json_mcap(&[br#"{"a.b": 1, "a": {"b": 2}, "log_time_ns": 3}"#]);
    let dir = scratch("unique");
    export_bytes(&file, &dir);
    assert_eq!(
        read(&dir, "odd_topic.csv"),
        "log_time_ns,publish_time_ns,a.b,a.b_,log_time_ns_\n1000,1005,1,2,3\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
