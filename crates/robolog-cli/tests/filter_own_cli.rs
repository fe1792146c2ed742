//! `robolog filter` of ULog files, CARLA recordings and VEL logs into
//! their own format, against independent readings: pyulog (the
//! reference tools' Python, `target/interop-venv`; skipped when absent)
//! reads every ULog output fully and compares it with the input (the
//! definitions, the samples of each kept topic inside the range, the
//! logged strings); CARLA and VEL outputs are compared frame by frame and
//! message by message with the inputs read by the format crates. Corpus
//! files (`../shared/corpus` or `$ROBOLOG_CORPUS`) are skipped when
//! absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{corpus, robolog, scratch_dir, testdata, text};

/// Runs `robolog filter ARGS`, asserting exit code 0.
fn filter_ok(args: &[&str]) -> String {
    let out = robolog().arg("filter").args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// Runs `robolog filter ARGS`, asserting exit code 2; its stderr.
fn filter_usage(args: &[&str]) -> String {
    let out = robolog().arg("filter").args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stderr)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `@SECONDS` of `us` microseconds on a log's own clock.
fn at(us: u64) -> String {
    format!("@{}.{:06}", us / 1_000_000, us % 1_000_000)
}

/// Runs `filter_own_pyulog.py`; the samples pyulog read from the output, or
/// `None` when there is no Python with pyulog.
fn pyulog_check(input: &Path, output: &Path, lo: u64, hi: u64, kept: &[String]) -> Option<u64> {
    let py = robolog_testkit::python_with("PYULOG_PYTHON")?;
    let mut cmd = Command::new(py);
    cmd.arg(script("filter_own_pyulog.py"))
        .args([s(input), s(output)])
        .arg(lo.to_string())
        .arg(hi.to_string());
    if kept.is_empty() {
        cmd.arg("*");
    } else {
        cmd.args(kept);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        output.display(),
        text(&out.stderr)
    );
    Some(text(&out.stdout).trim().parse().unwrap())
}

/// The corpus ULog files the tests cut: a 2016 log without flag bits,
/// appended data (one offset cutting a message, three offsets), tagged
/// strings with parameter defaults, many instances, events.
fn ulog_corpus() -> Vec<PathBuf> {
    let Some(dir) = corpus("ulog") else {
        return Vec::new();
    };
    [
        "pyulog/sample.ulg",
        "pyulog/sample_appended.ulg",
        "pyulog/sample_appended_multiple.ulg",
        "pyulog/sample_logging_tagged_and_default_params.ulg",
        "pyulog/sample_log_small.ulg",
        "pyulog/sample_px4_events.ulg",
        "px4-ulog-rs/esc_status_log.ulg",
    ]
    .iter()
    .map(|p| dir.join(p))
    .filter(|p| p.exists())
    .collect()
}

#[test]
fn ulog_time_cuts_and_topics_read_back_with_pyulog() {
    let dir = scratch_dir("filter-own", "ulog");
    for input in ulog_corpus() {
        let bytes = std::fs::read(&input).unwrap();
        let log = ulogfile::ULog::parse(&bytes).unwrap();
        // The range: from 30 % to 60 % of the samples (a log's last
        // timestamp may be an outlier).
        let mut times: Vec<u64> = log
            .subscriptions
            .iter()
            .flat_map(|s| s.samples.iter().map(|x| x.timestamp))
            .collect();
        times.sort();
        let (lo, hi) = (times[times.len() * 3 / 10], times[times.len() * 6 / 10]);
        let name = input.file_stem().unwrap().to_str().unwrap();

        // Everything: a log without appended data comes out unchanged.
        let all = dir.join(format!("{name}.all.ulg"));
        filter_ok(&[s(&input), s(&all)]);
        let appended = log.flag_bits.is_some_and(|f| f.data_appended());
        if !appended {
            assert_eq!(std::fs::read(&all).unwrap(), bytes, "{name}");
        }
        let written = std::fs::read(&all).unwrap();
        let out = ulogfile::ULog::parse(&written).unwrap();
        assert!(!out.flag_bits.is_some_and(|f| f.data_appended()), "{name}");
        assert!(
            out.warnings.is_empty() && out.truncation.is_none(),
            "{name}"
        );
        assert_eq!(
            out.multi_info, log.multi_info,
            "{name}: the appended dump stays"
        );
        pyulog_check(&input, &all, 0, u64::MAX >> 1, &[]);

        // A time range.
        let cut = dir.join(format!("{name}.cut.ulg"));
        filter_ok(&[s(&input), s(&cut), "--start", &at(lo), "--end", &at(hi)]);
        let written = std::fs::read(&cut).unwrap();
        let out = ulogfile::ULog::parse(&written).unwrap();
        assert!(!out.corrupt, "{name}: {:?}", out.warnings);
        // Sync messages inside the range only (by the time of the data
        // before them, as pyulog stamps dropouts: the largest so far).
        assert!(out.sync_count <= log.sync_count, "{name}");
        if name == "sample_logging_tagged_and_default_params" {
            assert!(
                out.sync_count > 0 && out.sync_count < log.sync_count,
                "{name}"
            );
        }
        if let Some(n) = pyulog_check(&input, &cut, lo, hi, &[]) {
            assert!(n > 0, "{name}: something is kept");
        }

        // Topics by pattern, one excluded, and a range.
        let topics = dir.join(format!("{name}.topics.ulg"));
        filter_ok(&[
            s(&input),
            s(&topics),
            "--topic",
            "vehicle_*",
            "--topic",
            "re:sensor_.*",
            "--exclude-topic",
            "vehicle_status",
            "--start",
            &at(lo),
        ]);
        let kept: Vec<String> = log
            .subscriptions
            .iter()
            .filter(|s| {
                (s.name.starts_with("vehicle_") || s.name.starts_with("sensor_"))
                    && s.name != "vehicle_status"
            })
            .map(|s| format!("{}:{}", s.name, s.multi_id))
            .collect();
        let written = std::fs::read(&topics).unwrap();
        let out = ulogfile::ULog::parse(&written).unwrap();
        for sub in &out.subscriptions {
            assert!(
                kept.contains(&format!("{}:{}", sub.name, sub.multi_id)),
                "{name}: {} is not kept",
                sub.name
            );
        }
        pyulog_check(&input, &topics, lo, u64::MAX >> 1, &kept);
    }
}

/// Runs `filter_own_rewrite_pyulog.py` with `args`; the samples pyulog
/// read, or `None` when there is no Python with pyulog.
fn pyulog_rewrite(args: &[&str]) -> Option<u64> {
    let py = robolog_testkit::python_with("PYULOG_PYTHON")?;
    let out = Command::new(py)
        .arg(script("filter_own_rewrite_pyulog.py"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    Some(text(&out.stdout).trim().parse().unwrap())
}

/// The parts `OUT_000.EXT`, ... a split wrote, in order.
fn parts_of(dir: &Path, stem: &str) -> Vec<PathBuf> {
    let mut parts: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{stem}_")))
        })
        .collect();
    parts.sort();
    parts
}

#[test]
fn ulog_shift_rename_and_split_read_back_with_pyulog() {
    let dir = scratch_dir("filter-own", "ulog-rewrite");
    for input in ulog_corpus() {
        let name = input.file_stem().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&input).unwrap();
        let log = ulogfile::ULog::parse(&bytes).unwrap();
        let samples: u64 = log
            .subscriptions
            .iter()
            .map(|s| s.samples.len() as u64)
            .sum();
        // The message of the first subscription renamed.
        let old = log.subscriptions[0].name.clone();
        let new = format!("{old}_renamed");
        let shifted = dir.join(format!("{name}-shift.ulg"));
        let rename = format!("{old}={new}");
        filter_ok(&[
            s(&input),
            s(&shifted),
            "--shift",
            "12.345678s",
            "--rename",
            &rename,
        ]);
        let written = std::fs::read(&shifted).unwrap();
        let out = ulogfile::ULog::parse(&written).unwrap();
        assert_eq!(out.header.timestamp, log.header.timestamp + 12_345_678);
        assert!(out.subscriptions.iter().any(|s| s.name == new), "{name}");
        if let Some(n) = pyulog_rewrite(&["shift", s(&input), s(&shifted), "12345678", &old, &new])
        {
            assert_eq!(n, samples, "{name}");
        }

        // Parts by size (about a third of the file each) and by time.
        let size = (bytes.len() / 3).to_string();
        let stem = format!("{name}-size");
        filter_ok(&[
            s(&input),
            s(&dir.join(format!("{stem}.ulg"))),
            "--split-size",
            &size,
            "--force",
        ]);
        let parts = parts_of(&dir, &stem);
        assert!(parts.len() >= 2, "{name}: {parts:?}");
        // The parts exist now: refused without --force, and a part that
        // is the input always.
        let out = dir.join(format!("{stem}.ulg"));
        let err = filter_usage(&[s(&input), s(&out), "--split-size", &size]);
        assert!(err.contains("exists"), "{err}");
        let err = filter_usage(&[s(&parts[0]), s(&out), "--split-size", &size, "--force"]);
        assert!(err.contains("is the input"), "{err}");
        let mut args = vec!["split", s(&input), "0"];
        args.extend(parts.iter().map(|p| s(p)));
        if let Some(n) = pyulog_rewrite(&args) {
            assert_eq!(n, samples, "{name}");
        }
        let stem = format!("{name}-every");
        filter_ok(&[
            s(&input),
            s(&dir.join(format!("{stem}.ulg"))),
            "--split-every",
            "10s",
            "--force",
        ]);
        let parts = parts_of(&dir, &stem);
        let mut args = vec!["split", s(&input), "10000000"];
        args.extend(parts.iter().map(|p| s(p)));
        if let Some(n) = pyulog_rewrite(&args) {
            assert_eq!(n, samples, "{name}");
        }
    }
}

