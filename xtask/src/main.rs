//! Project automation, run as `cargo xtask <command>`:
//!
//! - `fixtures [--check]`: regenerate `testdata/` with our writers (each
//!   format crate's `tests/fixtures.rs`, with `ROBOLOG_BLESS=1`)
//!   (deterministic), or check the committed files equal a regeneration;
//! - `fuzz [TARGET] [--seconds N]`: replay the committed corpora of the
//!   cargo-fuzz targets under `fuzz/`, then fuzz each; `fuzz cmin [TARGET]
//!   [--max N]`: merge the working corpus into a minimised committed one;
//! - `bench [FORMAT]`: benchmarks in MB/s, against peer implementations
//!   in the same run (`bench filter`: `robolog filter` against
//!   `pymcap-cli filter` and a rosbags loop, and its peak memory);
//! - `mcap`, `rosbag`, `carla`, `ulog`: each format's own checks;
//! - `export ulog2csv`: `robolog export` against pyulog's `ulog2csv`;
//! - `osi interop`: OSI traces against the reference Python tools;
//! - `ros2 interop`: ROS 2 messages of rosbag2 MCAP files against python
//!   `mcap-ros2-support`;
//! - `foxglove`: ULog, CARLA and VEL files converted to MCAP, every message
//!   validated against its JSON Schema and Foxglove's published one;
//! - `convert corpus|interop|bench`: `robolog convert` on every file, round
//!   trips, python `mcap` reading converted bags, `robolog filter` against
//!   `pymcap-cli filter` and `rosbag filter`'s semantics, speed against
//!   peers;
//! - `hostile`: `robolog info`/`cat` on generated hostile files, within
//!   512 MB + the file's size of peak memory and 60 s, without a crash;
//! - `package`: package each library crate alone and check its files;
//! - `python test [--corpus DIR] [--maturin]`: the Python package from its
//!   wheel, against pyulog and rosbags;
//! - `sql fleet|check|values`: the fleet question by robolog sql, pyulog and
//!   DuckDB;
//! - `corpus [--corpus DIR]`: checks against real files in `../shared/corpus`;
//! - `ci [--fuzz-seconds N] [--corpus DIR]`: the whole test gate.
//!
//! The arguments are parsed by [`cli::Cli`]: an unknown subcommand or flag
//! is refused with exit code 2; `cargo xtask --help` lists them all.

