//! Conversions into a ROS 2 bag folder ([`Target::Rosbag2`](super::Target)): a rosbag2
//! bag of SQLite (`.db3`) or MCAP storage with a version 9
//! `metadata.yaml` (each topic's `message_count`, offered QoS profiles and
//! type hash), written by [`rosbag2::Bag2Writer`] into a temporary folder
//! beside the output and renamed into place only when complete.
//!
//! What goes in, by input:
//!
//! - **a ROS 1 bag**: mapped and re-encoded as CDR exactly as for ROS 2
//!   MCAP ([`ConvertOptions::ros2`], the
//!   `ros1to2` module's mapping fed into the bag through its `Sink`): one
//!   topic per name and ROS 2 type, type `pkg/msg/Type`, the `ros2msg`
//!   definition, offered QoS profiles `transient_local` for a latched
//!   topic and none for the others, as rosbags-convert writes them; the
//!   bag time as each message's timestamp. (Connections of one topic and
//!   type that differ in latching are one topic in a bag, with the first
//!   one's profiles.)
//! - **a ROS 2 bag**: copied into the chosen storage (SQLite to MCAP or
//!   back, or the same): every topic with its type, serialization format,
//!   definition (the bag's, else the bundled one the reader found), QoS
//!   profiles and type hash; every message's timestamp and bytes
//!   unchanged (decompressed where the input compresses each message).
//! - **a ROS 2 MCAP file**: its channels as topics (type from the schema
//!   name, the `ros2msg`/`ros2idl` schema as definition, the
//!   `offered_qos_profiles` and type hash metadata), payloads unchanged,
//!   the log time as timestamp. A channel of another message encoding
//!   than `cdr` is refused, naming it (leave it out with the topic
//!   filter).
//!
//! Any other input is refused before anything is written. The topic and
//! time filters of [`ConvertOptions`] apply; its
//! chunk options do not (the MCAP storage compresses its chunks with zstd
//! as rosbag2 does, unless the whole file is compressed).
//!
//! Safety: an output that exists is refused unless forced, and then
//! replaced only when it is an empty folder or a ROS 2 bag folder holding
//! nothing but its bag (any other file, a subfolder or a metadata that does
//! not parse is refused before anything is written, naming it), once the
//! new bag is complete; an output that is the input, or a folder holding
//! it, is always refused.

use std::path::Path;

use logcore::Error;

use super::{ConvertFileError, ConvertOptions, ConvertStats, Progress, Storage};
use crate::Log;
use crate::write::{OutputPolicy, Refusal};

/// A ROS 2 bag folder to write, and the rules it is written under.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Folder<'p> {
    /// The input file or folder, which the output must not be or hold.
    pub(crate) input: &'p Path,
    /// The bag folder to create.
    pub(crate) output: &'p Path,
    /// The storage plugin.
    #[cfg_attr(not(feature = "rosbag2"), allow(dead_code))]
    pub(crate) storage: Storage,
    /// zstd-compress the storage file once complete.
    #[cfg_attr(not(feature = "rosbag2"), allow(dead_code))]
    pub(crate) zstd: bool,
    /// Replace an existing bag folder.
    pub(crate) force: bool,
    /// The message selection of a filter.
    #[cfg_attr(not(feature = "rosbag2"), allow(dead_code))]
    pub(crate) filter: Option<&'p super::select::Filter>,
}

