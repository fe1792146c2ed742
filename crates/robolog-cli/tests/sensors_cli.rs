//! `robolog export --images | --video | --points | --track` against values
//! read independently of robolog's decoders: each bag's messages are read
//! with rosbag12 as raw bytes and parsed here by the messages' wire layout
//! (sensor_msgs/Image, PointCloud2, NavSatFix); the written files are read
//! back with the `png` crate, a PCD/PLY reader and a track reader written
//! here, and `ffprobe`. Corpus parts skip cleanly when the corpus is
//! absent, video parts when ffmpeg is.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{corpus, robolog, scratch_dir, text};
use logcore::MessageFilter;

// ---------------------------------------------------------------------------
// Raw messages and their wire layouts.

/// A ROS 1 message read as bytes: topic, bag time (ns), data.
struct Raw {
    topic: String,
    time: i64,
    data: Vec<u8>,
}

/// Every message of the bag at `path`, as stored.
fn raw_messages(path: &Path) -> Vec<Raw> {
    let bytes = std::fs::read(path).unwrap();
    let bag = rosbag12::Bag::new(&bytes).unwrap();
    let topics: BTreeMap<u32, String> = bag
        .connections()
        .iter()
        .map(|c| (c.id, c.topic.clone()))
        .collect();
    bag.messages(&MessageFilter::all())
        .map(|m| {
            let m = m.unwrap();
            Raw {
                topic: topics[&m.conn].clone(),
                time: i64::from(m.time.sec) * 1_000_000_000 + i64::from(m.time.nsec),
                data: m.data.to_vec(),
            }
        })
        .collect()
}

/// A little-endian reader of ROS 1 serialized fields.
struct Wire<'a>(&'a [u8]);

impl<'a> Wire<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a
    }
    fn u8(&mut self) -> u8 {
        self.take(1)[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take(8).try_into().unwrap())
    }
    fn bytes(&mut self) -> &'a [u8] {
        let n = self.u32() as usize;
        self.take(n)
    }
    fn string(&mut self) -> String {
        String::from_utf8(self.bytes().to_vec()).unwrap()
    }
    /// std_msgs/Header: seq, stamp, frame_id.
    fn header(&mut self) {
        self.take(12);
        self.bytes();
    }
}

/// sensor_msgs/Image.
struct RawImage {
    height: usize,
    width: usize,
    encoding: String,
    big_endian: bool,
    step: usize,
    data: Vec<u8>,
}

fn parse_image(data: &[u8]) -> RawImage {
    let mut w = Wire(data);
    w.header();
    let height = w.u32() as usize;
    let width = w.u32() as usize;
    let encoding = w.string();
    let big_endian = w.u8() != 0;
    let step = w.u32() as usize;
    let data = w.bytes().to_vec();
    RawImage {
        height,
        width,
        encoding,
        big_endian,
        step,
        data,
    }
}

/// sensor_msgs/Image bytes (for the bags the tests write).
fn image_message(width: u32, height: u32, encoding: &str, pixels: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&0u32.to_le_bytes());
    m.extend_from_slice(&[0; 8]);
    m.extend_from_slice(&0u32.to_le_bytes());
    m.extend_from_slice(&height.to_le_bytes());
    m.extend_from_slice(&width.to_le_bytes());
    m.extend_from_slice(&(encoding.len() as u32).to_le_bytes());
    m.extend_from_slice(encoding.as_bytes());
    m.push(0);
    let step = pixels.len() as u32 / height;
    m.extend_from_slice(&step.to_le_bytes());
    m.extend_from_slice(&(pixels.len() as u32).to_le_bytes());
    m.extend_from_slice(pixels);
    m
}

const IMAGE_DEF: &str = "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\n\
uint8 is_bigendian\nuint32 step\nuint8[] data\n\
================================================================================\n\
MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n";

/// Writes a bag of `/cam` sensor_msgs/Image messages: (time ns, width,
/// height, encoding, pixels).
fn write_image_bag(path: &Path, frames: &[(i64, u32, u32, &str, Vec<u8>)]) {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = Writer::new(file, WriterOptions::default()).unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/cam",
            "sensor_msgs/Image",
            "060021388200f6f0f447d0fcd9c64743",
            IMAGE_DEF,
        ))
        .unwrap();
    for (t, width, height, enc, px) in frames {
        let time = RosTime {
            sec: (t / 1_000_000_000) as u32,
            nsec: (t % 1_000_000_000) as u32,
        };
        w.write(c, time, &image_message(*width, *height, enc, px))
            .unwrap();
    }
    w.finish().unwrap();
}

