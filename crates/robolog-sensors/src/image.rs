//! Camera frames: raw encodings, compressed streams, Foxglove and VEL frames.

use logcore::Value;

use crate::fields::{bytes, int, text, uint32};
use crate::kind::canonical;
use crate::{Dtype, Result, SensorError};

/// The most pixels a compressed frame may declare (`2^28`, a 16384 x
/// 16384 image): a JPEG or PNG whose header declares more is refused
/// before anything is decoded.
pub const MAX_DECODED_PIXELS: u64 = 1 << 28;

/// The order of an image's channels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PixelOrder {
    /// One channel.
    Mono,
    /// Red, green, blue.
    Rgb,
    /// Red, green, blue, alpha.
    Rgba,
    /// Blue, green, red (only with [`ImageOptions::keep_order`]).
    Bgr,
    /// Blue, green, red, alpha (only with [`ImageOptions::keep_order`]).
    Bgra,
}

impl PixelOrder {
    /// Channels per pixel: 1, 3 or 4.
    pub const fn channels(self) -> usize {
        match self {
            PixelOrder::Mono => 1,
            PixelOrder::Rgb | PixelOrder::Bgr => 3,
            PixelOrder::Rgba | PixelOrder::Bgra => 4,
        }
    }
}

/// A decoded frame: `height` rows of `width` pixels of
/// [`channels`](Image::channels) samples of `dtype`, row-major, rows
/// without padding, samples little-endian. In numpy:
/// `np.frombuffer(data, dtype.name()).reshape(height, width, channels)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Channel order.
    pub order: PixelOrder,
    /// Sample type.
    pub dtype: Dtype,
    /// The samples.
    pub data: Vec<u8>,
}

impl Image {
    /// Channels per pixel: 1, 3 or 4.
    pub fn channels(&self) -> usize {
        self.order.channels()
    }

    /// Bytes per row (`width * channels * dtype.size()`).
    pub fn row_bytes(&self) -> usize {
        self.width as usize * self.channels() * self.dtype.size()
    }

    /// Sample `c` of pixel (`x`, `y`) as `f64`; `None` outside the image.
    pub fn sample(&self, x: u32, y: u32, c: usize) -> Option<f64> {
        if x >= self.width || y >= self.height || c >= self.channels() {
            return None;
        }
        let s = self.dtype.size();
        let at = (y as usize * self.width as usize + x as usize) * self.channels() * s + c * s;
        read_sample(self.dtype, self.data.get(at..at + s)?)
    }
}

/// One little-endian sample as `f64`.
pub(crate) fn read_sample(dtype: Dtype, b: &[u8]) -> Option<f64> {
    Some(match dtype {
        Dtype::U8 => f64::from(*b.first()?),
        Dtype::I8 => f64::from(*b.first()? as i8),
        Dtype::U16 => f64::from(u16::from_le_bytes(b.try_into().ok()?)),
        Dtype::I16 => f64::from(i16::from_le_bytes(b.try_into().ok()?)),
        Dtype::U32 => f64::from(u32::from_le_bytes(b.try_into().ok()?)),
        Dtype::I32 => f64::from(i32::from_le_bytes(b.try_into().ok()?)),
        Dtype::F32 => f64::from(f32::from_le_bytes(b.try_into().ok()?)),
        Dtype::F64 => f64::from_le_bytes(b.try_into().ok()?),
    })
}

/// How to decode frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImageOptions {
    /// Keep BGR and BGRA frames in their order ([`PixelOrder::Bgr`],
    /// [`PixelOrder::Bgra`]); `false` (the default) gives every colour
    /// frame as RGB or RGBA.
    pub keep_order: bool,
    /// Turn Bayer mosaics (`bayer_rggb8`, ...) into RGB by bilinear
    /// interpolation: each missing colour of a pixel is the mean of the
    /// samples of that colour among its 8 neighbours (inside the image;
    /// at the borders fewer neighbours count), rounded half up; the colour
    /// it has is kept. In the interior this is the classic bilinear
    /// demosaic (2 or 4 neighbours). `false` (the default) gives the
    /// mosaic as one mono channel, as stored.
    pub debayer: bool,
}

