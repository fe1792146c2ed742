//! Sensor data of real logs, checked against the facts the corpus README
//! states, against pyulog's CSV output, and against a second path through
//! the same log (compressed frames against the raw frames they came from,
//! cloud values against the message's own bytes, scan points against the
//! ranges they came from). Skips cleanly when the corpus is absent.

use logcore::{LogReader, MessageFilter, Value};
use robolog_sensors::{
    Cloud, CloudOptions, Dtype, Image, ImageOptions, Kind, PixelOrder, Range, clouds, images,
    sensor_topics, track,
};

fn corpus(sub: &str) -> Option<robolog::Log<'static>> {
    let p = robolog_testkit::corpus(sub)?;
    Some(robolog::open(p).expect("opens"))
}

fn one_image(log: &robolog::Log<'_>, topic: &str) -> Image {
    let mut all: Vec<_> = images(log, topic, &Range::all(), ImageOptions::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(all.len(), 1, "{topic}");
    all.pop().unwrap().value
}

fn u16s(img: &Image) -> Vec<u16> {
    img.data
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}

fn mean_abs_diff(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(x.abs_diff(*y)))
        .sum::<f64>()
        / a.len() as f64
}

#[test]
fn raw_frames_have_the_readme_shapes() {
    let Some(log) = corpus("sensors/ctu_ros_utils-raw.bag") else {
        return;
    };
    let topics = sensor_topics(&log).unwrap();
    assert_eq!(topics.len(), 4);
    assert!(topics.iter().all(|t| t.kind == Kind::Image));
    for (topic, w, h, order, dtype) in [
        (
            "/spot/camera/hand_color/image",
            640,
            480,
            PixelOrder::Rgb,
            Dtype::U8,
        ),
        (
            "/spot/camera/frontleft/image",
            640,
            480,
            PixelOrder::Mono,
            Dtype::U8,
        ),
        (
            "/spot/camera/hand_mono/image",
            224,
            171,
            PixelOrder::Mono,
            Dtype::U8,
        ),
        (
            "/spot/depth/frontleft/image",
            424,
            240,
            PixelOrder::Mono,
            Dtype::U16,
        ),
    ] {
        let img = one_image(&log, topic);
        assert_eq!(
            (img.width, img.height, img.order, img.dtype),
            (w, h, order, dtype),
            "{topic}"
        );
        assert_eq!(img.data.len(), img.row_bytes() * h as usize);
    }
    // "values 0..4820 (presumably mm)".
    let depth = u16s(&one_image(&log, "/spot/depth/frontleft/image"));
    assert_eq!(depth.iter().min(), Some(&0));
    assert_eq!(depth.iter().max(), Some(&4820));
}

#[test]
fn compressed_frames_match_the_raw_frames() {
    let (Some(raw), Some(comp)) = (
        corpus("sensors/ctu_ros_utils-raw.bag"),
        corpus("sensors/ctu_ros_utils-compressed.bag"),
    ) else {
        return;
    };
    // JPEG colour: RGB in the raw frame's channel order, mean abs diff 5.2.
    let a = one_image(&raw, "/spot/camera/hand_color/image");
    let b = one_image(&comp, "/spot/camera/hand_color/image/compressed");
    assert_eq!(
        (b.width, b.height, b.order, b.dtype),
        (640, 480, PixelOrder::Rgb, Dtype::U8)
    );
    let d = mean_abs_diff(&a.data, &b.data);
    assert!((4.0..6.5).contains(&d), "mean abs diff {d}");
    // With red and blue swapped the frames differ much more: the order is right.
    let mut swapped = b.data.clone();
    for p in swapped.chunks_exact_mut(3) {
        p.swap(0, 2);
    }
    assert!(mean_abs_diff(&a.data, &swapped) > d + 1.0);
    // JPEG grey.
    for (r, c, w, h) in [
        (
            "/spot/camera/frontleft/image",
            "/spot/camera/frontleft/image/compressed",
            640,
            480,
        ),
        (
            "/spot/camera/hand_mono/image",
            "/spot/camera/hand_mono/image/compressed",
            224,
            171,
        ),
    ] {
        let a = one_image(&raw, r);
        let b = one_image(&comp, c);
        assert_eq!((b.width, b.height, b.order), (w, h, PixelOrder::Mono));
        let d = mean_abs_diff(&a.data, &b.data);
        assert!(d < 6.0, "{c}: mean abs diff {d}");
    }
    // 16-bit PNG: every pixel equals the raw depth image.
    let a = one_image(&raw, "/spot/depth/frontleft/image");
    let b = one_image(&comp, "/spot/depth/frontleft/image/compressed");
    assert_eq!(
        (b.width, b.height, b.order, b.dtype),
        (424, 240, PixelOrder::Mono, Dtype::U16)
    );
    assert_eq!(a.data, b.data);
}

