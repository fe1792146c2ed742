//! The reader against logs from our writer and hand-built bytes: every
//! message type with real values, appended data, truncation at every byte,
//! bit flips, hostile lengths, sync recovery, and the logcore traits.

use logcore::{ChannelId, Clock, LogReader, MessageFilter, ReadMode, Timestamp, Value};
use ulogfile::FormatError;
use ulogfile::write::{append_data, encode_message, example_log, feature_log};
use ulogfile::{Column, Error, InfoValue, MAGIC, SYNC_MAGIC, ULog};

fn header(ts: u64) -> Vec<u8> {
    let mut v = MAGIC.to_vec();
    v.push(1);
    v.extend_from_slice(&ts.to_le_bytes());
    v
}

fn msg(ty: u8, payload: &[u8]) -> Vec<u8> {
    encode_message(ty, payload).unwrap()
}

fn kv(prefix: &[u8], key: &str, value: &[u8]) -> Vec<u8> {
    let mut p = prefix.to_vec();
    p.push(key.len() as u8);
    p.extend_from_slice(key.as_bytes());
    p.extend_from_slice(value);
    p
}

/// A minimal log: version-0 style (no `B`), one format with trailing
/// padding, one subscription, samples of both allowed sizes.
fn minimal() -> Vec<u8> {
    let mut f = header(100);
    f.extend(msg(b'I', &kv(&[], "char[3] sys_name", b"PX4")));
    f.extend(msg(
        b'F',
        b"imu:uint64_t timestamp;int16_t[2] acc;uint8_t[2] _padding0;",
    ));
    f.extend(msg(b'A', &[0, 7, 0, b'i', b'm', b'u']));
    for (t, full) in [(1_000u64, false), (2_000, true), (3_000, false)] {
        let mut d = vec![7, 0];
        d.extend_from_slice(&t.to_le_bytes());
        d.extend_from_slice(&(-(t as i16)).to_le_bytes());
        d.extend_from_slice(&5i16.to_le_bytes());
        if full {
            d.extend_from_slice(&[0, 0]);
        }
        f.extend(msg(b'D', &d));
    }
    f
}

#[test]
fn minimal_log_without_flag_bits() {
    let f = minimal();
    let log = ULog::parse(&f).unwrap();
    assert!(log.flag_bits.is_none());
    assert_eq!(log.header.timestamp, 100);
    let imu = log.subscription("imu", 0).unwrap();
    assert_eq!(imu.msg_id, 7);
    assert_eq!(imu.timestamps(), vec![1_000, 2_000, 3_000]);
    assert_eq!(
        imu.column("acc[0]"),
        Some(Column::I16(vec![-1000, -2000, -3000]))
    );
    assert_eq!(imu.sample_size(), 12);
    assert_eq!(log.last_timestamp, 3_000);
    assert!(!log.corrupt && log.warnings.is_empty() && log.truncation.is_none());
}

