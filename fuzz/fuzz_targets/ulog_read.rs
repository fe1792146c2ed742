//! Reads arbitrary bytes as a ULog file every way the crate offers: the
//! model, the pyulog-compatible texts and CSV, the logcore summary, strict
//! and lenient iteration with decoding, columns, and a rewrite that must
//! read back. Any panic, endless loop or huge allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| robolog_fuzz::read::ulog(data));
