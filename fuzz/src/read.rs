//! One function per format: reads bytes every way the format's crate
//! offers. Each returns normally for any input.

use carla_recorder::report::{ReportOptions, actors_blocked, collisions, file_info};
use carla_recorder::{Layout, Recording, Timeline, packet_value, rewrite};
use logcore::{ChannelId, LogReader, MessageFilter, ReadMode, Timestamp};
use mcapfile::{
    IndexFilter, IndexedMessages, LinearReader, Mcap, ReadOptions, Summary, WriteOptions, recover,
};
use osi_mcap::proto::{Descriptors, TOP_LEVEL_TYPES, TopLevel};
use osi_mcap::validate::{Profile, ValidateOptions};
use robolog::LenientDecoder;
use rosbag12::Bag;
use ulogfile::{ULog, pyulog};
use vellog::VelLog;

/// Reads arbitrary bytes as a VEL log every way the crate offers: summary,
/// strict and lenient iteration (typed and through logcore), time-filtered
/// iteration through the index, and decoding of every message. Any panic,
/// endless loop or huge allocation is a finding.
pub fn vellog(data: &[u8]) {
    let Ok(log) = VelLog::new(data) else {
        return;
    };
    let _ = log.summary();
    let _ = log.index_check();
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for rec in log.records_with(mode).flatten() {
            let _ = rec.decode();
            let _ = rec.timestamp();
        }
        let Ok(messages) = log.messages(&MessageFilter::all().mode(mode)) else {
            continue;
        };
        for m in messages.flatten() {
            let _ = log.decode(&m);
        }
    }
    // A seek through the index, compared with a plain filter.
    if let Some(t0) = log.first_timestamp_ms()
        && let Some(start) = Timestamp::from_millis_f64(t0 + 1500.0)
    {
        let filter = MessageFilter::all().start(start).mode(ReadMode::Lenient);
        let seeked = log.messages(&filter).map(|it| it.flatten().count());
        let _ = seeked;
    }
}

/// Reads arbitrary bytes as an MCAP file every way the crate offers:
/// strict and lenient streamed reading (flattened and raw chunks), the
/// summary and the indexed reader with and without a filter, the logcore
/// reader with decoding, and recovery. Any panic, endless loop or huge
/// allocation is a finding.
pub fn mcap(data: &[u8]) {
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for flatten in [true, false] {
            let opts = ReadOptions {
                mode,
                flatten_chunks: flatten,
                limits: mcapfile::Limits::default().with_max_chunk_size(1 << 24),
                ..ReadOptions::default()
            };
            for _ in LinearReader::with_options(data, opts) {}
        }
    }
    if let Ok(Some(s)) = Summary::read(data, false) {
        let opts = ReadOptions {
            mode: ReadMode::Lenient,
            limits: mcapfile::Limits::default().with_max_chunk_size(1 << 24),
            ..ReadOptions::default()
        };
        for _ in IndexedMessages::new(data, &s, IndexFilter::default(), opts) {}
        let f = IndexFilter {
            channels: Some([0, 1].into()),
            start: Some(1),
            end: Some(1 << 40),
        };
        for _ in IndexedMessages::new(data, &s, f, opts) {}
    }
    if let Ok(mcap) = Mcap::new(data) {
        let _ = mcap.summary();
        let _ = mcap.channels();
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            if let Ok(it) = mcap.messages(&MessageFilter::all().mode(mode)) {
                for m in it.flatten() {
                    let _ = mcap.decode(&m);
                }
            }
        }
    }
    let _ = recover(data, Vec::new(), WriteOptions::default());
}

/// Reads arbitrary bytes as a CARLA recording every way the crate offers:
/// packets and frames in both modes, typed decoding and values of every
/// packet, the logcore summary and messages, the timeline, the rewrite and
/// the three reports. Any panic, endless loop or huge allocation is a
/// finding.
pub fn carla(data: &[u8]) {
    for layout in [None, Some(Layout::CARLA_0_9_10), Some(Layout::CARLA_0_10)] {
        let rec = match layout {
            None => Recording::new(data),
            Some(l) => Recording::with_layout(data, l),
        };
        let Ok(rec) = rec else {
            return;
        };
        let layout = rec.layout();
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            for f in rec.frames_with(mode).flatten() {
                for p in f.decoded(&layout).flatten() {
                    let _ = packet_value(&p, &layout);
                }
            }
            if let Ok(it) = rec.messages(&MessageFilter::all().mode(mode)) {
                for m in it.flatten() {
                    let _ = rec.decode(&m);
                }
            }
        }
        let _ = rec.summary();
        let _ = Timeline::build(&rec);
        let _ = rewrite(&rec);
        let o = ReportOptions::default();
        let _ = file_info(&rec, true, &o, &mut std::io::sink());
        let _ = collisions(&rec, 'a', 'h', &o, &mut std::io::sink());
        let _ = actors_blocked(&rec, 1.0, 10.0, &o, &mut std::io::sink());
    }
}