#[test]
fn every_message_type_of_the_feature_log() {
    let bytes = feature_log().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    assert!(!log.corrupt, "{:?}", log.warnings);
    let fb = log.flag_bits.unwrap();
    assert!(fb.data_appended() && fb.default_parameters());
    assert_eq!(fb.offsets().len(), 1);
    assert_eq!(
        log.info["ver_hw"].value,
        InfoValue::String("ROBOLOG_TEST".into())
    );
    assert_eq!(log.info["time_ref_utc"].value, InfoValue::Int(-3600));
    assert_eq!(
        log.info["blob"].value,
        InfoValue::Bytes(&[0, 0x27, 0x41, 0xff])
    );
    // data-section info
    assert_eq!(log.info["vehicle_name"].value.as_str(), Some("test rig"));
    let boot = &log.multi_info["boot_console_output"];
    assert_eq!(
        boot.groups,
        vec![vec![
            InfoValue::String("boot ".into()),
            InfoValue::String("ok".into())
        ]]
    );
    // appended data: the crash dump after the cut message
    assert_eq!(
        log.multi_info["hardfault_plain"].groups[0][0].as_str(),
        Some("[hardfault] r0")
    );
    assert!(
        log.notices
            .iter()
            .any(|n| n.to_string().contains("appended"))
    );
    assert!(
        log.notices
            .iter()
            .any(|n| n.to_string().contains("unknown message type 'Z'"))
    );
    assert_eq!(log.initial_parameters["MC_ROLL_P"], InfoValue::Float(0.05));
    assert_eq!(
        log.initial_parameters["SYS_AUTOSTART"],
        InfoValue::Int(4001)
    );
    assert_eq!(log.changed_parameters.len(), 1);
    assert_eq!(log.changed_parameters[0].value, InfoValue::Float(0.07));
    assert_eq!(log.changed_parameters[0].timestamp, 202_000);
    assert_eq!(
        log.default_parameters[&0]["MC_ROLL_P"],
        InfoValue::Float(6.5)
    );
    assert_eq!(log.default_parameters[&0]["BAT_N_CELLS"], InfoValue::Int(3));
    assert_eq!(log.default_parameters[&1]["BAT_N_CELLS"], InfoValue::Int(3));
    assert_eq!(
        log.default_parameters[&1]["SYS_AUTOSTART"],
        InfoValue::Int(0)
    );
    assert!(!log.default_parameters[&1].contains_key("MC_ROLL_P"));
    assert_eq!(log.logged_messages.len(), 2);
    assert_eq!(log.logged_messages[1].level_name(), "ERROR");
    assert_eq!(log.logged_messages[1].timestamp, 402_000);
    assert_eq!(log.tagged_messages[0].tag, Some(7));
    assert_eq!(log.tagged_messages[0].text(), "tagged message test");
    assert_eq!(
        log.dropouts
            .iter()
            .map(|d| (d.timestamp, d.duration_ms))
            .collect::<Vec<_>>(),
        vec![(202_000, 35), (502_000, 12)]
    );
    assert!(log.sync_count >= 2);
    let esc = log.subscription("esc_status", 0).unwrap();
    assert_eq!(esc.samples.len(), 5);
    assert_eq!(esc.sample_size(), 61);
    assert_eq!(
        esc.column("esc[1].esc_rpm"),
        Some(Column::I32(vec![-2000, -1000, 0, 1000, 2000]))
    );
    assert_eq!(
        esc.column("armed"),
        Some(Column::Bool(vec![false, true, false, true, false]))
    );
    assert_eq!(esc.column("trim"), Some(Column::I8(vec![-3, -2, -1, 0, 1])));
    let v = esc.decode(0).unwrap();
    assert_eq!(v.get("label"), Some(&Value::String("motor".into())));
    let escs = match v.get("esc") {
        Some(Value::Array(a)) => a.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(escs[1].get("esc_state"), Some(&Value::U64(2)));
    assert!(escs[1].get("_padding0").is_none());
    assert_eq!(
        esc.decode(1).unwrap().get("label"),
        Some(&Value::String("esc-full".into()))
    );
    let gps = log.subscription("sensor_gps", 0).unwrap();
    assert_eq!(gps.column_f64("alt").unwrap()[5], 488_005.0);
    assert_eq!(log.subscription("esc_status", 1).unwrap().samples.len(), 1);
}

#[test]
fn logcore_reader_channels_anchor_and_filters() {
    let bytes = feature_log().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let s = log.summary().unwrap();
    let topics: Vec<&str> = s.channels.iter().map(|c| c.info.topic.as_str()).collect();
    assert_eq!(topics, ["esc_status", "esc_status[1]", "sensor_gps"]);
    assert_eq!(s.message_count, 12);
    assert_eq!(s.time_model.clock, Clock::Boot);
    let anchor = s.time_model.anchor.unwrap();
    assert_eq!(anchor.log_time, Timestamp::from_micros(102_000).unwrap());
    assert_eq!(
        anchor.unix_time,
        Timestamp::from_micros(1_700_000_000_102_000).unwrap()
    );
    assert!(s.warnings.is_empty());
    let f = MessageFilter::all()
        .channels([ChannelId(2)])
        .start(Timestamp::from_micros(200_000).unwrap())
        .end(Timestamp::from_micros(402_000).unwrap());
    let msgs: Vec<_> = log.messages(&f).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(msgs.len(), 2);
    let v = log.decode(&msgs[0]).unwrap();
    assert_eq!(v.get("timestamp"), Some(&Value::U64(202_000)));
    assert_eq!(v.get("c"), Some(&Value::U64(u64::from(b'C'))));
    // The trait's default decode_into replaces what the value held.
    let mut reused = Value::Bool(true);
    log.decode_into(&msgs[0], &mut reused).unwrap();
    assert_eq!(reused, v);
    let all: Vec<_> = log.messages(&MessageFilter::all()).unwrap().collect();
    assert_eq!(all.len(), 12);
    assert!(
        all.windows(2)
            .all(|w| w[0].as_ref().unwrap().offset < w[1].as_ref().unwrap().offset)
    );
}

#[test]
fn pyulog_text_of_the_feature_log() {
    // Equal to what pyulog 1.3.0's ulog_info -v and ulog_params print for
    // this file (checked by `cargo xtask ci`'s interop step).
    let bytes = feature_log().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let info = ulogfile::pyulog::info(&log, true);
    assert!(info.starts_with("Logging start time: 0:00:00, duration: 0:00:00\nDropouts: count: 2, total duration: 0.0 s, max: 35 ms, mean: 23 ms\nSW Version: v1.15.2 (alpha)\n"));
    assert!(info.contains(" blob: b\"\\x00'A\\xff\"\n"));
    assert!(info.contains(" boot_console_output: [['boot ', 'ok']]\n"));
    assert!(info.ends_with(" esc_status (0, 61)                             5        305\n esc_status (1, 61)                             1         61\n sensor_gps (0, 29)                             6        174\n"));
    let p = ulogfile::pyulog::params(&log, &Default::default()).unwrap();
    assert_eq!(
        p,
        "BAT_N_CELLS,4\nMC_ROLL_P,0.05000000074505806,0.07000000029802322\nSYS_AUTOSTART,4001\n"
    );
    let (m, gap) = ulogfile::pyulog::messages(&log);
    assert_eq!(gap, None);
    assert_eq!(
        m,
        "0:00:00.001 INFO: [logger] Start file log (type: full)\n0:00:00.402 ERROR: [sensors] no barometer found\n"
    );
    let gps = log.subscription("sensor_gps", 0).unwrap();
    let mut csv = Vec::new();
    ulogfile::pyulog::csv(gps, ",", None, None, &mut csv).unwrap();
    let csv = String::from_utf8(csv).unwrap();
    assert_eq!(
        csv.lines().next(),
        Some("timestamp,time_utc_usec,lat,alt,c")
    );
    assert_eq!(
        csv.lines().nth(2),
        Some("102000,1700000000102000,47.397743,488001,66")
    );
}

#[test]
fn truncation_at_every_byte_keeps_complete_messages() {
    for bytes in [feature_log().unwrap(), minimal(), example_log().unwrap()] {
        let full = ULog::parse(&bytes).unwrap();
        let mut ends: Vec<usize> = full
            .subscriptions
            .iter()
            .flat_map(|s| &s.samples)
            .map(|s| {
                let o = s.offset as usize;
                o + 3 + usize::from(u16::from_le_bytes([bytes[o], bytes[o + 1]]))
            })
            .collect();
        ends.sort_unstable();
        for cut in 0..bytes.len() {
            match ULog::parse(&bytes[..cut]) {
                Ok(log) => {
                    let n: usize = log.subscriptions.iter().map(|s| s.samples.len()).sum();
                    assert_eq!(n, ends.partition_point(|&e| e <= cut), "cut at {cut}");
                    let on_boundary = log.truncation.is_none();
                    if !on_boundary {
                        let t = log.truncation.as_ref().unwrap();
                        assert!(t.is_truncated(), "{t}");
                        // The strict stream ends with the truncation.
                        let last = log.messages(&MessageFilter::all()).unwrap().last().unwrap();
                        assert!(matches!(last, Err(logcore::Error::Truncated { .. })));
                    }
                }
                Err(e) => assert!(cut < 16, "cut at {cut}: {e}"),
            }
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    let bytes = feature_log().unwrap();
    let mut copy = bytes.clone();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            copy[i] ^= 1 << bit;
            if let Ok(log) = ULog::parse(&copy) {
                let _ = ulogfile::pyulog::info(&log, true);
                let _ = log.summary().unwrap();
                for m in log
                    .messages(&MessageFilter::all().mode(ReadMode::Lenient))
                    .unwrap()
                    .flatten()
                {
                    let _ = log.decode(&m).unwrap();
                }
            }
            copy[i] ^= 1 << bit;
        }
    }
}

#[test]
fn refuses_unknown_incompat_flags_and_bad_headers() {
    let mut f = header(0);
    let mut b = [0u8; 40];
    b[8] = 0b10;
    f.extend(msg(b'B', &b));
    match ULog::parse(&f) {
        Err(Error::IncompatibleFlags { offset: 27, flags }) => assert_eq!(flags[0], 2),
        other => panic!("{other:?}"),
    }
    let mut f = header(0);
    let mut b = [0u8; 48];
    b[0] = 1;
    f.extend(msg(b'B', &b)); // longer than 40: extra bytes ignored
    assert!(ULog::parse(&f).unwrap().has_default_parameters());
    assert_eq!(
        ULog::parse(b"ULog\x01\x12\x36\x01").unwrap_err().offset(),
        Some(0)
    );
    assert!(matches!(
        ULog::parse(b"ULog\x01\x12\x35\x01\x00"),
        Err(Error::Parse(ulogfile::ParseError::Truncated { .. }))
    ));
}

#[test]
fn hostile_definitions_are_reported_not_followed() {
    let mut f = header(0);
    f.extend(msg(b'F', b"a:b x;"));
    f.extend(msg(b'F', b"b:a y;"));
    f.extend(msg(b'F', b"big:uint64_t timestamp;double[65535] x;"));
    f.extend(msg(b'F', b"huge:uint8_t[99999999999] x;"));
    f.extend(msg(b'F', b"e:"));
    f.extend(msg(b'F', b"many:uint64_t timestamp;e[65535] x;"));
    f.extend(msg(b'I', &kv(&[], "uint32_t short", &[1, 2])));
    f.extend(msg(b'A', &[0, 1, 0, b'a']));
    f.extend(msg(b'A', &[0, 2, 0, b'b', b'i', b'g']));
    f.extend(msg(b'A', &[0, 3, 0, b'm', b'a', b'n', b'y']));
    f.extend(msg(b'D', &[1, 0, 1]));
    f.extend(msg(b'D', &[3, 0, 9, 0, 0, 0, 0, 0, 0, 0]));
    let log = ULog::parse(&f).unwrap();
    assert!(log.corrupt);
    let text: Vec<String> = log.warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|t| t.contains("without cycles")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|t| t.contains("at most 65533 bytes")),
        "{text:?}"
    );
    assert!(text.iter().any(|t| t.contains("array size")), "{text:?}");
    assert!(text.iter().any(|t| t.contains("4-byte value")), "{text:?}");
    assert!(
        text.iter()
            .any(|t| t.contains("msg_id 1 without subscription")),
        "{text:?}"
    );
    assert_eq!(log.subscription("many", 0).unwrap().timestamps(), vec![9]);
    // Deep nesting stops at the limit instead of exhausting the stack.
    let mut f = header(0);
    for i in 0..5000 {
        f.extend(msg(b'F', format!("t{i}:t{} x;", i + 1).as_bytes()));
    }
    f.extend(msg(b'A', &[0, 0, 0, b't', b'0']));
    let log = ULog::parse(&f).unwrap();
    assert!(log.warnings[0].to_string().contains(
        "formats nested at most 32 levels deep (the reader's limit; raise it with \
                 `--max-nesting` or `Limits::max_nesting`)"
    ));
}

