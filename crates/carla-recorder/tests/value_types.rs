//! The declared types of the channels ([`LogReader::value_type`]) against
//! the values their messages decode to: every message of the sample
//! recording in every layout, of the test recordings and of the corpus
//! (`../shared/corpus/carla`, or `$ROBOLOG_CORPUS/carla`; skipped when
//! absent); and exact types of packet kinds.

mod common;

use std::path::{Path, PathBuf};

use carla_recorder::*;
use common::*;
use logcore::{ChannelId, LogReader, MessageFilter, ValueType};

fn corpus() -> Option<PathBuf> {
    robolog_testkit::corpus("carla")
}

/// Checks every message of every channel; returns how many were checked.
fn check(bytes: &[u8], what: &str) -> usize {
    let rec = Recording::new(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut types = std::collections::HashMap::new();
    for c in rec.channels().unwrap() {
        let t = rec.value_type(c.id).unwrap();
        let t = t.unwrap_or_else(|| panic!("{what}: no type for {}", c.topic));
        types.insert(c.id, t);
    }
    let mut checked = 0;
    for m in rec.messages(&MessageFilter::all()).unwrap() {
        let m = m.unwrap_or_else(|e| panic!("{what}: {e}"));
        let v = rec.decode(&m).unwrap();
        let t = &types[&m.channel];
        if let Err(e) = t.admits(&v) {
            panic!(
                "{what}: channel {} packet at offset {:?}: {e}",
                m.channel, m.offset
            );
        }
        checked += 1;
    }
    checked
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn every_packet_kind_decodes_to_its_type_in_every_layout() {
    for layout in [
        Layout::CARLA_0_9_10,
        Layout::CARLA_0_9_13,
        Layout::CARLA_0_9_15,
        Layout::CARLA_0_10,
    ] {
        let bytes = sample(layout);
        let n = check(&bytes, &format!("sample in {layout:?}"));
        assert!(n > 100, "{n} messages");
    }
}

#[test]
fn test_and_corpus_recordings_decode_to_their_types() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/carla");
    let mut all = files(&dir, "rec");
    assert_eq!(all.len(), 3);
    if let Some(c) = corpus() {
        let logs = files(&c, "log");
        assert!(!logs.is_empty(), "no .log files in {}", c.display());
        all.extend(logs);
    }
    for f in all {
        let bytes = std::fs::read(&f).unwrap();
        assert!(check(&bytes, &f.display().to_string()) > 0);
    }
}

#[test]
fn packet_kinds_have_their_exact_types() {
    let v64 = ValueType::record([
        ("x", ValueType::F64),
        ("y", ValueType::F64),
        ("z", ValueType::F64),
    ]);
    assert_eq!(
        packet_type(PacketId::Kinematics as u8, &Layout::CARLA_0_10),
        ValueType::record([(
            "records",
            ValueType::list(ValueType::record([
                ("id", ValueType::U32),
                ("linear_velocity", v64.clone()),
                ("angular_velocity", v64),
            ]))
        )])
    );
    assert_eq!(
        packet_type(PacketId::SceneLight as u8, &Layout::default()),
        ValueType::record([(
            "records",
            ValueType::list(ValueType::record([
                ("id", ValueType::I32),
                ("intensity", ValueType::F32),
                ("color", ValueType::fixed(ValueType::F32, 4)),
                ("on", ValueType::Bool),
                ("group", ValueType::U8),
            ]))
        )])
    );
    assert_eq!(
        packet_type(PacketId::FrameStart as u8, &Layout::default()),
        ValueType::record([
            ("frame", ValueType::U64),
            ("duration", ValueType::F64),
            ("elapsed", ValueType::F64),
        ])
    );
    let raw = ValueType::record([("id", ValueType::U8), ("payload", ValueType::Bytes)]);
    assert_eq!(packet_type(139, &Layout::default()), raw);
    assert_eq!(
        packet_type(PacketId::PhysicsControl as u8, &Layout::CARLA_0_10),
        raw
    );
    // 36-byte wheel records have no stiffness fields.
    let wheel_fields = |l: &Layout| {
        let ValueType::Struct(f) = packet_type(PacketId::PhysicsControl as u8, l) else {
            panic!("not a struct")
        };
        let ValueType::List(rec) = &f[0].ty else {
            panic!("not a list")
        };
        let ValueType::Struct(rec) = &**rec else {
            panic!("not a struct")
        };
        let wheels = rec.iter().find(|f| f.name == "wheels").unwrap();
        let ValueType::List(w) = &wheels.ty else {
            panic!("not a list")
        };
        let ValueType::Struct(w) = &**w else {
            panic!("not a struct")
        };
        w.iter().map(|f| f.name.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(wheel_fields(&Layout::CARLA_0_9_10).len(), 7);
    assert_eq!(
        wheel_fields(&Layout::CARLA_0_9_13)[6..],
        [
            "lat_stiff_max_load",
            "lat_stiff_value",
            "long_stiff_value",
            "position"
        ]
    );
}

#[test]
fn id_18_is_typed_by_what_the_file_holds() {
    let write = |payloads: &[&[u8]]| {
        let mut w = Writer::new(InfoHeader::new(DATE, b"Town10HD_Opt")).unwrap();
        for p in payloads {
            w.tick(0.0, &[Packet::Raw { id: 18, payload: p }]).unwrap();
        }
        w.finish()
    };
    let type_of = |bytes: &[u8]| {
        let rec = Recording::new(bytes).unwrap();
        rec.value_type(ChannelId(18)).unwrap().unwrap()
    };
    let counter = write(&[&7u64.to_le_bytes()]);
    assert_eq!(
        type_of(&counter),
        ValueType::record([("frame_counter", ValueType::U64)])
    );
    let fork = write(&[&[1, 2, 3]]);
    assert_eq!(type_of(&fork), raw_packet_type());
    assert_eq!(check(&fork, "fork"), 2);
    let mixed = write(&[&[1, 2, 3], &7u64.to_le_bytes()]);
    assert_eq!(type_of(&mixed), ValueType::Any);
    assert_eq!(check(&mixed, "mixed"), 4);
    let rec = Recording::new(&counter).unwrap();
    assert!(rec.value_type(ChannelId(300)).is_err());
}
