//! The sensor views of the page, on the corpus's sensor logs: camera
//! thumbnails (valid JPEGs of the expected size, count and times), cloud
//! and scan views (points at the sampled indices of the decoded cloud) and
//! GPS tracks (robolog-sensors' fixes); and a log of many large frames
//! gives a page within its budget.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use logcore::{LogReader as _, MessageFilter, Timestamp, Value};
use robolog_report::{
    MAX_CLOUD_FRAMES, MAX_CLOUD_POINTS, MAX_CLOUD_VIEW_BYTES, MAX_THUMBNAIL_BYTES, MAX_THUMBNAILS,
    PAGE_BUDGET, ReportOptions, SENSOR_BUDGET, THUMBNAIL_SIDE, data_json, report_log, write_report,
};
use robolog_sensors::{CloudOptions, Range};
use serde_json::Value as Json;

/// The page's data of the report of `path`, without `robolog check`.
fn page_of(path: &Path) -> (robolog_report::LogReport, Json) {
    let log = robolog::open(path).unwrap();
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let report = report_log(&log, path, &opts).unwrap();
    let json = data_json(std::slice::from_ref(&report), "t", PAGE_BUDGET);
    (report, serde_json::from_str(&json).unwrap())
}

/// The log times of a topic's messages, in the order read.
fn times_of(log: &robolog::Log<'_>, topic: &str) -> Vec<i64> {
    let ids: Vec<_> = log
        .channels()
        .unwrap()
        .into_iter()
        .filter(|c| c.topic == topic)
        .map(|c| c.id)
        .collect();
    log.messages(&MessageFilter::all().channels(ids))
        .unwrap()
        .flatten()
        .map(|m| m.log_time.as_nanos())
        .collect()
}

/// The first message time in each of `n` equal windows of the span of
/// `times`: the messages a view shows.
fn chosen(times: &[i64], n: usize) -> Vec<i64> {
    let (first, last) = (*times.iter().min().unwrap(), *times.iter().max().unwrap());
    let n = n.min(times.len()) as i128;
    let width = i128::from(last) - i128::from(first) + 1;
    let at = |k: i128| (i128::from(first) + width * k / n) as i64;
    (0..n)
        .filter_map(|k| {
            let (a, b) = (at(k), at(k + 1));
            times.iter().copied().find(|t| (a..b).contains(t))
        })
        .collect()
}

/// The f32s of base64 text.
fn floats(b64: &str) -> Vec<f32> {
    let bytes = unbase64(b64);
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn unbase64(s: &str) -> Vec<u8> {
    let v = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let n = chunk.iter().filter(|&&c| c != b'=').count();
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= u32::from(if c == b'=' { 0 } else { v(c) }) << (18 - 6 * i);
        }
        out.extend_from_slice(&acc.to_be_bytes()[1..n]);
    }
    out
}

fn corpus(files: &[&str]) -> Vec<PathBuf> {
    files
        .iter()
        .filter_map(|f| robolog_testkit::corpus(f))
        .collect()
}

#[test]
fn thumbnails_are_the_cameras_frames() {
    let paths = corpus(&[
        "sensors/ctu_ros_utils-raw.bag",
        "sensors/ctu_ros_utils-compressed.bag",
        "sensors/ctu_ros_utils-compressedDepth.bag",
    ]);
    let mut checked = 0;
    for path in &paths {
        let (report, data) = page_of(path);
        let log = robolog::open(path).unwrap();
        let cameras: Vec<String> = robolog_sensors::sensor_topics(&log)
            .unwrap()
            .into_iter()
            .filter(|t| t.kind == robolog_sensors::Kind::Image)
            .map(|t| t.topic)
            .collect();
        let strips = data["logs"][0]["strips"].as_array().unwrap();
        assert_eq!(strips.len(), cameras.len(), "{}", path.display());
        for strip in strips {
            let ch = &report.channels[strip["channel"].as_u64().unwrap() as usize];
            assert!(
                ch.series.is_empty(),
                "{}: layout no longer plotted",
                ch.topic
            );
            let times = times_of(&log, &ch.topic);
            let want = chosen(&times, MAX_THUMBNAILS);
            let frames = strip["frames"].as_array().unwrap();
            let got: Vec<i64> = frames
                .iter()
                .map(|f| f["t"].as_i64().unwrap() + report.start)
                .collect();
            assert_eq!(got, want, "{}", ch.topic);
            for f in frames {
                let jpeg = unbase64(f["jpeg"].as_str().unwrap());
                assert!(jpeg.len() <= MAX_THUMBNAIL_BYTES);
                let img = robolog_sensors::decode_image(
                    "sensor_msgs/CompressedImage",
                    &Value::record([
                        ("format", Value::String("jpeg".into())),
                        ("data", Value::Bytes(jpeg)),
                    ]),
                    &Default::default(),
                )
                .unwrap();
                let (w, h) = (f["w"].as_u64().unwrap(), f["h"].as_u64().unwrap());
                assert_eq!((u64::from(img.width), u64::from(img.height)), (w, h));
                let (sw, sh) = (f["src_w"].as_u64().unwrap(), f["src_h"].as_u64().unwrap());
                let longer = sw.max(sh);
                assert_eq!(w.max(h), longer.min(u64::from(THUMBNAIL_SIDE)));
                checked += 1;
            }
        }
    }
    if !paths.is_empty() {
        assert!(checked >= 5, "{checked} thumbnails checked");
    }
}