/// An rgb8 gradient that moves with `i`.
fn gradient(width: u32, height: u32, i: u32) -> Vec<u8> {
    let mut px = Vec::new();
    for y in 0..height {
        for x in 0..width {
            px.extend_from_slice(&[
                ((x + 4 * i) % 256) as u8,
                ((y * 5) % 256) as u8,
                ((x + y + i) % 256) as u8,
            ]);
        }
    }
    px
}

/// A PNG file: width, height, colour, depth, and its samples as stored
/// (16-bit big-endian).
fn read_png(path: &Path) -> (png::OutputInfo, Vec<u8>) {
    let mut dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()))
        .read_info()
        .unwrap();
    let mut buf = vec![0; dec.output_buffer_size().unwrap()];
    let info = dec.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info, buf)
}

/// The `.png` (or other) files of a folder, sorted.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Every file under `dir`.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in files_in(dir) {
        if p.is_dir() {
            out.extend(all_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn run(args: &[&str]) -> Output {
    robolog().args(args).output().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Checks a written PNG against a raw sensor_msgs/Image, every pixel.
fn assert_png_is(file: &Path, raw: &RawImage) {
    let (info, px) = read_png(file);
    assert_eq!(
        (info.width as usize, info.height as usize),
        (raw.width, raw.height),
        "{file:?}"
    );
    let (colour, bytes_pp) = match raw.encoding.as_str() {
        "rgb8" => (png::ColorType::Rgb, 3),
        "mono8" | "8UC1" => (png::ColorType::Grayscale, 1),
        "16UC1" | "mono16" => (png::ColorType::Grayscale, 2),
        e => panic!("{e}"),
    };
    assert_eq!(info.color_type, colour, "{file:?}");
    let bit_depth = if bytes_pp == 2 { 16 } else { 8 };
    assert_eq!(info.bit_depth as u8, bit_depth, "{file:?}");
    let row = raw.width * bytes_pp;
    for y in 0..raw.height {
        let src = &raw.data[y * raw.step..y * raw.step + row];
        let got = &px[y * row..(y + 1) * row];
        if bytes_pp == 2 {
            // PNG samples are big-endian; the message's are as it says.
            for (a, b) in src.chunks_exact(2).zip(got.chunks_exact(2)) {
                let want = if raw.big_endian {
                    u16::from_be_bytes([a[0], a[1]])
                } else {
                    u16::from_le_bytes([a[0], a[1]])
                };
                assert_eq!(u16::from_be_bytes([b[0], b[1]]), want, "{file:?} row {y}");
            }
        } else {
            assert_eq!(src, got, "{file:?} row {y}");
        }
    }
}

// ---------------------------------------------------------------------------
// Images.

#[test]
fn images_equal_the_raw_frames_pixel_for_pixel() {
    let Some(bag) = corpus("sensors/ctu_ros_utils-raw.bag") else {
        return;
    };
    let dir = scratch_dir("sensors", "images");
    let out = run(&["export", s(&bag), "-o", s(&dir), "--images"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let raws = raw_messages(&bag);
    assert_eq!(raws.len(), 4);
    for m in &raws {
        let img = parse_image(&m.data);
        // Named by the bag's time, in the topic's folder.
        let file = dir
            .join(m.topic.trim_start_matches('/'))
            .join(format!("{}.png", m.time));
        assert!(file.is_file(), "{file:?}: {:?}", all_files(&dir));
        assert_png_is(&file, &img);
        assert!(
            stdout.contains(&format!("{}: wrote 1 png file in ", m.topic)),
            "{stdout}"
        );
        if img.encoding == "16UC1" {
            let (_, px) = read_png(&file);
            let max = px
                .chunks_exact(2)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
                .max();
            assert_eq!(max, Some(4820), "the README's depth range");
        }
    }
    assert_eq!(all_files(&dir).len(), 4);
    // The names are the times `robolog cat --json` gives.
    let cat = run(&["cat", s(&bag), "--json"]);
    for line in text(&cat.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let topic = v["topic"].as_str().unwrap();
        let file = dir
            .join(&topic[1..])
            .join(format!("{}.png", v["log_time_ns"].as_i64().unwrap()));
        assert!(file.is_file(), "{file:?}");
    }
}

#[test]
fn the_16_bit_png_of_the_compressed_bag_equals_the_raw_depth_frame() {
    let (Some(raw), Some(comp)) = (
        corpus("sensors/ctu_ros_utils-raw.bag"),
        corpus("sensors/ctu_ros_utils-compressed.bag"),
    ) else {
        return;
    };
    let depth = raw_messages(&raw)
        .into_iter()
        .find(|m| m.topic == "/spot/depth/frontleft/image")
        .unwrap();
    let depth = parse_image(&depth.data);
    let dir = scratch_dir("sensors", "compressed");
    let topic = "/spot/depth/frontleft/image/compressed";
    let out = run(&[
        "export",
        s(&comp),
        "-o",
        s(&dir),
        "--images",
        "--topic",
        topic,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = raw_messages(&comp)
        .into_iter()
        .find(|m| m.topic == topic)
        .unwrap()
        .time;
    let file = dir.join(&topic[1..]).join(format!("{t}.png"));
    assert_png_is(&file, &depth);
    assert_eq!(all_files(&dir), [file]);

    // JPEG: 8-bit frames written, the 16-bit one refused as a problem
    // (exit 1) that names it.
    let dir = scratch_dir("sensors", "jpeg");
    let out = run(&[
        "export",
        s(&comp),
        "-o",
        s(&dir),
        "--images",
        "--format",
        "jpg",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{topic}: 1 message skipped; the first: {topic} at "
        )) && err.contains("16-bit frame is not written as JPEG"),
        "{err}"
    );
    let jpgs = all_files(&dir);
    assert_eq!(jpgs.len(), 3, "{jpgs:?}");
    for f in jpgs {
        assert_eq!(f.extension().unwrap(), "jpg");
        assert!(std::fs::read(&f).unwrap().starts_with(&[0xff, 0xd8, 0xff]));
    }
}

// ---------------------------------------------------------------------------
// Point clouds.

/// One PointCloud2 field: name, offset, datatype, count.
type Field = (String, usize, u8, usize);

/// sensor_msgs/PointCloud2: fields, points, point_step, row_step, width,
/// data.
struct RawCloud {
    fields: Vec<Field>,
    height: usize,
    width: usize,
    point_step: usize,
    row_step: usize,
    data: Vec<u8>,
}

fn parse_cloud(data: &[u8]) -> RawCloud {
    let mut w = Wire(data);
    w.header();
    let height = w.u32() as usize;
    let width = w.u32() as usize;
    let n = w.u32();
    let mut fields = Vec::new();
    for _ in 0..n {
        let name = w.string();
        let offset = w.u32() as usize;
        let datatype = w.u8();
        let count = w.u32() as usize;
        fields.push((name, offset, datatype, count));
    }
    assert_eq!(w.u8(), 0, "little-endian clouds");
    let point_step = w.u32() as usize;
    let row_step = w.u32() as usize;
    let data = w.bytes().to_vec();
    fields.sort_by_key(|f| f.1);
    RawCloud {
        fields,
        height,
        width,
        point_step,
        row_step,
        data,
    }
}

/// Size of a PointCloud2 datatype.
fn datatype_size(d: u8) -> usize {
    match d {
        1 | 2 => 1,
        3 | 4 => 2,
        5..=7 => 4,
        8 => 8,
        _ => panic!("datatype {d}"),
    }
}

/// The PCD/PLY type letter and size of a PointCloud2 datatype.
fn pcd_type(d: u8) -> (&'static str, usize) {
    let t = match d {
        1 | 3 | 5 => "I",
        2 | 4 | 6 => "U",
        _ => "F",
    };
    (t, datatype_size(d))
}

/// A parsed PCD or PLY file: field names, sizes, types and counts, point
/// count, and the binary records (or the ASCII lines).
struct CloudFile {
    names: Vec<String>,
    sizes: Vec<usize>,
    types: Vec<String>,
    counts: Vec<usize>,
    points: usize,
    body: Vec<u8>,
}

fn read_pcd(path: &Path) -> CloudFile {
    let bytes = std::fs::read(path).unwrap();
    let mut at = 0;
    let mut head: BTreeMap<String, Vec<String>> = BTreeMap::new();
    loop {
        let end = at + bytes[at..].iter().position(|&b| b == b'\n').unwrap();
        let line = std::str::from_utf8(&bytes[at..end]).unwrap().to_string();
        at = end + 1;
        if line.starts_with('#') {
            continue;
        }
        let mut words = line.split(' ').map(String::from);
        let key = words.next().unwrap();
        head.insert(key.clone(), words.collect());
        if key == "DATA" {
            break;
        }
    }
    let nums = |k: &str| -> Vec<usize> { head[k].iter().map(|v| v.parse().unwrap()).collect() };
    assert_eq!(head["VERSION"], ["0.7"]);
    assert_eq!(nums("HEIGHT"), [1]);
    assert_eq!(nums("WIDTH"), nums("POINTS"));
    CloudFile {
        names: head["FIELDS"].clone(),
        sizes: nums("SIZE"),
        types: head["TYPE"].clone(),
        counts: nums("COUNT"),
        points: nums("POINTS")[0],
        body: {
            assert!(["binary", "ascii"].contains(&head["DATA"][0].as_str()));
            bytes[at..].to_vec()
        },
    }
}

fn read_ply(path: &Path) -> CloudFile {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .unwrap()
        + 11;
    let head = std::str::from_utf8(&bytes[..end]).unwrap();
    let mut f = CloudFile {
        names: vec![],
        sizes: vec![],
        types: vec![],
        counts: vec![],
        points: 0,
        body: bytes[end..].to_vec(),
    };
    assert!(head.starts_with("ply\nformat binary_little_endian 1.0\n"));
    for line in head.lines() {
        let w: Vec<&str> = line.split(' ').collect();
        match w[..] {
            ["element", "vertex", n] => f.points = n.parse().unwrap(),
            ["property", ty, name] => {
                let (t, size) = match ty {
                    "char" => ("I", 1),
                    "uchar" => ("U", 1),
                    "short" => ("I", 2),
                    "ushort" => ("U", 2),
                    "int" => ("I", 4),
                    "uint" => ("U", 4),
                    "float" => ("F", 4),
                    "double" => ("F", 8),
                    _ => panic!("{ty}"),
                };
                f.names.push(name.into());
                f.types.push(t.into());
                f.sizes.push(size);
                f.counts.push(1);
            }
            _ => {}
        }
    }
    f
}

/// Checks a binary PCD/PLY file against the cloud in the message, point
/// for point and byte for byte (the fields at their offsets).
fn assert_cloud_file_is(file: &CloudFile, raw: &RawCloud, what: &Path) {
    let names: Vec<&str> = raw.fields.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(file.names, names, "{what:?}");
    for (i, (_, _, d, count)) in raw.fields.iter().enumerate() {
        let (t, size) = pcd_type(*d);
        assert_eq!(
            (file.types[i].as_str(), file.sizes[i], file.counts[i]),
            (t, size, *count),
            "{what:?} field {i}"
        );
    }
    assert_eq!(file.points, raw.width * raw.height, "{what:?}");
    let record: usize = file
        .sizes
        .iter()
        .zip(&file.counts)
        .map(|(s, c)| s * c)
        .sum();
    assert_eq!(file.body.len(), record * file.points, "{what:?}");
    for r in 0..raw.height {
        for c in 0..raw.width {
            let i = r * raw.width + c;
            let src = r * raw.row_step + c * raw.point_step;
            let mut at = i * record;
            for (_, off, d, count) in &raw.fields {
                let n = datatype_size(*d) * count;
                assert_eq!(
                    &file.body[at..at + n],
                    &raw.data[src + off..src + off + n],
                    "{what:?} point {i}"
                );
                at += n;
            }
        }
    }
}

#[test]
fn pcd_and_ply_files_hold_every_field_of_every_point() {
    let (Some(embag), Some(swri)) = (
        corpus("rosbag/embag-test.bag"),
        corpus("rosbag/swri-PointCloud2.bag"),
    ) else {
        return;
    };
    for (format, reader) in [
        ("pcd", read_pcd as fn(&Path) -> CloudFile),
        ("ply", read_ply),
    ] {
        for bag in [&embag, &swri] {
            let dir = scratch_dir("sensors", format);
            let out = run(&[
                "export",
                s(bag),
                "-o",
                s(&dir),
                "--points",
                "--format",
                format,
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            let clouds: Vec<Raw> = raw_messages(bag)
                .into_iter()
                .filter(|m| m.topic == "/luminar_pointcloud" || m.topic == "/pointcloud2")
                .collect();
            assert!(!clouds.is_empty());
            for (k, m) in clouds.iter().enumerate() {
                let file = dir.join(&m.topic[1..]).join(format!("{}.{format}", m.time));
                let raw = parse_cloud(&m.data);
                let got = reader(&file);
                assert_cloud_file_is(&got, &raw, &file);
                if m.topic == "/luminar_pointcloud" {
                    // The first of the five clouds (the others hold 36055
                    // to 36457 points).
                    if k == 0 {
                        assert_eq!(got.points, 35707);
                    }
                    assert_eq!(
                        got.names,
                        [
                            "x",
                            "y",
                            "z",
                            "intensity",
                            "time_sec",
                            "time_nsec",
                            "laser_id"
                        ]
                    );
                }
            }
            if bag == &embag {
                // The laser scans too, as x, y, z (+ intensity) clouds.
                let scans = files_in(&dir.join("base_scan"));
                assert_eq!(scans.len(), 5, "{scans:?}");
                let f = reader(&scans[0]);
                assert_eq!(&f.names[..3], ["x", "y", "z"]);
                assert_eq!(files_in(&dir.join("luminar_pointcloud")).len(), 5);
            }
        }
    }
    // ASCII PCD: every value reads back to the message's.
    let dir = scratch_dir("sensors", "ascii");
    let out = run(&["export", s(&swri), "-o", s(&dir), "--points", "--ascii"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let m = raw_messages(&swri).remove(0);
    let raw = parse_cloud(&m.data);
    let f = read_pcd(&dir.join("pointcloud2").join(format!("{}.pcd", m.time)));
    let body = String::from_utf8(f.body).unwrap();
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), raw.width * raw.height);
    for (i, line) in lines.iter().enumerate() {
        let (r, c) = (i / raw.width, i % raw.width);
        let src = r * raw.row_step + c * raw.point_step;
        let values: Vec<&str> = line.split(' ').collect();
        let mut k = 0;
        for (_, off, d, count) in &raw.fields {
            for j in 0..*count {
                let at = src + off + j * datatype_size(*d);
                let b = &raw.data[at..at + datatype_size(*d)];
                let want: f64 = match d {
                    7 => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
                    8 => f64::from_le_bytes(b.try_into().unwrap()),
                    2 => f64::from(b[0]),
                    4 => f64::from(u16::from_le_bytes(b.try_into().unwrap())),
                    6 => f64::from(u32::from_le_bytes(b.try_into().unwrap())),
                    _ => panic!("datatype {d} in the swri cloud"),
                };
                // Floats as their shortest text: read back at their width.
                let got: f64 = match d {
                    7 => f64::from(values[k].parse::<f32>().unwrap()),
                    _ => values[k].parse().unwrap(),
                };
                assert!(
                    got == want || (got.is_nan() && want.is_nan()),
                    "{i}: {line}"
                );
                k += 1;
            }
        }
        assert_eq!(k, values.len());
    }
}

#[test]
fn multi_echo_scans_and_every() {
    let Some(bag) = corpus("sensors/cartographer_ros-b0-2014-07-21-12-42-53-tiny.bag") else {
        return;
    };
    let dir = scratch_dir("sensors", "every");
    let out = run(&[
        "export",
        s(&bag),
        "-o",
        s(&dir),
        "--points",
        "--every",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // 222 scans: the 1st, 11th, ..., 221st.
    let times: Vec<i64> = raw_messages(&bag)
        .into_iter()
        .filter(|m| m.topic == "horizontal_laser_2d")
        .map(|m| m.time)
        .collect();
    assert_eq!(times.len(), 222);
    let want: Vec<PathBuf> = times
        .iter()
        .step_by(10)
        .map(|t| dir.join("horizontal_laser_2d").join(format!("{t}.pcd")))
        .collect();
    assert_eq!(all_files(&dir), want);
    let f = read_pcd(&want[0]);
    assert_eq!(f.names, ["x", "y", "z", "intensity", "echo"]);
    assert!(f.points > 1000, "{}", f.points);
}

// ---------------------------------------------------------------------------
// Tracks.

/// The fixes of a NavSatFix topic: (time ns, lat, lon, alt).
fn raw_fixes(bag: &Path, topic: &str) -> Vec<(i64, f64, f64, f64)> {
    raw_messages(bag)
        .into_iter()
        .filter(|m| m.topic == topic)
        .map(|m| {
            let mut w = Wire(&m.data);
            w.header();
            let status = w.u8() as i8;
            w.take(2);
            assert!(status >= 0, "every fix of the README has a fix");
            (m.time, w.f64(), w.f64(), w.f64())
        })
        .collect()
}

/// Every `attr="..."` value of `tag` elements.
fn attrs(xml: &str, tag: &str, attr: &str) -> Vec<f64> {
    xml.split(&format!("<{tag} "))
        .skip(1)
        .map(|e| {
            let v = e.split(&format!("{attr}=\"")).nth(1).unwrap();
            v[..v.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

#[test]
fn tracks_hold_every_fix() {
    let Some(bag) = corpus("sensors/robot_localization-test1.bag") else {
        return;
    };
    let fixes = raw_fixes(&bag, "/fix");
    assert_eq!(fixes.len(), 989);
    let first = fixes[0];
    assert!((first.1 - 42.37581).abs() < 1e-5 && (first.2 + 71.14739).abs() < 1e-5);
    assert!((first.3 - 7.3).abs() < 1e-9);
    let last = fixes[988];
    let dir = scratch_dir("sensors", "tracks");
    for format in ["gpx", "geojson", "kml"] {
        let out = run(&["export", s(&bag), "-o", s(&dir), "--track", format]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let file = dir.join(format!("fix.{format}"));
        assert_eq!(
            text(&out.stdout),
            format!("/fix: wrote {} (989 points)\n", file.display())
        );
        let body = std::fs::read_to_string(&file).unwrap();
        // (lat, lon, alt) of each point.
        let points: Vec<(f64, f64, f64)> = match format {
            "gpx" => {
                let lat = attrs(&body, "trkpt", "lat");
                let lon = attrs(&body, "trkpt", "lon");
                let ele: Vec<f64> = body
                    .split("<ele>")
                    .skip(1)
                    .map(|e| e[..e.find('<').unwrap()].parse().unwrap())
                    .collect();
                assert_eq!(body.matches("<time>2015-05-21T19:").count(), 989);
                (0..lat.len()).map(|i| (lat[i], lon[i], ele[i])).collect()
            }
            "geojson" => {
                let v: serde_json::Value = serde_json::from_str(&body).unwrap();
                let f = &v["features"][0];
                assert_eq!(f["geometry"]["type"], "LineString");
                assert_eq!(f["properties"]["name"], "/fix");
                f["geometry"]["coordinates"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        let c: Vec<f64> = c
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_f64().unwrap())
                            .collect();
                        (c[1], c[0], c[2])
                    })
                    .collect()
            }
            _ => {
                let coords = body.split("<coordinates>").nth(1).unwrap();
                let coords = &coords[..coords.find("</coordinates>").unwrap()];
                coords
                    .split_whitespace()
                    .map(|c| {
                        let c: Vec<f64> = c.split(',').map(|x| x.parse().unwrap()).collect();
                        (c[1], c[0], c[2])
                    })
                    .collect()
            }
        };
        assert_eq!(points.len(), 989, "{format}");
        for (p, f) in [(points[0], first), (points[988], last)] {
            assert_eq!(p, (f.1, f.2, f.3), "{format}");
        }
    }
    // --start/--end: seconds after the log's first message (of any topic).
    let t0 = raw_messages(&bag).iter().map(|m| m.time).min().unwrap();
    let inside = fixes
        .iter()
        .filter(|f| f.0 >= t0 + 10_000_000_000 && f.0 < t0 + 20_000_000_000)
        .count();
    let dir = scratch_dir("sensors", "track-range");
    let out = run(&[
        "export",
        s(&bag),
        "-o",
        s(&dir),
        "--track",
        "gpx",
        "--start",
        "10",
        "--end",
        "20s",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let body = std::fs::read_to_string(dir.join("fix.gpx")).unwrap();
    assert!(inside > 10);
    assert_eq!(body.matches("<trkpt ").count(), inside);
}

// ---------------------------------------------------------------------------
// Video.

/// Whether ffmpeg and ffprobe are on PATH; says why a test skips when not.
fn have_ffmpeg() -> bool {
    let ok = ["ffmpeg", "ffprobe"].iter().all(|p| {
        std::process::Command::new(p)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok {
        eprintln!("skipped: ffmpeg or ffprobe is not installed (apt-get install ffmpeg)");
    }
    ok
}

/// ffprobe's frame count, width, height and duration of the first video
/// stream.
fn probe(file: &Path) -> (u64, u64, u64, f64) {
    let out = std::process::Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=nb_read_frames,width,height,codec_name,duration",
        ])
        .args(["-of", "json"])
        .arg(file)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let st = &v["streams"][0];
    assert_eq!(st["codec_name"], "h264");
    let num = |k: &str| st[k].as_str().unwrap().parse::<f64>().unwrap();
    (
        num("nb_read_frames") as u64,
        st["width"].as_u64().unwrap(),
        st["height"].as_u64().unwrap(),
        num("duration"),
    )
}

#[test]
fn video_of_thirty_frames_at_the_topic_rate() {
    let dir = scratch_dir("sensors", "video");
    let bag = dir.join("cam.bag");
    // 30 frames at 10 Hz, then one of another size 0.1 s later: the mean
    // rate stays 10 Hz and that frame is skipped.
    let t0 = 1_600_000_000_000_000_000i64;
    let mut frames: Vec<(i64, u32, u32, &str, Vec<u8>)> = (0..30)
        .map(|i| {
            (
                t0 + i64::from(i) * 100_000_000,
                64,
                48,
                "rgb8",
                gradient(64, 48, i),
            )
        })
        .collect();
    frames.push((t0 + 3_000_000_000, 32, 32, "rgb8", gradient(32, 32, 0)));
    write_image_bag(&bag, &frames);
    let mp4 = dir.join("cam.mp4");
    if !have_ffmpeg() {
        return;
    }
    let out = run(&["export", s(&bag), "--video", s(&mp4)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        text(&out.stdout),
        format!("/cam: wrote {} (30 frames, 64x48, 10 fps)\n", mp4.display())
    );
    assert!(
        err.contains("/cam: 1 message skipped; the first: /cam at 1600000003.000000000: the frame is 32x32 rgb24, the video's frames are 64x48 rgb24"),
        "{err}"
    );
    let (n, w, h, secs) = probe(&mp4);
    assert_eq!((n, w, h), (30, 64, 48));
    assert!((secs - 3.0).abs() < 0.05, "{secs}");
    // Only the video and the bag: no temporary file.
    assert_eq!(files_in(&dir), [bag.clone(), mp4.clone()]);
    // --fps and --every: 15 frames at 5 fps, still 3 s.
    let out = run(&[
        "export",
        s(&bag),
        "--video",
        s(&mp4),
        "--force",
        "--every",
        "2",
        "--end",
        "2.95",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (n, _, _, secs) = probe(&mp4);
    assert_eq!(n, 15);
    assert!((secs - 3.0).abs() < 0.05, "{secs}");
    let out = run(&[
        "export",
        s(&bag),
        "--video",
        s(&mp4),
        "--force",
        "--fps",
        "30",
        "--end",
        "2.95",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (n, _, _, secs) = probe(&mp4);
    assert_eq!(n, 30);
    assert!((secs - 1.0).abs() < 0.05, "{secs}");
}

#[test]
fn video_pads_odd_sides() {
    let Some(bag) = corpus("sensors/ctu_ros_utils-raw.bag") else {
        return;
    };
    if !have_ffmpeg() {
        return;
    }
    let dir = scratch_dir("sensors", "odd");
    let mp4 = dir.join("mono.mp4");
    let out = run(&[
        "export",
        s(&bag),
        "--video",
        s(&mp4),
        "--topic",
        "/spot/camera/hand_mono/image",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // 224x171 padded to 224x172; one frame at the 30 fps of a lone frame.
    assert_eq!(probe(&mp4).0, 1);
    assert_eq!((probe(&mp4).1, probe(&mp4).2), (224, 172));
}

#[test]
fn a_missing_ffmpeg_says_how_to_install_it() {
    let dir = scratch_dir("sensors", "no-ffmpeg");
    let bag = dir.join("cam.bag");
    write_image_bag(&bag, &[(1_000_000_000, 4, 4, "rgb8", gradient(4, 4, 0))]);
    let empty = dir.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let mp4 = dir.join("cam.mp4");
    let out = robolog()
        .env("PATH", &empty)
        .args(["export", s(&bag), "--video", s(&mp4)])
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("ffmpeg program, which is not on PATH")
            && err.contains("`apt-get install ffmpeg` on Debian and Ubuntu")
            && err.contains("`brew install ffmpeg` on macOS"),
        "{err}"
    );
    assert_eq!(files_in(&dir), [bag, empty]);
}

// ---------------------------------------------------------------------------
// Safe writes and usage.

#[test]
fn existing_files_are_refused_before_anything_is_written_and_replaced_with_force() {
    let dir = scratch_dir("sensors", "force");
    let bag = dir.join("cam.bag");
    let frames: Vec<_> = (0..3)
        .map(|i| {
            (
                1_000_000_000 + i64::from(i),
                8,
                6,
                "rgb8",
                gradient(8, 6, i),
            )
        })
        .collect();
    write_image_bag(&bag, &frames);
    let out_dir = dir.join("out");
    let out = run(&["export", s(&bag), "-o", s(&out_dir), "--images"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let names = all_files(&out_dir);
    assert_eq!(names.len(), 3);
    // One file changed, one removed: the run refuses at the changed one
    // and writes nothing, not even the removed one.
    std::fs::write(&names[1], b"mine").unwrap();
    std::fs::remove_file(&names[2]).unwrap();
    let out = run(&["export", s(&bag), "-o", s(&out_dir), "--images"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}: the output {} exists already; not replaced (use --force to replace it)",
            names[0].display(),
            names[0].display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read(&names[1]).unwrap(), b"mine");
    assert!(!names[2].exists());
    let out = run(&["export", s(&bag), "-o", s(&out_dir), "--images", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(all_files(&out_dir), names);
    assert_eq!(read_png(&names[1]).1, gradient(8, 6, 1));
    // A track or a video that exists: refused before reading.
    let mp4 = dir.join("cam.mp4");
    std::fs::write(&mp4, b"mine").unwrap();
    let out = run(&["export", s(&bag), "--video", s(&mp4)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&mp4).unwrap(), b"mine");
}

#[test]
fn usage_errors_name_the_topics_there_are() {
    let dir = scratch_dir("sensors", "usage");
    let bag = dir.join("cam.bag");
    write_image_bag(&bag, &[(1_000_000_000, 4, 4, "rgb8", gradient(4, 4, 0))]);
    let out_dir = dir.join("out");
    let o = s(&out_dir);
    let cases: [(&[&str], &str); 7] = [
        (
            &["--images", "--topic", "/nope"],
            r#"--topic "/nope": no such topic in this log; its topics are "/cam""#,
        ),
        (
            &["--track", "gpx", "--topic", "/cam"],
            r#"--topic "/cam" holds sensor_msgs/Image, which --track does not write; its position topics (for --track): none"#,
        ),
        (
            &["--points"],
            "--points: the log has no point cloud or laser scan topic",
        ),
        (
            &["--images", "--format", "ply"],
            "--format ply is a format of --points, which is not given",
        ),
        (
            &["--every", "2"],
            "--format and --every go with --images, --video, --points or --track",
        ),
        (
            &["--images", "--points"],
            "--points: the log has no point cloud or laser scan topic",
        ),
        (&["--images", "--csv"], "cannot be used with"),
    ];
    for (args, want) in cases {
        let mut all = vec!["export", s(&bag), "-o", o];
        all.extend(args);
        let out = run(&all);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!out_dir.exists(), "{args:?}");
    }
    let out = run(&["export", s(&bag), "--video", "x.mp4", "--points"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'--video <OUT>' cannot be used with '--points'"));
    // A real log with a wrong kind lists that kind's topics.
    if let Some(raw) = corpus("sensors/robot_localization-test1.bag") {
        let out = run(&[
            "export",
            s(&raw),
            "-o",
            o,
            "--track",
            "kml",
            "--topic",
            "/imu/data",
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(r#"its position topics (for --track): "/fix""#),
            "{err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn sigint_leaves_only_complete_files() {
    use std::time::{Duration, Instant};
    let dir = scratch_dir("sensors", "sigint");
    let bag = dir.join("cam.bag");
    let frames: Vec<_> = (0..150)
        .map(|i| {
            (
                1_000_000_000 + i64::from(i) * 1000,
                320,
                240,
                "rgb8",
                gradient(320, 240, i),
            )
        })
        .collect();
    write_image_bag(&bag, &frames);
    let out_dir = dir.join("out");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_robolog"))
        .args(["export", s(&bag), "-o", s(&out_dir), "--images"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let folder = out_dir.join("cam");
    let deadline = Instant::now() + Duration::from_secs(120);
    while files_in(&folder).len() < 3 {
        assert!(Instant::now() < deadline, "no file written");
        std::thread::sleep(Duration::from_millis(1));
    }
    let pid = child.id().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-s", "INT", &pid])
        .status();
    assert!(kill.unwrap().success());
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        err.contains("robolog: interrupted by SIGINT; removed "),
        "{err}"
    );
    let written = files_in(&folder);
    assert!(written.len() < 150, "the run ended early");
    for f in &written {
        // No temporary file; every file there complete.
        let name = f.file_name().unwrap().to_str().unwrap();
        assert!(!name.contains(".robolog-tmp-"), "{name}");
        let t: i64 = name.strip_suffix(".png").unwrap().parse().unwrap();
        let i = u32::try_from((t - 1_000_000_000) / 1000).unwrap();
        assert_eq!(read_png(f).1, gradient(320, 240, i), "{name}");
    }
}
