//! ROS 1 bags to ROS 2 MCAP ([`ConvertOptions::ros2`](super::ConvertOptions))
//! or to a rosbag2 folder ([`Target::Rosbag2`](super::Target)), mapped the
//! way rosbags (`rosbags-convert --dst-typestore ros2_jazzy`) maps them and
//! re-encoded from ROS 1 bytes to CDR directly. One mapping feeds both
//! outputs through a [`Sink`]: the MCAP one below, and the rosbag2 one of
//! `super::to_rosbag2` (a topic per name and type, the same definitions
//! and offered QoS profiles, the bag time as each message's timestamp).
//!
//! In MCAP:
//!
//! - header profile `ros2`; one schema per ROS 2 type and definition,
//!   named `pkg/msg/Type`, encoding `ros2msg`, holding the concatenated
//!   ROS 2 definition (the type, then a `MSG: pkg/Type` section after
//!   a line of `=` for each type it uses);
//! - one channel per topic, type and latching (connections that differ in
//!   nothing else, such as two publishers, share one, as in rosbags),
//!   message encoding `cdr`, metadata `topic_type_hash` (the RIHS01 type
//!   hash, as rosbag2 writes it; left out for types using `char`, see
//!   `rosbag2::TopicDefinition::recorded_type_hash`) and
//!   `offered_qos_profiles` as
//!   rosbags-convert writes it: for a latched connection (`latching=1`)
//!   one profile with durability `transient_local`, reliability
//!   `reliable`, history `unknown`, depth 0 and infinite times; for any
//!   other `[]`;
//! - log time = publish time = the bag time; sequence numbers counting the
//!   messages written, from 0.
//!
//! The type mapping:
//!
//! - `pkg/Type` becomes `pkg/msg/Type`; `tf/tfMessage` becomes
//!   `tf2_msgs/msg/TFMessage`;
//! - the ROS 2 definition of a type is the bundled jazzy one
//!   ([`rosbag2::Definitions::bundled`]) when it has the type, else derived
//!   from the ROS 1 one: `time` and `duration` become
//!   `builtin_interfaces/Time` and `Duration` (int32 `sec`, uint32
//!   `nanosec`: the bits copied), `Header` is `std_msgs/Header` (the ROS 2
//!   one, without `seq`), `char` and `byte` stay as written (as rosbags
//!   writes them), constants are kept (left out when the ROS 2 grammar
//!   refuses them: they are not on the wire);
//! - fields are matched by name, then, as rosbags detects renames, a ROS 2
//!   field left over takes the first ROS 1 field left over of the same type
//!   (`sensor_msgs/CameraInfo`'s `D`, `K`, `R`, `P` become `d`, `k`, `r`,
//!   `p`); a ROS 2 field with no ROS 1 source, or one of a type that does
//!   not copy (another size, a string for a number, an array for a
//!   scalar), is written as its zero value (0, empty string, empty
//!   sequence, fixed arrays of zeros); ROS 1 fields with no ROS 2 field are
//!   dropped. Each type mapped so is reported once in
//!   [`ConvertStats::warnings`](super::ConvertStats), naming the fields
//!   (the Header's `seq` is not reported: dropping it is the mapping);
//! - arrays copy into arrays: a fixed ROS 2 array takes the first elements
//!   and is padded with zero ones, a bounded sequence is cut at its bound.
//!
//! Unlike rosbags, two numbers of different types do not convert into
//! each other (the ROS 2 field is zero); a custom type using a standard
//! type that differs in ROS 2 maps that type too instead of failing; and
//! fields always match by name, where rosbags copies a type's bytes
//! unchanged when its field types line up position by position whatever
//! the names (the two differ only for a ROS 1 type whose fields of one
//! type come in another order than in ROS 2). `byte` values are the same
//! bits; ROS 2 reads them as unsigned octets, rosbags' numpy as int8.
//!
//! Each payload is re-encoded by walking a plan compiled once per
//! connection type (no values built): every length is checked against
//! the bytes left, so a payload shorter than its definition requires is
//! skipped, listed in [`ConvertStats::skipped`](super::ConvertStats) with
//! the byte offset where it ends too early, and the rest converted. A
//! connection whose definition does not map is skipped with its messages,
//! listed once.
//!
//! Memory: as for the ROS 1 conversion (one input chunk, one output chunk,
//! the indexes), plus one re-encoded payload.

mod transcode;
mod types;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;

use logcore::{ChannelId, Error};
use mcapfile::Writer;
use rosbag2::{Definitions, Distro};

use super::Context;
use crate::Log;
pub(super) use transcode::TranscodeError;
use types::Compiled;

