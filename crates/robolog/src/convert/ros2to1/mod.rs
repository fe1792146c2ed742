//! ROS 2 logs (rosbag2 bags, ROS 2 MCAP files) to ROS 1 bags, mapped the
//! way rosbags (`rosbags-convert --src BAG --dst out.bag`) maps them and
//! re-encoded from CDR to ROS 1 bytes directly; the mirror of
//! [`ros1to2`](super::ros1to2):
//!
//! - one connection per topic, ROS 1 type and latching (channels that
//!   differ in nothing else, such as two publishers in an MCAP file, share
//!   one, as in rosbags), numbered from 0 in channel order; its header
//!   holds `topic`, `type`, `md5sum`, `message_definition` and `latching`
//!   (`1` when one of the topic's `offered_qos_profiles` has durability
//!   `transient_local`, else `0`), no `callerid`, as rosbags writes them;
//! - the bag time is the log time.
//!
//! The type mapping (no field is renamed, added or dropped but the two
//! named here):
//!
//! - `pkg/msg/Type` becomes `pkg/Type` (`tf2_msgs/msg/TFMessage` stays
//!   `tf2_msgs/TFMessage`, whose ROS 1 md5sum is that of `tf/tfMessage`);
//! - `builtin_interfaces/Time` and `Duration` become ROS 1 `time` and
//!   `duration` (the same 8 bytes: `sec`, then `nanosec`);
//! - `std_msgs/Header` gets ROS 1's `uint32 seq` first, written as 0;
//! - a type without fields (one placeholder octet in CDR) has none in ROS
//!   1 and takes no bytes; a field named
//!   `structure_needs_at_least_one_member` (IDL's placeholder) is dropped;
//! - the definition is written in ROS 1 form, as rosbags writes it: the
//!   type, then a `MSG: pkg/Type` section after a line of 80 `=` for each
//!   type it uses, in the order a depth-first walk first meets them;
//!   message types by full name; bounds kept (`string<=22`, `int32[<=5]`,
//!   which ROS 1 tools other than rosbags do not read); constants as
//!   rosbags writes them (their Python values: `True`, `1.125`, `100.0`,
//!   strings unquoted; a float constant written as an integer literal, such
//!   as `float64 X=1`, is written `1.0` where rosbags keeps `1`); a type of
//!   nothing (`std_msgs/Empty`) has the definition `"\n"`, as ROS 1
//!   writes it (rosbags writes it empty);
//! - the md5sum is computed from that definition as ROS 1 computes it
//!   ([`rosbag12::msg::md5sums`]).
//!
//! A channel that is not ROS 2 (message encoding other than `cdr`, no
//! `ros2msg` or `ros2idl` definition, one that does not parse, or a
//! `wstring` field, which ROS 1 does not have) is skipped with its
//! messages and listed once in [`ConvertStats::skipped`](super::ConvertStats).
//!
//! Each payload is re-encoded by walking a plan compiled once per type
//! (no values built): every length is checked against the bytes left, so
//! a payload shorter than its definition requires (or with more than
//! three bytes left over, or another encapsulation than plain CDR) is
//! skipped, listed in [`ConvertStats::skipped`](super::ConvertStats) with
//! the byte offset in the CDR payload where it goes wrong, and the rest
//! converted.
//!
//! Memory: the log is read a chunk (MCAP) or a page of rows (rosbag2) at
//! a time, the bag written a chunk at a time, plus one re-encoded payload.

mod transcode;
mod types;

use std::collections::HashMap;
use std::io::{Seek, Write};

use logcore::{ChannelId, ChannelInfo, Error, Format, LogReader};
use rosbag12::{Connection, Writer as BagWriter};

use super::Context;
use super::ros1to2::latched_qos;
use crate::Log;
use types::Compiled;

/// The ROS 1 definition text and md5sum of the ROS 2 type `t`, as a
/// conversion to ROS 1 writes its connection (`crate::encode`).
pub(crate) fn ros1_definition(t: &ros2cdr::MessageType) -> Result<(String, String), String> {
    types::compile(t).map(|c| (c.text, c.md5sum))
}