#[test]
fn cloud_views_hold_the_decoded_points() {
    let paths = corpus(&[
        "rosbag/embag-test.bag",
        "rosbag/swri-PointCloud2.bag",
        "sensors/cartographer_ros-b0-2014-07-21-12-42-53-tiny.bag",
    ]);
    let mut frames_checked = 0;
    for path in &paths {
        let (report, data) = page_of(path);
        let log = robolog::open(path).unwrap();
        let views = data["logs"][0]["clouds"].as_array().unwrap();
        assert!(!views.is_empty(), "{}", path.display());
        for v in views {
            let ch = &report.channels[v["channel"].as_u64().unwrap() as usize];
            assert!(
                ch.series.is_empty(),
                "{}: layout no longer plotted",
                ch.topic
            );
            let times = times_of(&log, &ch.topic);
            let frames = v["frames"].as_array().unwrap();
            assert!(frames.len() <= MAX_CLOUD_FRAMES);
            let got: Vec<i64> = frames
                .iter()
                .map(|f| f["t"].as_i64().unwrap() + report.start)
                .collect();
            assert_eq!(got, chosen(&times, MAX_CLOUD_FRAMES), "{}", ch.topic);
            let color = v["color"].as_str();
            let mut bytes = 0;
            for (f, &t) in frames.iter().zip(&got) {
                let range = Range {
                    start: Some(Timestamp(t)),
                    end: Some(Timestamp(t + 1)),
                    every: 1,
                };
                let opts = CloudOptions { drop_nan: true };
                let cloud = robolog_sensors::clouds(&log, &ch.topic, &range, opts)
                    .unwrap()
                    .next()
                    .unwrap()
                    .unwrap()
                    .value;
                assert_eq!(f["points"].as_u64().unwrap() as usize, cloud.points);
                let (x, y) = (
                    floats(f["x"].as_str().unwrap()),
                    floats(f["y"].as_str().unwrap()),
                );
                let c = f["c"].as_str().map(floats).unwrap_or_default();
                bytes += f["x"].as_str().unwrap().len() * 3;
                let kept = x.len();
                assert!(kept <= MAX_CLOUD_POINTS);
                assert_eq!(y.len(), kept);
                for (j, (&px, &py)) in x.iter().zip(&y).enumerate() {
                    let i = (j as u128 * cloud.points as u128 / kept as u128) as usize;
                    let want = |n: &str| cloud.value(i, n, 0).unwrap() as f32;
                    assert_eq!(px.to_bits(), want("x").to_bits(), "{} x[{i}]", ch.topic);
                    assert_eq!(py.to_bits(), want("y").to_bits(), "{} y[{i}]", ch.topic);
                    if let Some(field) = color {
                        assert_eq!(c[j].to_bits(), want(field).to_bits());
                    }
                }
                frames_checked += 1;
            }
            assert!(bytes <= MAX_CLOUD_VIEW_BYTES + 64, "{bytes} bytes");
        }
    }
    if !paths.is_empty() {
        assert!(frames_checked >= 8, "{frames_checked} frames checked");
    }
}

