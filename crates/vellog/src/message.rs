//! [`MessageData`]: a payload decoded by its (type, version) pair, one
//! variant per row of the spec's message table.

use logcore::Value;

use crate::error::Result;
use crate::gps::GpsData;
use crate::records::{Image, LaserRange2DData, ObdData, RobotPose, TypedMessage, VelodyneRawData};

/// A message payload, decoded by its (type, version) pair, mirroring the
/// spec's table one to one. Pairs the crate does not know stay raw.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageData<'a> {
    /// `OBDDataM` v100.
    ObdData(ObdData),
    /// `GPSDataM` v100.
    GpsData(GpsData),
    /// `ImageM` v100.
    Image(Image<'a>),
    /// `RobotPoseM` v100.
    RobotPose(RobotPose),
    /// `VelodyneRawDataM` v100.
    VelodyneRawData(VelodyneRawData<'a>),
    /// `LaserRange2DDataM` v101.
    LaserRange2DData(LaserRange2DData<'a>),
    /// Any other (type, version) pair, bytes as stored.
    Raw {
        /// The message type id.
        type_id: i32,
        /// The payload version.
        version: i32,
        /// The payload bytes.
        payload: &'a [u8],
    },
}

impl<'a> MessageData<'a> {
    /// Decodes `payload` by (type, version); `offset` is the payload's
    /// absolute position, for errors. Unknown pairs give [`MessageData::Raw`].
    pub fn parse(type_id: i32, version: i32, payload: &'a [u8], offset: u64) -> Result<Self> {
        fn is<'b, T: TypedMessage<'b>>(type_id: i32, version: i32) -> bool {
            type_id == T::TYPE_ID && version == T::VERSION
        }
        Ok(if is::<ObdData>(type_id, version) {
            MessageData::ObdData(ObdData::parse(payload, offset)?)
        } else if is::<GpsData>(type_id, version) {
            MessageData::GpsData(GpsData::parse(payload, offset)?)
        } else if is::<Image<'_>>(type_id, version) {
            MessageData::Image(Image::parse(payload, offset)?)
        } else if is::<RobotPose>(type_id, version) {
            MessageData::RobotPose(RobotPose::parse(payload, offset)?)
        } else if is::<VelodyneRawData<'_>>(type_id, version) {
            MessageData::VelodyneRawData(VelodyneRawData::parse(payload, offset)?)
        } else if is::<LaserRange2DData<'_>>(type_id, version) {
            MessageData::LaserRange2DData(LaserRange2DData::parse(payload, offset)?)
        } else {
            MessageData::Raw {
                type_id,
                version,
                payload,
            }
        })
    }

    /// The message type id.
    pub fn type_id(&self) -> i32 {
        match self {
            MessageData::ObdData(_) => ObdData::TYPE_ID,
            MessageData::GpsData(_) => GpsData::TYPE_ID,
            MessageData::Image(_) => Image::TYPE_ID,
            MessageData::RobotPose(_) => RobotPose::TYPE_ID,
            MessageData::VelodyneRawData(_) => VelodyneRawData::TYPE_ID,
            MessageData::LaserRange2DData(_) => LaserRange2DData::TYPE_ID,
            MessageData::Raw { type_id, .. } => *type_id,
        }
    }

    /// The payload version.
    pub fn version(&self) -> i32 {
        match self {
            MessageData::ObdData(_) => ObdData::VERSION,
            MessageData::GpsData(_) => GpsData::VERSION,
            MessageData::Image(_) => Image::VERSION,
            MessageData::RobotPose(_) => RobotPose::VERSION,
            MessageData::VelodyneRawData(_) => VelodyneRawData::VERSION,
            MessageData::LaserRange2DData(_) => LaserRange2DData::VERSION,
            MessageData::Raw { version, .. } => *version,
        }
    }

    /// Appends the payload bytes to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            MessageData::ObdData(m) => m.write_to(out),
            MessageData::GpsData(m) => m.write_to(out),
            MessageData::Image(m) => m.write_to(out),
            MessageData::RobotPose(m) => m.write_to(out),
            MessageData::VelodyneRawData(m) => m.write_to(out),
            MessageData::LaserRange2DData(m) => m.write_to(out),
            MessageData::Raw { payload, .. } => {
                out.extend_from_slice(payload);
                Ok(())
            }
        }
    }

    /// The payload bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(out)
    }

    /// The payload as a dynamic value; raw payloads become [`Value::Bytes`].
    pub fn to_value(&self) -> Value {
        match self {
            MessageData::ObdData(m) => m.to_value(),
            MessageData::GpsData(m) => m.to_value(),
            MessageData::Image(m) => m.to_value(),
            MessageData::RobotPose(m) => m.to_value(),
            MessageData::VelodyneRawData(m) => m.to_value(),
            MessageData::LaserRange2DData(m) => m.to_value(),
            MessageData::Raw { payload, .. } => Value::Bytes(payload.to_vec()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::VELODYNE_PACKET_LEN;

    fn round_trip(data: &MessageData<'_>) {
        let bytes = data.to_bytes().unwrap();
        let back = MessageData::parse(data.type_id(), data.version(), &bytes, 0).unwrap();
        assert_eq!(&back, data);
        assert_eq!(back.to_bytes().unwrap(), bytes);
    }

    #[test]
    fn every_type_round_trips() {
        let jpeg = [0xFF, 0xD8, 1, 2, 3, 0xFF, 0xD9];
        let packets = [[7u8; VELODYNE_PACKET_LEN]; 3];
        round_trip(&MessageData::ObdData(ObdData {
            speed_kmh: 12,
            engine_rpm: 900,
            unused_8: 3.5,
            unused_12: -1,
            unused_16: 7,
            throttle_position: 12.5,
            unused_24: 0x1234_5678,
        }));
        round_trip(&MessageData::Image(Image {
            source_id: 2,
            is_compressed_raw: 0xDEAD,
            width: 640,
            height: 480,
            data: &jpeg,
        }));
        round_trip(&MessageData::RobotPose(RobotPose {
            orientation: [1.0, 0.0, 0.0, 0.0],
            acceleration: [0.0, 0.0, 9.81],
        }));
        round_trip(&MessageData::VelodyneRawData(
            VelodyneRawData::from_packets(&packets),
        ));
        round_trip(&MessageData::LaserRange2DData(LaserRange2DData {
            sensor_type: b"Hokuyo_URG-04LX",
            sensor_name: b"front",
            ranges: (0..682).collect(),
        }));
        round_trip(&MessageData::Raw {
            type_id: 5,
            version: 1,
            payload: b"xyz",
        });
    }
}
