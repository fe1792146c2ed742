//! Logs whose every string is a script injection: topic and channel
//! names, type and schema names, encodings, field names, connection
//! headers, text messages (ROS `/rosout`, diagnostics, PX4 logged
//! messages), metadata, attachments, ULog info, parameters and format
//! names, CARLA map, blueprints and attributes, a ROS 2 bag's distro,
//! custom data and serialization format, and the file and folder names
//! themselves; one log of each format whose names are the log's own (a
//! VEL log's channels are named by its type registry, and its strings,
//! sensor names, are not shown). Written with the project's own writers.
//!
//! Shared by `tests/injection.rs` (the page's text) and `cargo xtask
//! report` (the page opened in Chromium), which includes this file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The global a payload sets when it runs: the page must never define it.
pub(crate) const MARK: &str = "__pwned";

/// Text that runs as script wherever a page would put it into markup, an
/// attribute, a URL, a template literal or a JavaScript string: it ends
/// the script element, breaks out of a quoted attribute, is a
/// `javascript:` URL, a template substitution, JavaScript's old line
/// terminators (U+2028, U+2029), and a comment opening followed by a
/// script tag (which swallows the page's own script).
pub(crate) const PAYLOADS: [&str; 8] = [
    "</script><script>__pwned=1</script>",
    "\"><img src=x onerror=\"__pwned=2\">",
    "'><svg onload=__pwned=3>",
    "javascript:__pwned=4",
    "${__pwned=5}",
    "\u{2028}\u{2029}",
    "<!--<script>",
    "]]>&lt;&amp;",
];

/// Every payload, after `tag` (which tells the strings apart).
pub(crate) fn payload(tag: &str) -> String {
    format!("{tag} {}", PAYLOADS.join(" "))
}

/// The payloads that fit in a name a format parses (a ULog field or
/// format name, a ROS type): no space, `:`, `;`, `.`, `[` or `]`.
pub(crate) fn name_payload(tag: &str) -> String {
    format!(
        "{tag}</script><script>__pwned=1</script>\"><img/src=x/onerror=__pwned=2>'${{__pwned=5}}\u{2028}<!--<script>"
    )
}

/// A file name of `ext` holding the payloads a file name can (no `/`).
fn file_name(tag: &str, ext: &str) -> String {
    format!("{tag}\"><img src=x onerror=__pwned=6>${{__pwned=7}}<!--<script>.{ext}")
}

type Result<T> = std::result::Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A ROS 1 header (`seq`, `stamp`, `frame_id`) in ROS serialization.
fn ros_header(seq: u32, sec: u32, frame: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&sec.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    ros_string(frame, out);
}

