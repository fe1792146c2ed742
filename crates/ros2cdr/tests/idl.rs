//! A `ros2idl` text as rosidl generates it (constants module, a default,
//! a typedef'd array, a bounded string, nested types from other packages)
//! compiled and decoded: the payload is built field by field with CDR's
//! alignment (relative to the end of the 4-byte encapsulation header).

use logcore::Value;
use ros2cdr::MessageType;

const STAMPED: &str = "\
================================================================================
IDL: demo_msgs/msg/Reading
#include \"std_msgs/msg/Header.idl\"
module demo_msgs {
  module msg {
    module Reading_Constants {
      const uint8 KIND = 7;
    };
    typedef double double__3[3];
    struct Reading {
      std_msgs::msg::Header header;
      @default (value=2.5)
      float scale;
      double__3 xyz;
      sequence<int16, 4> ids;
      string<8> tag;
      boolean ok;
      unsigned long long count;
    };
  };
};
================================================================================
IDL: std_msgs/msg/Header
module std_msgs {
  module msg {
    struct Header {
      builtin_interfaces::msg::Time stamp;
      string frame_id;
    };
  };
};
";

#[test]
fn a_rosidl_text_compiles_and_decodes() {
    let t = MessageType::parse_idl("demo_msgs/msg/Reading", STAMPED).unwrap();
    assert_eq!(t.name(), "demo_msgs/Reading");
    let mut d = vec![0, 1, 0, 0];
    d.extend(5i32.to_le_bytes()); // stamp.sec
    d.extend(6u32.to_le_bytes()); // stamp.nanosec
    d.extend(4u32.to_le_bytes()); // frame_id
    d.extend(b"map\0");
    d.extend(0.5f32.to_le_bytes()); // scale, at 16
    d.extend([0; 4]); // to 8
    for x in [1.0f64, 2.0, 3.0] {
        d.extend(x.to_le_bytes());
    }
    d.extend(2u32.to_le_bytes()); // ids, at 48
    d.extend(7i16.to_le_bytes());
    d.extend((-8i16).to_le_bytes());
    d.extend(3u32.to_le_bytes()); // tag, at 56
    d.extend(b"ab\0");
    d.push(1); // ok, at 63
    d.extend(9u64.to_le_bytes()); // count, at 64
    let v = t.decode(&d, 0).unwrap();
    let get = |path: &[&str]| {
        path.iter()
            .try_fold(&v, |v, k| v.get(k))
            .cloned()
            .unwrap_or(Value::Null)
    };
    // sec 5, nanosec 6: one instant in ns.
    assert_eq!(
        get(&["header", "stamp"]),
        Value::Time(logcore::Timestamp(5_000_000_006))
    );
    assert_eq!(get(&["header", "frame_id"]), Value::String("map".into()));
    assert_eq!(get(&["scale"]), Value::F32(0.5));
    assert_eq!(get(&["xyz"]), Value::F64Array(vec![1.0, 2.0, 3.0]));
    assert_eq!(
        get(&["ids"]),
        Value::Array(vec![Value::I64(7), Value::I64(-8)])
    );
    assert_eq!(get(&["tag"]), Value::String("ab".into()));
    assert_eq!(get(&["ok"]), Value::Bool(true));
    assert_eq!(get(&["count"]), Value::U64(9));
    assert_eq!(t.defs()[0].constants[0].value, Value::U64(7));
}