/// What a raw encoding's samples are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Plain samples in this order.
    Plain(PixelOrder),
    /// A Bayer mosaic: the colours (0 red, 1 green, 2 blue) of the 2 x 2
    /// cell, row by row.
    Bayer([u8; 4]),
    /// YUV 4:2:2, U Y0 V Y1.
    Uyvy,
    /// YUV 4:2:2, Y0 U Y1 V.
    Yuyv,
}

/// The layout and sample type of a `sensor_msgs/Image` (or Foxglove
/// `RawImage`) encoding.
fn encoding(enc: &str) -> Option<(Layout, Dtype)> {
    use Dtype::*;
    use PixelOrder::*;
    let e = enc.trim();
    let plain = |o, d| Some((Layout::Plain(o), d));
    match e.to_ascii_lowercase().as_str() {
        "mono8" => return plain(Mono, U8),
        "mono16" => return plain(Mono, U16),
        "rgb8" => return plain(Rgb, U8),
        "bgr8" => return plain(Bgr, U8),
        "rgba8" => return plain(Rgba, U8),
        "bgra8" => return plain(Bgra, U8),
        "rgb16" => return plain(Rgb, U16),
        "bgr16" => return plain(Bgr, U16),
        "rgba16" => return plain(Rgba, U16),
        "bgra16" => return plain(Bgra, U16),
        "yuv422" | "uyvy" | "yuv422_uyvy" => return Some((Layout::Uyvy, U8)),
        "yuyv" | "yuv422_yuy2" => return Some((Layout::Yuyv, U8)),
        _ => {}
    }
    if let Some(rest) = e.to_ascii_lowercase().strip_prefix("bayer_") {
        let (pattern, bits) = rest.split_at(rest.len().min(4));
        let dtype = match bits {
            "8" => U8,
            "16" => U16,
            _ => return None,
        };
        let mut cell = [0u8; 4];
        for (slot, c) in cell.iter_mut().zip(pattern.bytes()) {
            *slot = match c {
                b'r' => 0,
                b'g' => 1,
                b'b' => 2,
                _ => return None,
            };
        }
        // The four patterns ROS names: two greens on a diagonal.
        if !matches!(pattern, "rggb" | "bggr" | "gbrg" | "grbg") {
            return None;
        }
        return Some((Layout::Bayer(cell), dtype));
    }
    // OpenCV type names: 8UC1, 16SC1, 32FC3, ...
    let upper = e.to_ascii_uppercase();
    let (depth, channels) = upper.split_once('C')?;
    let dtype = match depth {
        "8U" => U8,
        "8S" => I8,
        "16U" => U16,
        "16S" => I16,
        "32S" => I32,
        "32F" => F32,
        "64F" => F64,
        _ => return None,
    };
    let order = match channels {
        "1" | "" => Mono,
        "3" => Rgb,
        "4" => Rgba,
        _ => return None,
    };
    plain(order, dtype)
}