#[test]
fn ulog_where_keeps_the_samples_where_it_holds() {
    let Some(input) = corpus("ulog/pyulog/sample_log_small.ulg") else {
        return;
    };
    let dir = scratch_dir("filter-own", "ulog-where");
    let out = dir.join("accel.ulg");
    filter_ok(&[s(&input), s(&out), "--where", "sensor_accel: z < -9.81"]);
    let a = std::fs::read(&input).unwrap();
    let b = std::fs::read(&out).unwrap();
    let (a, b) = (
        ulogfile::ULog::parse(&a).unwrap(),
        ulogfile::ULog::parse(&b).unwrap(),
    );
    let mut seen = 0;
    for sa in a.subscriptions.iter().filter(|s| s.name == "sensor_accel") {
        let sb = b.subscription("sensor_accel", sa.multi_id).unwrap();
        let z = sa.column_f64("z").unwrap();
        let want: Vec<&[u8]> = sa
            .samples
            .iter()
            .zip(&z)
            .filter(|(_, z)| **z < -9.81)
            .map(|(s, _)| s.data)
            .collect();
        let got: Vec<&[u8]> = sb.samples.iter().map(|s| s.data).collect();
        assert_eq!(got, want, "instance {}", sa.multi_id);
        seen += want.len();
    }
    assert!(seen > 0);
    // Other topics are all there.
    let att = |l: &ulogfile::ULog<'_>| l.subscription("vehicle_attitude", 0).unwrap().samples.len();
    assert_eq!(att(&a), att(&b));
}