mod carla;
mod cli;
mod convert;
mod corpus;
mod export;
mod filterbench;
mod foxglove;
mod fuzz;
mod hostile;
mod hostile_report;
mod hostile_rosbag2;
mod mcap;
mod osi;
mod package;
mod py;
mod pybench;
mod report;
mod ros2;
mod ros2bench;
mod rosbag;
mod sensorbench;
mod sql;
mod ulog;
// Used by the interop checks and peer benchmarks of the format crates.
mod python;
mod rerun;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let cli = <cli::Cli as clap::Parser>::parse();
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one parsed subcommand.
fn dispatch(command: cli::Cmd) -> Result {
    use cli::{Argv, Cmd, FuzzCmd, word};
    match command {
        Cmd::Fixtures { check } => fixtures_cmd(check),
        Cmd::Fuzz(f) => match f.cmin {
            Some(FuzzCmd::Cmin { target, max, build }) => fuzz::cmd(
                &Argv::default()
                    .word("cmin".to_string())
                    .word(target)
                    .opt("--max", max)
                    .flag("--dev", build.dev)
                    .flag("--light", build.light)
                    .0,
            ),
            None => fuzz::cmd(
                &Argv::default()
                    .word(f.target)
                    .opt("--seconds", f.seconds)
                    .flag("--dev", f.build.dev)
                    .flag("--light", f.build.light)
                    .0,
            ),
        },
        Cmd::Corpus { corpus } => corpus_cmd(&Argv::default().corpus(&corpus).0),
        Cmd::Carla { corpus } => carla::cmd(&Argv::default().corpus(&corpus).0),
        Cmd::Export { what, corpus } => {
            export::cmd(&Argv::default().word(word(what)).corpus(&corpus).0)
        }
        Cmd::Foxglove { corpus } => foxglove::cmd(&Argv::default().corpus(&corpus).0),
        Cmd::Rerun { corpus, robolog } => rerun::cmd(
            &Argv::default()
                .corpus(&corpus)
                .path("--robolog", robolog.as_deref())
                .0,
        ),
        Cmd::Bench {
            name,
            corpus,
            fleet,
            count,
        } => bench_cmd(
            &Argv::default()
                .word(name)
                .corpus(&corpus)
                .path("--fleet", fleet.as_deref())
                .opt("--count", count)
                .0,
        ),
        Cmd::Package => package::each_alone().and_then(|()| package::build_from_packages()),
        Cmd::Python {
            what,
            corpus,
            maturin,
        } => py::cmd(
            &Argv::default()
                .word(word(what))
                .corpus(&corpus)
                .flag("--maturin", maturin)
                .0,
        ),
        Cmd::Report { corpus } => report::cmd(&Argv::default().corpus(&corpus).0),
        Cmd::Ci {
            fuzz_seconds,
            corpus,
        } => ci_cmd(fuzz_seconds, &Argv::default().corpus(&corpus).0),
        Cmd::Hostile => hostile::cmd(&[]),
        Cmd::HostileGenerate { dir, names } => {
            let mut args = vec![dir.to_string_lossy().into_owned()];
            args.extend(names);
            hostile::generate(&args)
        }
        Cmd::Mcap { what, corpus } => {
            mcap::cmd(&Argv::default().word(what.map(word)).corpus(&corpus).0)
        }
        Cmd::Osi { what, corpus } => {
            osi::cmd(&Argv::default().word(what.map(word)).corpus(&corpus).0)
        }
        Cmd::Ros2 { what, corpus } => {
            ros2::cmd(&Argv::default().word(what.map(word)).corpus(&corpus).0)
        }
        Cmd::Convert { what, corpus } => {
            convert::cmd(&Argv::default().word(word(what)).corpus(&corpus).0)
        }
        Cmd::BenchConvertInner { corpus } => {
            convert::bench_inner(&Argv::default().corpus(&corpus).0)
        }
        Cmd::Rosbag { what, corpus } => {
            rosbag::cmd(&Argv::default().word(word(what)).corpus(&corpus).0)
        }
        Cmd::Sql {
            what,
            corpus,
            out,
            fleet,
            count,
        } => sql::cmd(
            &Argv::default()
                .word(word(what))
                .corpus(&corpus)
                .path("--out", out.as_deref())
                .path("--fleet", fleet.as_deref())
                .opt("--count", count)
                .0,
        ),
        Cmd::Ulog { what, corpus } => {
            ulog::cmd(&Argv::default().word(word(what)).corpus(&corpus).0)
        }
        Cmd::BenchUlogInner { corpus } => ulog::bench_inner(&corpus),
    }
}

/// The workspace root (the parent of this crate's folder).
fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// Value of `--name VALUE` in `args`.
fn opt<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn run(cmd: &mut Command) -> Result {
    eprintln!("xtask: running {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("could not start {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed with {status}"))
    }
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// `Ok` when no check failed, else one error: `what`, then each failure
/// on its own indented line.
fn verdict(what: &str, failures: &[String]) -> Result {
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}:\n  {}", failures.join("\n  ")))
    }
}

fn step(name: &str) {
    eprintln!("\n==== xtask: {name} ====");
}

/// When each step of the gate began, and the disk space free then (in
/// GiB, when `df` could tell), for the table [`ci_cmd`] prints.
type GateSteps = Vec<(String, std::time::Instant, Option<f64>)>;
static GATE_STEPS: std::sync::Mutex<GateSteps> = std::sync::Mutex::new(Vec::new());

/// A step of the gate: announced as [`step`] does, and timed, with the
/// disk space free when it begins (a run that fills the disk fails in a
/// linker far from its cause; the table shows which step used it).
fn gate_step(name: &str) {
    step(name);
    let free = free_gib();
    if let Ok(mut steps) = GATE_STEPS.lock() {
        steps.push((name.to_string(), std::time::Instant::now(), free));
    }
}