#[test]
fn garbage_is_skipped_to_the_next_sync_message() {
    let base = minimal();
    let mut f = base.clone();
    let data_start = f.len();
    f.extend([0u8; 37]); // a zero-size, zero-type header and more garbage
    f.extend(msg(b'S', &SYNC_MAGIC));
    let mut d = vec![7, 0];
    d.extend_from_slice(&9_000u64.to_le_bytes());
    d.extend_from_slice(&[1, 0, 2, 0]);
    f.extend(msg(b'D', &d));
    let log = ULog::parse(&f).unwrap();
    assert!(log.corrupt);
    assert_eq!(
        log.subscription("imu", 0).unwrap().timestamps(),
        vec![1_000, 2_000, 3_000, 9_000]
    );
    match &log.warnings[0] {
        Error::Parse(ulogfile::ParseError::Skipped { offset, len, .. }) => {
            assert_eq!(*offset, data_start as u64);
            assert_eq!(*len, 37 + 11);
        }
        other => panic!("{other}"),
    }
    // Strict iteration stops at the damage; lenient reports and goes on.
    let strict: Vec<_> = log.messages(&MessageFilter::all()).unwrap().collect();
    assert_eq!(strict.len(), 4);
    assert!(strict[3].is_err());
    let lenient: Vec<_> = log
        .messages(&MessageFilter::all().mode(ReadMode::Lenient))
        .unwrap()
        .collect();
    assert_eq!(lenient.len(), 5);
    assert!(lenient[4].is_ok());
    // Without a sync message the reader slides byte by byte (a slid-into
    // header whose size runs past the end is a cut, as in pyulog, so
    // enough data must follow).
    let mut f = base;
    f.extend([0u8; 5]);
    for _ in 0..300 {
        f.extend(msg(b'D', &d));
    }
    let log = ULog::parse(&f).unwrap();
    assert_eq!(log.subscription("imu", 0).unwrap().samples.len(), 303);
    assert!(log.truncation.is_none());
    // A known message too short for its fields ends the segment, without
    // calling the file corrupt, exactly as pyulog reads it.
    let mut f = minimal();
    f.extend(msg(b'L', b"3\x01"));
    f.extend(msg(b'D', &d));
    let log = ULog::parse(&f).unwrap();
    assert!(!log.corrupt);
    assert_eq!(log.subscription("imu", 0).unwrap().samples.len(), 3);
    assert!(log.warnings[0].to_string().contains("stops here"));
}

