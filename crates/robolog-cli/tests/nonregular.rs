//! Inputs that are not regular files are refused at once with one line on
//! stderr, instead of being read until memory runs out or blocking.

#![cfg(unix)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// `robolog info PATH`, killed after ten seconds so a regression fails the
/// test instead of hanging it or exhausting memory.
fn info(path: &std::path::Path) -> std::process::Output {
    let start = Instant::now();
    let out = Command::cargo_bin("robolog")
        .unwrap()
        .arg("info")
        .arg(path)
        .timeout(Duration::from_secs(10))
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(10), "{out:?}");
    out
}

fn assert_refused(path: &std::path::Path, what: &str) {
    let out = info(path);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "robolog: {}: is {what}, not a regular file\n",
            path.display()
        )
    );
}

#[test]
fn info_refuses_dev_zero() {
    assert_refused(std::path::Path::new("/dev/zero"), "a character device");
}

#[test]
fn info_refuses_a_fifo_without_a_writer() {
    let fifo = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nonregular.fifo");
    let _ = std::fs::remove_file(&fifo);
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    assert_refused(&fifo, "a FIFO");
    std::fs::remove_file(&fifo).unwrap();
}

#[test]
fn info_refuses_a_directory() {
    assert_refused(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")),
        "a directory",
    );
}
