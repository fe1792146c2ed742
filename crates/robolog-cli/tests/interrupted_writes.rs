//! Writers killed with SIGKILL at several moments: the output's name holds
//! its previous content byte for byte, the temporary file left behind
//! (`.NAME.robolog-tmp-PID-N`) gives its messages back through `mcap
//! recover` / `bag reindex`, and the next run writing the same output names
//! that file and how to recover it, without deleting it (an empty one,
//! which holds nothing, is removed silently). Writers ended with SIGINT or
//! SIGTERM remove their temporary files and exit with 130 or 143.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const MESSAGES: u32 = 10_000;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("interrupted-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 1 KiB of bytes that do not compress, different for each `i`.
fn noise(i: u32) -> Vec<u8> {
    let mut x = u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b'a' + (x % 26) as u8
        })
        .collect()
}

/// An uncompressed MCAP file of JSON messages (about 11 MB).
fn big_mcap(path: &Path) {
    mcap_of(path, MESSAGES);
}

/// An uncompressed MCAP file of `messages` JSON messages of about 1 KiB.
fn mcap_of(path: &Path, messages: u32) {
    let opts = mcapfile::WriteOptions {
        compression: mcapfile::Compression::None,
        ..mcapfile::WriteOptions::default()
    };
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = mcapfile::Writer::new(file, opts).unwrap();
    let c = w
        .add_channel(0, "/noise", "json", &BTreeMap::new())
        .unwrap();
    for i in 0..messages {
        let text = String::from_utf8(noise(i)).unwrap();
        let data = format!("{{\"i\":{i},\"text\":\"{text}\"}}");
        let t = 1_000_000_000 + u64::from(i) * 1_000_000;
        w.write_message(c, i, t, t, data.as_bytes()).unwrap();
    }
    w.finish().unwrap();
}

/// An indexed, uncompressed bag of `uint8[]` messages (about 11 MB).
fn big_bag(path: &Path) {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = Writer::new(file, WriterOptions::default()).unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/noise",
            "test_msgs/Bytes",
            "f43a8e1b362b75baa741461b46adc7e0",
            "uint8[] data\n",
        ))
        .unwrap();
    for i in 0..MESSAGES {
        let mut data = 1024u32.to_le_bytes().to_vec();
        data.extend(noise(i));
        let time = RosTime {
            sec: 1_000 + i / 100,
            nsec: (i % 100) * 10_000_000,
        };
        w.write(c, time, &data).unwrap();
    }
    w.finish().unwrap();
}

/// A ULog of 100,000 samples of one topic (about 3 MB of CSV).
fn big_ulog(path: &Path) {
    let mut w = ulogfile::Writer::new(Vec::new(), 0).unwrap();
    w.add_format("noise:uint64_t timestamp;float a;float b;uint32_t c;")
        .unwrap();
    let id = w.add_subscription("noise", 0).unwrap();
    for i in 0..100_000u32 {
        let mut s = (u64::from(i) * 1_000).to_le_bytes().to_vec();
        s.extend_from_slice(&(i as f32 * 0.5).to_le_bytes());
        s.extend_from_slice(&(i as f32 / 3.0).to_le_bytes());
        s.extend_from_slice(&i.wrapping_mul(2_654_435_761).to_le_bytes());
        w.write_data(id, &s).unwrap();
    }
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

fn robolog(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_robolog"));
    cmd.current_dir(dir).args(args);
    cmd
}

fn run(dir: &Path, args: &[&str]) -> Output {
    robolog(dir, args).output().unwrap()
}

/// The temporary files in `dir`.
fn temps(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".robolog-tmp-"))
        .collect();
    v.sort();
    v
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// The lines `robolog cat` prints for `file`.
fn cat(dir: &Path, file: &str) -> Vec<String> {
    let out = run(dir, &["cat", file]);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// One writing command.
struct Case {
    name: &'static str,
    input: &'static str,
    make: fn(&Path),
    /// Arguments; the output (a file, or for `ulog csv` a folder) is `out`.
    args: &'static [&'static str],
    /// The file whose previous content must survive, in the folder.
    dest: &'static str,
    /// How a leftover temporary file is recovered into `rec`, if it can
    /// be (a CSV cannot: it is only checked to be a prefix).
    recover: Option<&'static [&'static str]>,
}

const CASES: &[Case] = &[
    Case {
        name: "mcap compress",
        input: "in.mcap",
        make: big_mcap,
        args: &["mcap", "compress", "in.mcap", "out", "--force"],
        dest: "out",
        recover: Some(&["mcap", "recover"]),
    },
    Case {
        name: "bag fix",
        input: "in.bag",
        make: big_bag,
        args: &["bag", "fix", "in.bag", "out", "--force"],
        dest: "out",
        recover: Some(&["bag", "reindex", "-o"]),
    },
    Case {
        name: "bag reindex -o",
        input: "in.bag",
        make: big_bag,
        args: &["bag", "reindex", "in.bag", "-o", "out", "--force"],
        dest: "out",
        recover: Some(&["bag", "reindex", "-o"]),
    },
    Case {
        name: "ulog csv",
        input: "in.ulg",
        make: big_ulog,
        args: &["ulog", "csv", "-o", "out", "in.ulg", "--force"],
        dest: "out/in_noise_0.csv",
        recover: None,
    },
];

