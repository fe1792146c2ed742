//! `cargo xtask hostile`: hostile files against the built `robolog`.
//!
//! Generates files made to exhaust memory, stack or time (decompression
//! bombs with honest declared sizes of 1-4 GiB, 65,535 channels sharing a
//! 1 MB schema, message definitions and protobuf descriptors nested 20,000
//! deep, 20,000 ULog subscriptions, 20,000 bag connections) into
//! `target/hostile/`, runs `robolog info` and `robolog cat --json` on each
//! as a child process (stdout to /dev/null) and measures its peak resident
//! memory (`wait4`) and wall time. Fails when a run is killed by a signal,
//! takes longer than [`MAX_SECONDS`], or peaks above [`MEMORY_BUDGET`]
//! plus the file's size ([`BIG_CHUNK_BUDGET`] for the honest big chunks).
//! Exit codes 0-2 are all fine: refusing a hostile file with a clear error
//! is the expected outcome for most of them.
//!
//! Two files are honest rather than hostile: one MCAP zstd chunk and one
//! bag lz4 chunk, each declaring and holding 300 MiB of 1 KiB messages
//! (well under the default chunk limit). They must be read in full, in
//! far less memory than the chunk: the readers decompress such chunks
//! incrementally.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Result, cargo, root, run, step};

/// Peak RSS allowed beyond the input file's size.
pub(crate) const MEMORY_BUDGET: u64 = 512 << 20;
/// Peak RSS allowed for the honest big-chunk files (whatever their size).
pub(crate) const BIG_CHUNK_BUDGET: u64 = 150 << 20;
/// Wall time allowed per run.
pub(crate) const MAX_SECONDS: u64 = 60;

/// `cargo xtask hostile`.
pub(crate) fn cmd(_args: &[String]) -> Result {
    let exe = optimized_robolog("gate")?;
    let dir = root().join("target/hostile");
    step("generate hostile files");
    // In a process of its own: the memory the generators leave to the
    // allocator must not count in the peak of the children started here.
    let me = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
    run(Command::new(me).arg("hostile-generate").arg(&dir))?;
    let files: Vec<PathBuf> = generators()
        .iter()
        .map(|(name, _)| dir.join(name))
        .collect();
    step("robolog info / cat --json on each");
    println!(
        "{:<28} {:<10} {:>6} {:>10} {:>10} {:>8}  verdict",
        "file", "command", "exit", "peak MiB", "budget", "seconds"
    );
    let mut failures = Vec::new();
    for path in &files {
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let budget = if name.starts_with("big-chunk") {
            BIG_CHUNK_BUDGET
        } else {
            MEMORY_BUDGET + size
        };
        for args in [&["info"][..], &["cat", "--json"][..]] {
            let r = measure(&exe, args, path)?;
            failures.extend(judge(&name, &args.join(" "), &r, budget, false));
        }
    }
    step("exports whose time or memory could grow faster than the work");
    failures.extend(export_shapes(&exe, &dir)?);
    step("robolog report of many topics: time, memory, page size");
    failures.extend(crate::hostile_report::check(&exe, &dir)?);
    step("ROS 2 bags: temporary folder, memory and open files");
    failures.extend(crate::hostile_rosbag2::check(&exe, &dir)?);
    crate::verdict("hostile files that broke robolog", &failures)
}

/// Builds the release `robolog` without the sql command (DataFusion reads
/// no log file itself) and returns its path.
pub(crate) fn release_robolog() -> Result<PathBuf> {
    optimized_robolog("release")
}

/// `robolog` without the sql command, built with the Cargo profile
/// `profile` (`release`, or the gate's `gate`: the same code compiled in
/// parallel), and its path.
pub(crate) fn optimized_robolog(profile: &str) -> Result<PathBuf> {
    step(&format!(
        "build robolog ({profile} profile, without the sql command: DataFusion reads no log file itself)"
    ));
    run(cargo().args([
        "build",
        "--profile",
        profile,
        "--locked",
        "-p",
        "robolog-cli",
        "--no-default-features",
    ]))?;
    Ok(root().join("target").join(profile).join("robolog"))
}

