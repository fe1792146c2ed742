//! Nothing a log holds reaches the terminal as a control sequence: topic
//! and type names, metadata, ULog info, parameters and logged messages,
//! CARLA map and actor names, and names inside warnings and errors are
//! printed with control characters escaped (`\x1b`, `\u{9b}`), by every
//! command, and JSON output stays valid JSON that reads back to the names.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{robolog, scratch_dir};

/// Retitles the terminal, writes the clipboard (OSC 52), clears the
/// screen, and a C1 CSI: what a hostile log puts in its names.
const HOSTILE: &str = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\u{9b}31m";
/// [`HOSTILE`] as the text outputs show it.
const SHOWN: &str = r"\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\u{9b}31m";

/// `base` with the hostile sequences appended.
fn hostile(base: &str) -> String {
    format!("{base}{HOSTILE}")
}

/// Runs `robolog ARGS`.
fn run(args: &[&str], file: &Path) -> Output {
    robolog().args(args).arg(file).output().unwrap()
}

/// Asserts that neither stream of `out` holds ESC, BEL, another C0
/// control but newline and tab, DEL or a C1 control, and that both are
/// UTF-8.
fn assert_no_controls(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = std::str::from_utf8(bytes)
            .unwrap_or_else(|e| panic!("{what}: {stream} is not UTF-8: {e}"));
        let bad = text.chars().find(|&c| {
            (c.is_control() && c != '\n' && c != '\t') || ('\u{202a}'..='\u{202e}').contains(&c)
        });
        assert!(
            bad.is_none(),
            "{what}: {stream} holds {bad:?}:\n{}",
            text.escape_debug()
        );
    }
}

/// The combined text of both streams, after [`assert_no_controls`].
fn checked(what: &str, out: &Output) -> String {
    assert_no_controls(what, out);
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs a text command: no controls, and the escaped names are shown.
fn text_shows(args: &[&str], file: &Path) -> String {
    let what = format!("robolog {}", args.join(" "));
    let out = run(args, file);
    let text = checked(&what, &out);
    assert!(
        text.contains(SHOWN),
        "{what}: the escaped name is not shown:\n{text}"
    );
    text
}

/// Every string in the JSON `v`, keys included.
fn strings(v: &serde_json::Value, found: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => found.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, found)),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                found.push(k.clone());
                strings(x, found);
            }
        }
        _ => {}
    }
}

/// Runs a JSON command (one document per line): no controls, every line
/// parses, and the strings read back hold each of `names` exactly.
fn json_holds(args: &[&str], file: &Path, names: &[&str]) {
    let what = format!("robolog {}", args.join(" "));
    let out = run(args, file);
    assert_no_controls(&what, &out);
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {line}"));
        strings(&v, &mut found);
    }
    for name in names {
        assert!(
            found.iter().any(|s| s.contains(name)),
            "{what}: {:?} does not read back from {found:?}",
            name.escape_debug().to_string()
        );
    }
}

