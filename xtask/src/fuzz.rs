//! `cargo xtask fuzz`: the cargo-fuzz targets under `fuzz/`.
//!
//! - `fuzz [TARGET] [--seconds N] [--dev]`: replay each target's committed
//!   corpus (`fuzz/corpus/TARGET`), then fuzz it for N seconds (default
//!   60), growing its working corpus (`fuzz/target/corpus/TARGET`,
//!   gitignored). What the fuzzer finds is copied into the committed corpus
//!   as `regression-*`. The replay is the run's start: libFuzzer runs
//!   every input of its corpus folders before it makes new ones. `--dev`
//!   builds the targets without optimizations (in half the time, but the
//!   inputs then run several times slower); `--light` at optimization
//!   level 1 (the gate's smoke run: a third less time to build, and its
//!   replay of the committed corpus measured as fast as at level 3).
//! - `fuzz cmin [TARGET] [--max N]`: merge the working corpus back into a
//!   minimised committed corpus of at most N inputs (default
//!   [`MAX_COMMITTED`]), `regression-*` files always kept.
//!
//! See `fuzz/README.md`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Result, cargo, opt, root, run, step};

/// How many inputs a target's committed corpus holds at most (its
/// `regression-*` files included, unless they alone are more).
const MAX_COMMITTED: usize = 300;

/// `cargo xtask fuzz ...`.
pub(crate) fn cmd(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("cmin") => cmin_cmd(&args[1..]),
        _ => fuzz_cmd(args),
    }
}

/// Names of the fuzz targets: the files in `fuzz/fuzz_targets/`.
fn fuzz_targets() -> Result<Vec<String>> {
    let dir = root().join("fuzz/fuzz_targets");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "rs").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    Ok(names)
}

/// The target named first in `args` (not a flag), else every target.
fn chosen_targets(args: &[String]) -> Result<Vec<String>> {
    let all = fuzz_targets()?;
    match args.first().filter(|a| !a.starts_with("--")) {
        Some(t) if all.contains(t) => Ok(vec![t.clone()]),
        Some(t) => Err(format!("no fuzz target `{t}`; targets: {}", all.join(", "))),
        None => Ok(all),
    }
}

/// The value of `--name N` as a number, else `default`.
fn number(args: &[String], name: &str, default: u64) -> Result<u64> {
    match opt(args, name) {
        Some(s) => s
            .parse()
            .map_err(|_| format!("{name}: `{s}` is not a number")),
        None => Ok(default),
    }
}

fn ensure_cargo_fuzz() -> Result {
    let have = cargo()
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("xtask: cargo-fuzz is missing; installing it");
        run(cargo().args(["install", "cargo-fuzz", "--locked"]))?;
    }
    Ok(())
}

/// Whether a target takes a file's bytes (seeded from `testdata/`) rather
/// than a structure the fuzzer builds (`*_struct`: record sequences written
/// by our writers, then damaged; `*_def`, `*_desc`: definitions).
fn takes_file_bytes(target: &str) -> bool {
    !["_struct", "_def", "_desc"]
        .iter()
        .any(|suffix| target.ends_with(suffix))
}

/// The committed, minimised corpus of a target (`fuzz/corpus/TARGET`):
/// replayed by every run, regressions kept in it as `regression-*`.
fn committed_corpus(target: &str) -> PathBuf {
    root().join("fuzz/corpus").join(target)
}

/// The working corpus of a target: `fuzz/target/corpus/TARGET`, under
/// cargo-fuzz's build folder, so gitignored and never committed.
fn working_corpus(target: &str) -> PathBuf {
    root().join("fuzz/target/corpus").join(target)
}

/// The seeds of a target: the committed fixtures of its format (the part
/// of the name before `_`; every format's for a target named after none)
/// when the target reads files, none otherwise. Regenerated from
/// `testdata/` by every run, so never committed in `fuzz/corpus`.
fn seeds(target: &str) -> Result<Vec<(String, PathBuf)>> {
    if !takes_file_bytes(target) {
        return Ok(Vec::new());
    }
    let format = target.split('_').next().unwrap_or(target);
    let testdata = root().join("testdata");
    // A target named after no format folder (the facade's) gets them all.
    let folders: Vec<PathBuf> = if testdata.join(format).is_dir() {
        vec![testdata.join(format)]
    } else {
        std::fs::read_dir(&testdata)
            .map_err(|e| format!("{}: {e}", testdata.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect()
    };
    let mut seeds = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().is_file() {
                let name = format!("seed-{}", e.file_name().to_string_lossy());
                seeds.push((name, e.path()));
            }
        }
    }
    seeds.sort();
    Ok(seeds)
}

