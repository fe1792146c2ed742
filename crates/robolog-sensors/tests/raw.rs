//! `pointcloud2_layout` and `raw_clouds` against the decoded path: every
//! `PointCloud2` of the corpus's bags, and of those bags converted to ROS
//! 2 MCAP (uncompressed: payloads borrowed from the file; zstd: shared
//! buffers) and to ROS 1 MCAP, read without decoding gives the numbers,
//! fields and `data` bytes the decoder gives, and packs to the records
//! `decode_cloud` packs; cut and changed payloads are refused exactly
//! where the decoders or `decode_cloud` refuse them, without a panic.

use logcore::{LogReader, MessageFilter, Payload, Value};
use robolog_sensors::{
    CloudOptions, Range, Wire, clouds, decode_cloud, pointcloud2_layout, raw_clouds,
};

const BAGS: [(&str, &str); 2] = [
    ("rosbag/embag-test.bag", "/luminar_pointcloud"),
    ("rosbag/swri-PointCloud2.bag", "/pointcloud2"),
];

/// The corpus bags and their conversions: (name, bytes, cloud topic).
fn logs() -> Vec<(String, Vec<u8>, &'static str)> {
    let mut out = Vec::new();
    for (file, topic) in BAGS {
        let Some(path) = robolog_testkit::corpus(file) else {
            continue;
        };
        let bytes = std::fs::read(&path).unwrap();
        let log = robolog::open_bytes(&bytes).unwrap();
        for (what, opts) in [
            (
                "ROS 2 MCAP",
                robolog::convert::ConvertOptions {
                    ros2: true,
                    ..robolog::convert::ConvertOptions::for_bag()
                },
            ),
            (
                "ROS 2 MCAP, zstd",
                robolog::convert::ConvertOptions {
                    ros2: true,
                    ..Default::default()
                },
            ),
            ("ROS 1 MCAP", robolog::convert::ConvertOptions::for_bag()),
        ] {
            let (mcap, _) =
                robolog::convert::to_mcap(&log, Vec::new(), &opts, &mut |_| {}).unwrap();
            out.push((format!("{file} as {what}"), mcap, topic));
        }
        drop(log);
        out.push((file.to_string(), bytes, topic));
    }
    out
}

fn uint(v: &Value, name: &str) -> u64 {
    match v.get(name) {
        Some(Value::U64(x)) => *x,
        Some(Value::I64(x)) => u64::try_from(*x).unwrap(),
        Some(Value::Bool(b)) => u64::from(*b),
        other => panic!("{name}: {other:?}"),
    }
}