#[test]
fn compressed_depth_equals_the_raw_depth() {
    let (Some(raw), Some(comp)) = (
        corpus("sensors/ctu_ros_utils-raw.bag"),
        corpus("sensors/ctu_ros_utils-compressedDepth.bag"),
    ) else {
        return;
    };
    let a = one_image(&raw, "/spot/depth/frontleft/image");
    let b = one_image(&comp, "/spot/depth/frontleft/image/compressedDepth");
    assert_eq!(
        (b.width, b.height, b.order, b.dtype),
        (424, 240, PixelOrder::Mono, Dtype::U16)
    );
    assert_eq!(a.data, b.data);
}

#[test]
fn navsatfix_tracks_have_the_readme_fixes() {
    for (file, topic, count, (lat, lon, alt), status) in [
        (
            "sensors/robot_localization-test1.bag",
            "/fix",
            989,
            (42.37581, -71.14739, 7.3),
            1,
        ),
        (
            "sensors/rviz_satellite-sample.bag",
            "/gps/fix",
            151,
            (39.95112, -75.18993, -30.6),
            0,
        ),
    ] {
        let Some(log) = corpus(file) else { return };
        let topics = sensor_topics(&log).unwrap();
        assert!(
            topics
                .iter()
                .any(|t| t.topic == topic && t.kind == Kind::Position)
        );
        let (fixes, problems) = track(&log, topic, &Range::all()).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(fixes.len(), count, "{file}");
        let f = fixes[0].value;
        assert!((f.latitude - lat).abs() < 5e-6, "{file}: {f:?}");
        assert!((f.longitude - lon).abs() < 5e-6, "{file}: {f:?}");
        assert!((f.altitude - alt).abs() < 0.05, "{file}: {f:?}");
        assert!(fixes.iter().all(|s| s.value.status == status));
        // Sampling one in ten and a time range.
        let every = Range {
            every: 10,
            ..Range::all()
        };
        assert_eq!(
            track(&log, topic, &every).unwrap().0.len(),
            count.div_ceil(10)
        );
        let start = fixes[5].log_time;
        let from = Range {
            start: Some(start),
            ..Range::all()
        };
        assert_eq!(track(&log, topic, &from).unwrap().0.len(), count - 5);
    }
}

/// The f32 at `at` of `data`.
fn f32_at(data: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(data[at..at + 4].try_into().unwrap())
}

