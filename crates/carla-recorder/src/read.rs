//! The reader: [`Recording`] over a byte slice, the [`Packets`] iterator
//! (framing: u8 id, u32 size, payload) and the [`Frames`] iterator
//! (FrameStart … FrameEnd, the unit CARLA records per tick).
//!
//! Nothing is decoded until asked for: iterating frames reads only packet
//! headers, and [`RawPacket::decode`] turns one payload into a [`Packet`].

use std::sync::OnceLock;

use logcore::ReadMode;

use crate::error::{Error, Result};
use crate::frame::FrameStart;
use crate::header::InfoHeader;
use crate::layout::{AttributeCoding, Layout, VectorWidth};
use crate::packet::{
    PACKET_HEADER_LEN, Packet, PacketId, RawPacket, packet_name, physics_wheel_record,
};

/// How many leading packets layout detection looks at.
const DETECTION_PACKETS: usize = 4096;

/// A CARLA recording read from memory. Creating one parses the info header
/// and detects the layout generation from the first packets; everything
/// else is read lazily.
///
/// ```
/// use carla_recorder::{FrameStart, InfoHeader, Packet, Position, Recording, Vec3, Writer};
/// let mut w = Writer::new(InfoHeader::new(1_600_000_000, b"Town01"))?;
/// w.frame(FrameStart { id: 1, duration: -1.0, elapsed: 0.0 }, &[
///     Packet::Position(vec![Position { id: 7, location: Vec3::new(1.0, 2.0, 3.0), ..Default::default() }]),
/// ])?;
/// let bytes = w.finish();
///
/// let rec = Recording::new(&bytes)?;
/// assert_eq!(rec.header().map_name(), "Town01");
/// let frame = rec.frames().next().unwrap()?;
/// assert_eq!(frame.start.id, 1);
/// match frame.packets().next().unwrap().decode(&rec.layout())? {
///     Packet::Position(p) => assert_eq!(p[0].location.z, 3.0),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), carla_recorder::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Recording<'a> {
    data: &'a [u8],
    header: InfoHeader<'a>,
    first_packet: usize,
    layout: Layout,
    pub(crate) scan: OnceLock<crate::scan::Scan>,
}

impl<'a> Recording<'a> {
    /// Opens a recording and detects its layout (see [`Recording::layout`]).
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let (header, first_packet) = InfoHeader::parse(data)?;
        let mut rec = Recording {
            data,
            header,
            first_packet,
            layout: Layout::default(),
            scan: OnceLock::new(),
        };
        rec.layout = rec.detect_layout();
        Ok(rec)
    }

    /// Opens a recording whose layout the caller knows.
    pub fn with_layout(data: &'a [u8], layout: Layout) -> Result<Self> {
        let (header, first_packet) = InfoHeader::parse(data)?;
        Ok(Recording {
            data,
            header,
            first_packet,
            layout,
            scan: OnceLock::new(),
        })
    }

    /// The file's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The info header.
    pub fn header(&self) -> InfoHeader<'a> {
        self.header
    }

    /// Offset of the first packet (the header's length).
    pub fn first_packet_offset(&self) -> u64 {
        self.first_packet as u64
    }

    /// The layout generation, detected from the first packets (spec §9):
    /// vector width from the first non-empty Position packet (28- or
    /// 52-byte records), wheel record size from the first PhysicsControl
    /// packet with a wheel, attribute coding from an `r,g,b` attribute
    /// (type 4 → zero-based, 5 → one-based). Defaults: [`Layout::CARLA_0_9_13`].
    pub fn layout(&self) -> Layout {
        self.layout
    }

    fn detect_layout(&self) -> Layout {
        let mut layout = Layout::default();
        let head = || self.packets().take(DETECTION_PACKETS).map_while(Result::ok);
        if let Some(w) = head().find_map(|p| vector_width(&p)) {
            layout.vectors = w;
        }
        let mut coding = None;
        let mut wheels = None;
        for p in head() {
            match p.kind() {
                Some(PacketId::EventAdd) if coding.is_none() => {
                    if let Ok(Packet::EventAdd(adds)) = p.decode(&layout) {
                        coding = attribute_coding(&adds, layout.vectors);
                    }
                }
                Some(PacketId::PhysicsControl) if wheels.is_none() => {
                    wheels = p
                        .decode(&layout)
                        .ok()
                        .and_then(|d| physics_wheel_record(&d));
                }
                _ => {}
            }
            if coding.is_some() && wheels.is_some() {
                break;
            }
        }
        layout.attributes = coding.unwrap_or_default();
        layout.wheels = wheels.unwrap_or_default();
        layout
    }

    /// Every packet in file order (strict framing).
    pub fn packets(&self) -> Packets<'a> {
        self.packets_from(self.first_packet as u64, ReadMode::Strict)
    }

    /// Packets from `offset` (a packet boundary) in `mode`. In lenient mode
    /// a size field that points past the end is taken as damage when a
    /// plausible FrameStart follows, and reading resumes there.
    pub fn packets_from(&self, offset: u64, mode: ReadMode) -> Packets<'a> {
        Packets {
            data: self.data,
            pos: usize::try_from(offset).unwrap_or(usize::MAX),
            mode,
            done: false,
        }
    }

    /// Every frame in file order (strict).
    pub fn frames(&self) -> Frames<'a> {
        self.frames_with(ReadMode::Strict)
    }

    /// Every frame in file order in `mode`. Lenient mode reports stray or
    /// unterminated packets as [`Error::Skipped`] and goes on.
    pub fn frames_with(&self, mode: ReadMode) -> Frames<'a> {
        Frames {
            packets: self.packets_from(self.first_packet as u64, mode),
            open: None,
            mode,
            done: false,
        }
    }
}