/// Copies the target's seeds into `dir` as `seed-*` (those not there yet).
fn copy_seeds(target: &str, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut copied = Vec::new();
    for (name, from) in seeds(target)? {
        let dest = dir.join(name);
        if !dest.exists() {
            std::fs::copy(&from, &dest).map_err(|err| format!("{}: {err}", dest.display()))?;
        }
        copied.push(dest);
    }
    Ok(copied)
}

/// The working corpus of a target, created and seeded: a run puts what it
/// finds there, and `fuzz cmin` merges it into the committed corpus.
fn seed_corpus(target: &str) -> Result<PathBuf> {
    let corpus = working_corpus(target);
    copy_seeds(target, &corpus)?;
    Ok(corpus)
}

/// A `cargo fuzz run` of `target` on the stable toolchain.
fn cargo_fuzz_run(target: &str) -> Command {
    cargo_fuzz_run_in(target, Build::Release)
}

/// How the targets are built.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Build {
    /// cargo-fuzz's release build (optimization level 3).
    Release,
    /// Its release build at optimization level 1 (`--light`): a third less
    /// time to build, for a smoke run whose inputs are few.
    Light,
    /// Without optimizations (`--dev`).
    Dev,
}

impl Build {
    fn of(args: &[String]) -> Build {
        if args.iter().any(|a| a == "--dev") {
            Build::Dev
        } else if args.iter().any(|a| a == "--light") {
            Build::Light
        } else {
            Build::Release
        }
    }
}

/// `cargo fuzz SUBCOMMAND` in `fuzz/` on the stable toolchain, built as
/// `build` says (a run must say what its build said, or it builds again).
fn cargo_fuzz(subcommand: &str, build: Build) -> Command {
    let mut c = cargo();
    c.current_dir(root().join("fuzz"))
        // cargo-fuzz passes a nightly-only sanitizer flag; this lets the
        // stable toolchain accept it.
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", subcommand]);
    match build {
        Build::Release => {}
        // cargo-fuzz sets only the release profile's debug info on its
        // command line, so the environment sets its level.
        Build::Light => {
            c.env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1");
        }
        Build::Dev => {
            c.arg("--dev");
        }
    }
    c
}

/// A `cargo fuzz run` of `target`, built as `build` says.
fn cargo_fuzz_run_in(target: &str, build: Build) -> Command {
    let mut c = cargo_fuzz("run", build);
    c.arg(target);
    c
}

fn fuzz_cmd(args: &[String]) -> Result {
    let seconds = number(args, "--seconds", 60)?;
    let dev = Build::of(args);
    let targets = chosen_targets(args)?;
    ensure_cargo_fuzz()?;
    if targets.len() > 1 {
        // One build of every target: their binaries link in parallel.
        step("fuzz: build every target");
        run(&mut cargo_fuzz("build", dev))?;
    }
    for t in &targets {
        let committed = committed_corpus(t);
        std::fs::create_dir_all(&committed).map_err(|e| format!("{}: {e}", committed.display()))?;
        // libFuzzer first runs every input of the corpus folders, the
        // committed corpus among them (each at most 64 KiB, so whole):
        // the replay, then new inputs for the time given.
        step(&format!(
            "fuzz {t}: replay the committed corpus, then {seconds} s of new inputs"
        ));
        let corpus = seed_corpus(t)?;
        // New inputs go to the first folder (the working corpus); the
        // committed one is read only.
        let result = run(cargo_fuzz_run_in(t, dev)
            .arg(&corpus)
            .arg(&committed)
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .arg("-rss_limit_mb=512")
            .arg("-timeout=5")
            .arg("-max_len=65536"));
        if let Err(e) = result {
            keep_findings(t, &committed)?;
            return Err(e);
        }
    }
    Ok(())
}

/// Copies what the fuzzer found (`fuzz/artifacts/TARGET/*`) into the
/// target's corpus as `regression-*`, so every later run replays it first.
/// Commit them with the fix.
fn keep_findings(target: &str, corpus: &Path) -> Result {
    let artifacts = root().join("fuzz/artifacts").join(target);
    let Ok(entries) = std::fs::read_dir(&artifacts) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let dest = corpus.join(format!("regression-{}", e.file_name().to_string_lossy()));
        std::fs::copy(e.path(), &dest).map_err(|err| format!("{}: {err}", dest.display()))?;
        eprintln!(
            "xtask: kept finding {} as {}: fix it, then commit it",
            e.path().display(),
            dest.display()
        );
    }
    Ok(())
}

fn cmin_cmd(args: &[String]) -> Result {
    let max = usize::try_from(number(args, "--max", MAX_COMMITTED as u64)?)
        .map_err(|_| "--max: too large".to_string())?;
    let targets = chosen_targets(args)?;
    ensure_cargo_fuzz()?;
    for t in &targets {
        step(&format!("fuzz cmin {t}"));
        minimise(t, max)?;
    }
    Ok(())
}

