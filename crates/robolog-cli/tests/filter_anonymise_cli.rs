//! `robolog filter --anonymise`, `--gps-offset` and `--drop-text`
//! against independent readings: pyulog reads every anonymised ULog file
//! (no damage, the same samples) and its positions are the input's moved
//! by one offset (the chosen one, or one random offset shared by every
//! position of the log); rosbags reads anonymised bags the same way.
//! No identifier of the input (ULog `sys_uuid`, a bag's callerids, MCAP
//! metadata) and not the offset appear anywhere in the output's bytes.
//! The reference tools' Python (`target/interop-venv`) and the corpus are
//! skipped when absent.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{corpus, robolog, scratch_dir, text};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `robolog filter ARGS`, asserting exit code 0; its stderr (where
/// the report goes).
fn filter_ok(args: &[&str]) -> String {
    let out = robolog().arg("filter").args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stderr)
}

/// Whether `needle` occurs in `hay`, ASCII case ignored.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Runs `filter_anonymise_pyulog.py`: the offset (1e-7 degrees) and the positions
/// moved, or `None` without pyulog.
fn pyulog_anon(input: &Path, output: &Path, offset: Option<(i64, i64)>) -> Option<(i64, i64, u64)> {
    let py = robolog_testkit::python_with("PYULOG_PYTHON")?;
    let mut cmd = Command::new(py);
    cmd.arg(script("filter_anonymise_pyulog.py"))
        .args([s(input), s(output)]);
    match offset {
        Some((a, b)) => cmd.args([a.to_string(), b.to_string()]),
        None => cmd.arg("random"),
    };
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        output.display(),
        text(&out.stderr)
    );
    let v: Vec<i64> = text(&out.stdout)
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    Some((v[0], v[1], v[2] as u64))
}

/// The text values of a ULog file's identifying information (as the
/// anonymisation names them).
fn ulog_identifiers(bytes: &[u8]) -> Vec<String> {
    let log = ulogfile::ULog::parse(bytes).unwrap();
    log.info
        .iter()
        .filter(|(k, _)| robolog::convert::is_identifier(k) || k.ends_with("_id"))
        .filter_map(|(_, v)| v.value.as_str().map(str::to_string))
        .filter(|v| v.len() >= 6)
        .collect()
}

/// Whether the offset (1e-7 degrees) is written in `bytes` in any form a
/// position field holds it: `int32_t` 1e-7 degrees, `double` degrees.
fn offset_written(bytes: &[u8], (lat, lon): (i64, i64)) -> bool {
    let forms: Vec<Vec<u8>> = vec![
        (lat as i32).to_le_bytes().to_vec(),
        (lon as i32).to_le_bytes().to_vec(),
        (lat as f64 / 1e7).to_le_bytes().to_vec(),
        (lon as f64 / 1e7).to_le_bytes().to_vec(),
    ];
    forms
        .iter()
        .any(|f| bytes.windows(f.len()).any(|w| w == &f[..]))
}

fn ulog_files() -> Vec<PathBuf> {
    let Some(dir) = corpus("ulog") else {
        return Vec::new();
    };
    [
        "pyulog/sample_log_small.ulg",
        "pyulog/sample_appended.ulg",
        "pyulog/sample_px4_events.ulg",
        "pyulog/sample_logging_tagged_and_default_params.ulg",
        "px4-ulog-rs/esc_status_log.ulg",
        "px4-ulog-rs/6ba1abc7-b433-4029-b8f5-3b2bb12d3b6c.ulg",
    ]
    .iter()
    .map(|p| dir.join(p))
    .filter(|p| p.exists())
    .collect()
}

