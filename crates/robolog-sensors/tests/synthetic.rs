//! Messages built here as `Value`s, with the expected output computed
//! here independently of the crate (by formula or by construction), and
//! hostile messages that must be refused without panicking or allocating
//! what they declare.

use logcore::Value;
use robolog_sensors::{
    CloudOptions, Dtype, Fix, ImageOptions, PixelOrder, Problem, Sample, decode_cloud, decode_fix,
    decode_image, write,
};

fn u(v: u64) -> Value {
    Value::U64(v)
}

fn s(v: &str) -> Value {
    Value::String(v.into())
}

fn image_msg(enc: &str, w: u64, h: u64, step: u64, big: bool, data: Vec<u8>) -> Value {
    Value::record([
        ("height", u(h)),
        ("width", u(w)),
        ("encoding", s(enc)),
        ("is_bigendian", Value::Bool(big)),
        ("step", u(step)),
        ("data", Value::Bytes(data)),
    ])
}

const IMAGE: &str = "sensor_msgs/Image";

#[test]
fn bgr8_with_row_padding_becomes_rgb() {
    // 2 x 2, step 8 (2 bytes of padding per row).
    let px = [[10u8, 20, 30], [40, 50, 60], [70, 80, 90], [100, 110, 120]];
    let mut data = Vec::new();
    for row in px.chunks(2) {
        for p in row {
            data.extend_from_slice(p);
        }
        data.extend_from_slice(&[0xEE, 0xEE]);
    }
    let msg = image_msg("bgr8", 2, 2, 8, false, data);
    let img = decode_image(IMAGE, &msg, &ImageOptions::default()).unwrap();
    let want: Vec<u8> = px.iter().flat_map(|p| [p[2], p[1], p[0]]).collect();
    assert_eq!(
        (img.order, img.dtype, img.data.clone()),
        (PixelOrder::Rgb, Dtype::U8, want)
    );
    let kept = decode_image(
        IMAGE,
        &msg,
        &ImageOptions {
            keep_order: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(kept.order, PixelOrder::Bgr);
    assert_eq!(kept.data, px.concat());
    // ROS 2 names the type sensor_msgs/msg/Image; Foxglove RawImage too.
    let ros2 = decode_image("sensor_msgs/msg/Image", &msg, &ImageOptions::default()).unwrap();
    assert_eq!(ros2, img);
    assert_eq!(
        decode_image("foxglove.RawImage", &msg, &ImageOptions::default()).unwrap(),
        img
    );
}

#[test]
fn big_endian_16uc1_and_bgra16() {
    let values = [0u16, 1, 0x1234, 4820, 65535, 300];
    // 3 x 2, step 8 (2 bytes padding), big-endian.
    let mut data = Vec::new();
    for row in values.chunks(3) {
        for v in row {
            data.extend_from_slice(&v.to_be_bytes());
        }
        data.extend_from_slice(&[0, 0]);
    }
    let img = decode_image(
        IMAGE,
        &image_msg("16UC1", 3, 2, 8, true, data),
        &ImageOptions::default(),
    )
    .unwrap();
    assert_eq!((img.order, img.dtype), (PixelOrder::Mono, Dtype::U16));
    let want: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(img.data, want);
    assert_eq!(img.sample(0, 1, 0), Some(4820.0));
    // One bgra16 pixel, little-endian.
    let bgra = [1000u16, 2000, 3000, 4000];
    let data: Vec<u8> = bgra.iter().flat_map(|v| v.to_le_bytes()).collect();
    let img = decode_image(
        IMAGE,
        &image_msg("bgra16", 1, 1, 8, false, data),
        &ImageOptions::default(),
    )
    .unwrap();
    assert_eq!(img.order, PixelOrder::Rgba);
    let want: Vec<u8> = [3000u16, 2000, 1000, 4000]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(img.data, want);
    // 32FC1.
    let f = [1.5f32, f32::NAN];
    let data: Vec<u8> = f.iter().flat_map(|v| v.to_le_bytes()).collect();
    let img = decode_image(
        IMAGE,
        &image_msg("32FC1", 2, 1, 8, false, data.clone()),
        &ImageOptions::default(),
    )
    .unwrap();
    assert_eq!((img.dtype, img.data.clone()), (Dtype::F32, data));
    assert_eq!(Dtype::F32.name(), "<f4");
}

/// BT.601 video range in floating point (the textbook formula).
fn yuv_reference(y: u8, u: u8, v: u8) -> [f64; 3] {
    let (y, u, v) = (
        f64::from(y) - 16.0,
        f64::from(u) - 128.0,
        f64::from(v) - 128.0,
    );
    let y = y.max(0.0) * 1.164;
    [y + 1.596 * v, y - 0.813 * v - 0.391 * u, y + 2.018 * u].map(|c| c.clamp(0.0, 255.0))
}

#[test]
fn uyvy_and_yuyv_follow_bt601() {
    let samples = [
        (235u8, 128u8, 128u8),
        (16, 128, 128),
        (81, 90, 240),
        (145, 54, 34),
        (41, 240, 110),
        (128, 60, 200),
    ];
    for &(y0, u0, v0) in &samples {
        let y1 = y0.saturating_sub(30);
        let uyvy = image_msg("uyvy", 2, 1, 4, false, vec![u0, y0, v0, y1]);
        let yuyv = image_msg("yuv422_yuy2", 2, 1, 4, false, vec![y0, u0, y1, v0]);
        for msg in [uyvy, yuyv] {
            let img = decode_image(IMAGE, &msg, &ImageOptions::default()).unwrap();
            assert_eq!((img.order, img.data.len()), (PixelOrder::Rgb, 6));
            for (k, y) in [y0, y1].into_iter().enumerate() {
                let want = yuv_reference(y, u0, v0);
                for (c, w) in want.iter().enumerate() {
                    let got = f64::from(img.data[3 * k + c]);
                    assert!((got - w).abs() <= 1.0, "{y},{u0},{v0} c{c}: {got} vs {w}");
                }
            }
        }
    }
}

#[test]
fn bayer_is_mono_by_default_and_bilinear_when_asked() {
    // A uniformly coloured scene seen through each pattern: every
    // demosaiced pixel must be that colour, borders included.
    let colour = [200u8, 100, 50];
    for (pattern, cell) in [
        ("rggb", [0, 1, 1, 2]),
        ("bggr", [2, 1, 1, 0]),
        ("gbrg", [1, 2, 0, 1]),
        ("grbg", [1, 0, 2, 1]),
    ] {
        let (w, h) = (6usize, 4usize);
        let mosaic: Vec<u8> = (0..h)
            .flat_map(|y| (0..w).map(move |x| colour[cell[(y % 2) * 2 + x % 2]]))
            .collect();
        let msg = image_msg(
            &format!("bayer_{pattern}8"),
            w as u64,
            h as u64,
            w as u64,
            false,
            mosaic.clone(),
        );
        let mono = decode_image(IMAGE, &msg, &ImageOptions::default()).unwrap();
        assert_eq!((mono.order, mono.data.clone()), (PixelOrder::Mono, mosaic));
        let rgb = decode_image(
            IMAGE,
            &msg,
            &ImageOptions {
                debayer: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(rgb.order, PixelOrder::Rgb);
        assert!(rgb.data.chunks(3).all(|p| p == colour), "{pattern}");
    }
    // A horizontal ramp of green: the interior red pixel's green is the
    // mean of its 4 neighbours.
    let (w, h) = (5usize, 5usize);
    let vals: Vec<u8> = (0..w * h).map(|i| (i * 7 % 251) as u8).collect();
    let msg = image_msg("bayer_rggb8", 5, 5, 5, false, vals.clone());
    let rgb = decode_image(
        IMAGE,
        &msg,
        &ImageOptions {
            debayer: true,
            ..Default::default()
        },
    )
    .unwrap();
    let at = |x: usize, y: usize| u32::from(vals[y * w + x]);
    // (2, 2) is red in rggb.
    let g = (at(1, 2) + at(3, 2) + at(2, 1) + at(2, 3) + 2) / 4;
    let b = (at(1, 1) + at(3, 1) + at(1, 3) + at(3, 3) + 2) / 4;
    let p = &rgb.data[(2 * w + 2) * 3..(2 * w + 2) * 3 + 3];
    assert_eq!(
        [u32::from(p[0]), u32::from(p[1]), u32::from(p[2])],
        [at(2, 2), g, b]
    );
}

fn pc2_field(name: &str, offset: u64, datatype: u64, count: u64) -> Value {
    Value::record([
        ("name", s(name)),
        ("offset", u(offset)),
        ("datatype", u(datatype)),
        ("count", u(count)),
    ])
}

#[test]
fn point_cloud2_with_padding_and_big_endian_fields() {
    // Points of 24 bytes: x f32 @0, y f32 @4, z f32 @8, 4 bytes padding,
    // intensity u16 @16, ring u8 @18, rgb u8 x3 @19, 2 bytes padding.
    // 2 rows of 2 points, row_step 56 (8 bytes padding per row); big-endian.
    let pts: [([f32; 3], u16, u8, [u8; 3]); 4] = [
        ([1.0, 2.0, 3.0], 100, 1, [1, 2, 3]),
        ([f32::NAN, 0.5, -1.0], 200, 2, [4, 5, 6]),
        ([-7.25, 8.0, 9.5], 300, 3, [7, 8, 9]),
        ([1e-3, -2e3, 0.0], 65535, 255, [10, 11, 12]),
    ];
    let mut data = Vec::new();
    for row in pts.chunks(2) {
        for (xyz, i, r, c) in row {
            for v in xyz {
                data.extend_from_slice(&v.to_be_bytes());
            }
            data.extend_from_slice(&[0xAA; 4]);
            data.extend_from_slice(&i.to_be_bytes());
            data.push(*r);
            data.extend_from_slice(c);
            data.extend_from_slice(&[0xBB; 2]);
        }
        data.extend_from_slice(&[0xCC; 8]);
    }
    // Fields listed out of offset order: the output is in offset order.
    let msg = Value::record([
        ("height", u(2)),
        ("width", u(2)),
        (
            "fields",
            Value::Array(vec![
                pc2_field("intensity", 16, 4, 1),
                pc2_field("x", 0, 7, 1),
                pc2_field("y", 4, 7, 1),
                pc2_field("z", 8, 7, 1),
                pc2_field("ring", 18, 2, 1),
                pc2_field("rgb", 19, 2, 3),
            ]),
        ),
        ("is_bigendian", Value::Bool(true)),
        ("point_step", u(24)),
        ("row_step", u(56)),
        ("data", Value::Bytes(data)),
        ("is_dense", Value::Bool(false)),
    ]);
    let c = decode_cloud("sensor_msgs/PointCloud2", &msg, &CloudOptions::default()).unwrap();
    let names: Vec<_> = c
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.dtype, f.count))
        .collect();
    assert_eq!(
        names,
        [
            ("x", Dtype::F32, 1),
            ("y", Dtype::F32, 1),
            ("z", Dtype::F32, 1),
            ("intensity", Dtype::U16, 1),
            ("ring", Dtype::U8, 1),
            ("rgb", Dtype::U8, 3),
        ]
    );
    assert_eq!((c.points, c.record_size()), (4, 12 + 2 + 1 + 3));
    let mut want = Vec::new();
    for (xyz, i, r, col) in &pts {
        for v in xyz {
            want.extend_from_slice(&v.to_le_bytes());
        }
        want.extend_from_slice(&i.to_le_bytes());
        want.push(*r);
        want.extend_from_slice(col);
    }
    assert_eq!(c.data, want);
    let dense = decode_cloud(
        "sensor_msgs/PointCloud2",
        &msg,
        &CloudOptions { drop_nan: true },
    )
    .unwrap();
    assert_eq!(dense.points, 3);
    assert_eq!(dense.data, [&want[..18], &want[36..]].concat());
}

#[test]
fn foxglove_point_clouds_from_protobuf_and_json() {
    let mut data = Vec::new();
    for p in [[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]] {
        for v in p {
            data.extend_from_slice(&v.to_le_bytes());
        }
        data.extend_from_slice(&7u16.to_le_bytes());
        data.extend_from_slice(&[0, 0]);
    }
    let field =
        |n: &str, o: u64, t: Value| Value::record([("name", s(n)), ("offset", u(o)), ("type", t)]);
    // Protobuf enums decode to their names, JSON ones to their numbers;
    // JSON bytes are base64.
    let proto = Value::record([
        ("point_stride", u(16)),
        (
            "fields",
            Value::Array(vec![
                field("x", 0, s("FLOAT32")),
                field("y", 4, s("FLOAT32")),
                field("z", 8, s("FLOAT32")),
                field("tag", 12, s("UINT16")),
            ]),
        ),
        ("data", Value::Bytes(data.clone())),
    ]);
    let b64 = base64(&data);
    let json = Value::record([
        ("point_stride", u(16)),
        (
            "fields",
            Value::Array(vec![
                field("x", 0, u(7)),
                field("y", 4, u(7)),
                field("z", 8, u(7)),
                field("tag", 12, u(3)),
            ]),
        ),
        ("data", s(&b64)),
    ]);
    let a = decode_cloud("foxglove.PointCloud", &proto, &CloudOptions::default()).unwrap();
    let b = decode_cloud("foxglove.PointCloud", &json, &CloudOptions::default()).unwrap();
    assert_eq!(a, b);
    assert_eq!((a.points, a.record_size()), (2, 14));
    assert_eq!(a.value(1, "y", 0), Some(5.0));
    assert_eq!(a.value(1, "tag", 0), Some(7.0));
}

/// Standard base64, written out here.
fn base64(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn laser_scan_drops_ranges_outside_the_limits() {
    let ranges = vec![1.0f32, 0.05, f32::INFINITY, 2.0, 31.0, f32::NAN, 30.0];
    let intens = vec![10.0f32, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0];
    let msg = Value::record([
        ("angle_min", Value::F32(-1.0)),
        ("angle_max", Value::F32(2.0)),
        ("angle_increment", Value::F32(0.5)),
        ("range_min", Value::F32(0.1)),
        ("range_max", Value::F32(30.0)),
        ("ranges", Value::F32Array(ranges)),
        ("intensities", Value::F32Array(intens)),
    ]);
    let c = decode_cloud("sensor_msgs/LaserScan", &msg, &CloudOptions::default()).unwrap();
    let kept = [(0usize, 1.0f64, 10.0), (3, 2.0, 13.0), (6, 30.0, 16.0)];
    assert_eq!(c.points, kept.len());
    for (k, (i, r, inten)) in kept.iter().enumerate() {
        let a = -1.0 + *i as f64 * 0.5;
        assert!((c.value(k, "x", 0).unwrap() - r * a.cos()).abs() < 1e-5);
        assert!((c.value(k, "y", 0).unwrap() - r * a.sin()).abs() < 1e-5);
        assert_eq!(c.value(k, "z", 0), Some(0.0));
        assert_eq!(c.value(k, "intensity", 0), Some(*inten));
    }
}

#[test]
fn point_cloud_channels_become_fields() {
    let p = |x: f32, y: f32, z: f32| {
        Value::record([
            ("x", Value::F32(x)),
            ("y", Value::F32(y)),
            ("z", Value::F32(z)),
        ])
    };
    let msg = Value::record([
        (
            "points",
            Value::Array(vec![p(1.0, 2.0, 3.0), p(4.0, 5.0, 6.0)]),
        ),
        (
            "channels",
            Value::Array(vec![Value::record([
                ("name", s("intensity")),
                ("values", Value::F32Array(vec![0.5, 0.25])),
            ])]),
        ),
    ]);
    let c = decode_cloud("sensor_msgs/PointCloud", &msg, &CloudOptions::default()).unwrap();
    let want: Vec<u8> = [1.0f32, 2.0, 3.0, 0.5, 4.0, 5.0, 6.0, 0.25]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(c.data, want);
}

#[test]
fn fixes_of_every_position_type() {
    let nav = |status: i64, lat: f64| {
        Value::record([
            (
                "status",
                Value::record([("status", Value::I64(status)), ("service", u(1))]),
            ),
            ("latitude", Value::F64(lat)),
            ("longitude", Value::F64(8.5)),
            ("altitude", Value::F64(400.0)),
        ])
    };
    assert_eq!(
        decode_fix("sensor_msgs/NavSatFix", &nav(2, 47.0)).unwrap(),
        Some(Fix {
            latitude: 47.0,
            longitude: 8.5,
            altitude: 400.0,
            status: 2
        })
    );
    assert_eq!(
        decode_fix("sensor_msgs/msg/NavSatFix", &nav(-1, 47.0)).unwrap(),
        None
    );
    assert_eq!(
        decode_fix("sensor_msgs/NavSatFix", &nav(0, f64::NAN)).unwrap(),
        None
    );
    // Newer PX4: degrees as f64, metres.
    let px4 = Value::record([
        ("latitude_deg", Value::F64(47.3977422)),
        ("longitude_deg", Value::F64(8.545594)),
        ("altitude_msl_m", Value::F64(487.993)),
        ("fix_type", u(3)),
    ]);
    assert_eq!(
        decode_fix("sensor_gps", &px4).unwrap(),
        Some(Fix {
            latitude: 47.3977422,
            longitude: 8.545594,
            altitude: 487.993,
            status: 3
        })
    );
    let no_fix = Value::record([
        ("lat", Value::I64(0)),
        ("lon", Value::I64(0)),
        ("alt", Value::I64(0)),
        ("fix_type", u(1)),
    ]);
    assert_eq!(decode_fix("vehicle_gps_position", &no_fix).unwrap(), None);
    // Foxglove LocationFix: an absent altitude is protobuf 3's default, 0.
    let lf = Value::record([
        ("latitude", Value::F64(1.5)),
        ("longitude", Value::F64(-2.5)),
    ]);
    let f = decode_fix("foxglove.LocationFix", &lf).unwrap().unwrap();
    assert!(f.altitude == 0.0 && f.status == 0);
    // VEL: NMEA ddmm.mmmm read as degrees (50 deg 21.5 min).
    let vel = Value::record([
        ("latitude", Value::F64(5021.5)),
        ("longitude", Value::F64(-7.6)),
        ("quality", Value::I64(1)),
        ("height", Value::F32(80.0)),
    ]);
    let f = decode_fix("GPSDataM", &vel).unwrap().unwrap();
    assert!(
        (f.latitude - (50.0 + 21.5 / 60.0)).abs() < 1e-9 && f.longitude == -7.6 && f.status == 1
    );
}

#[test]
fn problems_name_topic_and_time() {
    let p = Problem {
        topic: "/cam".into(),
        log_time: Some(logcore::Timestamp(1_500_000_000)),
        message: "bad".into(),
    };
    let text = p.to_string();
    assert!(
        text.starts_with("/cam at ") && text.ends_with(": bad"),
        "{text}"
    );
}

#[test]
fn hostile_images_are_refused_before_allocating() {
    let o = ImageOptions::default();
    let e = decode_image(
        IMAGE,
        &image_msg("rgb8", 60000, 60000, 180000, false, vec![0; 10]),
        &o,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "data holds 10 bytes, height 60000 * step 180000 needs 10800000000"
    );
    let e = decode_image(
        IMAGE,
        &image_msg("rgb8", 640, 480, 1000, false, vec![0; 480_000]),
        &o,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("step 1000 is less than width 640 * 3 bytes = 1920"),
        "{e}"
    );
    let e = decode_image(
        IMAGE,
        &image_msg("rgb8", 640, 480, 1920, false, vec![0; 10]),
        &o,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "data holds 10 bytes, height 480 * step 1920 needs 921600"
    );
    let max = u64::from(u32::MAX);
    assert!(
        decode_image(
            IMAGE,
            &image_msg("rgba16", max, max, max, false, vec![]),
            &o
        )
        .is_err()
    );
    assert!(decode_image(IMAGE, &image_msg("weird9", 1, 1, 1, false, vec![0]), &o).is_err());
    assert!(decode_image(IMAGE, &Value::Null, &o).is_err());
    assert!(decode_image(IMAGE, &Value::record([("width", s("x"))]), &o).is_err());
    // Compressed streams that do not decode.
    let comp = |format: &str, data: Vec<u8>| {
        Value::record([("format", s(format)), ("data", Value::Bytes(data))])
    };
    for data in [
        vec![],
        vec![0xFF, 0xD8, 0xFF],
        b"\x89PNG\r\n\x1a\nxxxx".to_vec(),
        vec![1, 2, 3],
    ] {
        assert!(decode_image("sensor_msgs/CompressedImage", &comp("jpeg", data), &o).is_err());
    }
    assert!(
        decode_image(
            "sensor_msgs/CompressedImage",
            &comp("16UC1; compressedDepth", vec![0; 5]),
            &o
        )
        .is_err()
    );
}

#[test]
fn hostile_compressed_headers_are_refused_by_their_declared_size() {
    let o = ImageOptions::default();
    // A real 16 x 8 JPEG whose frame header is changed to 60000 x 60000.
    let img = robolog_sensors::Image {
        width: 16,
        height: 8,
        order: PixelOrder::Mono,
        dtype: Dtype::U8,
        data: vec![128; 128],
    };
    let mut jpeg = Vec::new();
    write::jpeg(&img, 90, &mut jpeg).unwrap();
    let comp = |data: Vec<u8>| Value::record([("format", s("jpeg")), ("data", Value::Bytes(data))]);
    let back = decode_image("sensor_msgs/CompressedImage", &comp(jpeg.clone()), &o).unwrap();
    assert_eq!(
        (back.width, back.height, back.order),
        (16, 8, PixelOrder::Mono)
    );
    let sof = jpeg
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .expect("a baseline frame header");
    jpeg[sof + 5..sof + 9].copy_from_slice(&[0xEA, 0x60, 0xEA, 0x60]);
    let e = decode_image("sensor_msgs/CompressedImage", &comp(jpeg), &o).unwrap_err();
    assert!(e.to_string().contains("more than the limit"), "{e}");
    // A PNG whose header declares 100000 x 100000 pixels.
    let mut png = Vec::new();
    write::png(&img, &mut png).unwrap();
    png[16..24].copy_from_slice(&[0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0]);
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    let e = decode_image("foxglove.CompressedImage", &comp(png), &o).unwrap_err();
    assert!(e.to_string().contains("more than the limit"), "{e}");
}

/// CRC-32 (ISO-HDLC), bit by bit.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[test]
fn hostile_clouds_are_refused() {
    let o = CloudOptions::default();
    let max = u64::from(u32::MAX);
    let msg = |w: u64, h: u64, step: u64, row: u64, fields: Vec<Value>, data: usize| {
        Value::record([
            ("height", u(h)),
            ("width", u(w)),
            ("fields", Value::Array(fields)),
            ("is_bigendian", Value::Bool(false)),
            ("point_step", u(step)),
            ("row_step", u(row)),
            ("data", Value::Bytes(vec![0; data])),
        ])
    };
    let xyz = || vec![pc2_field("x", 0, 7, 1)];
    for m in [
        msg(max, max, max, max, xyz(), 16),
        msg(1_000_000, 1, 16, 16_000_000, xyz(), 16),
        msg(2, 2, 16, 8, xyz(), 64),
        msg(1, 1, 4, 4, vec![pc2_field("x", 2, 7, 1)], 4),
        msg(1, 1, 4, 4, vec![pc2_field("x", 0, 9, 1)], 4),
        msg(1, 1, 4, 4, vec![pc2_field("x", 0, 7, max)], 4),
        msg(
            1,
            1,
            4,
            4,
            vec![pc2_field("x", 0, 7, 1), pc2_field("y", 0, 7, 1)],
            4,
        ),
    ] {
        assert!(
            decode_cloud("sensor_msgs/PointCloud2", &m, &o).is_err(),
            "{m:?}"
        );
    }
    let e = decode_cloud(
        "sensor_msgs/PointCloud2",
        &msg(1_000_000, 1, 16, 16_000_000, xyz(), 16),
        &o,
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("data holds 16 bytes"), "{e}");
}

#[test]
fn compressed_depth_32fc1_inverts_the_quantisation() {
    let (a, b) = (100.0f32 * 101.0, 1.0f32 - 100.0 * 101.0 / 10.0);
    let depths = [0.5f32, 1.0, 2.5, 9.0];
    let q: Vec<u16> = depths
        .iter()
        .map(|d| (a / d + b).round() as u16)
        .chain([0])
        .collect();
    let img = robolog_sensors::Image {
        width: 5,
        height: 1,
        order: PixelOrder::Mono,
        dtype: Dtype::U16,
        data: q.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let mut data = Vec::new();
    data.extend_from_slice(&0i32.to_le_bytes());
    data.extend_from_slice(&a.to_le_bytes());
    data.extend_from_slice(&b.to_le_bytes());
    write::png(&img, &mut data).unwrap();
    let msg = Value::record([
        ("format", s("32FC1; compressedDepth png")),
        ("data", Value::Bytes(data)),
    ]);
    let out = decode_image(
        "sensor_msgs/CompressedImage",
        &msg,
        &ImageOptions::default(),
    )
    .unwrap();
    assert_eq!(out.dtype, Dtype::F32);
    for (i, &qi) in q.iter().enumerate() {
        let got = out.sample(i as u32, 0, 0).unwrap() as f32;
        if qi == 0 {
            assert!(got.is_nan());
        } else {
            assert_eq!(got, a / (f32::from(qi) - b));
            assert!((got - depths[i]).abs() < 0.01 * depths[i]);
        }
    }
}

#[test]
fn writers() {
    // PNG of BGR: read back as RGB.
    let img = robolog_sensors::Image {
        width: 2,
        height: 1,
        order: PixelOrder::Bgr,
        dtype: Dtype::U8,
        data: vec![1, 2, 3, 4, 5, 6],
    };
    let mut png = Vec::new();
    write::png(&img, &mut png).unwrap();
    let back = decode_image(
        "foxglove.CompressedImage",
        &Value::record([("format", s("png")), ("data", Value::Bytes(png))]),
        &ImageOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (back.order, back.data),
        (PixelOrder::Rgb, vec![3, 2, 1, 6, 5, 4])
    );
    let depth = robolog_sensors::Image {
        width: 2,
        height: 2,
        order: PixelOrder::Mono,
        dtype: Dtype::F32,
        data: [0.0f32, 1.0, 2.0, f32::NAN]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    };
    assert_eq!(
        write::png(&depth, Vec::new()).unwrap_err().kind(),
        std::io::ErrorKind::InvalidInput
    );
    assert!(write::jpeg(&depth, 90, Vec::new()).is_err());
    // Thumbnail of float depth: scaled by its own 0..2, 2 x 2 -> 1 x 1 is
    // the mean of 0, 127.5, 255, 0 (NaN as 0).
    let t = write::thumbnail(&depth, 1);
    assert_eq!(
        (t.width, t.height, t.order, t.dtype),
        (1, 1, PixelOrder::Mono, Dtype::U8)
    );
    assert_eq!(
        t.data,
        [((0.0 + 127.5 + 255.0 + 0.0) / 4.0f64).round() as u8]
    );
    // 4 x 2 RGB -> 2 x 1: means of 2 x 2 cells.
    let rgb = robolog_sensors::Image {
        width: 4,
        height: 2,
        order: PixelOrder::Rgb,
        dtype: Dtype::U8,
        data: (0..24).map(|i| (i * 10) as u8).collect(),
    };
    let t = write::thumbnail(&rgb, 2);
    let cell = |x0: usize, c: usize| {
        let v = |x: usize, y: usize| f64::from(rgb.data[(y * 4 + x) * 3 + c]);
        ((v(x0, 0) + v(x0 + 1, 0) + v(x0, 1) + v(x0 + 1, 1)) / 4.0).round() as u8
    };
    assert_eq!((t.width, t.height), (2, 1));
    assert_eq!(
        t.data,
        [
            cell(0, 0),
            cell(0, 1),
            cell(0, 2),
            cell(2, 0),
            cell(2, 1),
            cell(2, 2)
        ]
    );
    // PCD and PLY.
    let cloud = robolog_sensors::Cloud {
        fields: vec![
            robolog_sensors::PointField {
                name: "x".into(),
                dtype: Dtype::F32,
                count: 1,
            },
            robolog_sensors::PointField {
                name: "ring".into(),
                dtype: Dtype::U16,
                count: 1,
            },
            robolog_sensors::PointField {
                name: "rgb".into(),
                dtype: Dtype::U8,
                count: 3,
            },
        ],
        points: 2,
        data: [
            0.5f32.to_le_bytes().as_slice(),
            &7u16.to_le_bytes(),
            &[1, 2, 3],
            &(-1.25f32).to_le_bytes(),
            &8u16.to_le_bytes(),
            &[4, 5, 6],
        ]
        .concat(),
    };
    let mut pcd = Vec::new();
    write::pcd(&cloud, true, &mut pcd).unwrap();
    let text = String::from_utf8(pcd).unwrap();
    assert!(
        text.contains(
            "FIELDS x ring rgb\nSIZE 4 2 1\nTYPE F U U\nCOUNT 1 1 3\nWIDTH 2\nHEIGHT 1\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("POINTS 2\nDATA ascii\n0.5 7 1 2 3\n-1.25 8 4 5 6\n"),
        "{text}"
    );
    let mut bin = Vec::new();
    write::pcd(&cloud, false, &mut bin).unwrap();
    assert!(bin.ends_with(&[b"DATA binary\n".as_slice(), &cloud.data].concat()));
    let mut ply = Vec::new();
    write::ply(&cloud, &mut ply).unwrap();
    let head = "ply\nformat binary_little_endian 1.0\ncomment written by robolog-sensors\nelement vertex 2\nproperty float x\nproperty ushort ring\nproperty uchar rgb_0\nproperty uchar rgb_1\nproperty uchar rgb_2\nend_header\n";
    assert_eq!(ply, [head.as_bytes(), &cloud.data].concat());
    // Tracks.
    let fixes = [
        Sample {
            log_time: logcore::Timestamp(1_432_235_498_025_000_000),
            value: Fix {
                latitude: 42.5,
                longitude: -71.25,
                altitude: 7.5,
                status: 1,
            },
        },
        Sample {
            log_time: logcore::Timestamp(1_432_235_499_025_000_000),
            value: Fix {
                latitude: 42.75,
                longitude: -71.0,
                altitude: f64::NAN,
                status: 1,
            },
        },
    ];
    let mut gpx = Vec::new();
    write::gpx("a & b", &fixes, &mut gpx).unwrap();
    let gpx = String::from_utf8(gpx).unwrap();
    assert!(gpx.contains("<name>a &amp; b</name>"));
    assert!(
        gpx.contains(
            r#"<trkpt lat="42.5" lon="-71.25"><ele>7.5</ele><time>2015-05-21T19:11:38.025"#
        ),
        "{gpx}"
    );
    assert!(
        gpx.contains(r#"<trkpt lat="42.75" lon="-71"><time>"#),
        "{gpx}"
    );
    let mut gj = Vec::new();
    write::geojson("run", &fixes, &mut gj).unwrap();
    let gj = String::from_utf8(gj).unwrap();
    assert!(
        gj.contains(r#""type":"LineString","coordinates":[[-71.25,42.5,7.5],[-71,42.75]]"#),
        "{gj}"
    );
    assert!(
        gj.contains(r#""coordTimes":["2015-05-21T19:11:38.025"#),
        "{gj}"
    );
    let mut kml = Vec::new();
    write::kml("run", &fixes, &mut kml).unwrap();
    let kml = String::from_utf8(kml).unwrap();
    assert!(kml.contains("<altitudeMode>clampToGround</altitudeMode>\n<coordinates>\n-71.25,42.5,0\n-71,42.75,0\n"), "{kml}");
}
