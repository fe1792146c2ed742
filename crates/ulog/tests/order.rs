//! `LogReader::messages` yields samples by timestamp (a k-way merge over
//! the subscriptions); `messages_in_file_order` in stored order.

use logcore::{LogReader, MessageFilter, ReadMode};
use ulogfile::ULog;
use ulogfile::write::Writer;

/// Three subscriptions written in blocks, so that file order goes back in
/// time twice: a at 10..19, b at 0..9, c at 5..14 (in 10 µs steps).
fn blocks() -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), 0).unwrap();
    w.add_format("s:uint64_t timestamp;uint8_t x;").unwrap();
    let ids: Vec<u16> = (0..3)
        .map(|m| w.add_subscription("s", m).unwrap())
        .collect();
    for (id, first) in ids.iter().zip([10u64, 0, 5]) {
        for k in 0..10 {
            let mut s = ((first + k) * 10).to_le_bytes().to_vec();
            s.push(k as u8);
            w.write_data(*id, &s).unwrap();
        }
    }
    w.finish().unwrap()
}

fn times(it: logcore::MessageIter<'_>) -> Vec<(i64, u64)> {
    it.map(|m| {
        let m = m.unwrap();
        (m.log_time.as_nanos() / 1000, m.offset.unwrap())
    })
    .collect()
}

#[test]
fn messages_are_merged_by_timestamp_and_file_order_is_kept_on_request() {
    let bytes = blocks();
    let log = ULog::parse(&bytes).unwrap();
    let by_time = times(log.messages(&MessageFilter::all()).unwrap());
    let in_file = times(log.messages_in_file_order(&MessageFilter::all()));
    assert_eq!(by_time.len(), 30);
    assert!(by_time.windows(2).all(|w| w[0].0 <= w[1].0), "{by_time:?}");
    // Equal timestamps keep file order.
    assert!(
        by_time
            .windows(2)
            .all(|w| w[0].0 < w[1].0 || w[0].1 < w[1].1)
    );
    assert!(in_file.windows(2).all(|w| w[0].1 < w[1].1));
    assert_eq!(in_file[0].0, 100);
    assert_eq!(in_file[10].0, 0);
    let mut a = by_time.clone();
    let mut b = in_file.clone();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
    // A time filter applies to both.
    let f = MessageFilter::all()
        .start(logcore::Timestamp(50_000))
        .end(logcore::Timestamp(100_000));
    let t: Vec<i64> = times(log.messages(&f).unwrap())
        .into_iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(t, [50, 50, 60, 60, 70, 70, 80, 80, 90, 90]);
}

#[test]
fn a_truncated_log_yields_every_sample_before_the_cut_then_the_error() {
    let bytes = blocks();
    let full = ULog::parse(&bytes).unwrap();
    let all = times(full.messages_in_file_order(&MessageFilter::all()));
    // Cut inside the 25th sample (in file order): 24 complete samples.
    let cut = all[24].1 as usize + 3;
    let log = ULog::parse(&bytes[..cut]).unwrap();
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        let items: Vec<_> = log
            .messages(&MessageFilter::all().mode(mode))
            .unwrap()
            .collect();
        assert_eq!(items.len(), 25, "{mode:?}");
        assert!(items[24].as_ref().unwrap_err().is_truncated());
        let got: Vec<i64> = items[..24]
            .iter()
            .map(|m| m.as_ref().unwrap().log_time.as_nanos() / 1000)
            .collect();
        let mut want: Vec<i64> = all[..24].iter().map(|x| x.0).collect();
        want.sort_unstable();
        assert_eq!(got, want);
    }
}