/// The files directly in `dir` (none when it does not exist).
fn files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

fn is_regression(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("regression-"))
}

/// Replaces the committed corpus of `target` with the inputs of it and of
/// the working corpus that add the most coverage beyond the seeds and the
/// `regression-*` files, at most `max` with the latter, which are always
/// kept as they are.
///
/// libFuzzer's merge (as `cargo fuzz cmin` runs it, here in its set-cover
/// form and with several input folders) into a staging folder that holds the seeds
/// first, so that what they cover is not committed again (every run
/// regenerates them). Its control file gives every input's features; the
/// inputs are then chosen greedily as the merge does, the one adding the
/// most new features first (the smaller on a tie), up to `max`.
fn minimise(target: &str, max: usize) -> Result {
    let committed = committed_corpus(target);
    let working = seed_corpus(target)?;
    let stage = root().join("fuzz/target/cmin").join(target);
    let control = root()
        .join("fuzz/target/cmin")
        .join(format!("{target}.merge.txt"));
    if stage.exists() {
        std::fs::remove_dir_all(&stage).map_err(|e| format!("{}: {e}", stage.display()))?;
    }
    // A control file left over would make libFuzzer resume that merge.
    let _ = std::fs::remove_file(&control);
    let artifacts = root()
        .join("fuzz/target/cmin")
        .join(format!("{target}.artifacts"));
    std::fs::create_dir_all(&artifacts).map_err(|e| format!("{}: {e}", artifacts.display()))?;
    copy_seeds(target, &stage)?;
    let before = files_in(&committed)?;
    run(cargo_fuzz_run(target)
        .arg(&stage)
        .arg(&committed)
        .arg(&working)
        .arg("--")
        .arg("-set_cover_merge=1")
        .arg(format!("-merge_control_file={}", control.display()))
        // What crashes here is skipped, not a finding of a run: kept out of
        // fuzz/artifacts (whose files a failing run turns into regressions).
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        // One process runs every input, so its memory grows past a run's
        // limit; an input over it would be skipped.
        .args(["-rss_limit_mb=2048", "-timeout=5"]))?;
    let text =
        std::fs::read_to_string(&control).map_err(|e| format!("{}: {e}", control.display()))?;
    let inputs = parse_control_file(&text)?;
    let regressions = before.iter().filter(|p| is_regression(p)).count();
    let chosen = most_coverage(&inputs, max.saturating_sub(regressions));
    let all_new = new_features(&inputs, &(0..inputs.len()).collect::<Vec<_>>());
    let chosen_new = new_features(&inputs, &chosen);

    // Copied aside first: some of the chosen are in the committed folder.
    let fresh = root()
        .join("fuzz/target/cmin")
        .join(format!("{target}.chosen"));
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh).map_err(|e| format!("{}: {e}", fresh.display()))?;
    }
    std::fs::create_dir_all(&fresh).map_err(|e| format!("{}: {e}", fresh.display()))?;
    for &i in &chosen {
        let from = Path::new(&inputs[i].name);
        let dest = fresh.join(from.file_name().unwrap_or_default());
        std::fs::copy(from, &dest).map_err(|e| format!("{}: {e}", from.display()))?;
    }
    for old in before.iter().filter(|p| !is_regression(p)) {
        std::fs::remove_file(old).map_err(|e| format!("{}: {e}", old.display()))?;
    }
    std::fs::create_dir_all(&committed).map_err(|e| format!("{}: {e}", committed.display()))?;
    for path in files_in(&fresh)? {
        let dest = committed.join(path.file_name().unwrap_or_default());
        std::fs::rename(&path, &dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    }
    for dir in [&stage, &fresh] {
        std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let _ = std::fs::remove_file(&control);
    let after = files_in(&committed)?;
    let bytes: u64 = after
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    eprintln!(
        "xtask: {target}: {} committed inputs before, {} now ({regressions} regression-*), \
         {bytes} bytes; they add {chosen_new} of the {all_new} features the merged inputs \
         add beyond the seeds and regressions",
        before.len(),
        after.len(),
    );
    Ok(())
}

/// One input of a merge: its path, size, and features (none when it
/// crashed), and whether it counts as kept already (the first folder's,
/// the seeds, and the `regression-*` files).
struct MergeInput {
    name: String,
    size: u64,
    /// Folded into [`FEATURE_SLOTS`].
    features: Vec<usize>,
    kept: bool,
}

/// Reads libFuzzer's merge control file: the number of inputs, how many
/// of them the first folder holds, one path a line, then per input
/// `STARTED i size`, `FT i features...` and `COV i pcs...`.
fn parse_control_file(text: &str) -> Result<Vec<MergeInput>> {
    let bad = |what: &str| format!("merge control file: {what}");
    let mut lines = text.lines();
    let mut number = |what: &str| -> Result<usize> {
        lines
            .next()
            .and_then(|l| l.trim().parse().ok())
            .ok_or_else(|| bad(what))
    };
    let count = number("no input count")?;
    let first = number("no first-folder count")?;
    let mut inputs = Vec::with_capacity(count);
    for i in 0..count {
        let name = lines
            .next()
            .ok_or_else(|| bad("too few paths"))?
            .to_string();
        let kept = i < first || is_regression(Path::new(&name));
        inputs.push(MergeInput {
            name,
            size: 0,
            features: Vec::new(),
            kept,
        });
    }
    for line in lines {
        let mut words = line.split_whitespace();
        let marker = words.next();
        let Some(input) = words
            .next()
            .and_then(|w| w.parse::<usize>().ok())
            .and_then(|i| inputs.get_mut(i))
        else {
            continue;
        };
        match marker {
            Some("STARTED") => input.size = words.next().and_then(|w| w.parse().ok()).unwrap_or(0),
            Some("FT") => {
                input.features = words
                    .filter_map(|w| w.parse::<u64>().ok())
                    .map(|f| (f % FEATURE_SLOTS as u64) as usize)
                    .collect();
            }
            _ => {}
        }
    }
    Ok(inputs)
}

/// libFuzzer folds feature numbers into this many slots; so do we.
const FEATURE_SLOTS: usize = 1 << 21;

/// The features covered so far, one flag a slot.
struct Covered(Vec<bool>);

impl Covered {
    /// What the kept inputs cover.
    fn of_kept(inputs: &[MergeInput]) -> Covered {
        let mut covered = Covered(vec![false; FEATURE_SLOTS]);
        for input in inputs.iter().filter(|i| i.kept) {
            covered.add(input);
        }
        covered
    }

    /// How many features of `input` are not covered yet.
    fn new_in(&self, input: &MergeInput) -> usize {
        input.features.iter().filter(|&&f| !self.0[f]).count()
    }

    /// Covers the features of `input`; how many were not covered before.
    fn add(&mut self, input: &MergeInput) -> usize {
        let mut added = 0;
        for &f in &input.features {
            if !self.0[f] {
                self.0[f] = true;
                added += 1;
            }
        }
        added
    }
}

/// How many features the inputs `chosen` add beyond the kept inputs.
fn new_features(inputs: &[MergeInput], chosen: &[usize]) -> usize {
    let mut covered = Covered::of_kept(inputs);
    chosen.iter().map(|&i| covered.add(&inputs[i])).sum()
}

/// Up to `max` of the inputs not kept already, in the order of the greedy
/// set cover: each adds the most features not yet covered (by the kept
/// inputs or those chosen before it), the smaller on a tie; none that adds
/// nothing. Lazily: what an input adds only shrinks as others are chosen.
fn most_coverage(inputs: &[MergeInput], max: usize) -> Vec<usize> {
    use std::cmp::Reverse;
    let mut covered = Covered::of_kept(inputs);
    let mut heap: std::collections::BinaryHeap<(usize, Reverse<u64>, Reverse<usize>)> = inputs
        .iter()
        .enumerate()
        .filter(|(_, input)| !input.kept)
        .map(|(i, input)| (input.features.len(), Reverse(input.size), Reverse(i)))
        .collect();
    let mut chosen = Vec::new();
    while chosen.len() < max {
        let Some((bound, size, Reverse(i))) = heap.pop() else {
            break;
        };
        if bound == 0 {
            break;
        }
        let gain = covered.new_in(&inputs[i]);
        if gain < bound {
            heap.push((gain, size, Reverse(i)));
            continue;
        }
        covered.add(&inputs[i]);
        chosen.push(i);
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_what_adds_most_beyond_seeds_and_regressions() {
        // a: a seed (first folder); regression-x: always kept; e crashed.
        let text = "5\n1\nstage/a\nc/b\nc/regression-x\nw/d\nw/e\n\
                    STARTED 0 5\nFT 0 1 2\nCOV 0 1\n\
                    STARTED 1 3\nFT 1 1 2 3 4 5\nCOV 1 2\n\
                    STARTED 2 9\nFT 2 5\nCOV 2\n\
                    STARTED 3 1\nFT 3 6\nCOV 3\n\
                    STARTED 4 2\n";
        let inputs = parse_control_file(text).unwrap();
        assert_eq!(inputs.len(), 5);
        assert!(inputs[0].kept && inputs[2].kept && !inputs[1].kept);
        assert!(inputs[4].features.is_empty());
        assert_eq!(most_coverage(&inputs, 10), [1, 3]);
        assert_eq!(most_coverage(&inputs, 1), [1]);
        assert_eq!(new_features(&inputs, &[1]), 2);
        assert_eq!(new_features(&inputs, &[0, 1, 2, 3, 4]), 3);
    }
}
