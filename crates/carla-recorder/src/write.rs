//! The writer: header, then packets or whole frames, in memory.
//!
//! CARLA writes each FrameStart with duration −1.0 and back-patches it
//! when the next frame starts; [`Writer::tick`] does the same, so a
//! recording written tick by tick looks exactly like one CARLA wrote.
//! [`Writer::frame`] and [`Writer::packet`] write records exactly as given,
//! which is what rewriting a file byte for byte needs.
//!
//! The file is built in a `Vec<u8>` (recordings are megabytes; the
//! back-patching needs to revisit earlier bytes).

use crate::error::{Error, Result};
use crate::frame::{FrameStart, LAST_FRAME_DURATION};
use crate::header::InfoHeader;
use crate::layout::Layout;
use crate::packet::{PACKET_HEADER_LEN, Packet};
use crate::read::Recording;
use crate::wire::Put;

/// Writes a recording.
///
/// ```
/// use carla_recorder::{InfoHeader, Layout, Packet, EventDel, Recording, Writer};
/// let mut w = Writer::with_layout(InfoHeader::new(0, b"Town02"), Layout::CARLA_0_9_10)?;
/// w.tick(0.0, &[])?;
/// w.tick(0.05, &[Packet::EventDel(vec![EventDel { id: 3 }])])?;
/// let bytes = w.finish();
/// let rec = Recording::new(&bytes)?;
/// let frames: Vec<_> = rec.frames().collect::<Result<_, _>>()?;
/// assert_eq!(frames[0].start.duration, 0.05); // back-patched
/// assert_eq!(frames[1].start.duration, -1.0); // the last frame's placeholder
/// # Ok::<(), carla_recorder::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Writer {
    out: Vec<u8>,
    layout: Layout,
    /// Offset of the duration field of the last FrameStart written by
    /// [`Writer::tick`], and that frame's id and elapsed time.
    last_tick: Option<(usize, u64, f64)>,
}

impl Writer {
    /// A writer in the default layout (CARLA 0.9.13 and later).
    pub fn new(header: InfoHeader<'_>) -> Result<Self> {
        Self::with_layout(header, Layout::default())
    }

    /// A writer in `layout` (e.g. [`Layout::CARLA_0_9_10`] for 36-byte
    /// wheel records).
    pub fn with_layout(header: InfoHeader<'_>, layout: Layout) -> Result<Self> {
        let mut out = Vec::new();
        header.write(&mut out)?;
        Ok(Writer {
            out,
            layout,
            last_tick: None,
        })
    }

    /// The layout packets are written in.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Appends one packet (header and payload) exactly as given.
    pub fn packet(&mut self, packet: &Packet<'_>) -> Result<()> {
        let at = self.out.len();
        self.out.push(packet.id());
        self.out.put_u32(0);
        if let Err(e) = packet.write_payload(&mut self.out, &self.layout) {
            self.out.truncate(at);
            return Err(e);
        }
        self.patch_size(at)
    }

    /// Appends a packet with any id and payload bytes.
    pub fn raw_packet(&mut self, id: u8, payload: &[u8]) -> Result<()> {
        let size = u32::try_from(payload.len())
            .map_err(|_| Error::InvalidArgument("a packet payload holds at most 4 GiB".into()))?;
        self.out.push(id);
        self.out.put_u32(size);
        self.out.extend_from_slice(payload);
        Ok(())
    }

    fn patch_size(&mut self, at: usize) -> Result<()> {
        let size = self.out.len() - at - PACKET_HEADER_LEN;
        let Ok(size) = u32::try_from(size) else {
            self.out.truncate(at);
            return Err(Error::InvalidArgument(
                "a packet payload holds at most 4 GiB".into(),
            ));
        };
        self.out[at + 1..at + PACKET_HEADER_LEN].copy_from_slice(&size.to_le_bytes());
        Ok(())
    }

    /// Appends a whole frame: FrameStart as given, the packets, FrameEnd.
    pub fn frame(&mut self, start: FrameStart, packets: &[Packet<'_>]) -> Result<()> {
        self.packet(&Packet::FrameStart(start))?;
        for p in packets {
            self.packet(p)?;
        }
        self.packet(&Packet::FrameEnd)
    }

    /// Appends the next tick the way CARLA does: frame id one more than
    /// the previous tick's (1 for the first), `elapsed` as given, duration
    /// −1.0; the previous tick's duration is back-patched to the
    /// difference of the elapsed times.
    pub fn tick(&mut self, elapsed: f64, packets: &[Packet<'_>]) -> Result<()> {
        let id = match self.last_tick {
            Some((at, prev_id, prev_elapsed)) => {
                let d = (elapsed - prev_elapsed).to_le_bytes();
                self.out[at..at + 8].copy_from_slice(&d);
                prev_id + 1
            }
            None => 1,
        };
        let duration_at = self.out.len() + PACKET_HEADER_LEN + 8;
        self.frame(
            FrameStart {
                id,
                duration: LAST_FRAME_DURATION,
                elapsed,
            },
            packets,
        )?;
        self.last_tick = Some((duration_at, id, elapsed));
        Ok(())
    }

    /// Bytes written so far (a valid recording at any moment between calls).
    pub fn bytes(&self) -> &[u8] {
        &self.out
    }

    /// The finished file.
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}

/// Rewrites `recording` packet by packet through the typed records: every
/// packet is decoded and encoded again in the recording's layout. For a
/// healthy file the result equals the input byte for byte.
///
/// ```
/// use carla_recorder::{InfoHeader, Recording, Writer, rewrite};
/// let mut w = Writer::new(InfoHeader::new(5, b"Town03"))?;
/// w.tick(0.0, &[])?;
/// let bytes = w.finish();
/// assert_eq!(rewrite(&Recording::new(&bytes)?)?, bytes);
/// # Ok::<(), carla_recorder::Error>(())
/// ```
pub fn rewrite(recording: &Recording<'_>) -> Result<Vec<u8>> {
    let layout = recording.layout();
    let mut w = Writer::with_layout(recording.header(), layout)?;
    for p in recording.packets() {
        let p = p?;
        w.packet(&p.decode(&layout)?)?;
    }
    Ok(w.finish())
}