#[test]
fn tracks_are_robolog_sensors_fixes() {
    let paths = corpus(&[
        "sensors/robot_localization-test1.bag",
        "sensors/rviz_satellite-sample.bag",
        "rosbag/ccny-gpsd_viewer-demo.bag",
        "ulog/pyulog/sample.ulg",
        "ulog/pyulog/sample_log_small.ulg",
    ]);
    for path in &paths {
        let (report, data) = page_of(path);
        let log = robolog::open(path).unwrap();
        let positions: Vec<String> = robolog_sensors::sensor_topics(&log)
            .unwrap()
            .into_iter()
            .filter(|t| t.kind == robolog_sensors::Kind::Position)
            .map(|t| t.topic)
            .collect();
        let tracks = data["logs"][0]["tracks"].as_array().unwrap();
        // One track per topic: drawn once.
        let mut by_topic: HashMap<&str, usize> = HashMap::new();
        for t in tracks {
            let ch = &report.channels[t["channel"].as_u64().unwrap() as usize];
            *by_topic.entry(ch.topic.as_str()).or_default() += 1;
        }
        assert!(by_topic.values().all(|&n| n == 1), "{by_topic:?}");
        for topic in &positions {
            let (fixes, _) = robolog_sensors::track(&log, topic, &Range::all()).unwrap();
            let Some(tr) = report
                .tracks
                .iter()
                .find(|t| report.channels[t.channel].topic == *topic)
            else {
                assert!(fixes.len() < 2, "{topic}: {} fixes, no track", fixes.len());
                continue;
            };
            assert!(tr.points.len() <= robolog_report::MAX_TRACK_FIXES);
            let n = tr.points.len();
            for (j, p) in tr.points.iter().enumerate() {
                let f = &fixes[j * fixes.len() / n];
                assert_eq!(
                    *p,
                    (f.log_time.as_nanos(), f.value.latitude, f.value.longitude)
                );
            }
        }
        if path.ends_with("robot_localization-test1.bag") {
            let tr = &report.tracks[0];
            assert_eq!(report.channels[tr.channel].topic, "/fix");
            let (lat, lon) = (tr.points[0].1, tr.points[0].2);
            assert!((lat - 42.37581).abs() < 5e-6 && (lon + 71.14739).abs() < 5e-6);
            assert_eq!(tr.points.len(), 989);
        }
    }
}

