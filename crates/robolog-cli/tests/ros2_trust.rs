//! ROS 2 bag folders at the command line: `--force` replaces only a bag
//! folder, names robolog writes are names it reads, one rule for stamps
//! at the ends of the time range, and what a `metadata.yaml` that is no
//! text file is reported as.

mod common;

use std::path::{Path, PathBuf};

use common::{robolog, scratch_dir, testdata, text};
use rosbag2::{Bag2Writer, TopicDefinition, WriteOptions};

/// Every file under `dir` with its bytes, in path order.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

/// Runs `robolog ARGS`: exit code, stdout, stderr.
fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = robolog().args(args).output().unwrap();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn force_replaces_only_a_ros2_bag_folder() {
    let dir = scratch_dir("ros2-trust", "force");
    let bag = testdata("rosbag/sample.bag");
    // A project folder that happens to hold a metadata.yaml.
    let proj = dir.join("proj");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::write(proj.join("metadata.yaml"), "x: 1\n").unwrap();
    std::fs::write(proj.join("src/code.py"), "print('mine')\n").unwrap();
    std::fs::write(proj.join("thesis.tex"), "\\begin{document}\n").unwrap();
    let before = files(&proj);
    let (code, _, err) = run(&[
        "convert".as_ref(),
        bag.as_os_str(),
        proj.as_os_str(),
        "--ros2".as_ref(),
        "--force".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("{} is not a rosbag2 bag folder", proj.display())),
        "{err}"
    );
    assert!(
        err.contains("`metadata.yaml` is not rosbag2 metadata"),
        "{err}"
    );
    assert!(err.contains("nothing was deleted"), "{err}");
    assert_eq!(files(&proj), before, "every file is kept");

    // A bag folder robolog wrote is replaced with --force.
    let out = dir.join("out");
    let convert = |force: bool| {
        let mut c = robolog();
        c.arg("convert").arg(&bag).arg(&out).arg("--ros2");
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    assert!(convert(false).status.success());
    std::fs::write(out.join("out_0.db3-wal"), b"").unwrap();
    let o = convert(true);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let names: Vec<_> = files(&out)
        .into_iter()
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["metadata.yaml", "out_0.db3"]);

    // With one file more, it is refused, naming that file.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let before = files(&out);
    let o = convert(true);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`notes.txt` is a regular file that its metadata.yaml does not name"),
        "{err}"
    );
    assert_eq!(files(&out), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes a bag of `/count` (std_msgs/msg/Int32) messages at `stamps`.
fn bag_with_stamps(folder: &Path, stamps: &[i64]) {
    let mut w = Bag2Writer::create(folder, WriteOptions::default()).unwrap();
    let t = w
        .add_topic(
            "/count",
            "std_msgs/msg/Int32",
            &TopicDefinition::msg("int32 data\n"),
            &[],
        )
        .unwrap();
    for (i, &s) in stamps.iter().enumerate() {
        w.write(t, s, &[0, 1, 0, 0, i as u8, 0, 0, 0]).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn a_stamp_at_the_end_of_time_is_kept_by_every_command() {
    let dir = scratch_dir("ros2-trust", "max");
    let bag = dir.join("max");
    bag_with_stamps(&bag, &[5, i64::MAX]);
    let b = bag.as_os_str();
    let (code, out, err) = run(&["cat".as_ref(), b, "--json".as_ref()]);
    assert_eq!(code, Some(0), "{err}");
    let times: Vec<&str> = out
        .lines()
        .map(|l| {
            l.split("\"log_time_ns\":")
                .nth(1)
                .unwrap()
                .split([',', '}'])
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(times, ["5", "9223372036854775807"], "{out}");
    let (code, out, err) = run(&[
        "sql".as_ref(),
        "SELECT count(*) AS n, CAST(max(log_time) AS BIGINT) AS t FROM count".as_ref(),
        b,
        "--format".as_ref(),
        "csv".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("2,9223372036854775807"), "{out}");
    let csv = dir.join("csv");
    let (code, _, err) = run(&["export".as_ref(), b, "-o".as_ref(), csv.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let table = std::fs::read_to_string(csv.join("count.csv")).unwrap();
    assert_eq!(table.lines().count(), 3, "{table}");
    assert!(table.contains("9223372036854775807"), "{table}");
    for out in ["max.mcap", "copy"] {
        let o = dir.join(out);
        let (code, _, err) = run(&["convert".as_ref(), b, o.as_os_str()]);
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains("2 messages"), "{err}");
        let (_, back, _) = run(&["cat".as_ref(), o.as_os_str(), "--json".as_ref()]);
        assert!(
            back.contains("\"log_time_ns\":9223372036854775807"),
            "{out}: {back}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_negative_stamp_is_kept_or_refused_never_clamped() {
    let dir = scratch_dir("ros2-trust", "neg");
    let bag = dir.join("neg");
    bag_with_stamps(&bag, &[-5, 7]);
    let b = bag.as_os_str();
    // Read as it is.
    let (code, out, err) = run(&["cat".as_ref(), b, "--json".as_ref()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"log_time_ns\":-5"), "{out}");
    // A ROS 2 bag of SQLite storage keeps it.
    let copy = dir.join("copy");
    let (code, _, err) = run(&["convert".as_ref(), b, copy.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let (_, out, _) = run(&["cat".as_ref(), copy.as_os_str(), "--json".as_ref()]);
    assert!(out.contains("\"log_time_ns\":-5"), "{out}");
    // MCAP (a file or a bag's storage) holds no negative time: refused,
    // naming the topic and the stamp, and nothing is written.
    // Nor does a ROS 1 bag.
    for (out, extra) in [
        ("neg.mcap", None),
        ("mcapbag", Some("--storage=mcap")),
        ("neg.bag", None),
    ] {
        let o = dir.join(out);
        let mut args = vec!["convert".as_ref(), b, o.as_os_str()];
        args.extend(extra.map(std::ffi::OsStr::new));
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(1), "{out}: {err}");
        assert!(err.contains("-5 ns"), "{out}: {err}");
        assert!(err.contains("/count"), "{out}: {err}");
        assert!(!o.exists(), "{out}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bag_named_with_a_colon_reads_back() {
    let dir = scratch_dir("ros2-trust", "colon");
    let out = dir.join("x:y");
    let bag = testdata("rosbag/sample.bag");
    let (code, _, err) = run(&[
        "convert".as_ref(),
        bag.as_os_str(),
        out.as_os_str(),
        "--ros2".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.join("x:y_0.db3").is_file());
    let (code, cat, err) = run(&["cat".as_ref(), out.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(cat.lines().count(), 75);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_metadata_yaml_that_is_no_text_file_is_named_as_what_it_is() {
    let dir = scratch_dir("ros2-trust", "special");
    let src = testdata("rosbag/sample.bag");
    let good = dir.join("good");
    let (code, _, err) = run(&[
        "convert".as_ref(),
        src.as_os_str(),
        good.as_os_str(),
        "--ros2".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let db3 = std::fs::read(good.join("good_0.db3")).unwrap();
    let meta = std::fs::read_to_string(good.join("metadata.yaml")).unwrap();
    let bag = |name: &str| {
        let b = dir.join(name);
        std::fs::create_dir(&b).unwrap();
        std::fs::write(b.join("good_0.db3"), &db3).unwrap();
        b
    };
    // Invalid UTF-8 on line 3, column 5.
    let utf8 = bag("utf8");
    let mut bytes = b"rosbag2_bagfile_information:\n  version: 9\n  x: \xff\n".to_vec();
    bytes.extend_from_slice(meta.as_bytes());
    std::fs::write(utf8.join("metadata.yaml"), &bytes).unwrap();
    let (code, _, err) = run(&["info".as_ref(), utf8.as_os_str()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("at line 3, column 6 (byte 47): expected UTF-8 text, found the byte 0xff"),
        "{err}"
    );
    #[cfg(unix)]
    {
        let fifo = bag("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(fifo.join("metadata.yaml"))
            .status()
            .unwrap();
        assert!(made.success());
        let (code, _, err) = run(&["info".as_ref(), fifo.as_os_str()]);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("metadata.yaml: is a FIFO, not a regular file"),
            "{err}"
        );
        let zero = bag("zero");
        std::os::unix::fs::symlink("/dev/zero", zero.join("metadata.yaml")).unwrap();
        let (code, _, err) = run(&["cat".as_ref(), zero.as_os_str()]);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("metadata.yaml: is a character device, not a regular file"),
            "{err}"
        );
        // As an output under --force: refused as not a bag (exit 2),
        // without reading it.
        let (code, _, err) = run(&[
            "convert".as_ref(),
            src.as_os_str(),
            zero.as_os_str(),
            "--ros2".as_ref(),
            "--force".as_ref(),
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("`metadata.yaml` is a symbolic link, not a regular file"),
            "{err}"
        );
        assert!(zero.join("good_0.db3").is_file());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_orphan_warning_names_the_topic_id_and_count() {
    let dir = scratch_dir("ros2-trust", "orphan");
    let src = testdata("rosbag/sample.bag");
    let bag = dir.join("orphan");
    let (code, _, err) = run(&[
        "convert".as_ref(),
        src.as_os_str(),
        bag.as_os_str(),
        "--ros2".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    // Two messages whose topic id no row of `topics` has.
    let db = rosbag2_db(&bag.join("orphan_0.db3"));
    db.execute_batch(
        "INSERT INTO messages(topic_id, timestamp, data) VALUES (77, 1, x'00'), (77, 2, x'00');",
    )
    .unwrap();
    drop(db);
    let (code, _, err) = run(&["info".as_ref(), bag.as_os_str()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(!err.contains("row -1"), "{err}");
    assert!(
        err.contains("2 messages of the table `messages` have topic_id 77, which no row of the table `topics` has"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `.db3` at `path`, opened for writing.
fn rosbag2_db(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}
