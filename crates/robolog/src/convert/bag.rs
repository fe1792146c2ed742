//! ROS bags (2.0 and 1.2) to MCAP, losslessly, with the conventions of the
//! MCAP CLI's `mcap convert`:
//!
//! - header profile `ros1`;
//! - one schema per message type and md5sum, encoding `ros1msg`, named
//!   after the type, holding the full definition the bag stores (a bag
//!   that stores two different texts under one md5sum gets one schema per
//!   text, so nothing is lost);
//! - one channel per connection, with the connection's id when every id
//!   fits MCAP's 16 bits (else numbered from 0 in id order), message
//!   encoding `ros1`, and every field of the connection header but `type`
//!   and `message_definition` (which the schema holds) as channel
//!   metadata (`topic`, `md5sum`, `callerid`, `latching`, ...; values as
//!   stored, so `latching` is `1`);
//! - payload bytes unchanged; log time = publish time = the bag time;
//!   sequence numbers counting the messages written, from 0.
//!
//! Unlike `mcap convert`, 1.2 bags convert too, and damaged bags
//! (unindexed, truncated, with unreadable chunks) are read leniently: what
//! was skipped is listed in [`ConvertStats::skipped`](super::ConvertStats),
//! what the reader had to repair (an index rebuilt by scanning) in
//! [`ConvertStats::warnings`](super::ConvertStats).
//!
//! Memory: messages are read in time order one chunk at a time (a group of
//! chunks when their time ranges overlap, as unsorted bags have), payloads
//! are copied from the mapped file or the decompressed chunk straight into
//! the output chunk, which is written once it reaches the chunk size. What
//! is held is one input chunk (or overlapping group), one output chunk and
//! the indexes (of the bag, and the chunk indexes of the output), never the
//! file.

use std::collections::{BTreeMap, HashMap};
use std::io::{Seek, Write};

use logcore::{ChannelId, ChannelInfo, Error, Limits, LogReader};
use mcapfile::{Compression, Writer};
use rosbag12::{Connection, RosTime, Writer as BagWriter, WriterOptions};

use super::Context;
use crate::Log;

/// Converts the RosBag `log` into MCAP written to `out`.
pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let Some(bag) = log.as_bag() else {
        return Err(super::not_a("a ROS 1 bag", log));
    };
    for w in bag.warnings() {
        cx.stats.warnings.push(w.to_string());
    }
    let mut w = Writer::new(out, super::write_options(&cx.opts, "ros1"))?;
    let kept: Vec<&Connection> = bag
        .connections()
        .iter()
        .filter(|c| cx.keep_topic(&c.topic))
        .collect();
    let ids = channel_ids(bag.connections())?;
    let mut schemas: HashMap<(&str, &str, &str), u16> = HashMap::new();
    for c in &kept {
        let key = (
            c.type_name.as_str(),
            c.md5sum.as_str(),
            c.message_definition.as_str(),
        );
        let schema = match schemas.get(&key) {
            Some(&id) => id,
            None => {
                let id = w.add_schema(&c.type_name, "ros1msg", c.message_definition.as_bytes())?;
                schemas.insert(key, id);
                id
            }
        };
        let Some(&id) = ids.get(&c.id) else { continue };
        w.add_channel_with_id(id, schema, &c.topic, "ros1", &channel_metadata(c))?;
        cx.stats.channels += 1;
    }
    let filter = cx
        .lenient_filter()
        .channels(kept.iter().map(|c| ChannelId(c.id)));
    let mut sequence = 0u32;
    cx.each_message(bag.messages(&filter), |cx, m| {
        let Some(&channel) = ids.get(&m.conn) else {
            // The filter passes only known connections.
            return Ok(());
        };
        let t = m.time.to_timestamp().as_nanos() as u64;
        w.write_message(channel, sequence, t, t, &m.data)?;
        sequence = sequence.wrapping_add(1);
        cx.stats.messages += 1;
        cx.tick(m.offset);
        Ok(())
    })?;
    let sink = w.finish()?;
    cx.report(cx.total_bytes);
    Ok(sink)
}

