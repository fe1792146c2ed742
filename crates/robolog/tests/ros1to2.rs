//! ROS 1 bags to ROS 2 MCAP (`ConvertOptions::ros2`), checked against
//! rosbags: for every ROS 1 bag of the corpus (`../shared/corpus/rosbag`,
//! or `$ROBOLOG_CORPUS/rosbag`; skipped when absent) and of `testdata`,
//! our MCAP read back through `robolog::open_bytes` gives, message for
//! message and bit for bit, the values rosbags reads from
//! `rosbags-convert`'s own conversion (`--dst-typestore ros2_jazzy`), and
//! rosbags reads the same values from our MCAP, whose channels hold the
//! type hashes rosbags-convert computes (but for types using `char`) (the script
//! `ros1to2_rosbags.py`, run with the Python of rosbags 0.11.9:
//! `$ROSBAGS_PYTHON`, which `cargo xtask ci` sets, else the checkout's
//! `target/interop-venv`; skipped when absent). The QoS metadata is what rosbags-convert writes.
//!
//! The same bags converted into rosbag2 folders (`Target::Rosbag2`, SQLite
//! and MCAP storage, and zstd-compressed files for testdata's bags): our
//! reader reads from each folder the values of our MCAP, with the same
//! QoS profiles and the right `message_count` per topic in
//! `metadata.yaml`; rosbags opens each folder (parsing its
//! `metadata.yaml`), reads the values it reads from rosbags-convert's
//! conversion, and the message counts, offered QoS profiles and type
//! description hashes (RIHS01, which rosbags-convert computes with its
//! own typestore) it reads from the folder's metadata are those of
//! rosbags-convert's (but for types using `char`, which ours leave empty).
#![cfg(all(
    feature = "rosbag",
    feature = "ros2",
    feature = "rosbag2",
    feature = "mcap"
))]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use logcore::{LogReader, MessageFilter, ReadMode, Value};
use robolog::convert::{ConvertOptions, ConvertStats, Storage, Target, convert_file_to, to_mcap};
use serde_json::{Value as Json, json};

/// The ROS 1 bags to compare: the corpus's and testdata's.
fn bags() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let testdata = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/rosbag");
    for dir in common::corpus("rosbag").into_iter().chain([testdata]) {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "bag") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A float as the test script writes it: `f:` and the float64 bits.
fn float(x: f64) -> Json {
    Json::String(format!("f:{:016x}", x.to_bits()))
}

/// A decoded value in the script's form.
fn norm(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::I64(i) => json!(i),
        Value::U64(u) => json!(u),
        Value::F32(x) => float(f64::from(*x)),
        Value::F64(x) => float(*x),
        Value::String(s) => json!(s),
        Value::Bytes(b) => json!(b),
        Value::Array(a) => Json::Array(a.iter().map(norm).collect()),
        Value::F32Array(a) => Json::Array(a.iter().map(|x| float(f64::from(*x))).collect()),
        Value::F64Array(a) => Json::Array(a.iter().map(|x| float(*x)).collect()),
        Value::Struct(fields) => Json::Object(
            fields
                .iter()
                .filter(|(n, _)| n != "structure_needs_at_least_one_member")
                .map(|(n, v)| (n.to_string(), norm(v)))
                .collect(),
        ),
        // builtin_interfaces' Time and Duration, as the script gives
        // them: the two fields of their definition.
        Value::Time(t) => sec_nanosec(t.as_nanos()),
        Value::Duration(d) => sec_nanosec(*d),
    }
}

/// `{sec, nanosec}` of `ns` (nanosec in 0..1e9, as ROS 2 stores them).
fn sec_nanosec(ns: i64) -> Json {
    json!({"sec": ns.div_euclid(1_000_000_000), "nanosec": ns.rem_euclid(1_000_000_000)})
}

/// `bag` converted with `ros2: true`.
fn convert(bytes: &[u8]) -> (Vec<u8>, ConvertStats) {
    let log = robolog::open_bytes(bytes).unwrap();
    let opts = ConvertOptions {
        ros2: true,
        ..ConvertOptions::default()
    };
    to_mcap(&log, Vec::new(), &opts, &mut |_| {}).unwrap()
}

/// Our MCAP's messages, decoded by robolog's registry, in the script's
/// form, and each channel's QoS metadata by topic.
fn ours(mcap: &[u8]) -> (Vec<Json>, BTreeMap<String, String>) {
    ours_in(&robolog::open_bytes(mcap).unwrap())
}