/// Decodes a camera frame of type `type_name` (see [`kind_of`](crate::kind_of)).
///
/// - `sensor_msgs/Image` (ROS 1 and 2) and Foxglove `RawImage`: `mono8`,
///   `mono16`, `rgb8`, `bgr8`, `rgba8`, `bgra8`, their 16-bit forms, the
///   OpenCV types `8UC1`..`64FC4` (`nUC1` mono; 3 and 4 channels are
///   given as RGB/RGBA with the samples as stored, OpenCV types carrying
///   no colour order), the four `bayer_*8`/`bayer_*16` patterns (see
///   [`ImageOptions::debayer`]), `yuv422`/`uyvy` and `yuv422_yuy2`/`yuyv`
///   (to 8-bit RGB as OpenCV's `COLOR_YUV2RGB_UYVY`/`_YUYV` do, BT.601
///   video range in 20-bit fixed point: `y = max(0, Y-16) * 1220542`,
///   `R = (y + 1673527 (V-128) + 2^19) >> 20`, `G = (y - 852492 (V-128) -
///   409993 (U-128) + 2^19) >> 20`, `B = (y + 2116026 (U-128) + 2^19) >>
///   20`, each clamped to 0..255). Big-endian samples (`is_bigendian`)
///   are swapped; rows `step` bytes apart are packed.
/// - `sensor_msgs/CompressedImage` and Foxglove `CompressedImage`: JPEG
///   (grey or RGB) and PNG (grey, grey+alpha as RGBA, RGB, RGBA, palette
///   expanded; 8 or 16 bits) told by their first bytes, and
///   `compressedDepth` (compressed_depth_image_transport: a 12-byte
///   header `int32 format, float32 depthQuantA, float32 depthQuantB`, then
///   a 16-bit grey PNG; `16UC1` gives the PNG's depth as `U16`; `32FC1`
///   gives `F32` metres from the quantised inverse depth `q`:
///   `depth = depthQuantA / (q - depthQuantB)`, and NaN where `q` is 0, as
///   the package describes its quantisation `q = depthQuantA / depth +
///   depthQuantB`). The `format` text is only used to tell
///   `compressedDepth` and its encoding.
/// - VEL `ImageM`: a JPEG or PNG stream; uncompressed VEL frames, whose
///   pixel layout the format does not document, are refused.
///
/// Every size is checked before anything is allocated: a frame needs
/// `height * step` bytes of data, `step >= width * bytes per pixel`, and a
/// compressed frame may declare at most [`MAX_DECODED_PIXELS`].
///
/// ```
/// use logcore::Value;
/// use robolog_sensors::{ImageOptions, PixelOrder, decode_image};
/// let msg = Value::record([
///     ("height", Value::U64(1)),
///     ("width", Value::U64(2)),
///     ("encoding", Value::String("bgr8".into())),
///     ("is_bigendian", Value::U64(0)),
///     ("step", Value::U64(6)),
///     ("data", Value::Bytes(vec![1, 2, 3, 4, 5, 6])),
/// ]);
/// let img = decode_image("sensor_msgs/Image", &msg, &ImageOptions::default())?;
/// assert_eq!((img.order, img.data), (PixelOrder::Rgb, vec![3, 2, 1, 6, 5, 4]));
/// # Ok::<(), robolog_sensors::SensorError>(())
/// ```
pub fn decode_image(type_name: &str, message: &Value, opts: &ImageOptions) -> Result<Image> {
    match &*canonical(type_name) {
        "sensor_msgs/Image" => {
            let big = message
                .get("is_bigendian")
                .is_some_and(|_| int(message, "is_bigendian").is_ok_and(|b| b != 0));
            raw(message, big, opts)
        }
        "foxglove.RawImage" => raw(message, false, opts),
        "sensor_msgs/CompressedImage" | "foxglove.CompressedImage" => {
            let format = text(message, "format").unwrap_or_default();
            compressed(&format, &bytes(message, "data")?)
        }
        "ImageM" => {
            let data = bytes(message, "data")?;
            if is_jpeg(&data) || is_png(&data) {
                compressed("", &data)
            } else {
                Err(SensorError::new(format!(
                    "the VEL camera frame ({} bytes) is neither a JPEG nor a PNG stream; \
                     uncompressed VEL frames have no documented pixel layout",
                    data.len()
                )))
            }
        }
        other => Err(SensorError::new(format!("{other} is not an image type"))),
    }
}

fn is_jpeg(data: &[u8]) -> bool {
    data.starts_with(&[0xFF, 0xD8])
}

fn is_png(data: &[u8]) -> bool {
    data.starts_with(b"\x89PNG\r\n\x1a\n")
}

