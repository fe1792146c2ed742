//! ROS 2 checks: every message of every rosbag2 MCAP file in
//! `<corpus>/ros2-mcap/` decoded by us (through the `robolog` library's
//! decoder registry, what `robolog cat --json` uses) and by python `mcap`
//! 1.6.0 with `mcap-ros2-support` 0.6.0, compared value by value. Run as
//! `cargo xtask ros2 interop [--corpus DIR]` and from `cargo xtask ci`.
//!
//! Messages are matched by (file, topic, log time, occurrence among
//! messages with the same topic and log time). The comparison walks each
//! value along the channel's parsed definition, so every rule is tied to
//! a field's declared type:
//!
//! - integers, `bool`, strings: equal;
//! - `char` (which python reads as a signed byte, we as the unsigned byte
//!   ROS 2 maps it to): equal modulo 256;
//! - `float64`: bit-for-bit equal numbers (python's JSON prints the
//!   shortest text that reads back to the same double); NaN and the
//!   infinities, which JSON lacks, are compared as the strings `"NaN"`,
//!   `"Infinity"`, `"-Infinity"` on both sides;
//! - `float32`: python widens to a double; ours, widened the same way,
//!   must be that double exactly;
//! - `uint8`/`byte` arrays (python `bytes`) and `char` arrays (python
//!   lists of signed bytes): the same byte values;
//! - structs: the same field names in the same order, each equal;
//! - `builtin_interfaces/Time` and `Duration` (one instant or duration in
//!   ns on our side): python's `sec` * 10^9 + `nanosec`.
//!
//! Where python cannot decode (it rejects the `.srv` text of service-event
//! schemas; it has no decoder for an unknown message encoding; it does
//! not implement `wstring`), the message is not compared: we must still
//! decode every `cdr`/`ros2msg` message, and show messages of unknown
//! encodings raw (no decoder in the registry). Each case is counted in
//! the summary.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use logcore::{LogReader, MessageFilter, Value};
use ros2cdr::msg::{ArrayKind, FieldType, MsgDef, Primitive};
use serde_json::Value as Json;

use crate::Result;

/// `cargo xtask ros2 interop [--corpus DIR]`.
pub(crate) fn cmd(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("interop") | None => {
            let Some(dir) = crate::corpus::locate(crate::opt(args, "--corpus"))? else {
                return Ok(());
            };
            interop(&dir.join("ros2-mcap"))
        }
        Some(other) => Err(format!(
            "unknown `ros2` subcommand `{other}`; try `cargo xtask ros2 interop`"
        )),
    }
}

/// (file, topic, log time, occurrence).
type Key = (String, String, u64, usize);

/// Our decoding of one message (`None`: no decoder, shown raw) and the
/// parsed definition of its channel, if it has a `ros2msg` schema.
type Ours = (Result<Option<Value>>, Option<Arc<ros2cdr::MessageType>>);

/// Our side: every message of `path` keyed, with its value or `None`
/// when the registry has no decoder for its channel (shown raw), and the
/// channel's parsed definition when it has a `ros2msg` schema.
fn ours(path: &Path, key_file: &str, out: &mut BTreeMap<Key, Ours>) -> Result {
    let log = robolog::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let channels = log
        .channels()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut types = BTreeMap::new();
    let mut has_decoder = BTreeMap::new();
    for c in &channels {
        has_decoder.insert(c.id, log.registry().decoder_for(c).is_some());
        if let Some(s) = &c.schema {
            if s.encoding == "ros2msg" {
                let text = String::from_utf8_lossy(&s.data);
                let t = ros2cdr::MessageType::parse(&s.name, &text)
                    .map_err(|e| format!("{}: channel {}: {e}", path.display(), c.topic))?;
                types.insert(c.id, Arc::new(t));
            }
        }
    }
    let topics: BTreeMap<_, _> = channels.iter().map(|c| (c.id, c.topic.clone())).collect();
    let mut seen: BTreeMap<(String, u64), usize> = BTreeMap::new();
    let messages = log
        .messages(&MessageFilter::all())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    for m in messages {
        let m = m.map_err(|e| format!("{}: {e}", path.display()))?;
        let topic = topics.get(&m.channel).cloned().unwrap_or_default();
        let t = m.log_time.as_nanos() as u64;
        let n = seen.entry((topic.clone(), t)).or_default();
        let key = (key_file.to_string(), topic, t, *n);
        *n += 1;
        let value = if has_decoder.get(&m.channel).copied().unwrap_or(false) {
            log.decode(&m).map(Some).map_err(|e| e.to_string())
        } else {
            Ok(None)
        };
        out.insert(key, (value, types.get(&m.channel).cloned()));
    }
    Ok(())
}

