//! Writers of images (PNG, JPEG, thumbnails), clouds (PCD, PLY) and tracks
//! (GPX, GeoJSON, KML), each into any [`std::io::Write`].
//!
//! A value a format cannot hold (a float image as PNG, a 16-bit image as
//! JPEG) is refused with an [`std::io::ErrorKind::InvalidInput`] error
//! before anything is written.

use std::io::{self, Write};

use logcore::Timestamp;

use crate::image::read_sample;
use crate::{Cloud, Dtype, Fix, Image, PixelOrder, Sample};

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

fn check_size(image: &Image) -> io::Result<()> {
    let needed = (image.width as usize)
        .checked_mul(image.height as usize)
        .and_then(|n| n.checked_mul(image.channels() * image.dtype.size()));
    if needed != Some(image.data.len()) {
        return Err(invalid(format!(
            "a {} x {} image of {} {:?} channels needs {:?} bytes, it holds {}",
            image.width,
            image.height,
            image.channels(),
            image.dtype,
            needed,
            image.data.len()
        )));
    }
    Ok(())
}

/// The samples in RGB(A) order (BGR and BGRA swapped), borrowed when
/// already so.
fn rgb_order(image: &Image) -> std::borrow::Cow<'_, [u8]> {
    match image.order {
        PixelOrder::Bgr | PixelOrder::Bgra => {
            let s = image.dtype.size();
            let mut data = image.data.clone();
            for p in data.chunks_exact_mut(image.channels() * s) {
                let (first, rest) = p.split_at_mut(s);
                first.swap_with_slice(&mut rest[s..2 * s]);
            }
            data.into()
        }
        _ => image.data.as_slice().into(),
    }
}

