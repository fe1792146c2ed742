//! CARLA recordings to MCAP (profile `carla`), so a recording plays in
//! Foxglove's 3D panel without a CARLA server.
//!
//! - Every packet kind as a `json` channel named as `robolog info` names it
//!   (`Position`, `EventAdd`, `State` (traffic lights), `Collision`,
//!   `EventDel`, ...), one message per packet, with a JSON Schema generated
//!   from the record types of the `carla-recorder` crate: the raw data,
//!   positions in CARLA's own frame and units.
//! - `scene`: per frame one `foxglove.SceneUpdate` with a cube for every
//!   actor that has a Position in the frame (vehicles blue, walkers orange,
//!   traffic lights in their current light's colour, signs white, others
//!   grey; sensors and the spectator left out), sized and centred by its
//!   BoundingBox record where the recording has one, and a deletion for
//!   every removed actor.
//! - `tf`: per frame one `foxglove.FrameTransforms` from `map` to
//!   `actor_<id>` for every actor with a Position.
//! - Metadata records `carla.header` (map, date, version, layout) and
//!   `carla.time` (clock `recording_start`: log time is the frame's elapsed
//!   time; the header date is the UTC anchor of time 0).
//!
//! Coordinates: CARLA (Unreal) is left-handed, x forward, y right, z up,
//! in centimetres, with rotations (roll, pitch, yaw) in degrees where
//! positive pitch raises the nose and positive yaw turns right. Foxglove is
//! right-handed, x forward, y left, z up, in metres. The `scene` and `tf`
//! topics therefore use `(x, -y, z) / 100` and the rotation of roll `roll`,
//! pitch `-pitch`, yaw `-yaw` (radians; mirroring y turns a rotation about
//! x or z into its opposite, and Unreal's roll and pitch already turn
//! opposite to the right-hand rule about their axes, so roll keeps its sign
//! and pitch and yaw change it), the convention of CARLA's ROS bridge.
//!
//! Memory: the actors alive at the current frame and one frame's packets.
//!
//! Speed: most actors of a recording rest (props, signs, lights, parked
//! cars), and the `scene`, `tf` and `Position` messages of a frame differ
//! from the last frame's only in their timestamps and in what moved. The
//! JSON text of each actor's entity, transform and Position record is kept
//! and reused while its pose stays bit for bit the same, so only moving
//! actors' floats are formatted; the bytes are those of building the
//! values afresh (tests compare both).
//!
//! The modules: `schema` (the packet channels' JSON Schemas), `coords`
//! (CARLA's frame in Foxglove's), `scene` (the actors and the frame's
//! `scene` and `tf` messages) and `pieces` (the text reused while actors
//! rest).

mod coords;
mod pieces;
mod scene;
mod schema;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use carla_recorder::{Layout, Packet, PacketId, Recording, VectorWidth, packet_name, packet_value};

use logcore::{Error, LogReader, MessageFilter, ReadMode};

use super::Context;
use super::foxglove;
use super::jsonschema::{ChannelSpec, JsonOut, JsonValue, metadata, schema_text};
use crate::Log;
use pieces::{PositionTexts, SceneText};
use scene::{FrameScene, Scene};
use schema::packet_type;

/// The topic of the frames' `foxglove.SceneUpdate`s.
const SCENE_TOPIC: &str = "scene";
/// The topic of the frames' `foxglove.FrameTransforms`.
const TF_TOPIC: &str = "tf";
/// The frame every actor's pose is given in.
const WORLD: &str = "map";

/// The metadata record `carla.header`: the recording's header and layout,
/// and the frame of the `scene` and `tf` topics.
fn header_metadata(rec: &Recording<'_>) -> BTreeMap<String, String> {
    let h = rec.header();
    let l: Layout = rec.layout();
    metadata([
        ("map", h.map_name().into_owned()),
        ("date", h.date.to_string()),
        ("version", h.version.to_string()),
        (
            "vector_width",
            match l.vectors {
                VectorWidth::F32 => "f32".to_string(),
                VectorWidth::F64 => "f64".to_string(),
            },
        ),
        ("wheel_record_bytes", l.wheels.len().to_string()),
        ("attribute_coding", format!("{:?}", l.attributes)),
        (
            "frame",
            "scene and tf: right-handed, x forward, y left, z up, metres (CARLA's y negated, \
             cm / 100; pitch and yaw negated)"
                .to_string(),
        ),
    ])
}

/// Writes the `scene` and `tf` messages of the frame `scene` holds (if
/// any) that pass the filter, through the buffers of `text`.
fn write_scene<W: Write>(
    out: &mut JsonOut<W>,
    cx: &mut Context<'_>,
    scene: &mut Scene,
    text: &mut SceneText,
) -> Result<(), Error> {
    let Some(t) = scene.finish(&mut text.scene, &mut text.tf)? else {
        return Ok(());
    };
    if cx.keep(SCENE_TOPIC, t) {
        out.ensure(cx, SCENE_TOPIC, || {
            ChannelSpec::well_known(foxglove::SCENE_UPDATE)
        })?;
        out.write_text(cx, SCENE_TOPIC, t, &text.scene)?;
    }
    // A frame without actors has no transform to send: an empty
    // `foxglove.FrameTransforms` says nothing, and Rerun's Foxglove decoder
    // drops a whole `tf` channel holding one.
    if cx.keep(TF_TOPIC, t) && text.tf.as_slice() != b"{\"transforms\":[]}" {
        out.ensure(cx, TF_TOPIC, || {
            ChannelSpec::well_known(foxglove::FRAME_TRANSFORMS)
        })?;
        out.write_text(cx, TF_TOPIC, t, &text.tf)?;
    }
    Ok(())
}

