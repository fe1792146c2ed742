//! The ROS 2 bag cases of `cargo xtask hostile`: bag folders made to
//! fill the temporary folder or memory through the reader's copies (a
//! zstd `FILE`-compressed storage file listed many times, files declaring
//! or holding more than the bag's expansion limit together, a sparse
//! 4 GiB `-wal`, a `-wal` that is not one), and one honest bag of 300
//! split files read under `ulimit -n 64`.
//!
//! Each runs `robolog info` and `robolog cat --json` with a fresh,
//! empty `TMPDIR`, sampled every few milliseconds while the command runs:
//! the bytes in it must stay under [`TEMP_BUDGET`] and it must be empty
//! afterwards; peak memory, time and signals are judged as for the other
//! hostile files. The compressed inputs are small (zstd frames of
//! run-length blocks) and refused early, so the whole step takes seconds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::Result;
use crate::hostile::{MAX_SECONDS, MEMORY_BUDGET, Measured, measure_command};

/// Most bytes the temporary folder may hold during a run: the hostile
/// bags are refused before anything is decompressed or copied there.
const TEMP_BUDGET: u64 = 16 << 20;

/// One case: a bag folder, the options before the command, and whether
/// the command must succeed (the honest bag).
struct Case {
    name: &'static str,
    options: Vec<String>,
    honest: bool,
}

