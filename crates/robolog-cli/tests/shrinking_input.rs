//! An input that shrinks while it is read (log rotation, a recorder
//! restarting on the same name): the memory-mapped bytes past the new end
//! are gone, and the process must end with a clear message and exit code
//! 4, never be killed by SIGBUS without a word.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rosbag12::{Connection, RosTime, Writer, WriterOptions};

/// A bag of 20,000 uncompressed messages of 1 KiB (about 21 MB): `cat`
/// prints far more than a pipe holds, so it blocks in the middle of it.
fn big_bag(path: &Path) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = Writer::new(file, WriterOptions::default()).unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/blob",
            "std_msgs/UInt8MultiArray",
            "82373f1612381bb6ee473b5cd6f5d89c",
            "std_msgs/MultiArrayLayout layout\nuint8[] data\n\
             ================================================================================\n\
             MSG: std_msgs/MultiArrayLayout\nstd_msgs/MultiArrayDimension[] dim\nuint32 data_offset\n\
             ================================================================================\n\
             MSG: std_msgs/MultiArrayDimension\nstring label\nuint32 size\nuint32 stride\n",
        ))
        .unwrap();
    let mut data = Vec::new();
    data.extend_from_slice(&0u32.to_le_bytes()); // no dimensions
    data.extend_from_slice(&0u32.to_le_bytes()); // data_offset
    data.extend_from_slice(&1024u32.to_le_bytes());
    data.extend(std::iter::repeat_n(0xa5u8, 1024));
    for i in 0..20_000u32 {
        w.write(
            c,
            RosTime {
                sec: 1_000 + i / 100,
                nsec: (i % 100) * 10_000_000,
            },
            &data,
        )
        .unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn an_input_truncated_while_read_ends_with_a_message_and_exit_code_4() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("shrinking-input-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bag = dir.join("big.bag");
    big_bag(&bag);

    for cut in [0u64, 4096 * 100] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_robolog"))
            .arg("cat")
            .arg(&bag)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The first line proves the file is mapped and being read; the
        // child then fills the pipe and waits for us, its map alive.
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(first.contains("/blob"), "{first}");
        // Log rotation with copytruncate: the file is cut in place.
        std::fs::File::options()
            .write(true)
            .open(&bag)
            .unwrap()
            .set_len(cut)
            .unwrap();
        let mut rest = Vec::new();
        out.read_to_end(&mut rest).unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), None, "killed by a signal: {err}");
        assert_eq!(status.code(), Some(4), "{err}");
        assert!(
            err.starts_with("robolog: the input file shrank while being read (it was truncated"),
            "{err}"
        );
        big_bag(&bag);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_file_read_whole_prints_every_message() {
    // The control: unchanged, the same command reads all 20,000 messages.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("shrinking-input-control-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bag = dir.join("big.bag");
    big_bag(&bag);
    let out = Command::new(env!("CARGO_BIN_EXE_robolog"))
        .arg("cat")
        .arg(&bag)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 20_000);
    std::fs::remove_dir_all(&dir).unwrap();
}