/// Prints the table row of one run and returns its failure, if any: a
/// signal, the time limit, memory over `budget`, or (with `must_succeed`)
/// an exit code other than 0.
fn judge(
    name: &str,
    command: &str,
    r: &Measured,
    budget: u64,
    must_succeed: bool,
) -> Option<String> {
    let mut problems = Vec::new();
    if let Some(sig) = r.signal {
        problems.push(format!("killed by signal {sig}"));
    }
    if r.timed_out {
        problems.push(format!("ran over {MAX_SECONDS} s"));
    }
    if r.peak_rss > budget {
        problems.push(format!("peak RSS {} > {budget}", r.peak_rss));
    }
    if must_succeed && r.exit != Some(0) {
        problems.push(format!("exit {:?}", r.exit));
    }
    println!(
        "{:<28} {:<10} {:>6} {:>10.1} {:>10.1} {:>8.2}  {}",
        name,
        command,
        r.exit.map_or("-".into(), |c| c.to_string()),
        r.peak_rss as f64 / (1 << 20) as f64,
        budget as f64 / (1 << 20) as f64,
        r.elapsed.as_secs_f64(),
        if problems.is_empty() {
            "ok".to_string()
        } else {
            problems.join(", ")
        }
    );
    (!problems.is_empty()).then(|| format!("{name}: robolog {command}: {}", problems.join(", ")))
}

/// Logs in the many-logs folder of [`export_shapes`].
const MANY_LOGS: usize = 2_000;

/// Exports of shapes that once took quadratic time or unbounded memory:
/// a folder of [`MANY_LOGS`] small logs to Parquet (each output checked
/// against every input), 20,000 topics to CSV (the folder listed for each
/// file), and a message of 30,000 float64 fields to Parquet (a writer per
/// column). Each must end within [`MAX_SECONDS`] and [`MEMORY_BUDGET`].
fn export_shapes(exe: &Path, dir: &Path) -> Result<Vec<String>> {
    let many = dir.join("many-logs");
    if !many.join(format!("log{:04}.bag", MANY_LOGS - 1)).exists() {
        std::fs::create_dir_all(&many).map_err(err)?;
        let small = one_message_bag()?;
        for i in 0..MANY_LOGS {
            std::fs::write(many.join(format!("log{i:04}.bag")), &small).map_err(err)?;
        }
    }
    let runs: [(&str, &[&str], PathBuf); 3] = [
        ("many-logs", &["export", "--parquet"], many),
        (
            "connections-20000.bag",
            &["export"],
            dir.join("connections-20000.bag"),
        ),
        (
            "wide-30000.bag",
            &["export", "--parquet"],
            dir.join("wide-30000.bag"),
        ),
    ];
    let mut failures = Vec::new();
    for (name, command, input) in runs {
        let out = dir.join(format!("export-{name}"));
        if out.exists() {
            std::fs::remove_dir_all(&out).map_err(err)?;
        }
        let out_s = out.to_string_lossy().into_owned();
        let mut args: Vec<&str> = command.to_vec();
        args.extend(["-o", out_s.as_str()]);
        let r = measure(exe, &args, &input)?;
        failures.extend(judge(name, &command.join(" "), &r, MEMORY_BUDGET, true));
        let _ = std::fs::remove_dir_all(&out);
    }
    Ok(failures)
}

