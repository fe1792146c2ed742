//! The committed ULog fixtures of `testdata/ulog/` are what the crate's
//! writer makes today (`cargo xtask fixtures` rewrites them): a change to
//! the writer that changes their bytes fails here, in `cargo test -p
//! ulogfile`, not only in the gate.

use std::path::PathBuf;

fn committed(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/ulog")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_committed_fixtures_are_what_the_writer_makes() {
    let example = ulogfile::write::example_log().expect("the example log is written");
    let features = ulogfile::write::feature_log().expect("the feature log is written");
    assert!(
        committed("example.ulg") == example,
        "testdata/ulog/example.ulg is stale: run `cargo xtask fixtures`"
    );
    assert!(
        committed("features.ulg") == features,
        "testdata/ulog/features.ulg is stale: run `cargo xtask fixtures`"
    );
    // The truncated fixture is the first two thirds of the feature log.
    let truncated = &features[..features.len() * 2 / 3];
    assert!(
        committed("truncated.ulg") == truncated,
        "testdata/ulog/truncated.ulg is stale: run `cargo xtask fixtures`"
    );
    // And it reads as a truncated log: every sample before the cut.
    let log = ulogfile::ULog::parse(truncated).expect("a truncated log parses");
    assert!(log.truncation.is_some(), "the cut is reported");
}