/// A raw frame: `encoding`, `width`, `height`, `step`, `data`.
fn raw(message: &Value, big_endian: bool, opts: &ImageOptions) -> Result<Image> {
    let enc = text(message, "encoding")?;
    let width = uint32(message, "width")?;
    let height = uint32(message, "height")?;
    let step = uint32(message, "step")? as usize;
    let data = bytes(message, "data")?;
    let (layout, dtype) = encoding(&enc)
        .ok_or_else(|| SensorError::new(format!("unknown image encoding {:?}", enc.as_ref())))?;
    let size = dtype.size();
    let (w, h) = (width as usize, height as usize);
    let per_pixel = match layout {
        Layout::Plain(o) => o.channels() * size,
        Layout::Bayer(_) => size,
        Layout::Uyvy | Layout::Yuyv => 2,
    };
    let row = w
        .checked_mul(per_pixel)
        .ok_or_else(|| SensorError::new(format!("width {width} overflows")))?;
    if step < row {
        return Err(SensorError::new(format!(
            "step {step} is less than width {width} * {per_pixel} bytes = {row} ({enc})"
        )));
    }
    let needed = h
        .checked_mul(step)
        .ok_or_else(|| SensorError::new(format!("height {height} * step {step} overflows")))?;
    if data.len() < needed {
        return Err(SensorError::new(format!(
            "data holds {} bytes, height {height} * step {step} needs {needed}",
            data.len()
        )));
    }
    if matches!(layout, Layout::Uyvy | Layout::Yuyv) && w % 2 != 0 {
        return Err(SensorError::new(format!(
            "{enc} frames have an even width, not {width}"
        )));
    }
    let rows = || data.chunks(step.max(1)).take(h).map(|r| &r[..row]);
    // Samples in little-endian order, rows packed.
    let packed = |out: &mut Vec<u8>| {
        out.reserve_exact(row * h);
        for r in rows() {
            let at = out.len();
            out.extend_from_slice(r);
            if big_endian && size > 1 {
                for s in out[at..].chunks_exact_mut(size) {
                    s.reverse();
                }
            }
        }
    };
    match layout {
        Layout::Plain(order) => {
            let mut out = Vec::new();
            packed(&mut out);
            let order = if opts.keep_order {
                order
            } else {
                match order {
                    PixelOrder::Bgr | PixelOrder::Bgra => {
                        swap_red_blue(&mut out, order.channels(), size);
                        if order == PixelOrder::Bgr {
                            PixelOrder::Rgb
                        } else {
                            PixelOrder::Rgba
                        }
                    }
                    o => o,
                }
            };
            Ok(Image {
                width,
                height,
                order,
                dtype,
                data: out,
            })
        }
        Layout::Bayer(cell) => {
            let mut mono = Vec::new();
            packed(&mut mono);
            let data = if !opts.debayer {
                return Ok(Image {
                    width,
                    height,
                    order: PixelOrder::Mono,
                    dtype,
                    data: mono,
                });
            } else if size == 1 {
                let mut out = Vec::with_capacity(mono.len() * 3);
                debayer(&mono, w, h, cell, |v| out.push(v as u8));
                out
            } else {
                let samples: Vec<u16> = mono
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
                    .collect();
                let mut out = Vec::with_capacity(mono.len() * 3);
                debayer(&samples, w, h, cell, |v| {
                    out.extend_from_slice(&(v as u16).to_le_bytes())
                });
                out
            };
            Ok(Image {
                width,
                height,
                order: PixelOrder::Rgb,
                dtype,
                data,
            })
        }
        Layout::Uyvy | Layout::Yuyv => {
            let mut out = Vec::with_capacity(w * h * 3);
            for r in rows() {
                for q in r.chunks_exact(4) {
                    let (y0, u, y1, v) = if layout == Layout::Uyvy {
                        (q[1], q[0], q[3], q[2])
                    } else {
                        (q[0], q[1], q[2], q[3])
                    };
                    out.extend_from_slice(&yuv_to_rgb(y0, u, v));
                    out.extend_from_slice(&yuv_to_rgb(y1, u, v));
                }
            }
            Ok(Image {
                width,
                height,
                order: PixelOrder::Rgb,
                dtype: Dtype::U8,
                data: out,
            })
        }
    }
}

/// Swaps the first and third sample of every pixel.
fn swap_red_blue(data: &mut [u8], channels: usize, size: usize) {
    if size == 1 {
        for p in data.chunks_exact_mut(channels) {
            p.swap(0, 2);
        }
    } else {
        for p in data.chunks_exact_mut(channels * size) {
            let (first, rest) = p.split_at_mut(size);
            first.swap_with_slice(&mut rest[size..2 * size]);
        }
    }
}

/// BT.601 video-range YUV to RGB in OpenCV's fixed point (see
/// [`decode_image`]).
pub(crate) fn yuv_to_rgb(y: u8, u: u8, v: u8) -> [u8; 3] {
    const CY: i32 = 1_220_542;
    const CUB: i32 = 2_116_026;
    const CUG: i32 = -409_993;
    const CVG: i32 = -852_492;
    const CVR: i32 = 1_673_527;
    const HALF: i32 = 1 << 19;
    let y = (i32::from(y) - 16).max(0) * CY;
    let (u, v) = (i32::from(u) - 128, i32::from(v) - 128);
    let clamp = |x: i32| (x >> 20).clamp(0, 255) as u8;
    [
        clamp(y + HALF + CVR * v),
        clamp(y + HALF + CVG * v + CUG * u),
        clamp(y + HALF + CUB * u),
    ]
}