/// The space free on the checkout's file system in GiB, by POSIX `df -Pk`.
fn free_gib() -> Option<f64> {
    let out = Command::new("df").arg("-Pk").arg(root()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().nth(1)?;
    let kib: f64 = line.split_whitespace().nth(3)?.parse().ok()?;
    Some(kib / (1024.0 * 1024.0))
}

/// In CI only (`CI` set, a fresh clone that nothing reuses), removes an
/// output of the checkout's that no later step of the gate reads, so the
/// run's peak disk use is not the sum of every step's outputs. A
/// developer's `cargo xtask ci` keeps everything.
fn ci_discard(rel: &str) {
    if std::env::var_os("CI").is_none() {
        return;
    }
    let path = root().join(rel);
    if path.exists() {
        match std::fs::remove_dir_all(&path) {
            Ok(()) => eprintln!(
                "xtask: CI: removed {} (no later step reads it)",
                path.display()
            ),
            Err(e) => eprintln!("xtask: CI: could not remove {}: {e}", path.display()),
        }
    }
}

/// The minutes each step of the gate took so far, as a table on stderr.
fn print_gate_table() {
    let Ok(steps) = GATE_STEPS.lock() else { return };
    let Some(first) = steps.first().map(|s| s.1) else {
        return;
    };
    let now = std::time::Instant::now();
    eprintln!("\n==== xtask: the gate's steps ====");
    eprintln!("{:>8}  {:>8}  step", "minutes", "free GiB");
    for (i, (name, at, free)) in steps.iter().enumerate() {
        let end = steps.get(i + 1).map_or(now, |s| s.1);
        let short: String = name.chars().take(90).collect();
        let free = free.map_or("?".to_string(), |f| format!("{f:.1}"));
        eprintln!(
            "{:>8.1}  {free:>8}  {short}",
            (end - *at).as_secs_f64() / 60.0
        );
    }
    let free = free_gib().map_or("?".to_string(), |f| format!("{f:.1}"));
    eprintln!(
        "{:>8.1}  {free:>8}  all",
        (now - first).as_secs_f64() / 60.0
    );
}

/// The committed fixtures of `testdata/{sub}` (name, bytes), sorted by
/// name: what the crates' writers make, as their `fixtures` tests check.
pub(crate) fn testdata(sub: &str) -> Result<Vec<(String, Vec<u8>)>> {
    let dir = root().join("testdata").join(sub);
    let mut files = Vec::new();
    for path in robolog_testkit::all_files(&dir) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push((name, bytes));
    }
    files.sort();
    Ok(files)
}

/// The crates whose `tests/fixtures.rs` hold the builders of
/// `testdata/`'s fixtures and check the committed files against them.
const FIXTURE_CRATES: [&str; 6] = [
    "vellog",
    "mcapfile",
    "ulogfile",
    "carla-recorder",
    "rosbag12",
    "osi-mcap",
];

/// `cargo xtask fixtures [--check]`: each crate's `fixtures` test, which
/// writes the fixtures that differ from what its writer makes
/// (`ROBOLOG_BLESS=1`), or with `--check` fails on them.
fn fixtures_cmd(check: bool) -> Result {
    let mut cmd = cargo();
    cmd.args(["test", "--locked"]);
    for c in FIXTURE_CRATES {
        cmd.args(["-p", c]);
    }
    cmd.args(["--test", "fixtures"]);
    if !check {
        cmd.env("ROBOLOG_BLESS", "1");
    }
    run(&mut cmd)
}

/// Benchmarks by format, with the crate names accepted as aliases. Each
/// measures the format's peer implementations in the same run where one
/// exists (VEL has none).
const BENCHES: [(&str, &str); 14] = [
    ("vellog", "vellog"),
    ("mcap", "mcapfile"),
    ("carla", "carla-recorder"),
    ("rosbag", "rosbag12"),
    ("ulog", "ulogfile"),
    ("convert", "robolog"),
    ("sql", "robolog-sql"),
    ("export", "robolog-arrow"),
    ("report", "robolog-report"),
    ("report-topics", "report-topics"),
    ("python", "robolog-py"),
    ("ros2", "ros1to2"),
    ("sensors", "robolog-sensors"),
    ("filter", "robolog-cli"),
];