/// Writes `image` as a PNG: 8- or 16-bit (`U8`, `U16`) grey, RGB or RGBA
/// (BGR and BGRA written as RGB and RGBA). Other sample types (float
/// depth, signed) are refused: scale them first ([`thumbnail`] does).
pub fn png(image: &Image, w: impl Write) -> io::Result<()> {
    check_size(image)?;
    let depth = match image.dtype {
        Dtype::U8 => png::BitDepth::Eight,
        Dtype::U16 => png::BitDepth::Sixteen,
        other => {
            return Err(invalid(format!(
                "PNG holds unsigned 8- and 16-bit samples, not {other:?}"
            )));
        }
    };
    let colour = match image.order {
        PixelOrder::Mono => png::ColorType::Grayscale,
        PixelOrder::Rgb | PixelOrder::Bgr => png::ColorType::Rgb,
        PixelOrder::Rgba | PixelOrder::Bgra => png::ColorType::Rgba,
    };
    let mut data = rgb_order(image);
    if image.dtype == Dtype::U16 {
        // PNG samples are big-endian.
        for s in data.to_mut().chunks_exact_mut(2) {
            s.swap(0, 1);
        }
    }
    let mut enc = png::Encoder::new(w, image.width, image.height);
    enc.set_color(colour);
    enc.set_depth(depth);
    // fdeflate's PNG-tuned deflate: several times zlib level 6's speed
    // (Pillow's default) for somewhat larger files (`cargo xtask bench
    // sensors` prints both sizes); OpenCV's `imwrite` default (level 1)
    // makes the same trade.
    enc.set_compression(png::Compression::Fast);
    let mut writer = enc.write_header().map_err(io::Error::other)?;
    writer.write_image_data(&data).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

/// Writes an 8-bit `image` as a baseline JPEG of `quality` (1..=100):
/// grey or colour (alpha dropped). Sides up to 65535 pixels.
pub fn jpeg(image: &Image, quality: u8, w: impl Write) -> io::Result<()> {
    check_size(image)?;
    if image.dtype != Dtype::U8 {
        return Err(invalid(format!(
            "JPEG holds 8-bit samples, not {:?}",
            image.dtype
        )));
    }
    let (Ok(width), Ok(height)) = (u16::try_from(image.width), u16::try_from(image.height)) else {
        return Err(invalid(format!(
            "JPEG sides are at most 65535 pixels, not {} x {}",
            image.width, image.height
        )));
    };
    let colour = match image.order {
        PixelOrder::Mono => jpeg_encoder::ColorType::Luma,
        PixelOrder::Rgb => jpeg_encoder::ColorType::Rgb,
        PixelOrder::Rgba => jpeg_encoder::ColorType::Rgba,
        PixelOrder::Bgr => jpeg_encoder::ColorType::Bgr,
        PixelOrder::Bgra => jpeg_encoder::ColorType::Bgra,
    };
    let mut w = w;
    jpeg_encoder::Encoder::new(&mut w, quality.clamp(1, 100))
        .encode(&image.data, width, height, colour)
        .map_err(io::Error::other)
}

/// A small 8-bit copy of `image` whose longer side is at most `max_side`
/// (never enlarged): each output pixel is the mean of the source pixels
/// of its cell (cells split the source evenly; area average). Colour
/// becomes RGB (alpha dropped), grey stays grey. 8-bit samples are kept;
/// other mono images (16-bit and float depth) are scaled from their own
/// smallest to largest finite value onto 0..=255 (NaN and infinities 0);
/// 16-bit colour is divided by 257.
pub fn thumbnail(image: &Image, max_side: u32) -> Image {
    let (w, h) = (image.width.max(1), image.height.max(1));
    let longer = w.max(h);
    let max_side = max_side.max(1);
    let (ow, oh) = if longer <= max_side {
        (image.width, image.height)
    } else {
        let scale = |s: u32| {
            ((u64::from(s) * u64::from(max_side)).div_ceil(u64::from(longer)) as u32).max(1)
        };
        (scale(image.width), scale(image.height))
    };
    let channels = image.channels();
    let out_channels = if image.order == PixelOrder::Mono {
        1
    } else {
        3
    };
    let s = image.dtype.size();
    let pixels = image.width as usize * image.height as usize;
    if image.data.len() < pixels * channels * s || ow == 0 || oh == 0 {
        return Image {
            width: 0,
            height: 0,
            order: if out_channels == 1 {
                PixelOrder::Mono
            } else {
                PixelOrder::Rgb
            },
            dtype: Dtype::U8,
            data: Vec::new(),
        };
    }
    // Map every sample to 0..=255 as f64.
    let (lo, hi) = if image.dtype == Dtype::U8 || (image.dtype == Dtype::U16 && channels > 1) {
        (
            0.0,
            if image.dtype == Dtype::U8 {
                255.0
            } else {
                65535.0
            },
        )
    } else {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for v in image
            .data
            .chunks_exact(s)
            .filter_map(|b| read_sample(image.dtype, b))
        {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        if lo > hi { (0.0, 1.0) } else { (lo, hi) }
    };
    let span = if hi > lo { hi - lo } else { 1.0 };
    let to_byte = |v: f64| {
        if v.is_finite() {
            ((v - lo) * 255.0 / span).clamp(0.0, 255.0)
        } else {
            0.0
        }
    };
    // The source channel of each output channel (RGB order).
    let bgr = matches!(image.order, PixelOrder::Bgr | PixelOrder::Bgra);
    let pick = |c: usize| if bgr { 2 - c } else { c };
    let (iw, ih) = (image.width as usize, image.height as usize);
    let (ow_, oh_) = (ow as usize, oh as usize);
    let mut data = Vec::with_capacity(ow_ * oh_ * out_channels);
    let mut sums = vec![0f64; ow_ * out_channels];
    let mut counts = vec![0u32; ow_];
    let col_of: Vec<usize> = (0..iw).map(|x| x * ow_ / iw).collect();
    let mut y = 0;
    for oy in 0..oh_ {
        sums.iter_mut().for_each(|v| *v = 0.0);
        counts.iter_mut().for_each(|v| *v = 0);
        while y < ih && y * oh_ / ih == oy {
            let row = &image.data[y * iw * channels * s..(y + 1) * iw * channels * s];
            for (x, px) in row.chunks_exact(channels * s).enumerate() {
                let ox = col_of[x];
                counts[ox] += 1;
                for c in 0..out_channels {
                    let at = pick(c) * s;
                    let v = read_sample(image.dtype, &px[at..at + s]).unwrap_or(0.0);
                    sums[ox * out_channels + c] += to_byte(v);
                }
            }
            y += 1;
        }
        for ox in 0..ow_ {
            let n = f64::from(counts[ox].max(1));
            for c in 0..out_channels {
                data.push((sums[ox * out_channels + c] / n).round() as u8);
            }
        }
    }
    Image {
        width: ow,
        height: oh,
        order: if out_channels == 1 {
            PixelOrder::Mono
        } else {
            PixelOrder::Rgb
        },
        dtype: Dtype::U8,
        data,
    }
}

/// A field name as one token (PCD and PLY headers are split at spaces).
fn token(name: &str) -> String {
    let t: String = name
        .chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    if t.is_empty() { "_".into() } else { t }
}

fn check_cloud(cloud: &Cloud) -> io::Result<()> {
    let needed = cloud.points.checked_mul(cloud.record_size());
    if needed != Some(cloud.data.len()) {
        return Err(invalid(format!(
            "{} records of {} bytes need {:?} bytes, the cloud holds {}",
            cloud.points,
            cloud.record_size(),
            needed,
            cloud.data.len()
        )));
    }
    Ok(())
}

/// Writes `cloud` as PCD v0.7 (PCL's format): every field with its size,
/// type and count, `WIDTH` the point count, `HEIGHT 1`; `DATA binary`
/// (the records as they are), or `DATA ascii` when `ascii` (one line per
/// point, floats in their shortest exact form).
pub fn pcd(cloud: &Cloud, ascii: bool, w: impl Write) -> io::Result<()> {
    check_cloud(cloud)?;
    let mut w = io::BufWriter::new(w);
    let f = &cloud.fields;
    let join =
        |g: &dyn Fn(&crate::PointField) -> String| f.iter().map(g).collect::<Vec<_>>().join(" ");
    writeln!(w, "# .PCD v0.7 - Point Cloud Data file format")?;
    writeln!(w, "VERSION 0.7")?;
    writeln!(w, "FIELDS {}", join(&|p| token(&p.name)))?;
    writeln!(w, "SIZE {}", join(&|p| p.dtype.size().to_string()))?;
    writeln!(
        w,
        "TYPE {}",
        join(&|p| match p.dtype {
            Dtype::F32 | Dtype::F64 => "F",
            Dtype::I8 | Dtype::I16 | Dtype::I32 => "I",
            _ => "U",
        }
        .to_string())
    )?;
    writeln!(w, "COUNT {}", join(&|p| p.count.to_string()))?;
    writeln!(w, "WIDTH {}", cloud.points)?;
    writeln!(w, "HEIGHT 1")?;
    writeln!(w, "VIEWPOINT 0 0 0 1 0 0 0")?;
    writeln!(w, "POINTS {}", cloud.points)?;
    if !ascii {
        writeln!(w, "DATA binary")?;
        w.write_all(&cloud.data)?;
        return w.flush();
    }
    writeln!(w, "DATA ascii")?;
    let record = cloud.record_size();
    let mut line = String::new();
    for rec in cloud.data.chunks_exact(record.max(1)) {
        line.clear();
        let mut at = 0;
        for field in f {
            let s = field.dtype.size();
            for _ in 0..field.count {
                if !line.is_empty() {
                    line.push(' ');
                }
                push_value(&mut line, field.dtype, &rec[at..at + s]);
                at += s;
            }
        }
        writeln!(w, "{line}")?;
    }
    w.flush()
}

/// One little-endian value as text (integers exact, floats shortest).
fn push_value(out: &mut String, dtype: Dtype, b: &[u8]) {
    use std::fmt::Write as _;
    let _ = match dtype {
        Dtype::U8 => write!(out, "{}", b[0]),
        Dtype::I8 => write!(out, "{}", b[0] as i8),
        Dtype::U16 => write!(out, "{}", u16::from_le_bytes([b[0], b[1]])),
        Dtype::I16 => write!(out, "{}", i16::from_le_bytes([b[0], b[1]])),
        Dtype::U32 => write!(out, "{}", u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        Dtype::I32 => write!(out, "{}", i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        Dtype::F32 => write!(out, "{}", f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        Dtype::F64 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            write!(out, "{}", f64::from_le_bytes(a))
        }
    };
}

/// Writes `cloud` as PLY (`binary_little_endian 1.0`): one `vertex`
/// element, a property per field (a field of count `n` > 1 as `n`
/// properties `name_0` .. `name_{n-1}`), the records as they are.
pub fn ply(cloud: &Cloud, w: impl Write) -> io::Result<()> {
    check_cloud(cloud)?;
    let mut w = io::BufWriter::new(w);
    writeln!(w, "ply")?;
    writeln!(w, "format binary_little_endian 1.0")?;
    writeln!(w, "comment written by robolog-sensors")?;
    writeln!(w, "element vertex {}", cloud.points)?;
    for f in &cloud.fields {
        let ty = match f.dtype {
            Dtype::I8 => "char",
            Dtype::U8 => "uchar",
            Dtype::I16 => "short",
            Dtype::U16 => "ushort",
            Dtype::I32 => "int",
            Dtype::U32 => "uint",
            Dtype::F32 => "float",
            Dtype::F64 => "double",
        };
        let name = token(&f.name);
        if f.count == 1 {
            writeln!(w, "property {ty} {name}")?;
        } else {
            for k in 0..f.count {
                writeln!(w, "property {ty} {name}_{k}")?;
            }
        }
    }
    writeln!(w, "end_header")?;
    w.write_all(&cloud.data)?;
    w.flush()
}

/// `t` as an ISO 8601 UTC instant when it is a date (on or after
/// 2000-01-01; earlier times are counts since boot or since a recording's
/// start, not dates).
fn date(t: Timestamp) -> Option<String> {
    const YEAR_2000_NS: i64 = 946_684_800_000_000_000;
    if t.as_nanos() < YEAR_2000_NS {
        return None;
    }
    logcore::time::format_unix(t)
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Writes the fixes as a GPX 1.1 track named `name`: one `trkseg` of
/// `trkpt`s with `ele` where the altitude is finite and `time` where the
/// log time is a date (on or after 2000; a ULog's times since boot are
/// not, and give no `time`).
pub fn gpx(name: &str, fixes: &[Sample<Fix>], w: impl Write) -> io::Result<()> {
    let mut w = io::BufWriter::new(w);
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        w,
        r#"<gpx version="1.1" creator="robolog-sensors" xmlns="http://www.topografix.com/GPX/1/1">"#
    )?;
    writeln!(
        w,
        "  <trk>\n    <name>{}</name>\n    <trkseg>",
        xml_escape(name)
    )?;
    for s in fixes {
        let f = &s.value;
        write!(
            w,
            r#"      <trkpt lat="{}" lon="{}">"#,
            f.latitude, f.longitude
        )?;
        if f.altitude.is_finite() {
            write!(w, "<ele>{}</ele>", f.altitude)?;
        }
        if let Some(t) = date(s.log_time) {
            write!(w, "<time>{t}</time>")?;
        }
        writeln!(w, "</trkpt>")?;
    }
    writeln!(w, "    </trkseg>\n  </trk>\n</gpx>")?;
    w.flush()
}

/// Writes the fixes as a GeoJSON `FeatureCollection` of one `LineString`
/// `Feature`: coordinates `[longitude, latitude, altitude]` (altitude left
/// out where it is not finite), properties `name`, `coordTimes` (the
/// times as ISO 8601 instants, the convention of Mapbox's `togeojson`,
/// when every log time is a date) and `log_times` (seconds, the log's own
/// clock).
pub fn geojson(name: &str, fixes: &[Sample<Fix>], w: impl Write) -> io::Result<()> {
    let mut w = io::BufWriter::new(w);
    let coords: Vec<String> = fixes
        .iter()
        .map(|s| {
            let f = &s.value;
            if f.altitude.is_finite() {
                format!("[{},{},{}]", f.longitude, f.latitude, f.altitude)
            } else {
                format!("[{},{}]", f.longitude, f.latitude)
            }
        })
        .collect();
    let dates: Option<Vec<String>> = fixes.iter().map(|s| date(s.log_time)).collect();
    let name_json = serde_json_string(name);
    write!(
        w,
        r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{{"name":{name_json}"#
    )?;
    if let Some(d) = dates.filter(|d| !d.is_empty()) {
        let quoted: Vec<String> = d.iter().map(|t| format!("\"{t}\"")).collect();
        write!(w, r#","coordTimes":[{}]"#, quoted.join(","))?;
    }
    let secs: Vec<String> = fixes
        .iter()
        .map(|s| format!("{}", s.log_time.as_secs_f64()))
        .collect();
    write!(w, r#","log_times":[{}]}}"#, secs.join(","))?;
    writeln!(
        w,
        r#","geometry":{{"type":"LineString","coordinates":[{}]}}}}]}}"#,
        coords.join(",")
    )?;
    w.flush()
}

/// A JSON string literal.
fn serde_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes the fixes as KML 2.2: one `Placemark` named `name` holding a
/// `LineString` of `longitude,latitude,altitude` (altitude mode `absolute`
/// when every altitude is finite, else `clampToGround` with altitude 0).
/// KML's `LineString` has no times.
pub fn kml(name: &str, fixes: &[Sample<Fix>], w: impl Write) -> io::Result<()> {
    let mut w = io::BufWriter::new(w);
    let absolute = !fixes.is_empty() && fixes.iter().all(|s| s.value.altitude.is_finite());
    let name = xml_escape(name);
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(w, r#"<kml xmlns="http://www.opengis.net/kml/2.2">"#)?;
    writeln!(
        w,
        "<Document>\n<name>{name}</name>\n<Placemark>\n<name>{name}</name>"
    )?;
    writeln!(
        w,
        "<LineString>\n<altitudeMode>{}</altitudeMode>\n<coordinates>",
        if absolute {
            "absolute"
        } else {
            "clampToGround"
        }
    )?;
    for s in fixes {
        let f = &s.value;
        let alt = if absolute { f.altitude } else { 0.0 };
        writeln!(w, "{},{},{}", f.longitude, f.latitude, alt)?;
    }
    writeln!(
        w,
        "</coordinates>\n</LineString>\n</Placemark>\n</Document>\n</kml>"
    )?;
    w.flush()
}
