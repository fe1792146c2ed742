//! The record/chunk pass: schemas, channels, meta-data and chunk facts of
//! the whole file, with the message checks run on the way.

use super::*;

pub(super) struct SchemaRec {
    pub(super) offset: u64,
    pub(super) name: String,
    pub(super) encoding: String,
    pub(super) data: Vec<u8>,
}

pub(super) struct ChannelRec {
    pub(super) offset: u64,
    pub(super) channel: Channel,
}

/// What the scan learns of an OSI channel while reading its messages.
pub(super) struct ChannelState {
    /// `None` when the schema is not usable (reported at the schema).
    pub(super) top: Option<TopLevel>,
    pub(super) expected_version: Option<Semver>,
    pub(super) count: u64,
    pub(super) first: Option<u64>,
    pub(super) last: Option<u64>,
}

/// Everything read from the file.
#[derive(Default)]
pub(super) struct Scan {
    pub(super) header_profile: Option<(u64, String)>,
    pub(super) schemas: BTreeMap<u16, SchemaRec>,
    pub(super) channels: BTreeMap<u16, ChannelRec>,
    pub(super) metadata: Vec<(u64, Metadata)>,
    pub(super) data_end_crc: Option<(u64, u32)>,
    pub(super) chunk_crc_zero: Vec<u64>,
    pub(super) compressions: Vec<(u64, String)>,
    pub(super) outside_chunks: Vec<(u64, u16)>,
    /// Ranges of log times per channel (all channels).
    pub(super) ranges: BTreeMap<u16, (u64, u64)>,
    pub(super) last_log_time: Option<u64>,
}

/// What [`scan`] found.
pub(super) struct Pass {
    pub(super) summary: Option<Summary>,
    pub(super) scan: Scan,
    pub(super) states: BTreeMap<u16, ChannelState>,
    pub(super) descriptors: HashMap<u16, Result<Descriptors, String>>,
    pub(super) message_findings: Vec<(&'static str, Location, String)>,
    pub(super) messages_checked: u64,
}

/// The one pass over the records (chunks decompressed, their records
/// read in place): what the rules need, and the message findings.
pub(super) fn scan(data: &[u8]) -> Pass {
    let summary = Summary::read(data, true).ok().flatten();
    let mut scan = Scan::default();
    let mut states: BTreeMap<u16, ChannelState> = BTreeMap::new();
    let mut descriptors: HashMap<u16, Result<Descriptors, String>> = HashMap::new();
    let mut message_findings: Vec<(&'static str, Location, String)> = Vec::new();
    let mut messages_checked = 0u64;

    // Profile: needs the metadata, which may be anywhere in the data section;
    // the message checks are collected first and filtered afterwards.
    let opts = ReadOptions {
        mode: ReadMode::Lenient,
        flatten_chunks: false,
        validate_crcs: false,
        ..ReadOptions::default()
    };
    let summary_start = summary
        .as_ref()
        .map(|s| s.footer.summary_start)
        .filter(|&s| s != 0)
        .unwrap_or(u64::MAX);
    let mut lin = LinearReader::with_options(data, opts);
    {
        let mut ctx = MessageCtx {
            scan: &mut scan,
            states: &mut states,
            descriptors: &mut descriptors,
            out: &mut message_findings,
            checked: &mut messages_checked,
            summary: summary.as_ref(),
        };
        while let Some(r) = lin.next() {
            // A program embedding the check may stop it here.
            logcore::interrupt::check();
            let at = lin.last_offset();
            let Ok(r) = r else { continue };
            match r {
                Record::Header(h) => ctx.scan.header_profile = Some((at, h.profile)),
                Record::Schema(s) if at < summary_start => {
                    ctx.scan.schemas.entry(s.id).or_insert(SchemaRec {
                        offset: at,
                        name: s.name,
                        encoding: s.encoding,
                        data: s.data.to_vec(),
                    });
                }
                Record::Channel(c) if at < summary_start => {
                    ctx.scan.channels.entry(c.id).or_insert(ChannelRec {
                        offset: at,
                        channel: c,
                    });
                }
                Record::Message(m) => {
                    ctx.scan.outside_chunks.push((at, m.channel_id));
                    ctx.message(at, &m);
                }
                Record::Chunk(c) => {
                    ctx.scan.compressions.push((at, c.compression.clone()));
                    if c.uncompressed_crc == 0 {
                        ctx.scan.chunk_crc_zero.push(at);
                    }
                    let Ok(records) = decompress(&c, at, false, DEFAULT_MAX_CHUNK_SIZE) else {
                        continue;
                    };
                    let base = match records {
                        ChunkRecords::Borrowed(_) => at + 9 + 40 + c.compression.len() as u64,
                        ChunkRecords::Shared(_) => 0,
                    };
                    let n = records.as_slice().len();
                    let mut p = 0;
                    while p < n {
                        let (r, adv) = read_inner(&records, p, base);
                        match r {
                            Ok(Record::Schema(s)) => {
                                ctx.scan.schemas.entry(s.id).or_insert(SchemaRec {
                                    offset: at,
                                    name: s.name,
                                    encoding: s.encoding,
                                    data: s.data.to_vec(),
                                });
                            }
                            Ok(Record::Channel(ch)) => {
                                ctx.scan.channels.entry(ch.id).or_insert(ChannelRec {
                                    offset: at,
                                    channel: ch,
                                });
                            }
                            Ok(Record::Message(m)) => ctx.message(at, &m),
                            Ok(_) => {}
                            Err(_) => break,
                        }
                        if adv == 0 {
                            break;
                        }
                        p += adv;
                    }
                }
                Record::Metadata(m) => ctx.scan.metadata.push((at, m)),
                Record::DataEnd(d) => ctx.scan.data_end_crc = Some((at, d.data_section_crc)),
                _ => {}
            }
        }
    }
    // Channels and schemas known only from the summary.
    if let Some(s) = &summary {
        for (id, sc) in &s.schemas {
            scan.schemas.entry(*id).or_insert(SchemaRec {
                offset: summary_start,
                name: sc.name.clone(),
                encoding: sc.encoding.clone(),
                data: sc.data.to_vec(),
            });
        }
        for (id, c) in &s.channels {
            scan.channels.entry(*id).or_insert(ChannelRec {
                offset: summary_start,
                channel: c.clone(),
            });
        }
    }
    Pass {
        summary,
        scan,
        states,
        descriptors,
        message_findings,
        messages_checked,
    }
}