/// The offered QoS profiles rosbags-convert writes for a latched ROS 1
/// topic (for others it writes `[]`).
pub(crate) const LATCHED_QOS: &str = "- avoid_ros_namespace_conventions: false
  deadline:
    nsec: 4294967295
    sec: 2147483647
  depth: 0
  durability: transient_local
  history: unknown
  lifespan:
    nsec: 4294967295
    sec: 2147483647
  liveliness: automatic
  liveliness_lease_duration:
    nsec: 4294967295
    sec: 2147483647
  reliability: reliable";

/// Whether the offered QoS profiles `text` (YAML, as rosbag2 metadata and
/// MCAP channel metadata hold them) make a latched topic in ROS 1: one
/// profile's durability is `transient_local` (by name, or by its number
/// 1 in metadata before version 9), as rosbags-convert decides it. Text
/// that does not parse is not latched.
pub(crate) fn latched_qos(text: &str) -> bool {
    rosbag2::metadata::parse_qos_text(text, "offered_qos_profiles").is_ok_and(|profiles| {
        profiles
            .iter()
            .any(|p| p.durability == "transient_local" || p.durability == "1")
    })
}

/// One ROS 2 topic a conversion declares to its [`Sink`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ros2Topic<'a> {
    /// Topic name.
    pub(crate) name: &'a str,
    /// ROS 2 type, `pkg/msg/Type`.
    pub(crate) type_name: &'a str,
    /// The concatenated `ros2msg` definition.
    pub(crate) definition: &'a str,
    /// Whether a connection of the topic was latched: its offered QoS
    /// profile is [`LATCHED_QOS`], else none (`[]`).
    pub(crate) latched: bool,
}

/// Where the mapped topics and re-encoded CDR messages go: ROS 2 MCAP
/// ([`McapSink`]) or a rosbag2 folder (`super::to_rosbag2`). The mapping
/// and the re-encoding are the same for both.
pub(crate) trait Sink {
    /// Declares `topic`; the id [`Sink::write`] takes (the same id for a
    /// topic the sink stores as one already declared).
    fn topic(&mut self, topic: &Ros2Topic<'_>) -> Result<u32, Error>;
    /// Writes one CDR message of topic `id` received at `time` (bag time,
    /// nanoseconds since the epoch).
    fn write(&mut self, id: u32, time: u64, data: &[u8]) -> Result<(), Error>;
}

/// ROS 2 MCAP: one schema per type and definition, one channel per topic,
/// schema and latching, sequence numbers counting the messages from 0.
pub(crate) struct McapSink<W: Write> {
    w: Writer<W>,
    schemas: HashMap<(String, String), u16>,
    channels: HashMap<(String, u16, bool), u16>,
    sequence: u32,
}

impl<W: Write> Sink for McapSink<W> {
    fn topic(&mut self, t: &Ros2Topic<'_>) -> Result<u32, Error> {
        let skey = (t.type_name.to_string(), t.definition.to_string());
        let schema = match self.schemas.get(&skey) {
            Some(&id) => id,
            None => {
                let id = self
                    .w
                    .add_schema(t.type_name, "ros2msg", t.definition.as_bytes())?;
                self.schemas.insert(skey, id);
                id
            }
        };
        let ckey = (t.name.to_string(), schema, t.latched);
        if let Some(&id) = self.channels.get(&ckey) {
            return Ok(u32::from(id));
        }
        let mut metadata = BTreeMap::new();
        let qos = if t.latched { LATCHED_QOS } else { "[]" };
        metadata.insert("offered_qos_profiles".to_string(), qos.to_string());
        // The type hash, where rosbag2's MCAP files hold it (and as the
        // rosbag2 writer records it: none for types using `char`).
        if let Some(h) = rosbag2::TopicDefinition::msg(t.definition).recorded_type_hash(t.type_name)
        {
            metadata.insert("topic_type_hash".to_string(), h);
        }
        let id = self.w.add_channel(schema, t.name, "cdr", &metadata)?;
        self.channels.insert(ckey, id);
        Ok(u32::from(id))
    }

