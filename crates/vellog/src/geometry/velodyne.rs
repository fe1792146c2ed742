//! Velodyne HDL-32E / HDL-64E data packets (spec sections 6.1, 6.2, 6.5).
//!
//! A [`VelodynePacket`] borrows the 1206 bytes of one UDP data packet and reads
//! fields on demand; nothing is copied or decoded up front. Point computation
//! lives in [`VelodynePacket::points`] and [`cloud_from_packets`](super::cloud_from_packets).

use std::fmt;

use super::GeometryError;

/// Size of one Velodyne data packet (the UDP payload) in bytes.
pub const PACKET_LEN: usize = 1206;
/// Firing blocks per packet.
pub const BLOCKS_PER_PACKET: usize = 12;
/// Bytes per firing block: id, azimuth, 32 × (distance, intensity).
pub const BLOCK_LEN: usize = 100;
/// Measurements (channels) per firing block.
pub const CHANNELS_PER_BLOCK: usize = 32;
/// Id of an upper block (lasers 0–31), bytes `FF EE` on the wire.
pub const UPPER_BLOCK_ID: u16 = 0xEEFF;
/// Id of a lower block (HDL-64E lasers 32–63), bytes `FF DD` on the wire.
pub const LOWER_BLOCK_ID: u16 = 0xDDFF;
/// Product id newer HDL-32E firmware writes in byte 1205.
pub const HDL32E_PRODUCT_ID: u8 = 0x21;
/// Metres per raw distance unit (2 mm).
pub const DISTANCE_UNIT_M: f64 = 0.002;
/// Time between two HDL-32E laser firings within a block, µs.
pub const HDL32E_FIRING_INTERVAL_US: f64 = 1.152;
/// Time one HDL-32E block (32 firings) takes, µs.
pub const HDL32E_BLOCK_INTERVAL_US: f64 = 46.08;

const TIMESTAMP_OFFSET: usize = 1200;
const MODE_BYTE_OFFSET: usize = 1204;
const ID_BYTE_OFFSET: usize = 1205;

/// HDL-32E nominal vertical angle of each laser, degrees (spec 6.2), from the
/// closed form rather than the printed table, whose two-decimal rounding is
/// inconsistent (−6.66 vs −6.67 between manual revisions).
pub const HDL32E_VERTICAL_ANGLES_DEG: [f64; 32] = hdl32e_angle_table();

const fn hdl32e_angle_table() -> [f64; 32] {
    let mut table = [0.0; 32];
    let mut k = 0;
    while k < 32 {
        // Lasers interleave the lower half (even k, from −30.67°) and the
        // upper half (odd k, from −9.33°), both in steps of 4/3°.
        let steps = if k % 2 == 0 {
            -23.0 + (k / 2) as f64
        } else {
            -7.0 + ((k - 1) / 2) as f64
        };
        table[k] = 4.0 / 3.0 * steps;
        k += 1;
    }
    table
}

/// Nominal vertical angle of HDL-32E laser `laser` in degrees, or `None` if
/// `laser` is not in 0..32.
///
/// ```
/// use vellog::geometry::velodyne::hdl32e_vertical_angle_deg;
/// let top = hdl32e_vertical_angle_deg(31).unwrap();
/// assert!((top - 10.67).abs() < 0.005);
/// assert_eq!(hdl32e_vertical_angle_deg(32), None);
/// ```
pub fn hdl32e_vertical_angle_deg(laser: usize) -> Option<f64> {
    HDL32E_VERTICAL_ANGLES_DEG.get(laser).copied()
}

/// The Velodyne sensor models this module converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VelodyneModel {
    /// HDL-32E: 32 lasers, every block an upper block.
    Hdl32e,
    /// HDL-64E (S1/S2/S3): 64 lasers in alternating upper/lower blocks.
    Hdl64e,
}

impl VelodyneModel {
    /// Number of lasers the model has (and a calibration for it needs).
    pub const fn lasers(self) -> usize {
        match self {
            Self::Hdl32e => 32,
            Self::Hdl64e => 64,
        }
    }
}

impl fmt::Display for VelodyneModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Hdl32e => "HDL-32E",
            Self::Hdl64e => "HDL-64E",
        })
    }
}

/// Why a packet was taken to be of a given model (spec 6.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelEvidence {
    /// A lower block (0xDDFF) is present: only an HDL-64E sends one.
    LowerBlock,
    /// Byte 1205 holds the HDL-32E product id 0x21.
    ProductId,
    /// All blocks are upper blocks and byte 1205 is not 0x21: most likely an
    /// HDL-32E on older firmware, but a VLP-16/VLP-32 looks the same on the
    /// wire. Callers should warn, and let the user override.
    Guessed,
    /// The caller said which model it is.
    Override,
}

/// A sensor model and the evidence for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DetectedModel {
    /// The model the data is converted as.
    pub model: VelodyneModel,
    /// Why.
    pub evidence: ModelEvidence,
}

impl DetectedModel {
    /// True when the model is a guess that deserves a warning.
    pub fn guessed(&self) -> bool {
        self.evidence == ModelEvidence::Guessed
    }
}