/// `cargo xtask bench export`: the shapes of [`export_shapes`] at four
/// sizes, each twice the one before: logs in a folder to Parquet, and
/// topics of one bag to CSV. Prints the seconds of each and how much they
/// grew against the size before: 2.0 is linear, 4.0 quadratic. (No other
/// tool exports these shapes to compare with.)
pub(crate) fn scaling_bench() -> Result {
    let exe = release_robolog()?;
    let dir = root().join("target/bench-export");
    std::fs::create_dir_all(&dir).map_err(err)?;
    let small = one_message_bag()?;
    println!(
        "{:<32} {:>7} {:>9} {:>12} {:>8}",
        "shape", "n", "seconds", "µs per item", "growth"
    );
    let mut failures = Vec::new();
    for (shape, sizes) in [
        ("logs of a folder to Parquet", [250u32, 500, 1_000, 2_000]),
        ("topics of a bag to CSV", [2_500, 5_000, 10_000, 20_000]),
    ] {
        let mut before: Option<f64> = None;
        for n in sizes {
            let (input, args): (PathBuf, &[&str]) = if shape.starts_with("logs") {
                let folder = dir.join(format!("logs-{n}"));
                if !folder.join(format!("log{:04}.bag", n - 1)).exists() {
                    std::fs::create_dir_all(&folder).map_err(err)?;
                    for i in 0..n {
                        std::fs::write(folder.join(format!("log{i:04}.bag")), &small)
                            .map_err(err)?;
                    }
                }
                (folder, &["export", "--parquet"])
            } else {
                let bag = dir.join(format!("topics-{n}.bag"));
                if !bag.exists() {
                    std::fs::write(&bag, connections_bag(n)?).map_err(err)?;
                }
                (bag, &["export"])
            };
            let out = dir.join("out");
            let _ = std::fs::remove_dir_all(&out);
            let out_s = out.to_string_lossy().into_owned();
            let mut all: Vec<&str> = args.to_vec();
            all.extend(["-o", out_s.as_str()]);
            let r = measure(&exe, &all, &input)?;
            let _ = std::fs::remove_dir_all(&out);
            if r.exit != Some(0) {
                failures.push(format!("{shape}, {n}: exit {:?}", r.exit));
            }
            let secs = r.elapsed.as_secs_f64();
            println!(
                "{:<32} {:>7} {:>9.2} {:>12.0} {:>8}",
                shape,
                n,
                secs,
                secs * 1e6 / f64::from(n),
                before.map_or("-".to_string(), |b| format!("{:.2}", secs / b)),
            );
            before = Some(secs);
        }
    }
    crate::verdict("exports that failed", &failures)
}

/// A bag of one `std_msgs/UInt8` message.
fn one_message_bag() -> Result<Vec<u8>> {
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions::default(),
    )
    .map_err(err)?;
    let conn = rosbag12::Connection::new(
        0,
        "/data",
        "std_msgs/UInt8",
        "7c8164229e7d2c17eb95e9231617fdee",
        "uint8 data\n",
    );
    let id = w.add_connection(conn).map_err(err)?;
    w.write(id, rosbag12::RosTime { sec: 1, nsec: 0 }, &[7])
        .map_err(err)?;
    w.finish().map_err(err)?;
    Ok(w.into_inner().into_inner())
}

/// Five messages of one type with 30,000 float64 fields (a 1.2 MB bag).
fn wide_message() -> Result<Vec<u8>> {
    const FIELDS: usize = 30_000;
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions::default(),
    )
    .map_err(err)?;
    let definition: String = (0..FIELDS).map(|i| format!("float64 f{i}\n")).collect();
    // The md5sum is not checked against the definition by readers.
    let conn = rosbag12::Connection::new(
        0,
        "/wide",
        "test_msgs/Wide",
        "0123456789abcdef0123456789abcdef",
        definition,
    );
    let id = w.add_connection(conn).map_err(err)?;
    let payload: Vec<u8> = (0..FIELDS).flat_map(|i| (i as f64).to_le_bytes()).collect();
    for k in 0..5 {
        w.write(
            id,
            rosbag12::RosTime {
                sec: 1 + k,
                nsec: 0,
            },
            &payload,
        )
        .map_err(err)?;
    }
    w.finish().map_err(err)?;
    Ok(w.into_inner().into_inner())
}