#[test]
fn ulog_refusals_are_usage_errors() {
    let input = testdata("ulog/features.ulg");
    let dir = scratch_dir("filter-own", "ulog-usage");
    let err = filter_usage(&[s(&input), s(&dir.join("x.mcap"))]);
    assert!(err.contains(".ulg"), "{err}");
    let err = filter_usage(&[s(&input), s(&dir.join("x.ulg")), "--shift", "1.0000005s"]);
    assert!(err.contains("whole microseconds"), "{err}");
    let err = filter_usage(&[s(&input), s(&dir.join("x.ulg")), "--shift", "-1000000s"]);
    assert!(err.contains("outside a ULog file's times"), "{err}");
    let err = filter_usage(&[s(&input), s(&dir.join("x.ulg")), "--restamp", "header"]);
    assert!(err.contains("--restamp"), "{err}");
    let err = filter_usage(&[
        s(&input),
        s(&dir.join("x.ulg")),
        "--rename",
        "esc_status[1]=esc",
    ]);
    assert!(err.contains("all its instances"), "{err}");
    let err = filter_usage(&[
        s(&input),
        s(&dir.join("x.ulg")),
        "--rename",
        "esc_status=sensor_gps",
    ]);
    assert!(err.contains("has a format sensor_gps already"), "{err}");
    let err = filter_usage(&[s(&input), s(&input), s(&dir.join("x.ulg"))]);
    assert!(err.contains("one input"), "{err}");
    assert!(err.contains("state of one flight"), "{err}");
    let err = filter_usage(&[s(&input), s(&dir.join("x.ulg")), "--topic", "nope*"]);
    assert!(err.contains("sensor_gps"), "{err}");
    let err = filter_usage(&[
        s(&input),
        s(&dir.join("x.ulg")),
        "--where",
        "esc_status[1]: counter > 1",
    ]);
    assert!(err.contains("'esc_status: multi_id = 1 AND ...'"), "{err}");
    let err = filter_usage(&[s(&input), s(&dir.join("x.ulg")), "--compression", "lz4"]);
    assert!(err.contains("--compression"), "{err}");
    assert!(!dir.join("x.ulg").exists());
    // The dry run counts per topic (instances apart).
    let out = filter_ok(&[s(&input), "--dry-run", "--topic", "esc_status"]);
    assert!(out.contains("esc_status[1]"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("sensor_gps ") && l.contains(" 0 ")),
        "{out}"
    );
}

