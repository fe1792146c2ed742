//! The writer: bag 2.0 following ROS's layout rules (spec 2.10), and 1.2
//! as the seed describes it (spec 3).
//!
//! 2.0: the version line and a padded bag header (index_pos 0) are written
//! first; messages collect in an in-memory chunk (with the connection
//! record of each connection before its first message) until the chunk's
//! uncompressed size exceeds the threshold (768 KiB by default, as ROS);
//! then the chunk is compressed and written with its index data records
//! (ascending connection id, as the C++ writer). [`Writer::finish`] writes
//! the index section (connections in id order, chunk infos in file order)
//! and rewrites the bag header in place. Until then the file is a valid
//! unindexed bag up to its last complete chunk, which [`crate::Bag`]
//! reads by scanning.
//!
//! 1.2: version line, padded file header, then per message an optional
//! definition record (first message of each topic; its index entry points
//! at the definition, spec 3.3) and a data record; `finish` appends one
//! index data record (version 0) per topic and rewrites the header.
//!
//! Record header fields are written sorted by name, as ROS's C++ writer
//! does. Any message time is accepted (ROS's C++ writer refuses times
//! below 0.000000001 s; we read and write them unchanged).

use logcore::FormatError;
use std::collections::BTreeMap;
use std::io::{Seek, SeekFrom, Write};

use crate::compression::compress;
use crate::error::{Error, Result};
use crate::record::{encode_header, encode_record};
use crate::records::{BAG_HEADER_RECORD_LEN, ChunkInfo, Compression, Connection, op};
use crate::time::RosTime;
use crate::version::Version;

/// ROS's default chunk threshold (uncompressed bytes).
pub const DEFAULT_CHUNK_THRESHOLD: usize = 768 * 1024;

/// How a [`Writer`] lays out the bag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterOptions {
    /// Format version: [`Version::V2_0`] (default) or [`Version::V1_2`].
    pub version: Version,
    /// Chunk compression (2.0 only).
    pub compression: Compression,
    /// A chunk is closed once its uncompressed payload exceeds this.
    pub chunk_threshold: usize,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            version: Version::V2_0,
            compression: Compression::None,
            chunk_threshold: DEFAULT_CHUNK_THRESHOLD,
        }
    }
}

impl WriterOptions {
    /// 2.0 with `compression`.
    pub fn compressed(compression: Compression) -> Self {
        WriterOptions {
            compression,
            ..Self::default()
        }
    }

    /// Version 1.2.
    pub fn v1_2() -> Self {
        WriterOptions {
            version: Version::V1_2,
            ..Self::default()
        }
    }
}

#[derive(Default)]
struct OpenChunk {
    payload: Vec<u8>,
    index: BTreeMap<u32, Vec<(RosTime, u32)>>,
    start: Option<RosTime>,
    end: RosTime,
}

/// Writes a bag. See the [module docs](self) for the layout.
///
/// ```
/// use std::io::Cursor;
/// use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};
/// let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::compressed(Compression::Lz4))?;
/// let c = w.add_connection(Connection::new(0, "/chatter", "std_msgs/String",
///     "992ce8a1687cec8c8bd883ec73ca41d1", "string data"))?;
/// w.write(c, RosTime { sec: 10, nsec: 0 }, b"\x02\0\0\0hi")?;
/// w.finish()?;
/// let bytes = w.into_inner().into_inner();
/// let bag = Bag::new(&bytes)?;
/// assert_eq!(bag.message_count(), 1);
/// # Ok::<(), rosbag12::Error>(())
/// ```
pub struct Writer<W: Write + Seek> {
    out: W,
    pos: u64,
    options: WriterOptions,
    connections: Vec<Connection>,
    announced: Vec<bool>,
    chunk: OpenChunk,
    chunk_infos: Vec<ChunkInfo>,
    v12_index: BTreeMap<u32, Vec<(RosTime, u64)>>,
    finished: bool,
}

impl<W: Write + Seek> Writer<W> {
    /// Starts a bag: writes the version line and the bag header.
    pub fn new(mut out: W, options: WriterOptions) -> Result<Self> {
        if options.version != Version::V2_0 && options.version != Version::V1_2 {
            return Err(Error::invalid_argument(format!(
                "cannot write bag version {}; 2.0 and 1.2 are supported",
                options.version
            )));
        }
        if options.version == Version::V1_2 && options.compression != Compression::None {
            return Err(Error::invalid_argument("1.2 bags have no compression"));
        }
        let magic = options.version.magic();
        out.write_all(magic.as_bytes())?;
        let mut w = Writer {
            out,
            pos: magic.len() as u64,
            options,
            connections: Vec::new(),
            announced: Vec::new(),
            chunk: OpenChunk::default(),
            chunk_infos: Vec::new(),
            v12_index: BTreeMap::new(),
            finished: false,
        };
        let header = w.bag_header(0);
        w.emit(&header)?;
        Ok(w)
    }

