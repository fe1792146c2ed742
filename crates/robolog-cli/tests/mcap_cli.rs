//! `robolog mcap ...` and `robolog info/cat` on the committed MCAP
//! fixtures (`testdata/mcap/`, written by `cargo xtask fixtures`).

mod common;

use std::path::PathBuf;

use common::{robolog, testdata, text};
use serde_json::Value as Json;

fn fixture(name: &str) -> PathBuf {
    testdata(&format!("mcap/{name}"))
}

#[test]
fn info_json_describes_every_fixture() {
    for name in [
        "chunked-zstd.mcap",
        "chunked-lz4.mcap",
        "chunked-none.mcap",
        "unchunked.mcap",
    ] {
        let out = robolog()
            .args(["info", "--json"])
            .arg(fixture(name))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let j: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["format"], "mcap");
        assert_eq!(j["message_count"], 40);
        assert_eq!(j["start_ns"], 1_700_000_000_000_000_000u64);
        assert_eq!(j["channels"][0]["topic"], "/point");
        assert_eq!(j["channels"][0]["count"], 14);
        assert_eq!(j["channels"][2]["type"], "");
        assert_eq!(j["metadata"]["metadata.run.frame_id"], "map");
    }
}

#[test]
fn cat_json_decodes_json_payloads_in_time_order() {
    let out = robolog()
        .args(["cat", "--json", "--topic", "/point"])
        .arg(fixture("chunked-lz4.mcap"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<Json> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 14);
    assert_eq!(lines[1]["data"]["x"], 3);
    assert_eq!(lines[1]["data"]["y"], 6.5);
    let times: Vec<i64> = lines
        .iter()
        .map(|l| l["log_time_ns"].as_i64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn mcap_info_prints_like_the_mcap_cli() {
    let out = robolog()
        .args(["mcap", "info"])
        .arg(fixture("chunked-zstd.mcap"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let t = text(&out.stdout);
    // The header and channel tables as Go's table writer leaves them:
    // every cell padded to its column and followed by two spaces; the
    // duration as Go's time.Duration prints it (`1.87s`), dates as
    // RFC3339Nano (no trailing zeros).
    assert!(
        t.starts_with(
            "library:   robolog fixtures                                \n\
             profile:                                                   \n\
             messages:  40                                              \n\
             duration:  1.87s                                           \n\
             start:     2023-11-14T22:13:20Z (1700000000.000000000)     \n\
             end:       2023-11-14T22:13:21.87Z (1700000001.870000000)  \n"
        ),
        "{t}"
    );
    // Sizes and rates as the Go CLI prints them (humanBytes, `(x Hz)`),
    // columns aligned.
    assert!(
        t.contains(
            "\tzstd: [5/5 chunks] [1.96 KiB/1013.00 B (49.48%)] [541.00 B/sec] \n\
             chunks:\n\tmax uncompressed size: 552.00 B\n\tmax compressed size: 308.00 B\n\
             \toverlaps: no\n"
        ),
        "{t}"
    );
    assert!(
        t.contains(
            "channels:\n\
             \t(0) /point   14 msgs (7.49 Hz)   : Point [jsonschema]  \n\
             \t(1) /point2  13 msgs (6.95 Hz)   : Point [jsonschema]  \n\
             \t(2) /raw     13 msgs (6.95 Hz)   : <no schema>         \n"
        ),
        "{t}"
    );
    assert!(
        t.ends_with("channels: 3\nattachments: 1\nmetadata: 1\n"),
        "{t}"
    );
}

#[test]
fn doctor_compress_and_recover() {
    let dir = std::env::temp_dir().join(format!("robolog-mcap-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = robolog()
        .args(["mcap", "doctor"])
        .arg(fixture("chunked-none.mcap"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // Compress to lz4: same messages, now lz4 chunks, still clean.
    let lz4 = dir.join("lz4.mcap");
    let out = robolog()
        .args(["mcap", "compress", "--compression", "lz4"])
        .arg(fixture("chunked-none.mcap"))
        .arg(&lz4)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = robolog().args(["mcap", "info"]).arg(&lz4).output().unwrap();
    // Two chunks: the attachment closes the first.
    assert!(text(&out.stdout).contains("\tlz4: [2/2 chunks]"));
    // A truncated copy: recover keeps what is readable and says what was lost.
    let bytes = std::fs::read(fixture("chunked-zstd.mcap")).unwrap();
    let cut = dir.join("cut.mcap");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let fixed = dir.join("fixed.mcap");
    let out = robolog()
        .args(["mcap", "recover"])
        .arg(&cut)
        .arg(&fixed)
        .output()
        .unwrap();
    // Data was lost but some recovered: `mcap recover`'s status 3.
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(err.contains("truncated at byte"), "{err}");
    assert!(err.contains("recovered partially"), "{err}");
    let out = robolog()
        .args(["info", "--json"])
        .arg(&fixed)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    let n = j["message_count"].as_u64().unwrap();
    assert!(n > 0 && n < 40, "{n}");
    // The truncated file itself: info reports the cut and exits 1.
    let out = robolog().args(["info"]).arg(&cut).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("robolog: ") && err.contains(": truncated at byte"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn not_an_mcap_file_is_a_clean_error() {
    let out = robolog()
        .args(["mcap", "doctor"])
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vellog/sensors.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("at byte 0: expected an MCAP file"), "{err}");
    assert_eq!(err.lines().count(), 1);
    let out = robolog().args(["mcap", "frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Offset of the first top-level record with `opcode` (after the magic).
fn record_offset(bytes: &[u8], opcode: u8) -> usize {
    let mut pos = 8;
    while bytes[pos] != opcode {
        let len = u64::from_le_bytes(bytes[pos + 1..pos + 9].try_into().unwrap());
        pos += 9 + len as usize;
    }
    pos
}

#[test]
fn recover_exits_like_mcap_recover() {
    let dir = std::env::temp_dir().join(format!("robolog-mcap-recover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Each run replaces the previous run's output: --force.
    let run = |input: &std::path::Path| {
        let out = robolog()
            .args(["mcap", "recover", "--force"])
            .arg(input)
            .arg(dir.join("out.mcap"))
            .output()
            .unwrap();
        (out.status.code(), text(&out.stderr))
    };
    let bytes = std::fs::read(fixture("chunked-zstd.mcap")).unwrap();
    // 0: a sound file.
    let (code, err) = run(&fixture("chunked-zstd.mcap"));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("wrote 40 messages"), "{err}");
    // 0: an interrupted writer's file (it ends after a complete record,
    // without Data End, summary and footer): nothing is lost, the summary
    // is rebuilt.
    let unfinished = dir.join("unfinished.mcap");
    std::fs::write(&unfinished, &bytes[..record_offset(&bytes, 0x0f)]).unwrap();
    let (code, err) = run(&unfinished);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("wrote 40 messages"), "{err}");
    // 3: cut inside a chunk, the chunks before it recovered.
    let cut = dir.join("cut.mcap");
    let second_half = bytes.len() / 2;
    std::fs::write(&cut, &bytes[..second_half]).unwrap();
    let (code, err) = run(&cut);
    assert_eq!(code, Some(3), "{err}");
    // 3: a damaged chunk in a complete file: the others are recovered.
    let chunk = record_offset(&bytes, 0x06);
    let mut damaged = bytes.clone();
    damaged[chunk + 60] ^= 0xff;
    let bad = dir.join("bad.mcap");
    std::fs::write(&bad, &damaged).unwrap();
    let (code, err) = run(&bad);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains(&format!("at byte {chunk}")), "{err}");
    // 1: nothing recoverable (the file ends inside its Header).
    let stub = dir.join("stub.mcap");
    std::fs::write(&stub, &bytes[..13]).unwrap();
    let (code, err) = run(&stub);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("nothing could be recovered"), "{err}");
    // 1: not an MCAP file at all.
    let (code, err) =
        run(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vellog/sensors.vel"));
    assert_eq!(code, Some(1), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `robolog cat --json` decodes OSI protobuf messages through the schema's
/// FileDescriptorSet (sample trace in `../shared/corpus`, skipped when
/// absent).
#[test]
fn cat_json_decodes_osi_protobuf_messages() {
    let Some(file) = robolog_testkit::corpus(
        "osi-mcap/generated-asam-osi-utilities-0.4.0/\
         20240101T000000Z_multi_380_7362_10_zstd.mcap",
    ) else {
        return;
    };
    let out = robolog()
        .args(["cat", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<Json> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 30);
    let topics: Vec<&str> = lines[..3]
        .iter()
        .map(|l| l["topic"].as_str().unwrap())
        .collect();
    assert_eq!(topics, ["gt", "sv", "hvd"]);
    assert_eq!(lines[0]["type"], "osi3.GroundTruth");
    for l in &lines {
        let d = &l["data"];
        // Version 3.8.0 (patch 0 is not set on the wire).
        assert_eq!(d["version"]["version_major"], 3);
        assert_eq!(d["version"]["version_minor"], 8);
        assert!(d["version"]["version_patch"].is_null() || d["version"]["version_patch"] == 0);
        // publish_time == OSI timestamp.
        let ns = d["timestamp"]["seconds"].as_u64().unwrap_or(0) * 1_000_000_000
            + d["timestamp"]["nanos"].as_u64().unwrap_or(0);
        assert_eq!(Some(ns), l["log_time_ns"].as_u64(), "{l}");
    }
    // The second frame: 0.333333333 s.
    assert_eq!(lines[3]["data"]["timestamp"]["seconds"], 0);
    assert_eq!(lines[3]["data"]["timestamp"]["nanos"], 333_333_333);
    // The last frame: 3.0 s.
    assert_eq!(lines[29]["data"]["timestamp"]["seconds"], 3);
    // The SensorView embeds the GroundTruth of its frame.
    let gt = &lines[4]["data"]["global_ground_truth"];
    assert_eq!(gt["timestamp"]["nanos"], 333_333_333);
    assert_eq!(gt["moving_object"][0]["id"]["value"], 1);
}
