//! The committed ULog fixtures of `testdata/ulog/` are what the crate's
//! writer makes today (`cargo xtask fixtures` rewrites them): a change to
//! the writer that changes their bytes fails here, in `cargo test -p
//! ulogfile` (`cargo xtask fixtures` runs it with `ROBOLOG_BLESS=1`).

#[test]
fn the_committed_fixtures_are_what_the_writer_makes() {
    let example = ulogfile::write::example_log().expect("the example log is written");
    let features = ulogfile::write::feature_log().expect("the feature log is written");
    // The truncated fixture is the first two thirds of the feature log.
    let truncated = features[..features.len() * 2 / 3].to_vec();
    // And it reads as a truncated log: every sample before the cut.
    let log = ulogfile::ULog::parse(&truncated).expect("a truncated log parses");
    assert!(log.truncation.is_some(), "the cut is reported");
    robolog_testkit::fixtures_current(
        "ulog",
        &[
            ("example.ulg", example),
            ("features.ulg", features),
            ("truncated.ulg", truncated),
        ],
    );
}
