//! Message definitions read through the shared grammar (`rosmsg`,
//! ROS 1 dialect): every connection of every corpus bag (files written by
//! ROS and other tools) parses and gives the md5 the bag stores, and the
//! bounded types ROS 2 to ROS 1 conversions write read as rosbags 0.11.9
//! writes them.

use std::path::PathBuf;

use logcore::Value;
use rosbag12::msg::{ArrayKind, BaseType, Builtin, parse_definition};
use rosbag12::{Bag, MessageType};

fn corpus_bags() -> Vec<PathBuf> {
    let dir = robolog_testkit::corpus_root().join("rosbag");
    let bags = robolog_testkit::files_with_ext(&dir, &["bag"]);
    if bags.is_empty() {
        eprintln!("no rosbag corpus at {}: skipped", dir.display());
    }
    bags
}

#[test]
fn every_corpus_definition_parses_with_the_stored_md5() {
    let mut connections = 0;
    let mut types = 0;
    for path in corpus_bags() {
        let bytes = std::fs::read(&path).unwrap();
        let bag = Bag::new(&bytes).unwrap();
        for c in bag.connections() {
            let t = MessageType::from_connection(c)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), c.topic));
            // The corpus README: every stored md5 equals the one computed
            // from the stored definition by an independent parser.
            assert_eq!(
                t.stored_md5_mismatch,
                None,
                "{}: {} ({})",
                path.display(),
                c.topic,
                c.type_name
            );
            assert_eq!(t.md5sum, c.md5sum, "{}: {}", path.display(), c.topic);
            connections += 1;
            types += t.defs.len();
        }
    }
    if connections > 0 {
        assert!(connections >= 40, "only {connections} connections");
        assert!(types > connections, "{types} types");
    }
}

#[test]
fn corpus_point_cloud_definition_has_the_known_fields() {
    let paths = corpus_bags();
    let Some(path) = paths.iter().find(|p| p.ends_with("swri-PointCloud2.bag")) else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let bag = Bag::new(&bytes).unwrap();
    let c = &bag.connections()[0];
    assert_eq!(c.type_name, "sensor_msgs/PointCloud2");
    let t = MessageType::from_connection(c).unwrap();
    let top = &t.defs[0];
    let shape: Vec<(&str, &str, ArrayKind)> = top
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.type_text.as_str(), f.array))
        .collect();
    assert_eq!(
        shape,
        [
            ("header", "Header", ArrayKind::Scalar),
            ("height", "uint32", ArrayKind::Scalar),
            ("width", "uint32", ArrayKind::Scalar),
            ("fields", "PointField[]", ArrayKind::Unbounded),
            ("is_bigendian", "bool", ArrayKind::Scalar),
            ("point_step", "uint32", ArrayKind::Scalar),
            ("row_step", "uint32", ArrayKind::Scalar),
            ("data", "uint8[]", ArrayKind::Unbounded),
            ("is_dense", "bool", ArrayKind::Scalar),
        ]
    );
    assert_eq!(
        top.fields[0].base,
        BaseType::Message("std_msgs/Header".into())
    );
    assert_eq!(
        top.fields[3].base,
        BaseType::Message("sensor_msgs/PointField".into())
    );
    let point_field = t
        .defs
        .iter()
        .find(|d| d.name == "sensor_msgs/PointField")
        .unwrap();
    let constants: Vec<(&str, &str)> = point_field
        .constants
        .iter()
        .map(|c| (c.name.as_str(), c.value.as_str()))
        .collect();
    assert_eq!(
        constants,
        [
            ("INT8", "1"),
            ("UINT8", "2"),
            ("INT16", "3"),
            ("UINT16", "4"),
            ("INT32", "5"),
            ("UINT32", "6"),
            ("FLOAT32", "7"),
            ("FLOAT64", "8"),
        ]
    );
    // sensor_msgs/PointCloud2's published md5.
    assert_eq!(t.md5sum, "1158d486dd51d683ce2f1be655c3c181");
}

#[test]
fn bounded_types_read_as_unbounded_with_the_md5_of_the_text() {
    // What rosbags 0.11.9 writes for the ROS 2 type `string<=5 name`,
    // `int32[<=3] v`, `int32[2] f` converted to ROS 1
    // (`generate_msgdef(ros_version=1)`), its md5 and a message it
    // serialized (`serialize_ros1`) of name "abc", v [7, -1], f [1, 2].
    let text = "string<=5 name\nint32[<=3] v\nint32[2] f\n";
    let t = MessageType::parse("p/B", text).unwrap();
    assert_eq!(t.md5sum, "4896157c4882a44a1e4a8e01b1d7b692");
    let f = &t.defs[0].fields;
    assert_eq!(f[0].base, BaseType::Builtin(Builtin::String));
    assert_eq!(f[0].array, ArrayKind::Scalar);
    assert_eq!(f[0].type_text, "string<=5");
    assert_eq!(f[1].array, ArrayKind::Unbounded);
    assert_eq!(f[1].type_text, "int32[<=3]");
    let hex = "030000006162630200000007000000ffffffff0100000002000000";
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let v = t.decode(&bytes, 0).unwrap();
    assert_eq!(v.get("name"), Some(&Value::String("abc".into())));
    assert_eq!(
        v.get("v"),
        Some(&Value::Array(vec![Value::I64(7), Value::I64(-1)]))
    );
    assert_eq!(t.encode(&v).unwrap(), bytes);
    // A bounded string constant (as the ROS 2 to ROS 1 conversion writes).
    let defs = parse_definition("p/C", "string<=3 S=ab # kept\nuint8 x").unwrap();
    assert_eq!(defs[0].constants[0].type_name, "string<=3");
    assert_eq!(defs[0].constants[0].value, "ab # kept");
}

#[test]
fn grammar_errors_name_the_line_and_what_was_expected() {
    let text = "int32 a\n================\nMSG: p/Q\nfloat64 x\nint32 b 5\n";
    let e = MessageType::parse("p/T", text).unwrap_err();
    assert_eq!(
        e,
        "line 5, column 9 (byte 52): expected the end of the line after the field name \
         (ROS 1 has no default values), found `5` (in the definition of p/Q)"
    );
    let e = MessageType::parse("p/T", "int32 a\nint32<=2 b").unwrap_err();
    assert!(e.starts_with("line 2, column 1 (byte 8)"), "{e}");
    assert!(e.contains("not a string type"), "{e}");
}
