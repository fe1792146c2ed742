//! Rules on the file as a whole (indexing, chunks, CRCs, library) and on
//! its meta-data records (both profiles).

use super::*;

pub(super) fn file_rules(sink: &mut Sink, data: &[u8], scan: &Scan, summary: Option<&Summary>) {
    for f in doctor(data, DoctorOptions::default()) {
        let loc = Location::at(f.offset);
        match f.severity {
            Severity::Error => sink.add(rule::MCAP_STRUCTURE, loc, || f.message.clone()),
            // Profiles are judged by the OSI rule; log-time order by its own.
            Severity::Warning
                if f.message.contains("profile") || f.message.contains("log_time") => {}
            Severity::Warning => sink.add(rule::MCAP_NOTICE, loc, || f.message.clone()),
        }
    }
    if let Some((at, 0)) = scan.data_end_crc {
        sink.add(rule::MCAP_CRC, Location::at(at), || {
            "Data End data_section_crc is 0: the data section cannot be verified".into()
        });
    }
    if let Some(s) = summary
        && s.footer.summary_start != 0
        && s.footer.summary_crc == 0
    {
        let at = mcapfile::summary::footer_offset(data.len()).unwrap_or(0) as u64;
        sink.add(rule::MCAP_CRC, Location::at(at), || {
            "Footer summary_crc is 0: the summary section cannot be verified".into()
        });
    }
    if !scan.chunk_crc_zero.is_empty() {
        let n = scan.chunk_crc_zero.len();
        sink.add(rule::MCAP_CRC, Location::at(scan.chunk_crc_zero[0]), || {
            format!("{n} chunk(s) with uncompressed_crc 0 (first here)")
        });
    }
    if let Some((at, p)) = &scan.header_profile
        && (p == "ros1" || p == "ros2")
    {
        sink.add(rule::HEADER_PROFILE, Location::at(*at), || {
            format!("the Header profile {p:?} requires conventions that contradict OSI channels")
        });
    }
    let indexed = summary.is_some_and(|s| !s.chunk_indexes.is_empty());
    let has_messages = !scan.ranges.is_empty();
    if !indexed && (has_messages || !scan.compressions.is_empty()) {
        sink.add(rule::INDEXED, Location::default(), || {
            if summary.is_none() {
                "the file has no summary section (no Chunk Index records)".into()
            } else {
                "the summary section has no Chunk Index records".into()
            }
        });
    }
    // The draft asks for messages in chunks only of indexed files; OSI 3.8.0
    // requires an indexed file, so both reduce to: an indexed-looking file
    // (or any file under 3.8) keeps its messages in chunks.
    if indexed || sink.profile == Profile::Osi38 {
        for (at, ch) in &scan.outside_chunks {
            sink.add(rule::IN_CHUNKS, Location::at(*at), || {
                format!("a Message record of channel {ch} outside any chunk")
            });
        }
    }
    for (at, c) in &scan.compressions {
        if !["", "lz4", "zstd"].contains(&c.as_str()) {
            sink.add(rule::COMPRESSION, Location::at(*at), || {
                format!("chunk compression {c:?}; OSI allows none, lz4 and zstd")
            });
        }
    }
}

pub(super) fn records<'a>(scan: &'a Scan, name: &str) -> Vec<&'a (u64, Metadata)> {
    scan.metadata
        .iter()
        .filter(|(_, m)| m.name == name)
        .collect()
}

