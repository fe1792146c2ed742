//! The decompression threads of a message iterator end with it: dropped
//! part way through a bz2 bag, no thread of it is left running (found by
//! fuzzing as memory of the threads still alive after the iterator).
//! Alone in its test binary, so no other test starts such threads.

use std::io::Cursor;

use logcore::MessageFilter;
use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};

/// Threads of this process named as the decompression threads (Linux
/// keeps the first 15 bytes of a thread's name).
#[cfg(target_os = "linux")]
fn decompression_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|name| name.trim_end() == "rosbag12-decomp")
        })
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn dropping_the_iterator_ends_its_threads() {
    for compression in [Compression::Bz2, Compression::Lz4] {
        dropping_ends_threads(compression);
    }
}

#[cfg(target_os = "linux")]
fn dropping_ends_threads(compression: Compression) {
    let options = WriterOptions {
        chunk_threshold: 64,
        ..WriterOptions::compressed(compression)
    };
    let mut w = Writer::new(Cursor::new(Vec::new()), options).unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/t",
            "std_msgs/String",
            "*",
            "string data",
        ))
        .unwrap();
    for i in 0..40u32 {
        let mut data = 96u32.to_le_bytes().to_vec();
        data.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, 96));
        w.write(c, RosTime { sec: i, nsec: 0 }, &data).unwrap();
    }
    w.finish().unwrap();
    let file = w.into_inner().into_inner();
    let bag = Bag::new(&file).unwrap();
    assert!(bag.chunk_infos().len() > 10);
    for _ in 0..3 {
        let mut it = bag.messages(&MessageFilter::all());
        let first = it.next().unwrap().unwrap();
        assert_eq!(first.time, RosTime { sec: 0, nsec: 0 });
        // bz2: started on a machine with more than one core (a thread
        // names itself once running: given a moment). lz4: decoded in
        // place, no thread.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = (0..40).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(5));
            decompression_threads() > 0
        });
        let want = cores > 1 && compression == Compression::Bz2;
        assert_eq!(threads, want, "{compression:?}");
        drop(it);
        assert_eq!(threads_left(), 0);
    }
    // Read to the end: every message, then no thread either.
    assert_eq!(bag.messages(&MessageFilter::all()).count(), 40);
    assert_eq!(threads_left(), 0);
}

/// The decompression threads still listed after the iterator was dropped
/// (which joins them), given up to two seconds to leave the list: a
/// joined thread has ended, but the kernel may list it in
/// `/proc/self/task` for a moment longer on a loaded machine. A thread
/// that was not joined keeps running and stays.
#[cfg(target_os = "linux")]
fn threads_left() -> usize {
    let mut n = decompression_threads();
    for _ in 0..200 {
        if n == 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        n = decompression_threads();
    }
    n
}
