//! Reads arbitrary bytes as a ROS bag every way the crate offers: open
//! (index or scan), summary, per-message index, strict and lenient
//! time-ordered iteration with and without filters, decoding of every
//! message, and reindexing. Any panic, endless loop or huge allocation is
//! a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| robolog_fuzz::read::rosbag(data));