/// `xtask hostile-generate DIR [NAME...]`: writes every hostile file (or
/// the ones named) into `DIR`.
pub(crate) fn generate(args: &[String]) -> Result {
    let dir = PathBuf::from(args.first().ok_or("hostile-generate: no folder given")?);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let only = &args[1..];
    for (name, make) in generators() {
        if !only.is_empty() && !only.iter().any(|n| n == name) {
            continue;
        }
        let path = dir.join(name);
        let started = Instant::now();
        let bytes = make()?;
        std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!(
            "xtask: {name}: {} bytes in {:.1} s",
            bytes.len(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

type Generator = fn() -> Result<Vec<u8>>;

/// The hostile files, by name.
fn generators() -> Vec<(&'static str, Generator)> {
    vec![
        ("bomb-zstd-4g.mcap", mcap_zstd_bomb),
        ("bomb-lz4-1g.mcap", mcap_lz4_bomb),
        ("bomb-bz2-1g.bag", bag_bz2_bomb),
        ("bomb-lz4-1g.bag", bag_lz4_bomb),
        ("shared-schema-65535.mcap", shared_schema),
        ("nested-msg-20000.bag", nested_msg),
        ("nested-descriptor.mcap", nested_descriptor),
        ("deep-proto-chain.mcap", deep_proto_chain),
        ("subscriptions-20000.ulg", many_subscriptions),
        ("connections-20000.bag", many_connections),
        ("big-chunk-zstd-300m.mcap", mcap_big_chunk),
        ("big-chunk-lz4-300m.bag", bag_big_chunk),
        ("wide-30000.bag", wide_message),
    ]
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// An unindexed MCAP file holding one chunk of `data` compressed with
/// `compression`, declaring `declared` uncompressed bytes.
fn mcap_with_chunk(compression: &str, data: &[u8], declared: u64) -> Vec<u8> {
    use mcapfile::{Chunk, DataEnd, Footer, Header, MAGIC, Record, encode_record};
    let mut f = MAGIC.to_vec();
    f.extend(encode_record(&Record::Header(Header {
        profile: String::new(),
        library: "xtask hostile".into(),
    })));
    f.extend(encode_record(&Record::Chunk(Chunk {
        message_start_time: 0,
        message_end_time: 0,
        uncompressed_size: declared,
        uncompressed_crc: 0,
        compression: compression.into(),
        records: logcore::Payload::Borrowed(data),
    })));
    f.extend(encode_record(&Record::DataEnd(DataEnd {
        data_section_crc: 0,
    })));
    f.extend(encode_record(&Record::Footer(Footer::default())));
    f.extend_from_slice(MAGIC);
    f
}

/// 4 GiB of zeros as 4096 concatenated zstd frames of 1 MiB (an honest
/// declared size; about 160 KB).
fn mcap_zstd_bomb() -> Result<Vec<u8>> {
    let frame = zstd_frame_of_zeros()?;
    Ok(mcap_with_chunk("zstd", &frame.repeat(4096), 4 << 30))
}

fn zstd_frame_of_zeros() -> Result<Vec<u8>> {
    // The file is made by the format crate's own dependency tree: go
    // through the MCAP writer for one zstd chunk of zeros and take its
    // compressed records back out.
    let mut w = mcapfile::Writer::new(
        Vec::new(),
        mcapfile::WriteOptions {
            compression: mcapfile::Compression::Zstd,
            chunk_size: 8 << 20,
            ..mcapfile::WriteOptions::default()
        },
    )
    .map_err(err)?;
    let ch = w
        .add_channel(0, "/zeros", "raw", &BTreeMap::new())
        .map_err(err)?;
    w.write_message(ch, 0, 0, 0, &vec![0u8; 1 << 20])
        .map_err(err)?;
    let file = w.finish().map_err(err)?;
    let chunk = mcapfile::LinearReader::with_options(
        &file,
        mcapfile::ReadOptions {
            flatten_chunks: false,
            ..mcapfile::ReadOptions::default()
        },
    )
    .find_map(|r| match r {
        Ok(mcapfile::Record::Chunk(c)) => Some(c.records.to_vec()),
        _ => None,
    })
    .ok_or("no chunk written")?;
    Ok(chunk)
}

/// One lz4 frame of `n` zeros, written 1 MiB at a time.
fn lz4_zeros(n: usize) -> Result<Vec<u8>> {
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    let block = vec![0u8; 1 << 20];
    for _ in 0..n >> 20 {
        enc.write_all(&block).map_err(err)?;
    }
    enc.finish().map_err(err)
}

fn mcap_lz4_bomb() -> Result<Vec<u8>> {
    Ok(mcap_with_chunk("lz4", &lz4_zeros(1 << 30)?, 1 << 30))
}

/// A bag with one chunk record and no index (the reader scans it).
fn bag_with_chunk(compression: &str, size: u32, data: &[u8]) -> Vec<u8> {
    use rosbag12::record::{encode_header, encode_record};
    let mut out = b"#ROSBAG V2.0\n".to_vec();
    let zero = 0u64.to_le_bytes();
    let z32 = 0u32.to_le_bytes();
    let fields: [(&str, &[u8]); 4] = [
        ("chunk_count", &z32),
        ("conn_count", &z32),
        ("index_pos", &zero),
        ("op", &[3]),
    ];
    let header = encode_header(&fields);
    out.extend(encode_record(&fields, &vec![b' '; 4096 - header.len()]));
    out.extend(encode_record(
        &[
            ("compression", compression.as_bytes()),
            ("op", &[5]),
            ("size", &size.to_le_bytes()),
        ],
        data,
    ));
    out
}

/// 1 GiB of zeros, bz2 (an honest size: the stream really decompresses
/// to it).
fn bag_bz2_bomb() -> Result<Vec<u8>> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    let block = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        enc.write_all(&block).map_err(err)?;
    }
    let data = enc.finish().map_err(err)?;
    Ok(bag_with_chunk("bz2", 1 << 30, &data))
}

fn bag_lz4_bomb() -> Result<Vec<u8>> {
    Ok(bag_with_chunk("lz4", 1 << 30, &lz4_zeros(1 << 30)?))
}

/// 65,535 channels on one 1 MB `ros1msg` schema, one message each.
fn shared_schema() -> Result<Vec<u8>> {
    let mut w =
        mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).map_err(err)?;
    let mut schema = String::with_capacity(1 << 20);
    while schema.len() < (1 << 20) - 64 {
        schema.push_str("# a comment line that makes the definition one megabyte long\n");
    }
    schema.push_str("float64 x\n");
    let id = w
        .add_schema("hostile/Big", "ros1msg", schema.as_bytes())
        .map_err(err)?;
    for i in 0..65_535u32 {
        let ch = w
            .add_channel(id, &format!("/c{i}"), "ros1", &BTreeMap::new())
            .map_err(err)?;
        w.write_message(ch, 0, u64::from(i), u64::from(i), &1.5f64.to_le_bytes())
            .map_err(err)?;
    }
    w.finish().map_err(err)
}

/// A bag whose one connection's type nests 20,000 levels deep
/// (`hostile/T0` holds a `hostile/T1`, ...), with one message.
fn nested_msg() -> Result<Vec<u8>> {
    const DEPTH: usize = 20_000;
    let mut def = String::from("hostile/T1 next\n");
    for i in 1..DEPTH {
        def.push_str(&"=".repeat(80));
        def.push_str(&format!("\nMSG: hostile/T{i}\nhostile/T{} next\n", i + 1));
    }
    def.push_str(&"=".repeat(80));
    def.push_str(&format!("\nMSG: hostile/T{DEPTH}\nuint8 x\n"));
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions::default(),
    )
    .map_err(err)?;
    let conn = rosbag12::Connection::new(
        0,
        "/deep",
        "hostile/T0",
        "0123456789abcdef0123456789abcdef",
        def,
    );
    let id = w.add_connection(conn).map_err(err)?;
    w.write(id, rosbag12::RosTime { sec: 1, nsec: 0 }, &[7])
        .map_err(err)?;
    w.finish().map_err(err)?;
    Ok(w.into_inner().into_inner())
}

/// Protobuf wire helpers.
fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_len(v: u64) -> u64 {
    let mut n = 1;
    let mut v = v >> 7;
    while v > 0 {
        n += 1;
        v >>= 7;
    }
    n
}

/// A length-delimited field `tag` (wire type 2) holding `data`.
fn field(tag: u64, data: &[u8], out: &mut Vec<u8>) {
    varint(tag << 3 | 2, out);
    varint(data.len() as u64, out);
    out.extend_from_slice(data);
}

/// An MCAP file with one protobuf channel on `schema_name` with the
/// FileDescriptorSet `fds`, and one message `payload`.
fn proto_mcap(schema_name: &str, fds: &[u8], payload: &[u8]) -> Result<Vec<u8>> {
    let mut w =
        mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).map_err(err)?;
    let id = w.add_schema(schema_name, "protobuf", fds).map_err(err)?;
    let ch = w
        .add_channel(id, "/deep", "protobuf", &BTreeMap::new())
        .map_err(err)?;
    w.write_message(ch, 0, 1, 1, payload).map_err(err)?;
    w.finish().map_err(err)
}