#[test]
fn appended_offsets_pointing_past_the_end_are_a_cut() {
    let mut f = feature_log().unwrap();
    let extra = msg(b'M', &kv(&[0], "char[2] hardfault_plain", b"r1"));
    append_data(&mut f, &extra).unwrap();
    let log = ULog::parse(&f).unwrap();
    assert_eq!(log.multi_info["hardfault_plain"].groups.len(), 2);
    let cut = &f[..f.len() - 3];
    let log = ULog::parse(cut).unwrap();
    assert!(log.truncation.is_some());
    assert_eq!(log.multi_info["hardfault_plain"].groups.len(), 1);
}

#[test]
fn writer_round_trip_and_rewrite() {
    let bytes = feature_log().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let again = ulogfile::write::rewrite(&log).unwrap();
    let log2 = ULog::parse(&again).unwrap();
    assert_eq!(log2.info, log.info);
    assert_eq!(log2.multi_info, log.multi_info);
    assert_eq!(log2.initial_parameters, log.initial_parameters);
    assert_eq!(log2.default_parameters, log.default_parameters);
    assert_eq!(log2.dropouts.len(), log.dropouts.len());
    for (a, b) in log.subscriptions.iter().zip(&log2.subscriptions) {
        assert_eq!(
            (a.msg_id, a.multi_id, &a.name),
            (b.msg_id, b.multi_id, &b.name)
        );
        let da: Vec<&[u8]> = a.samples.iter().map(|s| s.data).collect();
        let db: Vec<&[u8]> = b.samples.iter().map(|s| s.data).collect();
        assert_eq!(da, db);
    }
    assert_eq!(
        ulogfile::pyulog::info(&log2, true),
        ulogfile::pyulog::info(&log, true)
    );
    // Rewriting is a fixed point.
    assert_eq!(ulogfile::write::rewrite(&log2).unwrap(), again);
}