/// [`ours`] for an opened log (a rosbag2 folder too).
fn ours_in(log: &robolog::Log<'_>) -> (Vec<Json>, BTreeMap<String, String>) {
    let channels = log.channels().unwrap();
    let mut qos = BTreeMap::new();
    for c in &channels {
        assert_eq!(c.message_encoding, "cdr");
        let s = c.schema.as_ref().unwrap();
        assert_eq!(s.encoding, "ros2msg");
        assert!(s.name.contains("/msg/"), "{}", s.name);
        qos.insert(c.topic.clone(), c.metadata["offered_qos_profiles"].clone());
    }
    let topics: BTreeMap<_, _> = channels.into_iter().map(|c| (c.id, c.topic)).collect();
    let filter = MessageFilter::all().mode(ReadMode::Strict);
    let msgs = log
        .messages(&filter)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let v = log.decode(&m).unwrap_or_else(|e| panic!("{e}"));
            json!([topics[&m.channel], m.log_time.as_nanos(), norm(&v)])
        })
        .collect();
    (msgs, qos)
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

/// A bag converted and read back by us, waiting for rosbags' side.
struct Converted {
    name: String,
    /// Our MCAP conversion's bytes and its stats.
    mcap: Vec<u8>,
    stats: ConvertStats,
    /// Its messages (sorted) and QoS metadata as we read them back.
    mine: Vec<Json>,
    qos: BTreeMap<String, String>,
    /// Our rosbag2 folders of the same bag.
    folders: Vec<PathBuf>,
    /// The job line of the script: bag, work folder, our MCAP, folders.
    job: Vec<PathBuf>,
}

/// Converts `bag` into `work` (MCAP, and rosbag2 folders) and decodes
/// every message of the output, as the comparison with rosbags needs it.
fn convert_bag(bag: &Path, work: &Path) -> Converted {
    let name = bag.file_name().unwrap().to_string_lossy().into_owned();
    let dir = work.join(format!("{name}.out"));
    std::fs::create_dir_all(&dir).unwrap();
    let (mcap, stats) = convert(&std::fs::read(bag).unwrap());
    for w in &stats.warnings {
        eprintln!("{name}: warning: {w}");
    }
    for w in &stats.skipped {
        eprintln!("{name}: skipped: {w}");
    }
    // Every bag's output decodes, compared or not.
    let (mine, qos) = ours(&mcap);
    assert_eq!(mine.len() as u64, stats.messages, "{name}");
    let mine = sorted(mine);
    let folders = to_folders(bag, &dir, &stats, &mine, &qos);
    let path = dir.join("ours.mcap");
    std::fs::write(&path, &mcap).unwrap();
    let mut job = vec![bag.to_path_buf(), dir, path];
    job.extend(folders.iter().cloned());
    Converted {
        name,
        mcap,
        stats,
        mine,
        qos,
        folders,
        job,
    }
}