#[test]
fn anonymised_ulogs_read_fully_with_positions_moved_and_no_identifier() {
    let dir = scratch_dir("filter-anon", "ulog");
    let mut moved_any = false;
    for input in ulog_files() {
        let name = input.file_stem().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&input).unwrap();
        let ids = ulog_identifiers(&bytes);

        // A random offset.
        let out = dir.join(format!("{name}.anon.ulg"));
        let report = filter_ok(&[s(&input), s(&out), "--anonymise", "--drop-text"]);
        let written = std::fs::read(&out).unwrap();
        for id in &ids {
            assert!(
                contains(&bytes, id.as_bytes()),
                "{name}: {id} is in the input"
            );
            assert!(
                !contains(&written, id.as_bytes()),
                "{name}: {id} is in the output"
            );
            assert!(!report.contains(id.as_str()));
        }
        if !ids.is_empty() {
            assert!(
                report.contains("identifiers left out: sys_uuid"),
                "{report}"
            );
        }
        // PX4's sensor device ids are zeroed (pyulog reads them as 0 below).
        let params = ulogfile::ULog::parse(&bytes).unwrap().initial_parameters;
        if params
            .get("CAL_ACC0_ID")
            .is_some_and(|v| v.as_i64() != Some(0))
        {
            assert!(report.contains("CAL_ACC0_ID (zeroed)"), "{report}");
        }
        let log = ulogfile::ULog::parse(&written).unwrap();
        assert!(log.logged_messages.is_empty() && log.tagged_messages.is_empty());
        assert!(!log.info.contains_key("sys_uuid"));
        let read = pyulog_anon(&input, &out, None);
        if read.is_none() {
            moved_any = true; // nothing to tell without pyulog
        }
        if let Some((lat, lon, n)) = read
            && n > 0
        {
            moved_any = true;
            assert!(
                (10_000_000..50_000_000).contains(&lat.abs()),
                "{name}: {lat}"
            );
            assert!(
                (10_000_000..100_000_000).contains(&lon.abs()),
                "{name}: {lon}"
            );
            assert!(
                !offset_written(&written, (lat, lon)),
                "{name}: the offset is written"
            );
            assert!(report.contains("positions moved"), "{report}");
            assert!(!report.contains(&lat.to_string()), "{report}");
        }

        // A chosen offset: integer positions move by exactly it.
        let out = dir.join(format!("{name}.offset.ulg"));
        filter_ok(&[s(&input), s(&out), "--gps-offset", "-1.25,2.5"]);
        let written = std::fs::read(&out).unwrap();
        let log = ulogfile::ULog::parse(&written).unwrap();
        // Only positions: the identifiers and text stay.
        assert_eq!(
            log.info.contains_key("sys_uuid"),
            ulogfile::ULog::parse(&bytes)
                .unwrap()
                .info
                .contains_key("sys_uuid")
        );
        pyulog_anon(&input, &out, Some((-12_500_000, 25_000_000)));
    }
    if !ulog_files().is_empty() {
        assert!(moved_any, "some corpus log has positions");
    }
}

/// A ROS 1 `sensor_msgs/NavSatFix` payload.
fn navsatfix(seq: u32, lat: f64, lon: f64) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&seq.to_le_bytes());
    p.extend_from_slice(&(1_700_000_000 + seq).to_le_bytes());
    p.extend_from_slice(&0u32.to_le_bytes());
    p.extend_from_slice(&3u32.to_le_bytes());
    p.extend_from_slice(b"gps");
    p.push(0);
    p.extend_from_slice(&1u16.to_le_bytes());
    for v in [lat, lon, 431.5] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    for i in 0..9 {
        p.extend_from_slice(&f64::from(i).to_le_bytes());
    }
    p.push(2);
    p
}