pub(super) fn metadata_38(sink: &mut Sink, scan: &Scan) {
    let trace = records(scan, TRACE_METADATA);
    match trace.len() {
        0 => sink.add(rule::TRACE_RECORD, Location::default(), || {
            format!("no Metadata record named {TRACE_METADATA}: the file does not identify itself as an OSI trace")
        }),
        1 => {}
        n => sink.add(rule::TRACE_RECORD, Location::at(trace[1].0), || {
            format!("{n} Metadata records named {TRACE_METADATA}; exactly one is allowed")
        }),
    }
    if let Some((at, m)) = trace.first() {
        for key in REQUIRED_TRACE_KEYS {
            match m.metadata.get(key) {
                None => sink.add(rule::TRACE_REQUIRED, Location::at(*at), || {
                    format!("{TRACE_METADATA} lacks the required key {key:?}")
                }),
                Some(v) if Semver::parse(v).is_none() => {
                    sink.add(rule::TRACE_SEMVER, Location::at(*at), || {
                        format!("{TRACE_METADATA} {key} = {v:?} is not a semantic version (major.minor.patch)")
                    })
                }
                Some(_) => {}
            }
        }
        let missing: Vec<&str> = RECOMMENDED_TRACE_KEYS
            .into_iter()
            .filter(|k| !m.metadata.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            sink.add(rule::TRACE_RECOMMENDED, Location::at(*at), || {
                format!(
                    "{TRACE_METADATA} lacks the recommended key(s) {}",
                    missing.join(", ")
                )
            });
        }
        for key in ["zero_time", "creation_time"] {
            if let Some(v) = m.metadata.get(key)
                && !is_date_time_stamp(v)
            {
                sink.add(rule::TRACE_DATE_TIME, Location::at(*at), || {
                    format!("{key} = {v:?} is not an ISO 8601 dateTimeStamp (like 2024-06-03T14:38:03.5Z)")
                });
            }
        }
        let sv = |k: &str| m.metadata.get(k).and_then(|v| Semver::parse(v));
        if let Some(v) = sv("version")
            && v.triple() < (3, 8, 0)
        {
            sink.add(rule::TRACE_VERSION, Location::at(*at), || {
                format!("version {v}: the multi-channel trace format was first published with OSI 3.8.0 (files written against drafts carry earlier numbers)")
            });
        }
        for (lo, hi) in [
            ("min_osi_version", "max_osi_version"),
            ("min_protobuf_version", "max_protobuf_version"),
        ] {
            if let (Some(a), Some(b)) = (sv(lo), sv(hi))
                && a > b
            {
                sink.add(rule::VERSION_RANGE, Location::at(*at), || {
                    format!("{lo} {a} is above {hi} {b}")
                });
            }
        }
    }
    for (at, m) in &scan.metadata {
        if m.name.starts_with("net.asam.osi") && m.name != TRACE_METADATA {
            sink.add(rule::RESERVED, Location::at(*at), || {
                format!(
                    "Metadata record {:?} uses the reserved prefix net.asam.osi",
                    m.name
                )
            });
        }
    }
    let legacy: Vec<&str> = [DRAFT_VERSIONS, DRAFT_ASAM_OSI]
        .into_iter()
        .filter(|n| !records(scan, n).is_empty())
        .collect();
    if !legacy.is_empty() {
        sink.add(rule::LEGACY_KEYS, Location::default(), || {
            format!(
                "the file also carries the draft's meta-data record(s) {}",
                legacy.join(", ")
            )
        });
    }
}

pub(super) fn metadata_draft(sink: &mut Sink, scan: &Scan) {
    let versions = records(scan, DRAFT_VERSIONS);
    match versions.first() {
        None => sink.add(rule::DRAFT_VERSIONS_RECORD, Location::default(), || {
            format!("no Metadata record named {DRAFT_VERSIONS}")
        }),
        Some((at, m)) => match m.metadata.get("osi") {
            None => sink.add(rule::DRAFT_VERSIONS_RECORD, Location::at(*at), || {
                format!("{DRAFT_VERSIONS} lacks the key \"osi\"")
            }),
            Some(v) if Semver::parse(v).is_none() => {
                sink.add(rule::DRAFT_VERSIONS_RECORD, Location::at(*at), || {
                    format!("{DRAFT_VERSIONS} osi = {v:?} is not a semantic version")
                })
            }
            Some(_) => {}
        },
    }
    let asam = records(scan, DRAFT_ASAM_OSI);
    match asam.first() {
        None => sink.add(rule::DRAFT_ASAM_OSI_RECORD, Location::default(), || {
            format!("no Metadata record named {DRAFT_ASAM_OSI}")
        }),
        Some((at, m)) => {
            for key in ["zero_time", "timestamp"] {
                match m.metadata.get(key) {
                    None => sink.add(rule::DRAFT_ASAM_OSI_RECORD, Location::at(*at), || {
                        format!("{DRAFT_ASAM_OSI} lacks the key {key:?}")
                    }),
                    Some(v) if !is_compact_date_time(v) => {
                        sink.add(rule::DRAFT_DATE_TIME, Location::at(*at), || {
                            format!("{DRAFT_ASAM_OSI} {key} = {v:?} is not YYYYMMDDThhmmss.f")
                        })
                    }
                    Some(_) => {}
                }
            }
            let missing: Vec<&str> = DRAFT_RECOMMENDED_KEYS
                .into_iter()
                .filter(|k| !m.metadata.contains_key(*k))
                .collect();
            if !missing.is_empty() {
                sink.add(rule::DRAFT_RECOMMENDED, Location::at(*at), || {
                    format!(
                        "{DRAFT_ASAM_OSI} lacks the recommended key(s) {}",
                        missing.join(", ")
                    )
                });
            }
        }
    }
}