    fn write(&mut self, id: u32, time: u64, data: &[u8]) -> Result<(), Error> {
        let channel = u16::try_from(id).map_err(|_| {
            Error::invalid_argument(format!("channel id {id} is no MCAP channel id"))
        })?;
        self.w
            .write_message(channel, self.sequence, time, time, data)?;
        self.sequence = self.sequence.wrapping_add(1);
        Ok(())
    }
}

/// Converts the RosBag `logs` (one, or several merged by time) into
/// ROS 2 MCAP written to `out`.
pub(crate) fn convert<W: Write>(
    logs: &[&Log<'_>],
    out: W,
    cx: &mut Context<'_>,
) -> Result<W, Error> {
    if let Some(log) = logs.iter().find(|l| l.as_bag().is_none()) {
        return Err(super::not_a("a ROS 1 bag", log));
    }
    let mut sink = McapSink {
        w: Writer::new(out, super::write_options(&cx.opts, "ros2"))?,
        schemas: HashMap::new(),
        channels: HashMap::new(),
        sequence: 0,
    };
    write_into(logs, &mut sink, cx)?;
    let out = sink.w.finish()?;
    cx.report(cx.total_bytes);
    Ok(out)
}

/// Maps the RosBag `logs`' connections to ROS 2 topics and writes their
/// messages, re-encoded as CDR and merged by time (ties in the order of
/// `logs`), into `sink` (see the module docs; connections of several logs
/// share a topic as connections of one do); the caller finishes the sink
/// and reports the end.
pub(crate) fn write_into<S: Sink>(
    logs: &[&Log<'_>],
    sink: &mut S,
    cx: &mut Context<'_>,
) -> Result<(), Error> {
    let mut bags = Vec::with_capacity(logs.len());
    for log in logs {
        let Some(bag) = log.as_bag() else {
            return Err(super::not_a("a ROS 1 bag", log));
        };
        for w in bag.warnings() {
            cx.stats.warnings.push(w.to_string());
        }
        bags.push(bag);
    }
    let store = Definitions::bundled(Distro::Jazzy);
    // One compiled type per ROS 1 type and definition.
    let mut compiled: Vec<Compiled> = Vec::new();
    let mut by_def: HashMap<(&str, &str), Result<usize, String>> = HashMap::new();
    let mut topics = HashSet::new();
    // Per bag: connection id -> (sink topic, compiled type, topic name).
    let mut conns: Vec<HashMap<u32, (u32, usize, &str)>> = Vec::with_capacity(bags.len());
    let mut warned = HashSet::new();
    for (log, bag) in logs.iter().zip(&bags) {
        let limits = log.limits();
        let mut mine = HashMap::new();
        for c in bag.connections() {
            if !cx.keep_topic(&c.topic) {
                continue;
            }
            let key = (c.type_name.as_str(), c.message_definition.as_str());
            let entry = by_def.entry(key).or_insert_with(|| {
                let ros1 = rosbag12::MessageType::from_connection_with_limits(c, &limits)
                    .map_err(|e| e.to_string())?;
                let t = types::compile(&ros1, &store, &limits)?;
                compiled.push(t);
                Ok(compiled.len() - 1)
            });
            let t = match entry {
                Ok(t) => *t,
                Err(e) => {
                    cx.stats.skipped.push(format!(
                        "connection {} ({}, {}): its messages are left out: {e}",
                        c.id, c.topic, c.type_name
                    ));
                    continue;
                }
            };
            let ty = &compiled[t];
            for line in &ty.warnings {
                if warned.insert(line.clone()) {
                    cx.stats.warnings.push(line.clone());
                }
            }
            let latched = c.latching
                || c.header
                    .iter()
                    .any(|(n, v)| n == "latching" && v.as_slice() == b"1");
            let id = sink.topic(&Ros2Topic {
                name: &c.topic,
                type_name: &ty.name,
                definition: &ty.text,
                latched,
            })?;
            if topics.insert(id) {
                cx.stats.channels += 1;
            }
            mine.insert(c.id, (id, t, c.topic.as_str()));
        }
        conns.push(mine);
    }
    let streams: Vec<_> = bags
        .iter()
        .zip(&conns)
        .map(|(bag, mine)| {
            let filter = cx
                .lenient_filter()
                .channels(mine.keys().map(|&id| ChannelId(id)));
            bag.messages(&filter)
        })
        .collect();
    let mut buf = Vec::new();
    cx.each_merged(
        streams,
        |m| m.time.to_timestamp().as_nanos(),
        |cx, i, m| {
            let Some(&(id, t, topic)) = conns[i].get(&m.conn) else {
                return Ok(());
            };
            if let Err(e) = transcode::transcode(&compiled[t], &m.data, &mut buf) {
                cx.stats.skipped.push(format!(
                    "{topic}: message at {}.{:09} (record at or in the chunk at file offset {}): \
                     does not transcode to CDR: {e}",
                    m.time.sec, m.time.nsec, m.offset
                ));
                return Ok(());
            }
            let t = m.time.to_timestamp().as_nanos() as u64;
            sink.write(id, t, &buf)?;
            cx.stats.messages += 1;
            cx.tick_at(i, m.offset);
            Ok(())
        },
    )
}
