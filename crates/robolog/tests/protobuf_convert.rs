//! The `protobuf` encoding of ULog, CARLA and VEL conversions against
//! their `json` encoding: for every such file of the repository's test
//! data, both outputs have the same channels with the same message counts,
//! and every protobuf message, decoded by robolog's descriptor-based
//! decoder (prost-reflect, reading the channel's file descriptor set;
//! independent of the encoder), holds the numbers, strings and bytes of the
//! same JSON message.
#![cfg(all(
    feature = "ulog",
    feature = "carla",
    feature = "vellog",
    feature = "mcap",
    feature = "protobuf"
))]

use std::collections::BTreeMap;
use std::path::PathBuf;

use logcore::{LogReader, MessageFilter, Value};
use robolog::convert::{ConvertOptions, Encoding, to_mcap};

/// A message's leaves: path → number (f64), text or bytes. Proto3 leaves
/// at their default (0, `""`, empty) are left out, as a protobuf message
/// does not carry them; a time's `sec`/`nsec` are `seconds`/`nanos`.
#[derive(Debug, Clone, PartialEq)]
enum Leaf {
    Num(f64),
    Text(String),
    Bytes(Vec<u8>),
}

fn leaves(v: &Value, path: &str, json: bool, out: &mut BTreeMap<String, Leaf>) {
    let num = |x: f64, out: &mut BTreeMap<String, Leaf>| {
        if x != 0.0 {
            out.insert(path.to_string(), Leaf::Num(x));
        }
    };
    match v {
        Value::Struct(fields) => {
            for (k, v) in fields {
                let k = match k.as_ref() {
                    "sec" => "seconds",
                    "nsec" => "nanos",
                    k => k,
                };
                leaves(v, &format!("{path}.{k}"), json, out);
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                leaves(x, &format!("{path}[{i}]"), json, out);
            }
        }
        Value::F32Array(items) => {
            for (i, x) in items.iter().enumerate() {
                leaves(&Value::F32(*x), &format!("{path}[{i}]"), json, out);
            }
        }
        Value::F64Array(items) => {
            for (i, x) in items.iter().enumerate() {
                leaves(&Value::F64(*x), &format!("{path}[{i}]"), json, out);
            }
        }
        Value::Bool(b) => num(f64::from(u8::from(*b)), out),
        Value::I64(x) => num(*x as f64, out),
        Value::U64(x) => num(*x as f64, out),
        Value::F32(x) => num(f64::from(*x), out),
        Value::F64(x) => num(*x, out),
        Value::String(s) if json && matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => num(
            s.replace("Infinity", "inf").parse().unwrap_or(f64::NAN),
            out,
        ),
        Value::String(s) if !s.is_empty() => {
            out.insert(path.to_string(), Leaf::Text(s.clone()));
        }
        Value::Bytes(b) if !b.is_empty() => {
            out.insert(path.to_string(), Leaf::Bytes(b.clone()));
        }
        _ => {}
    }
}

/// The standard base64 text `s` decoded (bytes are base64 in the JSON form).
fn unbase64(s: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let mut out = Vec::new();
    for quad in s.as_bytes().chunks(4) {
        let pad = quad.iter().filter(|c| **c == b'=').count();
        let mut n = 0u32;
        for c in quad {
            n = (n << 6) | if *c == b'=' { 0 } else { digit(*c)? };
        }
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pad]);
    }
    Some(out)
}

/// Whether the JSON leaf `j` is the protobuf leaf `p`: equal, a float32
/// written as its shortest decimal in JSON and widened in protobuf, an enum
/// number in JSON and its name in protobuf, or base64 text of the bytes.
fn agree(j: &Leaf, p: &Leaf) -> bool {
    match (j, p) {
        (Leaf::Num(a), Leaf::Num(b)) => {
            a == b || (a.is_nan() && b.is_nan()) || f64::from(*a as f32) == *b
        }
        (Leaf::Num(_), Leaf::Text(name)) => name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
        (Leaf::Text(s), Leaf::Bytes(b)) => unbase64(s).as_deref() == Some(b.as_slice()),
        _ => j == p,
    }
}

type Messages = BTreeMap<String, (String, Vec<Value>)>;

/// The messages of `log` converted with `encoding`: topic → (message
/// encoding, decoded values).
fn converted(bytes: &[u8], encoding: Encoding) -> Messages {
    let log = robolog::open_bytes(bytes).unwrap();
    let opts = ConvertOptions {
        encoding,
        ..ConvertOptions::default()
    };
    let (mcap, _) = to_mcap(&log, Vec::new(), &opts, &mut |_| {}).unwrap();
    let out = robolog::open_bytes(&mcap).unwrap();
    let channels = out.channels().unwrap();
    let mut messages = Messages::new();
    for m in out.messages(&MessageFilter::all()).unwrap() {
        let m = m.unwrap();
        let ch = channels.iter().find(|c| c.id == m.channel).unwrap();
        let enc = ch
            .schema
            .as_ref()
            .map(|s| s.encoding.clone())
            .unwrap_or_default();
        let v = out.decode(&m).unwrap();
        messages
            .entry(ch.topic.clone())
            .or_insert_with(|| (enc, Vec::new()))
            .1
            .push(v);
    }
    messages
}

#[test]
fn protobuf_messages_hold_the_json_values() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let mut files = 0;
    let mut compared = 0;
    for dir in ["ulog", "carla", "vellog"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some("ulg" | "rec" | "vel")
                )
            })
            .collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap();
            let json = converted(&bytes, Encoding::Json);
            let proto = converted(&bytes, Encoding::Protobuf);
            let shown = path.display();
            assert_eq!(
                json.keys().collect::<Vec<_>>(),
                proto.keys().collect::<Vec<_>>(),
                "{shown}"
            );
            for (topic, (enc, pvs)) in &proto {
                assert_eq!(enc, "protobuf", "{shown} {topic}");
                let (jenc, jvs) = &json[topic];
                assert_eq!(jenc, "jsonschema", "{shown} {topic}");
                assert_eq!(jvs.len(), pvs.len(), "{shown} {topic}");
                for (i, (jv, pv)) in jvs.iter().zip(pvs).enumerate() {
                    let (mut j, mut p) = (BTreeMap::new(), BTreeMap::new());
                    leaves(jv, "", true, &mut j);
                    leaves(pv, "", false, &mut p);
                    assert_eq!(
                        j.keys().collect::<Vec<_>>(),
                        p.keys().collect::<Vec<_>>(),
                        "{shown} {topic}[{i}]"
                    );
                    for (k, a) in &j {
                        assert!(
                            agree(a, &p[k]),
                            "{shown} {topic}[{i}]{k}: {a:?} vs {:?}",
                            p[k]
                        );
                    }
                    compared += 1;
                }
            }
            files += 1;
        }
    }
    assert!(files >= 10, "{files} files");
    assert!(compared > 300, "{compared} messages");
}
