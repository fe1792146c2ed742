//! Reads arbitrary bytes as a CARLA recording every way the crate offers:
//! packets and frames in both modes, typed decoding and values of every
//! packet, the logcore summary and messages, the timeline, the rewrite and
//! the three reports. Any panic, endless loop or huge allocation is a
//! finding.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| robolog_fuzz::read::carla(data));