/// A FileDescriptorSet whose message `M` has nested types 20,000 deep
/// (`M.M.M...`), written front to back with the lengths computed first.
fn nested_descriptor() -> Result<Vec<u8>> {
    const DEPTH: usize = 20_000;
    // DescriptorProto { name = 1: "M", nested_type = 3: DescriptorProto }.
    let name = {
        let mut n = Vec::new();
        field(1, b"M", &mut n);
        n
    };
    // lens[k]: the length of the DescriptorProto at depth k.
    let mut lens = vec![0u64; DEPTH + 1];
    lens[DEPTH] = name.len() as u64;
    for k in (0..DEPTH).rev() {
        let inner = lens[k + 1];
        lens[k] = name.len() as u64 + 1 + varint_len(inner) + inner;
    }
    let mut msg = Vec::with_capacity(lens[0] as usize);
    for (k, _) in lens.iter().enumerate().take(DEPTH) {
        msg.extend_from_slice(&name);
        varint(3 << 3 | 2, &mut msg);
        varint(lens[k + 1], &mut msg);
    }
    msg.extend_from_slice(&name);
    // FileDescriptorProto { name = 1, package = 2, message_type = 4 }.
    let mut file = Vec::new();
    field(1, b"deep.proto", &mut file);
    field(2, b"hostile", &mut file);
    field(4, &msg, &mut file);
    let mut fds = Vec::new();
    field(1, &file, &mut fds);
    proto_mcap("hostile.M", &fds, &[])
}

