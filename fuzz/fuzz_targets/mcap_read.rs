//! Reads arbitrary bytes as an MCAP file every way the crate offers:
//! strict and lenient streamed reading (flattened and raw chunks), the
//! summary and the indexed reader with and without a filter, the logcore
//! reader with decoding, and recovery. Any panic, endless loop or huge
//! allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| robolog_fuzz::read::mcap(data));
