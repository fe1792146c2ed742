//! Text kept from frame to frame: most actors of a recording rest, and
//! the JSON text of a resting actor's scene entity, transform and Position
//! record is reused while its pose stays bit for bit the same, so only
//! moving actors' floats are formatted.

use std::collections::HashMap;

use carla_recorder::{Layout, Packet, Position, Vec3, packet_value};
use logcore::Error;

use crate::convert::jsonschema::JsonValue;

/// Whether `a` and `b` are the same bits (so they print the same: `0.0`
/// and `-0.0` differ).
pub(super) fn same_vec(a: Vec3, b: Vec3) -> bool {
    [a.x, a.y, a.z]
        .iter()
        .zip([b.x, b.y, b.z])
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Appends the JSON text of `v`.
pub(super) fn to_json(out: &mut Vec<u8>, v: &impl serde::Serialize) -> Result<(), Error> {
    serde_json::to_writer(&mut *out, v)
        .map_err(|e| Error::InvalidArgument(format!("cannot write a JSON message: {e}")))
}

/// What follows the timestamp in an actor's scene entity or transform,
/// for the pose (location and rotation as recorded) it was made at.
///
/// Most actors of a recording (props, signs, lights, parked cars) stay
/// where they are from frame to frame, and their messages differ only in
/// the timestamp: the text after it is kept and reused while the pose (and
/// for an entity, the box and the light) stays bit for bit the same, so
/// the floats of a resting actor are formatted once, not once per frame.
pub(super) struct Piece {
    /// The location as recorded.
    location: Vec3,
    /// The rotation as recorded.
    rotation: Vec3,
    /// The object's text after `{"timestamp":{..},` (to its closing `}`).
    pub(super) tail: Vec<u8>,
}

impl Piece {
    /// The piece of an object whose fields after the timestamp are `tail`'s.
    pub(super) fn new(
        location: Vec3,
        rotation: Vec3,
        tail: &impl serde::Serialize,
    ) -> Result<Piece, Error> {
        let mut text = Vec::with_capacity(512);
        to_json(&mut text, tail)?;
        // `{"frame_id":..}` without its opening brace follows the stamp.
        text.remove(0);
        Ok(Piece {
            location,
            rotation,
            tail: text,
        })
    }

    /// Whether the piece was made at this pose (bit for bit).
    pub(super) fn fits(&self, location: Vec3, rotation: Vec3) -> bool {
        same_vec(self.location, location) && same_vec(self.rotation, rotation)
    }
}

/// The text buffers of a frame's `scene` and `tf` messages, kept from frame
/// to frame.
#[derive(Default)]
pub(super) struct SceneText {
    /// A `scene` message.
    pub(super) scene: Vec<u8>,
    /// A `tf` message.
    pub(super) tf: Vec<u8>,
    /// A `Position` packet's message.
    pub(super) positions: Vec<u8>,
}

/// The JSON text of each actor's last Position record, reused while the
/// record stays bit for bit the same: a `Position` packet's message is
/// the text of [`packet_value`] (through [`JsonValue`]) without formatting
/// the floats of every resting actor again in every frame.
#[derive(Default)]
pub(super) struct PositionTexts {
    /// Each actor's last record and its text.
    last: HashMap<u32, (Position, Vec<u8>)>,
}

impl PositionTexts {
    /// The message of the Position packet of `records`, into `out`.
    pub(super) fn text(
        &mut self,
        records: &[Position],
        layout: &Layout,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        out.clear();
        out.extend_from_slice(b"{\"records\":[");
        for (i, p) in records.iter().enumerate() {
            let fits = |(q, _): &&(Position, Vec<u8>)| {
                same_vec(q.location, p.location) && same_vec(q.rotation, p.rotation)
            };
            let piece = match self.last.get(&p.id).filter(fits) {
                Some((_, piece)) => piece,
                None => {
                    // The packet of this record alone, `{"records":[RECORD]}`.
                    let one = packet_value(&Packet::Position(vec![*p]), layout);
                    let mut whole = Vec::with_capacity(128);
                    to_json(&mut whole, &JsonValue(&one))?;
                    let record = whole
                        .strip_prefix(b"{\"records\":[")
                        .and_then(|r| r.strip_suffix(b"]}"))
                        .ok_or_else(|| {
                            Error::InvalidArgument(
                                "a Position packet's value is not {\"records\": [..]}".into(),
                            )
                        })?
                        .to_vec();
                    &self
                        .last
                        .entry(p.id)
                        .insert_entry((*p, record))
                        .into_mut()
                        .1
                }
            };
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(piece);
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use carla_recorder::VectorWidth;
    use logcore::{LogReader, MessageFilter};

    use super::*;

    /// Every Position packet of the fixtures (and of resting, moving and
    /// -0.0 records, in both vector widths) has the text of its value.
    #[test]
    fn reused_position_texts_give_the_text_of_the_value() {
        let mut packets: Vec<(Layout, Vec<Position>)> = Vec::new();
        for name in ["scene-0.9.10.rec", "scene-0.9.13.rec", "scene-0.10-ue5.rec"] {
            let file = format!("{}/../../testdata/carla/{name}", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(file).unwrap();
            let log = crate::open_bytes(&bytes).unwrap();
            let rec = log.as_carla().unwrap();
            let layout = rec.layout();
            for m in log.messages(&MessageFilter::all()).unwrap() {
                let m = m.unwrap();
                let id = m.channel.0 as u8;
                if let Ok(Packet::Position(v)) = Packet::decode(id, &m.payload, 0, &layout) {
                    packets.push((layout, v));
                }
            }
        }
        assert!(packets.len() > 10);
        for width in [VectorWidth::F32, VectorWidth::F64] {
            let layout = Layout {
                vectors: width,
                ..packets[0].0
            };
            let at = |id, x: f64, z: f64| Position {
                id,
                location: Vec3::new(x, 1.5, z),
                rotation: Vec3::new(0.0, 0.1, 90.0),
            };
            for frame in 0..6 {
                let x = f64::from(frame);
                let z = if frame % 2 == 0 { -0.0 } else { 0.0 };
                packets.push((layout, vec![at(1, x, 0.0), at(2, 5.0, z), at(3, 5.0, 0.0)]));
            }
            packets.push((layout, Vec::new()));
        }
        let mut texts = PositionTexts::default();
        let mut out = Vec::new();
        for (layout, records) in &packets {
            texts.text(records, layout, &mut out).unwrap();
            let value = packet_value(&Packet::Position(records.clone()), layout);
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                serde_json::to_string(&JsonValue(&value)).unwrap()
            );
        }
    }
}
