//! Runs the OSI trace validator on arbitrary bytes (with a file name, so
//! the naming rules run too, in both profiles and auto-detection), and
//! reads the same bytes as a protobuf FileDescriptorSet: when it parses,
//! every OSI top-level type it defines reads its timestamp and version
//! and decodes the bytes fully. Any panic, endless loop or huge allocation
//! is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| robolog_fuzz::read::osi(data));