/// Bilinear demosaic (see [`ImageOptions::debayer`]): emits R, G, B of
/// every pixel, row by row.
fn debayer<T: Copy + Into<u32>>(
    src: &[T],
    w: usize,
    h: usize,
    cell: [u8; 4],
    mut emit: impl FnMut(u32),
) {
    let colour = |x: usize, y: usize| cell[(y & 1) * 2 + (x & 1)];
    for y in 0..h {
        for x in 0..w {
            let own = colour(x, y);
            for c in 0..3u8 {
                if c == own {
                    emit(src[y * w + x].into());
                    continue;
                }
                let (mut sum, mut n) = (0u32, 0u32);
                for dy in [-1isize, 0, 1] {
                    for dx in [-1isize, 0, 1] {
                        let (Some(nx), Some(ny)) =
                            (x.checked_add_signed(dx), y.checked_add_signed(dy))
                        else {
                            continue;
                        };
                        if nx < w && ny < h && colour(nx, ny) == c {
                            sum += src[ny * w + nx].into();
                            n += 1;
                        }
                    }
                }
                emit((sum + n / 2).checked_div(n).unwrap_or(0));
            }
        }
    }
}

/// A compressed frame: JPEG, PNG or compressedDepth.
fn compressed(format: &str, data: &[u8]) -> Result<Image> {
    if format.contains("compressedDepth") {
        return compressed_depth(format, data);
    }
    if is_jpeg(data) {
        decode_jpeg(data)
    } else if is_png(data) {
        decode_png(data)
    } else {
        Err(SensorError::new(format!(
            "data ({} bytes, format {format:?}) is neither a JPEG nor a PNG stream",
            data.len()
        )))
    }
}

fn check_pixels(what: &str, width: u64, height: u64) -> Result<()> {
    let pixels = width * height;
    if pixels > MAX_DECODED_PIXELS {
        return Err(SensorError::new(format!(
            "the {what} declares {width} x {height} = {pixels} pixels, more than the limit of {MAX_DECODED_PIXELS}"
        )));
    }
    if pixels == 0 {
        return Err(SensorError::new(format!("the {what} declares no pixels")));
    }
    Ok(())
}

/// A JPEG stream: grey or RGB, 8-bit.
fn decode_jpeg(data: &[u8]) -> Result<Image> {
    use zune_jpeg::JpegDecoder;
    use zune_jpeg::zune_core::bytestream::ZCursor;
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    use zune_jpeg::zune_core::options::DecoderOptions;
    let options = DecoderOptions::default()
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX));
    let bad = |e: zune_jpeg::errors::DecodeErrors| SensorError::new(format!("JPEG: {e:?}"));
    let mut probe = JpegDecoder::new_with_options(ZCursor::new(data), options);
    probe.decode_headers().map_err(bad)?;
    let info = probe
        .info()
        .ok_or_else(|| SensorError::new("JPEG: no frame header"))?;
    check_pixels("JPEG", u64::from(info.width), u64::from(info.height))?;
    let (space, order) = if info.components == 1 {
        (ColorSpace::Luma, PixelOrder::Mono)
    } else {
        (ColorSpace::RGB, PixelOrder::Rgb)
    };
    let mut dec =
        JpegDecoder::new_with_options(ZCursor::new(data), options.jpeg_set_out_colorspace(space));
    let pixels = dec.decode().map_err(bad)?;
    let expected = usize::from(info.width) * usize::from(info.height) * order.channels();
    if pixels.len() != expected {
        return Err(SensorError::new(format!(
            "JPEG: decoded {} bytes, {} x {} x {} needs {expected}",
            pixels.len(),
            info.width,
            info.height,
            order.channels()
        )));
    }
    Ok(Image {
        width: u32::from(info.width),
        height: u32::from(info.height),
        order,
        dtype: Dtype::U8,
        data: pixels,
    })
}