fn text(v: &Value, name: &str) -> String {
    match v.get(name) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn corpus_clouds_read_raw_equal_the_decoded_messages() {
    let mut seen = 0;
    for (name, bytes, topic) in logs() {
        let log = robolog::open_bytes(&bytes).unwrap();
        let raw: Vec<_> = raw_clouds(&log, topic, &Range::all())
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: not read raw"))
            .collect::<Result<_, _>>()
            .unwrap();
        // The decoded messages and decode_cloud's clouds.
        let chans: Vec<_> = log
            .channels()
            .unwrap()
            .into_iter()
            .filter(|c| c.topic == topic)
            .collect();
        let filter = MessageFilter::all().channels(chans.iter().map(|c| c.id));
        let messages: Vec<_> = log.messages(&filter).unwrap().map(Result::unwrap).collect();
        let decoded: Vec<_> = clouds(&log, topic, &Range::all(), CloudOptions::default())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(raw.len(), messages.len(), "{name}");
        assert_eq!(raw.len(), decoded.len(), "{name}");
        assert!(!raw.is_empty(), "{name}");
        let mut borrowed = 0;
        for ((r, m), d) in raw.iter().zip(&messages).zip(&decoded) {
            assert_eq!(r.log_time, m.log_time, "{name}");
            assert_eq!(r.log_time, d.log_time, "{name}");
            borrowed += usize::from(matches!(r.payload, Payload::Borrowed(_)));
            let v = log.decode(m).unwrap();
            let l = &r.layout;
            assert_eq!(u64::from(l.height), uint(&v, "height"), "{name}");
            assert_eq!(u64::from(l.width), uint(&v, "width"), "{name}");
            assert_eq!(u64::from(l.point_step), uint(&v, "point_step"), "{name}");
            assert_eq!(u64::from(l.row_step), uint(&v, "row_step"), "{name}");
            assert_eq!(l.is_bigendian, uint(&v, "is_bigendian") != 0, "{name}");
            assert_eq!(l.is_dense, uint(&v, "is_dense") != 0, "{name}");
            let Some(Value::Bytes(data)) = v.get("data") else {
                panic!("{name}: data");
            };
            assert_eq!(r.data(), &data[..], "{name}");
            // The fields, by offset as decode_cloud orders them.
            let Some(Value::Array(fields)) = v.get("fields") else {
                panic!("{name}: fields");
            };
            let mut want: Vec<(u64, String, u64, u64)> = fields
                .iter()
                .map(|f| {
                    (
                        uint(f, "offset"),
                        text(f, "name"),
                        uint(f, "datatype"),
                        uint(f, "count"),
                    )
                })
                .collect();
            want.sort_by_key(|f| f.0);
            let got: Vec<_> = l
                .fields
                .iter()
                .map(|f| (f.offset as u64, f.field.name.clone(), f.field.count as u64))
                .collect();
            assert_eq!(
                got,
                want.iter()
                    .map(|w| (w.0, w.1.clone(), w.3))
                    .collect::<Vec<_>>(),
                "{name}"
            );
            assert_eq!(l.record_fields(), d.value.fields, "{name}");
            assert_eq!(l.points(), d.value.points, "{name}");
            // Packed from the wire bytes: decode_cloud's records, with and
            // without drop_nan.
            assert_eq!(r.to_cloud(&CloudOptions::default()).unwrap(), d.value);
            let type_name = &chans[0].type_name;
            let drop = CloudOptions { drop_nan: true };
            assert_eq!(
                r.to_cloud(&drop).unwrap(),
                decode_cloud(type_name, &v, &drop).unwrap(),
                "{name}"
            );
            // Every point's field bytes, read where they are stored, are
            // the packed record's (little-endian data).
            if let Some(span) = l.native_points() {
                let stored = &r.payload[span];
                let rec = d.value.record_size();
                let mut at = 0;
                for f in &l.fields {
                    let size = f.field.size();
                    for (i, p) in stored.chunks_exact(l.point_step as usize).enumerate() {
                        assert_eq!(
                            &p[f.offset..f.offset + size],
                            &d.value.data[i * rec + at..i * rec + at + size],
                            "{name}: point {i} field {}",
                            f.field.name
                        );
                    }
                    at += size;
                }
            }
        }
        // Uncompressed MCAP chunks: slices of the file; zstd ones:
        // decompressed buffers (the bags' chunks are compressed or not).
        if name.ends_with("ROS 2 MCAP") || name.ends_with("ROS 1 MCAP") {
            assert_eq!(
                borrowed,
                raw.len(),
                "{name}: payloads borrowed from the input"
            );
        } else if name.ends_with("zstd") {
            assert_eq!(borrowed, 0, "{name}: decompressed payloads");
        }
        eprintln!("{name}: {} clouds, {borrowed} borrowed", raw.len());
        seen += raw.len();
    }
    eprintln!("{seen} clouds read raw");
}

/// The payloads of the first cloud of each corpus log, with the wire.
fn first_payloads() -> Vec<(String, Vec<u8>, Wire)> {
    let mut out: Vec<(String, Vec<u8>, Wire)> = Vec::new();
    for (name, bytes, topic) in logs() {
        let log = robolog::open_bytes(&bytes).unwrap();
        let chans = log.channels().unwrap();
        let c = chans.iter().find(|c| c.topic == topic).unwrap();
        let wire = robolog_sensors::raw_wire(&log, c).unwrap();
        let m = log
            .messages(&MessageFilter::all().channels([c.id]))
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        // The conversions' payloads repeat: each once.
        if !out
            .iter()
            .any(|(_, q, w)| *w == wire && q[..] == m.payload[..])
        {
            out.push((name, m.payload.to_vec(), wire));
        }
    }
    out
}

const ROS1_DEF: &str = "Header header\nuint32 height\nuint32 width\nPointField[] fields\nbool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n===\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n===\nMSG: sensor_msgs/PointField\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n";
const ROS2_DEF: &str = "std_msgs/Header header\nuint32 height\nuint32 width\nPointField[] fields\nbool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n===\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n===\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n===\nMSG: sensor_msgs/PointField\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n";

/// The decoders' answer: the decoded cloud, or `None` where the decoder
/// or `decode_cloud` refuses the payload.
fn reference(payload: &[u8], wire: Wire) -> Option<robolog_sensors::Cloud> {
    let v = match wire {
        Wire::Ros1 => rosbag12::MessageType::parse("sensor_msgs/PointCloud2", ROS1_DEF)
            .unwrap()
            .decode(payload, 0)
            .ok()?,
        Wire::Cdr => ros2cdr::MessageType::parse("sensor_msgs/msg/PointCloud2", ROS2_DEF)
            .unwrap()
            .decode(payload, 0)
            .ok()?,
    };
    decode_cloud("sensor_msgs/PointCloud2", &v, &CloudOptions::default()).ok()
}

fn ours(payload: &[u8], wire: Wire) -> Option<robolog_sensors::Cloud> {
    pointcloud2_layout(payload, wire)
        .ok()
        .map(|l| l.to_cloud(payload, &CloudOptions::default()).unwrap())
}

#[test]
fn cut_payloads_are_refused() {
    for (name, p, wire) in first_payloads() {
        assert!(ours(&p, wire).is_some(), "{name}");
        // Where is_dense ends: the decoders accept at most 3 bytes of
        // CDR padding after it.
        let l = pointcloud2_layout(&p, wire).unwrap();
        let end = l.data.end + 1;
        for n in 0..p.len() {
            let got = pointcloud2_layout(&p[..n], wire);
            if n < end {
                assert!(got.is_err(), "{name}: a prefix of {n} bytes");
            }
            // The decoders agree (checked on the short prefixes and every
            // prefix of a small payload: the decoder copies the data).
            if n < 512 || p.len() < 100_000 || n + 8 > p.len() {
                assert_eq!(
                    got.is_ok(),
                    reference(&p[..n], wire).is_some(),
                    "{name}: {n}"
                );
            }
        }
    }
}

#[test]
fn changed_bytes_are_refused_where_the_decoders_refuse_them() {
    for (name, p, wire) in first_payloads() {
        let l = pointcloud2_layout(&p, wire).unwrap();
        // Every byte before the data and after it, set to values that
        // break lengths, counts, types and the byte order.
        let bytes: Vec<usize> = (0..l.data.start.min(p.len()))
            .chain(l.data.end..p.len())
            .collect();
        for &i in &bytes {
            for x in [0x00u8, 0x01, 0x09, 0x80, 0xff] {
                let mut q = p.clone();
                if q[i] == x {
                    continue;
                }
                q[i] = x;
                let r = reference(&q, wire);
                let o = ours(&q, wire);
                assert_eq!(o, r, "{name}: byte {i} set to {x:#04x}");
            }
        }
        // Extra bytes: CDR takes up to three of padding, ROS 1 none.
        for extra in 1..=5usize {
            let mut q = p.clone();
            q.extend(std::iter::repeat_n(0, extra));
            assert_eq!(ours(&q, wire), reference(&q, wire), "{name}: +{extra}");
        }
    }
}

#[test]
fn other_types_and_encodings_take_the_decoded_path() {
    let Some(path) = robolog_testkit::corpus("rosbag/embag-test.bag") else {
        return;
    };
    let log = robolog::open(path).unwrap();
    // A laser scan topic: no raw reading.
    assert!(
        raw_clouds(&log, "/base_scan", &Range::all())
            .unwrap()
            .is_none()
    );
    assert!(matches!(
        raw_clouds(&log, "/nope", &Range::all()),
        Err(robolog_sensors::Error::UnknownTopic { .. })
    ));
    // The range: every other cloud.
    let every = Range {
        every: 2,
        ..Range::all()
    };
    let n = raw_clouds(&log, "/luminar_pointcloud", &every)
        .unwrap()
        .unwrap()
        .count();
    let m = clouds(&log, "/luminar_pointcloud", &every, CloudOptions::default())
        .unwrap()
        .count();
    assert_eq!(n, m);
}
