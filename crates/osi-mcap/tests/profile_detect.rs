//! `ValidateOptions::detect_non_osi`: MCAP files that are no OSI traces get
//! the `mcap` profile (only the structural checks).

use mcapfile::{WriteOptions, Writer};
use osi_mcap::validate::{Profile, ValidateOptions, validate};

fn file(schema_name: &str) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), WriteOptions::default()).unwrap();
    let s = w.add_schema(schema_name, "jsonschema", b"{}").unwrap();
    let ch = w.add_channel(s, "/a", "json", &Default::default()).unwrap();
    w.write_message(ch, 0, 10, 10, b"{}").unwrap();
    w.finish().unwrap()
}

fn detect() -> ValidateOptions {
    ValidateOptions {
        detect_non_osi: true,
        ..Default::default()
    }
}

#[test]
fn plain_mcap_is_checked_structurally_only() {
    let f = file("pkg/Thing");
    let r = validate(&f, &detect());
    assert_eq!(r.profile, Profile::Mcap);
    assert!(
        r.profile_reason.contains("no OSI trace"),
        "{}",
        r.profile_reason
    );
    assert!(r.passed());
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!((r.channels, r.osi_channels), (1, 0));

    // Without detection the same file is an OSI trace missing everything.
    let r = validate(&f, &ValidateOptions::default());
    assert_eq!(r.profile, Profile::Osi38);
    assert!(!r.passed());
    assert!(r.has("osi.channel.present"));
}

#[test]
fn an_osi3_schema_makes_it_an_osi_trace() {
    let r = validate(&file("osi3.SensorView"), &detect());
    assert_eq!(r.profile, Profile::Osi38);
    assert!(!r.passed());
}

#[test]
fn a_forced_profile_wins() {
    let f = file("pkg/Thing");
    let r = validate(
        &f,
        &ValidateOptions {
            profile: Some(Profile::Osi38),
            ..detect()
        },
    );
    assert_eq!(r.profile, Profile::Osi38);
    assert_eq!(Profile::parse("mcap"), Some(Profile::Mcap));
    assert_eq!(Profile::Mcap.to_string(), "mcap");
}