/// 20,000 message types each holding the next (`M0.next` is an `M1`, ...)
/// and a payload nested through all of them.
fn deep_proto_chain() -> Result<Vec<u8>> {
    const DEPTH: usize = 20_000;
    let mut file = Vec::new();
    field(1, b"chain.proto", &mut file);
    field(2, b"hostile", &mut file);
    for i in 0..DEPTH {
        // FieldDescriptorProto { name 1, number 3, label 4, type 5, type_name 6 }.
        let mut f = Vec::new();
        field(1, b"next", &mut f);
        f.extend_from_slice(&[3 << 3, 1, 4 << 3, 1]);
        if i + 1 < DEPTH {
            f.extend_from_slice(&[5 << 3, 11]);
            field(6, format!(".hostile.M{}", i + 1).as_bytes(), &mut f);
        } else {
            f.extend_from_slice(&[5 << 3, 13]);
        }
        let mut m = Vec::new();
        field(1, format!("M{i}").as_bytes(), &mut m);
        field(2, &f, &mut m);
        field(4, &m, &mut file);
    }
    let mut fds = Vec::new();
    field(1, &file, &mut fds);
    // The payload: field 1 nested DEPTH - 1 times, then a uint32.
    let mut lens = vec![0u64; DEPTH];
    lens[DEPTH - 1] = 2;
    for k in (0..DEPTH - 1).rev() {
        lens[k] = 1 + varint_len(lens[k + 1]) + lens[k + 1];
    }
    let mut payload = Vec::with_capacity(lens[0] as usize);
    for len in lens.iter().skip(1) {
        payload.push(1 << 3 | 2);
        varint(*len, &mut payload);
    }
    payload.extend_from_slice(&[1 << 3, 5]);
    proto_mcap("hostile.M0", &fds, &payload)
}

/// 20,000 subscriptions (80 formats, 250 multi_ids each), two samples
/// each, their timestamps running backwards in file order.
fn many_subscriptions() -> Result<Vec<u8>> {
    let mut w = ulogfile::write::Writer::new(Vec::new(), 0).map_err(err)?;
    for f in 0..80 {
        w.add_format(&format!("t{f}:uint64_t timestamp;uint8_t x;"))
            .map_err(err)?;
    }
    let mut ids = Vec::new();
    for f in 0..80 {
        for m in 0..250u8 {
            ids.push(w.add_subscription(&format!("t{f}"), m).map_err(err)?);
        }
    }
    let n = ids.len() as u64;
    for round in 0..2u64 {
        for (i, id) in ids.iter().enumerate() {
            let t = 1_000_000 + (round * n + n - i as u64) * 10;
            let mut s = t.to_le_bytes().to_vec();
            s.push(i as u8);
            w.write_data(*id, &s).map_err(err)?;
        }
    }
    w.finish().map_err(err)
}

/// 20,000 connections (distinct topics), one message each.
fn many_connections() -> Result<Vec<u8>> {
    connections_bag(20_000)
}

