//! ROS 2 logs to ROS 1 bags (`to_bag` of a rosbag2 bag or a ROS 2 MCAP
//! file), checked three ways:
//!
//! - against rosbags: for every log of the corpus (the rosbag2 folders of
//!   `../shared/corpus/rosbag2` and the MCAP files of
//!   `../shared/corpus/ros2-mcap`, or under `$ROBOLOG_CORPUS`; skipped when
//!   absent) that `rosbags-convert --src LOG --dst out.bag` converts, our
//!   bag's connections (topic, type, md5sum, definition, latching) are
//!   those of rosbags-convert's bag, and rosbags reads the same values
//!   (every field, bit for bit, and every time) from both (the script
//!   `ros2to1_rosbags.py`, run with the Python of rosbags 0.11.9:
//!   `$ROSBAGS_PYTHON`, else the checkout's `target/interop-venv`; skipped
//!   when absent);
//! - ROS 1 -> ROS 2 -> ROS 1 over the ROS 1 corpus and testdata's bags:
//!   every value of the mapped types is kept (decoded through
//!   `robolog::open_bytes`); what differs is stated in
//!   [`round_trip_keeps_every_value`];
//! - damage: a truncated CDR payload is skipped and listed with its byte
//!   offset, the rest converted.
#![cfg(all(
    feature = "rosbag",
    feature = "ros2",
    feature = "rosbag2",
    feature = "mcap"
))]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;

use logcore::{LogReader, MessageFilter, ReadMode, Value};
use robolog::convert::{ConvertOptions, ConvertStats, to_bag, to_mcap};
use serde_json::Value as Json;

/// The ROS 2 logs of the corpus: rosbag2 folders and ROS 2 MCAP files.
fn ros2_logs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(root) = common::corpus("rosbag2") {
        for kind in ["sqlite3", "mcap"] {
            for e in std::fs::read_dir(root.join(kind)).unwrap().flatten() {
                if e.path().join("metadata.yaml").is_file() {
                    out.push(e.path());
                }
            }
        }
    }
    if let Some(root) = common::corpus("ros2-mcap") {
        for e in std::fs::read_dir(root).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "mcap") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// The log at `path` converted to a bag.