/// Vector width from a non-empty Position packet.
fn vector_width(p: &RawPacket<'_>) -> Option<VectorWidth> {
    if p.kind() != Some(PacketId::Position) {
        return None;
    }
    let n = usize::from(p.record_count()?);
    if n == 0 {
        return None;
    }
    let body = p.payload.len() - 2;
    if body == n * VectorWidth::F64.position_len() {
        Some(VectorWidth::F64)
    } else {
        Some(VectorWidth::F32)
    }
}

/// Attribute coding from the type code of an `r,g,b` attribute.
fn attribute_coding(adds: &[crate::EventAdd<'_>], vectors: VectorWidth) -> Option<AttributeCoding> {
    let is_rgb = |v: &[u8]| {
        let parts: Vec<&[u8]> = v.split(|&b| b == b',').collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit))
    };
    let attrs = adds.iter().flat_map(|a| a.attributes.iter());
    for a in attrs.filter(|a| is_rgb(a.value)) {
        match (a.type_code, vectors) {
            (4, _) => return Some(AttributeCoding::ZeroBased),
            (5, VectorWidth::F32) => return Some(AttributeCoding::OneBased),
            _ => {}
        }
    }
    None
}

/// Iterator over the packets of a [`Recording`]: reads only the 5-byte
/// headers and slices the payloads.
///
/// A packet that does not fit in the file ends the iteration with
/// [`Error::Truncated`] (every complete packet before it has been yielded).
#[derive(Debug, Clone)]
pub struct Packets<'a> {
    data: &'a [u8],
    pos: usize,
    mode: ReadMode,
    done: bool,
}

impl<'a> Packets<'a> {
    /// Offset of the next packet.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    fn header_at(&self, pos: usize) -> std::result::Result<(u8, usize), Error> {
        let rest = self.data.get(pos..).unwrap_or_default();
        if rest.len() < PACKET_HEADER_LEN {
            return Err(Error::truncated(
                pos as u64,
                "a 5-byte packet header",
                (PACKET_HEADER_LEN - rest.len()) as u64,
            ));
        }
        let id = rest[0];
        let size = u32::from_le_bytes([rest[1], rest[2], rest[3], rest[4]]);
        let avail = rest.len() - PACKET_HEADER_LEN;
        if size as u64 > avail as u64 {
            return Err(Error::truncated(
                pos as u64,
                format!(
                    "a {} packet with {size} payload bytes (its declared size)",
                    packet_name(id)
                ),
                size as u64 - avail as u64,
            ));
        }
        Ok((id, size as usize))
    }
}