/// HDL-32E return mode from byte 1204.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReturnMode {
    /// 0x37: strongest return.
    Strongest,
    /// 0x38: last return.
    Last,
    /// 0x39: dual return; blocks come in pairs with the same azimuth.
    Dual,
    /// 0: firmware that does not report the mode (single return).
    NotReported,
    /// Any other value.
    Other(u8),
}

impl ReturnMode {
    /// Interprets byte 1204 of an HDL-32E packet.
    pub const fn from_byte(byte: u8) -> Self {
        match byte {
            0x37 => Self::Strongest,
            0x38 => Self::Last,
            0x39 => Self::Dual,
            0 => Self::NotReported,
            other => Self::Other(other),
        }
    }
}

/// Which half of an HDL-64E's lasers a block carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// Id 0xEEFF: lasers 0–31.
    Upper,
    /// Id 0xDDFF: lasers 32–63 (HDL-64E only).
    Lower,
}

impl BlockKind {
    /// Laser number of channel 0 of such a block.
    pub const fn first_laser(self) -> usize {
        match self {
            Self::Upper => 0,
            Self::Lower => 32,
        }
    }
}

/// One measurement of a firing block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChannelReading {
    /// Distance in 2 mm units; 0 means no return.
    pub distance_raw: u16,
    /// Reflectivity as reported, 0..=255.
    pub intensity: u8,
}

impl ChannelReading {
    /// Distance in metres (no calibration applied).
    pub fn distance_m(&self) -> f64 {
        f64::from(self.distance_raw) * DISTANCE_UNIT_M
    }
}

/// A zero-copy view of one 100-byte firing block.
#[derive(Debug, Clone, Copy)]
pub struct FiringBlock<'a> {
    // Invariant: index < BLOCKS_PER_PACKET, so every byte of the block is
    // inside the fixed-size packet array and the indexing below cannot fail.
    index: usize,
    packet: &'a [u8; PACKET_LEN],
}

impl<'a> FiringBlock<'a> {
    /// Index of the block in its packet, 0..12.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Byte offset of the block in its packet.
    pub fn offset(&self) -> usize {
        self.index * BLOCK_LEN
    }

    fn bytes(&self) -> &'a [u8] {
        let packet: &'a [u8; PACKET_LEN] = self.packet;
        &packet[self.offset()..self.offset() + BLOCK_LEN]
    }

    /// Block id as a little-endian u16 (0xEEFF or 0xDDFF in valid data).
    pub fn id(&self) -> u16 {
        let b = self.bytes();
        u16::from_le_bytes([b[0], b[1]])
    }

    /// Upper or lower block, or `None` for an unknown id.
    pub fn kind(&self) -> Option<BlockKind> {
        match self.id() {
            UPPER_BLOCK_ID => Some(BlockKind::Upper),
            LOWER_BLOCK_ID => Some(BlockKind::Lower),
            _ => None,
        }
    }

    /// Rotational position in hundredths of a degree (0..35999 in valid data).
    pub fn azimuth_raw(&self) -> u16 {
        let b = self.bytes();
        u16::from_le_bytes([b[2], b[3]])
    }

    /// Rotational position in degrees, as stored (not wrapped into 0..360).
    pub fn azimuth_deg(&self) -> f64 {
        f64::from(self.azimuth_raw()) / 100.0
    }

    /// Measurement `k` (0..32), or `None` if `k` is out of range.
    pub fn channel(&self, k: usize) -> Option<ChannelReading> {
        self.channels().nth(k)
    }

    /// The 32 measurements in channel order.
    pub fn channels(&self) -> impl ExactSizeIterator<Item = ChannelReading> + 'a {
        // Bytes 4..100 are exactly 32 three-byte groups, so chunks_exact
        // leaves no remainder and every chunk has three elements.
        self.bytes()[4..].chunks_exact(3).map(|c| ChannelReading {
            distance_raw: u16::from_le_bytes([c[0], c[1]]),
            intensity: c[2],
        })
    }
}

/// A zero-copy view of one 1206-byte Velodyne data packet.
///
/// ```
/// use vellog::geometry::VelodynePacket;
/// let mut bytes = vec![0u8; 1206];
/// for b in 0..12 {
///     bytes[100 * b..100 * b + 2].copy_from_slice(&[0xFF, 0xEE]);
/// }
/// bytes[1205] = 0x21;
/// let packet = VelodynePacket::new(&bytes)?;
/// assert_eq!(packet.detect_model()?.model.to_string(), "HDL-32E");
/// assert!(VelodynePacket::new(&bytes[..1205]).is_err());
/// # Ok::<(), vellog::geometry::GeometryError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct VelodynePacket<'a> {
    bytes: &'a [u8; PACKET_LEN],
}

impl<'a> VelodynePacket<'a> {
    /// Wraps `bytes`, which must be exactly one 1206-byte packet.
    pub fn new(bytes: &'a [u8]) -> Result<Self, GeometryError> {
        let bytes = bytes
            .try_into()
            .map_err(|_| GeometryError::PacketLength { len: bytes.len() })?;
        Ok(Self { bytes })
    }