    fn bag_header(&self, index_pos: u64) -> Vec<u8> {
        let ip = index_pos.to_le_bytes();
        let cc = (self.connections.len() as u32).to_le_bytes();
        let kc = (self.chunk_infos.len() as u32).to_le_bytes();
        let fields: Vec<(&str, &[u8])> = if self.options.version == Version::V2_0 {
            vec![
                ("chunk_count", &kc),
                ("conn_count", &cc),
                ("index_pos", &ip),
                ("op", &[op::BAG_HEADER]),
            ]
        } else {
            vec![("index_pos", &ip), ("op", &[op::BAG_HEADER])]
        };
        let header = encode_header(&fields);
        let pad = (BAG_HEADER_RECORD_LEN - 8).saturating_sub(header.len());
        encode_record(&fields, &vec![b' '; pad])
    }

    fn emit(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes)?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    /// Declares a connection and returns its id (ids are 0, 1, 2, … in
    /// order of declaration; the id in `conn` is ignored). In 1.2, a topic
    /// declared twice keeps its first id.
    pub fn add_connection(&mut self, mut conn: Connection) -> Result<u32> {
        if self.finished {
            return Err(Error::invalid_argument("the bag is finished"));
        }
        if self.options.version == Version::V1_2 {
            if let Some(c) = self.connections.iter().find(|c| c.topic == conn.topic) {
                return Ok(c.id);
            }
        }
        let id = self.connections.len() as u32;
        conn.id = id;
        self.connections.push(conn);
        self.announced.push(false);
        Ok(id)
    }

    /// Appends a message of connection `conn` at `time`.
    pub fn write(&mut self, conn: u32, time: RosTime, data: &[u8]) -> Result<()> {
        if self.finished {
            return Err(Error::invalid_argument("the bag is finished"));
        }
        let i = conn as usize;
        if i >= self.connections.len() {
            return Err(Error::invalid_argument(format!(
                "connection {conn} was not declared with add_connection"
            )));
        }
        if data.len() > u32::MAX as usize {
            return Err(Error::invalid_argument("a message over 4 GiB"));
        }
        if self.options.version == Version::V1_2 {
            return self.write_v12(i, time, data);
        }
        let c = &mut self.chunk;
        if !self.announced[i] {
            self.announced[i] = true;
            let rec = connection_record(&self.connections[i]);
            c.payload.extend_from_slice(&rec);
        }
        c.index
            .entry(conn)
            .or_default()
            .push((time, c.payload.len() as u32));
        let t = time.to_le_bytes();
        let rec = encode_record(
            &[
                ("conn", &conn.to_le_bytes()),
                ("op", &[op::MSG_DATA]),
                ("time", &t),
            ],
            data,
        );
        c.payload.extend_from_slice(&rec);
        c.start = Some(c.start.map_or(time, |s| s.min(time)));
        c.end = c.end.max(time);
        if c.payload.len() > self.options.chunk_threshold {
            self.close_chunk()?;
        }
        Ok(())
    }

    fn write_v12(&mut self, i: usize, time: RosTime, data: &[u8]) -> Result<()> {
        let c = &self.connections[i];
        let (topic, ty, md5) = (
            c.topic.as_bytes(),
            c.type_name.as_bytes(),
            c.md5sum.as_bytes(),
        );
        let mut bytes = Vec::new();
        if !self.announced[i] {
            bytes = encode_record(
                &[
                    ("def", c.message_definition.as_bytes()),
                    ("md5", md5),
                    ("op", &[op::MSG_DEF]),
                    ("topic", topic),
                    ("type", ty),
                ],
                &[],
            );
        }
        let (sec, nsec) = (time.sec.to_le_bytes(), time.nsec.to_le_bytes());
        let mut fields: Vec<(&str, &[u8])> = Vec::new();
        if let Some(cid) = &c.callerid {
            fields.push(("callerid", cid.as_bytes()));
        }
        if c.latching {
            fields.push(("latching", b"1"));
        }
        fields.extend([
            ("md5", md5),
            ("nsec", &nsec[..]),
            ("op", &[op::MSG_DATA][..]),
            ("sec", &sec[..]),
            ("topic", topic),
            ("type", ty),
        ]);
        bytes.extend(encode_record(&fields, data));
        self.announced[i] = true;
        self.v12_index
            .entry(i as u32)
            .or_default()
            .push((time, self.pos));
        self.emit(&bytes)
    }