/// The next offset after `from` where a plausible FrameStart packet starts:
/// header `00 18 00 00 00`, and after its 24 bytes either the end of the
/// file or another packet that fits.
pub(crate) fn resync(data: &[u8], from: usize) -> Option<usize> {
    const SIG: [u8; 5] = [0, 24, 0, 0, 0];
    let mut p = from;
    while let Some(rel) = data.get(p..)?.windows(5).position(|w| w == SIG) {
        let at = p + rel;
        let next = at + PACKET_HEADER_LEN + 24;
        if next == data.len() {
            return Some(at);
        }
        if let Some(h) = data.get(next..next + PACKET_HEADER_LEN) {
            let size = u32::from_le_bytes([h[1], h[2], h[3], h[4]]) as usize;
            if size <= data.len() - next - PACKET_HEADER_LEN {
                return Some(at);
            }
        }
        p = at + 1;
    }
    None
}

impl<'a> Iterator for Packets<'a> {
    type Item = Result<RawPacket<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.data.len() {
            self.done = true;
            return None;
        }
        match self.header_at(self.pos) {
            Ok((id, size)) => {
                let start = self.pos + PACKET_HEADER_LEN;
                let p = RawPacket {
                    id,
                    offset: self.pos as u64,
                    payload: &self.data[start..start + size],
                };
                self.pos = start + size;
                Some(Ok(p))
            }
            Err(e) => {
                if self.mode == ReadMode::Lenient {
                    if let Some(target) = resync(self.data, self.pos + 1) {
                        let skipped = Error::Skipped {
                            offset: self.pos as u64,
                            len: (target - self.pos) as u64,
                            reason: e.to_string(),
                        };
                        self.pos = target;
                        return Some(Err(skipped));
                    }
                }
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl std::iter::FusedIterator for Packets<'_> {}

/// One recorded tick: its FrameStart and the packets up to its FrameEnd.
///
/// The packets are not stored: [`Frame::packets`] walks them in place, so
/// a frame costs the same memory whatever it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame<'a> {
    /// The FrameStart record.
    pub start: FrameStart,
    /// Offset of the FrameStart packet.
    pub offset: u64,
    /// Offset just past the FrameEnd packet.
    pub end: u64,
    /// The bytes between the FrameStart and FrameEnd packets.
    body: &'a [u8],
    /// Offset of `body` in the file.
    body_offset: u64,
    /// Number of packets in `body`.
    count: usize,
}

impl<'a> Frame<'a> {
    /// The packets between FrameStart and FrameEnd, in file order.
    pub fn packets(&self) -> FramePackets<'a> {
        FramePackets {
            body: self.body,
            pos: 0,
            base: self.body_offset,
        }
    }

    /// How many packets lie between FrameStart and FrameEnd.
    pub fn packet_count(&self) -> usize {
        self.count
    }

    /// The frame's packets decoded in `layout`.
    pub fn decoded(&self, layout: &Layout) -> impl Iterator<Item = Result<Packet<'a>>> + use<'a> {
        let layout = *layout;
        self.packets().map(move |p| p.decode(&layout))
    }

    /// The first packet with id `id`.
    pub fn packet(&self, id: PacketId) -> Option<RawPacket<'a>> {
        self.packets().find(|p| p.id == id as u8)
    }
}

/// The packets of one [`Frame`] (their headers were checked when the frame
/// was read).
#[derive(Debug, Clone)]
pub struct FramePackets<'a> {
    body: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Iterator for FramePackets<'a> {
    type Item = RawPacket<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let h = self.body.get(self.pos..self.pos + PACKET_HEADER_LEN)?;
        let size = u32::from_le_bytes([h[1], h[2], h[3], h[4]]) as usize;
        let start = self.pos + PACKET_HEADER_LEN;
        let payload = self.body.get(start..start.checked_add(size)?)?;
        let p = RawPacket {
            id: h[0],
            offset: self.base + self.pos as u64,
            payload,
        };
        self.pos = start + size;
        Some(p)
    }
}

impl std::iter::FusedIterator for FramePackets<'_> {}

/// A frame whose FrameEnd has not been read yet.
#[derive(Debug, Clone)]
struct OpenFrame {
    start: FrameStart,
    offset: u64,
    body_offset: u64,
    count: usize,
}

