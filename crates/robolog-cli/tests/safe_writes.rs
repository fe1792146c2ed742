//! Every command that writes a file: an output that is the input (under
//! any spelling, or through a symlink) is refused with exit code 2 and the
//! input left as it was; an existing output is kept without `--force` and
//! replaced with it; `bag reindex` in place keeps the original as
//! `NAME.orig.bag` and never replaces that backup; no temporary file is
//! left behind, whether the command succeeded or failed.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::{robolog, testdata};

/// A new, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("safe-writes", name)
}

/// The names in `dir` (recursively), sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            v.extend(
                entries(&e.path())
                    .into_iter()
                    .map(|n| format!("{name}/{n}")),
            );
        }
        v.push(name);
    }
    v.sort();
    v
}

fn assert_no_temp_files(dir: &Path) {
    let left: Vec<String> = entries(dir)
        .into_iter()
        .filter(|n| n.contains(".robolog-tmp-") || n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// One writing command: its fixture, the input's name in the scratch
/// folder, and its arguments for an input and an output.
struct Writer {
    name: &'static str,
    fixture: &'static str,
    input: &'static str,
    args: fn(&Path, &Path) -> Vec<OsString>,
}

fn os(parts: &[&str]) -> Vec<OsString> {
    parts.iter().map(OsString::from).collect()
}

fn with(mut args: Vec<OsString>, paths: &[&Path]) -> Vec<OsString> {
    args.extend(paths.iter().map(|p| p.as_os_str().to_owned()));
    args
}

const WRITERS: &[Writer] = &[
    Writer {
        name: "mcap compress",
        fixture: "mcap/chunked-zstd.mcap",
        input: "in.mcap",
        args: |i, o| with(os(&["mcap", "compress"]), &[i, o]),
    },
    Writer {
        name: "mcap recover",
        fixture: "mcap/chunked-zstd.mcap",
        input: "in.mcap",
        args: |i, o| with(os(&["mcap", "recover"]), &[i, o]),
    },
    Writer {
        name: "bag fix",
        fixture: "rosbag/sample-1.2.bag",
        input: "in.bag",
        args: |i, o| with(os(&["bag", "fix"]), &[i, o]),
    },
    Writer {
        name: "bag reindex -o",
        fixture: "rosbag/unindexed.bag",
        input: "in.bag",
        args: |i, o| {
            let mut a = with(os(&["bag", "reindex"]), &[i]);
            a.push("-o".into());
            a.push(o.as_os_str().to_owned());
            a
        },
    },
    Writer {
        name: "ulog params",
        fixture: "ulog/features.ulg",
        input: "in.ulg",
        args: |i, o| with(os(&["ulog", "params"]), &[i, o]),
    },
];

/// Runs `args` (plus `--force` when asked) in `dir`.
fn run(dir: &Path, args: Vec<OsString>, force: bool) -> (Option<i32>, String) {
    let mut cmd = robolog();
    cmd.current_dir(dir).args(args);
    if force {
        cmd.arg("--force");
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_output_that_is_the_input_is_refused_by_every_writer() {
    for w in WRITERS {
        let dir = scratch("same");
        let original = std::fs::read(testdata(w.fixture)).unwrap();
        let input = dir.join(w.input);
        std::fs::write(&input, &original).unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        let link = dir.join("link");
        #[cfg(unix)]
        std::os::unix::fs::symlink(w.input, &link).unwrap();
        #[cfg(not(unix))]
        let link = input.clone();
        let relative = PathBuf::from("sub/..").join(w.input);
        let spellings: [(&str, &Path, PathBuf); 4] = [
            ("the same path", &input, input.clone()),
            ("a relative spelling", Path::new(w.input), relative.clone()),
            ("a `..` spelling", &input, dir.join(&relative)),
            ("a symlink to it", &input, link),
        ];
        for (how, i, o) in &spellings {
            // Even --force does not allow writing onto the input.
            for force in [false, true] {
                let (code, err) = run(&dir, (w.args)(i, o), force);
                assert_eq!(code, Some(2), "{}: {how}: {err}", w.name);
                assert!(
                    err.contains("is the input") && err.contains(&*o.to_string_lossy()),
                    "{}: {how}: {err}",
                    w.name
                );
                assert_eq!(
                    std::fs::read(&input).unwrap(),
                    original,
                    "{}: {how}: the input changed",
                    w.name
                );
            }
        }
        assert_no_temp_files(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn an_existing_output_is_kept_without_force_and_replaced_with_it() {
    for w in WRITERS {
        let dir = scratch("exists");
        let input = dir.join(w.input);
        std::fs::copy(testdata(w.fixture), &input).unwrap();
        let out = dir.join("out");
        std::fs::write(&out, b"previous").unwrap();
        let (code, err) = run(&dir, (w.args)(&input, &out), false);
        assert_eq!(code, Some(2), "{}: {err}", w.name);
        assert!(
            err.contains(&*out.to_string_lossy()) && err.contains("--force"),
            "{}: {err}",
            w.name
        );
        assert_eq!(std::fs::read(&out).unwrap(), b"previous", "{}", w.name);
        // Written once to a new file, then again over it with --force:
        // the same bytes.
        let fresh = dir.join("fresh");
        let (code, err) = run(&dir, (w.args)(&input, &fresh), false);
        assert_eq!(code, Some(0), "{}: {err}", w.name);
        let (code, err) = run(&dir, (w.args)(&input, &out), true);
        assert_eq!(code, Some(0), "{}: {err}", w.name);
        let written = std::fs::read(&out).unwrap();
        assert_ne!(written, b"previous", "{}", w.name);
        assert_eq!(written, std::fs::read(&fresh).unwrap(), "{}", w.name);
        assert_no_temp_files(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_failed_write_leaves_no_output_and_no_temporary_file() {
    for w in WRITERS {
        let dir = scratch("fail");
        // An input of the wrong format or a damaged header fails before
        // anything is complete.
        let input = dir.join(w.input);
        std::fs::write(&input, b"not a log at all, just some text\n").unwrap();
        let out = dir.join("out");
        let (code, err) = run(&dir, (w.args)(&input, &out), false);
        assert_eq!(code, Some(1), "{}: {err}", w.name);
        assert!(!out.exists(), "{}", w.name);
        // A folder that does not exist.
        std::fs::copy(testdata(w.fixture), &input).unwrap();
        let nowhere = dir.join("missing").join("out");
        let (code, err) = run(&dir, (w.args)(&input, &nowhere), false);
        assert_eq!(code, Some(1), "{}: {err}", w.name);
        assert_eq!(entries(&dir), [w.input], "{}", w.name);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fn csv(dir: &Path, input: &Path, out: &Path, force: bool) -> (Option<i32>, String) {
    let args = with(
        os(&["ulog", "csv", "-m", "sensor_gps", "-o"]),
        &[out, input],
    );
    run(dir, args, force)
}

#[test]
fn ulog_csv_keeps_existing_files_without_force_and_never_writes_the_input() {
    let dir = scratch("csv");
    let input = dir.join("features.ulg");
    let original = std::fs::read(testdata("ulog/features.ulg")).unwrap();
    std::fs::write(&input, &original).unwrap();
    let out = dir.join("csv");
    std::fs::create_dir(&out).unwrap();
    let file = out.join("features_sensor_gps_0.csv");
    std::fs::write(&file, b"previous").unwrap();
    let (code, err) = csv(&dir, &input, &out, false);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("features_sensor_gps_0.csv") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"previous");
    // With every topic: the refusal of the existing file comes before any
    // other file is written.
    let all = run(
        &dir,
        with(os(&["ulog", "csv", "-o"]), &[&out, &input]),
        false,
    );
    assert_eq!(all.0, Some(2), "{}", all.1);
    assert_eq!(entries(&out), ["features_sensor_gps_0.csv"]);
    let (code, err) = csv(&dir, &input, &out, true);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("timestamp,time_utc_usec,lat,alt,c")
    );
    assert_eq!(text.lines().count(), 7);
    assert_no_temp_files(&dir);

    // A CSV file name that is a symlink to the input: refused even with
    // --force, the input intact.
    #[cfg(unix)]
    {
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&input, &file).unwrap();
        let (code, err) = csv(&dir, &input, &out, true);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("is the input"), "{err}");
        assert_eq!(std::fs::read(&input).unwrap(), original);
        assert_no_temp_files(&dir);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bag_reindex_in_place_keeps_name_orig_bag_and_never_replaces_it() {
    let dir = scratch("reindex");
    let bag = dir.join("run.bag");
    let original = std::fs::read(testdata("rosbag/truncated.bag")).unwrap();
    std::fs::write(&bag, &original).unwrap();
    let reindex = || {
        let out = robolog()
            .args(["bag", "reindex"])
            .arg(&bag)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = reindex();
    assert_eq!(code, Some(0), "{err}");
    // Named as `rosbag reindex` names it: the name without its extension.
    let backup = dir.join("run.orig.bag");
    assert_eq!(std::fs::read(&backup).unwrap(), original);
    let first = std::fs::read(&bag).unwrap();
    assert_ne!(first, original);
    assert_eq!(entries(&dir), ["run.bag", "run.orig.bag"]);

    // A second run would replace the true original: refused, nothing
    // changed.
    let (code, err) = reindex();
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("run.orig.bag") && err.contains("never replaced"),
        "{err}"
    );
    assert_eq!(std::fs::read(&backup).unwrap(), original);
    assert_eq!(std::fs::read(&bag).unwrap(), first);
    assert_eq!(entries(&dir), ["run.bag", "run.orig.bag"]);

    // A bag without an extension gets NAME.orig.bag too.
    let plain = dir.join("plain");
    std::fs::write(&plain, &original).unwrap();
    let out = robolog()
        .args(["bag", "reindex"])
        .arg(&plain)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(dir.join("plain.orig.bag")).unwrap(), original);
    assert_no_temp_files(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bag_reindex_in_place_of_a_bad_input_touches_nothing() {
    let dir = scratch("reindex-bad");
    let bag = dir.join("run.bag");
    std::fs::write(&bag, b"not a bag\n").unwrap();
    let out = robolog()
        .args(["bag", "reindex"])
        .arg(&bag)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&bag).unwrap(), b"not a bag\n");
    assert_eq!(entries(&dir), ["run.bag"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