/// An MCAP file whose topic, schema name, channel metadata, metadata
/// record and message text are hostile.
fn hostile_mcap(dir: &Path) -> PathBuf {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let schema = w
        .add_schema(&hostile("T"), "jsonschema", br#"{"type":"object"}"#)
        .unwrap();
    let meta = BTreeMap::from([(hostile("key"), hostile("value"))]);
    let c = w
        .add_channel(schema, &hostile("/t"), "json", &meta)
        .unwrap();
    let text = serde_json::json!({ "text": hostile("msg") }).to_string();
    for i in 0..2u64 {
        w.write_message(c, 0, 1_000 + i, 1_000 + i, text.as_bytes())
            .unwrap();
    }
    w.write_metadata(&hostile("meta"), &meta).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let path = dir.join("hostile.mcap");
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A ROS bag whose topic and type names are hostile.
fn hostile_bag(dir: &Path) -> PathBuf {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let conn = Connection::new(
        0,
        hostile("/t"),
        hostile("pkg/T"),
        "da5909fbe378aeaf85e547e830cc1bb7",
        "int32 data",
    );
    let c = w.add_connection(conn).unwrap();
    for sec in [1, 2] {
        w.write(c, RosTime { sec, nsec: 0 }, &7i32.to_le_bytes())
            .unwrap();
    }
    w.finish().unwrap();
    let path = dir.join("hostile.bag");
    std::fs::write(&path, w.into_inner().into_inner()).unwrap();
    path
}

/// A ULog whose info key and value, parameter name and logged message
/// are hostile.
fn hostile_ulog(dir: &Path) -> PathBuf {
    let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
    w.add_info_str("sys_name", &hostile("sys")).unwrap();
    w.add_info_str(&hostile("ver_"), "x").unwrap();
    w.add_parameter(&hostile("P_"), &ulogfile::InfoValue::Int(3))
        .unwrap();
    w.add_format("m:uint64_t timestamp;int32_t v;").unwrap();
    let id = w.add_subscription("m", 0).unwrap();
    let mut s = 2_000u64.to_le_bytes().to_vec();
    s.extend_from_slice(&5i32.to_le_bytes());
    w.write_data(id, &s).unwrap();
    w.write_logging(b'6', 2_500, &hostile("logged ")).unwrap();
    let path = dir.join("hostile.ulg");
    std::fs::write(&path, w.finish().unwrap()).unwrap();
    path
}

/// A CARLA recording whose map name and actor blueprint are hostile.
fn hostile_carla(dir: &Path) -> PathBuf {
    use carla_recorder::packet::Packet;
    use carla_recorder::write::Writer;
    use carla_recorder::{EventAdd, FrameStart, InfoHeader, Vec3};
    let map = hostile("Town");
    let blueprint = hostile("vehicle.");
    let mut w = Writer::new(InfoHeader::new(0, map.as_bytes())).unwrap();
    let add = EventAdd {
        id: 7,
        type_code: 1,
        location: Vec3::default(),
        rotation: Vec3::default(),
        uid: 1,
        description_id: blueprint.as_bytes(),
        attributes: Vec::new(),
    };
    for (id, events) in [(1, vec![add]), (2, Vec::new())] {
        let start = FrameStart {
            id,
            duration: 0.05,
            elapsed: f64::from(id as u32) * 0.05,
        };
        w.frame(start, &[Packet::EventAdd(events)]).unwrap();
    }
    let path = dir.join("hostile.rec");
    std::fs::write(&path, w.finish()).unwrap();
    path
}

#[test]
fn mcap_names_and_metadata_are_escaped_in_every_command() {
    let dir = scratch_dir("terminal", "mcap");
    let file = hostile_mcap(&dir);
    let info = text_shows(&["info"], &file);
    assert!(info.contains(&format!("/t{SHOWN}")), "{info}");
    text_shows(&["mcap", "info"], &file);
    text_shows(&["cat"], &file);
    let names = [hostile("/t"), hostile("T"), hostile("msg")];
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    json_holds(&["info", "--json"], &file, &names[..2]);
    json_holds(&["cat", "--json"], &file, &names);
    // The check reports name the channel's topic.
    for args in [&["check"][..], &["mcap", "doctor"]] {
        let what = format!("robolog {}", args.join(" "));
        checked(&what, &run(args, &file));
    }
    json_holds(&["check", "--json"], &file, &[]);
}

#[test]
fn bag_names_are_escaped_in_every_command() {
    let dir = scratch_dir("terminal", "bag");
    let file = hostile_bag(&dir);
    let info = text_shows(&["info"], &file);
    assert!(info.contains(&format!("pkg/T{SHOWN}")), "{info}");
    text_shows(&["bag", "info"], &file);
    text_shows(&["bag", "info", "-y"], &file);
    text_shows(&["cat"], &file);
    checked("check", &run(&["check"], &file));
    json_holds(
        &["info", "--json"],
        &file,
        &[&hostile("/t"), &hostile("pkg/T")],
    );
    json_holds(&["cat", "--json"], &file, &[&hostile("/t")]);
    // Export names each file it writes, whose name comes from the topic.
    let out = robolog()
        .arg("export")
        .arg(&file)
        .arg("-o")
        .arg(dir.join("csv"))
        .output()
        .unwrap();
    checked("export", &out);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn ulog_info_params_and_logged_messages_are_escaped() {
    let dir = scratch_dir("terminal", "ulog");
    let file = hostile_ulog(&dir);
    text_shows(&["ulog", "info"], &file);
    text_shows(&["ulog", "info", "-v"], &file);
    let messages = text_shows(&["ulog", "messages"], &file);
    assert!(messages.contains(&format!("logged {SHOWN}")), "{messages}");
    text_shows(&["ulog", "params"], &file);
    text_shows(&["info"], &file);
    json_holds(
        &["info", "--json"],
        &file,
        &[&hostile("sys"), &hostile("ver_")],
    );
    checked("check", &run(&["check"], &file));
}

#[test]
fn carla_map_and_actor_names_are_escaped() {
    let dir = scratch_dir("terminal", "carla");
    let file = hostile_carla(&dir);
    let shown = text_shows(&["carla", "info", "--show-all"], &file);
    assert!(shown.contains(&format!("Town{SHOWN}")), "{shown}");
    assert!(shown.contains(&format!("vehicle.{SHOWN}")), "{shown}");
    for args in [&["carla", "collisions"][..], &["carla", "blocked"]] {
        text_shows(args, &file);
    }
    text_shows(&["info"], &file);
    checked("cat", &run(&["cat"], &file));
}

#[test]
fn sql_output_and_errors_are_escaped() {
    let dir = scratch_dir("terminal", "sql");
    let file = hostile_bag(&dir);
    text_shows(&["sql", "--schema"], &file);
    // `logs.tables` maps each table to its topic.
    for format in ["table", "csv"] {
        let out = robolog()
            .args(["sql", "SELECT tables FROM logs", "--format", format])
            .arg(&file)
            .output()
            .unwrap();
        let text = checked(&format!("sql --format {format}"), &out);
        assert!(text.contains(r"\u001b]0;pwned"), "{text}");
    }
    let out = robolog()
        .args(["sql", "SELECT tables FROM logs", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert_no_controls("sql --format json", &out);
    let row: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tables: BTreeMap<String, String> =
        serde_json::from_str(row["tables"].as_str().unwrap()).unwrap();
    assert!(tables.values().any(|t| *t == hostile("/t")), "{tables:?}");
    // A damaged log found in a folder, whose name is hostile: the error
    // names it, escaped.
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let bad = logs.join(hostile("bad") + ".mcap");
    std::fs::write(&bad, b"\x89MCAP0\r\n\x01\xff\xff\xff").unwrap();
    let out = robolog()
        .args(["sql", "SELECT * FROM logs"])
        .arg(&logs)
        .output()
        .unwrap();
    let text = checked("sql over a damaged log", &out);
    assert!(text.contains(&format!("bad{SHOWN}.mcap")), "{text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
}

#[test]
fn errors_naming_a_hostile_name_are_escaped() {
    // A bag whose definition does not parse: the error names the type.
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let dir = scratch_dir("terminal", "errors");
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let def = format!("{} data", hostile("pkg/Nope"));
    let conn = Connection::new(0, "/t", hostile("pkg/T"), "*", &def);
    let c = w.add_connection(conn).unwrap();
    w.write(c, RosTime { sec: 1, nsec: 0 }, &[1, 2, 3]).unwrap();
    w.finish().unwrap();
    let file = dir.join("bad-definition.bag");
    std::fs::write(&file, w.into_inner().into_inner()).unwrap();
    for args in [&["info"][..], &["cat"], &["check"], &["bag", "info"]] {
        let what = format!("robolog {}", args.join(" "));
        let out = run(args, &file);
        checked(&what, &out);
    }
    let wanted = format!("expected a valid definition of pkg/T{SHOWN}");
    for args in [&["cat"][..], &["check"]] {
        let out = run(args, &file);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&wanted), "{args:?}: {stderr}");
    }
    json_holds(&["check", "--json"], &file, &[&hostile("pkg/T")]);
}