#[cfg(feature = "events")]
#[test]
fn px4_events_from_embedded_metadata() {
    use ulogfile::Writer;
    let json = br#"{"version":2,"components":{"1":{"namespace":"px4","enums":{"mode_t":{"type":"uint8_t","entries":{"2":{"name":"pos","description":"Position"}}}},"event_groups":{"calibration":{"events":{"7":{"name":"c","message":"calibrating"}}},"default":{"events":{"5":{"name":"takeoff","message":"Takeoff at {1:.1m} in <profile name=\"dev\">{2}</profile>","arguments":[{"type":"float","name":"alt"},{"type":"mode_t","name":"m"}]},"6":{"name":"plain","message":"  Landing detected "}}}}}}}"#;
    let mut xz = Vec::new();
    lzma_rs::xz_compress(&mut &json[..], &mut xz).unwrap();
    let mut w = Writer::new(Vec::new(), 0).unwrap();
    w.add_info_str("sys_name", "PX4").unwrap();
    w.add_info_str("metadata_events_sha256", "abc123").unwrap();
    let (a, b) = xz.split_at(xz.len() / 2);
    w.add_multi_info(
        &format!("uint8_t[{}]", a.len()),
        "metadata_events",
        &InfoValue::Bytes(a),
        false,
    )
    .unwrap();
    w.add_multi_info(
        &format!("uint8_t[{}]", b.len()),
        "metadata_events",
        &InfoValue::Bytes(b),
        true,
    )
    .unwrap();
    w.add_format("event:uint64_t timestamp;uint32_t id;uint16_t event_sequence;uint8_t[25] arguments;uint8_t log_levels;uint8_t[4] _padding0;").unwrap();
    let id = w.add_subscription("event", 0).unwrap();
    for (t, ev, level, args) in [
        (
            2_000_000u64,
            5u32,
            6u8,
            [&2.5f32.to_le_bytes()[..], &[2]].concat(),
        ),
        (1_000_000, 6, 4, vec![]),
        (3_000_000, 99, 3, vec![]),
        (3_500_000, 6, 9, vec![]),
    ] {
        let mut s = t.to_le_bytes().to_vec();
        s.extend_from_slice(&((1 << 24) | ev).to_le_bytes());
        s.extend_from_slice(&[0, 0]);
        let mut a = args.clone();
        a.resize(25, 0);
        s.extend_from_slice(&a);
        s.push(level << 4);
        w.write_data(id, &s).unwrap();
    }
    w.write_logging(b'6', 1_500_000, "[commander] Takeoff detected\t")
        .unwrap();
    w.write_logging(b'6', 2_000_000, "[logger] same time")
        .unwrap();
    let bytes = w.finish().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let (text, gap) = ulogfile::pyulog::messages(&log);
    assert_eq!(gap, None);
    assert_eq!(
        text,
        "0:00:01.000 WARNING: Landing detected\n\
         0:00:02.000 INFO: Takeoff at 2.5 m in Position\n\
         0:00:02.000 INFO: [logger] same time\n\
         0:00:03.000 ERROR: [Unknown event with ID 16777315]\n"
    );
}

