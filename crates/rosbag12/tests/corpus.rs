//! The real ROS 1 bags of the shared corpus (`<corpus>/rosbag/`, see its
//! README.txt): every bag opens from its stored index, yields exactly the
//! README's message count in time order (strict mode, no error) with the
//! README's chunk compression, every message decodes with zero leftover
//! bytes and `decode_into` a reused value gives what `decode` gives, every
//! stored md5 equals the one computed from the definition, and the spec's
//! md5 vectors (6.5) hold wherever a bag holds the type. Skipped when the
//! corpus is absent.

use std::collections::BTreeMap;
use std::path::Path;

use logcore::{LogReader, MessageFilter, Value};
use rosbag12::{Bag, IndexSource};

/// What the corpus README states about a file.
#[derive(Default, Clone)]
struct Facts {
    messages: Option<u64>,
    /// e.g. `lz4 x6` (2.0 bags only).
    compression: Option<String>,
}

/// `messages : N` and `compression : KIND xN` per file name, from the
/// corpus README.
fn readme_facts(dir: &Path) -> BTreeMap<String, Facts> {
    let text = std::fs::read_to_string(dir.join("README.txt")).unwrap_or_default();
    let mut out: BTreeMap<String, Facts> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.ends_with(".bag") && !line.starts_with(' ') {
            current = Some(line.trim().to_string());
            continue;
        }
        let Some(name) = &current else { continue };
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "messages" => out.entry(name.clone()).or_default().messages = value.parse().ok(),
            "compression" if value.contains(" x") => {
                out.entry(name.clone()).or_default().compression = Some(value.to_string());
            }
            _ => {}
        }
    }
    out
}

/// md5 sums from the spec's table (6.5), checked wherever a corpus bag
/// holds the type.
const SPEC_MD5: [(&str, &str); 9] = [
    ("std_msgs/Header", "2176decaecbce78abc3b96ef049fabed"),
    ("std_msgs/String", "992ce8a1687cec8c8bd883ec73ca41d1"),
    ("std_msgs/Int32", "da5909fbe378aeaf85e547e830cc1bb7"),
    ("std_msgs/Empty", "d41d8cd98f00b204e9800998ecf8427e"),
    ("rosgraph_msgs/Log", "acffd30cd6b6de30f120938c17c593fb"),
    ("sensor_msgs/LaserScan", "90c7ef2dc6895d81024acba2ac42f369"),
    ("geometry_msgs/Twist", "9f195f881246fdfa2798d1d3eebca84a"),
    ("tf2_msgs/TFMessage", "94810edda583a504dfda3829e70d7eec"),
    (
        "test_roscpp_serialization/Constants",
        "0032309c8dd2c569e0e0d0e75974e750",
    ),
];

#[test]
fn every_corpus_bag_reads_and_decodes_as_its_readme_says() {
    let Some(bag_dir) = robolog_testkit::corpus("rosbag") else {
        return;
    };
    let facts = readme_facts(&bag_dir);
    assert!(!facts.is_empty(), "README.txt states no message counts");
    let files = robolog_testkit::files_with_ext(&bag_dir, &["bag"]);
    assert!(!files.is_empty(), "no bags under {}", bag_dir.display());
    let mut failures = Vec::new();
    let mut total = 0u64;
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match check_bag(path, facts.get(&name).cloned().unwrap_or_default()) {
            Ok(n) => total += n,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!("{} bags, {total} messages decoded", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check_bag(path: &Path, expected: Facts) -> Result<u64, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let bag = Bag::new(&bytes).map_err(|e| e.to_string())?;
    if bag.index_source() != IndexSource::Stored {
        return Err(format!(
            "index not read from the file: {:?}",
            bag.warnings()
        ));
    }
    if let Some(e) = bag.end_error() {
        return Err(e.to_string());
    }
    let summary = bag.summary().map_err(|e| e.to_string())?;
    if let Some(want) = &expected.compression {
        let got: Vec<String> = bag
            .compression_counts()
            .iter()
            .map(|(k, n)| format!("{k} x{n}"))
            .collect();
        if got.join(", ") != *want {
            return Err(format!("chunks {}, README says {want}", got.join(", ")));
        }
    }
    if let Some(n) = expected.messages {
        if summary.message_count != n {
            return Err(format!(
                "{} messages, README says {n}",
                summary.message_count
            ));
        }
    }
    for c in bag.connections() {
        let t = bag.message_type(c.id).map_err(|e| e.to_string())?;
        if let Some(stored) = &t.stored_md5_mismatch {
            return Err(format!(
                "{}: stored md5 {stored}, computed {}",
                c.type_name, t.md5sum
            ));
        }
        for (ty, want) in SPEC_MD5 {
            let sums = rosbag12::msg::md5sums(&t.defs).map_err(|e| e.to_string())?;
            let alias = ty.replace("std_msgs/Header", "roslib/Header");
            for name in [ty, alias.as_str()] {
                if let Some(got) = sums.get(name) {
                    if got != want {
                        return Err(format!("md5 of {name} is {got}, spec says {want}"));
                    }
                }
            }
        }
    }
    let mut n = 0u64;
    let mut last = None;
    // One value reused across every message and type: decode_into must
    // give what decode gives whatever the value held before.
    let mut reused = Value::Null;
    for m in bag.messages(&MessageFilter::all()) {
        let m = m.map_err(|e| e.to_string())?;
        if last.is_some_and(|t| t > m.time) {
            return Err(format!(
                "message at {:?} after {:?}: not in time order",
                m.time, last
            ));
        }
        last = Some(m.time);
        let v = bag.decode(m.conn, &m.data).map_err(|e| e.to_string())?;
        bag.decode_into(m.conn, &m.data, &mut reused)
            .map_err(|e| e.to_string())?;
        // Compared through Debug text, where NaN equals NaN.
        if format!("{reused:?}") != format!("{v:?}") {
            return Err(format!(
                "message at {:?}: decode_into differs from decode",
                m.time
            ));
        }
        n += 1;
    }
    if n != summary.message_count {
        return Err(format!(
            "iterated {n} messages, index says {}",
            summary.message_count
        ));
    }
    eprintln!(
        "{}: version {}, {} connections, {} chunks, {n} messages decoded",
        path.display(),
        bag.version(),
        bag.connections().len(),
        bag.chunk_infos().len()
    );
    Ok(n)
}