/// The CARLA recordings the tests cut: the corpus's, and the committed
/// scenes of three layouts (0.9.10, 0.9.13, UE5).
fn carla_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["scene-0.9.10.rec", "scene-0.9.13.rec", "scene-0.10-ue5.rec"]
        .iter()
        .map(|n| testdata(&format!("carla/{n}")))
        .collect();
    if let Some(dir) = corpus("carla") {
        files.extend(robolog_testkit::files_with_ext(&dir, &["log", "rec"]));
    }
    files
}

/// An actor as the tests compare them: id, blueprint, attributes, spawn
/// transform, last parent.
type ActorKey = (u32, String, Vec<(String, String)>, String, Option<u32>);

fn actor_key(a: &carla_recorder::Actor) -> ActorKey {
    (
        a.id,
        a.blueprint.clone(),
        a.attributes.clone(),
        format!("{:?} {:?}", a.spawn_location, a.spawn_rotation),
        a.parent,
    )
}

#[test]
fn carla_time_cuts_keep_frames_and_the_actors_alive() {
    use carla_recorder::{LAST_FRAME_DURATION, PacketId, Recording, Timeline};
    let dir = scratch_dir("filter-own", "carla");
    for input in carla_files() {
        let name = input.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&input).unwrap();
        let rec = Recording::new(&bytes).unwrap();
        let frames: Vec<_> = rec.frames().collect::<Result<_, _>>().unwrap();
        let last = frames.last().unwrap().start.elapsed;
        // Whole microseconds, as the range is given.
        let (lo, hi) = (
            (last * 0.3 * 1e6).round() / 1e6,
            (last * 0.7 * 1e6).round() / 1e6,
        );

        // Everything: the same file.
        let all = dir.join(format!("all-{name}"));
        filter_ok(&[s(&input), s(&all)]);
        assert_eq!(std::fs::read(&all).unwrap(), bytes, "{name}");

        let out = dir.join(format!("cut-{name}"));
        filter_ok(&[
            s(&input),
            s(&out),
            "--start",
            &format!("@{lo:.6}"),
            "--end",
            &format!("@{hi:.6}"),
        ]);
        let written = std::fs::read(&out).unwrap();
        let cut = Recording::new(&written).unwrap();
        assert_eq!(cut.header(), rec.header(), "{name}");
        assert_eq!(cut.layout(), rec.layout(), "{name}");
        let got: Vec<_> = cut.frames().collect::<Result<_, _>>().unwrap();
        let t = |e: f64| logcore::Timestamp::from_secs_f64(e).unwrap();
        let (tlo, thi) = (t(lo), t(hi));
        let want: Vec<_> = frames
            .iter()
            .filter(|f| {
                let ft = t(f.start.elapsed);
                ft >= tlo && ft < thi
            })
            .collect();
        assert!(!want.is_empty(), "{name}");
        assert_eq!(got.len(), want.len(), "{name}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!((g.start.id, g.start.elapsed), (w.start.id, w.start.elapsed));
            if i + 1 < got.len() {
                assert_eq!(g.start.duration, w.start.duration, "{name}");
            } else {
                assert_eq!(g.start.duration, LAST_FRAME_DURATION, "{name}");
            }
            if i > 0 {
                // Every other frame byte for byte.
                let gp: Vec<_> = g.packets().map(|p| (p.id, p.payload)).collect();
                let wp: Vec<_> = w.packets().map(|p| (p.id, p.payload)).collect();
                assert_eq!(gp, wp, "{name}: frame {}", g.start.id);
            } else {
                // The first frame holds its own packets' records, with
                // what stands at the cut merged in.
                let kinds = |f: &carla_recorder::Frame<'_>| {
                    let mut k: Vec<u8> = f.packets().map(|p| p.id).collect();
                    k.sort();
                    k.dedup();
                    k
                };
                let (gk, wk) = (kinds(g), kinds(w));
                assert!(wk.iter().all(|k| gk.contains(k)), "{name}: {gk:?} {wk:?}");
                for p in w.packets() {
                    if p.kind() == Some(PacketId::Position) {
                        let same = g.packets().find(|q| q.id == p.id).unwrap();
                        assert_eq!(same.payload, p.payload, "{name}");
                    }
                }
            }
        }
        // The actors alive at the first kept frame, as the input has them
        // then, with their blueprints, attributes and spawn transforms.
        let (ta, tb) = (
            Timeline::build(&rec).unwrap(),
            Timeline::build(&cut).unwrap(),
        );
        let at = got[0].start.elapsed;
        let mut wa: Vec<ActorKey> = ta.alive_at(at).into_iter().map(actor_key).collect();
        let mut ga: Vec<ActorKey> = tb.alive_at(at).into_iter().map(actor_key).collect();
        wa.sort_by_key(|a| a.0);
        ga.sort_by_key(|a| a.0);
        assert_eq!(ga, wa, "{name}");
        assert!(!ga.is_empty(), "{name}: actors are alive");
        // CARLA's report of the recording reads it.
        let info = robolog()
            .args(["carla", "info"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(info.status.success(), "{}", text(&info.stderr));
        let check = robolog().arg("check").arg(&out).output().unwrap();
        assert!(check.status.success(), "{name}: {}", text(&check.stdout));
    }
}