/// The MCAP channel id of each connection: its own id when every id fits
/// in 16 bits, else its rank in id order.
fn channel_ids(conns: &[Connection]) -> Result<HashMap<u32, u16>, Error> {
    let fits = conns.iter().all(|c| u16::try_from(c.id).is_ok());
    let mut ids: Vec<u32> = conns.iter().map(|c| c.id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.iter()
        .enumerate()
        .map(|(rank, &id)| {
            let mcap = if fits {
                Ok(id as u16)
            } else {
                u16::try_from(rank)
            };
            mcap.map(|m| (id, m)).map_err(|_| {
                Error::unsupported(
                    0,
                    format!("a bag with {} connections", ids.len()),
                    "MCAP has at most 65536 channels",
                )
            })
        })
        .collect()
}

/// The connection header fields a channel's metadata holds: all but
/// `type` and `message_definition`, nothing added (early bags have no
/// `topic` field); the last of repeated fields wins, as in the bag;
/// non-UTF-8 bytes are replaced (no real header has any).
pub(crate) fn channel_metadata(c: &Connection) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for (name, value) in &c.header {
        if name == "type" || name == "message_definition" {
            continue;
        }
        m.insert(name.clone(), String::from_utf8_lossy(value).into_owned());
    }
    m
}

/// Writes the messages of `log` (an MCAP file whose channels are ROS 1,
/// or a bag) as a ROS 1 bag 2.0; see [`super::to_bag`].
pub(crate) fn to_bag<W: Write + Seek>(
    log: &Log<'_>,
    out: W,
    cx: &mut Context<'_>,
) -> Result<W, Error> {
    to_bag_merged(&[log], out, cx)
}