#[test]
fn summary_start_and_end_follow_pyulog() {
    use logcore::LogReader;
    use ulogfile::Writer;
    // Header at 10 s; one sample stamped 0 (before the clock was set) and
    // samples at 10.5 s and 12 s. pyulog: start_timestamp = header, last
    // timestamp = latest seen, so the duration is 2 s, not 12 s.
    let mut w = Writer::new(Vec::new(), 10_000_000).unwrap();
    w.add_format("t:uint64_t timestamp;").unwrap();
    let id = w.add_subscription("t", 0).unwrap();
    for ts in [0u64, 10_500_000, 12_000_000] {
        w.write_data(id, &ts.to_le_bytes()).unwrap();
    }
    let bytes = w.finish().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let s = log.summary().unwrap();
    assert_eq!(s.message_count, 3);
    assert_eq!(s.start, Timestamp::from_micros(10_000_000));
    assert_eq!(s.end, Timestamp::from_micros(12_000_000));
    assert_eq!(s.duration_ns(), 2_000_000_000);
    // The channel keeps the range of its own samples.
    assert_eq!(s.channels[0].start, Timestamp::from_micros(0));
}

#[test]
fn csv_prints_a_bool_byte_as_pyulog_does() {
    use ulogfile::Writer;
    // pyulog reads `bool` as int8: a byte of 65 prints as 65 (not 1), 255
    // as -1 (what pyulog 1.3.0's ulog2csv writes; `cargo xtask ulog interop`
    // compares such a log with pyulog itself).
    let mut w = Writer::new(Vec::new(), 0).unwrap();
    w.add_format("flags:uint64_t timestamp;bool armed;uint8_t[7] _padding0;")
        .unwrap();
    let id = w.add_subscription("flags", 0).unwrap();
    for (ts, byte) in [(1_000u64, 0u8), (2_000, 1), (3_000, 65), (4_000, 255)] {
        let mut s = ts.to_le_bytes().to_vec();
        s.push(byte);
        s.extend_from_slice(&[0; 7]);
        w.write_data(id, &s).unwrap();
    }
    let bytes = w.finish().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let mut csv = Vec::new();
    ulogfile::pyulog::csv(&log.subscriptions[0], ",", None, None, &mut csv).unwrap();
    assert_eq!(
        String::from_utf8(csv).unwrap(),
        "timestamp,armed\n1000,0\n2000,1\n3000,65\n4000,-1\n"
    );
}

