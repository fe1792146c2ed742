//! The committed MCAP fixtures of `testdata/mcap/` are what the crate's
//! writer makes today (`cargo xtask fixtures` rewrites them, through this
//! test with `ROBOLOG_BLESS=1`).

use std::collections::BTreeMap;

/// Small MCAP fixtures written by our writer (deterministic): one per
/// compression, chunked, and one unchunked; 3 channels, 40 messages whose
/// times overlap across chunks, an attachment and a metadata record.
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    use mcapfile::{Compression, WriteOptions, Writer};
    let mut out = Vec::new();
    for (name, compression, use_chunks) in [
        ("chunked-zstd.mcap", Compression::Zstd, true),
        ("chunked-lz4.mcap", Compression::Lz4, true),
        ("chunked-none.mcap", Compression::None, true),
        ("unchunked.mcap", Compression::None, false),
    ] {
        let opts = WriteOptions {
            compression,
            use_chunks,
            chunk_size: 512,
            library: "robolog fixtures".into(),
            ..WriteOptions::default()
        };
        let build = || -> mcapfile::Result<Vec<u8>> {
            let mut w = Writer::new(Vec::new(), opts.clone())?;
            let schema = w.add_schema("Point", "jsonschema", br#"{"type":"object"}"#)?;
            let mut meta = BTreeMap::new();
            meta.insert("frame_id".to_string(), "map".to_string());
            let chans = [
                w.add_channel(schema, "/point", "json", &meta)?,
                w.add_channel(schema, "/point2", "json", &BTreeMap::new())?,
                w.add_channel(0, "/raw", "", &BTreeMap::new())?,
            ];
            for i in 0..40u64 {
                let t = 1_700_000_000_000_000_000 + i * 50_000_000 - (i % 5) * 20_000_000;
                let ch = chans[(i % 3) as usize];
                let data = if ch == chans[2] {
                    vec![i as u8; (i % 9) as usize]
                } else {
                    format!(r#"{{"x": {i}, "y": {}.5}}"#, i * 2).into_bytes()
                };
                w.write_message(ch, i as u32, t, t, &data)?;
                if i == 10 {
                    w.write_attachment(t, t, "calibration.yaml", "text/yaml", b"k: 1\n")?;
                    w.write_metadata("run", &meta)?;
                }
            }
            w.finish()
        };
        match build() {
            Ok(bytes) => out.push((name, bytes)),
            Err(e) => panic!("the fixture {name} could not be written: {e}"),
        }
    }
    out
}

#[test]
fn committed_files_are_what_the_writer_makes() {
    robolog_testkit::fixtures_current("mcap", &fixtures());
}