#[test]
fn multi_echo_scans_keep_every_echo_in_range() {
    let Some(log) = corpus("sensors/cartographer_ros-b0-2014-07-21-12-42-53-tiny.bag") else {
        return;
    };
    let topic = "horizontal_laser_2d";
    let all: Vec<_> = clouds(&log, topic, &Range::all(), CloudOptions::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(all.len(), 222);
    let names: Vec<_> = all[0]
        .value
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["x", "y", "z", "intensity", "echo"]);
    // Independently: the echoes inside [range_min, range_max] of the
    // decoded messages, and their radii.
    let ch: Vec<_> = log
        .channels()
        .unwrap()
        .into_iter()
        .filter(|c| c.topic == topic)
        .collect();
    let msgs: Vec<Value> = log
        .messages(&MessageFilter::all().channels(ch.iter().map(|c| c.id)))
        .unwrap()
        .map(|m| log.decode(&m.unwrap()).unwrap())
        .collect();
    let mut third_echoes = 0;
    for (sample, msg) in all.iter().zip(&msgs) {
        let cloud: &Cloud = &sample.value;
        let lo = msg.get("range_min").unwrap().as_f64().unwrap() as f32;
        let hi = msg.get("range_max").unwrap().as_f64().unwrap() as f32;
        let Some(Value::Array(beams)) = msg.get("ranges") else {
            panic!()
        };
        let mut expected = Vec::new();
        for b in beams {
            let Some(Value::F32Array(e)) = b.get("echoes") else {
                panic!("{b:?}")
            };
            for (k, &r) in e.iter().enumerate() {
                if r.is_finite() && r >= lo && r <= hi {
                    expected.push((r, k as u8));
                }
            }
        }
        assert_eq!(cloud.points, expected.len());
        let rs = cloud.record_size();
        assert_eq!(rs, 17);
        for (i, (r, k)) in expected.iter().enumerate() {
            let rec = &cloud.data[i * rs..(i + 1) * rs];
            let (x, y) = (f32_at(rec, 0), f32_at(rec, 4));
            assert!(((x * x + y * y).sqrt() - r).abs() < 1e-4 * r.max(1.0));
            assert_eq!(f32_at(rec, 8), 0.0);
            assert_eq!(rec[16], *k);
            third_echoes += usize::from(*k == 2);
        }
    }
    // "185 beams across the file have 3" echoes.
    assert!(third_echoes > 0 && third_echoes <= 185, "{third_echoes}");
}

#[test]
fn point_cloud2_values_are_the_message_bytes() {
    for file in ["rosbag/swri-PointCloud2.bag", "rosbag/embag-test.bag"] {
        let Some(log) = corpus(file) else { return };
        let topics = sensor_topics(&log).unwrap();
        let pc: Vec<_> = topics
            .iter()
            .filter(|t| t.type_name == "sensor_msgs/PointCloud2")
            .collect();
        assert!(!pc.is_empty(), "{file}: {topics:?}");
        for t in pc {
            let ch: Vec<_> = log
                .channels()
                .unwrap()
                .into_iter()
                .filter(|c| c.topic == t.topic)
                .collect();
            let msgs: Vec<Value> = log
                .messages(&MessageFilter::all().channels(ch.iter().map(|c| c.id)))
                .unwrap()
                .map(|m| log.decode(&m.unwrap()).unwrap())
                .collect();
            let got: Vec<_> = clouds(&log, &t.topic, &Range::all(), CloudOptions::default())
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(got.len(), msgs.len());
            for (s, m) in got.iter().zip(&msgs) {
                let c = &s.value;
                let int = |v: &Value, n: &str| v.get(n).unwrap().as_i64().unwrap() as usize;
                assert_eq!(c.points, int(m, "width") * int(m, "height"));
                assert!(matches!(m.get("is_bigendian"), Some(Value::Bool(false))));
                let Some(Value::Bytes(data)) = m.get("data") else {
                    panic!()
                };
                let Some(Value::Array(fields)) = m.get("fields") else {
                    panic!()
                };
                let (step, row_step, width) =
                    (int(m, "point_step"), int(m, "row_step"), int(m, "width"));
                for f in fields {
                    let name = f.get("name").unwrap().as_str().unwrap();
                    let off = int(f, "offset");
                    if int(f, "datatype") != 7 {
                        continue;
                    }
                    for i in (0..c.points).step_by(97) {
                        let at = (i / width) * row_step + (i % width) * step + off;
                        let want = f32_at(data, at);
                        let have = c.value(i, name, 0).unwrap() as f32;
                        assert!(
                            want.to_bits() == have.to_bits() || (want.is_nan() && have.is_nan())
                        );
                    }
                }
            }
            // drop_nan leaves only points with finite x, y, z.
            let dense: Vec<_> = clouds(
                &log,
                &t.topic,
                &Range::all(),
                CloudOptions { drop_nan: true },
            )
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
            for (d, s) in dense.iter().zip(&got) {
                let nan = (0..s.value.points)
                    .filter(|&i| {
                        ["x", "y", "z"]
                            .iter()
                            .any(|n| s.value.value(i, n, 0).is_some_and(f64::is_nan))
                    })
                    .count();
                assert_eq!(d.value.points, s.value.points - nan);
            }
        }
    }
}