#[test]
fn a_selected_read_indexes_only_the_selected_subscriptions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/ulog");
    let mut files = vec![feature_log().unwrap(), example_log().unwrap()];
    for name in ["example.ulg", "features.ulg", "truncated.ulg"] {
        files.push(std::fs::read(dir.join(name)).unwrap());
    }
    // Damaged parameters (checked, not kept, by a selected read) and a
    // sample of an id nobody subscribed.
    let mut damaged = header(100);
    damaged.extend(msg(b'P', &kv(&[], "int32_t GOOD", &7i32.to_le_bytes())));
    damaged.extend(msg(b'P', &kv(&[], "int32_t SHORT", &[1, 2, 3])));
    damaged.extend(msg(b'P', &kv(&[], "NONAME", &[1, 2, 3, 4])));
    damaged.extend(msg(b'Q', &kv(&[1], "float LONG", &[0; 5])));
    damaged.extend(msg(b'F', b"imu:uint64_t timestamp;int16_t x;"));
    damaged.extend(msg(b'F', b"gps:uint64_t timestamp;int32_t lat;"));
    damaged.extend(msg(b'A', &[0, 7, 0, b'i', b'm', b'u']));
    damaged.extend(msg(b'A', &[0, 8, 0, b'g', b'p', b's']));
    for t in [1_000u64, 2_000, 3_000] {
        for id in [7u8, 8, 9] {
            let mut d = vec![id, 0];
            d.extend_from_slice(&t.to_le_bytes());
            d.extend_from_slice(&[1, 2, 3, 4][..if id == 7 { 2 } else { 4 }]);
            damaged.extend(msg(b'D', &d));
        }
        damaged.extend(msg(b'P', &kv(&[], "LATE", &[1, 2, 3, 4])));
    }
    assert_eq!(ULog::parse(&damaged).unwrap().warnings.len(), 7);
    files.push(damaged);
    let samples = |s: &ulogfile::Subscription<'_>| -> Vec<(u64, u64)> {
        s.samples.iter().map(|x| (x.offset, x.timestamp)).collect()
    };
    for bytes in &files {
        // Whole, and cut inside its data.
        for cut in [bytes.len(), bytes.len() * 3 / 4, bytes.len() / 2] {
            let bytes = &bytes[..cut];
            let full = ULog::parse(bytes).unwrap();
            let names: Vec<&str> = full.subscriptions.iter().map(|s| s.name.as_str()).collect();
            for chosen in &names {
                let sel =
                    ULog::parse_selected(bytes, &Default::default(), &|n| n == *chosen).unwrap();
                assert_eq!(sel.subscriptions.len(), full.subscriptions.len());
                for (i, (a, b)) in sel
                    .subscriptions
                    .iter()
                    .zip(&full.subscriptions)
                    .enumerate()
                {
                    let wanted = a.name == *chosen || a.name == "sensor_gps";
                    assert_eq!(sel.is_selected(i), wanted, "{}", a.name);
                    assert!(full.is_selected(i));
                    let expect = if wanted { samples(b) } else { Vec::new() };
                    assert_eq!(samples(a), expect, "{chosen}: {}", a.name);
                }
                // The same problems, time range and model: only samples
                // and parameters are left out.
                assert_eq!(sel.warnings, full.warnings);
                assert_eq!(sel.notices, full.notices);
                assert_eq!(sel.truncation, full.truncation);
                assert_eq!(sel.last_timestamp, full.last_timestamp);
                assert_eq!(sel.corrupt, full.corrupt);
                assert!(sel.initial_parameters.is_empty() && sel.changed_parameters.is_empty());
                assert!(sel.default_parameters.is_empty());
                let (s, f) = (sel.summary().unwrap(), full.summary().unwrap());
                assert_eq!(s.time_model, f.time_model);
                let kept: Vec<_> = f
                    .channels
                    .iter()
                    .filter(|c| c.info.type_name == *chosen || c.info.type_name == "sensor_gps")
                    .cloned()
                    .collect();
                assert!(!kept.is_empty());
                assert_eq!(s.channels, kept);
                let infos: Vec<_> = kept.iter().map(|c| c.info.clone()).collect();
                assert_eq!(sel.channels().unwrap(), infos);
                let n: u64 = kept.iter().map(|c| c.message_count).sum();
                let lenient = MessageFilter::all().mode(ReadMode::Lenient);
                let got = sel.messages(&lenient).unwrap();
                assert_eq!(got.filter(|m| m.is_ok()).count() as u64, n);
            }
        }
    }
    // The feature log has parameters, which a full read keeps.
    let bytes = feature_log().unwrap();
    assert!(!ULog::parse(&bytes).unwrap().initial_parameters.is_empty());
}

