//! Runs the OSI trace validator on arbitrary bytes (with a file name, so
//! the naming rules run too, in both profiles and auto-detection), and
//! reads the same bytes as a protobuf FileDescriptorSet: when it parses,
//! every OSI top-level type it defines reads its timestamp and version
//! and decodes the bytes fully. Any panic, endless loop or huge allocation
//! is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use osi_mcap::proto::{Descriptors, TOP_LEVEL_TYPES, TopLevel};
use osi_mcap::validate::{Profile, ValidateOptions};

fuzz_target!(|data: &[u8]| {
    for (profile, name) in [
        (None, "20240101T000000Z_multi_380_3200_10_fuzz.mcap"),
        (Some(Profile::Osi38), "fuzz.mcap"),
        (
            Some(Profile::Draft),
            "highway_20240101T000000.0_gt_fuzz.mcap",
        ),
    ] {
        let report = osi_mcap::validate(
            data,
            &ValidateOptions {
                profile,
                file_name: Some(name.into()),
                max_findings_per_rule: 3,
                strict_time: profile.is_none(),
                detect_non_osi: profile.is_none(),
            },
        );
        let listed: u64 = report.counts.values().map(|c| c.listed).sum();
        assert_eq!(listed as usize, report.findings.len());
    }
    if let Ok(d) = Descriptors::from_file_descriptor_set(data) {
        let _ = d.interface_version();
        for (name, _) in TOP_LEVEL_TYPES {
            if let Ok(top) = TopLevel::new(&d, name) {
                let _ = top.timestamp(data);
                let _ = top.header(data);
                let _ = top.decode(data);
            }
        }
    }
});
