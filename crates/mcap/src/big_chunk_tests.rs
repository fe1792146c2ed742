//! Chunks above the streaming threshold (lowered here) read back exactly
//! as the whole-decompression path reads them, damage included.

use logcore::limits::stream_override;
use logcore::{LogReader, MessageFilter, ReadMode};

use crate::{Compression, LinearReader, Mcap, ReadOptions, Record, WriteOptions, Writer};

/// A file of `n` messages on three channels in one chunk (sizes 0 to 299
/// bytes, log times increasing).
fn file(compression: Compression, n: u32) -> Vec<u8> {
    let opts = WriteOptions {
        compression,
        chunk_size: u64::MAX,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), opts).unwrap();
    let schema = w.add_schema("s", "jsonschema", b"{}").unwrap();
    let chans: Vec<u16> = ["/a", "/b", "/c"]
        .iter()
        .map(|t| {
            w.add_channel(schema, t, "bin", &Default::default())
                .unwrap()
        })
        .collect();
    for i in 0..n {
        let data: Vec<u8> = (0..(i * 7919) % 300).map(|k| (k * 31 + i) as u8).collect();
        let c = chans[(i % 3) as usize];
        w.write_message(c, i, 1000 + u64::from(i) * 10, u64::from(i), &data)
            .unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// Offset of the (only) Chunk record.
fn chunk_offset(file: &[u8]) -> usize {
    let opts = ReadOptions {
        flatten_chunks: false,
        ..ReadOptions::default()
    };
    let mut r = LinearReader::with_options(file, opts);
    while let Some(rec) = r.next() {
        if let Ok(Record::Chunk(_)) = rec {
            return r.last_offset() as usize;
        }
    }
    panic!("no chunk");
}

/// Every item of the linear reader, as text.
fn linear(file: &[u8], mode: ReadMode) -> Vec<String> {
    let opts = ReadOptions {
        mode,
        ..ReadOptions::default()
    };
    LinearReader::with_options(file, opts)
        .map(|r| match r {
            Ok(Record::Message(m)) => format!(
                "msg {} {} {} {} {:?}",
                m.channel_id,
                m.sequence,
                m.log_time,
                m.publish_time,
                &m.data[..]
            ),
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("error {e}"),
        })
        .collect()
}

/// Every message of the facade (the indexed merge), as text.
fn facade(file: &[u8], filter: &MessageFilter) -> Vec<String> {
    let mcap = Mcap::new(file).unwrap();
    mcap.messages(filter)
        .unwrap()
        .map(|r| match r {
            Ok(m) => format!(
                "msg {} {:?} {:?} {:?}",
                m.channel,
                m.log_time,
                m.offset,
                &m.payload[..]
            ),
            Err(e) => format!("error {e}"),
        })
        .collect()
}

/// Asserts equal item lists, naming the first difference (shortened).
fn same(a: &[String], b: &[String], what: &str) {
    let short = |s: Option<&String>| s.map(|s| s.chars().take(200).collect::<String>());
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        panic!(
            "{what}: {} vs {} items, first difference at {i}: {:?} vs {:?}",
            a.len(),
            b.len(),
            short(a.get(i)),
            short(b.get(i))
        );
    }
}

/// `f` with the whole path, then with the streamed one.
fn both<T>(f: impl Fn() -> T) -> (T, T) {
    stream_override::set(None);
    let whole = f();
    stream_override::set(Some(1 << 10));
    let streamed = f();
    stream_override::set(None);
    (whole, streamed)
}