fn convert_path(path: &Path) -> (Vec<u8>, ConvertStats) {
    let log = robolog::open(path).unwrap();
    let (bag, stats) = to_bag(
        &log,
        Cursor::new(Vec::new()),
        &ConvertOptions::for_bag(),
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (bag.into_inner(), stats)
}

/// A bag's connections: topic -> (type, md5sum, definition, latching).
fn connections(bag: &[u8]) -> BTreeMap<String, (String, String, String, String)> {
    let bag = rosbag12::Bag::new(bag).unwrap();
    bag.connections()
        .iter()
        .map(|c| {
            let latching = c
                .field("latching")
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .unwrap_or_default();
            (
                c.topic.clone(),
                (
                    c.type_name.clone(),
                    c.md5sum.clone(),
                    c.message_definition.clone(),
                    latching,
                ),
            )
        })
        .collect()
}

/// Sorted by topic and time, keeping the order of equal ones.
fn sorted(mut v: Vec<Json>) -> Vec<Json> {
    v.sort_by(|a, b| (a[0].as_str(), a[1].as_i64()).cmp(&(b[0].as_str(), b[1].as_i64())));
    v
}

/// The first difference of two messages lists.
fn first_difference(a: &[Json], b: &[Json]) -> String {
    if a.len() != b.len() {
        return format!("{} messages against {}", a.len(), b.len());
    }
    let i = a.iter().zip(b).position(|(x, y)| x != y).unwrap();
    format!("message {i}:\n ours   {}\n theirs {}", a[i], b[i])
}

/// Converts `src` with us and, through the script, with rosbags-convert:
/// the number of messages compared, `None` when rosbags-convert refuses
/// the log.
fn compare(py: &Path, src: &Path, work: &Path) -> Option<usize> {
    let name = src
        .strip_prefix(src.parent()?.parent()?)
        .unwrap()
        .to_string_lossy()
        .replace('/', "_");
    let dir = work.join(&name);
    std::fs::create_dir_all(&dir).unwrap();
    let (bag, stats) = convert_path(src);
    for w in &stats.warnings {
        eprintln!("{name}: warning: {w}");
    }
    for s in &stats.skipped {
        eprintln!("{name}: skipped: {s}");
    }
    let ours = dir.join("ours.bag");
    std::fs::write(&ours, &bag).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ros2to1_rosbags.py");
    let out = Command::new(py)
        .arg(&script)
        .arg(src)
        .arg(&dir)
        .arg(&ours)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reply: Json = serde_json::from_slice(&out.stdout).unwrap();
    if let Some(why) = reply.get("skip") {
        eprintln!("note: {name}: rosbags-convert refuses it ({why}); not compared");
        return None;
    }
    if stats
        .skipped
        .iter()
        .any(|s| s.contains("message encoding \"wrong_format\""))
    {
        // rosbags reads an MCAP channel's payloads as CDR whatever its
        // message encoding says; we leave such channels out.
        eprintln!("note: {name}: channels of another encoding than cdr; not compared");
        return None;
    }
    assert!(stats.skipped.is_empty(), "{name}: {:?}", stats.skipped);
    let theirs_bag = std::fs::read(dir.join("rosbags.bag")).unwrap();
    // Where the log stores no definition, ours come from the bundled
    // (humble, jazzy) definitions and rosbags' from its foxy store, which
    // differ for some types (`rcl_interfaces/Log`'s constants are `byte`
    // in foxy): those connections are not compared.
    let bundled: BTreeSet<String> = robolog::open(src)
        .unwrap()
        .channels()
        .unwrap()
        .into_iter()
        .filter(|c| {
            c.metadata
                .get("definition_source")
                .is_some_and(|s| s != "bag")
        })
        .map(|c| c.topic)
        .collect();
    let mut want = connections(&theirs_bag);
    let mut have = connections(&bag);
    want.retain(|t, _| !bundled.contains(t));
    // A type of nothing has the definition "\n" as ROS 1 writes it, where
    // rosbags writes "".
    for (_, (_, _, text, _)) in want.iter_mut() {
        if text.is_empty() {
            text.push('\n');
        }
    }
    have.retain(|t, _| !bundled.contains(t));
    assert_eq!(have, want, "{name}");
    let theirs = sorted(reply["theirs"].as_array().unwrap().clone());
    let by_rosbags = reply["ours"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: rosbags cannot read our bag: {}", reply["ours"]));
    let by_rosbags = sorted(by_rosbags.clone());
    assert_eq!(by_rosbags.len() as u64, stats.messages, "{name}");
    assert!(
        by_rosbags == theirs,
        "{name}: {}",
        first_difference(&by_rosbags, &theirs)
    );
    Some(theirs.len())
}

#[test]
fn values_and_connections_equal_rosbags_convert() {
    let logs = ros2_logs();
    let Some(py) = common::rosbags_python() else {
        // Every log converts all the same.
        for l in &logs {
            convert_path(l);
        }
        return;
    };
    let work = std::env::temp_dir().join(format!("robolog-ros2to1-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let (mut compared, mut messages) = (0, 0);
    for l in &logs {
        if let Some(n) = compare(&py, l, &work) {
            compared += 1;
            messages += n;
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "{compared} of {} logs compared, {messages} messages",
        logs.len()
    );
    if !logs.is_empty() {
        assert!(compared >= 5 && messages > 100, "{compared} {messages}");
    }
}

/// The decoded ROS 1 value `v` with the `seq` of its Headers set to 0
/// where the ROS 2 value `like` of the same message has none (a ROS 2
/// `std_msgs/Header`; a ROS 1 `roslib/Header` maps to a ROS 2 type of its
/// own, seq kept).
fn zero_seq(v: &Value, like: &Value) -> Value {
    map_seq(v, like, |_| Some(Value::U64(0)), false)
}

/// The decoded ROS 1 value `v` in the form the ROS 2 decoder gives the
/// ROS 2 value `like` of the same message: Headers without the seq that
/// `like` does not have, times and durations as `builtin_interfaces`
/// structs (`sec`, `nanosec`: the same bits), and `byte` values, which
/// ROS 1 reads as signed and ROS 2 as unsigned, as unsigned octets.
fn ros2_form(v: &Value, like: &Value) -> Value {
    let v = map_seq(v, like, |_| None, true);
    times(&v)
}

/// `v` with each Header seq that `like` does not have replaced by what
/// `f` gives (`None`: dropped), and with `octets`, each signed integer of
/// 8 bits where `like` has an unsigned one as that unsigned octet.
fn map_seq(v: &Value, like: &Value, f: fn(&Value) -> Option<Value>, octets: bool) -> Value {
    match (v, like) {
        (Value::Struct(fs), Value::Struct(ls)) => {
            let names = |x: &[(logcore::FieldName, Value)]| {
                x.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>()
            };
            if fs.len() == ls.len() + 1 && fs[0].0 == "seq" && names(&fs[1..]) == names(ls) {
                let mut out: Vec<_> = f(&fs[0].1)
                    .map(|x| (fs[0].0.clone(), x))
                    .into_iter()
                    .collect();
                out.extend(
                    fs[1..]
                        .iter()
                        .zip(ls)
                        .map(|((n, x), (_, l))| (n.clone(), map_seq(x, l, f, octets))),
                );
                Value::Struct(out)
            } else if fs.len() == ls.len() {
                Value::Struct(
                    fs.iter()
                        .zip(ls)
                        .map(|((n, x), (_, l))| (n.clone(), map_seq(x, l, f, octets)))
                        .collect(),
                )
            } else {
                v.clone()
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => Value::Array(
            a.iter()
                .zip(b)
                .map(|(x, l)| map_seq(x, l, f, octets))
                .collect(),
        ),
        (Value::I64(i), Value::U64(_)) if octets && (-128..128).contains(i) => {
            Value::U64(u64::from(*i as i8 as u8))
        }
        _ => v.clone(),
    }
}

/// `v` with every float as its bits (so that NaN equals NaN, and -0.0
/// differs from 0.0).
fn bits(v: &Value) -> Value {
    match v {
        Value::F32(x) => Value::String(format!("f32:{:08x}", x.to_bits())),
        Value::F64(x) => Value::String(format!("f64:{:016x}", x.to_bits())),
        Value::F32Array(a) => Value::Array(a.iter().map(|x| bits(&Value::F32(*x))).collect()),
        Value::F64Array(a) => Value::Array(a.iter().map(|x| bits(&Value::F64(*x))).collect()),
        Value::Struct(fs) => Value::Struct(fs.iter().map(|(n, x)| (n.clone(), bits(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(bits).collect()),
        other => other.clone(),
    }
}

/// `v` with times and durations as `builtin_interfaces` holds them: the
/// seconds of a ROS 1 time (uint32) in an int32, so that times past 2038
/// wrap as the conversion writes them.
fn times(v: &Value) -> Value {
    match v {
        Value::Struct(fs) => Value::Struct(fs.iter().map(|(n, x)| (n.clone(), times(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(times).collect()),
        Value::Time(t) => {
            let ns = t.as_nanos();
            let sec = i64::from((ns / 1_000_000_000) as u32 as i32);
            Value::Time(logcore::Timestamp(sec * 1_000_000_000 + ns % 1_000_000_000))
        }
        other => other.clone(),
    }
}

/// Every message of the log `bytes`: topic, time, type and decoded value
/// (read leniently: the damaged bags of testdata have messages past their
/// damage, which the conversions keep too).
fn decoded(bytes: &[u8]) -> Vec<(String, i64, String, Value)> {
    let log = robolog::open_bytes(bytes).unwrap();
    let channels: BTreeMap<_, _> = log
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| (c.id, (c.topic, c.type_name)))
        .collect();
    let filter = MessageFilter::all().mode(ReadMode::Lenient);
    let mut out: Vec<_> = log
        .messages(&filter)
        .unwrap()
        .filter_map(Result::ok)
        .map(|m| {
            let v = log.decode(&m).unwrap_or_else(|e| panic!("{e}"));
            let (topic, ty) = channels[&m.channel].clone();
            (topic, m.log_time.as_nanos(), ty, v)
        })
        .collect();
    out.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    out
}

/// The ROS 1 bags of the corpus and testdata.
fn ros1_bags() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let testdata = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/rosbag");
    for dir in common::corpus("rosbag").into_iter().chain([testdata]) {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "bag") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// ROS 1 -> ROS 2 (`to_mcap` with `ros2`) -> ROS 1 (`to_bag`) keeps every
/// value of the mapped types. What differs, exactly: the Header's `seq`
/// is 0; `tf/tfMessage` is named `tf2_msgs/TFMessage`; and the types whose
/// ROS 1 -> ROS 2 mapping is not one to one (listed in that conversion's
/// warnings, such as `sensor_msgs/CameraInfo`, whose `D`, `K`, `R`, `P`
/// are `d`, `k`, `r`, `p` in ROS 2) keep the ROS 2 field names and
/// values, so they are compared with the ROS 2 values instead. Everything
/// else, every field and every time, is equal; and the ROS 2 values of
/// every type equal the final ROS 1 ones (seq aside).
#[test]
fn round_trip_keeps_every_value() {
    let bags = ros1_bags();
    assert!(bags.len() >= 5, "{bags:?}");
    let (mut messages, mut kept_whole) = (0usize, 0usize);
    for path in &bags {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(path).unwrap();
        let log = robolog::open_bytes(&original).unwrap();
        let ros2 = ConvertOptions {
            ros2: true,
            ..ConvertOptions::default()
        };
        let (mcap, s2) = to_mcap(&log, Vec::new(), &ros2, &mut |_| {}).unwrap();
        let log2 = robolog::open_bytes(&mcap).unwrap();
        let (back, s1) = to_bag(
            &log2,
            Cursor::new(Vec::new()),
            &ConvertOptions::for_bag(),
            &mut |_| {},
        )
        .unwrap();
        let back = back.into_inner();
        assert!(s1.skipped.is_empty(), "{name}: {:?}", s1.skipped);
        assert_eq!(s1.messages, s2.messages, "{name}");
        // Types whose fields the ROS 1 -> ROS 2 mapping changed.
        let changed: BTreeSet<String> = s2
            .warnings
            .iter()
            .filter_map(|w| w.split(" to ").next())
            .map(str::to_string)
            .collect();
        let a = decoded(&original);
        let b = decoded(&mcap);
        let c = decoded(&back);
        assert_eq!(a.len(), c.len(), "{name}");
        assert_eq!(b.len(), c.len(), "{name}");
        for ((x, y), z) in a.iter().zip(&b).zip(&c) {
            assert_eq!((&x.0, x.1), (&z.0, z.1), "{name}");
            let want_type = match x.2.as_str() {
                "tf/tfMessage" => "tf2_msgs/TFMessage",
                t => t,
            };
            assert_eq!(z.2, want_type, "{name}");
            // ROS 2 -> ROS 1: the same values (time structs as times), and
            // a seq of 0.
            let at = || format!("{name} {} at {}", z.0, z.1);
            assert_eq!(bits(&ros2_form(&z.3, &y.3)), bits(&y.3), "{}", at());
            assert_eq!(bits(&zero_seq(&z.3, &y.3)), bits(&z.3), "{}", at());
            if !changed.iter().any(|t| depends_on(&original, &x.0, t)) {
                assert_eq!(bits(&zero_seq(&x.3, &y.3)), bits(&z.3), "{}", at());
                kept_whole += 1;
            }
            messages += 1;
        }
    }
    eprintln!("{messages} messages round-tripped, {kept_whole} equal to the original");
    assert!(messages > 1000 && kept_whole > messages / 2);
}

/// Whether the connection of `topic` in the bag `bag` uses the ROS 1 type
/// `ty` (its definition has it, or it is it).
fn depends_on(bag: &[u8], topic: &str, ty: &str) -> bool {
    let bag = rosbag12::Bag::new(bag).unwrap();
    bag.connections()
        .iter()
        .filter(|c| c.topic == topic)
        .any(|c| c.type_name == ty || c.message_definition.contains(&format!("MSG: {ty}\n")))
}

#[test]
fn truncated_payload_is_skipped_with_its_offset() {
    // Two std_msgs/String messages and a Header one, the second String
    // cut short: its length says 10 bytes, 3 follow.
    let mut w = mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).unwrap();
    let s = w
        .add_schema("std_msgs/msg/String", "ros2msg", b"string data\n")
        .unwrap();
    let mut meta = BTreeMap::new();
    meta.insert("offered_qos_profiles".to_string(), "[]".to_string());
    let c = w.add_channel(s, "/text", "cdr", &meta).unwrap();
    let cdr = |text: &[u8], declared: u32| {
        let mut p = vec![0, 1, 0, 0];
        p.extend(declared.to_le_bytes());
        p.extend_from_slice(text);
        p
    };
    w.write_message(c, 0, 1_000_000_000, 1_000_000_000, &cdr(b"hi\0", 3))
        .unwrap();
    w.write_message(c, 1, 2_000_000_000, 2_000_000_000, &cdr(b"abc", 10))
        .unwrap();
    w.write_message(c, 2, 3_000_000_000, 3_000_000_000, &cdr(b"yo\0", 3))
        .unwrap();
    let mcap = w.finish().unwrap();
    let log = robolog::open_bytes(&mcap).unwrap();
    let (bag, stats) = to_bag(
        &log,
        Cursor::new(Vec::new()),
        &ConvertOptions::for_bag(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(stats.messages, 2, "{stats:?}");
    assert_eq!(stats.skipped.len(), 1, "{stats:?}");
    let s = &stats.skipped[0];
    assert!(
        s.starts_with("/text: message at 2.000000000 (record at file offset ")
            && s.contains("at byte 8 of the CDR payload: a string needs 10 bytes, 3 left"),
        "{s}"
    );
    let values: Vec<Value> = decoded(&bag.into_inner())
        .into_iter()
        .map(|m| m.3)
        .collect();
    assert_eq!(
        values,
        [
            Value::Struct(vec![("data".into(), Value::String("hi".into()))]),
            Value::Struct(vec![("data".into(), Value::String("yo".into()))]),
        ]
    );
}

/// Every strict prefix of a payload of a type with a Header, arrays,
/// strings and nested messages fails with an offset inside it, and counts
/// far beyond the bytes left fail before anything is reserved.
#[test]
fn every_cut_and_huge_count_is_an_error() {
    let def = "std_msgs/Header header\nstring[] names\nfloat64[2] pair\nint16[] shorts\n\
               ================================================================================\n\
               MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n";
    let mut full = vec![0u8, 1, 0, 0];
    full.extend(5i32.to_le_bytes()); // sec
    full.extend(6u32.to_le_bytes()); // nanosec
    full.extend(2u32.to_le_bytes());
    full.extend(b"f\0");
    full.extend([0, 0]); // pad to 4
    full.extend(2u32.to_le_bytes()); // names
    full.extend(2u32.to_le_bytes());
    full.extend(b"a\0");
    full.extend([0, 0]);
    full.extend(3u32.to_le_bytes());
    full.extend(b"bc\0");
    full.extend([0, 0, 0, 0, 0]); // pad to 8
    full.extend(1.5f64.to_le_bytes());
    full.extend((-2.0f64).to_le_bytes());
    full.extend(1u32.to_le_bytes());
    full.extend(7i16.to_le_bytes());
    let names_count = 4 + 8 + 8;
    let mut payloads: Vec<Vec<u8>> = (0..full.len()).map(|n| full[..n].to_vec()).collect();
    let mut huge = full.clone();
    huge[names_count..names_count + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    payloads.push(huge);
    payloads.push(full.clone());
    let mut w = mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).unwrap();
    let s = w
        .add_schema("my_pkg/msg/Stuff", "ros2msg", def.as_bytes())
        .unwrap();
    let c = w.add_channel(s, "/t", "cdr", &BTreeMap::new()).unwrap();
    for (i, p) in payloads.iter().enumerate() {
        let t = (i as u64 + 1) * 1_000_000_000;
        w.write_message(c, i as u32, t, t, p).unwrap();
    }
    let mcap = w.finish().unwrap();
    let log = robolog::open_bytes(&mcap).unwrap();
    let (bag, stats) = to_bag(
        &log,
        Cursor::new(Vec::new()),
        &ConvertOptions::for_bag(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(stats.messages, 1, "{stats:?}");
    assert_eq!(stats.skipped.len(), full.len() + 1);
    for (n, s) in stats.skipped[..full.len()].iter().enumerate() {
        let offset: usize = s
            .split("at byte ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|o| o.parse().ok())
            .unwrap_or_else(|| panic!("{s}"));
        assert!(offset <= n.max(4), "cut at {n}: {s}");
    }
    let last = &stats.skipped[full.len()];
    assert!(
        last.contains(&format!(
            "at byte {} of the CDR payload: an array of 4294967295 elements",
            names_count + 4
        )),
        "{last}"
    );
    let bag = bag.into_inner();
    let conns = connections(&bag);
    let (ty, md5, text, latching) = &conns["/t"];
    assert_eq!((ty.as_str(), latching.as_str()), ("my_pkg/Stuff", "0"));
    assert_eq!(md5, &rosbag12::MessageType::parse(ty, text).unwrap().md5sum);
    let v = &decoded(&bag)[0].3;
    assert_eq!(
        v.get("header").unwrap(),
        &Value::Struct(vec![
            ("seq".into(), Value::U64(0)),
            (
                "stamp".into(),
                Value::Time(logcore::Timestamp::from_nanos(5_000_000_006))
            ),
            ("frame_id".into(), Value::String("f".into())),
        ])
    );
    assert_eq!(
        v.get("names").unwrap(),
        &Value::Array(vec![Value::String("a".into()), Value::String("bc".into())])
    );
    assert_eq!(v.get("pair").unwrap(), &Value::F64Array(vec![1.5, -2.0]));
    assert_eq!(v.get("shorts").unwrap(), &Value::Array(vec![Value::I64(7)]));
}
