//! Encoding values back to ROS 1 wire bytes: every message of every
//! fixture bag decodes and encodes to its own bytes, and a bag written
//! from values reads back as those values.

use std::io::Cursor;
use std::path::PathBuf;

use logcore::{MessageFilter, Value};
use rosbag12::{Bag, Connection, MessageType, RosTime, Writer, WriterOptions};

fn testdata(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/rosbag")
        .join(name);
    std::fs::read(p).unwrap()
}

#[test]
fn decode_then_encode_gives_the_stored_bytes() {
    for name in [
        "sample.bag",
        "sample-bz2.bag",
        "sample-lz4.bag",
        "sample-1.2.bag",
    ] {
        let bytes = testdata(name);
        let bag = Bag::new(&bytes).unwrap();
        let mut n = 0;
        for m in bag.messages(&MessageFilter::all()) {
            let m = m.unwrap();
            let ty = bag.message_type(m.conn).unwrap();
            let v = ty.decode(&m.data, m.offset).unwrap();
            assert_eq!(ty.encode(&v).unwrap(), &*m.data, "{name} at {}", m.offset);
            n += 1;
        }
        assert!(n > 0, "{name}");
    }
}

#[test]
fn bags_written_from_values() {
    let def = "string name\nfloat64[] ranges\ntime stamp";
    let ty = MessageType::parse("demo/Scan", def).unwrap();
    let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let c = w
        .add_connection(Connection::new(0, "/scan", "demo/Scan", &ty.md5sum, def))
        .unwrap();
    let values: Vec<Value> = (0..3)
        .map(|i| {
            Value::Struct(vec![
                ("name".into(), Value::String(format!("scan {i}"))),
                ("ranges".into(), Value::F64Array(vec![f64::from(i); 4])),
                (
                    "stamp".into(),
                    Value::Time(logcore::Timestamp(i64::from(i) * 1_000_000_000)),
                ),
            ])
        })
        .collect();
    for (i, v) in values.iter().enumerate() {
        let t = RosTime {
            sec: 10 + i as u32,
            nsec: 0,
        };
        w.write(c, t, &ty.encode(v).unwrap()).unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    let read: Vec<Value> = bag
        .messages(&MessageFilter::all())
        .map(|m| {
            let m = m.unwrap();
            bag.decode(m.conn, &m.data).unwrap()
        })
        .collect();
    assert_eq!(read, values);
}