/// Whether [`super::to_bag`] converts `log` from ROS 2: a rosbag2 bag, or
/// an MCAP file whose kept channels include a ROS 2 one (message encoding
/// `cdr`, or a `ros2msg` or `ros2idl` schema) and no `ros1` one (an MCAP
/// file of ROS 1 channels goes to the ROS 1 path).
pub(crate) fn applies(log: &Log<'_>, cx: &Context<'_>) -> Result<bool, Error> {
    Ok(match log.format() {
        Format::Rosbag2 => true,
        Format::Mcap => {
            let channels = log.channels()?;
            let kept = || channels.iter().filter(|c| cx.keep_topic(&c.topic));
            let ros2 = |c: &ChannelInfo| {
                c.message_encoding == "cdr"
                    || c.schema
                        .as_ref()
                        .is_some_and(|s| s.encoding == "ros2msg" || s.encoding == "ros2idl")
            };
            kept().any(ros2) && !kept().any(|c| c.message_encoding == "ros1")
        }
        _ => false,
    })
}

/// What channels share a compiled type by: message encoding, schema name,
/// encoding and text.
type Key = (String, Option<(String, String, Vec<u8>)>);

/// The compiled type of channel `c`, or why it does not convert.
fn compile(c: &ChannelInfo, limits: &logcore::Limits) -> Result<Compiled, String> {
    if c.message_encoding != "cdr" {
        return Err(format!(
            "message encoding {:?}; only cdr converts from ROS 2",
            c.message_encoding
        ));
    }
    let Some(s) = &c.schema else {
        return Err("no message definition".into());
    };
    let text =
        std::str::from_utf8(&s.data).map_err(|_| "a definition that is not UTF-8".to_string())?;
    let t = match s.encoding.as_str() {
        "ros2msg" => ros2cdr::MessageType::parse_with_limits(&s.name, text, limits),
        "ros2idl" => ros2cdr::MessageType::parse_idl_with_limits(&s.name, text, limits),
        other => {
            return Err(format!(
                "schema encoding {other:?}; ros2msg or ros2idl converts"
            ));
        }
    }
    .map_err(|e| e.to_string())?;
    types::compile(&t)
}

/// Converts the ROS 2 `log` (see [`applies`]) into a ROS 1 bag written to
/// `out`.
pub(crate) fn to_bag<W: Write + Seek>(
    log: &Log<'_>,
    out: W,
    cx: &mut Context<'_>,
) -> Result<W, Error> {
    to_bag_merged(&[log], out, cx)
}