/// Iterator over the frames of a [`Recording`].
///
/// Strict mode ends at the first problem with an error; lenient mode
/// reports stray packets and unterminated frames as [`Error::Skipped`] and
/// goes on. A file that ends inside a frame ends with [`Error::Truncated`]
/// after every complete frame.
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    packets: Packets<'a>,
    open: Option<OpenFrame>,
    mode: ReadMode,
    done: bool,
}

impl<'a> Frames<'a> {
    /// The whole file's bytes.
    pub(crate) fn data(&self) -> &'a [u8] {
        self.packets.data
    }

    fn fail(&mut self, e: Error, skip_from: u64, skip_to: u64) -> Option<Result<Frame<'a>>> {
        if self.mode == ReadMode::Lenient {
            Some(Err(Error::Skipped {
                offset: skip_from,
                len: skip_to.saturating_sub(skip_from),
                reason: e.to_string(),
            }))
        } else {
            self.done = true;
            Some(Err(e))
        }
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = Result<Frame<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        // A program embedding the reader may stop a long pass here.
        logcore::interrupt::check();
        while !self.done {
            let p = match self.packets.next() {
                None => {
                    self.done = true;
                    let f = self.open.take()?;
                    return Some(Err(Error::truncated(
                        f.offset,
                        format!("the FrameEnd packet closing frame {}", f.start.id),
                        PACKET_HEADER_LEN as u64,
                    )));
                }
                Some(Err(e)) => {
                    // A lenient skip drops the frame it interrupted.
                    if let (Error::Skipped { offset, len, .. }, Some(f)) = (&e, self.open.take()) {
                        return Some(Err(Error::Skipped {
                            offset: f.offset,
                            len: offset + len - f.offset,
                            reason: e.to_string(),
                        }));
                    }
                    if !matches!(e, Error::Skipped { .. }) {
                        self.done = true;
                    }
                    return Some(Err(e));
                }
                Some(Ok(p)) => p,
            };
            match p.kind() {
                Some(PacketId::FrameStart) => {
                    let start = match p.decode(&Layout::default()) {
                        Ok(Packet::FrameStart(s)) => s,
                        Ok(other) => {
                            let e =
                                Error::malformed(p.offset, "a FrameStart", format!("{other:?}"));
                            return self.fail(e, p.offset, p.end());
                        }
                        Err(e) => return self.fail(e, p.offset, p.end()),
                    };
                    let new = OpenFrame {
                        start,
                        offset: p.offset,
                        body_offset: p.end(),
                        count: 0,
                    };
                    if let Some(old) = self.open.replace(new) {
                        let e = Error::malformed(
                            p.offset,
                            format!("the FrameEnd packet closing frame {}", old.start.id),
                            "a FrameStart packet",
                        );
                        return self.fail(e, old.offset, p.offset);
                    }
                }
                Some(PacketId::FrameEnd) => match self.open.take() {
                    Some(f) if p.payload.is_empty() => {
                        let data = self.packets.data;
                        let body = data
                            .get(f.body_offset as usize..p.offset as usize)
                            .unwrap_or_default();
                        return Some(Ok(Frame {
                            start: f.start,
                            offset: f.offset,
                            end: p.end(),
                            body,
                            body_offset: f.body_offset,
                            count: f.count,
                        }));
                    }
                    Some(f) => {
                        let e = Error::malformed(
                            p.offset + 1,
                            "size 0 for the FrameEnd packet",
                            format!("size {}", p.payload.len()),
                        );
                        return self.fail(e, f.offset, p.end());
                    }
                    None => {
                        let e = Error::malformed(p.offset, "a FrameStart packet", "FrameEnd");
                        return self.fail(e, p.offset, p.end());
                    }
                },
                _ => match &mut self.open {
                    Some(f) => f.count += 1,
                    None => {
                        let e = Error::malformed(
                            p.offset,
                            "a FrameStart packet (id 0)",
                            format!("a {} packet outside any frame", packet_name(p.id)),
                        );
                        return self.fail(e, p.offset, p.end());
                    }
                },
            }
        }
        None
    }
}

impl std::iter::FusedIterator for Frames<'_> {}
