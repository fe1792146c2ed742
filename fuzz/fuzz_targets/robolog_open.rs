//! Opens arbitrary bytes through the `robolog` facade, as a tool does with
//! a file of unknown format: probing, the format's reader, the summary,
//! every message in lenient mode, and decoding through the decoder
//! registry (ROS 1 definitions and protobuf descriptors taken from MCAP
//! schemas, JSON) with the raw fallback. Any panic, endless loop or huge
//! allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| robolog_fuzz::read::robolog(data));