fn bench_cmd(args: &[String]) -> Result {
    let names: Vec<&str> = match args.first().filter(|a| !a.starts_with("--")) {
        Some(wanted) => {
            let found = BENCHES
                .iter()
                .find(|(name, krate)| wanted == name || wanted == krate);
            match found {
                Some((name, _)) => vec![name],
                None => {
                    let known: Vec<&str> = BENCHES.iter().map(|(n, _)| *n).collect();
                    return Err(format!(
                        "no benchmark `{wanted}`; benchmarks: {}",
                        known.join(", ")
                    ));
                }
            }
        }
        None => BENCHES.iter().map(|(n, _)| *n).collect(),
    };
    for name in names {
        match name {
            "vellog" => {
                step("bench vellog");
                run(cargo().args(["bench", "--locked", "-p", "vellog"]))?;
            }
            "mcap" => {
                step("bench mcapfile (against the mcap crate, on files python mcap writes)");
                mcap::bench()?;
            }
            "carla" => carla::bench(args)?,
            "convert" => convert::bench(args)?,
            "sql" => sql::bench(args)?,
            "report" => report::bench(args)?,
            "report-topics" => hostile_report::bench()?,
            "python" => pybench::bench(args)?,
            "sensors" => sensorbench::bench()?,
            "filter" => filterbench::bench()?,
            "ros2" => ros2bench::bench()?,
            "export" => {
                step("bench export: time against the number of logs and topics");
                hostile::scaling_bench()?;
            }
            "rosbag" => {
                step("bench rosbag12 (against the rosbag crate and rosbags 0.11.9)");
                rosbag::bench()?;
            }
            _ => {
                step("bench ulog (against pyulog 1.3.0)");
                let dir = corpus::locate(opt(args, "--corpus"))?
                    .ok_or("the ULog benchmark needs the corpus")?;
                ulog::bench(&dir)?;
            }
        }
    }
    Ok(())
}

fn corpus_cmd(args: &[String]) -> Result {
    let dir = corpus::locate(opt(args, "--corpus"))?;
    match dir {
        Some(dir) => {
            corpus::check_all(&dir)?;
            ulog::corpus(&dir)
        }
        None => Ok(()),
    }
}

/// `cargo test -p KRATE --test TEST`: a crate's corpus check (the gate
/// runs it in its tests step), with `--corpus DIR` of `args` as the
/// corpus.
pub(crate) fn crate_test(krate: &str, test: &str, args: &[String]) -> Result {
    let mut cmd = cargo();
    cmd.args(["test", "--locked", "-p", krate, "--test", test]);
    if let Some(dir) = corpus::locate(opt(args, "--corpus"))? {
        cmd.env("ROBOLOG_CORPUS", dir);
    }
    run(&mut cmd)
}

/// The debug `robolog` binary, built exactly as the gate's `cargo test
/// --workspace --features GATE_FEATURES`
/// builds it (`--no-run`: nothing runs). Building it with `cargo build -p
/// robolog-cli` instead would resolve the dependencies' features without
/// the workspace's dev-dependencies, and so compile the heavy ones
/// (DataFusion) a second time.
pub(crate) fn robolog_exe() -> Result<PathBuf> {
    run(cargo().args([
        "test",
        "--workspace",
        "--locked",
        "--no-run",
        "--quiet",
        "--features",
        GATE_FEATURES,
    ]))?;
    Ok(root().join("target/debug/robolog"))
}

/// `robolog` without the sql command, optimized and still checked: the
/// gate profile's build (optimization level 1, debug assertions and
/// overflow checks on), which the hostile step builds first. The steps
/// that run it over the whole corpus (report pages, exports, tables)
/// took minutes with the debug build, most of them in robolog itself.
/// The steps that run `robolog sql` use [`robolog_exe`].
pub(crate) fn checked_robolog() -> Result<PathBuf> {
    hostile::optimized_robolog("gate")
}