    /// The packet's bytes.
    pub fn as_bytes(&self) -> &'a [u8; PACKET_LEN] {
        self.bytes
    }

    /// Firing block `index` (0..12), or `None` if out of range.
    pub fn block(&self, index: usize) -> Option<FiringBlock<'a>> {
        self.blocks().nth(index)
    }

    /// The 12 firing blocks in order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = FiringBlock<'a>> + 'a {
        let packet: &'a [u8; PACKET_LEN] = self.bytes;
        (0..BLOCKS_PER_PACKET).map(move |index| FiringBlock { index, packet })
    }

    /// Bytes 1200..1204: microseconds since the top of the hour.
    pub fn timestamp_us(&self) -> u32 {
        let b = self.bytes;
        let t = TIMESTAMP_OFFSET;
        u32::from_le_bytes([b[t], b[t + 1], b[t + 2], b[t + 3]])
    }

    /// Byte 1204: HDL-32E return mode, HDL-64E S2/S3 status type.
    pub fn mode_byte(&self) -> u8 {
        self.bytes[MODE_BYTE_OFFSET]
    }

    /// Byte 1205: HDL-32E product id, HDL-64E S2/S3 status value.
    pub fn id_byte(&self) -> u8 {
        self.bytes[ID_BYTE_OFFSET]
    }

    /// Byte 1204 read as an HDL-32E return mode (meaningless for an HDL-64E,
    /// where the byte is a cycling status type).
    pub fn return_mode(&self) -> ReturnMode {
        ReturnMode::from_byte(self.mode_byte())
    }

    /// Checks every block id and returns the first unknown one as an error.
    pub fn check_block_ids(&self) -> Result<(), GeometryError> {
        match self.blocks().find(|b| b.kind().is_none()) {
            Some(b) => Err(GeometryError::UnknownBlockId {
                block: b.index(),
                offset: b.offset(),
                id: b.id(),
            }),
            None => Ok(()),
        }
    }

    /// Detects the sensor model by the rules of spec 6.5: a lower block means
    /// HDL-64E; otherwise byte 1205 = 0x21 means HDL-32E; otherwise HDL-32E is
    /// guessed. Any unknown block id is an error naming the block.
    ///
    /// ```
    /// use vellog::geometry::{ModelEvidence, VelodyneModel, VelodynePacket};
    /// let mut bytes = vec![0u8; 1206];
    /// for b in 0..12 {
    ///     let id: [u8; 2] = if b % 2 == 0 { [0xFF, 0xEE] } else { [0xFF, 0xDD] };
    ///     bytes[100 * b..100 * b + 2].copy_from_slice(&id);
    /// }
    /// let detected = VelodynePacket::new(&bytes)?.detect_model()?;
    /// assert_eq!(detected.model, VelodyneModel::Hdl64e);
    /// assert_eq!(detected.evidence, ModelEvidence::LowerBlock);
    /// # Ok::<(), vellog::geometry::GeometryError>(())
    /// ```
    pub fn detect_model(&self) -> Result<DetectedModel, GeometryError> {
        self.check_block_ids()?;
        let (model, evidence) = if self.blocks().any(|b| b.kind() == Some(BlockKind::Lower)) {
            (VelodyneModel::Hdl64e, ModelEvidence::LowerBlock)
        } else if self.id_byte() == HDL32E_PRODUCT_ID {
            (VelodyneModel::Hdl32e, ModelEvidence::ProductId)
        } else {
            (VelodyneModel::Hdl32e, ModelEvidence::Guessed)
        };
        Ok(DetectedModel { model, evidence })
    }
}

/// Splits concatenated packets (as in a `VelodyneRawDataM` payload after its
/// count) into packets.
///
/// Yields every complete packet, then, if bytes are left over, one
/// [`GeometryError::TruncatedPackets`] naming where the cut is, then ends.
///
/// ```
/// use vellog::geometry::packets;
/// let data = vec![0u8; 1206 * 2 + 10];
/// let items: Vec<_> = packets(&data).collect();
/// assert_eq!(items.len(), 3);
/// assert!(items[0].is_ok() && items[1].is_ok() && items[2].is_err());
/// ```
pub fn packets(data: &[u8]) -> Packets<'_> {
    Packets {
        chunks: data.chunks(PACKET_LEN),
        offset: 0,
    }
}

/// Iterator returned by [`packets`].
#[derive(Debug, Clone)]
pub struct Packets<'a> {
    chunks: std::slice::Chunks<'a, u8>,
    offset: usize,
}

impl<'a> Iterator for Packets<'a> {
    type Item = Result<VelodynePacket<'a>, GeometryError>;

    fn next(&mut self) -> Option<Self::Item> {
        let chunk = self.chunks.next()?;
        let offset = self.offset;
        self.offset += chunk.len();
        Some(
            VelodynePacket::new(chunk).map_err(|_| GeometryError::TruncatedPackets {
                offset,
                len: chunk.len(),
            }),
        )
    }
}

#[cfg(test)]
mod tests;