/// A ROS 1 bag of `topics` camera topics of 640 x 480 `rgb8` frames,
/// `frames` in all, half of them noise in 4 x 4 blocks (which thumbnails
/// keep: large JPEGs), and `clouds` PointCloud2 topics of 8 clouds of
/// 100,000 points each.
fn big_bag(path: &Path, topics: usize, frames: usize, clouds: usize) {
    use rosbag12::records::Connection;
    use rosbag12::write::{Writer, WriterOptions};
    let image_def = "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n================================================================================\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n";
    let cloud_def = "std_msgs/Header header\nuint32 height\nuint32 width\nsensor_msgs/PointField[] fields\nbool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n================================================================================\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n================================================================================\nMSG: sensor_msgs/PointField\nuint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\nuint8 INT32=5\nuint8 UINT32=6\nuint8 FLOAT32=7\nuint8 FLOAT64=8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n";
    let file = std::fs::File::create(path).unwrap();
    let mut w = Writer::new(std::io::BufWriter::new(file), WriterOptions::default()).unwrap();
    let mut conns = Vec::new();
    for k in 0..topics {
        let c = Connection::new(
            k as u32,
            format!("/camera_{k}/<script>alert(1)</script>"),
            "sensor_msgs/Image",
            "060021388200f6f0f447d0fcd9c64743",
            image_def,
        );
        conns.push(w.add_connection(c).unwrap());
    }
    let mut cloud_conns = Vec::new();
    for k in 0..clouds {
        let c = Connection::new(
            (topics + k) as u32,
            format!("/points_{k}"),
            "sensor_msgs/PointCloud2",
            "1158d486dd51d683ce2f1be655c3c181",
            cloud_def,
        );
        cloud_conns.push(w.add_connection(c).unwrap());
    }
    let header = |seq: u32, t: rosbag12::RosTime, out: &mut Vec<u8>| {
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&t.sec.to_le_bytes());
        out.extend_from_slice(&t.nsec.to_le_bytes());
        out.extend_from_slice(&5u32.to_le_bytes());
        out.extend_from_slice(b"frame");
    };
    let (width, height) = (640u32, 480u32);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut msg = Vec::new();
    for i in 0..frames {
        let t = rosbag12::RosTime {
            sec: 1_000 + (i / 10) as u32,
            nsec: (i % 10) as u32 * 100_000_000,
        };
        msg.clear();
        header(i as u32, t, &mut msg);
        msg.extend_from_slice(&height.to_le_bytes());
        msg.extend_from_slice(&width.to_le_bytes());
        msg.extend_from_slice(&4u32.to_le_bytes());
        msg.extend_from_slice(b"rgb8");
        msg.push(0);
        msg.extend_from_slice(&(width * 3).to_le_bytes());
        msg.extend_from_slice(&(width * height * 3).to_le_bytes());
        let noise = i % 2 == 0;
        let blocks: Vec<[u8; 3]> = (0..(width / 4) * (height / 4))
            .map(|_| {
                let r = next();
                [r as u8, (r >> 8) as u8, (r >> 16) as u8]
            })
            .collect();
        for y in 0..height {
            for x in 0..width {
                let px = if noise {
                    blocks[((y / 4) * (width / 4) + x / 4) as usize]
                } else {
                    [(x / 3) as u8, (y / 2) as u8, (i % 256) as u8]
                };
                msg.extend_from_slice(&px);
            }
        }
        w.write(conns[i % topics], t, &msg).unwrap();
        if i % 60 == 0 {
            for (k, &c) in cloud_conns.iter().enumerate() {
                msg.clear();
                header(i as u32, t, &mut msg);
                let points = 100_000u32;
                msg.extend_from_slice(&1u32.to_le_bytes());
                msg.extend_from_slice(&points.to_le_bytes());
                msg.extend_from_slice(&3u32.to_le_bytes());
                for (n, name) in ["x", "y", "z"].iter().enumerate() {
                    msg.extend_from_slice(&1u32.to_le_bytes());
                    msg.extend_from_slice(name.as_bytes());
                    msg.extend_from_slice(&(n as u32 * 4).to_le_bytes());
                    msg.push(7);
                    msg.extend_from_slice(&1u32.to_le_bytes());
                }
                msg.push(0);
                msg.extend_from_slice(&12u32.to_le_bytes());
                msg.extend_from_slice(&(points * 12).to_le_bytes());
                msg.extend_from_slice(&(points * 12).to_le_bytes());
                for p in 0..points {
                    let a = p as f32 * 0.001 + k as f32;
                    for v in [a.cos() * 20.0, a.sin() * 20.0, (p % 100) as f32 * 0.01] {
                        msg.extend_from_slice(&v.to_le_bytes());
                    }
                }
                msg.push(1);
                w.write(c, t, &msg).unwrap();
            }
        }
    }
    w.finish().unwrap();
}

#[test]
fn many_large_frames_keep_the_page_within_its_budget() {
    let dir = std::env::temp_dir().join(format!("robolog-report-frames-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bag = dir.join("frames.bag");
    // 500 frames of 640 x 480 rgb8 (460 MB) on 50 cameras, and 4 clouds of
    // 100,000 points.
    big_bag(&bag, 50, 500, 4);
    let out = dir.join("page.html");
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let started = std::time::Instant::now();
    let logs = write_report(std::slice::from_ref(&bag), &out, &opts, true).unwrap();
    let took = started.elapsed();
    let page = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    eprintln!(
        "page of {} bytes in {took:?}: {} strips of {} thumbnails, {} clouds",
        page.len(),
        logs[0].strips.len(),
        logs[0].strips.iter().map(|s| s.frames.len()).sum::<usize>(),
        logs[0].clouds.len()
    );
    assert!(page.len() < PAGE_BUDGET, "{} bytes", page.len());
    assert!(!page.contains("<script>alert"), "topic names are data");
    let r = &logs[0];
    assert_eq!(r.strips.len(), 50);
    assert_eq!(r.clouds.len(), 4);
    let thumbs: usize = r
        .strips
        .iter()
        .flat_map(|s| &s.frames)
        .map(|f| f.jpeg.len().div_ceil(3) * 4)
        .sum();
    let points: usize = r
        .clouds
        .iter()
        .flat_map(|c| &c.frames)
        .map(|f| f.x.len())
        .sum();
    assert!(thumbs + points * 16 <= SENSOR_BUDGET, "{thumbs} + {points}");
    assert!(r.strips.iter().all(|s| !s.frames.is_empty()));
    assert!(r.clouds.iter().all(|c| c.frames.len() == 8));
    assert!(r.problems.is_empty(), "{:?}", r.problems);
}