/// A bag of `n` connections (`/t0`, `/t1`, ...), one message each.
fn connections_bag(n: u32) -> Result<Vec<u8>> {
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions::default(),
    )
    .map_err(err)?;
    let mut ids = Vec::new();
    for i in 0..n {
        let conn = rosbag12::Connection::new(
            0,
            format!("/t{i}"),
            "std_msgs/UInt8",
            "7c8164229e7d2c17eb95e9231617fdee",
            "uint8 data\n",
        );
        ids.push(w.add_connection(conn).map_err(err)?);
    }
    for (i, id) in ids.iter().enumerate() {
        let t = rosbag12::RosTime {
            sec: 1 + (i as u32) / 1000,
            nsec: (i as u32 % 1000) * 1_000_000,
        };
        w.write(*id, t, &[i as u8]).map_err(err)?;
    }
    w.finish().map_err(err)?;
    Ok(w.into_inner().into_inner())
}

/// Messages in the big-chunk files, and their size (a 1 KiB record each).
const BIG_CHUNK_MESSAGES: u32 = 300 << 10;
const BIG_CHUNK_DATA: usize = 1024 - 31;

/// One zstd chunk of 300 MiB of 1 KiB messages (mostly zeros: a small
/// file), indexed, written by the MCAP writer.
fn mcap_big_chunk() -> Result<Vec<u8>> {
    let mut w = mcapfile::Writer::new(
        Vec::new(),
        mcapfile::WriteOptions {
            compression: mcapfile::Compression::Zstd,
            chunk_size: u64::MAX,
            ..mcapfile::WriteOptions::default()
        },
    )
    .map_err(err)?;
    let ch = w
        .add_channel(0, "/big", "raw", &BTreeMap::new())
        .map_err(err)?;
    let mut data = vec![0u8; BIG_CHUNK_DATA];
    for i in 0..BIG_CHUNK_MESSAGES {
        data[..4].copy_from_slice(&i.to_le_bytes());
        w.write_message(ch, i, u64::from(i), u64::from(i), &data)
            .map_err(err)?;
    }
    w.finish().map_err(err)
}

/// One lz4 chunk of 300 MiB of `std_msgs/String` messages of about 1 KiB,
/// in time order, written by the bag writer.
fn bag_big_chunk() -> Result<Vec<u8>> {
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions {
            chunk_threshold: usize::MAX,
            ..rosbag12::WriterOptions::compressed(rosbag12::Compression::Lz4)
        },
    )
    .map_err(err)?;
    let conn = rosbag12::Connection::new(
        0,
        "/big",
        "std_msgs/String",
        "992ce8a1687cec8c8bd883ec73ca41d1",
        "string data\n",
    );
    let id = w.add_connection(conn).map_err(err)?;
    // 46 bytes of record header and 4 of string length: 1 KiB records.
    let text_len = 1024 - 46 - 4;
    let mut data = (text_len as u32).to_le_bytes().to_vec();
    data.resize(4 + text_len, b'a');
    for i in 0..BIG_CHUNK_MESSAGES {
        data[4..14].copy_from_slice(format!("{i:010}").as_bytes());
        let t = rosbag12::RosTime {
            sec: 1 + i / 1000,
            nsec: (i % 1000) * 1_000_000,
        };
        w.write(id, t, &data).map_err(err)?;
    }
    w.finish().map_err(err)?;
    Ok(w.into_inner().into_inner())
}

/// What one run of the binary did.
pub(crate) struct Measured {
    pub(crate) exit: Option<i32>,
    pub(crate) signal: Option<i32>,
    pub(crate) peak_rss: u64,
    pub(crate) elapsed: Duration,
    pub(crate) timed_out: bool,
}

/// Runs `exe args path` (stdout to /dev/null, stderr kept short) and
/// measures its peak RSS with `wait4`; kills it after [`MAX_SECONDS`].
fn measure(exe: &Path, args: &[&str], path: &PathBuf) -> Result<Measured> {
    let mut cmd = Command::new(exe);
    cmd.args(args).arg(path);
    let label = format!("{} {}", args.join(" "), path.display());
    measure_command(cmd, &label)
}