    fn close_chunk(&mut self) -> Result<()> {
        let chunk = std::mem::take(&mut self.chunk);
        let Some(start) = chunk.start else {
            return Ok(());
        };
        let compression = self.options.compression;
        let data = compress(compression, &chunk.payload)?;
        let chunk_pos = self.pos;
        let size = (chunk.payload.len() as u32).to_le_bytes();
        let mut bytes = encode_record(
            &[
                ("compression", compression.name().as_bytes()),
                ("op", &[op::CHUNK]),
                ("size", &size),
            ],
            &data,
        );
        let mut counts = Vec::new();
        for (conn, entries) in &chunk.index {
            let mut sorted = entries.clone();
            sorted.sort();
            let mut d = Vec::with_capacity(sorted.len() * 12);
            for (t, off) in &sorted {
                d.extend_from_slice(&t.to_le_bytes());
                d.extend_from_slice(&off.to_le_bytes());
            }
            bytes.extend(encode_record(
                &[
                    ("conn", &conn.to_le_bytes()),
                    ("count", &(sorted.len() as u32).to_le_bytes()),
                    ("op", &[op::INDEX_DATA]),
                    ("ver", &1u32.to_le_bytes()),
                ],
                &d,
            ));
            counts.push((*conn, sorted.len() as u32));
        }
        self.emit(&bytes)?;
        self.chunk_infos.push(ChunkInfo {
            chunk_pos,
            start_time: start,
            end_time: chunk.end,
            counts,
        });
        Ok(())
    }

    /// Writes the index section and rewrites the bag header. The writer
    /// accepts nothing after this.
    pub fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        if self.options.version == Version::V2_0 {
            self.close_chunk()?;
        }
        let index_pos = self.pos;
        let mut bytes = Vec::new();
        if self.options.version == Version::V2_0 {
            for c in &self.connections {
                bytes.extend(connection_record(c));
            }
            for info in &self.chunk_infos {
                let mut d = Vec::with_capacity(info.counts.len() * 8);
                for (c, n) in &info.counts {
                    d.extend_from_slice(&c.to_le_bytes());
                    d.extend_from_slice(&n.to_le_bytes());
                }
                bytes.extend(encode_record(
                    &[
                        ("chunk_pos", &info.chunk_pos.to_le_bytes()),
                        ("count", &(info.counts.len() as u32).to_le_bytes()),
                        ("end_time", &info.end_time.to_le_bytes()),
                        ("op", &[op::CHUNK_INFO]),
                        ("start_time", &info.start_time.to_le_bytes()),
                        ("ver", &1u32.to_le_bytes()),
                    ],
                    &d,
                ));
            }
        } else {
            for (conn, entries) in &self.v12_index {
                let c = &self.connections[*conn as usize];
                let mut d = Vec::with_capacity(entries.len() * 16);
                for (t, pos) in entries {
                    d.extend_from_slice(&t.to_le_bytes());
                    d.extend_from_slice(&pos.to_le_bytes());
                }
                bytes.extend(encode_record(
                    &[
                        ("count", &(entries.len() as u32).to_le_bytes()),
                        ("op", &[op::INDEX_DATA]),
                        ("topic", c.topic.as_bytes()),
                        ("type", c.type_name.as_bytes()),
                        ("ver", &0u32.to_le_bytes()),
                    ],
                    &d,
                ));
            }
        }
        self.emit(&bytes)?;
        let header = self.bag_header(index_pos);
        let magic_len = self.options.version.magic().len() as u64;
        self.out.seek(SeekFrom::Start(magic_len))?;
        self.out.write_all(&header)?;
        self.out.seek(SeekFrom::Start(self.pos))?;
        self.out.flush()?;
        self.finished = true;
        Ok(())
    }

    /// The sink (call [`Writer::finish`] first for a complete bag).
    pub fn into_inner(self) -> W {
        self.out
    }
}

pub(crate) fn connection_record(c: &Connection) -> Vec<u8> {
    let fields: Vec<(&str, &[u8])> = c
        .header
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_slice()))
        .collect();
    let data = encode_header(&fields);
    encode_record(
        &[
            ("conn", &c.id.to_le_bytes()),
            ("op", &[op::CONNECTION]),
            ("topic", c.topic.as_bytes()),
        ],
        &data,
    )
}