/// Reads arbitrary bytes as a ROS bag every way the crate offers: open
/// (index or scan), summary, per-message index, strict and lenient
/// time-ordered iteration with and without filters, decoding of every
/// message, and reindexing. Any panic, endless loop or huge allocation is
/// a finding.
pub fn rosbag(data: &[u8]) {
    let Ok(bag) = Bag::new(data) else {
        return;
    };
    let _ = bag.summary();
    let _ = bag.message_times();
    for c in bag.connections() {
        let _ = bag.message_type(c.id);
    }
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for m in bag.messages(&MessageFilter::all().mode(mode)).flatten() {
            let _ = bag.decode(m.conn, &m.data);
        }
    }
    if let Some((start, _)) = bag.time_range() {
        let filter = MessageFilter::all()
            .channels([ChannelId(0)])
            .start(Timestamp::from_nanos(start.to_timestamp().as_nanos() + 1))
            .mode(ReadMode::Lenient);
        let _ = bag.messages(&filter).count();
    }
    let _ = rosbag12::reindex(data, std::io::Cursor::new(Vec::new()));
}

/// Reads arbitrary bytes as a ULog file every way the crate offers: the
/// model, the pyulog-compatible texts and CSV, the logcore summary, strict
/// and lenient iteration with decoding, columns, and a rewrite that must
/// read back. Any panic, endless loop or huge allocation is a finding.
pub fn ulog(data: &[u8]) {
    let Ok(log) = ULog::parse(data) else {
        return;
    };
    let _ = pyulog::info(&log, true);
    let _ = pyulog::messages(&log);
    let _ = pyulog::params(&log, &pyulog::ParamOptions::default());
    let _ = log.summary();
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        if let Ok(messages) = log.messages(&MessageFilter::all().mode(mode)) {
            for m in messages.flatten() {
                let _ = log.decode(&m);
            }
        }
    }
    for s in &log.subscriptions {
        let _ = s.columns();
        let mut sink = Vec::new();
        let _ = pyulog::csv(s, ",", None, None, &mut sink);
    }
    if let Ok(bytes) = ulogfile::write::rewrite(&log) {
        let again = ULog::parse(&bytes).expect("a rewrite reads back");
        assert_eq!(again.info.len(), log.info.len());
    }
}

/// Runs the OSI trace validator on arbitrary bytes (with a file name, so
/// the naming rules run too, in both profiles and auto-detection), and
/// reads the same bytes as a protobuf FileDescriptorSet: when it parses,
/// every OSI top-level type it defines reads its timestamp and version
/// and decodes the bytes fully. Any panic, endless loop or huge allocation
/// is a finding.
pub fn osi(data: &[u8]) {
    for (profile, name) in [
        (None, "20240101T000000Z_multi_380_3200_10_fuzz.mcap"),
        (Some(Profile::Osi38), "fuzz.mcap"),
        (
            Some(Profile::Draft),
            "highway_20240101T000000.0_gt_fuzz.mcap",
        ),
    ] {
        let report = osi_mcap::validate(
            data,
            &ValidateOptions {
                profile,
                file_name: Some(name.into()),
                max_findings_per_rule: 3,
                strict_time: profile.is_none(),
                detect_non_osi: profile.is_none(),
            },
        );
        let listed: u64 = report.counts.values().map(|c| c.listed).sum();
        assert_eq!(listed as usize, report.findings.len());
    }
    if let Ok(d) = Descriptors::from_file_descriptor_set(data) {
        let _ = d.interface_version();
        for (name, _) in TOP_LEVEL_TYPES {
            if let Ok(top) = TopLevel::new(&d, name) {
                let _ = top.timestamp(data);
                let _ = top.header(data);
                let _ = top.decode(data);
            }
        }
    }
}

/// Opens arbitrary bytes through the `robolog` facade, as a tool does with
/// a file of unknown format: probing, the format's reader, the summary,
/// every message in lenient mode, and decoding through the decoder
/// registry (ROS 1 definitions and protobuf descriptors taken from MCAP
/// schemas, JSON) with the raw fallback. Any panic, endless loop or huge
/// allocation is a finding.
pub fn robolog(data: &[u8]) {
    let Ok(log) = robolog::open_bytes(data) else {
        return;
    };
    let _ = log.summary();
    let Ok(messages) = log.messages(&MessageFilter::all().mode(ReadMode::Lenient)) else {
        return;
    };
    let mut decoder = LenientDecoder::new(&log);
    for msg in messages.take(10_000).flatten() {
        let _ = decoder.decode(&msg);
    }
}