/// Recovers `temp` into `rec` with `how` (`mcap recover TEMP REC` or
/// `bag reindex TEMP -o REC`).
fn recover(dir: &Path, how: &[&str], temp: &Path, rec: &str) -> Output {
    let temp = temp.to_str().unwrap();
    let args: Vec<&str> = match how {
        [verb, sub, "-o"] => vec![verb, sub, temp, "-o", rec],
        [verb, sub] => vec![verb, sub, temp, rec],
        _ => unreachable!(),
    };
    run(dir, &args)
}

#[test]
fn sigkill_at_any_moment_keeps_the_previous_output_and_a_recoverable_temp_file() {
    for case in CASES {
        let dir = scratch(&case.name.replace(' ', "-"));
        (case.make)(&dir.join(case.input));
        if case.dest.contains('/') {
            std::fs::create_dir(dir.join("out")).unwrap();
        }
        let dest = dir.join(case.dest);
        // The complete output, written without interruption.
        let out = run(&dir, case.args);
        assert_eq!(out.status.code(), Some(0), "{}: {out:?}", case.name);
        let complete = std::fs::read(&dest).unwrap();
        let complete_lines = case.recover.map(|_| cat(&dir, case.dest));
        assert!(temps(&dir).is_empty() && temps(dest.parent().unwrap()).is_empty());
        let previous = b"the previous output, which must survive".to_vec();
        // Kills that caught the command writing its output.
        let mut midway = 0;

        for fraction in [0.0, 0.1, 0.5, 0.9] {
            let what = format!("{} killed at {fraction}", case.name);
            std::fs::write(&dest, &previous).unwrap();
            let folder = dest.parent().unwrap().to_path_buf();
            let mut child = robolog(&dir, case.args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let want = (complete.len() as f64 * fraction) as u64;
            let deadline = Instant::now() + Duration::from_secs(120);
            while fraction > 0.0 && Instant::now() < deadline {
                if child.try_wait().unwrap().is_some()
                    || temps(&folder).iter().any(|t| size(t) >= want)
                {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            child.kill().unwrap();
            let status = child.wait().unwrap();
            if status.signal() != Some(9) {
                // It finished first: then the output is complete.
                assert_eq!(status.code(), Some(0), "{what}");
                assert_eq!(std::fs::read(&dest).unwrap(), complete, "{what}");
                continue;
            }
            // Killed: the previous content, byte for byte.
            assert_eq!(std::fs::read(&dest).unwrap(), previous, "{what}");
            let left = temps(&folder);
            assert!(left.len() <= 1, "{what}: {left:?}");
            let Some(temp) = left.first() else {
                // Killed before the temporary file was made.
                continue;
            };
            let name = temp.file_name().unwrap().to_string_lossy().into_owned();
            let dest_name = dest.file_name().unwrap().to_string_lossy().into_owned();
            assert_eq!(
                name,
                format!(".{dest_name}.robolog-tmp-{}-0", child.id()),
                "{what}"
            );
            let partial = std::fs::read(temp).unwrap();
            midway += usize::from(!partial.is_empty());
            assert!(partial.len() as u64 >= want, "{what}");
            match (case.recover, &complete_lines) {
                (Some(how), Some(lines)) => {
                    if partial.len() >= 1 << 20 {
                        // Every message it holds comes back, in order: the
                        // first messages of the complete output (all of
                        // them when the kill came after the last one).
                        let rec = format!("rec-{fraction}");
                        let out = recover(&dir, how, temp, &rec);
                        assert!(
                            matches!(out.status.code(), Some(0 | 1 | 3)),
                            "{what}: {out:?}"
                        );
                        let got = cat(&dir, &rec);
                        assert!(got.len() > 500, "{what}: {} messages", got.len());
                        // A kill after the last message but before the
                        // index or the rename leaves every message.
                        assert!(got.len() <= lines.len(), "{what}");
                        assert_eq!(got, lines[..got.len()], "{what}");
                    }
                }
                _ => assert!(complete.starts_with(&partial), "{what}"),
            }

            // The next run names the leftover and how to recover it, and
            // keeps it.
            let out = run(&dir, case.args);
            assert_eq!(out.status.code(), Some(0), "{what}: {out:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            // Named as the output was given (relative to the folder).
            let shown = Path::new(case.dest).with_file_name(&name);
            let note = format!(
                "robolog: {}: {} was left by an interrupted run (process {}) and holds the \
                 incomplete output it had written; it is kept: ",
                case.dest,
                shown.display(),
                child.id()
            );
            if partial.is_empty() {
                // Nothing in it: removed without a word.
                assert!(!err.contains(&note), "{what}: {err}");
                assert!(!temp.exists(), "{what}");
                assert_eq!(std::fs::read(&dest).unwrap(), complete, "{what}");
                continue;
            }
            assert!(err.contains(&note), "{what}: {err}");
            if let (Some(how), true) = (case.recover, partial.len() >= 16) {
                let hint = format!("`robolog {} {} {}", how[0], how[1], shown.display());
                assert!(err.contains(&hint), "{what}: {err}");
            }
            assert_eq!(std::fs::read(temp).unwrap(), partial, "{what}");
            assert_eq!(std::fs::read(&dest).unwrap(), complete, "{what}");
            std::fs::remove_file(temp).unwrap();
        }
        assert!(
            midway >= 2,
            "{}: {midway} kills during the write",
            case.name
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn sigkill_during_an_in_place_reindex_keeps_the_original_under_its_name() {
    let dir = scratch("in-place");
    let bag = dir.join("run.bag");
    big_bag(&bag);
    let original = std::fs::read(&bag).unwrap();
    let backup = dir.join("run.orig.bag");
    let mut midway = 0;
    for fraction in [0.1, 0.5, 0.9] {
        let what = format!("killed at {fraction}");
        let mut child = robolog(&dir, &["bag", "reindex", "run.bag"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let want = (original.len() as f64 * fraction) as u64;
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() || temps(&dir).iter().any(|t| size(t) >= want) {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        child.kill().unwrap();
        let status = child.wait().unwrap();
        if status.signal() != Some(9) {
            // It finished first: the original is the backup.
            assert_eq!(status.code(), Some(0), "{what}");
            assert_eq!(std::fs::read(&backup).unwrap(), original, "{what}");
            break;
        }
        // The bag is the original, byte for byte; a backup, if the kill
        // came after it was made, is the original too.
        assert_eq!(std::fs::read(&bag).unwrap(), original, "{what}");
        if backup.exists() {
            assert_eq!(std::fs::read(&backup).unwrap(), original, "{what}");
            std::fs::remove_file(&backup).unwrap();
        }
        for t in temps(&dir) {
            midway += 1;
            std::fs::remove_file(t).unwrap();
        }
    }
    assert!(midway >= 2, "{midway} kills during the write");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every file under `dir`, folders searched.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// Runs `args` in `dir`, sends `signal` (`INT`, `TERM`) once a temporary
/// file in `folder` holds bytes (the command is writing its output), and
/// returns how it ended.
fn interrupt(dir: &Path, args: &[&str], folder: &Path, signal: &str) -> Output {
    let child = robolog(dir, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if folder.is_dir() && temps(folder).iter().any(|t| size(t) > 0) {
            break;
        }
        assert!(Instant::now() < deadline, "{args:?}: no temporary file");
        std::thread::sleep(Duration::from_millis(1));
    }
    let pid = child.id().to_string();
    let kill = Command::new("kill").args(["-s", signal, &pid]).status();
    assert!(kill.unwrap().success(), "kill -s {signal} {pid}");
    child.wait_with_output().unwrap()
}

#[test]
fn sigint_and_sigterm_remove_the_temporary_files_and_end_the_command() {
    // About 55 MB: still being written when the signal comes.
    let dir = scratch("signals");
    mcap_of(&dir.join("in.mcap"), 50_000);
    let input = std::fs::read(dir.join("in.mcap")).unwrap();
    let cases: [(&str, &[&str], &str); 4] = [
        ("INT", &["convert", "in.mcap", "out.mcap"], "."),
        ("TERM", &["convert", "in.mcap", "out.mcap"], "."),
        ("INT", &["export", "in.mcap", "-o", "out"], "out"),
        ("TERM", &["export", "in.mcap", "-o", "out"], "out"),
    ];
    for (signal, args, folder) in cases {
        let what = format!("SIG{signal} to {args:?}");
        let out = interrupt(&dir, args, &dir.join(folder), signal);
        let err = String::from_utf8_lossy(&out.stderr);
        let code = if signal == "INT" { 130 } else { 143 };
        assert_eq!(out.status.code(), Some(code), "{what}: {err}");
        assert!(
            err.contains(&format!(
                "robolog: interrupted by SIG{signal}; removed 1 unfinished output file\n"
            )),
            "{what}: {err}"
        );
        // No temporary file, no output: only the input is left, untouched.
        assert_eq!(files(&dir), [dir.join("in.mcap")], "{what}");
        assert_eq!(std::fs::read(dir.join("in.mcap")).unwrap(), input, "{what}");
        let _ = std::fs::remove_dir(dir.join("out"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigint_during_a_split_filter_leaves_only_complete_parts() {
    // 50 s of messages, 1 ms apart: parts of 2 s (2000 messages each),
    // interrupted while the third or a later one is written.
    let dir = scratch("split");
    mcap_of(&dir.join("in.mcap"), 50_000);
    let args = ["filter", "in.mcap", "out.mcap", "--split-every", "2s"];
    let child = robolog(&dir, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !(dir.join("out_002.mcap").exists() && temps(&dir).iter().any(|t| size(t) > 0)) {
        assert!(Instant::now() < deadline, "no third part");
        std::thread::sleep(Duration::from_millis(1));
    }
    let pid = child.id().to_string();
    let kill = Command::new("kill").args(["-s", "INT", &pid]).status();
    assert!(kill.unwrap().success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(temps(&dir).is_empty(), "{err}");
    // The parts there are numbered without a gap, each complete.
    let parts: Vec<PathBuf> = files(&dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "in.mcap"))
        .collect();
    assert!(parts.len() >= 3 && parts.len() < 25, "{parts:?}");
    for (k, p) in parts.iter().enumerate() {
        assert_eq!(p, &dir.join(format!("out_{k:03}.mcap")));
        let name = p.file_name().unwrap().to_str().unwrap();
        assert_eq!(cat(&dir, name).len(), 2000, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The temporary folders of ROS 2 bags being written in `dir`.
fn temp_folders(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.to_string_lossy().contains(".rosbag2-tmp-"))
        .collect();
    v.sort();
    v
}

#[test]
fn sigint_and_sigterm_remove_the_temporary_folder_of_a_ros2_bag() {
    let dir = scratch("signals-rosbag2");
    // Five times the bag of the SIGKILL test: still being written when the
    // signal comes.
    let one = dir.join("one.bag");
    big_bag(&one);
    let bag = std::fs::read(&one).unwrap();
    std::fs::remove_file(&one).unwrap();
    let inputs: Vec<String> = (0..5).map(|i| format!("in{i}.bag")).collect();
    for name in &inputs {
        std::fs::write(dir.join(name), &bag).unwrap();
    }
    for (signal, storage) in [("INT", "sqlite3"), ("TERM", "mcap")] {
        let what = format!("SIG{signal} to a {storage} folder");
        let mut args: Vec<&str> = vec!["convert"];
        args.extend(inputs.iter().map(String::as_str));
        args.extend(["out", "--storage", storage]);
        let child = robolog(&dir, &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        // The folder holds its storage file, with bytes written.
        while !temp_folders(&dir)
            .iter()
            .any(|f| files(f).iter().any(|x| size(x) > 0))
        {
            assert!(Instant::now() < deadline, "{what}: no temporary folder");
            std::thread::sleep(Duration::from_millis(1));
        }
        let pid = child.id().to_string();
        let kill = Command::new("kill").args(["-s", signal, &pid]).status();
        assert!(kill.unwrap().success(), "kill -s {signal} {pid}");
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let code = if signal == "INT" { 130 } else { 143 };
        assert_eq!(out.status.code(), Some(code), "{what}: {err}");
        assert!(
            err.contains(&format!(
                "robolog: interrupted by SIG{signal}; removed 1 unfinished output file\n"
            )),
            "{what}: {err}"
        );
        // No temporary folder, no output: only the inputs are left.
        assert!(temp_folders(&dir).is_empty(), "{what}");
        assert!(!dir.join("out").exists(), "{what}");
        for name in &inputs {
            assert_eq!(std::fs::read(dir.join(name)).unwrap(), bag, "{what}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn empty_leftovers_of_gone_processes_are_removed_silently() {
    if !Path::new("/proc/self").exists() {
        // Whether a process is gone cannot be told: nothing is removed.
        return;
    }
    let dir = scratch("empty-leftover");
    big_mcap(&dir.join("in.mcap"));
    // Process ids are below 2^22 on Linux: these never run.
    let empty = dir.join(".out.mcap.robolog-tmp-4294967295-0");
    let partial = dir.join(".out.mcap.robolog-tmp-4294967295-1");
    std::fs::write(&empty, b"").unwrap();
    std::fs::write(&partial, b"\x89MCAP0\r\n partial").unwrap();
    let out = run(&dir, &["convert", "in.mcap", "out.mcap"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!empty.exists());
    assert!(!err.contains(".out.mcap.robolog-tmp-4294967295-0"), "{err}");
    // One that holds bytes is named and kept.
    assert!(
        err.contains(".out.mcap.robolog-tmp-4294967295-1 was left by an interrupted run"),
        "{err}"
    );
    assert_eq!(temps(&dir), [partial]);
    std::fs::remove_dir_all(&dir).unwrap();
}