/// rosbags' side of `bags`, with the venv's `py`: one run of the script
/// for all of them (one Python start, not one per bag), a reply each.
fn rosbags_replies(py: &Path, bags: &[Converted], work: &Path) -> Vec<Json> {
    let jobs = work.join("jobs.json");
    let lines: Vec<Vec<String>> = bags
        .iter()
        .map(|b| b.job.iter().map(|p| p.display().to_string()).collect())
        .collect();
    std::fs::write(&jobs, serde_json::to_vec(&lines).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ros1to2_rosbags.py");
    let out = Command::new(py)
        .arg(&script)
        .arg("--jobs")
        .arg(&jobs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replies: Vec<Json> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(replies.len(), bags.len());
    replies
}

/// Compares our conversion of a bag with rosbags' `reply` for it: the
/// number of messages compared, `None` when rosbags-convert refused the
/// bag.
fn compare(c: &Converted, reply: &Json) -> Option<usize> {
    let (name, mine, qos, folders) = (&c.name, &c.mine, &c.qos, &c.folders);
    if let Some(why) = reply.get("skip") {
        eprintln!("note: {name}: rosbags-convert refuses it ({why}); not compared");
        return None;
    }
    let theirs = sorted(reply["theirs"].as_array().unwrap().clone());
    assert!(c.stats.skipped.is_empty(), "{name}: {:?}", c.stats.skipped);
    assert!(
        *mine == theirs,
        "{name}: {}",
        first_difference(mine, &theirs)
    );
    let by_rosbags = reply["ours"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: rosbags cannot read our MCAP: {}", reply["ours"]));
    let by_rosbags = sorted(by_rosbags.clone());
    assert!(
        by_rosbags == theirs,
        "{name}, rosbags reading ours: {}",
        first_difference(&by_rosbags, &theirs)
    );
    let want: BTreeMap<String, String> = reply["qos"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(t, q)| (t.clone(), q.as_str().unwrap().to_string()))
        .collect();
    assert_eq!(*qos, want, "{name}");
    // rosbags reads our folders as it reads rosbags-convert's output: the
    // same values, and from metadata.yaml the same message counts (those
    // of the messages), offered QoS profiles and type hashes per topic.
    let theirs_topics = &reply["theirs_topics"];
    let counts = per_topic(&theirs);
    for (t, c) in theirs_topics.as_object().unwrap() {
        assert_eq!(
            c[0],
            json!(counts.get(t).copied().unwrap_or(0)),
            "{name}: {t}"
        );
        let hash = c[2].as_str().unwrap_or("");
        assert!(hash.starts_with("RIHS01_"), "{name}: {t}: hash {hash:?}");
    }
    // Our MCAP's channels hold the type hash as rosbag2's do
    // (`topic_type_hash`), equal to rosbags-convert's, but for types using
    // `char`, which have none.
    let log = robolog::open_bytes(&c.mcap).unwrap();
    for c in log.channels().unwrap() {
        let s = c.schema.as_ref().unwrap();
        let text = String::from_utf8_lossy(&s.data);
        let uses_char = ros2cdr::MessageType::parse(&c.type_name, &text)
            .unwrap()
            .uses_char();
        let want = theirs_topics[&c.topic][2].as_str().unwrap_or("");
        match c.metadata.get("topic_type_hash") {
            Some(h) => assert_eq!(h, want, "{name}: {}", c.topic),
            None => assert!(uses_char, "{name}: {}: no topic_type_hash", c.topic),
        }
    }
    let replies = reply["folders"].as_array().unwrap();
    assert_eq!(replies.len(), folders.len());
    for (folder, r) in folders.iter().zip(replies) {
        let f = folder.display();
        let msgs = r["messages"]
            .as_array()
            .unwrap_or_else(|| panic!("{f}: rosbags cannot read it: {}", r["error"]));
        let msgs = sorted(msgs.clone());
        assert!(msgs == theirs, "{f}: {}", first_difference(&msgs, &theirs));
        // The type hashes too, except that our writer records none for a
        // type using `char` (rosbags-convert hashes it as an IDL char, ROS
        // 2 as uint8, and rosbags refuses a bag whose hash is not its own).
        let uses_char = char_topics(folder);
        let mut topics = r["topics"].clone();
        for (t, c) in topics.as_object_mut().unwrap() {
            if uses_char.contains(t) {
                assert_eq!(c[2], "", "{f}: {t}");
                c[2] = theirs_topics[t][2].clone();
            }
        }
        assert_eq!(&topics, theirs_topics, "{f}");
    }
    Some(mine.len())
}

/// The topics of a rosbag2 folder whose type uses a `char` field.
fn char_topics(folder: &Path) -> Vec<String> {
    let bag = rosbag2::Bag2::open(folder).unwrap();
    bag.topics()
        .iter()
        .filter(|t| {
            let d = t.definition.as_ref().unwrap();
            ros2cdr::MessageType::parse(&t.type_name, &d.text)
                .unwrap()
                .uses_char()
        })
        .map(|t| t.name.clone())
        .collect()
}

/// The number of messages per topic of a messages list.
fn per_topic(msgs: &[Json]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for m in msgs {
        *out.entry(m[0].as_str().unwrap().to_string()).or_insert(0) += 1;
    }
    out
}

/// Offered QoS profiles as YAML text, parsed.
fn parsed_qos(qos: &BTreeMap<String, String>) -> BTreeMap<String, Vec<rosbag2::QosProfile>> {
    qos.iter()
        .map(|(t, q)| {
            let p = rosbag2::metadata::parse_qos_text(q, t).unwrap_or_else(|e| panic!("{t}: {e}"));
            (t.clone(), p)
        })
        .collect()
}

/// Converts `bag` into rosbag2 folders in `dir` (SQLite and MCAP storage,
/// and for testdata's bags SQLite compressed with zstd) and checks that
/// our reader reads from each the messages `mine` (sorted) and QoS
/// profiles `qos` of our MCAP conversion, whose `stats` the folder's
/// conversion repeats, with each topic's message count in the metadata.
/// The folders.
fn to_folders(
    bag: &Path,
    dir: &Path,
    stats: &ConvertStats,
    mine: &[Json],
    qos: &BTreeMap<String, String>,
) -> Vec<PathBuf> {
    let log = robolog::open(bag).unwrap();
    let mut targets = vec![
        ("sqlite3", Storage::Sqlite3, false),
        ("mcap", Storage::Mcap, false),
    ];
    if bag.components().any(|c| c.as_os_str() == "testdata") {
        targets.push(("sqlite3-zstd", Storage::Sqlite3, true));
    }
    let counts = per_topic(mine);
    let mut out = Vec::new();
    for (name, storage, zstd) in targets {
        let folder = dir.join(format!("ours-{name}"));
        let target = Target::Rosbag2 { storage, zstd };
        let got = convert_file_to(
            &log,
            bag,
            &folder,
            target,
            &ConvertOptions::default(),
            false,
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        let f = folder.display();
        assert_eq!(got.messages, stats.messages, "{f}");
        assert_eq!(got.skipped, stats.skipped, "{f}");
        let ext = if storage == Storage::Mcap {
            "mcap"
        } else {
            "db3"
        };
        let file = format!("ours-{name}_0.{ext}{}", if zstd { ".zstd" } else { "" });
        assert!(folder.join(&file).is_file(), "{f}: no {file}");
        let back = robolog::open(&folder).unwrap();
        let (msgs, fqos) = ours_in(&back);
        let msgs = sorted(msgs);
        assert!(msgs == mine, "{f}: {}", first_difference(&msgs, mine));
        assert_eq!(parsed_qos(&fqos), parsed_qos(qos), "{f}");
        for c in back.channels().unwrap() {
            let want = counts.get(&c.topic).copied().unwrap_or(0);
            assert_eq!(
                c.metadata["metadata_message_count"],
                want.to_string(),
                "{f}: {}",
                c.topic
            );
        }
        out.push(folder);
    }
    out
}

/// The bags in two halves of about the same bytes (the biggest first,
/// each to the half with fewer bytes so far), so that the two tests
/// comparing them take about as long.
fn halves(bags: &[PathBuf]) -> [Vec<PathBuf>; 2] {
    let mut by_size: Vec<(u64, &PathBuf)> = bags
        .iter()
        .map(|b| (std::fs::metadata(b).unwrap().len(), b))
        .collect();
    by_size.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let mut out: [Vec<PathBuf>; 2] = Default::default();
    let mut bytes = [0u64; 2];
    for (size, b) in by_size {
        let k = usize::from(bytes[1] < bytes[0]);
        bytes[k] += size;
        out[k].push(b.clone());
    }
    out
}

/// Compares the bags of `half` (0 or 1, of [`halves`]) with
/// rosbags-convert's conversions: the two halves are two tests, which the
/// test harness runs at once.
fn values_equal_rosbags_convert_in(half: usize) {
    let py = common::rosbags_python();
    let work = std::env::temp_dir().join(format!("robolog-ros1to2-{}-{half}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let bags = bags();
    assert!(bags.len() >= 5, "{bags:?}");
    let converted: Vec<Converted> = halves(&bags)[half]
        .iter()
        .map(|bag| convert_bag(bag, &work))
        .collect();
    let (mut compared, mut messages) = (0, 0);
    if let Some(py) = &py {
        let replies = rosbags_replies(py, &converted, &work);
        for (c, reply) in converted.iter().zip(&replies) {
            if let Some(n) = compare(c, reply) {
                compared += 1;
                messages += n;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "{compared} of {} bags compared, {messages} messages",
        converted.len()
    );
    if py.is_some() {
        assert!(compared >= 2 && messages > 0);
    }
}

#[test]
fn values_equal_rosbags_convert_even() {
    values_equal_rosbags_convert_in(0);
}

#[test]
fn values_equal_rosbags_convert_odd() {
    values_equal_rosbags_convert_in(1);
}

/// The 1.2 and compressed copies of testdata's sample bag (which rosbags
/// reads, and the 1.2 one it does not) convert to the same messages.
#[test]
fn sample_bag_versions_convert_alike() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/rosbag");
    let values = |name: &str| ours(&convert(&std::fs::read(dir.join(name)).unwrap()).0);
    let reference = values("sample.bag");
    assert!(!reference.0.is_empty());
    for name in ["sample-1.2.bag", "sample-bz2.bag", "sample-lz4.bag"] {
        assert!(values(name) == reference, "{name}");
    }
}

/// ROS 1 wire bytes, built by hand.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl Bytes {
    fn raw(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(b);
        self
    }
    fn u32(self, v: u32) -> Self {
        self.raw(&v.to_le_bytes())
    }
    fn f32(self, v: f32) -> Self {
        self.raw(&v.to_le_bytes())
    }
    fn f64(self, v: f64) -> Self {
        self.raw(&v.to_le_bytes())
    }
    fn str(self, s: &str) -> Self {
        self.u32(s.len() as u32).raw(s.as_bytes())
    }
    /// A ROS 1 Header.
    fn header(self, seq: u32, sec: u32, nsec: u32, frame: &str) -> Self {
        self.u32(seq).u32(sec).u32(nsec).str(frame)
    }
}

const SEP: &str =
    "================================================================================";

const HEADER: &str = "uint32 seq\ntime stamp\nstring frame_id\n";

fn camera_info_def() -> String {
    format!(
        "Header header\nuint32 height\nuint32 width\nstring distortion_model\nfloat64[] D\n\
         float64[9] K\nfloat64[9] R\nfloat64[12] P\nuint32 binning_x\nuint32 binning_y\n\
         RegionOfInterest roi\n{SEP}\nMSG: std_msgs/Header\n{HEADER}{SEP}\n\
         MSG: sensor_msgs/RegionOfInterest\nuint32 x_offset\nuint32 y_offset\nuint32 height\n\
         uint32 width\nbool do_rectify\n"
    )
}

fn tf_def() -> String {
    format!(
        "geometry_msgs/TransformStamped[] transforms\n{SEP}\nMSG: geometry_msgs/TransformStamped\n\
         Header header\nstring child_frame_id\nTransform transform\n{SEP}\nMSG: std_msgs/Header\n\
         {HEADER}{SEP}\nMSG: geometry_msgs/Transform\nVector3 translation\nQuaternion rotation\n\
         {SEP}\nMSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n{SEP}\n\
         MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w\n"
    )
}

/// A custom type of every ROS 1 builtin shape: `time`, `duration`, `char`,
/// `byte`, a Header, fixed and variable arrays of numbers, strings and
/// messages, and a constant.
fn custom_def() -> String {
    format!(
        "int32 LIMIT=7\nHeader header\ntime t\nduration d\nchar c\nbyte b\nuint8[3] fixed\n\
         int16[] shorts\nstring[] names\nmy_pkg/Inner[] inners\nInner[2] pair\ntime[] times\n\
         {SEP}\nMSG: std_msgs/Header\n{HEADER}{SEP}\nMSG: my_pkg/Inner\nfloat32 x\nstring s\n"
    )
}

fn inner(x: f32, s: &str) -> Bytes {
    Bytes::default().f32(x).str(s)
}

/// A bag of the mapped cases: CameraInfo (renamed fields, latched),
/// tf/tfMessage (renamed type), a custom type, a std_msgs/Int32 recorded
/// with an extra field (dropped) and a std_msgs/ColorRGBA whose fields
/// come in another order; plus a hostile String payload when `hostile`.
fn crafted(hostile: bool) -> Vec<u8> {
    use rosbag12::{Connection, MessageType, RosTime, Writer, WriterOptions};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let add = |w: &mut Writer<_>, id: u32, topic: &str, ty: &str, def: &str, latched: bool| {
        let md5 = MessageType::parse(ty, def).unwrap().md5sum;
        let mut c = Connection::new(id, topic, ty, md5.clone(), def);
        c.callerid = Some("/crafter".into());
        c.latching = latched;
        c.header = vec![
            ("callerid".into(), b"/crafter".to_vec()),
            (
                "latching".into(),
                if latched {
                    b"1".to_vec()
                } else {
                    b"0".to_vec()
                },
            ),
            ("md5sum".into(), md5.into_bytes()),
            ("message_definition".into(), def.as_bytes().to_vec()),
            ("topic".into(), topic.as_bytes().to_vec()),
            ("type".into(), ty.as_bytes().to_vec()),
        ];
        w.add_connection(c).unwrap()
    };
    let cam = add(
        &mut w,
        0,
        "/cam",
        "sensor_msgs/CameraInfo",
        &camera_info_def(),
        true,
    );
    let tf = add(&mut w, 1, "/tf", "tf/tfMessage", &tf_def(), false);
    let custom = add(&mut w, 2, "/custom", "my_pkg/Stuff", &custom_def(), false);
    let int = add(
        &mut w,
        3,
        "/int",
        "std_msgs/Int32",
        "int32 extra\nint32 data\n",
        false,
    );
    let text = add(
        &mut w,
        4,
        "/text",
        "std_msgs/String",
        "string data\n",
        false,
    );
    for i in 0..3u32 {
        let t = RosTime {
            sec: 1000 + i,
            nsec: 7,
        };
        let f = |k: u32| f64::from(i * 100 + k) + 0.125;
        let mut b = Bytes::default()
            .header(i, 50 + i, 9, "camera")
            .u32(480)
            .u32(640)
            .str("plumb_bob")
            .u32(5);
        for k in 0..5 {
            b = b.f64(-f(k));
        }
        for k in 0..30 {
            b = b.f64(f(k));
        }
        b = b.u32(1).u32(2).u32(3).u32(4).u32(5).u32(6).raw(&[1]);
        w.write(cam, t, &b.0).unwrap();

        let mut b = Bytes::default().u32(2);
        for k in 0..2 {
            b = b.header(k, 60, 1, "map").str(&format!("child{k}"));
            for c in 0..7 {
                b = b.f64(f(c + k * 10));
            }
        }
        w.write(tf, t, &b.0).unwrap();

        let b = Bytes::default()
            .header(i, 70, 2, "")
            .u32(u32::MAX - i)
            .u32(999_999_999)
            .u32((-5i32) as u32)
            .u32(1)
            .raw(&[b'A' + i as u8, 0xF0, 1, 2, 3])
            .u32(2)
            .raw(&(-300i16).to_le_bytes())
            .raw(&7i16.to_le_bytes())
            .u32(i)
            .raw(&(0..i).fold(Vec::new(), |mut v, k| {
                v.extend(Bytes::default().str(&format!("n{k}")).0);
                v
            }))
            .u32(1)
            .raw(&inner(f32::NAN, "é").0)
            .raw(&inner(1.5, "a").0)
            .raw(&inner(-0.0, "").0)
            .u32(1)
            .u32(3)
            .u32(4);
        w.write(custom, t, &b.0).unwrap();

        let b = Bytes::default().u32(111).u32(i * 10);
        w.write(int, t, &b.0).unwrap();

        let b = if hostile && i == 1 {
            // Declares 10 bytes and holds 2.
            Bytes::default().u32(10).raw(b"ab")
        } else {
            Bytes::default().str(&format!("hello {i}"))
        };
        w.write(text, t, &b.0).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

#[test]
fn crafted_bag_equals_rosbags_convert() {
    let bag = crafted(false);
    let (_, stats) = convert(&bag);
    assert_eq!((stats.messages, stats.channels), (15, 5), "{stats:?}");
    assert!(stats.skipped.is_empty(), "{stats:?}");
    // CameraInfo's upper-case matrices become lower-case ones; the extra
    // Int32 field is dropped: each reported once.
    assert_eq!(stats.warnings.len(), 2, "{:?}", stats.warnings);
    assert!(
        stats.warnings[0].contains("sensor_msgs/CameraInfo")
            && stats.warnings[0].contains("renamed: D as d, K as k, R as r, P as p"),
        "{:?}",
        stats.warnings
    );
    assert!(
        stats.warnings[1].contains("std_msgs/Int32")
            && stats.warnings[1].contains("ROS 1 fields dropped: extra"),
        "{:?}",
        stats.warnings
    );
    let Some(py) = common::rosbags_python() else {
        return;
    };
    let work = std::env::temp_dir().join(format!("robolog-ros1to2-crafted-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let path = work.join("crafted.bag");
    std::fs::write(&path, &bag).unwrap();
    let mut paths = vec![(path, 15)];
    // Empty sequences of numbers are not aligned.
    let gaps = (0..4u32)
        .map(|i| {
            let mut b = Bytes::default().u32(i % 2);
            if i % 2 == 1 {
                b = b.f64(f64::from(i));
            }
            b = b.raw(&[i as u8]).u32(i / 2);
            for k in 0..i / 2 {
                b = b.f64(f64::from(k) - 0.5);
            }
            b.0
        })
        .collect::<Vec<_>>();
    let bag = one_connection("my_pkg/Gaps", "float64[] v\nuint8 y\nfloat64[] w\n", &gaps);
    let path = work.join("gaps.bag");
    std::fs::write(&path, &bag).unwrap();
    paths.push((path, 4));
    // A ROS 1 variable array into ROS 2's fixed one: cut or padded.
    let def = format!(
        "geometry_msgs/Pose pose\nfloat64[] covariance\n{SEP}\nMSG: geometry_msgs/Pose\n\
         geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n{SEP}\n\
         MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n{SEP}\n\
         MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w\n"
    );
    let covs = [0u32, 2, 36, 40]
        .iter()
        .map(|&n| {
            let mut b = Bytes::default();
            for k in 0..7 {
                b = b.f64(f64::from(k) * 1.5);
            }
            b = b.u32(n);
            for k in 0..n {
                b = b.f64(f64::from(k) + 0.25);
            }
            b.0
        })
        .collect::<Vec<_>>();
    let bag = one_connection("geometry_msgs/PoseWithCovariance", &def, &covs);
    let (mcap, stats) = convert(&bag);
    assert!(stats.warnings.is_empty(), "{stats:?}");
    let (msgs, _) = ours(&mcap);
    let cov = |i: usize| msgs[i][2]["covariance"].as_array().unwrap().clone();
    assert_eq!(cov(0), vec![float(0.0); 36]);
    assert_eq!(
        (cov(1)[1].clone(), cov(1)[2].clone()),
        (float(1.25), float(0.0))
    );
    assert_eq!(cov(3)[35], float(35.25));
    let path = work.join("cov.bag");
    std::fs::write(&path, &bag).unwrap();
    paths.push((path, 4));
    let converted: Vec<Converted> = paths.iter().map(|(p, _)| convert_bag(p, &work)).collect();
    let replies = rosbags_replies(&py, &converted, &work);
    for ((c, reply), (_, n)) in converted.iter().zip(&replies).zip(&paths) {
        assert_eq!(compare(c, reply), Some(*n), "{}", c.name);
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// A bag of one connection of `ty` and `def` with the `payloads`, one a
/// second.
fn one_connection(ty: &str, def: &str, payloads: &[Vec<u8>]) -> Vec<u8> {
    use rosbag12::{Connection, MessageType, RosTime, Writer, WriterOptions};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let md5 = MessageType::parse(ty, def).unwrap().md5sum;
    let c = w
        .add_connection(Connection::new(0, "/t", ty, md5, def))
        .unwrap();
    for (i, p) in payloads.iter().enumerate() {
        w.write(
            c,
            RosTime {
                sec: 10 + i as u32,
                nsec: 0,
            },
            p,
        )
        .unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

#[test]
fn short_payload_is_skipped_with_its_offset() {
    let (mcap, stats) = convert(&crafted(true));
    assert_eq!(stats.messages, 14, "{stats:?}");
    assert_eq!(stats.skipped.len(), 1, "{stats:?}");
    let s = &stats.skipped[0];
    assert!(
        s.starts_with("/text: message at 1001.000000007")
            && s.contains("at byte 4 of the ROS 1 payload: a string needs 10 bytes, 2 left"),
        "{s}"
    );
    let (msgs, _) = ours(&mcap);
    assert_eq!(msgs.len(), 14);
    let texts: Vec<&Json> = msgs
        .iter()
        .filter(|m| m[0] == "/text")
        .map(|m| &m[2]["data"])
        .collect();
    assert_eq!(texts, [&json!("hello 0"), &json!("hello 2")]);
}

/// Every strict prefix of a payload fails with an offset inside it, and
/// counts far beyond the bytes left fail before anything is reserved.
#[test]
fn every_cut_and_huge_count_is_an_error() {
    let def = custom_def();
    let full = Bytes::default()
        .header(1, 2, 3, "f")
        .u32(1)
        .u32(2)
        .u32(3)
        .u32(4)
        .raw(&[65, 66, 1, 2, 3])
        .u32(1)
        .raw(&5i16.to_le_bytes())
        .u32(1)
        .str("n")
        .u32(1)
        .raw(&inner(1.0, "x").0)
        .raw(&inner(2.0, "y").0)
        .raw(&inner(3.0, "z").0)
        .u32(1)
        .u32(8)
        .u32(9)
        .0;
    let mut payloads: Vec<Vec<u8>> = (0..full.len()).map(|n| full[..n].to_vec()).collect();
    // The string array's count: u32::MAX strings in a few bytes.
    let at = 4 + 4 + 4 + 4 + 1 + 8 + 8 + 5 + 4 + 2;
    let mut huge = full.clone();
    huge[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    payloads.push(huge);
    payloads.push(full.clone());
    let bag = one_connection("my_pkg/Stuff", &def, &payloads);
    let (mcap, stats) = convert(&bag);
    assert_eq!(stats.messages, 1, "{stats:?}");
    assert_eq!(stats.skipped.len(), full.len() + 1);
    for (n, s) in stats.skipped[..full.len()].iter().enumerate() {
        let offset: usize = s
            .split("at byte ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|o| o.parse().ok())
            .unwrap_or_else(|| panic!("{s}"));
        assert!(offset <= n, "cut at {n}: {s}");
    }
    let last = &stats.skipped[full.len()];
    assert!(
        last.contains(&format!(
            "at byte {at} of the ROS 1 payload: an array of 4294967295 elements"
        )),
        "{last}"
    );
    let (msgs, _) = ours(&mcap);
    assert_eq!(msgs[0][2]["names"], json!(["n"]));
    assert_eq!(msgs[0][2]["pair"][1]["s"], json!("z"));
}

/// Fields matched by name whatever their order (rosbags copies types
/// whose field types line up position by position; see the module docs).
#[test]
fn fields_match_by_name_in_any_order() {
    let def = "float32 a\nfloat32 b\nfloat32 g\nfloat32 r\n";
    let p = Bytes::default().f32(0.25).f32(0.5).f32(0.75).f32(1.0).0;
    let (mcap, stats) = convert(&one_connection("std_msgs/ColorRGBA", def, &[p]));
    assert!(
        stats.warnings.is_empty() && stats.skipped.is_empty(),
        "{stats:?}"
    );
    let (msgs, _) = ours(&mcap);
    let v = &msgs[0][2];
    assert_eq!(
        [&v["r"], &v["g"], &v["b"], &v["a"]],
        [&float(1.0), &float(0.75), &float(0.5), &float(0.25)]
    );
}

#[test]
fn filters_by_topic_and_time() {
    let log_bytes = crafted(false);
    let log = robolog::open_bytes(&log_bytes).unwrap();
    let opts = ConvertOptions {
        ros2: true,
        topics: vec!["/int".into(), "/cam".into()],
        start: Some(logcore::Timestamp(1_001_000_000_000)),
        end: Some(logcore::Timestamp(1_002_000_000_000)),
        ..ConvertOptions::default()
    };
    let (mcap, stats) = to_mcap(&log, Vec::new(), &opts, &mut |_| {}).unwrap();
    assert_eq!((stats.messages, stats.channels), (2, 2));
    let (msgs, qos) = ours(&mcap);
    assert_eq!(qos.len(), 2);
    assert_eq!(qos["/int"], "[]");
    assert!(qos["/cam"].contains("durability: transient_local"));
    let int: Vec<&Json> = msgs.iter().filter(|m| m[0] == "/int").collect();
    assert_eq!(int.len(), 1);
    assert_eq!(int[0][1], json!(1_001_000_000_007i64));
    assert_eq!(int[0][2], json!({"data": 10}));
    let profile = mcapfile::LinearReader::new(&mcap)
        .find_map(|r| match r.unwrap() {
            mcapfile::Record::Header(h) => Some(h.profile.to_string()),
            _ => None,
        })
        .unwrap();
    assert_eq!(profile, "ros2");
}

/// Each topic's schema: type name and definition.
fn schemas(mcap: &[u8]) -> BTreeMap<String, (String, String)> {
    let log = robolog::open_bytes(mcap).unwrap();
    log.channels()
        .unwrap()
        .into_iter()
        .map(|c| {
            let s = c.schema.unwrap();
            let text = String::from_utf8(s.data.clone()).unwrap();
            (c.topic, (s.name.clone(), text))
        })
        .collect()
}

#[test]
fn schemas_hold_ros2_definitions() {
    let (mcap, _) = convert(&crafted(false));
    let s = schemas(&mcap);
    let names: Vec<(&str, &str)> = s
        .iter()
        .map(|(t, (n, _))| (t.as_str(), n.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("/cam", "sensor_msgs/msg/CameraInfo"),
            ("/custom", "my_pkg/msg/Stuff"),
            ("/int", "std_msgs/msg/Int32"),
            ("/text", "std_msgs/msg/String"),
            ("/tf", "tf2_msgs/msg/TFMessage"),
        ]
    );
    // The bundled jazzy text where the type is standard...
    let bundled = rosbag2::Definitions::bundled(rosbag2::Distro::Jazzy);
    assert_eq!(
        s["/cam"].1,
        bundled.resolve("sensor_msgs/msg/CameraInfo").unwrap()
    );
    assert_eq!(
        s["/tf"].1,
        bundled.resolve("tf2_msgs/msg/TFMessage").unwrap()
    );
    // ...derived from the ROS 1 one where it is not, with ROS 2 types.
    let custom = &s["/custom"].1;
    assert!(
        custom.starts_with(
            "int32 LIMIT=7\nstd_msgs/Header header\nbuiltin_interfaces/Time t\n\
             builtin_interfaces/Duration d\nchar c\nbyte b\nuint8[3] fixed\n"
        ),
        "{custom}"
    );
    assert!(custom.contains(&format!("{SEP}\nMSG: my_pkg/Inner\nfloat32 x\nstring s\n")));
    assert!(custom.contains(&format!("{SEP}\nMSG: std_msgs/Header\n")));
    assert!(!custom.contains("seq"), "{custom}");
}

/// Constants whose names ROS 2 refuses (rosidl and Rerun's parser take
/// upper-case letters, digits and inner underscores only) are left out of
/// the derived ROS 2 definition: they are not on the wire, and a schema
/// holding one does not load in Rerun at all (`matlab-constants.bag`).
#[test]
fn constants_ros2_refuses_are_left_out() {
    let def = "int32 LIMIT=7\nint32 lower=3\nuint8 Mixed=1\nint32 A_1=2\nint32 data\n";
    let bag = one_connection("my_pkg/Consts", def, &[5i32.to_le_bytes().to_vec()]);
    let (mcap, stats) = convert(&bag);
    assert_eq!(stats.messages, 1);
    let s = schemas(&mcap);
    assert_eq!(s["/t"].1, "int32 LIMIT=7\nint32 A_1=2\nint32 data\n");
    let (msgs, _) = ours(&mcap);
    assert_eq!(msgs[0][2]["data"], 5);
}