/// A PNG stream: grey, grey+alpha (as RGBA), RGB, RGBA; palettes and
/// fewer than 8 bits expanded; 16-bit samples little-endian.
pub(crate) fn decode_png(data: &[u8]) -> Result<Image> {
    let bad = |e: png::DecodingError| SensorError::new(format!("PNG: {e}"));
    let mut dec =
        png::Decoder::new_with_limits(std::io::Cursor::new(data), png::Limits { bytes: 64 << 20 });
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec.read_info().map_err(bad)?;
    let (width, height) = (reader.info().width, reader.info().height);
    check_pixels("PNG", u64::from(width), u64::from(height))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| SensorError::new("PNG: the frame size overflows"))?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(bad)?;
    buf.truncate(frame.buffer_size());
    let (w, h) = (width as usize, height as usize);
    let (dtype, bytes) = match frame.bit_depth {
        png::BitDepth::Sixteen => (Dtype::U16, 2),
        png::BitDepth::Eight => (Dtype::U8, 1),
        other => {
            return Err(SensorError::new(format!(
                "PNG: {other:?} bits after expansion"
            )));
        }
    };
    let channels = frame.color_type.samples();
    let line = w * channels * bytes;
    if frame.line_size != line || buf.len() < line * h {
        return Err(SensorError::new(format!(
            "PNG: decoded rows of {} bytes, {w} x {channels} x {bytes} needs {line}",
            frame.line_size
        )));
    }
    buf.truncate(line * h);
    if bytes == 2 {
        for s in buf.chunks_exact_mut(2) {
            s.swap(0, 1);
        }
    }
    let order = match frame.color_type {
        png::ColorType::Grayscale => PixelOrder::Mono,
        png::ColorType::Rgb => PixelOrder::Rgb,
        png::ColorType::Rgba => PixelOrder::Rgba,
        png::ColorType::GrayscaleAlpha => {
            let mut out = Vec::with_capacity(w * h * 4 * bytes);
            for p in buf.chunks_exact(2 * bytes) {
                let (g, a) = p.split_at(bytes);
                for _ in 0..3 {
                    out.extend_from_slice(g);
                }
                out.extend_from_slice(a);
            }
            buf = out;
            PixelOrder::Rgba
        }
        png::ColorType::Indexed => {
            return Err(SensorError::new("PNG: palette left unexpanded"));
        }
    };
    Ok(Image {
        width,
        height,
        order,
        dtype,
        data: buf,
    })
}

/// compressed_depth_image_transport's payload (see [`decode_image`]).
fn compressed_depth(format: &str, data: &[u8]) -> Result<Image> {
    let encoding = format.split(';').next().unwrap_or_default().trim();
    if format.to_ascii_lowercase().contains("rvl") {
        return Err(SensorError::new(format!(
            "compressedDepth format {format:?}: the RVL codec is not supported"
        )));
    }
    if data.len() < 12 {
        return Err(SensorError::new(format!(
            "compressedDepth data holds {} bytes, less than its 12-byte header",
            data.len()
        )));
    }
    let f32_at =
        |at: usize| f32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let (quant_a, quant_b) = (f32_at(4), f32_at(8));
    let png = &data[12..];
    if !is_png(png) {
        return Err(SensorError::new(
            "compressedDepth data after its 12-byte header is not a PNG stream",
        ));
    }
    let img = decode_png(png)?;
    if img.order != PixelOrder::Mono || img.dtype != Dtype::U16 {
        return Err(SensorError::new(format!(
            "compressedDepth PNG is {:?} {:?}, not 16-bit grey",
            img.order, img.dtype
        )));
    }
    match encoding {
        "16UC1" | "mono16" => Ok(img),
        "32FC1" => {
            let mut out = Vec::with_capacity(img.data.len() * 2);
            for s in img.data.chunks_exact(2) {
                let q = u16::from_le_bytes([s[0], s[1]]);
                let depth = if q == 0 {
                    f32::NAN
                } else {
                    quant_a / (f32::from(q) - quant_b)
                };
                out.extend_from_slice(&depth.to_le_bytes());
            }
            Ok(Image {
                dtype: Dtype::F32,
                data: out,
                ..img
            })
        }
        other => Err(SensorError::new(format!(
            "compressedDepth of encoding {other:?}: only 16UC1 and 32FC1 are defined"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        assert_eq!(
            encoding("16UC1"),
            Some((Layout::Plain(PixelOrder::Mono), Dtype::U16))
        );
        assert_eq!(
            encoding("32FC1"),
            Some((Layout::Plain(PixelOrder::Mono), Dtype::F32))
        );
        assert_eq!(
            encoding("bayer_grbg8"),
            Some((Layout::Bayer([1, 0, 2, 1]), Dtype::U8))
        );
        assert_eq!(encoding("bayer_rgbg8"), None);
        assert_eq!(encoding("8UC2"), None);
        assert_eq!(encoding("nonsense"), None);
    }
}