/// [`to_bag`] of several logs merged by time into one bag. A connection
/// of a later log whose topic, type and md5sum equal those of a
/// connection an earlier log made joins it (the first log's header fields
/// and definition are kept); connections within one log stay apart as in
/// [`to_bag`].
pub(crate) fn to_bag_merged<W: Write + Seek>(
    logs: &[&Log<'_>],
    out: W,
    cx: &mut Context<'_>,
) -> Result<W, Error> {
    let options = writer_options(cx)?;
    let mut w = BagWriter::new(out, options)?;
    // Per log: channel id -> connection id in the output.
    let mut ids: Vec<HashMap<ChannelId, u32>> = Vec::with_capacity(logs.len());
    // The connections earlier logs made, by topic, type and md5sum.
    let mut made: HashMap<[String; 3], u32> = HashMap::new();
    for log in logs {
        let mut mine = HashMap::new();
        let mut added = Vec::new();
        for (channel, conn) in connections(log)? {
            if !cx.keep_topic(&conn.topic) {
                continue;
            }
            let mut conn = conn;
            let topic = cx.out_topic(&conn.topic);
            if topic != conn.topic {
                for (k, v) in conn.header.iter_mut() {
                    if k == "topic" {
                        *v = topic.clone().into_bytes();
                    }
                }
                conn.topic = topic;
            }
            if cx.anonymises_identifiers() {
                conn.callerid = None;
                conn.header
                    .retain(|(k, _)| !super::anonymise::is_identifier(k));
            }
            let key = [
                conn.topic.clone(),
                conn.type_name.clone(),
                conn.md5sum.clone(),
            ];
            let id = match made.get(&key) {
                Some(&id) => id,
                None => {
                    let id = w.add_connection(conn)?;
                    cx.stats.channels += 1;
                    added.push((key, id));
                    id
                }
            };
            mine.insert(channel, id);
        }
        for (key, id) in added {
            made.entry(key).or_insert(id);
        }
        ids.push(mine);
    }
    let mut streams = Vec::with_capacity(logs.len());
    for (log, mine) in logs.iter().zip(&ids) {
        let filter = cx.lenient_filter().channels(mine.keys().copied());
        streams.push(log.messages_releasing(&filter)?);
    }
    cx.each_message_merged(streams, |cx, i, m| {
        let Some(&conn) = ids[i].get(&m.channel) else {
            return Ok(());
        };
        w.write(conn, ros_time(logs[i], &m)?, &m.payload)?;
        cx.stats.messages += 1;
        cx.tick_at(i, m.offset.unwrap_or(0));
        Ok(())
    })?;
    w.finish()?;
    cx.report(cx.total_bytes);
    Ok(w.into_inner())
}

/// The options of a bag writer for the conversion's compression (none or
/// lz4; zstd is refused) and chunk size.
pub(crate) fn writer_options(cx: &Context<'_>) -> Result<WriterOptions, Error> {
    let compression = match cx.opts.compression {
        Compression::None => rosbag12::Compression::None,
        Compression::Lz4 => rosbag12::Compression::Lz4,
        Compression::Zstd => {
            return Err(Error::InvalidArgument(
                "ROS bags have no zstd compression: choose lz4 or none".into(),
            ));
        }
    };
    Ok(WriterOptions {
        chunk_threshold: usize::try_from(cx.opts.chunk_size).unwrap_or(usize::MAX),
        ..WriterOptions::compressed(compression)
    })
}

/// The bag time of message `m` of `log`: its log time, which must lie in
/// what a ROS time holds; another is refused, naming the message's topic
/// and time (as [`mcap_time`](super::mcap_time) refuses).
pub(crate) fn ros_time(log: &Log<'_>, m: &logcore::Message<'_>) -> Result<RosTime, Error> {
    RosTime::from_timestamp(m.log_time).ok_or_else(|| {
        super::time_refused(
            &super::topic_of(log, m),
            m.log_time,
            m.offset,
            "ROS 1 bag times hold 1970 to 2106",
        )
    })
}

/// The bag connections of `log`'s channels, in channel id order: a bag's
/// own connections, or for MCAP channels of message encoding `ros1` with
/// a `ros1msg` schema the connection their metadata describes (every
/// metadata entry becomes a connection header field, with `type` and
/// `message_definition` from the schema; fields in name order, as
/// `rosbag record` writes them; the md5sum computed from the definition
/// when the metadata has none). Any other channel is refused.
fn connections(log: &Log<'_>) -> Result<Vec<(ChannelId, Connection)>, Error> {
    if let Some(bag) = log.as_bag() {
        return Ok(bag
            .connections()
            .iter()
            .map(|c| (ChannelId(c.id), c.clone()))
            .collect());
    }
    let mut channels = log.channels()?;
    channels.sort_by_key(|c| c.id);
    channels
        .into_iter()
        .map(|c| Ok((c.id, connection_of(&c, log.limits())?)))
        .collect()
}

/// The bag connection an MCAP `ros1` channel describes (its definition
/// parsed within `limits` when the md5sum is computed).
pub(crate) fn connection_of(c: &ChannelInfo, limits: Limits) -> Result<Connection, Error> {
    let refuse = |why: String| {
        Error::unsupported(
            0,
            format!("channel {} ({})", c.id, c.topic),
            format!("{why}; only ROS 1 channels (encoding ros1, schema ros1msg) convert to a bag"),
        )
    };
    if c.message_encoding != "ros1" {
        return Err(refuse(format!("message encoding {:?}", c.message_encoding)));
    }
    let Some(schema) = c.schema.as_ref().filter(|s| s.encoding == "ros1msg") else {
        let found = c.schema.as_ref().map_or("no schema".into(), |s| {
            format!("schema encoding {:?}", s.encoding)
        });
        return Err(refuse(found));
    };
    let definition = String::from_utf8(schema.data.clone())
        .map_err(|_| refuse("a definition that is not UTF-8".into()))?;
    let md5sum = match c.metadata.get("md5sum") {
        Some(m) => m.clone(),
        None => {
            rosbag12::MessageType::parse_with_limits(&schema.name, &definition, &limits)
                .map_err(|e| refuse(format!("a definition that does not parse: {e}")))?
                .md5sum
        }
    };
    let mut fields: BTreeMap<String, Vec<u8>> = c
        .metadata
        .iter()
        .map(|(k, v)| (k.clone(), v.clone().into_bytes()))
        .collect();
    fields.insert("type".into(), schema.name.clone().into_bytes());
    fields.insert("md5sum".into(), md5sum.clone().into_bytes());
    fields.insert("message_definition".into(), definition.clone().into_bytes());
    let mut conn = Connection::new(c.id.0, &c.topic, &schema.name, md5sum, definition);
    conn.callerid = c.metadata.get("callerid").cloned();
    conn.latching = c.metadata.get("latching").is_some_and(|v| v == "1");
    conn.header = fields.into_iter().collect();
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use logcore::{MessageFilter, Timestamp};
    use mcapfile::Record;
    use rosbag12::{Bag, Version};

    use super::*;
    use crate::convert::testing::{convert, records};
    use crate::convert::{ConvertOptions, to_bag, to_mcap};

    const INT32: &str = "da5909fbe378aeaf85e547e830cc1bb7";
    const STRING: &str = "992ce8a1687cec8c8bd883ec73ca41d1";

    /// A bag with a recorded-style connection (callerid, latching) and a
    /// plain one, three messages each.
    fn sample(options: WriterOptions) -> Vec<u8> {
        let mut w = BagWriter::new(Cursor::new(Vec::new()), options).unwrap();
        let mut numbers = Connection::new(0, "/numbers", "std_msgs/Int32", INT32, "int32 data");
        numbers.callerid = Some("/talker".into());
        numbers.latching = true;
        numbers.header = vec![
            ("callerid".into(), b"/talker".to_vec()),
            ("latching".into(), b"1".to_vec()),
            ("md5sum".into(), INT32.as_bytes().to_vec()),
            ("message_definition".into(), b"int32 data".to_vec()),
            ("topic".into(), b"/numbers".to_vec()),
            ("type".into(), b"std_msgs/Int32".to_vec()),
        ];
        let a = w.add_connection(numbers).unwrap();
        let b = w
            .add_connection(Connection::new(
                1,
                "/text",
                "std_msgs/String",
                STRING,
                "string data",
            ))
            .unwrap();
        for i in 0..3u32 {
            let t = RosTime {
                sec: 100 + i,
                nsec: 5,
            };
            w.write(a, t, &(i as i32).to_le_bytes()).unwrap();
            let mut s = 2u32.to_le_bytes().to_vec();
            s.extend_from_slice(b"hi");
            w.write(b, t, &s).unwrap();
        }
        w.finish().unwrap();
        w.into_inner().into_inner()
    }

    #[test]
    fn follows_the_mcap_cli_conventions() {
        let (mcap, stats) = convert(
            &sample(WriterOptions::default()),
            &ConvertOptions::default(),
        );
        assert_eq!((stats.messages, stats.channels), (6, 2));
        assert!(stats.skipped.is_empty());
        let recs = records(&mcap);
        let Record::Header(h) = &recs[0] else {
            panic!("no header first")
        };
        assert_eq!(h.profile, "ros1");
        let schemas: Vec<_> = recs
            .iter()
            .filter_map(|r| match r {
                Record::Schema(s) => Some((s.name.clone(), s.encoding.clone(), s.data.to_vec())),
                _ => None,
            })
            .collect();
        assert_eq!(
            schemas[..2],
            [
                (
                    "std_msgs/Int32".into(),
                    "ros1msg".into(),
                    b"int32 data".to_vec()
                ),
                (
                    "std_msgs/String".into(),
                    "ros1msg".into(),
                    b"string data".to_vec()
                )
            ]
        );
        let ch: Vec<_> = recs
            .iter()
            .filter_map(|r| match r {
                Record::Channel(c) => Some(c.clone()),
                _ => None,
            })
            .collect();
        assert_eq!((ch[0].id, ch[0].topic.as_str()), (0, "/numbers"));
        assert_eq!(ch[0].message_encoding, "ros1");
        let meta: Vec<(&str, &str)> = ch[0]
            .metadata
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            meta,
            [
                ("callerid", "/talker"),
                ("latching", "1"),
                ("md5sum", INT32),
                ("topic", "/numbers")
            ]
        );
        let msgs: Vec<_> = recs
            .iter()
            .filter_map(|r| match r {
                Record::Message(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(msgs.len(), 6);
        for (i, m) in msgs.iter().enumerate() {
            assert_eq!(m.sequence, i as u32);
            let t = (100 + i as u64 / 2) * 1_000_000_000 + 5;
            assert_eq!((m.log_time, m.publish_time), (t, t));
        }
        assert_eq!(&*msgs[2].data, &1i32.to_le_bytes());
        assert_eq!(msgs[2].channel_id, 0);
        assert_eq!(&*msgs[3].data, b"\x02\0\0\0hi");
    }

    #[test]
    fn reports_progress_up_to_the_end() {
        let bag = sample(WriterOptions::default());
        let log = crate::open_bytes(&bag).unwrap();
        let mut seen = Vec::new();
        to_mcap(&log, Vec::new(), &ConvertOptions::default(), &mut |p| {
            seen.push(p)
        })
        .unwrap();
        let last = seen.last().copied().unwrap();
        assert_eq!(
            (last.bytes, last.total_bytes, last.messages),
            (bag.len() as u64, bag.len() as u64, 6)
        );
    }

    #[test]
    fn filters_by_topic_and_time() {
        let opts = ConvertOptions {
            topics: vec!["/text".into()],
            start: Some(Timestamp(101_000_000_000)),
            end: Some(Timestamp(102_000_000_000)),
            ..ConvertOptions::default()
        };
        let (mcap, stats) = convert(&sample(WriterOptions::default()), &opts);
        assert_eq!((stats.messages, stats.channels), (1, 1));
        let times: Vec<(u16, u64)> = records(&mcap)
            .iter()
            .filter_map(|r| match r {
                Record::Message(m) => Some((m.channel_id, m.log_time)),
                _ => None,
            })
            .collect();
        assert_eq!(times, [(1, 101_000_000_005)]);
    }

    #[test]
    fn round_trips_through_mcap() {
        for options in [
            WriterOptions::default(),
            WriterOptions::compressed(rosbag12::Compression::Bz2),
            WriterOptions::v1_2(),
        ] {
            let original = sample(options);
            let (mcap, _) = convert(&original, &ConvertOptions::default());
            let log = crate::open_bytes(&mcap).unwrap();
            let (back, stats) = to_bag(
                &log,
                Cursor::new(Vec::new()),
                &ConvertOptions::for_bag(),
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(stats.messages, 6);
            let back = back.into_inner();
            let (a, b) = (Bag::new(&original).unwrap(), Bag::new(&back).unwrap());
            assert_eq!(b.version(), Version::V2_0);
            for (x, y) in a.connections().iter().zip(b.connections()) {
                assert_eq!(
                    (&x.id, &x.topic, &x.type_name, &x.md5sum),
                    (&y.id, &y.topic, &y.type_name, &y.md5sum)
                );
                assert_eq!(x.message_definition, y.message_definition);
                assert_eq!((&x.callerid, x.latching), (&y.callerid, y.latching));
                let mut hx = x.header.clone();
                hx.sort();
                assert_eq!(hx, y.header);
            }
            let all = MessageFilter::all();
            let ma: Vec<_> = a.messages(&all).map(|m| m.unwrap()).collect();
            let mb: Vec<_> = b.messages(&all).map(|m| m.unwrap()).collect();
            assert_eq!(ma.len(), mb.len());
            for (x, y) in ma.iter().zip(&mb) {
                assert_eq!((x.conn, x.time, &*x.data), (y.conn, y.time, &*y.data));
            }
        }
    }

    #[test]
    fn damaged_bags_convert_what_is_readable() {
        let original = sample(WriterOptions::default());
        // Cut inside the index section: the bag is scanned; cut inside the
        // chunk: the complete messages before the cut are kept.
        let (_, stats) = convert(&original[..original.len() - 40], &ConvertOptions::default());
        assert_eq!(stats.messages, 6);
        assert!(!stats.warnings.is_empty());
        // One chunk per message: the cut falls after a few of them.
        let chunked = sample(WriterOptions {
            chunk_threshold: 1,
            ..WriterOptions::default()
        });
        let cut = &chunked[..4200 + (chunked.len() - 4200) / 3];
        let log = crate::open_bytes(cut).unwrap();
        let (mcap, stats) =
            to_mcap(&log, Vec::new(), &ConvertOptions::default(), &mut |_| {}).unwrap();
        assert!(!stats.skipped.is_empty(), "{stats:?}");
        assert!(stats.messages < 6);
        let n = records(&mcap)
            .iter()
            .filter(|r| matches!(r, Record::Message(_)))
            .count() as u64;
        assert_eq!(n, stats.messages);
    }

    #[test]
    fn refuses_channels_that_are_not_ros1() {
        let mut w = Writer::new(Vec::new(), mcapfile::WriteOptions::default()).unwrap();
        let s = w.add_schema("T", "jsonschema", b"{}").unwrap();
        let c = w.add_channel(s, "/j", "json", &BTreeMap::new()).unwrap();
        w.write_message(c, 0, 1, 1, b"{}").unwrap();
        let mcap = w.finish().unwrap();
        let log = crate::open_bytes(&mcap).unwrap();
        let err = to_bag(
            &log,
            Cursor::new(Vec::new()),
            &ConvertOptions::for_bag(),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("message encoding \"json\""),
            "{err}"
        );
        let err = to_bag(
            &log,
            Cursor::new(Vec::new()),
            &ConvertOptions::default(),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("zstd"), "{err}");
    }

    /// The md5sum of a definition nesting 70 types deep is computed only
    /// within a raised nesting limit.
    #[test]
    fn md5sum_follows_the_nesting_limit() {
        let mut text = String::from("p/T1 x\n");
        for i in 1..70 {
            let field = if i == 69 {
                "int32 v".to_string()
            } else {
                format!("p/T{} x", i + 1)
            };
            text.push_str(&format!("{}\nMSG: p/T{i}\n{field}\n", "=".repeat(80)));
        }
        let mut info = ChannelInfo::new(ChannelId(1), "/deep", "p/T0", "ros1");
        info.schema = Some(std::sync::Arc::new(logcore::Schema {
            name: "p/T0".into(),
            encoding: "ros1msg".into(),
            data: text.into_bytes(),
        }));
        let err = connection_of(&info, Limits::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("at most 64 levels deep"), "{err}");
        let c = connection_of(&info, Limits::default().with_max_nesting(70)).unwrap();
        assert_eq!(c.md5sum.len(), 32);
        assert!(connection_of(&info, Limits::default().with_max_nesting(69)).is_err());
    }

    #[test]
    fn md5sum_is_computed_when_metadata_lacks_it() {
        let mut info = ChannelInfo::new(ChannelId(3), "/n", "std_msgs/Int32", "ros1");
        info.schema = Some(std::sync::Arc::new(logcore::Schema {
            name: "std_msgs/Int32".into(),
            encoding: "ros1msg".into(),
            data: b"int32 data".to_vec(),
        }));
        let c = connection_of(&info, Limits::default()).unwrap();
        assert_eq!(c.md5sum, INT32);
        assert_eq!(c.topic, "/n");
        let names: Vec<&str> = c.header.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["md5sum", "message_definition", "type"]);
    }
}