#[test]
fn carla_is_cut_by_time_only() {
    let input = testdata("carla/scene-0.9.13.rec");
    let dir = scratch_dir("filter-own", "carla-usage");
    let out = dir.join("x.log");
    for args in [
        ["--topic", "Position"],
        ["--exclude-topic", "Position"],
        ["--where", "Position: id > 1"],
        ["--around", "Position: id > 1"],
    ] {
        let err = filter_usage(&[s(&input), s(&out), args[0], args[1]]);
        assert!(err.contains("by time only"), "{err}");
    }
    let err = filter_usage(&[s(&input), s(&dir.join("x.mcap"))]);
    assert!(err.contains(".log or .rec"), "{err}");
    assert!(!out.exists());
}

/// A VEL log's messages: topic-free identity (type, version, time,
/// payload).
type VelMsg = (i32, i32, u64, Vec<u8>);

fn vel_messages(bytes: &[u8]) -> Vec<(String, VelMsg)> {
    use logcore::LogReader;
    let log = vellog::VelLog::new(bytes).unwrap();
    let topics: std::collections::HashMap<_, _> = log
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| (c.id, c.topic))
        .collect();
    log.messages(&logcore::MessageFilter::all())
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let r = log
                .records_from(m.offset.unwrap(), logcore::ReadMode::Strict)
                .next()
                .unwrap()
                .unwrap();
            (
                topics[&m.channel].clone(),
                (
                    r.type_id,
                    r.version,
                    r.timestamp_ms.to_bits(),
                    r.payload.to_vec(),
                ),
            )
        })
        .collect()
}