/// A bag of NavSatFix messages (one without a fix) from a node whose
/// callerid names its host, and an IMU-free counter topic.
fn gps_bag() -> Vec<u8> {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let (def, md5) = robolog::encode::ros1_standard_definition("sensor_msgs/NavSatFix").unwrap();
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let mut fix = Connection::new(0, "/fix", "sensor_msgs/NavSatFix", md5, def);
    let caller = |c: &mut Connection, id: &str| {
        c.callerid = Some(id.into());
        c.header.push(("callerid".into(), id.as_bytes().to_vec()));
    };
    caller(&mut fix, "/ublox_on_fieldbot-7.example.org");
    let fix = w.add_connection(fix).unwrap();
    let mut count = Connection::new(
        1,
        "/count",
        "std_msgs/Int32",
        "da5909fbe378aeaf85e547e830cc1bb7",
        "int32 data",
    );
    caller(&mut count, "/counter_on_fieldbot-7.example.org");
    let count = w.add_connection(count).unwrap();
    for i in 0..20u32 {
        let t = RosTime {
            sec: 1_700_000_000 + i,
            nsec: 0,
        };
        let (lat, lon) = if i == 5 {
            (0.0, 0.0)
        } else {
            (
                47.397_742 + f64::from(i) * 1e-5,
                8.545_594 - f64::from(i) * 1e-5,
            )
        };
        w.write(fix, t, &navsatfix(i, lat, lon)).unwrap();
        w.write(count, t, &(i as i32).to_le_bytes()).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

fn rosbags_read(path: &Path) -> Option<serde_json::Value> {
    let py = robolog_testkit::python_with("ROSBAGS_PYTHON")?;
    let out = Command::new(py)
        .arg(script("filter_anonymise_rosbags.py"))
        .args([s(path)])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn anonymised_bags_read_with_rosbags() {
    let dir = scratch_dir("filter-anon", "bag");
    let input = dir.join("gps.bag");
    std::fs::write(&input, gps_bag()).unwrap();
    let bytes = std::fs::read(&input).unwrap();
    assert!(contains(&bytes, b"fieldbot-7"));
    for (offset, args) in [
        (
            Some((0.75, -1.5)),
            vec!["--anonymise", "--gps-offset", "0.75,-1.5"],
        ),
        (None, vec!["--anonymise"]),
    ] {
        let out = dir.join(format!("anon-{}.bag", offset.is_some()));
        let mut all = vec![s(&input), s(&out)];
        all.extend(args);
        let report = filter_ok(&all);
        assert!(report.contains("callerid left out of 2"), "{report}");
        assert!(
            report.contains("/fix: 19 messages (1 without a position, unchanged)"),
            "{report}"
        );
        let written = std::fs::read(&out).unwrap();
        assert!(
            !contains(&written, b"fieldbot-7"),
            "a callerid is in the output"
        );
        let Some(a) = rosbags_read(&input) else {
            continue;
        };
        let b = rosbags_read(&out).unwrap();
        assert!(
            b["callerids"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c.is_null())
        );
        let (am, bm) = (
            a["messages"].as_array().unwrap(),
            b["messages"].as_array().unwrap(),
        );
        assert_eq!(am.len(), bm.len());
        let mut found = None;
        for (x, y) in am.iter().zip(bm) {
            assert_eq!((&x[0], &x[1]), (&y[0], &y[1]));
            if x[0] != "/fix" {
                assert_eq!(x[3], y[3], "other topics byte for byte");
                continue;
            }
            let f = |v: &serde_json::Value, i: usize| v[2][i].as_f64().unwrap();
            assert_eq!((f(x, 2), &x[2][3]), (f(y, 2), &y[2][3]));
            if f(x, 0) == 0.0 && f(x, 1) == 0.0 {
                assert_eq!((f(y, 0), f(y, 1)), (0.0, 0.0), "no fix stays");
                continue;
            }
            let d = (f(y, 0) - f(x, 0), f(y, 1) - f(x, 1));
            let d0 = *found.get_or_insert(d);
            assert!((d.0 - d0.0).abs() < 1e-9 && (d.1 - d0.1).abs() < 1e-9);
        }
        let d = found.unwrap();
        match offset {
            Some((lat, lon)) => {
                assert!(
                    (d.0 - lat).abs() < 1e-9 && (d.1 - lon).abs() < 1e-9,
                    "{d:?}"
                );
            }
            None => {
                assert!((1.0..5.0).contains(&d.0.abs()) && (1.0..10.0).contains(&d.1.abs()));
                let lat = (d.0 * 1e7).round() as i64;
                let lon = (d.1 * 1e7).round() as i64;
                assert!(!offset_written(&written, (lat, lon)));
            }
        }
    }
}

#[test]
fn drop_text_leaves_out_rosout_and_mcap_metadata_identifiers_go() {
    let dir = scratch_dir("filter-anon", "mcap");
    if let Some(bag) = corpus("rosbag/rosbagjs-example.bag") {
        let out = dir.join("quiet.bag");
        let report = filter_ok(&[s(&bag), s(&out), "--drop-text"]);
        assert!(
            report.contains("topics of logged text left out: /rosout"),
            "{report}"
        );
        let b = rosbag12::Bag::new(std::fs::read(&out).unwrap().leak()).unwrap();
        assert!(b.connections().iter().all(|c| c.topic != "/rosout"));
        // Only text: callerids stay.
        assert!(b.connections().iter().any(|c| c.callerid.is_some()));
    }
    // An MCAP file with identifying metadata and a JSON channel of
    // positions.
    let input = dir.join("meta.mcap");
    {
        let mut w =
            mcapfile::Writer::new(std::fs::File::create(&input).unwrap(), Default::default())
                .unwrap();
        let meta = |kv: &[(&str, &str)]| -> BTreeMap<String, String> {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        w.write_metadata(
            "robot",
            &meta(&[("serial", "SN-99812345"), ("site", "north field")]),
        )
        .unwrap();
        w.write_metadata("hostname", &meta(&[("name", "fieldbot-7")]))
            .unwrap();
        w.write_attachment(1, 1, "calib.yaml", "text/yaml", b"fx: 500")
            .unwrap();
        w.write_attachment(2, 2, "robot_serial.txt", "text/plain", b"SN-4471122")
            .unwrap();
        let schema = w
            .add_schema("fix", "jsonschema", br#"{"type":"object"}"#)
            .unwrap();
        let ch = w
            .add_channel(
                schema,
                "/gps",
                "json",
                &meta(&[("callerid", "/gps_on_fieldbot-7"), ("frame", "map")]),
            )
            .unwrap();
        for i in 0..5u64 {
            let m = format!(
                r#"{{"t":{i},"lat":473977420,"lon":85455940,"fix":{{"latitude":47.5,"longitude":8.25}}}}"#
            );
            w.write_message(ch, i as u32, i, i, m.as_bytes()).unwrap();
        }
        w.finish().unwrap();
    }
    let out = dir.join("anon.mcap");
    let report = filter_ok(&[s(&input), s(&out), "--anonymise", "--gps-offset", "1,-2"]);
    assert!(
        report.contains("metadata left out: robot.serial, hostname, attachment robot_serial.txt"),
        "{report}"
    );
    let written = std::fs::read(&out).unwrap();
    for id in ["SN-99812345", "fieldbot-7", "SN-4471122", "robot_serial"] {
        assert!(!contains(&written, id.as_bytes()), "{id}");
    }
    let mut records = Vec::new();
    let mut messages = Vec::new();
    let mut attachments = Vec::new();
    for r in mcapfile::LinearReader::new(&written) {
        match r.unwrap() {
            mcapfile::Record::Metadata(m) => records.push((m.name.to_string(), m.metadata.clone())),
            mcapfile::Record::Message(m) => messages.push(m.data.to_vec()),
            mcapfile::Record::Attachment(a) => {
                attachments.push((a.name.to_string(), a.data.to_vec()))
            }
            mcapfile::Record::Channel(c) => {
                assert_eq!(c.metadata.keys().collect::<Vec<_>>(), ["frame"]);
            }
            _ => {}
        }
    }
    assert_eq!(
        attachments,
        [("calib.yaml".to_string(), b"fx: 500".to_vec())]
    );
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].0, "robot");
    assert_eq!(records[0].1.keys().collect::<Vec<_>>(), ["site"]);
    assert_eq!(messages.len(), 5);
    let v: serde_json::Value = serde_json::from_slice(&messages[0]).unwrap();
    assert_eq!(
        (v["lat"].as_i64(), v["lon"].as_i64()),
        (Some(483_977_420), Some(65_455_940))
    );
    assert_eq!(
        (
            v["fix"]["latitude"].as_f64(),
            v["fix"]["longitude"].as_f64()
        ),
        (Some(48.5), Some(6.25))
    );
}

#[test]
fn a_config_file_anonymises_as_the_flags_do() {
    let dir = scratch_dir("filter-anon", "config");
    let input = dir.join("gps.bag");
    std::fs::write(&input, gps_bag()).unwrap();
    let config = dir.join("share.toml");
    std::fs::write(&config, "anonymise = true\ngps_offset = [0.75, -1.5]\n").unwrap();
    let (a, b) = (dir.join("flags.bag"), dir.join("file.bag"));
    filter_ok(&[s(&input), s(&a), "--anonymise", "--gps-offset", "0.75,-1.5"]);
    let report = filter_ok(&[s(&input), s(&b), "--config", s(&config)]);
    assert!(report.contains("positions moved"), "{report}");
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

/// The path of a Python script beside these tests (run with the
/// reference tools' Python).
fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The count of an anonymisation line (`...: /fix: 19 messages`, maybe
/// followed by a note in brackets).
fn moved_count(line: &str) -> u64 {
    line.split(" messages")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line:?}"))
}

/// A split output says what was anonymised in each part, led by the
/// part's file name; the parts' counts add up to the whole output's.
#[test]
fn a_split_output_reports_each_parts_anonymisation() {
    let dir = scratch_dir("filter-anonymise", "split");
    let bag = dir.join("gps.bag");
    std::fs::write(&bag, gps_bag()).unwrap();
    let whole = filter_ok(&[s(&bag), s(&dir.join("whole.mcap")), "--anonymise"]);
    let whole: Vec<&str> = whole
        .lines()
        .filter(|l| l.contains("positions moved"))
        .collect();
    assert_eq!(whole.len(), 1, "{whole:?}");
    let said = filter_ok(&[
        s(&bag),
        s(&dir.join("part.mcap")),
        "--anonymise",
        "--split-every",
        "10s",
    ]);
    let lines: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("positions moved"))
        .collect();
    assert_eq!(lines.len(), 2, "{said}");
    assert!(lines[0].contains(": part_000.mcap: positions moved by the log's offset: /fix: "));
    assert!(lines[1].contains(": part_001.mcap: positions moved by the log's offset: /fix: "));
    let sum: u64 = lines.iter().map(|l| moved_count(l)).sum();
    assert_eq!(sum, moved_count(whole[0]));
    assert_eq!(sum, 19, "the 20 fixes but the one without a position");
}
