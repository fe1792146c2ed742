//! The validator's verdict on every OSI MCAP sample trace of the corpus
//! (`../shared/corpus/osi-mcap`, or `$ROBOLOG_CORPUS/osi-mcap`) against the
//! verdict its README states, with the findings the README describes.
//! Files without an entry here are still validated (no panic, a report).

use std::path::PathBuf;

use osi_mcap::validate::{Profile, ValidateOptions, rule, validate};

fn corpus() -> Option<PathBuf> {
    robolog_testkit::corpus("osi-mcap")
}

/// What the README says of a file: passes or not, and rule ids with how
/// often each must be found (`None`: at least once).
struct Expect {
    name: &'static str,
    passes: bool,
    rules: &'static [(&'static str, Option<u64>)],
}

const EXPECTED: &[Expect] = &[
    // Full meta-data of 3.7.1, no zero_time/authors/data_sources, channel
    // without description: passes with warnings.
    Expect {
        name: "MovingHostWith3DModel.mcap",
        passes: true,
        rules: &[
            (rule::TRACE_RECOMMENDED, Some(1)),
            (rule::CHANNEL_DESCRIPTION_38, Some(1)),
            (rule::TRACE_VERSION, Some(1)),
            (rule::PUBLISH_TIME, Some(0)),
            (rule::TIME_ROUNDING, Some(0)),
        ],
    },
    // No metadata record, empty channel metadata: not an OSI trace.
    Expect {
        name: "MovingHostWithStopLine.mcap",
        passes: false,
        rules: &[
            (rule::TRACE_RECORD, Some(1)),
            (rule::CHANNEL_REQUIRED, Some(2)),
            (rule::PUBLISH_TIME, Some(0)),
        ],
    },
    Expect {
        name: "MovingHostWithStopLineVariations.mcap",
        passes: false,
        rules: &[
            (rule::TRACE_RECORD, Some(1)),
            (rule::CHANNEL_REQUIRED, Some(2)),
        ],
    },
    // 10 of 364 messages 1 ns low: a warning each, the file passes.
    Expect {
        name: "disappearingVehicle.mcap",
        passes: true,
        rules: &[
            (rule::TIME_ROUNDING, Some(10)),
            (rule::PUBLISH_TIME, Some(0)),
        ],
    },
    // 40 of 852 messages 1 ns low, two channels, 45 chunks.
    Expect {
        name: "sensorDataDetectedLaneBoundaries.mcap",
        passes: true,
        rules: &[
            (rule::TIME_ROUNDING, Some(40)),
            (rule::PUBLISH_TIME, Some(0)),
            (rule::TRACE_RECOMMENDED, Some(0)),
        ],
    },
    // Rewritten by the mcap CLI: no metadata, CRCs 0.
    Expect {
        name: "testBrakeAndIndicatorLights.mcap",
        passes: false,
        rules: &[
            (rule::TRACE_RECORD, Some(1)),
            (rule::CHANNEL_REQUIRED, Some(2)),
            (rule::MCAP_CRC, None),
        ],
    },
    // The reference writer's traces: clean, names by the 3.8.0 convention.
    Expect {
        name: "20240101T000000Z_multi_380_7362_10_none.mcap",
        passes: true,
        rules: &[
            (rule::TIME_ROUNDING, Some(0)),
            (rule::TRACE_RECOMMENDED, Some(0)),
            (rule::FILE_NAME_38, Some(0)),
            (rule::CHANNEL_DESCRIPTION_38, Some(0)),
        ],
    },
    Expect {
        name: "20240101T000000Z_multi_380_7362_10_lz4.mcap",
        passes: true,
        rules: &[
            (rule::FILE_NAME_38, Some(0)),
            (rule::MESSAGE_VERSION, Some(0)),
        ],
    },
    Expect {
        name: "20240101T000000Z_multi_380_7362_10_zstd.mcap",
        passes: true,
        rules: &[
            (rule::FILE_NAME_38, Some(0)),
            (rule::MESSAGE_VERSION, Some(0)),
        ],
    },
];

#[test]
fn corpus_verdicts_match_the_readme() {
    let Some(dir) = corpus() else { return };
    let mut files = Vec::new();
    for group in std::fs::read_dir(&dir).unwrap().flatten() {
        if let Ok(entries) = std::fs::read_dir(group.path()) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "mcap")),
            );
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no traces in {}", dir.display());
    let mut checked = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(path).unwrap();
        let report = validate(
            &data,
            &ValidateOptions {
                file_name: Some(name.clone()),
                ..ValidateOptions::default()
            },
        );
        eprintln!(
            "{name}: {} ({} errors, {} warnings, {} infos; {} messages)",
            if report.passed() { "PASS" } else { "FAIL" },
            report.errors,
            report.warnings,
            report.infos,
            report.messages_checked
        );
        // Every trace carries OSI messages and no structural damage.
        assert!(report.osi_channels >= 1, "{name}");
        assert!(
            !report.has(rule::MCAP_STRUCTURE),
            "{name}: {:?}",
            report.findings
        );
        assert_eq!(report.profile, Profile::Osi38, "{name}");
        let Some(e) = EXPECTED.iter().find(|e| e.name == name) else {
            continue;
        };
        checked += 1;
        assert_eq!(
            report.passed(),
            e.passes,
            "{name}: findings {:#?}",
            report.findings
        );
        for (id, count) in e.rules {
            let total = report.counts.get(id).map_or(0, |c| c.total);
            match count {
                Some(n) => assert_eq!(total, *n, "{name}: rule {id}"),
                None => assert!(total > 0, "{name}: rule {id} expected"),
            }
        }
    }
    assert!(checked >= 1, "none of the README's files found");
}

#[test]
fn strict_time_turns_rounding_into_errors() {
    let Some(dir) = corpus() else { return };
    let path = dir.join("lichtblick-asam-osi-converter/sensorDataDetectedLaneBoundaries.mcap");
    let Ok(data) = std::fs::read(&path) else {
        return;
    };
    let report = validate(
        &data,
        &ValidateOptions {
            strict_time: true,
            ..ValidateOptions::default()
        },
    );
    assert!(!report.passed());
    assert_eq!(report.errors, 40);
    // Each finding names the channel and the message index.
    let f = report
        .findings
        .iter()
        .find(|f| f.rule == rule::TIME_ROUNDING)
        .unwrap();
    assert!(f.location.channel.is_some() && f.location.message_index.is_some());
    assert!(f.message.contains("1 ns off"), "{}", f.message);
}

#[test]
fn draft_profile_on_a_published_trace_lists_the_draft_rules() {
    let Some(dir) = corpus() else { return };
    let path =
        dir.join("generated-asam-osi-utilities-0.4.0/20240101T000000Z_multi_380_7362_10_zstd.mcap");
    let Ok(data) = std::fs::read(&path) else {
        return;
    };
    let report = validate(
        &data,
        &ValidateOptions {
            profile: Some(Profile::Draft),
            file_name: Some("20240101T000000Z_multi_380_7362_10_zstd.mcap".into()),
            ..ValidateOptions::default()
        },
    );
    assert_eq!(report.profile, Profile::Draft);
    assert!(!report.passed());
    for id in [
        rule::DRAFT_VERSIONS_RECORD,
        rule::DRAFT_ASAM_OSI_RECORD,
        rule::DRAFT_CHANNEL_REQUIRED,
        rule::FILE_NAME_DRAFT,
    ] {
        assert!(report.has(id), "{id}: {:#?}", report.findings);
    }
    // The 3.8.0 rules are not applied in the draft profile.
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.profile.name() != "osi-3.8")
    );
}
