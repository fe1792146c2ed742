//! `robolog check` on the OSI sample traces of the corpus
//! (`../shared/corpus/osi-mcap`, skipped when absent) and on committed
//! fixtures of the other formats.

mod common;

use std::path::PathBuf;

use common::robolog;
use serde_json::Value as Json;

/// An OSI trace of the corpus (`osi-mcap/<rel>`), or `None` when absent.
fn corpus(rel: &str) -> Option<PathBuf> {
    common::corpus(&format!("osi-mcap/{rel}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn conforming_trace_passes_with_exit_0() {
    let Some(p) =
        corpus("generated-asam-osi-utilities-0.4.0/20240101T000000Z_multi_380_7362_10_lz4.mcap")
    else {
        return;
    };
    let out = robolog().arg("check").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("profile osi-3.8"), "{s}");
    assert!(
        s.contains("3 channels (3 OSI), 30 OSI messages checked"),
        "{s}"
    );
    assert!(
        s.lines()
            .last()
            .unwrap()
            .starts_with("PASS: 0 errors, 0 warnings"),
        "{s}"
    );
}

#[test]
fn non_conforming_trace_fails_with_exit_1_and_json_report() {
    let Some(p) = corpus("lichtblick-asam-osi-converter/MovingHostWithStopLine.mcap") else {
        return;
    };
    let out = robolog()
        .args(["check", "--json"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["passed"], false);
    assert_eq!(j["profile"], "osi-3.8");
    assert_eq!(j["errors"], 3);
    assert_eq!(j["messages_checked"], 152);
    let rules: Vec<&str> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["level"] == "error")
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "osi38.metadata.trace",
            "osi38.channel.required",
            "osi38.channel.required"
        ]
    );
    let channel_finding = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "osi38.channel.required")
        .unwrap();
    assert_eq!(channel_finding["location"]["topic"], "/osi3/sensor_view");
    assert_eq!(channel_finding["location"]["channel"], 1);
    assert!(channel_finding["location"]["offset"].is_u64());
}

#[test]
fn rounding_artefacts_are_warnings_unless_strict() {
    let Some(p) = corpus("lichtblick-asam-osi-converter/sensorDataDetectedLaneBoundaries.mcap")
    else {
        return;
    };
    let out = robolog()
        .args(["check", "--json"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["counts"]["osi.message.time-rounding"]["total"], 40);
    assert_eq!(j["counts"]["osi.message.time-rounding"]["listed"], 20);
    let out = robolog()
        .args(["check", "--strict-time", "--max-per-rule", "100"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = text(&out.stdout);
    assert_eq!(
        s.matches("error [osi.message.time-rounding]").count(),
        40,
        "{s}"
    );
}

#[test]
fn draft_profile_is_selectable() {
    let Some(p) =
        corpus("generated-asam-osi-utilities-0.4.0/20240101T000000Z_multi_380_7362_10_zstd.mcap")
    else {
        return;
    };
    let out = robolog()
        .args(["check", "--profile", "draft", "--json"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["profile"], "draft");
    assert_eq!(j["profile_reason"], "chosen by the caller");
    assert!(j["counts"]["draft.metadata.versions"]["total"].as_u64() >= Some(1));
}

#[test]
fn rules_are_listed() {
    let out = robolog()
        .args(["check", "--rules", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = j
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"osi.message.publish-time"));
    assert!(ids.contains(&"draft.metadata.asam-osi"));
    let text_out = robolog().args(["check", "--rules"]).output().unwrap();
    assert_eq!(text(&text_out.stdout).lines().count(), ids.len());
}

#[test]
fn other_formats_get_a_full_read() {
    let vel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vellog/sensors.vel");
    let out = robolog()
        .args(["check", "--json"])
        .arg(&vel)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["passed"], true);
    assert_eq!(j["format"], "vellog");
    assert!(j["messages_checked"].as_u64().unwrap() > 0);
    // The same file cut in half: the strict read stops with an error.
    let bytes = std::fs::read(&vel).unwrap();
    let dir = std::env::temp_dir().join(format!("robolog-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.vel");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = robolog().arg("check").arg(&cut).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("FAIL"));
    let _ = std::fs::remove_dir_all(dir);
}

fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(rel)
}

/// An MCAP file that is no OSI trace gets only the MCAP structural checks:
/// profile `mcap`, no OSI findings.
#[test]
fn non_osi_mcap_gets_only_the_structural_checks() {
    let p = testdata("mcap/chunked-lz4.mcap");
    let out = robolog().arg("check").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    let first = s.lines().next().unwrap();
    assert!(
        first.ends_with(
            "chunked-lz4.mcap: MCAP file, profile mcap (the file carries neither OSI rule set's \
             meta-data nor an osi3.* schema: no OSI trace; only the MCAP structural checks apply)"
        ),
        "{s}"
    );
    assert_eq!(
        s.lines().nth(1),
        Some("3 channels (0 OSI), 0 OSI messages checked")
    );
    assert_eq!(
        s.lines().last(),
        Some("PASS: 0 errors, 0 warnings, 0 infos")
    );

    let out = robolog()
        .args(["check", "--json"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["profile"], "mcap");
    assert!(
        doc["profile_reason"]
            .as_str()
            .unwrap()
            .contains("no OSI trace")
    );
    assert_eq!(doc["passed"], true);
    assert_eq!(doc["channels"], 3);
    assert_eq!(doc["osi_channels"], 0);
    assert_eq!(doc["findings"], Json::Array(vec![]));
}

/// A damaged non-OSI MCAP still fails on the structural rules (and only on
/// them); `--profile` applies the OSI rules whatever the file holds.
#[test]
fn non_osi_mcap_structure_and_forced_profile() {
    let bytes = std::fs::read(testdata("mcap/chunked-zstd.mcap")).unwrap();
    let cut = std::env::temp_dir().join(format!("robolog-check-cut-{}.mcap", std::process::id()));
    std::fs::write(&cut, &bytes[..bytes.len() - 40]).unwrap();
    let out = robolog()
        .args(["check", "--json"])
        .arg(&cut)
        .output()
        .unwrap();
    std::fs::remove_file(&cut).ok();
    assert_eq!(out.status.code(), Some(1));
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["profile"], "mcap");
    let rules: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"mcap.structure"), "{rules:?}");
    assert!(rules.iter().all(|r| r.starts_with("mcap.")), "{rules:?}");

    let out = robolog()
        .args(["check", "--json", "--profile", "osi-3.8"])
        .arg(testdata("mcap/chunked-lz4.mcap"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["profile"], "osi-3.8");
    assert_eq!(doc["profile_reason"], "chosen by the caller");
    assert!(doc["counts"]["osi.channel.present"]["total"] == 1, "{doc}");
}

/// A ROS 2 MCAP (cdr messages) is no OSI trace.
#[test]
fn ros2_mcap_gets_no_osi_findings() {
    let Some(p) = common::corpus("ros2-mcap/cdr_test_0.mcap") else {
        return;
    };
    let out = robolog()
        .args(["check", "--json"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["profile"], "mcap");
    assert_eq!(doc["errors"], 0);
    assert_eq!(doc["warnings"], 0);
    // Only the two notices that its CRCs were not computed.
    assert_eq!(doc["counts"]["mcap.crc-not-computed"]["total"], 2, "{doc}");
    assert_eq!(doc["counts"].as_object().unwrap().len(), 1, "{doc}");
}
