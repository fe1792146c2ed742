//! Reads arbitrary bytes as a VEL log every way the crate offers: summary,
//! strict and lenient iteration (typed and through logcore), time-filtered
//! iteration through the index, and decoding of every message. Any panic,
//! endless loop or huge allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| robolog_fuzz::read::vellog(data));
