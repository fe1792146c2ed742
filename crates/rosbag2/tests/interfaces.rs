//! The bundled definitions (`interfaces/humble.txt`, `jazzy.txt`) equal
//! what `render_store` makes of the shared copies of the ROS 2 interface
//! packages (`../shared/ros2-interfaces/{humble,jazzy}`; skipped with a
//! note when absent). With `ROSBAG2_BLESS=1` the test rewrites the
//! bundled files instead.

use std::path::PathBuf;

use rosbag2::interfaces::{HUMBLE, JAZZY, render_store};

#[test]
fn the_bundled_store_is_the_shared_interfaces() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = match std::env::var_os("ROS2_INTERFACES") {
        Some(d) => PathBuf::from(d),
        None => root.join("../../../shared/ros2-interfaces"),
    };
    if !shared.is_dir() {
        eprintln!("skipped: no ROS 2 interfaces at {}", shared.display());
        return;
    }
    for (distro, bundled) in [("humble", HUMBLE), ("jazzy", JAZZY)] {
        let made = render_store(&shared.join(distro)).unwrap();
        if std::env::var_os("ROSBAG2_BLESS").is_some() {
            std::fs::write(root.join(format!("interfaces/{distro}.txt")), &made).unwrap();
            continue;
        }
        assert!(
            made == bundled,
            "interfaces/{distro}.txt differs from {}: regenerate it with ROSBAG2_BLESS=1",
            shared.join(distro).display()
        );
        assert!(made.contains("MSG: std_msgs/msg/Header\n"));
        assert!(made.contains("SRV: std_srvs/srv/SetBool\n"));
    }
}

#[test]
fn every_bundled_message_type_parses() {
    for (distro, d) in [
        (
            "humble",
            rosbag2::Definitions::bundled(rosbag2::Distro::Humble),
        ),
        (
            "jazzy",
            rosbag2::Definitions::bundled(rosbag2::Distro::Jazzy),
        ),
    ] {
        let store = if distro == "humble" { HUMBLE } else { JAZZY };
        let mut n = 0;
        for line in store.lines() {
            let (kind, name) = match (line.strip_prefix("MSG: "), line.strip_prefix("SRV: ")) {
                (Some(n), _) => ("msg", n),
                (_, Some(n)) => ("srv", n),
                _ => continue,
            };
            let ty = if kind == "srv" {
                format!("{name}_Event")
            } else {
                name.to_string()
            };
            let text = d.resolve(&ty).unwrap();
            ros2cdr::MessageType::parse(&ty, &text)
                .unwrap_or_else(|e| panic!("{distro} {ty}: {e}"));
            n += 1;
        }
        assert!(n > 150, "{distro}: {n}");
    }
}

/// A little-endian CDR payload built field by field, aligned as CDR
/// aligns (from the byte after the 4-byte header).
#[derive(Default)]
struct Cdr(Vec<u8>);

impl Cdr {
    fn align(&mut self, n: usize) -> &mut Self {
        while self.0.len() % n != 0 {
            self.0.push(0);
        }
        self
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.align(4).0.extend(v.to_le_bytes());
        self
    }
    fn string(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32 + 1);
        self.0.extend(s.as_bytes());
        self.0.push(0);
        self
    }
    fn payload(&self) -> Vec<u8> {
        [&[0u8, 1, 0, 0][..], &self.0].concat()
    }
}

/// rosbags writes a topic recorded without its definition as an empty
/// `ros2msg` text, in `.db3` tables and MCAP schemas: a known type is
/// read with its bundled definition, not as a message without fields.
#[test]
fn an_empty_stored_definition_yields_to_the_bundled_one() {
    use logcore::{LogReader, MessageFilter, Value};
    use rosbag2::{Bag2, Bag2Writer, DefinitionSource, StorageId, TopicDefinition, WriteOptions};

    let dir = std::env::temp_dir().join(format!("rosbag2-empty-definition-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rosout = Cdr::default()
        .u32(7) // stamp.sec
        .u32(8) // stamp.nanosec
        .u8(20) // level INFO
        .string("talker")
        .string("hello /rosout")
        .string("talker.cpp")
        .string("main")
        .u32(42)
        .payload();
    for (storage, distro) in [(StorageId::Sqlite3, "jazzy"), (StorageId::Mcap, "humble")] {
        let bag = dir.join(format!("{storage:?}"));
        let mut w =
            Bag2Writer::create(&bag, WriteOptions::new(storage).with_distro(distro)).unwrap();
        let empty = TopicDefinition::msg("");
        let log = w
            .add_topic("/rosout", "rcl_interfaces/msg/Log", &empty, &[])
            .unwrap();
        let mine = w
            .add_topic("/mine", "my_pkg/msg/Nothing", &empty, &[])
            .unwrap();
        w.write(log, 1, &rosout).unwrap();
        w.write(mine, 2, &[0, 1, 0, 0, 0]).unwrap();
        w.finish().unwrap();

        let b = Bag2::open(&bag).unwrap();
        assert!(b.notices().is_empty(), "{storage:?}: {:?}", b.notices());
        let msgs: Vec<_> = b
            .messages(&MessageFilter::all())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let v = b
            .decode(&msgs[0])
            .unwrap_or_else(|e| panic!("{storage:?}: {e}"));
        let get = |k: &str| v.get(k).cloned().unwrap();
        assert_eq!(get("level"), Value::U64(20));
        assert_eq!(get("name"), Value::String("talker".into()));
        assert_eq!(get("msg"), Value::String("hello /rosout".into()));
        assert_eq!(get("file"), Value::String("talker.cpp".into()));
        assert_eq!(get("function"), Value::String("main".into()));
        assert_eq!(get("line"), Value::U64(42));
        // builtin_interfaces/Time sec 7, nanosec 8: one instant in ns.
        assert_eq!(get("stamp"), Value::Time(logcore::Timestamp(7_000_000_008)));
        let t = &b.topics()[0];
        let d = t.definition.as_ref().unwrap();
        let want_distro = rosbag2::Distro::for_ros_distro(distro);
        assert_eq!(
            d.source,
            DefinitionSource::Bundled(want_distro),
            "{storage:?}"
        );
        assert!(d.text.contains("FATAL=50"), "{}", d.text);
        // A type known nowhere else keeps the bag's (empty) definition.
        let mine = &b.topics()[1];
        assert_eq!(
            mine.definition.as_ref().unwrap().source,
            DefinitionSource::Bag
        );
        assert_eq!(b.decode(&msgs[1]).unwrap(), Value::Struct(Vec::new()));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