/// Runs the comparison on every `.mcap` file in `dir`.
pub(crate) fn interop(dir: &Path) -> Result {
    let files = crate::mcap::mcap_files(dir)?;
    if files.is_empty() {
        return Err(format!("no .mcap files in {}", dir.display()));
    }
    let venv = crate::python::Venv::with(&["mcap", "mcap-ros2-support", "pytest"])?;
    let work = crate::root().join("target/ros2-interop");
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    // Python's side: pytest's `xtask/pytests/test_ros2_interop.py` records
    // `[topic, log_time, "ok", value]` or `[topic, log_time, "undecoded",
    // why]` for every message of each file.
    let entries: Vec<Json> = files
        .iter()
        .map(|p| {
            let id = p.file_name().unwrap_or_default().to_string_lossy();
            serde_json::json!({"id": id, "file": p.display().to_string()})
        })
        .collect();
    let records = venv
        .pytest("test_ros2_interop.py")
        .manifest(
            &work.join("manifest.json"),
            &serde_json::json!({"entries": entries}),
        )?
        .run()?;
    let mut theirs: BTreeMap<Key, (String, Json)> = BTreeMap::new();
    let mut seen: BTreeMap<(String, String, u64), usize> = BTreeMap::new();
    for r in &records {
        let file = r["file"].as_str().unwrap_or("").to_string();
        for v in r["messages"].as_array().into_iter().flatten() {
            let topic = v[0].as_str().unwrap_or("").to_string();
            let t = v[1].as_u64().unwrap_or(0);
            let n = seen.entry((file.clone(), topic.clone(), t)).or_default();
            let key = (file.clone(), topic, t, *n);
            *n += 1;
            theirs.insert(key, (v[2].as_str().unwrap_or("").to_string(), v[3].clone()));
        }
    }
    let mut mine = BTreeMap::new();
    for p in &files {
        ours(p, &p.display().to_string(), &mut mine)?;
    }

    let mut failures = Vec::new();
    let (mut equal, mut ours_only, mut raw) = (0usize, 0usize, 0usize);
    let mut why_ours_only: BTreeMap<String, usize> = BTreeMap::new();
    for (key, (value, ty)) in &mine {
        let at = format!("{} {} @{} #{}", key.0, key.1, key.2, key.3);
        let Some((status, theirs)) = theirs.remove(key) else {
            failures.push(format!("{at}: read by us, not by python mcap"));
            continue;
        };
        match (value, status.as_str()) {
            (Err(e), _) => failures.push(format!("{at}: we fail to decode it: {e}")),
            (Ok(None), "ok") => failures.push(format!("{at}: python decodes it, we show it raw")),
            (Ok(None), _) => raw += 1,
            (Ok(Some(_)), "ok") if ty.is_none() => {
                failures.push(format!("{at}: decoded without a ros2msg definition"))
            }
            (Ok(Some(v)), "ok") => {
                let ty = ty.as_deref().ok_or("unreachable")?;
                match same_struct(ty, &ty.defs()[0], v, &theirs, "") {
                    Ok(()) => equal += 1,
                    Err(e) => failures.push(format!("{at}: {e}")),
                }
            }
            (Ok(Some(_)), _) => {
                ours_only += 1;
                let why = theirs.as_str().unwrap_or("").to_string();
                let why = why.split(':').next().unwrap_or("").to_string();
                *why_ours_only.entry(why).or_default() += 1;
            }
        }
    }
    for key in theirs.keys() {
        failures.push(format!(
            "{} {} @{} #{}: read by python mcap, not by us",
            key.0, key.1, key.2, key.3
        ));
    }
    eprintln!(
        "xtask: ros2 interop with python mcap 1.6.0 + mcap-ros2-support 0.6.0 on {} files: \
         {equal} messages equal, {ours_only} decoded by us only ({why_ours_only:?}), \
         {raw} raw on both sides (no decoder for the message encoding), {} failures",
        files.len(),
        failures.len()
    );
    if equal == 0 {
        failures.push("no message was compared".into());
    }
    crate::verdict(
        "ros2 messages that differ from python mcap-ros2-support",
        &failures,
    )
}