impl Folder<'_> {
    /// Converts `log` into the folder (see the module docs).
    pub(crate) fn write(
        &self,
        log: &Log<'_>,
        opts: &ConvertOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<ConvertStats, ConvertFileError> {
        self.check()?;
        self.write_merged(&[log], opts, progress)
    }

    /// Converts `logs`, merged by time, into the folder; the caller has
    /// run [`Folder::check`] for each input.
    pub(crate) fn write_merged(
        &self,
        logs: &[&Log<'_>],
        opts: &ConvertOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<ConvertStats, ConvertFileError> {
        #[cfg(feature = "rosbag2")]
        {
            bag2::write(self, logs, opts, progress)
        }
        #[cfg(not(feature = "rosbag2"))]
        {
            let _ = (logs, opts, progress);
            Err(ConvertFileError::Convert(Error::unsupported(
                0,
                "a ROS 2 bag output",
                "this build leaves out the `rosbag2` feature of the robolog library",
            )))
        }
    }

    /// Refuses an output that is the input, a folder holding the input,
    /// one that exists (without force), or (with force) one that is not
    /// an empty folder or a ROS 2 bag folder holding nothing else
    /// ([`rosbag2::write::check_replaceable`], the rule the writer
    /// applies again before it replaces the folder).
    pub(crate) fn check(&self) -> Result<(), ConvertFileError> {
        let policy = OutputPolicy::new(self.force).reading(self.input);
        policy
            .check(self.output)
            .map_err(ConvertFileError::Refused)?;
        #[cfg(feature = "rosbag2")]
        if std::fs::symlink_metadata(self.output).is_ok()
            && let Err(e) = rosbag2::write::check_replaceable(self.output)
        {
            return Err(ConvertFileError::Refused(Refusal::NotABag {
                output: self.output.to_path_buf(),
                reason: e.to_string(),
            }));
        }
        if let (Ok(input), Ok(output)) = (self.input.canonicalize(), self.output.canonicalize())
            && input.starts_with(&output)
        {
            return Err(ConvertFileError::Refused(Refusal::SameFile {
                output: self.output.to_path_buf(),
                input: self.input.to_path_buf(),
            }));
        }
        Ok(())
    }
}

/// A conversion's error as [`convert_file`](super::convert_file) reports
/// it: I/O errors (the output's) apart from what the input's bytes caused.
#[cfg_attr(not(feature = "rosbag2"), allow(dead_code))]
fn file_error(e: Error) -> ConvertFileError {
    match e {
        Error::Io(e) => ConvertFileError::Io(std::io::Error::new(e.kind(), e.to_string())),
        e => ConvertFileError::Convert(e),
    }
}

#[cfg(feature = "rosbag2")]
mod bag2 {
    use std::collections::{HashMap, HashSet};

    use logcore::{ChannelId, Error, Format, LogReader};
    use rosbag2::metadata::parse_qos_text;
    use rosbag2::{
        Bag2Writer, CompressionMode, StorageId, TopicDefinition, TopicSpec, WriteOptions,
    };

    use super::{ConvertFileError, ConvertOptions, ConvertStats, Folder, Progress, file_error};
    use crate::Log;
    use crate::convert::{Context, Storage};

    /// What [`Folder::write`] does with the `rosbag2` feature.
    pub(super) fn write(
        folder: &Folder<'_>,
        logs: &[&Log<'_>],
        opts: &ConvertOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<ConvertStats, ConvertFileError> {
        let mut ros1 = false;
        for log in logs {
            ros1 = match log.format() {
                Format::RosBag => true,
                Format::Rosbag2 | Format::Mcap => false,
                _ => {
                    return Err(ConvertFileError::Convert(crate::convert::not_a(
                        "a ROS 1 bag, a ROS 2 bag or a ROS 2 MCAP file",
                        log,
                    )));
                }
            };
        }
        let storage = match folder.storage {
            Storage::Sqlite3 => StorageId::Sqlite3,
            Storage::Mcap => StorageId::Mcap,
        };
        let compression = if folder.zstd {
            CompressionMode::File
        } else {
            CompressionMode::None
        };
        let options = WriteOptions::new(storage)
            .with_compression(compression)
            .with_overwrite(folder.force);
        let mut w =
            Bag2Writer::create(folder.output, options).map_err(|e| file_error(Error::from(e)))?;
        // Removed by the command's Ctrl-C and kill handling, as temporary
        // files are.
        let _listed =
            crate::write::TemporaryFolder::watch(w.temp_path()).map_err(ConvertFileError::Io)?;
        let mut cx = Context::of_logs(logs, opts, progress);
        if let Some(f) = folder.filter {
            cx.selecting = Some(
                crate::convert::select::Selecting::new(logs, opts, f)
                    .map_err(file_error)?
                    .spilling_into(folder.output),
            );
        }
        let written = if ros1 {
            from_ros1(logs, &mut w, &mut cx)
        } else {
            copy(logs, &mut w, &mut cx)
        };
        // On error the writer, dropped, removes its temporary folder.
        written.map_err(file_error)?;
        w.finish().map_err(|e| file_error(Error::from(e)))?;
        cx.report(cx.total_bytes);
        Ok(cx.stats)
    }

    /// A ROS 1 bag through the ROS 2 mapping.
    #[cfg(all(feature = "rosbag", feature = "ros2"))]
    fn from_ros1(logs: &[&Log<'_>], w: &mut Bag2Writer, cx: &mut Context<'_>) -> Result<(), Error> {
        use crate::convert::ros1to2::{LATCHED_QOS, Ros2Topic, Sink, write_into};

        /// The ROS 1 mapping's topics and messages into the bag.
        struct Bag2Sink<'w> {
            w: &'w mut Bag2Writer,
            latched: Vec<rosbag2::QosProfile>,
        }

        impl Sink for Bag2Sink<'_> {
            fn topic(&mut self, t: &Ros2Topic<'_>) -> Result<u32, Error> {
                let mut spec = TopicSpec::new(t.name, t.type_name);
                spec.definition = TopicDefinition::msg(t.definition);
                if t.latched {
                    spec.qos = self.latched.clone();
                }
                Ok(self.w.add_topic_with(spec)?)
            }

            fn write(&mut self, id: u32, time: u64, data: &[u8]) -> Result<(), Error> {
                let time = i64::try_from(time).unwrap_or(i64::MAX);
                Ok(self.w.write(id, time, data)?)
            }
        }

        let latched = parse_qos_text(LATCHED_QOS, "offered_qos_profiles")
            .map_err(|e| Error::invalid_argument(e.to_string()))?;
        write_into(logs, &mut Bag2Sink { w, latched }, cx)
    }

    /// Without the ROS 1 to ROS 2 mapping in the build.
    #[cfg(not(all(feature = "rosbag", feature = "ros2")))]
    fn from_ros1(_: &[&Log<'_>], _: &mut Bag2Writer, _: &mut Context<'_>) -> Result<(), Error> {
        Err(Error::unsupported(
            0,
            "a ROS 2 bag of a ROS 1 bag",
            "this build leaves out the `rosbag` or `ros2` feature of the robolog library",
        ))
    }

    /// ROS 2 bags or ROS 2 MCAP files: topics and payloads as they are,
    /// the messages of several merged by time (a topic of the same name,
    /// type and serialization format in several is one topic).
    fn copy(logs: &[&Log<'_>], w: &mut Bag2Writer, cx: &mut Context<'_>) -> Result<(), Error> {
        let mcap = w.storage() == StorageId::Mcap;
        let mut topics = HashSet::new();
        // Per log: channel -> topic id.
        let mut ids: Vec<HashMap<ChannelId, u32>> = Vec::with_capacity(logs.len());
        for log in logs {
            ids.push(copy_topics(log, w, cx, &mut topics)?);
        }
        let mut streams = Vec::with_capacity(logs.len());
        for (log, mine) in logs.iter().zip(&ids) {
            let filter = cx.lenient_filter().channels(mine.keys().copied());
            streams.push(log.messages_releasing(&filter)?);
        }
        // Progress by the input offset where the reader gives one (MCAP),
        // else by the payload bytes read (a bag's rows have no offsets).
        let mut read = vec![0u64; logs.len()];
        let sizes: Vec<u64> = logs.iter().map(|l| l.size()).collect();
        cx.each_message_merged(streams, |cx, i, m| {
            let Some(&id) = ids[i].get(&m.channel) else {
                return Ok(());
            };
            if mcap {
                // The rule and the error of every MCAP output.
                crate::convert::mcap_time(logs[i], &m)?;
            }
            w.write(id, m.log_time.as_nanos(), &m.payload)?;
            cx.stats.messages += 1;
            read[i] += m.payload.len() as u64;
            cx.tick_at(i, m.offset.unwrap_or(read[i]).min(sizes[i]));
            Ok(())
        })
    }

    /// Declares the kept topics of `log` (counting the new ones in
    /// `topics`), and returns its channel -> topic id map.
    fn copy_topics(
        log: &Log<'_>,
        w: &mut Bag2Writer,
        cx: &mut Context<'_>,
        topics: &mut HashSet<u32>,
    ) -> Result<HashMap<ChannelId, u32>, Error> {
        let mcap = log.format() == Format::Mcap;
        if let Some(bag) = log.as_rosbag2() {
            for n in bag.notices() {
                cx.stats.warnings.push(match &n.topic {
                    Some(t) => format!("{t}: {}", n.text),
                    None => n.text.clone(),
                });
            }
        }
        let mut ids: HashMap<ChannelId, u32> = HashMap::new();
        for c in log.channels()? {
            if !cx.keep_topic(&c.topic) {
                continue;
            }
            let refuse = |why: String| {
                Error::unsupported(
                    0,
                    format!("channel {} ({})", c.id, c.topic),
                    format!(
                        "{why}; only ROS 2 channels (encoding cdr, with a message type) go \
                         into a ROS 2 bag: leave it out with a topic filter"
                    ),
                )
            };
            if mcap && c.message_encoding != "cdr" {
                return Err(refuse(format!("message encoding {:?}", c.message_encoding)));
            }
            if c.type_name.is_empty() {
                return Err(refuse("no message type (no schema)".into()));
            }
            let mut spec = TopicSpec::new(cx.out_topic(&c.topic), &c.type_name);
            spec.serialization_format = c.message_encoding.clone();
            if let Some(s) = &c.schema
                && matches!(s.encoding.as_str(), "ros2msg" | "ros2idl")
            {
                spec.definition = TopicDefinition {
                    encoding: s.encoding.clone(),
                    text: String::from_utf8_lossy(&s.data).into_owned(),
                };
            }
            if let Some(text) = c.metadata.get("offered_qos_profiles")
                && !text.trim().is_empty()
            {
                match parse_qos_text(text, "offered_qos_profiles") {
                    Ok(q) => spec.qos = q,
                    Err(e) => cx
                        .stats
                        .warnings
                        .push(format!("{}: offered QoS profiles left out: {e}", c.topic)),
                }
            }
            if let Some(h) = c
                .metadata
                .get("type_description_hash")
                .or_else(|| c.metadata.get("topic_type_hash"))
            {
                spec.type_description_hash = h.clone();
            }
            let id = w.add_topic_with(spec)?;
            if topics.insert(id) {
                cx.stats.channels += 1;
            }
            ids.insert(c.id, id);
        }
        Ok(ids)
    }
}