#[test]
fn streamed_chunks_read_back_like_whole_ones() {
    for compression in [Compression::Zstd, Compression::Lz4] {
        let f = file(compression, 20_000);
        let c = chunk_offset(&f);
        let declared = u64::from_le_bytes(f[c + 25..c + 33].try_into().unwrap());
        assert!(declared > 1 << 20, "{declared}");
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            let (whole, streamed) = both(|| linear(&f, mode));
            assert_eq!(
                whole.iter().filter(|s| s.starts_with("msg")).count(),
                20_000
            );
            assert!(!whole.iter().any(|s| s.starts_with("error")));
            same(&whole, &streamed, &format!("{compression:?} {mode:?}"));
        }
        let filters = [
            MessageFilter::all(),
            MessageFilter::all().channels([logcore::ChannelId(2)]),
            MessageFilter {
                start: Some(logcore::Timestamp(50_000)),
                end: Some(logcore::Timestamp(90_000)),
                ..MessageFilter::all()
            },
        ];
        for filter in &filters {
            let (whole, streamed) = both(|| facade(&f, filter));
            assert!(!whole.is_empty());
            same(&whole, &streamed, &format!("{compression:?} {filter:?}"));
        }
    }
}

/// The messages of the intact file before the streamed items' error, and
/// that error: the whole path's error, after a prefix of the messages.
fn check_damage(good: &[String], whole: &[String], streamed: &[String], lenient: bool) {
    let errors = |v: &[String]| {
        v.iter()
            .filter(|s| s.starts_with("error"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(!errors(whole).is_empty());
    if !lenient {
        // Strict: the same single error, after the messages read before it.
        assert!(errors(whole) == errors(streamed), "{:?}", errors(streamed));
        let (last, before) = streamed.split_last().unwrap();
        assert!(Some(last) == whole.last(), "{last}");
        assert!(!before.iter().any(|s| s.starts_with("error")));
        let good_msgs = good.iter().filter(|s| s.starts_with("msg")).count();
        assert!(before.iter().filter(|s| s.starts_with("msg")).count() <= good_msgs);
    }
}

#[test]
fn crc_and_size_mismatches_are_reported_after_the_records_before_them() {
    for compression in [Compression::Zstd, Compression::Lz4] {
        let f = file(compression, 5_000);
        let good = linear(&f, ReadMode::Strict);
        let n_good = good.iter().filter(|s| s.starts_with("msg")).count();
        let c = chunk_offset(&f);
        // The CRC of the decompressed records (after the times and size).
        let mut bad_crc = f.clone();
        bad_crc[c + 33] ^= 0x55;
        // One byte more than the records hold.
        let mut bad_size = f.clone();
        let size = u64::from_le_bytes(f[c + 25..c + 33].try_into().unwrap());
        bad_size[c + 25..c + 33].copy_from_slice(&(size + 1).to_le_bytes());
        for (what, bad) in [("crc", bad_crc), ("size", bad_size)] {
            for mode in [ReadMode::Strict, ReadMode::Lenient] {
                let (whole, streamed) = both(|| linear(&bad, mode));
                // Whole: the chunk's error and none of its messages.
                assert!(!whole.iter().any(|s| s.starts_with("msg")), "{what}");
                let err = whole.iter().find(|s| s.starts_with("error")).unwrap();
                let want = if what == "crc" {
                    "uncompressed_crc"
                } else {
                    "uncompressed_size"
                };
                assert!(err.contains(want), "{err}");
                // Streamed: every message, then the same error.
                assert_eq!(
                    streamed.iter().filter(|s| s.starts_with("msg")).count(),
                    n_good,
                    "{what} {mode:?}"
                );
                let pos = streamed.iter().position(|s| s == err).unwrap();
                assert!(
                    streamed[..pos]
                        .iter()
                        .filter(|s| s.starts_with("msg"))
                        .count()
                        == n_good
                );
                check_damage(&good, &whole, &streamed, mode == ReadMode::Lenient);
                // The merge checks a big chunk before it streams it: the
                // same items as the whole path.
                let (whole, streamed) = both(|| {
                    facade(
                        &bad,
                        &MessageFilter {
                            mode,
                            ..MessageFilter::all()
                        },
                    )
                });
                same(&whole, &streamed, &format!("{what} {mode:?}"));
            }
        }
    }
}

#[test]
fn a_damaged_byte_mid_chunk_gives_the_whole_path_error_after_the_messages_before_it() {
    for compression in [Compression::Zstd, Compression::Lz4] {
        // Over 4 MiB: more than one lz4 block.
        let f = file(compression, 40_000);
        let good = linear(&f, ReadMode::Strict);
        let c = chunk_offset(&f);
        let clen = u64::from_le_bytes(f[c + 1..c + 9].try_into().unwrap()) as usize;
        let mut seen_messages_before = false;
        for frac in [2, 10] {
            let mut bad = f.clone();
            let at = c + 9 + clen - clen / frac;
            bad[at] ^= 0xA5;
            bad[at + 1] ^= 0x3C;
            for mode in [ReadMode::Strict, ReadMode::Lenient] {
                let (whole, streamed) = both(|| linear(&bad, mode));
                let werr: Vec<_> = whole.iter().filter(|s| s.starts_with("error")).collect();
                let serr: Vec<_> = streamed.iter().filter(|s| s.starts_with("error")).collect();
                assert!(!werr.is_empty() && !serr.is_empty(), "{whole:?}");
                if mode == ReadMode::Strict {
                    assert!(werr == serr, "{compression:?} 1/{frac}: {werr:?} {serr:?}");
                }
                // Every message the streamed path gives before its first
                // error is the intact file's.
                let first_err = streamed
                    .iter()
                    .position(|s| s.starts_with("error"))
                    .unwrap();
                let msgs: Vec<_> = streamed[..first_err]
                    .iter()
                    .filter(|s| s.starts_with("msg"))
                    .collect();
                let good_msgs: Vec<_> = good.iter().filter(|s| s.starts_with("msg")).collect();
                // A damaged byte the decoder does not notice changes the
                // records it decodes to; only the CRC at the end of the
                // chunk tells. Messages come out in order before it, the
                // damaged ones among them.
                // The damage is past the middle of the compressed bytes:
                // the first third of the messages at least decode intact.
                let intact = msgs
                    .iter()
                    .zip(&good_msgs)
                    .take_while(|(a, b)| a == b)
                    .count();
                assert!(msgs.len() <= good_msgs.len());
                assert!(
                    msgs.is_empty() || intact > good_msgs.len() / 3,
                    "{compression:?} 1/{frac}: {intact} intact"
                );
                seen_messages_before |= !msgs.is_empty();
                check_damage(&good, &whole, &streamed, mode == ReadMode::Lenient);
                let (whole, streamed) = both(|| {
                    facade(
                        &bad,
                        &MessageFilter {
                            mode,
                            ..MessageFilter::all()
                        },
                    )
                });
                same(
                    &whole,
                    &streamed,
                    &format!("{compression:?} 1/{frac} {mode:?}"),
                );
            }
        }
        assert!(seen_messages_before, "{compression:?}");
    }
}

#[test]
fn chunks_above_the_limit_are_refused_as_before() {
    let f = file(Compression::Zstd, 2_000);
    let opts = ReadOptions {
        limits: crate::Limits::default().with_max_chunk_size(1000),
        ..ReadOptions::default()
    };
    let (whole, streamed) = both(|| {
        LinearReader::with_options(&f, opts)
            .filter_map(|r| r.err().map(|e| e.to_string()))
            .collect::<Vec<_>>()
    });
    assert_eq!(whole, streamed);
    assert!(whole[0].contains("reader's limit"), "{whole:?}");
}

/// Peak memory of reading a zstd chunk declaring and holding 300 MiB, in
/// a child process (its VmHWM): far below the chunk.
#[test]
fn a_big_chunk_streams_in_bounded_memory() {
    if let Ok(path) = std::env::var("MCAPFILE_BIG_CHUNK_CHILD") {
        // The child: read the file both ways, print the messages and peak.
        let data = std::fs::read(&path).unwrap();
        let mut n = 0u64;
        let mut bytes = 0u64;
        for r in LinearReader::new(&data) {
            if let Record::Message(m) = r.unwrap() {
                n += 1;
                bytes += m.data.len() as u64;
            }
        }
        let mcap = Mcap::new(&data).unwrap();
        let mut merged = 0u64;
        for m in mcap.messages(&MessageFilter::all()).unwrap() {
            m.unwrap();
            merged += 1;
        }
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let hwm = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .unwrap()
            .trim()
            .trim_end_matches(" kB")
            .parse::<u64>()
            .unwrap();
        println!("\nBIGCHUNK {n} {bytes} {merged} {hwm}");
        return;
    }
    if !std::path::Path::new("/proc/self/status").exists() {
        return;
    }
    // 300 MiB of 1 KiB messages, mostly zeros: a file of about 1 MiB.
    const N: u32 = 300 << 10;
    let opts = WriteOptions {
        chunk_size: u64::MAX,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), opts).unwrap();
    let ch = w
        .add_channel(0, "/big", "bin", &Default::default())
        .unwrap();
    let mut data = vec![0u8; 1024 - 31];
    for i in 0..N {
        data[..4].copy_from_slice(&i.to_le_bytes());
        w.write_message(ch, i, u64::from(i), 0, &data).unwrap();
    }
    let file = w.finish().unwrap().into_inner();
    assert!(file.len() < 20 << 20, "{}", file.len());
    let dir = std::env::temp_dir().join(format!("mcapfile-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.mcap");
    std::fs::write(&path, &file).unwrap();
    drop(file);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "big_chunk_tests::a_big_chunk_streams_in_bounded_memory",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("MCAPFILE_BIG_CHUNK_CHILD", &path)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| Some(l.split_once("BIGCHUNK ")?.1))
        .unwrap_or_else(|| panic!("{stdout}"));
    let v: Vec<u64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
    assert_eq!(v[0], u64::from(N));
    assert_eq!(v[1], u64::from(N) * (1024 - 31));
    assert_eq!(v[2], u64::from(N));
    // 300 MiB declared; the reader holds a record and the decoder's
    // buffers (the test binary itself takes a few MiB).
    assert!(v[3] < 64 << 10, "peak {} kB", v[3]);
}

/// A file of one zstd chunk holding `records` (no CRC), declaring their
/// length.
fn file_of_records(records: &[u8]) -> Vec<u8> {
    use crate::{Chunk, DataEnd, Footer, Header, MAGIC, encode_record};

    let mut f = MAGIC.to_vec();
    f.extend(encode_record(&Record::Header(Header {
        profile: String::new(),
        library: "test".into(),
    })));
    let packed = zstd::bulk::compress(records, 3).unwrap();
    f.extend(encode_record(&Record::Chunk(Chunk {
        message_start_time: 0,
        message_end_time: 0,
        uncompressed_size: records.len() as u64,
        uncompressed_crc: 0,
        compression: "zstd".into(),
        records: logcore::Payload::Borrowed(&packed),
    })));
    f.extend(encode_record(&Record::DataEnd(DataEnd {
        data_section_crc: 0,
    })));
    f.extend(encode_record(&Record::Footer(Footer::default())));
    f.extend_from_slice(MAGIC);
    f
}

#[test]
fn unreadable_and_unframed_records_in_a_streamed_chunk_read_as_in_a_whole_one() {
    let message = |i: u32| {
        crate::encode_record(&Record::Message(crate::Message {
            channel_id: 1,
            sequence: i,
            log_time: u64::from(i),
            publish_time: 0,
            data: logcore::Payload::Borrowed(&[7u8; 100]),
        }))
    };
    let mut records = Vec::new();
    for i in 0..50 {
        records.extend(message(i));
    }
    // A Channel record too short for its fields: unreadable, framed.
    records.extend([crate::op::CHANNEL, 3, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
    for i in 50..100 {
        records.extend(message(i));
    }
    // A record whose length runs past the end of the records.
    let mut unframed = records.clone();
    unframed.extend([crate::op::MESSAGE, 200, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
    for (what, recs) in [("unreadable", &records), ("unframed", &unframed)] {
        let f = file_of_records(recs);
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            let (whole, streamed) = both(|| linear(&f, mode));
            assert!(whole.iter().any(|s| s.starts_with("error")), "{what}");
            let msgs = whole.iter().filter(|s| s.starts_with("msg")).count();
            // Strict stops at the unreadable record; lenient goes on.
            let want = if mode == ReadMode::Strict { 50 } else { 100 };
            assert_eq!(msgs, want, "{what} {mode:?}");
            same(&whole, &streamed, &format!("{what} {mode:?}"));
        }
    }
}
