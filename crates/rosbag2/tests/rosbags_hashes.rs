//! The RIHS01 type description hash of every message type of the bundled
//! standard definitions that rosbags 0.11.9 also has, against rosbags'
//! `Typestore.hash_rihs01` (`tests/rosbags_hashes.py`), for jazzy and
//! humble. Skipped, with a note, without the Python environment
//! (`target/interop-venv` of the checkout, or `$ROSBAGS_PYTHON`).
//!
//! rosbags gives a `.msg` `char` field the type id of an IDL `char` (13);
//! ROS 2 gives it that of `uint8` (3), as the hashes rosbag2 recorded for
//! service events show (`service_msgs/msg/ServiceEventInfo` has a
//! `char[16]`; `type_hash.rs` checks them). So every type is compared
//! with rosbags' function with that one id set to 3, and every type that
//! uses no `char` also with rosbags' function as it ships.

mod common;

use common::python;
use std::collections::BTreeMap;
use std::path::Path;

use rosbag2::{Definitions, Distro};

/// rosbags' hashes of the store `store`: (as shipped, `char` as uint8).
fn rosbags_hashes(
    python: &Path,
    store: &str,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rosbags_hashes.py");
    let out = std::process::Command::new(python)
        .arg(&script)
        .arg(store)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut j: BTreeMap<String, BTreeMap<String, String>> =
        serde_json::from_slice(&out.stdout).unwrap();
    (
        j.remove("stock").unwrap(),
        j.remove("char_as_uint8").unwrap(),
    )
}

fn compare(distro: Distro, store: &str, min_types: usize) {
    let Some(python) = python() else {
        return;
    };
    let (stock, fixed) = rosbags_hashes(&python, store);
    let ours = Definitions::bundled(distro);
    let mut compared = 0;
    let mut uses_char = Vec::new();
    let mut wrong = Vec::new();
    for (name, want) in &fixed {
        if ours.get(name).is_none() {
            continue;
        }
        let got = ours.type_description_hash(name);
        if got.as_deref() != Some(want.as_str()) {
            wrong.push(format!("{name}: ours {got:?}, rosbags {want}"));
        }
        if stock[name] != *want {
            uses_char.push(name.as_str());
        }
        compared += 1;
    }
    assert!(wrong.is_empty(), "{}:\n{}", distro.name(), wrong.join("\n"));
    assert!(
        compared >= min_types,
        "{}: only {compared} types compared",
        distro.name()
    );
    // The types where rosbags as shipped differs are exactly those
    // using a `char` (std_msgs Char, jazzy's ServiceEventInfo client_gid;
    // rosbags' rmw_dds_common types, which are not bundled, too).
    for name in &uses_char {
        let text = ours.resolve(name).unwrap();
        assert!(
            text.lines()
                .any(|l| l.trim_start().starts_with("char ") || l.trim_start().starts_with("char[")),
            "{name}: rosbags differs without a char"
        );
    }
    assert!(uses_char.contains(&"std_msgs/msg/Char"), "{uses_char:?}");
    eprintln!(
        "{}: {compared} types equal rosbags' hashes ({} of them using char, with rosbags' char id set to uint8's)",
        distro.name(),
        uses_char.len()
    );
}

#[test]
fn jazzy_hashes_equal_rosbags() {
    compare(Distro::Jazzy, "ROS2_JAZZY", 150);
}

#[test]
fn humble_hashes_equal_rosbags() {
    compare(Distro::Humble, "ROS2_HUMBLE", 140);
}