/// Runs `cmd` (stdout to /dev/null, stderr drained and its first line
/// shown after `label`) and measures its peak RSS with `wait4`; kills it
/// after [`MAX_SECONDS`].
pub(crate) fn measure_command(mut cmd: Command, label: &str) -> Result<Measured> {
    let started = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {:?}: {e}", cmd.get_program()))?;
    let pid = child.id() as i32;
    // Keep stderr drained (a full pipe would block the child); show its
    // first line.
    let mut stderr = child.stderr;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = stderr.as_mut() {
            let _ = std::io::Read::read_to_string(e, &mut s);
        }
        s
    });
    let (status, rusage, timed_out) = wait_with_timeout(pid, Duration::from_secs(MAX_SECONDS))?;
    let elapsed = started.elapsed();
    let text = reader.join().unwrap_or_default();
    if let Some(first) = text.lines().next() {
        let short: String = first.chars().take(160).collect();
        eprintln!("  {label}: {short}");
    }
    let (exit, signal) = if libc::WIFEXITED(status) {
        (Some(libc::WEXITSTATUS(status)), None)
    } else if libc::WIFSIGNALED(status) {
        (None, Some(libc::WTERMSIG(status)))
    } else {
        (None, None)
    };
    Ok(Measured {
        exit,
        // Our own kill at the time limit is reported as the time-out.
        signal: signal.filter(|_| !timed_out),
        // ru_maxrss is in KiB on Linux.
        peak_rss: rusage.ru_maxrss.max(0) as u64 * 1024,
        elapsed,
        timed_out,
    })
}

/// Waits for `pid` (polling `wait4` with WNOHANG), killing it with SIGKILL
/// once `limit` has passed; returns its status, resource usage and
/// whether it was killed.
#[allow(unsafe_code)]
pub(crate) fn wait_with_timeout(pid: i32, limit: Duration) -> Result<(i32, libc::rusage, bool)> {
    let started = Instant::now();
    let mut killed = false;
    loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value of the plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our own child, not yet waited for; both
        // pointers are to live locals of the right types.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            return Ok((status, usage, killed));
        }
        if r < 0 {
            return Err(format!("wait4({pid}): {}", std::io::Error::last_os_error()));
        }
        if !killed && started.elapsed() > limit {
            // SAFETY: signalling our own child process by its id.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::{LogReader, MessageFilter, ReadMode};

    /// Opens `bytes` through the facade and reads and decodes every
    /// message leniently; returns (messages, problems).
    fn read_all(bytes: &[u8]) -> (usize, usize) {
        let log = robolog::open_bytes(bytes).expect("opens");
        let _ = log.summary().expect("summary");
        let mut decoder = robolog::LenientDecoder::new(&log);
        let (mut messages, mut problems) = (0, 0);
        for m in log
            .messages(&MessageFilter::all().mode(ReadMode::Lenient))
            .expect("messages")
        {
            match m {
                Ok(m) => {
                    let _ = decoder.decode(&m);
                    messages += 1;
                }
                Err(_) => problems += 1,
            }
        }
        (messages, problems + decoder.failures().len())
    }

    #[test]
    fn deep_definitions_are_errors_not_stack_overflows() {
        for make in [nested_msg, nested_descriptor, deep_proto_chain] {
            let (messages, problems) = read_all(&make().unwrap());
            assert_eq!((messages, problems), (1, 1));
        }
    }

    #[test]
    fn many_subscriptions_and_connections_read_in_time_order() {
        let ulog = many_subscriptions().unwrap();
        assert_eq!(read_all(&ulog), (40_000, 0));
        let log = robolog::open_bytes(&ulog).unwrap();
        let times: Vec<i64> = log
            .messages(&MessageFilter::all())
            .unwrap()
            .map(|m| m.unwrap().log_time.as_nanos())
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(read_all(&many_connections().unwrap()), (20_000, 0));
    }

    #[test]
    fn bombs_are_refused_at_the_chunk() {
        // The small one of each kind: the same code paths as the others.
        let zstd = mcap_with_chunk(
            "zstd",
            &zstd_frame_of_zeros().unwrap().repeat(2048),
            2 << 30,
        );
        let log = robolog::open_bytes(&zstd).unwrap();
        let e = log
            .messages(&MessageFilter::all())
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(e.offset(), Some(38));
        assert!(
            e.to_string()
                .contains("declaring 2147483648 uncompressed bytes"),
            "{e}"
        );
    }
}