/// The Cargo features of the `robolog` library, one per format (plus the
/// protobuf and ROS 2 decoders); each must build alone.
const FACADE_FEATURES: [&str; 8] = [
    "rosbag", "vellog", "ulog", "mcap", "carla", "protobuf", "ros2", "rosbag2",
];

/// The features the gate's clippy, test and doc steps turn on: every
/// optional part of the workspace, so each is checked and all three steps
/// share one build of the dependencies.
pub(crate) const GATE_FEATURES: &str = "robolog-sql/ballista";

/// Installs Debian's ffmpeg package (ffmpeg and ffprobe, about 15 s) for
/// the tests of `robolog export --video`, when it is missing and the gate
/// runs in CI (`CI=true`) as root; elsewhere those tests skip with a note.
fn ffmpeg() -> Result {
    let have = Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let root_user = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if have || !ci || !root_user {
        return Ok(());
    }
    step("install ffmpeg (Debian package) for the video tests");
    run(Command::new("apt-get").args(["update", "-qq"]))?;
    run(Command::new("apt-get")
        .env("DEBIAN_FRONTEND", "noninteractive")
        .args(["install", "-y", "-qq", "--no-install-recommends", "ffmpeg"]))
}

/// `cargo xtask ci`: the whole gate, then the minutes of each step.
/// `fuzz_seconds` of new inputs per fuzz target; `args` holds `--corpus
/// DIR` when given, for the steps that read the corpus.
fn ci_cmd(fuzz_seconds: Option<u64>, args: &[String]) -> Result {
    let result = ci_steps(fuzz_seconds, args);
    print_gate_table();
    if result.is_ok() {
        eprintln!("\nxtask: ci passed");
    }
    result
}