fn ros_string(s: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

const HEADER_DEF: &str = "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n";
const RULE: &str =
    "================================================================================\n";

/// A ROS 1 bag: a numeric topic whose topic, type and caller id are
/// payloads, `/rosout` (`rosgraph_msgs/Log`) and `/diagnostics`
/// (`diagnostic_msgs/DiagnosticArray`) whose every string is one.
fn bag(dir: &Path) -> Result<PathBuf> {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let mut w =
        Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).map_err(err)?;
    let mut numbers = Connection::new(
        0,
        payload("bag topic"),
        name_payload("bag_type/"),
        "*",
        "float64 x\nfloat64 y\n",
    );
    numbers.callerid = Some(payload("callerid"));
    let numbers = w.add_connection(numbers).map_err(err)?;
    let log_def = format!(
        "byte DEBUG=1\nbyte INFO=2\nbyte WARN=4\nbyte ERROR=8\nbyte FATAL=16\nHeader header\nbyte level\nstring name\nstring msg\nstring file\nstring function\nuint32 line\nstring[] topics\n{RULE}{HEADER_DEF}"
    );
    let rosout = w
        .add_connection(Connection::new(
            1,
            "/rosout",
            "rosgraph_msgs/Log",
            "acffd30cd6b6de30f120938c17c593fb",
            log_def,
        ))
        .map_err(err)?;
    let diag_def = format!(
        "Header header\ndiagnostic_msgs/DiagnosticStatus[] status\n{RULE}{HEADER_DEF}{RULE}MSG: diagnostic_msgs/DiagnosticStatus\nbyte OK=0\nbyte WARN=1\nbyte ERROR=2\nbyte STALE=3\nbyte level\nstring name\nstring message\nstring hardware_id\ndiagnostic_msgs/KeyValue[] values\n{RULE}MSG: diagnostic_msgs/KeyValue\nstring key\nstring value\n"
    );
    let diagnostics = w
        .add_connection(Connection::new(
            2,
            "/diagnostics",
            "diagnostic_msgs/DiagnosticArray",
            "60810da900de1dd6ddd437c3503511da",
            diag_def,
        ))
        .map_err(err)?;
    for k in 0..5u32 {
        let t = RosTime {
            sec: 100 + k,
            nsec: 0,
        };
        let mut xy = f64::from(k).to_le_bytes().to_vec();
        xy.extend_from_slice(&(2.0 * f64::from(k)).to_le_bytes());
        w.write(numbers, t, &xy).map_err(err)?;
        let mut log = Vec::new();
        ros_header(k, 100 + k, &payload("frame_id"), &mut log);
        log.push(8);
        for s in [
            "rosout name",
            "rosout msg",
            "rosout file",
            "rosout function",
        ] {
            ros_string(&payload(s), &mut log);
        }
        log.extend_from_slice(&42u32.to_le_bytes());
        log.extend_from_slice(&1u32.to_le_bytes());
        ros_string(&payload("rosout topic"), &mut log);
        w.write(rosout, t, &log).map_err(err)?;
        let mut d = Vec::new();
        ros_header(k, 100 + k, "", &mut d);
        d.extend_from_slice(&1u32.to_le_bytes());
        d.push(2);
        for s in ["diag name", "diag message", "diag hardware_id"] {
            ros_string(&payload(s), &mut d);
        }
        d.extend_from_slice(&1u32.to_le_bytes());
        ros_string(&payload("diag key"), &mut d);
        ros_string(&payload("diag value"), &mut d);
        w.write(diagnostics, t, &d).map_err(err)?;
    }
    w.finish().map_err(err)?;
    let path = dir.join(file_name("bag", "bag"));
    std::fs::write(&path, w.into_inner().into_inner()).map_err(err)?;
    Ok(path)
}

/// An MCAP file: a JSON channel whose topic, schema name, channel
/// metadata, field names and string values are payloads (and fields named
/// as JavaScript's object properties), a channel whose encodings are
/// payloads (which does not decode), a metadata record and an attachment.
fn mcap(dir: &Path) -> Result<PathBuf> {
    use mcapfile::{WriteOptions, Writer};
    let mut w =
        Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).map_err(err)?;
    let schema = w
        .add_schema(
            &payload("mcap schema"),
            "jsonschema",
            br#"{"type":"object"}"#,
        )
        .map_err(err)?;
    let meta = BTreeMap::from([(payload("channel key"), payload("channel value"))]);
    let json = w
        .add_channel(schema, &payload("mcap topic"), "json", &meta)
        .map_err(err)?;
    let odd = w
        .add_schema(&payload("odd schema"), &payload("schema encoding"), b"x")
        .map_err(err)?;
    let undecodable = w
        .add_channel(
            odd,
            &payload("odd topic"),
            &payload("message encoding"),
            &meta,
        )
        .map_err(err)?;
    for k in 0..5u64 {
        let mut m = serde_json::Map::new();
        m.insert(payload("mcap field"), serde_json::json!(k as f64 * 1.5));
        m.insert(
            name_payload("nested"),
            serde_json::json!({ payload("inner"): k }),
        );
        for p in ["__proto__", "constructor", "toString", "hasOwnProperty"] {
            m.insert(p.to_string(), serde_json::json!(k));
        }
        m.insert(
            "text".into(),
            serde_json::json!(payload("mcap string value")),
        );
        let t = 1_000_000_000 + k * 100_000_000;
        let text = serde_json::Value::Object(m).to_string();
        w.write_message(json, k as u32, t, t, text.as_bytes())
            .map_err(err)?;
        w.write_message(undecodable, k as u32, t, t, b"\x00\x01")
            .map_err(err)?;
    }
    w.write_metadata(
        &payload("metadata name"),
        &BTreeMap::from([(payload("metadata key"), payload("metadata value"))]),
    )
    .map_err(err)?;
    w.write_attachment(
        1_000_000_000,
        0,
        &payload("attachment"),
        &payload("media type"),
        b"<script>__pwned=8</script>",
    )
    .map_err(err)?;
    let bytes = w.finish().map_err(err)?.into_inner();
    let path = dir.join(file_name("mcap", "mcap"));
    std::fs::write(&path, bytes).map_err(err)?;
    Ok(path)
}

