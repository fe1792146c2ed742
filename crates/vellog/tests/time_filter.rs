//! Time-filtered iteration (which starts at an index entry) gives exactly
//! what a linear scan with the same filter gives, also when timestamps go
//! backwards across sensors (spec 5.11).

use std::io::Cursor;

use logcore::{ChannelId, LogReader, Message, MessageFilter, Timestamp};
use vellog::{MessageData, ObdData, RobotPose, VelLog, Writer};

/// ~20 s of OBD at 10 Hz in order, and poses whose timestamps lag behind
/// by up to 2.7 s (a delayed sensor), with one message far in the past.
fn non_monotonic_file() -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    for i in 0..200u32 {
        let t = 1000.0 + f64::from(i) * 100.0;
        let obd = ObdData {
            speed_kmh: i as i32,
            ..Default::default()
        };
        w.write(t, &MessageData::ObdData(obd)).unwrap();
        if i % 3 == 0 {
            let lag = f64::from((i * 7919) % 2700);
            let pose = RobotPose {
                orientation: [1.0, 0.0, 0.0, 0.0],
                acceleration: [f32::from(i as u16), 0.0, 9.81],
            };
            w.write(t - lag, &MessageData::RobotPose(pose)).unwrap();
        }
        if i == 150 {
            w.write(1500.0, &MessageData::RobotPose(RobotPose::default()))
                .unwrap();
        }
    }
    w.into_inner().unwrap().into_inner()
}

fn key(m: &Message<'_>) -> (ChannelId, Timestamp, Option<u64>) {
    (m.channel, m.log_time, m.offset)
}

#[test]
fn filtered_iteration_matches_a_linear_scan() {
    let file = non_monotonic_file();
    let log = VelLog::new(&file).unwrap();
    assert!(log.index_check().usable, "{:?}", log.index_check());
    assert_eq!(log.index().len(), 20);
    let summary = log.summary().unwrap();
    assert_eq!(summary.metadata["timestamps_monotonic"], "false");

    let all: Vec<Message<'_>> = log
        .messages(&MessageFilter::all())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(all.len(), 200 + 67 + 1);

    let ms = |v: i64| Timestamp::from_nanos(v * 1_000_000);
    let mut used_index = false;
    let mut cases = Vec::new();
    for start in (0..22_000).step_by(250) {
        cases.push((Some(ms(start)), None));
        cases.push((Some(ms(start)), Some(ms(start + 1_700))));
        cases.push((None, Some(ms(start))));
    }
    // Just below a whole second, where rounding to nanoseconds matters.
    cases.push((Some(Timestamp::from_nanos(3_999_999_999)), None));
    for (start, end) in cases {
        for channels in [None, Some(ChannelId(0)), Some(ChannelId(1))] {
            let mut f = MessageFilter::all();
            f.start = start;
            f.end = end;
            if let Some(c) = channels {
                f = f.channels([c]);
            }
            let got: Vec<_> = log
                .messages(&f)
                .unwrap()
                .map(|m| key(&m.unwrap()))
                .collect();
            let want: Vec<_> = all
                .iter()
                .filter(|m| f.matches(m.channel, m.log_time))
                .map(key)
                .collect();
            assert_eq!(
                got, want,
                "start {start:?} end {end:?} channel {channels:?}"
            );
            if let Some(s) = start {
                used_index |= log.start_offset_for(s) > log.first_message_offset();
            }
        }
    }
    assert!(used_index, "the index never moved the start");
}

#[test]
fn seek_starts_at_the_entry_of_the_second() {
    let file = non_monotonic_file();
    let log = VelLog::new(&file).unwrap();
    let first = log.first_message_offset();
    // Seconds are counted from the first message (t = 1000 ms).
    assert_eq!(
        log.start_offset_for(Timestamp::from_nanos(1_500_000_000)),
        first
    );
    let t = Timestamp::from_nanos(6_000_000_000); // second 5, minus the margin: 4
    assert_eq!(log.start_offset_for(t), log.index().get(4).unwrap() as u64);
    // The entry's message is the first one at or after its second.
    let rec = log
        .records_from(
            log.index().get(4).unwrap() as u64,
            logcore::ReadMode::Strict,
        )
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(rec.timestamp_ms, 5000.0);
    let far = Timestamp::from_nanos(1_000_000_000_000);
    assert_eq!(
        log.start_offset_for(far),
        log.index().get(19).unwrap() as u64
    );
}