/// `cargo xtask hostile`'s ROS 2 bag step: generates the bags under
/// `dir/rosbag2` and runs `exe` on each; returns the failures.
pub(crate) fn check(exe: &Path, dir: &Path) -> Result<Vec<String>> {
    let root = dir.join("rosbag2");
    let cases = generate(&root)?;
    println!(
        "{:<34} {:<10} {:>5} {:>9} {:>9} {:>10} {:>7}  verdict",
        "bag", "command", "exit", "peak MiB", "budget", "temp peak", "seconds"
    );
    let mut failures = Vec::new();
    for case in &cases {
        let bag = root.join(case.name);
        let size = disk_bytes(&bag);
        for command in [&["info"][..], &["cat", "--json"][..]] {
            let tmp = root.join(format!("tmp-{}-{}", case.name, command[0]));
            let _ = std::fs::remove_dir_all(&tmp);
            std::fs::create_dir_all(&tmp).map_err(err)?;
            let mut args: Vec<String> = case.options.clone();
            args.extend(command.iter().map(|s| s.to_string()));
            let r = run(exe, &args, &bag, &tmp, case.honest)?;
            let left = folder_bytes(&tmp) + entries(&tmp) as u64;
            let mut problems = Vec::new();
            if let Some(sig) = r.measured.signal {
                problems.push(format!("killed by signal {sig}"));
            }
            if r.measured.timed_out {
                problems.push(format!("ran over {MAX_SECONDS} s"));
            }
            let budget = MEMORY_BUDGET + size;
            if r.measured.peak_rss > budget {
                problems.push(format!("peak RSS {} > {budget}", r.measured.peak_rss));
            }
            if r.temp_peak > TEMP_BUDGET {
                problems.push(format!("{} bytes in TMPDIR > {TEMP_BUDGET}", r.temp_peak));
            }
            if left > 0 {
                problems.push(format!(
                    "TMPDIR holds {} entries after the run",
                    entries(&tmp)
                ));
            }
            if case.honest && r.measured.exit != Some(0) {
                problems.push(format!("exit {:?}", r.measured.exit));
            }
            if !case.honest && r.measured.exit == Some(0) {
                problems.push("read without a refusal".into());
            }
            println!(
                "{:<34} {:<10} {:>5} {:>9.1} {:>9.1} {:>10} {:>7.2}  {}",
                case.name,
                command.join(" "),
                r.measured.exit.map_or("-".into(), |c| c.to_string()),
                r.measured.peak_rss as f64 / (1 << 20) as f64,
                budget as f64 / (1 << 20) as f64,
                r.temp_peak,
                r.measured.elapsed.as_secs_f64(),
                if problems.is_empty() {
                    "ok".to_string()
                } else {
                    problems.join(", ")
                }
            );
            if !problems.is_empty() {
                failures.push(format!(
                    "{}: robolog {}: {}",
                    case.name,
                    command.join(" "),
                    problems.join(", ")
                ));
            }
            let _ = std::fs::remove_dir_all(&tmp);
        }
    }
    Ok(failures)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// What one run did, and the most bytes its temporary folder held.
struct Ran {
    measured: Measured,
    temp_peak: u64,
}

/// Runs `exe args bag` with `TMPDIR=tmp` (the honest bag under
/// `ulimit -n 64`, through `sh`), sampling the bytes in `tmp`.
fn run(exe: &Path, args: &[String], bag: &Path, tmp: &Path, limited: bool) -> Result<Ran> {
    let mut cmd = if limited {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg("ulimit -n 64 && exec \"$0\" \"$@\"")
            .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(args).arg(bag).env("TMPDIR", tmp);
    let done = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (done, peak, tmp) = (done.clone(), peak.clone(), tmp.to_path_buf());
        std::thread::spawn(move || {
            while !done.load(Ordering::Acquire) {
                peak.fetch_max(folder_bytes(&tmp), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let measured = measure_command(cmd, &format!("{} {}", args.join(" "), bag.display()));
    done.store(true, Ordering::Release);
    let _ = sampler.join();
    Ok(Ran {
        measured: measured?,
        temp_peak: peak.load(Ordering::Relaxed),
    })
}

/// The bytes the regular files under `dir` hold (as their sizes say).
fn folder_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => folder_bytes(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

/// The bytes the files under `dir` take on disk (a sparse file only its
/// written blocks).
fn disk_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => disk_bytes(&e.path()),
            Ok(m) => m.blocks() * 512,
            _ => 0,
        })
        .sum()
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |rd| rd.count())
}

/// The largest block of a zstd frame (and its window here).
const BLOCK: usize = 128 << 10;

/// A zstd frame written as its bytes come, made of raw blocks and
/// run-length blocks (no compression beyond runs of one byte), without
/// the content size in its header: a few KB for hundreds of MiB of
/// zeros, with 128 KiB held at a time.
struct ZstdFrame {
    out: Vec<u8>,
    block: Vec<u8>,
}

impl ZstdFrame {
    fn new(declared: Option<u64>) -> Self {
        let mut out = vec![0x28, 0xb5, 0x2f, 0xfd];
        // Frame header: the content size in 8 bytes when declared, a
        // window of 128 KiB (exponent 7).
        out.push(if declared.is_some() { 0xc0 } else { 0x00 });
        out.push(7 << 3);
        if let Some(n) = declared {
            out.extend(n.to_le_bytes());
        }
        ZstdFrame {
            out,
            block: Vec::with_capacity(BLOCK),
        }
    }

    fn emit(&mut self, last: bool) {
        let b = &self.block;
        let run = !b.is_empty() && b.iter().all(|&x| x == b[0]);
        let header = u32::from(last) | (u32::from(run) << 1) | ((b.len() as u32) << 3);
        self.out.extend(&header.to_le_bytes()[..3]);
        if run {
            self.out.push(b[0]);
        } else {
            self.out.extend_from_slice(b);
        }
        self.block.clear();
    }

    fn finish(mut self) -> Vec<u8> {
        self.emit(true);
        self.out
    }
}

impl std::io::Write for ZstdFrame {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = buf.len().min(BLOCK - self.block.len());
        self.block.extend_from_slice(&buf[..n]);
        if self.block.len() == BLOCK {
            self.emit(false);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A zstd frame of `n` zeros (a multiple of 128 KiB), declaring its size.
fn zstd_zeros(n: usize) -> Vec<u8> {
    let mut f = ZstdFrame::new(Some(n as u64));
    for k in 0..n / BLOCK {
        f.block.resize(BLOCK, 0);
        if k + 1 == n / BLOCK {
            break;
        }
        f.emit(false);
    }
    f.finish()
}

fn metadata(files: &[String], storage: &str, compressed: bool) -> String {
    let mut s = format!(
        "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: {storage}\n  \
         relative_file_paths:\n"
    );
    for f in files {
        s.push_str(&format!("    - {f}\n"));
    }
    if compressed {
        s.push_str("  compression_format: zstd\n  compression_mode: FILE\n");
    }
    s
}

/// A std_msgs/msg/String CDR payload.
fn string_cdr(s: &str) -> Vec<u8> {
    let mut v = vec![0, 1, 0, 0];
    v.extend(((s.len() + 1) as u32).to_le_bytes());
    v.extend(s.as_bytes());
    v.push(0);
    v
}

/// A bag of `messages` strings, one storage file each when `split`.
fn small_bag(path: &Path, messages: u32, split: bool) -> Result {
    let _ = std::fs::remove_dir_all(path);
    let mut options = rosbag2::WriteOptions::new(rosbag2::StorageId::Sqlite3);
    if split {
        options = options.with_max_bagfile_size(1);
    }
    let mut w = rosbag2::Bag2Writer::create(path, options).map_err(err)?;
    let def = rosbag2::TopicDefinition::msg("string data\n");
    let t = w
        .add_topic("/chatter", "std_msgs/msg/String", &def, &[])
        .map_err(err)?;
    for i in 0..messages {
        w.write(t, 1_000 + i64::from(i), &string_cdr(&format!("m{i}")))
            .map_err(err)?;
    }
    w.finish().map_err(err)?;
    Ok(())
}

/// An MCAP file of one ROS 2 channel whose one message is `n` zeros
/// (unchunked), as a zstd frame that does not declare its size. The
/// zeros are never written to memory (`vec!` of zeros maps zero pages).
fn mcap_of_zeros_zstd(n: usize) -> Result<Vec<u8>> {
    let opts = mcapfile::WriteOptions {
        use_chunks: false,
        compression: mcapfile::Compression::None,
        ..mcapfile::WriteOptions::default()
    };
    let mut w = mcapfile::Writer::new(ZstdFrame::new(None), opts).map_err(err)?;
    let schema = w
        .add_schema("std_msgs/msg/String", "ros2msg", b"string data\n")
        .map_err(err)?;
    let c = w
        .add_channel(schema, "/zeros", "cdr", &BTreeMap::new())
        .map_err(err)?;
    w.write_message(c, 0, 1, 1, &vec![0u8; n]).map_err(err)?;
    Ok(w.finish().map_err(err)?.finish())
}

/// Writes every bag folder under `root` (again only when missing) and
/// returns the cases.
fn generate(root: &Path) -> Result<Vec<Case>> {
    std::fs::create_dir_all(root).map_err(err)?;
    let folder = |name: &str| -> Result<Option<PathBuf>> {
        let p = root.join(name);
        if p.join("metadata.yaml").exists() {
            return Ok(None);
        }
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).map_err(err)?;
        Ok(Some(p))
    };
    let write = |p: &Path, bytes: &[u8]| std::fs::write(p, bytes).map_err(err);
    let mut cases = Vec::new();

    // One .db3.zstd declaring 480 MiB, listed 8 times.
    let name = "listed-8x-480m.db3.zstd";
    if let Some(p) = folder(name)? {
        write(&p.join("big.db3.zstd"), &zstd_zeros(480 << 20))?;
        let files = vec!["big.db3.zstd".to_string(); 8];
        write(
            &p.join("metadata.yaml"),
            metadata(&files, "sqlite3", true).as_bytes(),
        )?;
    }
    cases.push(Case {
        name,
        options: Vec::new(),
        honest: false,
    });

    // A small .db3 listed 10,000 times.
    let name = "listed-10000x.db3";
    if let Some(p) = folder(name)? {
        let src = root.join("small-src");
        small_bag(&src, 3, false)?;
        std::fs::copy(src.join("small-src_0.db3"), p.join("s.db3")).map_err(err)?;
        let _ = std::fs::remove_dir_all(&src);
        let files = vec!["s.db3".to_string(); 10_000];
        write(
            &p.join("metadata.yaml"),
            metadata(&files, "sqlite3", false).as_bytes(),
        )?;
    }
    cases.push(Case {
        name,
        options: Vec::new(),
        honest: false,
    });

    // Nine distinct .db3.zstd files declaring 512 MiB each: 4.5 GiB, over
    // the default 4 GiB for the bag.
    let name = "declared-9x512m.db3.zstd";
    if let Some(p) = folder(name)? {
        let frame = zstd_zeros(512 << 20);
        let files: Vec<String> = (0..9).map(|k| format!("d_{k}.db3.zstd")).collect();
        for f in &files {
            write(&p.join(f), &frame)?;
        }
        write(
            &p.join("metadata.yaml"),
            metadata(&files, "sqlite3", true).as_bytes(),
        )?;
    }
    cases.push(Case {
        name,
        options: Vec::new(),
        honest: false,
    });

    // Eleven distinct .mcap.zstd files that declare nothing and each hold
    // a 100 MiB MCAP file: refused at the eleventh with the bag's limit at
    // 1 GiB (the default 4 GiB works alike, only slower), one file in
    // memory at a time.
    let name = "undeclared-11x100m.mcap.zstd";
    if let Some(p) = folder(name)? {
        let frame = mcap_of_zeros_zstd(100 << 20)?;
        let files: Vec<String> = (0..11).map(|k| format!("m_{k:02}.mcap.zstd")).collect();
        for f in &files {
            write(&p.join(f), &frame)?;
        }
        write(
            &p.join("metadata.yaml"),
            metadata(&files, "mcap", true).as_bytes(),
        )?;
    }
    cases.push(Case {
        name,
        options: vec!["--max-bag-expansion".into(), (1u64 << 30).to_string()],
        honest: false,
    });

    // A 16 KB bag beside a sparse 4 GiB write-ahead log with a valid
    // header.
    let name = "wal-sparse-4g";
    if let Some(p) = folder(name)? {
        small_bag(&p.join("bag"), 3, false)?;
        for f in ["bag_0.db3", "metadata.yaml"] {
            std::fs::rename(p.join("bag").join(f), p.join(f)).map_err(err)?;
        }
        std::fs::remove_dir_all(p.join("bag")).map_err(err)?;
        let mut header = Vec::new();
        for v in [0x377f_0682u32, 3_007_000, 4096, 0, 1, 2, 0, 0] {
            header.extend(v.to_be_bytes());
        }
        let wal = p.join("bag_0.db3-wal");
        write(&wal, &header)?;
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&wal)
            .map_err(err)?;
        f.set_len(4 << 30).map_err(err)?;
    }
    cases.push(Case {
        name,
        options: Vec::new(),
        honest: false,
    });

    // A write-ahead log that is not one.
    let name = "wal-not-a-wal";
    if let Some(p) = folder(name)? {
        small_bag(&p.join("bag"), 3, false)?;
        for f in ["bag_0.db3", "metadata.yaml"] {
            std::fs::rename(p.join("bag").join(f), p.join(f)).map_err(err)?;
        }
        std::fs::remove_dir_all(p.join("bag")).map_err(err)?;
        write(&p.join("bag_0.db3-wal"), &vec![0xaa; 1 << 20])?;
    }
    cases.push(Case {
        name,
        options: Vec::new(),
        honest: false,
    });

    // An honest bag of 300 split files, read under `ulimit -n 64`.
    let name = "split-300-files";
    if !root.join(name).join("metadata.yaml").exists() {
        small_bag(&root.join(name), 300, true)?;
    }
    cases.push(Case {
        name,
        options: Vec::new(),
        honest: true,
    });
    Ok(cases)
}

#[cfg(test)]
mod tests {
    /// The step against the debug build (`cargo test -p xtask -- --ignored
    /// rosbag2_cases`), without the release build the gate makes.
    #[test]
    #[ignore]
    fn rosbag2_cases() {
        let exe = crate::root().join("target/debug/robolog");
        let dir = crate::root().join("target/hostile");
        let failures = super::check(&exe, &dir).unwrap();
        assert!(failures.is_empty(), "{failures:#?}");
    }
}
