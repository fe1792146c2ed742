//! Reads arbitrary bytes as a ULog file every way the crate offers: the
//! model, the pyulog-compatible texts and CSV, the logcore summary, strict
//! and lenient iteration with decoding, columns, and a rewrite that must
//! read back. Any panic, endless loop or huge allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use logcore::{LogReader, MessageFilter, ReadMode};
use ulogfile::{ULog, pyulog};

fuzz_target!(|data: &[u8]| {
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
});