/// The topics [`convert`] writes for `log` when their messages pass the
/// time filter: one per packet kind (the log's topics), `scene` and `tf`.
pub(crate) fn topics(log: &Log<'_>) -> Result<std::collections::BTreeSet<String>, Error> {
    let mut topics: std::collections::BTreeSet<String> =
        log.channels()?.into_iter().map(|c| c.topic).collect();
    topics.extend([SCENE_TOPIC.to_string(), TF_TOPIC.to_string()]);
    Ok(topics)
}

/// Converts the CARLA `log` into MCAP written to `out`.
pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let Some(rec) = log.as_carla() else {
        return Err(super::not_yet(log.format()));
    };
    let layout = rec.layout();
    let mut out = JsonOut::new(out, cx, "carla")?;
    out.metadata("carla.header", &header_metadata(rec))?;
    let mut time = metadata([
        ("clock", "recording_start"),
        (
            "description",
            "log and publish times are the frame's elapsed seconds since the recording started",
        ),
    ]);
    time.insert(
        "anchor_unix_time_ns".into(),
        (i128::from(rec.header().date) * 1_000_000_000).to_string(),
    );
    time.insert("anchor_log_time_ns".into(), "0".into());
    time.insert("anchor_source".into(), "info header date".into());
    out.metadata("carla.time", &time)?;

    // Actors added before a time filter's start still need their kind and
    // box: every frame is read, and only what passes is written.
    let filter = MessageFilter::all().mode(ReadMode::Lenient);
    let mut scene = Scene {
        actors: BTreeMap::new(),
        frame: None,
        transforms: HashMap::new(),
    };
    let mut buffers = SceneText::default();
    let mut positions = PositionTexts::default();
    let mut first_kind = HashMap::new();
    let mut lanes = HashMap::new();
    let mut n = 0u64;
    for item in log.messages(&filter)? {
        let Some(msg) = cx.passed(item) else {
            continue;
        };
        let id = u8::try_from(msg.channel.0).unwrap_or(u8::MAX);
        let offset = msg.offset.unwrap_or(0);
        if id == PacketId::FrameStart as u8 {
            write_scene(&mut out, cx, &mut scene, &mut buffers)?;
            scene.frame = Some(FrameScene {
                time: msg.log_time,
                ..FrameScene::default()
            });
        }
        let Some(packet) = cx.passed(Packet::decode(id, &msg.payload, offset, &layout)) else {
            continue;
        };
        scene.take(&packet);
        let name = packet_name(id);
        if cx.keep(&name, msg.log_time) {
            // One channel per packet id, typed by the first packet's kind;
            // a packet kept raw where its id usually decodes (a fork's id
            // 18, say) goes beside the decoded ones.
            let kind = matches!(packet, Packet::Raw { .. });
            let first = *first_kind.entry(id).or_insert(kind);
            let lane = lanes.entry((id, kind)).or_insert_with(|| {
                let topic = if first == kind {
                    name.to_string()
                } else {
                    format!("{name}.raw")
                };
                let schema_name = format!("carla.{topic}");
                let text = schema_text(&schema_name, &packet_type(&packet));
                (topic, schema_name, text)
            });
            let (topic, schema_name, text) = (&lane.0, &lane.1, &lane.2);
            out.ensure(cx, topic, || ChannelSpec {
                schema_name,
                schema_text: text,
                metadata: metadata([("packet_id", id.to_string())]),
            })?;
            if let Packet::Position(records) = &packet {
                positions.text(records, &layout, &mut buffers.positions)?;
                out.write_text(cx, topic, msg.log_time, &buffers.positions)?;
            } else {
                let value = packet_value(&packet, &layout);
                out.write(cx, topic, msg.log_time, &JsonValue(&value))?;
            }
        }
        n += 1;
        if n % 4096 == 0 {
            cx.report(offset);
        }
    }
    write_scene(&mut out, cx, &mut scene, &mut buffers)?;
    cx.report(cx.total_bytes);
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::super::ConvertOptions;
    use super::super::jsonschema::testing::{at, convert, counts_match_info};

    #[test]
    fn actors_play_in_the_3d_panel() {
        let c = convert("carla/scene-0.9.13.rec", &ConvertOptions::default());
        let positions = c.on("Position");
        let tf = c.on("tf");
        let scene = c.on("scene");
        assert_eq!(tf.len(), positions.len());
        assert_eq!(scene.len(), positions.len());
        let raw = positions[0];
        let x = at(raw, "records.0.location.x");
        let y = at(raw, "records.0.location.y");
        let z = at(raw, "records.0.location.z");
        let first = &tf[0];
        assert_eq!(
            [
                at(first, "transforms.0.translation.x"),
                at(first, "transforms.0.translation.y"),
                at(first, "transforms.0.translation.z"),
            ],
            [x / 100.0, -y / 100.0, z / 100.0]
        );
        let schemas: Vec<&str> = c
            .messages
            .iter()
            .filter(|m| m.0 == "scene" || m.0 == "tf")
            .map(|m| m.1.as_str())
            .collect();
        assert!(schemas.contains(&"foxglove.SceneUpdate"));
        assert!(schemas.contains(&"foxglove.FrameTransforms"));
        // Every packet is a message on its own topic, as `robolog info` counts them.
        counts_match_info(&c, "carla/scene-0.9.13.rec");
    }
}
