//! A bag whose index is wrong: one chunk info of `sample.bag` (75
//! messages) points at byte 0 instead of its chunk (3 messages). `info`,
//! `bag info` and `check` say so and exit 1; `bag reindex` and `bag fix`
//! rebuild from a scan of the records and write all 75 messages.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn robolog() -> Command {
    Command::cargo_bin("robolog").unwrap()
}

/// A folder of its own for each test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("damaged-index-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `sample.bag` with the chunk info of the chunk at byte 4117 pointing at 0.
fn corrupt_bag(dir: &Path) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/rosbag/sample.bag");
    let mut bytes = std::fs::read(path).unwrap();
    let mut field = b"chunk_pos=".to_vec();
    field.extend_from_slice(&4117u64.to_le_bytes());
    let at = bytes.windows(field.len()).position(|w| w == field).unwrap() + b"chunk_pos=".len();
    bytes[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
    let bag = dir.join("corrupt.bag");
    std::fs::write(&bag, bytes).unwrap();
    bag
}

fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = robolog().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn info_and_check_report_a_chunk_info_that_points_at_no_chunk() {
    let dir = scratch("info");
    let bag = corrupt_bag(&dir);
    for cmd in [&["info"][..], &["bag", "info"], &["check"]] {
        let mut args: Vec<&std::ffi::OsStr> = cmd.iter().map(|s| s.as_ref()).collect();
        args.push(bag.as_os_str());
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(1), "{cmd:?}: {err}");
        // `check` prints its findings on stdout.
        let said = format!("{out}{err}");
        assert!(
            said.contains(
                "expected a chunk record (op 0x05) at byte 0, where a chunk info of the index points"
            ),
            "{cmd:?}: {said}"
        );
        // What is reported comes from the scan: every message.
        assert!(out.contains("75"), "{cmd:?}: {out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reindex_and_fix_write_every_message_found_by_the_scan() {
    let dir = scratch("rewrite");
    let bag = corrupt_bag(&dir);
    let reindexed = dir.join("reindexed.bag");
    let fixed = dir.join("fixed.bag");
    let reindex: [&std::ffi::OsStr; 5] = [
        "bag".as_ref(),
        "reindex".as_ref(),
        bag.as_os_str(),
        "-o".as_ref(),
        reindexed.as_os_str(),
    ];
    let fix: [&std::ffi::OsStr; 4] = [
        "bag".as_ref(),
        "fix".as_ref(),
        bag.as_os_str(),
        fixed.as_os_str(),
    ];
    for (args, out) in [(&reindex[..], &reindexed), (&fix[..], &fixed)] {
        let (code, stdout, err) = run(args);
        assert_eq!(code, Some(0), "{err}");
        assert!(
            stdout.ends_with(&format!(
                ": wrote 75 messages on 4 connections to {}\n",
                out.display()
            )),
            "{stdout}"
        );
        assert!(
            err.contains("where a chunk info of the index points"),
            "{err}"
        );
        // The result is a healthy bag with all 75 messages.
        let (code, text, err) = run(&["bag".as_ref(), "info".as_ref(), out.as_os_str()]);
        assert_eq!(code, Some(0), "{err}");
        assert!(text.contains("messages:    75\n"), "{text}");
        let (code, lines, err) = run(&["cat".as_ref(), out.as_os_str()]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(lines.lines().count(), 75);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