#[test]
fn laser_scans_project_their_ranges() {
    let Some(log) = corpus("rosbag/embag-test.bag") else {
        return;
    };
    let topics = sensor_topics(&log).unwrap();
    let scan = topics
        .iter()
        .find(|t| t.type_name == "sensor_msgs/LaserScan")
        .expect("a scan");
    assert_eq!(scan.kind, Kind::Scan);
    let ch: Vec<_> = log
        .channels()
        .unwrap()
        .into_iter()
        .filter(|c| c.topic == scan.topic)
        .collect();
    let msgs: Vec<Value> = log
        .messages(&MessageFilter::all().channels(ch.iter().map(|c| c.id)))
        .unwrap()
        .map(|m| log.decode(&m.unwrap()).unwrap())
        .collect();
    let got: Vec<_> = clouds(&log, &scan.topic, &Range::all(), CloudOptions::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(got.len(), msgs.len());
    for (s, m) in got.iter().zip(&msgs) {
        let f = |n: &str| m.get(n).unwrap().as_f64().unwrap();
        let Some(Value::F32Array(ranges)) = m.get("ranges") else {
            panic!()
        };
        let (lo, hi) = (f("range_min") as f32, f("range_max") as f32);
        let kept: Vec<(usize, f32)> = ranges
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_finite() && **r >= lo && **r <= hi)
            .map(|(i, r)| (i, *r))
            .collect();
        assert_eq!(s.value.points, kept.len());
        for (k, (i, r)) in kept.iter().enumerate().step_by(13) {
            let a = f("angle_min") + *i as f64 * f("angle_increment");
            let x = s.value.value(k, "x", 0).unwrap();
            let y = s.value.value(k, "y", 0).unwrap();
            assert!((x - f64::from(*r) * a.cos()).abs() < 1e-4);
            assert!((y - f64::from(*r) * a.sin()).abs() < 1e-4);
        }
    }
}

/// pyulog's `ulog2csv` columns of a CSV, by name.
fn csv(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

#[test]
fn px4_tracks_match_pyulog() {
    let base = "ulog/generated-by-pyulog-1.3.0";
    for (file, csv_path) in [
        (
            "ulog/pyulog/sample_log_small.ulg",
            "pyulog__sample_log_small/ulog2csv/sample_log_small_vehicle_gps_position_0.csv",
        ),
        (
            "ulog/pyulog/sample_px4_events.ulg",
            "pyulog__sample_px4_events/ulog2csv/sample_px4_events_vehicle_gps_position_0.csv",
        ),
    ] {
        let (Some(log), Some(csv_file)) = (
            corpus(file),
            robolog_testkit::corpus(&format!("{base}/{csv_path}")),
        ) else {
            return;
        };
        let rows = csv(&csv_file);
        let topic = sensor_topics(&log)
            .unwrap()
            .into_iter()
            .find(|t| t.type_name == "vehicle_gps_position")
            .expect("a GPS topic")
            .topic;
        let (fixes, problems) = track(&log, &topic, &Range::all()).unwrap();
        assert!(problems.is_empty());
        let with_fix: Vec<_> = rows
            .iter()
            .filter(|r| r["fix_type"].parse::<i32>().unwrap() >= 2)
            .collect();
        assert_eq!(fixes.len(), with_fix.len(), "{file}");
        for (s, r) in fixes.iter().zip(&with_fix) {
            let num = |k: &str| r[k].parse::<f64>().unwrap();
            let (lat, lon, alt) = if r.contains_key("latitude_deg") {
                (
                    num("latitude_deg"),
                    num("longitude_deg"),
                    num("altitude_msl_m"),
                )
            } else {
                (num("lat") * 1e-7, num("lon") * 1e-7, num("alt") / 1000.0)
            };
            assert!(
                (s.value.latitude - lat).abs() < 1e-7,
                "{file}: {:?} vs {lat}",
                s.value
            );
            assert!((s.value.longitude - lon).abs() < 1e-7);
            assert!((s.value.altitude - alt).abs() < 1e-3);
            assert_eq!(s.value.status, r["fix_type"].parse::<i32>().unwrap());
        }
    }
}