/// The gate, step by step (see [`ci_cmd`]).
fn ci_steps(fuzz_seconds: Option<u64>, args: &[String]) -> Result {
    // Replaying the committed corpus is the regression test; a second of
    // new inputs per target is a smoke test, not a campaign (a replay that
    // takes longer runs to its end anyway).
    let fuzz_seconds = fuzz_seconds.unwrap_or(1);
    gate_step("rustfmt");
    run(cargo().args(["fmt", "--all", "--check"]))?;
    gate_step("python lint: ruff's pyflakes rules over the checkout's Python files");
    py::cmd(&["lint".to_string()])?;
    gate_step("clippy");
    // Ballista's feature is on in clippy, the tests and the docs alike, so
    // DataFusion and its dependencies compile once for the three (a second
    // feature set compiled all of DataFusion again: 8 minutes on 2 cores).
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--features",
        GATE_FEATURES,
        "--",
        "-D",
        "warnings",
    ]))?;
    gate_step("the robolog library builds with each format feature alone");
    for feature in FACADE_FEATURES {
        run(cargo().args([
            "clippy",
            "--package",
            "robolog",
            "--all-targets",
            "--locked",
            "--no-default-features",
            "--features",
            feature,
            "--",
            "-D",
            "warnings",
        ]))?;
    }
    gate_step(
        "tests (robolog-sql's on a Ballista cluster among them, rosbags reading our ROS 2 bags)",
    );
    // The tests that compare with rosbags run its Python (and read MCAP
    // with python mcap, ULog with pyulog).
    let rosbags = python::Venv::with(&["rosbags", "mcap", "zstandard", "lz4", "pyulog"])?;
    // robolog-cli's video tests run ffmpeg (they skip, saying so, without it).
    ffmpeg()?;
    run(cargo()
        .env("ROSBAGS_PYTHON", rosbags.python())
        .env("PYULOG_PYTHON", rosbags.python())
        .args([
            "test",
            "--workspace",
            "--locked",
            "--features",
            GATE_FEATURES,
        ]))?;
    gate_step("docs");
    // With the examples, whose dev-dependencies join the feature
    // resolution as in clippy's `--all-targets`: the dependencies' check
    // builds are clippy's, not compiled again for other features.
    run(cargo().env("RUSTDOCFLAGS", "-D warnings").args([
        "doc",
        "--workspace",
        "--no-deps",
        "--locked",
        "--lib",
        "--examples",
        "--features",
        GATE_FEATURES,
    ]))?;
    gate_step("every library crate packages alone");
    package::each_alone()?;
    gate_step("every crate builds from its package, against the others' packages");
    package::build_from_packages()?;
    // The fixtures are checked by each crate's `fixtures` test, in the
    // tests step.
    gate_step("hostile files: peak memory, time, no crash");
    hostile::cmd(&[])?;
    gate_step("corpus");
    corpus_cmd(args)?;
    gate_step("foxglove: ULog, CARLA and VEL converted, validated against their schemas");
    foxglove::cmd(args)?;
    gate_step(
        "convert: every file converts, doctor passes, counts and times kept, bag round trips",
    );
    convert::corpus(corpus::locate(opt(args, "--corpus"))?.as_deref())?;
    gate_step(
        "convert interop: python mcap + mcap-ros1-support read converted bags as rosbags reads the bags; \
         robolog filter equals pymcap-cli filter and rosbag filter's semantics",
    );
    convert::interop(corpus::locate(opt(args, "--corpus"))?.as_deref())?;
    gate_step("ulog interop with pyulog 1.3.0");
    ulog::interop(corpus::locate(opt(args, "--corpus"))?.as_deref())?;
    gate_step("export: ULog files equal pyulog 1.3.0's ulog2csv byte for byte");
    export::ulog2csv(corpus::locate(opt(args, "--corpus"))?.as_deref())?;
    gate_step(
        "export: every corpus file, one table per topic with every message; the corpus as one \
         Parquet dataset read by polars, duckdb and pyarrow",
    );
    if let Some(dir) = corpus::locate(opt(args, "--corpus"))? {
        export::corpus(&dir)?;
    }
    gate_step("tables: Parquet of every corpus file equals robolog cat, pyulog and rosbags");
    sql::values(args)?;
    gate_step("sql: the fleet question by robolog sql, a pyulog loop and DuckDB on our Parquet");
    sql::check(args)?;
    ci_discard("target/sql-fleet");
    ci_discard("target/sql-fleet-parquet");
    gate_step("rosbag interop with rosbags 0.11.9");
    rosbag::interop()?;
    // The MCAP conformance suite is mcapfile's `conformance` test, run by
    // the tests step.
    gate_step("mcap interop with python mcap");
    mcap::cmd(&["interop".to_string()])?;
    gate_step("osi: traces of asam-osi-utilities 0.4.0 validated by us, ours read by it");
    let mut osi_args = vec!["interop".to_string()];
    osi_args.extend(args.iter().cloned());
    osi::cmd(&osi_args)?;
    gate_step("ros2: rosbag2 MCAP files decoded as python mcap-ros2-support 0.6.0 decodes them");
    let mut ros2_args = vec!["interop".to_string()];
    ros2_args.extend(args.iter().cloned());
    ros2::cmd(&ros2_args)?;
    gate_step(
        "rerun: ULog, CARLA and VEL protobuf conversions read by Rerun and Foxglove's classes, \
         ROS 1 bags as ROS 2 MCAP read by Rerun's ROS 2 decoders",
    );
    rerun::cmd(args)?;
    gate_step(
        "report: every corpus log's page in headless Chromium, its values against robolog cat",
    );
    report::cmd(args)?;
    gate_step(
        "python: the robolog package installed from its wheel, checked against pyulog and rosbags",
    );
    py::cmd(&["test".to_string()])?;
    // The fuzz targets build in `fuzz/target`; nothing after this reads
    // the debug build.
    ci_discard("target/debug");
    gate_step("fuzz smoke run");
    fuzz::cmd(&[
        "--seconds".to_string(),
        fuzz_seconds.to_string(),
        "--light".to_string(),
    ])?;
    Ok(())
}
