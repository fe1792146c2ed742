//! ROS 2 bags read through temporary copies (FILE-compressed storage
//! files, databases with a write-ahead log): every command removes its
//! copies from the temporary folder when it ends, also on SIGTERM; the
//! copies and bag folders a killed run left are named by the next run with
//! the command that removes them; a bag of many files is read under a low
//! limit of open files.

#![cfg(unix)]

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{robolog, scratch_dir, testdata, text};
use rosbag2::{Bag2Writer, CompressionMode, StorageId, TopicDefinition, WriteOptions};

/// A std_msgs/msg/String CDR payload.
fn string_cdr(s: &str) -> Vec<u8> {
    let mut v = vec![0, 1, 0, 0];
    v.extend(((s.len() + 1) as u32).to_le_bytes());
    v.extend(s.as_bytes());
    v.push(0);
    v
}

/// A bag at `path` of `messages` `/chatter` strings of `len` bytes.
fn bag(path: &Path, options: WriteOptions, messages: u32, len: usize) {
    let mut w = Bag2Writer::create(path, options).unwrap();
    let def = TopicDefinition::msg("string data\n");
    let t = w
        .add_topic("/chatter", "std_msgs/msg/String", &def, &[])
        .unwrap();
    for i in 0..messages {
        let text = format!("{i:06}{}", "x".repeat(len));
        w.write(t, 1_000 + i64::from(i), &string_cdr(&text))
            .unwrap();
    }
    w.finish().unwrap();
}

/// What the folder holds, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `robolog` with its own, empty temporary folder.
fn with_tmpdir(tmp: &Path) -> assert_cmd::Command {
    let mut c = robolog();
    c.env("TMPDIR", tmp);
    c
}

#[test]
fn every_command_removes_its_temporary_copies() {
    let dir = scratch_dir("rosbag2-temps", "commands");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let input = dir.join("zbag");
    bag(
        &input,
        WriteOptions::new(StorageId::Sqlite3).with_compression(CompressionMode::File),
        30,
        10,
    );
    let input_s = input.to_str().unwrap();
    let runs: [&[&str]; 4] = [
        &["info", input_s],
        &["cat", "--json", input_s],
        &["sql", "SELECT count(*) AS n FROM chatter", input_s],
        &["check", input_s],
    ];
    for args in runs {
        let out = with_tmpdir(&tmp).args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(names(&tmp), Vec::<String>::new(), "{args:?} left copies");
    }
    let out = with_tmpdir(&tmp)
        .args([
            "sql",
            "--format",
            "csv",
            "SELECT count(*) AS n FROM chatter",
            input_s,
        ])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout).lines().last(), Some("30"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigterm_and_sigint_remove_the_temporary_copies() {
    let dir = scratch_dir("rosbag2-temps", "signals");
    let input = dir.join("zbag");
    // About 300 KB of JSON lines: more than a pipe holds.
    bag(
        &input,
        WriteOptions::new(StorageId::Sqlite3).with_compression(CompressionMode::File),
        300,
        1000,
    );
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let tmp = dir.join(format!("tmp-{signal}"));
        std::fs::create_dir_all(&tmp).unwrap();
        // Its output is not read: it blocks writing, with the copy open.
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_robolog"))
            .env("TMPDIR", &tmp)
            .args(["cat", "--json"])
            .arg(&input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while names(&tmp).is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no copy was made"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let copies = names(&tmp);
        assert!(
            copies[0].starts_with(&format!("rosbag2-{}-", child.id())),
            "{copies:?}"
        );
        let kill = std::process::Command::new("kill")
            .args(["-s", signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        // Its output is still not read: it cannot end on its own.
        let mut child = child;
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(code), "{:?} {err}", status.signal());
        assert!(
            err.contains(&format!("interrupted by SIG{signal}")),
            "{err}"
        );
        assert_eq!(names(&tmp), Vec::<String>::new(), "SIG{signal} left copies");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn leftovers_of_killed_runs_are_named_with_the_command_that_removes_them() {
    let dir = scratch_dir("rosbag2-temps", "leftovers");
    let tmp = dir.join("tmp");
    // Process ids are below 2^22 on Linux: this one never runs.
    let copy = tmp.join("rosbag2-4294967295-123-0");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::write(copy.join("storage.db3"), "a decompressed database").unwrap();
    let input = dir.join("plain");
    bag(&input, WriteOptions::new(StorageId::Sqlite3), 3, 1);
    let out = with_tmpdir(&tmp)
        .args(["info"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let shown = copy.display();
    assert!(
        text(&out.stderr).contains(&format!(
            "robolog: {shown} holds temporary copies that an interrupted run (process \
             4294967295) made of a ROS 2 bag it read; they are copies only: delete them with \
             `rm -r {shown}`"
        )),
        "{}",
        text(&out.stderr)
    );
    assert!(copy.join("storage.db3").exists(), "named, not removed");

    // The folder of a bag a killed `convert --ros2` was writing.
    let out_bag = dir.join("out");
    let left = dir.join(".out.rosbag2-tmp-4294967295");
    std::fs::create_dir_all(&left).unwrap();
    std::fs::write(left.join("out_0.db3"), "rows").unwrap();
    let run = robolog()
        .env("TMPDIR", &tmp)
        .arg("convert")
        .arg(testdata("rosbag/sample.bag"))
        .arg(&out_bag)
        .arg("--ros2")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let shown = left.display();
    assert!(
        text(&run.stderr).contains(&format!(
            "robolog: {}: {shown} was left by an interrupted run (process 4294967295) and holds \
             the storage files of the bag it had written; it is kept: read each of its storage \
             files alone (`robolog info {}`), then delete it with `rm -r {shown}`",
            out_bag.display(),
            left.join("out_0.db3").display()
        )),
        "{}",
        text(&run.stderr)
    );
    assert!(left.join("out_0.db3").exists(), "named, not removed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_split_bag_of_many_files_is_read_under_a_low_open_file_limit() {
    let dir = scratch_dir("rosbag2-temps", "split");
    let input: PathBuf = dir.join("split");
    // One message a file: 300 files.
    bag(
        &input,
        WriteOptions::new(StorageId::Sqlite3).with_max_bagfile_size(1),
        300,
        1,
    );
    assert_eq!(
        names(&input).iter().filter(|n| n.ends_with(".db3")).count(),
        300
    );
    // 64 descriptors: the standard ones, the binary, the thread pool's,
    // and a few storage files.
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "ulimit -n 64 && exec \"$0\" cat --json \"$1\"",
            env!("CARGO_BIN_EXE_robolog"),
        ])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 300);
    assert!(lines[0].contains("\"000000x\""), "{}", lines[0]);
    assert!(lines[299].contains("\"000299x\""), "{}", lines[299]);
    std::fs::remove_dir_all(&dir).unwrap();
}
