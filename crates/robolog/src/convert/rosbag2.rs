//! ROS 2 bags (rosbag2) to MCAP, losslessly, as rosbag2's own MCAP storage
//! writes them:
//!
//! - header profile `ros2`;
//! - one schema per message type and definition, named after the type,
//!   encoding `ros2msg` (or `ros2idl`) and the definition the bag stores,
//!   or the bundled one for a bag that stores none (a topic with no
//!   definition gets no schema, id 0);
//! - one channel per topic, message encoding the topic's serialization
//!   format (`cdr`), metadata `offered_qos_profiles` (and
//!   `type_description_hash` where the bag has one), as rosbag2 writes
//!   them;
//! - payload bytes unchanged (decompressed where the bag compresses each
//!   message); log time = publish time = the bag's timestamp; sequence
//!   numbers counting the messages written, from 0.
//!
//! Memory: the bag's storage is read in time order a page at a time, and
//! one output chunk is held, never the bag.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use logcore::{ChannelId, Error};
use mcapfile::Writer;

use super::Context;
use crate::Log;

/// Converts the ROS 2 bag `log` into MCAP written to `out`.
pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let Some(bag) = log.as_rosbag2() else {
        return Err(super::not_a("a ROS 2 bag", log));
    };
    for n in bag.notices() {
        cx.stats.warnings.push(match &n.topic {
            Some(t) => format!("{t}: {}", n.text),
            None => n.text.clone(),
        });
    }
    let mut w = Writer::new(out, super::write_options(&cx.opts, "ros2"))?;
    let mut schemas: HashMap<(&str, &str, &str), u16> = HashMap::new();
    let mut channels: HashMap<ChannelId, u16> = HashMap::new();
    for t in bag.topics() {
        if !cx.keep_topic(&t.name) {
            continue;
        }
        let schema = match &t.definition {
            Some(d) => {
                let key = (t.type_name.as_str(), d.encoding.as_str(), d.text.as_str());
                match schemas.get(&key) {
                    Some(&id) => id,
                    None => {
                        let id = w.add_schema(&t.type_name, &d.encoding, d.text.as_bytes())?;
                        schemas.insert(key, id);
                        id
                    }
                }
            }
            None => 0,
        };
        let mut metadata = BTreeMap::new();
        metadata.insert(
            "offered_qos_profiles".to_string(),
            t.offered_qos_profiles.clone(),
        );
        if !t.type_description_hash.is_empty() {
            metadata.insert(
                "type_description_hash".to_string(),
                t.type_description_hash.clone(),
            );
        }
        let id = w.add_channel(schema, &t.name, &t.serialization_format, &metadata)?;
        channels.insert(t.id, id);
        cx.stats.channels += 1;
    }
    let filter = cx.lenient_filter().channels(channels.keys().copied());
    let mut sequence = 0u32;
    // Progress by the payload bytes read (the storage's rows have no
    // byte offsets).
    let mut read = 0u64;
    cx.each_message(bag.messages(&filter)?, |cx, m| {
        let Some(&channel) = channels.get(&m.channel) else {
            return Ok(());
        };
        let t = super::mcap_time(log, &m)?;
        w.write_message(channel, sequence, t, t, &m.payload)?;
        sequence = sequence.wrapping_add(1);
        cx.stats.messages += 1;
        read += m.payload.len() as u64;
        cx.tick(read.min(cx.total_bytes));
        Ok(())
    })?;
    let sink = w.finish()?;
    cx.report(cx.total_bytes);
    Ok(sink)
}