#[test]
fn vel_topics_and_times_read_back() {
    let dir = scratch_dir("filter-own", "vel");
    for name in ["sensors.vel", "size-convention-b.vel", "terminated.vel"] {
        let input = testdata(&format!("vellog/{name}"));
        let bytes = std::fs::read(&input).unwrap();
        let all = dir.join(format!("all-{name}"));
        filter_ok(&[s(&input), s(&all)]);
        assert_eq!(std::fs::read(&all).unwrap(), bytes, "{name}");

        let out = dir.join(format!("cut-{name}"));
        filter_ok(&[
            s(&input),
            s(&out),
            "--topic",
            "OBD*",
            "--topic",
            "re:.*Laser.*/front",
            "--start",
            "0.5",
            "--end",
            "1.5s",
        ]);
        let written = std::fs::read(&out).unwrap();
        let log = vellog::VelLog::new(&written).unwrap();
        assert!(log.index_check().usable, "{name}: {:?}", log.index_check());
        assert_eq!(
            log.size_convention(),
            vellog::VelLog::new(&bytes).unwrap().size_convention()
        );
        let first = vel_messages(&bytes)
            .iter()
            .map(|(_, (_, _, t, _))| f64::from_bits(*t))
            .fold(f64::INFINITY, f64::min);
        let want: Vec<_> = vel_messages(&bytes)
            .into_iter()
            .filter(|(topic, (_, _, t, _))| {
                let t = f64::from_bits(*t) - first;
                (topic.starts_with("OBD") || topic == "LaserRange2DDataM/front")
                    && (500.0..1500.0).contains(&t)
            })
            .collect();
        assert!(!want.is_empty(), "{name}");
        assert_eq!(vel_messages(&written), want, "{name}");
        if name == "terminated.vel" {
            assert!(
                written.ends_with(&[0xFF; 4]),
                "{name}: the terminator stays"
            );
        }
    }
    // --where on a VEL topic.
    let input = testdata("vellog/sensors.vel");
    let out = dir.join("fast.vel");
    filter_ok(&[s(&input), s(&out), "--where", "OBDDataM: speed_kmh > 45"]);
    let written = std::fs::read(&out).unwrap();
    let obd = |b: &[u8]| {
        vel_messages(b)
            .into_iter()
            .filter(|(t, _)| t == "OBDDataM")
            .count()
    };
    let n = obd(&written);
    assert!(n > 0 && n < obd(&std::fs::read(&input).unwrap()));
}

#[test]
fn vel_shift_gps_offset_and_parts() {
    use vellog::records::TypedMessage;
    let dir = scratch_dir("filter-own", "vel-rewrite");
    let input = testdata("vellog/sensors.vel");
    let bytes = std::fs::read(&input).unwrap();
    let out = dir.join("moved.vel");
    filter_ok(&[
        s(&input),
        s(&out),
        "--shift",
        "2.5s",
        "--anonymise",
        "--gps-offset",
        "1.5,-2.25",
    ]);
    let (a, b) = (
        vel_messages(&bytes),
        vel_messages(&std::fs::read(&out).unwrap()),
    );
    assert_eq!(a.len(), b.len());
    let mut moved = 0;
    for ((ta, (ty, v, t, pa)), (tb, (ty2, v2, t2, pb))) in a.iter().zip(&b) {
        assert_eq!((ta, ty, v), (tb, ty2, v2));
        assert_eq!(f64::from_bits(*t) + 2500.0, f64::from_bits(*t2));
        if ta != "GPSDataM" {
            assert_eq!(pa, pb, "{ta}");
            continue;
        }
        let (ga, gb) = (
            vellog::GpsData::parse(pa, 0).unwrap(),
            vellog::GpsData::parse(pb, 0).unwrap(),
        );
        if ga.latitude == 0.0 && ga.longitude == 0.0 {
            assert_eq!(pa, pb, "no fix: unchanged");
            continue;
        }
        assert_eq!(gb.latitude, ga.latitude + 1.5);
        assert_eq!(gb.longitude, ga.longitude - 2.25);
        assert_eq!(
            vellog::GpsData {
                latitude: ga.latitude,
                longitude: ga.longitude,
                ..gb
            },
            ga
        );
        moved += 1;
    }
    assert_eq!(moved, 5);
    // A shift below the recorder's start, a rename, several inputs:
    // usage errors.
    let err = filter_usage(&[s(&input), s(&dir.join("x.vel")), "--shift", "-10s"]);
    assert!(err.contains("before the recorder's start"), "{err}");
    let err = filter_usage(&[s(&input), s(&dir.join("x.vel")), "--rename", "a=b"]);
    assert!(err.contains("record types"), "{err}");
    let err = filter_usage(&[s(&input), s(&input), s(&dir.join("x.vel"))]);
    assert!(err.contains("share no clock"), "{err}");
    assert!(!dir.join("x.vel").exists());

    // Parts: each a VEL file with a usable index, together the input.
    for (flag, value, stem) in [
        ("--split-every", "1s", "every"),
        ("--split-size", "4kB", "size"),
    ] {
        filter_ok(&[s(&input), s(&dir.join(format!("{stem}.vel"))), flag, value]);
        let parts = parts_of(&dir, stem);
        assert!(parts.len() >= 3, "{stem}: {parts:?}");
        let mut joined = Vec::new();
        for p in &parts {
            let written = std::fs::read(p).unwrap();
            let log = vellog::VelLog::new(&written).unwrap();
            assert!(log.index_check().usable, "{}", p.display());
            let got = vel_messages(&written);
            if stem == "every" {
                let first = f64::from_bits(vel_messages(&bytes)[0].1.2);
                let cells: std::collections::BTreeSet<i64> = got
                    .iter()
                    .map(|(_, (_, _, t, _))| ((f64::from_bits(*t) - first) / 1000.0).floor() as i64)
                    .collect();
                assert_eq!(cells.len(), 1, "{}", p.display());
            }
            joined.extend(got);
        }
        // The same messages; a VEL file is not in time order (records of
        // one time range come in the order written), so compared sorted.
        let mut want = vel_messages(&bytes);
        want.sort();
        joined.sort();
        assert_eq!(joined.len(), want.len(), "{stem}");
        assert!(joined == want, "{stem}: the parts' messages differ");
    }
}

