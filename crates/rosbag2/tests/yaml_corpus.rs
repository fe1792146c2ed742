//! The YAML reader and the typed metadata against every metadata
//! document of the corpus (`../shared/corpus/rosbag2`: each bag's
//! `metadata.yaml` and the metadata the lone `.db3` keeps), compared
//! with what ruamel.yaml's safe loader reads from them
//! (`expected/metadata.json`, made by `rosbags_dump.py`). Skipped when
//! the corpus is absent.

mod common;

use rosbag2::Metadata;
use saphyr::{LoadableYamlNode, Scalar, Yaml};
use serde_json::Value as Json;

/// Compares a node as `saphyr` reads it (plain scalars typed as YAML's
/// core schema types them) with ruamel's JSON.
fn same(y: &Yaml<'_>, j: &Json, path: &str) {
    match (y, j) {
        (Yaml::Mapping(m), Json::Object(o)) => {
            let keys: Vec<&str> = m.keys().map(|k| k.as_str().unwrap()).collect();
            let want: Vec<&str> = o.keys().map(String::as_str).collect();
            assert_eq!(keys, want, "{path}");
            for (k, v) in m {
                let k = k.as_str().unwrap();
                same(v, &o[k], &format!("{path}.{k}"));
            }
        }
        (Yaml::Sequence(s), Json::Array(a)) => {
            assert_eq!(s.len(), a.len(), "{path}");
            for (k, (x, w)) in s.iter().zip(a).enumerate() {
                same(x, w, &format!("{path}[{k}]"));
            }
        }
        (Yaml::Value(Scalar::Null), Json::Null) => {}
        (Yaml::Value(Scalar::String(s)), Json::String(w)) => assert_eq!(s, w, "{path}"),
        (Yaml::Value(Scalar::Integer(i)), Json::Number(n)) => {
            assert_eq!(n.as_i64(), Some(*i), "{path}");
        }
        (Yaml::Value(Scalar::Boolean(b)), Json::Bool(w)) => assert_eq!(b, w, "{path}"),
        (y, j) => panic!("{path}: {y:?} vs {j}"),
    }
}

#[test]
fn corpus_metadata_parses_as_ruamel_reads_it() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let expected =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected/metadata.json");
    let docs: Json = serde_json::from_str(&std::fs::read_to_string(expected).unwrap()).unwrap();
    let docs = docs.as_object().unwrap();
    assert_eq!(docs.len(), 14);
    for (name, d) in docs {
        let text = match d["text"].as_str() {
            Some(t) => t.to_string(),
            None => std::fs::read_to_string(corpus.join(name)).unwrap(),
        };
        let y = Yaml::load_from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        same(&y[0], &d["yaml"], name);
        // The typed metadata says the same.
        let m = Metadata::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let info = d["yaml"]
            .get("rosbag2_bagfile_information")
            .unwrap_or(&d["yaml"]);
        assert_eq!(
            Some(u64::from(m.version)),
            info["version"].as_u64(),
            "{name}"
        );
        assert_eq!(
            Some(m.message_count),
            info["message_count"].as_u64(),
            "{name}"
        );
        assert_eq!(
            Some(m.starting_time),
            info["starting_time"]["nanoseconds_since_epoch"].as_i64(),
            "{name}"
        );
        let topics = info["topics_with_message_count"].as_array().unwrap();
        assert_eq!(m.topics.len(), topics.len(), "{name}");
        for (t, w) in m.topics.iter().zip(topics) {
            assert_eq!(Some(t.name.as_str()), w["topic_metadata"]["name"].as_str());
            assert_eq!(
                Some(t.type_name.as_str()),
                w["topic_metadata"]["type"].as_str()
            );
            assert_eq!(Some(t.message_count), w["message_count"].as_u64());
            let qos = w["topic_metadata"]["offered_qos_profiles"]
                .as_str()
                .unwrap();
            assert_eq!(t.offered_qos_profiles, qos);
            // The profiles in the string: one `- history:` per profile.
            assert_eq!(
                t.qos_profiles.len(),
                qos.matches("- history:").count(),
                "{name}"
            );
            for p in &t.qos_profiles {
                assert!(qos.contains(&format!("depth: {}", p.depth)), "{name}");
                assert!(qos.contains(&format!("sec: {}", p.deadline.sec)), "{name}");
            }
        }
        assert_eq!(
            m.files.len(),
            info.get("files")
                .and_then(Json::as_array)
                .map_or(0, Vec::len)
        );
        assert_eq!(
            m.relative_file_paths,
            info["relative_file_paths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect::<Vec<_>>(),
            "{name}"
        );
    }
}