/// `timestamps_and_columns` reads in one pass what `timestamps` and
/// `columns` read in two, for every subscription of the testdata logs and
/// the corpus's (`$ROBOLOG_CORPUS/ulog`, else `../shared/corpus/ulog`,
/// when there): PX4 flights with many topics and instances.
#[test]
fn one_pass_gives_the_timestamps_and_columns_of_two() {
    let root = robolog_testkit::workspace_root();
    let mut files = robolog_testkit::files_with_ext(&root.join("testdata/ulog"), &["ulg"]);
    files.extend(robolog_testkit::files_with_ext(
        &robolog_testkit::corpus_root().join("ulog"),
        &["ulg"],
    ));
    let (mut subs, mut samples) = (0, 0);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let Ok(log) = ULog::parse(&bytes) else {
            continue;
        };
        for s in &log.subscriptions {
            let (times, cols) = s.timestamps_and_columns();
            assert_eq!(times, s.timestamps(), "{}: {}", f.display(), s.name);
            let two = s.columns();
            assert_eq!(cols.len(), two.len());
            for ((name, a), (_, b)) in cols.iter().zip(&two) {
                // Floats by their bits: NaN equals itself.
                let same = match (a, b) {
                    (Column::F32(x), Column::F32(y)) => x
                        .iter()
                        .map(|v| v.to_bits())
                        .eq(y.iter().map(|v| v.to_bits())),
                    (Column::F64(x), Column::F64(y)) => x
                        .iter()
                        .map(|v| v.to_bits())
                        .eq(y.iter().map(|v| v.to_bits())),
                    _ => a == b,
                };
                assert!(same, "{}: {}.{name}", f.display(), s.name);
            }
            subs += 1;
            samples += times.len();
        }
    }
    assert!(
        subs >= 10 && samples > 0,
        "{subs} subscriptions, {samples} samples"
    );
}