#[test]
fn carla_parts_are_recordings_with_the_actors_alive() {
    use carla_recorder::{Recording, Timeline};
    let dir = scratch_dir("filter-own", "carla-parts");
    for input in carla_files() {
        let name = input.file_stem().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&input).unwrap();
        let rec = Recording::new(&bytes).unwrap();
        let frames: Vec<_> = rec.frames().collect::<Result<_, _>>().unwrap();
        let stem = format!("{name}-part");
        let size = (bytes.len() / 3 + 1).to_string();
        filter_ok(&[
            s(&input),
            s(&dir.join(format!("{stem}.log"))),
            "--split-size",
            &size,
        ]);
        let parts = parts_of(&dir, &stem);
        assert!(parts.len() >= 2, "{name}: {parts:?}");
        let timeline = Timeline::build(&rec).unwrap();
        let mut ids = Vec::new();
        for p in &parts {
            let written = std::fs::read(p).unwrap();
            let part = Recording::new(&written).unwrap();
            assert_eq!(part.header(), rec.header(), "{name}");
            let got: Vec<_> = part.frames().collect::<Result<_, _>>().unwrap();
            assert_eq!(
                got.last().unwrap().start.duration,
                carla_recorder::LAST_FRAME_DURATION
            );
            let at = got[0].start.elapsed;
            let alive = |t: &Timeline| {
                let mut v: Vec<ActorKey> = t.alive_at(at).into_iter().map(actor_key).collect();
                v.sort_by_key(|a| a.0);
                v
            };
            assert_eq!(
                alive(&Timeline::build(&part).unwrap()),
                alive(&timeline),
                "{name}"
            );
            ids.extend(got.iter().map(|f| (f.start.id, f.start.elapsed.to_bits())));
            let check = robolog().arg("check").arg(p).output().unwrap();
            assert!(check.status.success(), "{name}: {}", text(&check.stdout));
        }
        let want: Vec<_> = frames
            .iter()
            .map(|f| (f.start.id, f.start.elapsed.to_bits()))
            .collect();
        assert_eq!(ids, want, "{name}: the parts' frames are the input's");
    }
    // No GPS or identifiers to anonymise: said, nothing changed.
    let input = testdata("carla/scene-0.9.13.rec");
    let out = robolog()
        .arg("filter")
        .args([s(&input), s(&dir.join("anon.log")), "--anonymise"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("nothing changed"));
    assert_eq!(
        std::fs::read(dir.join("anon.log")).unwrap(),
        std::fs::read(&input).unwrap()
    );
}

/// The path of a Python script beside these tests (run with the
/// reference tools' Python).
fn script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
        .to_string_lossy()
        .into_owned()
}