/// A ULog: info (the summary's `sys_name`, `ver_hw`, `ver_sw`, `sys_os_name`,
/// and a key of its own), multi-info, parameters with defaults, a format
/// and message whose names and field names are payloads, logged by two
/// instances, a nested format, logged and tagged logged messages.
fn ulog(dir: &Path) -> Result<PathBuf> {
    use ulogfile::InfoValue;
    let mut w = ulogfile::write::Writer::new(Vec::new(), 1_000).map_err(err)?;
    for key in [
        "sys_name",
        "ver_hw",
        "ver_sw",
        "sys_os_name",
        "sys_toolchain",
    ] {
        w.add_info_str(key, &payload(key)).map_err(err)?;
    }
    w.add_info_str(&name_payload("info_key"), &payload("info value"))
        .map_err(err)?;
    w.add_multi_info(
        &format!("char[{}]", payload("multi").len()),
        &name_payload("multi_key"),
        &InfoValue::String(payload("multi")),
        false,
    )
    .map_err(err)?;
    let param = name_payload("P");
    w.add_parameter(&param, &InfoValue::Float(1.5))
        .map_err(err)?;
    w.add_default_parameter(1, &param, &InfoValue::Float(2.5))
        .map_err(err)?;
    w.add_parameter("SYS_AUTOSTART", &InfoValue::Int(4001))
        .map_err(err)?;
    let inner = name_payload("inner_format");
    w.add_format(&format!(
        "{inner}:float {};float {};",
        name_payload("a"),
        name_payload("b")
    ))
    .map_err(err)?;
    let topic = name_payload("topic");
    w.add_format(&format!(
        "{topic}:uint64_t timestamp;float {};{inner} {};uint8_t {};",
        name_payload("x"),
        name_payload("nested"),
        name_payload("state")
    ))
    .map_err(err)?;
    let ids = [
        w.add_subscription(&topic, 0).map_err(err)?,
        w.add_subscription(&topic, 1).map_err(err)?,
    ];
    for k in 0..20u64 {
        let t = 1_000 + k * 100_000;
        for (i, id) in ids.iter().enumerate() {
            let mut s = t.to_le_bytes().to_vec();
            for v in [k as f32 + i as f32, 0.5 * k as f32, 2.0 * k as f32] {
                s.extend_from_slice(&v.to_le_bytes());
            }
            s.push((k % 3) as u8);
            w.write_data(*id, &s).map_err(err)?;
        }
        if k % 5 == 0 {
            w.write_logging(b'3', t + 1, &payload("logged"))
                .map_err(err)?;
            w.write_tagged_logging(b'4', 7, t + 2, &payload("tagged"))
                .map_err(err)?;
        }
    }
    let path = dir.join(file_name("ulog", "ulg"));
    std::fs::write(&path, w.finish().map_err(err)?).map_err(err)?;
    Ok(path)
}