/// [`to_bag`] of several ROS 2 logs merged by time (ties in the order of
/// `logs`): channels of any log share a connection as channels of one do.
pub(crate) fn to_bag_merged<W: Write + Seek>(
    logs: &[&Log<'_>],
    out: W,
    cx: &mut Context<'_>,
) -> Result<W, Error> {
    let options = super::bag::writer_options(cx)?;
    let mut w = BagWriter::new(out, options)?;
    let mut compiled: Vec<Compiled> = Vec::new();
    // One compiled type per message encoding and schema.
    let mut by_def: HashMap<Key, Result<usize, String>> = HashMap::new();
    let mut conns: HashMap<(String, String, String, bool), u32> = HashMap::new();
    // Per log: channel -> (connection, compiled type, topic).
    let mut ids: Vec<HashMap<ChannelId, (u32, usize, String)>> = Vec::with_capacity(logs.len());
    for log in logs {
        if let Some(bag) = log.as_rosbag2() {
            for n in bag.notices() {
                cx.stats.warnings.push(n.to_string());
            }
        }
        let limits = log.limits();
        let mut channels = log.channels()?;
        channels.sort_by_key(|c| c.id);
        let mut mine = HashMap::new();
        for c in &channels {
            if !cx.keep_topic(&c.topic) {
                continue;
            }
            let key = (
                c.message_encoding.clone(),
                c.schema
                    .as_ref()
                    .map(|s| (s.name.clone(), s.encoding.clone(), s.data.clone())),
            );
            let entry = by_def
                .entry(key)
                .or_insert_with(|| {
                    compile(c, &limits).map(|t| {
                        compiled.push(t);
                        compiled.len() - 1
                    })
                })
                .clone();
            let t = match entry {
                Ok(t) => t,
                Err(e) => {
                    cx.stats.skipped.push(format!(
                        "channel {} ({}, {}): its messages are left out: {e}",
                        c.id.0, c.topic, c.type_name
                    ));
                    continue;
                }
            };
            let ty = &compiled[t];
            let latched = c
                .metadata
                .get("offered_qos_profiles")
                .is_some_and(|q| latched_qos(q));
            let ckey = (c.topic.clone(), ty.name.clone(), ty.md5sum.clone(), latched);
            let conn = match conns.get(&ckey) {
                Some(&id) => id,
                None => {
                    let mut conn = Connection::new(0, &c.topic, &ty.name, &ty.md5sum, &ty.text);
                    conn.latching = latched;
                    // Fields in name order, as `rosbag record` writes them.
                    conn.header = vec![
                        (
                            "latching".into(),
                            if latched { b"1" } else { b"0" }.to_vec(),
                        ),
                        ("md5sum".into(), ty.md5sum.clone().into_bytes()),
                        ("message_definition".into(), ty.text.clone().into_bytes()),
                        ("topic".into(), c.topic.clone().into_bytes()),
                        ("type".into(), ty.name.clone().into_bytes()),
                    ];
                    let id = w.add_connection(conn)?;
                    conns.insert(ckey, id);
                    cx.stats.channels += 1;
                    id
                }
            };
            mine.insert(c.id, (conn, t, c.topic.clone()));
        }
        ids.push(mine);
    }
    let mut streams = Vec::with_capacity(logs.len());
    for (log, mine) in logs.iter().zip(&ids) {
        let filter = cx.lenient_filter().channels(mine.keys().copied());
        streams.push(log.messages_releasing(&filter)?);
    }
    let mut buf = Vec::new();
    // Progress by the payload bytes read where messages have no offsets
    // (a rosbag2 storage's rows).
    let mut read = vec![0u64; logs.len()];
    let sizes: Vec<u64> = logs.iter().map(|l| l.size()).collect();
    cx.each_merged(
        streams,
        |m| m.log_time.as_nanos(),
        |cx, i, m| {
            let Some((conn, t, topic)) = ids[i].get(&m.channel) else {
                return Ok(());
            };
            read[i] += m.payload.len() as u64;
            let at = m.offset.unwrap_or(read[i].min(sizes[i]));
            if let Err(e) = transcode::transcode(&compiled[*t], &m.payload, &mut buf) {
                let ns = m.log_time.as_nanos();
                let place = match m.offset {
                    Some(o) => format!(" (record at file offset {o})"),
                    None => String::new(),
                };
                cx.stats.skipped.push(format!(
                    "{topic}: message at {}.{:09}{place}: does not transcode to ROS 1: {e}",
                    ns.div_euclid(1_000_000_000),
                    ns.rem_euclid(1_000_000_000)
                ));
                return Ok(());
            }
            w.write(*conn, super::bag::ros_time(logs[i], &m)?, &buf)?;
            cx.stats.messages += 1;
            cx.tick_at(i, at);
            Ok(())
        },
    )?;
    w.finish()?;
    cx.report(cx.total_bytes);
    Ok(w.into_inner())
}

#[cfg(test)]
mod tests {
    use super::super::ros1to2::LATCHED_QOS;
    use super::*;

    /// Latching follows durability, by name (metadata 9, what the ROS 1
    /// to ROS 2 conversion writes) or by number (metadata up to 8: 1 is
    /// transient_local, 2 volatile).
    #[test]
    fn latching_from_qos_durability() {
        assert!(latched_qos(LATCHED_QOS));
        assert!(!latched_qos("[]"));
        let v8 = |d: u8| {
            format!(
                "- history: 3\n  depth: 4\n  reliability: 1\n  durability: {d}\n  deadline:\n    \
                 sec: 0\n    nsec: 0\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  \
                 liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n  \
                 avoid_ros_namespace_conventions: false"
            )
        };
        assert!(latched_qos(&v8(1)));
        assert!(!latched_qos(&v8(2)));
        assert!(!latched_qos(
            &LATCHED_QOS.replace("transient_local", "volatile")
        ));
        assert!(!latched_qos("not: [yaml"));
    }
}
