//! Every message type of the bundled humble and jazzy definitions
//! against rosbags 0.11.9's type stores (`Stores.ROS2_HUMBLE`,
//! `Stores.ROS2_JAZZY`), through `tests/rosbags_types.py`, run once for
//! both:
//!
//! - the bundled definition parses to the fields rosbags' store has
//!   (names, types, string bounds, array kinds and lengths, in order) and
//!   the same constants;
//! - a CDR message rosbags serialises for the type, every field set to a
//!   value that is not its default, decodes to the values rosbags gave.
//!
//! rosbags' stores hold no services: the request and response of every
//! bundled service are compared with what rosbags' own `.msg` parser
//! makes of the two halves of the bundled `.srv` text.
//!
//! Skipped, with a note, without the Python environment
//! (`target/interop-venv` of the checkout, or `$ROSBAGS_PYTHON`).

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{python, same};
use ros2cdr::MessageType;
use ros2cdr::msg::{ArrayKind, FieldDef, FieldType, MsgDef};
use rosbag2::interfaces::{HUMBLE, JAZZY};
use rosbag2::{Definitions, Distro};
use serde_json::Value as Json;

/// rosbags' entries (`fields`, `constants`, `cdr`, `value`) by distro
/// name, then by type name.
fn reference(python: &Path) -> BTreeMap<String, BTreeMap<String, Json>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rosbags_types.py");
    let interfaces = Path::new(env!("CARGO_MANIFEST_DIR")).join("interfaces");
    let out = std::process::Command::new(python)
        .arg(&script)
        .arg(&interfaces)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The type of a field as `.msg` writes it, message types by their
/// canonical `pkg/Type` name: the form the script prints.
fn type_text(ty: &FieldType, array: ArrayKind) -> String {
    let base = match ty {
        FieldType::Primitive(p) => p.name().to_string(),
        FieldType::String { bound: None } => "string".into(),
        FieldType::String { bound: Some(n) } => format!("string<={n}"),
        FieldType::WString { bound: None } => "wstring".into(),
        FieldType::WString { bound: Some(n) } => format!("wstring<={n}"),
        FieldType::Message(name) => name.clone(),
    };
    match array {
        ArrayKind::Scalar => base,
        ArrayKind::Fixed(n) => format!("{base}[{n}]"),
        ArrayKind::Bounded(n) => format!("{base}[<={n}]"),
        ArrayKind::Unbounded => format!("{base}[]"),
    }
}

fn fields_of(def: &MsgDef) -> Vec<(String, String)> {
    def.fields
        .iter()
        .map(|f: &FieldDef| (f.name.clone(), type_text(&f.ty, f.array)))
        .collect()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// What differs between our parse and decode of the bundled `name` and
/// rosbags' entry `want`, one line per difference. `name` is a message
/// type, or the request or response of a service (`pkg/srv/Srv_Request`),
/// parsed from the text resolved for the service.
fn differences(defs: &Definitions, name: &str, want: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let resolved = match name.rsplit_once('_') {
        Some((srv, "Request" | "Response")) if name.contains("/srv/") => {
            defs.resolve(&format!("{srv}_Event"))
        }
        _ => defs.resolve(name),
    };
    let Some(text) = resolved else {
        return vec![format!("{name}: not resolved")];
    };
    let t = match MessageType::parse(name, &text) {
        Ok(t) => t,
        Err(e) => return vec![format!("{name}: does not parse: {e}")],
    };
    let def = &t.defs()[0];
    let ours = fields_of(def);
    let theirs: Vec<(String, String)> =
        serde_json::from_value(want["fields"].clone()).expect("fields");
    // rosbags gives a type without fields one placeholder member.
    let placeholder = [(
        "structure_needs_at_least_one_member".to_string(),
        "uint8".to_string(),
    )];
    if ours != theirs && !(ours.is_empty() && theirs == placeholder) {
        out.push(format!("{name}: fields {ours:?}, rosbags {theirs:?}"));
    }
    let constants = want["constants"].as_array().expect("constants");
    let ours_c: Vec<(&str, String)> = def
        .constants
        .iter()
        .map(|c| (c.name.as_str(), type_text(&c.ty, ArrayKind::Scalar)))
        .collect();
    let theirs_c: Vec<(&str, String)> = constants
        .iter()
        .map(|c| {
            let base = c[1].as_str().unwrap_or_default();
            (c[0].as_str().unwrap_or_default(), base.to_string())
        })
        .collect();
    if ours_c != theirs_c {
        out.push(format!(
            "{name}: constants {ours_c:?}, rosbags {theirs_c:?}"
        ));
    } else {
        for (c, w) in def.constants.iter().zip(constants) {
            if let Err(e) = same(&c.value, &w[2], &format!("{name}.{}", c.name)) {
                out.push(format!("constant {e}"));
            }
        }
    }
    let cdr = hex(want["cdr"].as_str().expect("cdr"));
    match t.decode(&cdr, 0) {
        Ok(v) => {
            if let Err(e) = same(&v, &want["value"], name) {
                out.push(format!("value {e}"));
            }
        }
        Err(e) => out.push(format!("{name}: rosbags' message does not decode: {e}")),
    }
    out
}

#[test]
fn every_bundled_type_equals_rosbags_type_store() {
    let Some(python) = python() else {
        return;
    };
    let reference = reference(&python);
    // rosbags' stores lack these bundled types.
    let absent: [(Distro, &str, &[&str]); 2] = [
        (
            Distro::Humble,
            HUMBLE,
            &[
                "geometry_msgs/msg/VelocityStamped",
                "test_msgs/msg/Builtins",
            ],
        ),
        (Distro::Jazzy, JAZZY, &["test_msgs/msg/Builtins"]),
    ];
    let mut report = Vec::new();
    for (distro, store, want_absent) in absent {
        let want = &reference[distro.name()];
        let defs = Definitions::bundled(distro);
        let mut checked = 0;
        let mut missing = Vec::new();
        let mut services = 0;
        for line in store.lines() {
            let names = match (line.strip_prefix("MSG: "), line.strip_prefix("SRV: ")) {
                (Some(msg), _) => vec![msg.to_string()],
                (_, Some(srv)) => {
                    services += 1;
                    vec![format!("{srv}_Request"), format!("{srv}_Response")]
                }
                _ => continue,
            };
            for name in names {
                let Some(w) = want.get(&name) else {
                    missing.push(name);
                    continue;
                };
                checked += 1;
                report.extend(
                    differences(&defs, &name, w)
                        .into_iter()
                        .map(|d| format!("{}: {d}", distro.name())),
                );
            }
        }
        assert_eq!(missing, want_absent, "{}", distro.name());
        let messages = store.lines().filter(|l| l.starts_with("MSG: ")).count();
        assert_eq!(checked + missing.len(), messages + 2 * services);
        assert!(
            messages >= 140 && services >= 20,
            "{}: {messages} messages, {services} services",
            distro.name()
        );
        eprintln!(
            "{}: {checked} types checked ({} messages, {services} services' requests and \
             responses)",
            distro.name(),
            messages - missing.len()
        );
    }
    assert!(
        report.is_empty(),
        "{} differences:\n{}",
        report.len(),
        report.join("\n")
    );
}