fn same_struct(
    ty: &ros2cdr::MessageType,
    def: &MsgDef,
    ours: &Value,
    theirs: &Json,
    path: &str,
) -> std::result::Result<(), String> {
    let (Value::Struct(fields), Json::Object(obj)) = (ours, theirs) else {
        return Err(format!(
            "{path}: a struct on both sides, found {ours:?} and {theirs}"
        ));
    };
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    if names != keys {
        return Err(format!("{path}: fields {names:?}, python {keys:?}"));
    }
    for (f, (_, v)) in def.fields.iter().zip(fields) {
        let p = format!("{path}.{}", f.name);
        let t = &obj[&f.name];
        if f.array == ArrayKind::Scalar {
            same_element(ty, &f.ty, v, t, &p)?;
        } else {
            same_array(ty, &f.ty, v, t, &p)?;
        }
    }
    Ok(())
}

fn same_array(
    ty: &ros2cdr::MessageType,
    elem: &FieldType,
    ours: &Value,
    theirs: &Json,
    path: &str,
) -> std::result::Result<(), String> {
    let Json::Array(items) = theirs else {
        return Err(format!("{path}: python gives {theirs}, not a list"));
    };
    let ours: Vec<Value> = match ours {
        Value::Bytes(b) => b.iter().map(|&x| Value::U64(u64::from(x))).collect(),
        Value::F32Array(a) => a.iter().map(|&x| Value::F32(x)).collect(),
        Value::F64Array(a) => a.iter().map(|&x| Value::F64(x)).collect(),
        Value::Array(a) => a.clone(),
        other => return Err(format!("{path}: an array, found {other:?}")),
    };
    if ours.len() != items.len() {
        return Err(format!(
            "{path}: {} elements, python {}",
            ours.len(),
            items.len()
        ));
    }
    for (i, (o, t)) in ours.iter().zip(items).enumerate() {
        same_element(ty, elem, o, t, &format!("{path}[{i}]"))?;
    }
    Ok(())
}

fn same_element(
    ty: &ros2cdr::MessageType,
    elem: &FieldType,
    ours: &Value,
    theirs: &Json,
    path: &str,
) -> std::result::Result<(), String> {
    let differ = || Err(format!("{path}: ours {ours:?}, python {theirs}"));
    let float = |x: f64| -> bool {
        match theirs {
            Json::String(s) if !x.is_finite() => {
                s == if x.is_nan() {
                    "NaN"
                } else if x > 0.0 {
                    "Infinity"
                } else {
                    "-Infinity"
                }
            }
            Json::Number(n) => n.as_f64().is_some_and(|y| y.to_bits() == x.to_bits()),
            _ => false,
        }
    };
    let ok = match (elem, ours) {
        // builtin_interfaces' Time and Duration: one instant (duration) in
        // ns on our side, python's two fields sec * 10^9 + nanosec.
        (FieldType::Message(_), Value::Time(_) | Value::Duration(_)) => {
            let ns = match ours {
                Value::Time(t) => t.as_nanos(),
                Value::Duration(d) => *d,
                _ => 0,
            };
            let sec = theirs.get("sec").and_then(Json::as_i64);
            let nanosec = theirs.get("nanosec").and_then(Json::as_i64);
            matches!((sec, nanosec), (Some(s), Some(n)) if s * 1_000_000_000 + n == ns)
        }
        (FieldType::Message(name), _) => {
            let def = ty
                .def(name)
                .ok_or_else(|| format!("{path}: no definition of {name}"))?;
            return same_struct(ty, def, ours, theirs, path);
        }
        (FieldType::Primitive(Primitive::Char), Value::U64(u)) => theirs
            .as_i64()
            .is_some_and(|i| i.rem_euclid(256) as u64 == *u),
        (FieldType::Primitive(Primitive::Float32), Value::F32(x)) => float(f64::from(*x)),
        (FieldType::Primitive(Primitive::Float64), Value::F64(x)) => float(*x),
        (FieldType::Primitive(Primitive::Bool), Value::Bool(b)) => theirs.as_bool() == Some(*b),
        (FieldType::Primitive(_), Value::I64(i)) => theirs.as_i64() == Some(*i),
        (FieldType::Primitive(_), Value::U64(u)) => theirs.as_u64() == Some(*u),
        (FieldType::String { .. } | FieldType::WString { .. }, Value::String(s)) => {
            theirs.as_str() == Some(s.as_str())
        }
        _ => false,
    };
    if ok { Ok(()) } else { differ() }
}