/// A CARLA recording whose map name, blueprints and attributes are
/// payloads: an ego (`role_name` `hero`) that moves, and a collision.
fn carla(dir: &Path) -> Result<PathBuf> {
    use carla_recorder::packet::Packet;
    use carla_recorder::write::Writer;
    use carla_recorder::{Attribute, Collision, EventAdd, FrameStart, InfoHeader, Position, Vec3};
    let map = payload("map");
    // Leaked: a few hundred bytes, once, for the borrowed records.
    let text = |tag: &str| -> &'static [u8] { payload(tag).into_bytes().leak() };
    let (ego_blueprint, other_blueprint) = (text("vehicle.ego"), text("vehicle.other"));
    let (attr_id, attr_value) = (text("attribute id"), text("attribute value"));
    let mut w = Writer::new(InfoHeader::new(0, map.as_bytes())).map_err(err)?;
    let add = |id: u32, blueprint: &'static [u8], hero: bool| EventAdd {
        id,
        type_code: 1,
        location: Vec3::default(),
        rotation: Vec3::default(),
        uid: id,
        description_id: blueprint,
        attributes: vec![
            Attribute {
                type_code: 5,
                id: b"role_name",
                value: if hero { b"hero" } else { b"autopilot" },
            },
            Attribute {
                type_code: 5,
                id: attr_id,
                value: attr_value,
            },
        ],
    };
    for k in 1..=10u64 {
        let start = FrameStart {
            id: k,
            duration: 0.05,
            elapsed: k as f64 * 0.05,
        };
        let mut packets = Vec::new();
        if k == 1 {
            packets.push(Packet::EventAdd(vec![
                add(7, ego_blueprint, true),
                add(8, other_blueprint, false),
            ]));
        }
        let at = |id: u32, x: f64| Position {
            id,
            location: Vec3 {
                x,
                y: 2.0 * x,
                z: 0.0,
            },
            rotation: Vec3::default(),
        };
        packets.push(Packet::Position(vec![
            at(7, 100.0 * k as f64),
            at(8, 50.0 * k as f64),
        ]));
        if k == 5 {
            packets.push(Packet::Collision(vec![Collision {
                id: 1,
                actor1: 7,
                actor2: 8,
                is_hero1: true,
                is_hero2: false,
            }]));
        }
        w.frame(start, &packets).map_err(err)?;
    }
    let path = dir.join(file_name("carla", "rec"));
    std::fs::write(&path, w.finish()).map_err(err)?;
    Ok(path)
}

/// A ROS 2 bag (SQLite storage) whose folder, topic, type name,
/// definition's field names, `ros_distro` and `custom_data` are payloads.
fn rosbag2(dir: &Path) -> Result<PathBuf> {
    use rosbag2::{Bag2Writer, StorageId, TopicDefinition, TopicSpec, WriteOptions};
    let folder = dir.join(file_name("rosbag2", "bag2"));
    let _ = std::fs::remove_dir_all(&folder);
    let options = WriteOptions::new(StorageId::Sqlite3)
        .with_distro(payload("distro"))
        .with_custom_data(payload("custom key"), payload("custom value"));
    let mut w = Bag2Writer::create(&folder, options).map_err(err)?;
    let mut spec = TopicSpec::new(payload("rosbag2 topic"), "hostile_msgs/msg/Xy");
    spec.definition = TopicDefinition::msg("float64 x\nfloat64 y\n");
    let numbers = w.add_topic_with(spec).map_err(err)?;
    let mut odd = TopicSpec::new(payload("rosbag2 odd topic"), name_payload("odd/msg/"));
    odd.serialization_format = payload("serialization");
    let odd = w.add_topic_with(odd).map_err(err)?;
    for k in 0..5i64 {
        // CDR, little-endian: the encapsulation header, then x and y.
        let mut cdr = vec![0, 1, 0, 0];
        cdr.extend_from_slice(&(k as f64).to_le_bytes());
        cdr.extend_from_slice(&(0.5 * k as f64).to_le_bytes());
        let t = 1_000_000_000 + k * 100_000_000;
        w.write(numbers, t, &cdr).map_err(err)?;
        w.write(odd, t, b"\x00\x01").map_err(err)?;
    }
    w.finish().map_err(err)
}

/// Writes the hostile logs into `dir` (made when missing): a ROS 1 bag,
/// an MCAP file, a ULog, a CARLA recording and a ROS 2 bag (a folder);
/// their paths.
pub(crate) fn write_logs(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(vec![
        bag(dir)?,
        mcap(dir)?,
        ulog(dir)?,
        carla(dir)?,
        rosbag2(dir)?,
    ])
}
