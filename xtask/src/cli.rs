//! The command line of `cargo xtask`: every subcommand and flag, checked
//! before any work starts (an unknown flag or subcommand exits with 2).

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Project automation: fixtures, fuzzing, benchmarks and the full check.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
pub(crate) struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub(crate) command: Cmd,
}

/// `--corpus DIR`: the folder of real files (default `../shared/corpus`,
/// or `$ROBOLOG_CORPUS`).
#[derive(Debug, Default, Args)]
pub(crate) struct CorpusArg {
    /// Folder of real files (default ../shared/corpus, or $ROBOLOG_CORPUS).
    #[arg(long, value_name = "DIR")]
    pub(crate) corpus: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Cmd {
    /// Regenerate testdata/ with our writers (or check it is current).
    Fixtures {
        /// Check the committed files equal a regeneration; write nothing.
        #[arg(long)]
        check: bool,
    },
    /// Replay each fuzz target's committed corpus, then fuzz it.
    ///
    /// Replays each target's committed corpus (fuzz/corpus/TARGET), then
    /// fuzzes it for N seconds (all targets unless one is named); new inputs
    /// go to the working corpus fuzz/target/corpus/TARGET (not committed),
    /// findings to fuzz/corpus/TARGET/regression-*.
    Fuzz(FuzzArgs),
    /// Benchmarks against peer implementations (default: all).
    Bench {
        /// One benchmark: vellog, mcap, carla, rosbag, ulog, convert, sql,
        /// report, report-topics, python, ros2, export, sensors, filter (or
        /// its crate's name).
        name: Option<String>,
        #[command(flatten)]
        corpus: CorpusArg,
        /// Folder of the fleet of `bench sql`.
        #[arg(long, value_name = "DIR")]
        fleet: Option<PathBuf>,
        /// Number of logs in the fleet of `bench sql`.
        #[arg(long, value_name = "N")]
        count: Option<String>,
    },
    /// MCAP checks: conformance (default), or interop with python mcap.
    Mcap {
        /// Which check.
        what: Option<McapWhat>,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// ROS 1 bag checks: the corpus, or interop with rosbags.
    Rosbag {
        /// Which check.
        what: RosbagWhat,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// CARLA recorder files of the corpus.
    Carla {
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// ULog checks: the corpus, interop with pyulog, or the benchmark.
    Ulog {
        /// Which check.
        what: UlogWhat,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// `robolog export` of every ULog against pyulog's ulog2csv, or of every corpus file.
    Export {
        /// Which check.
        what: ExportWhat,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// OSI traces against asam-osi-utilities / osi-python.
    Osi {
        /// Which check (only `interop`).
        what: Option<InteropWhat>,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// ROS 2 messages of rosbag2 MCAP files against python mcap-ros2-support.
    Ros2 {
        /// Which check (only `interop`).
        what: Option<InteropWhat>,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// ULog/CARLA/VEL -> MCAP, every message validated against its JSON Schema and Foxglove's.
    Foxglove {
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// Protobuf MCAP conversions read by Rerun and Foxglove's classes.
    Rerun {
        #[command(flatten)]
        corpus: CorpusArg,
        /// The robolog executable to check (default: a fresh build).
        #[arg(long, value_name = "EXE")]
        robolog: Option<PathBuf>,
    },
    /// `robolog convert` on every file, round trips, python mcap, speed against peers.
    Convert {
        /// Which check.
        what: ConvertWhat,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// `robolog info`/`cat` on generated hostile files: peak memory, time, no crash.
    Hostile,
    /// `robolog report` of every corpus log in headless Chromium, against `robolog cat`.
    Report {
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// Package each library crate alone and check its files.
    Package,
    /// The robolog Python package from its wheel, against pyulog and rosbags.
    Python {
        /// Which step: `test`, or `lint` (ruff over the Python files).
        what: PythonWhat,
        #[command(flatten)]
        corpus: CorpusArg,
        /// Build the wheel with maturin.
        #[arg(long)]
        maturin: bool,
    },
    /// The fleet question: write the fleet, check answers, or compare values.
    Sql {
        /// Which step.
        what: SqlWhat,
        #[command(flatten)]
        corpus: CorpusArg,
        /// Folder to write the fleet to (`sql fleet`).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Folder of the fleet (`sql check`).
        #[arg(long, value_name = "DIR")]
        fleet: Option<PathBuf>,
        /// Number of logs in the fleet.
        #[arg(long, value_name = "N")]
        count: Option<String>,
    },
    /// Checks against real files.
    Corpus {
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// The whole gate: fmt, clippy, tests, docs, packaging, fixtures, corpus, fuzz smoke run.
    Ci {
        /// Seconds of new fuzz inputs per target (default 1).
        #[arg(long, value_name = "N")]
        fuzz_seconds: Option<u64>,
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// Writes every hostile file (or the ones named) into DIR.
    #[command(hide = true)]
    HostileGenerate {
        /// Folder to write to.
        dir: PathBuf,
        /// Names of the files to write (default: all).
        names: Vec<String>,
    },
    /// The release-mode half of `bench convert`.
    #[command(hide = true)]
    BenchConvertInner {
        #[command(flatten)]
        corpus: CorpusArg,
    },
    /// The release-mode half of `bench ulog`.
    #[command(hide = true)]
    BenchUlogInner {
        /// The corpus folder.
        corpus: PathBuf,
    },
}

/// `cargo xtask fuzz`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct FuzzArgs {
    /// `cmin`, instead of a fuzz run.
    #[command(subcommand)]
    pub(crate) cmin: Option<FuzzCmd>,
    /// The target (default: all targets).
    pub(crate) target: Option<String>,
    /// Seconds of fuzzing per target, after the replay (default 60).
    #[arg(long, value_name = "N")]
    pub(crate) seconds: Option<u64>,
    #[command(flatten)]
    pub(crate) build: FuzzBuild,
}

/// How the fuzz targets are built.
#[derive(Debug, Args)]
pub(crate) struct FuzzBuild {
    /// Targets built without optimizations.
    #[arg(long, conflicts_with = "light")]
    pub(crate) dev: bool,
    /// Targets built at optimization level 1.
    #[arg(long)]
    pub(crate) light: bool,
}

/// `cargo xtask fuzz cmin`.
#[derive(Debug, Subcommand)]
pub(crate) enum FuzzCmd {
    /// Merge the working corpus into a minimised committed one.
    ///
    /// libFuzzer's set-cover merge, then at most N inputs, those adding the
    /// most coverage beyond the seeds first; regression-* files are always
    /// kept.
    Cmin {
        /// The target (default: all targets).
        target: Option<String>,
        /// At most N inputs (default 300), those adding the most coverage first.
        #[arg(long, value_name = "N")]
        max: Option<u64>,
        #[command(flatten)]
        build: FuzzBuild,
    },
}

/// `mcap` checks.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum McapWhat {
    /// The conformance suite and the corpus.
    Conformance,
    /// Interop with python mcap.
    Interop,
}

/// `rosbag` checks.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum RosbagWhat {
    /// The corpus.
    Corpus,
    /// Interop with rosbags.
    Interop,
}

/// `ulog` checks.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum UlogWhat {
    /// The corpus.
    Corpus,
    /// Interop with pyulog.
    Interop,
    /// The benchmark against pyulog.
    Bench,
}

/// `export` checks.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ExportWhat {
    /// Every ULog against pyulog's ulog2csv.
    Ulog2csv,
    /// Every other corpus file exports every message.
    Corpus,
}

/// The one check of `osi` and `ros2`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum InteropWhat {
    /// Against the reference Python tools.
    Interop,
}

/// `convert` checks.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum ConvertWhat {
    /// Every corpus file converts.
    Corpus,
    /// Round trips and python mcap reading converted bags.
    Interop,
    /// Speed against rosbags-convert.
    Bench,
}

/// `python` steps.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PythonWhat {
    /// The test suite against the installed wheel.
    Test,
    /// Ruff's pyflakes rules over the checkout's Python files.
    Lint,
}

/// `sql` steps.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum SqlWhat {
    /// Write the fleet of logs.
    Fleet,
    /// The fleet question by pyulog, DuckDB and robolog sql.
    Check,
    /// Values of robolog sql against the corpus.
    Values,
}

/// The name of a [`ValueEnum`] value as typed on the command line.
pub(crate) fn word(v: impl ValueEnum) -> String {
    v.to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_string())
}

/// Arguments in the `--name VALUE` form the modules read with
/// [`crate::opt`]: built from parsed, checked values only.
#[derive(Debug, Default)]
pub(crate) struct Argv(pub(crate) Vec<String>);

impl Argv {
    /// Adds a positional word (a module's own subcommand, a name) when given.
    pub(crate) fn word(mut self, word: impl Into<Option<String>>) -> Argv {
        self.0.extend(word.into());
        self
    }

    /// Adds `name VALUE` when `value` is given.
    pub(crate) fn opt(mut self, name: &str, value: Option<impl ToString>) -> Argv {
        if let Some(v) = value {
            self.0.push(name.to_string());
            self.0.push(v.to_string());
        }
        self
    }

    /// Adds `name VALUE` for a path when given.
    pub(crate) fn path(self, name: &str, value: Option<&Path>) -> Argv {
        self.opt(name, value.map(|p| p.to_string_lossy().into_owned()))
    }

    /// Adds `--corpus DIR` when given.
    pub(crate) fn corpus(self, c: &CorpusArg) -> Argv {
        self.path("--corpus", c.corpus.as_deref())
    }

    /// Adds `name` when `on`.
    pub(crate) fn flag(mut self, name: &str, on: bool) -> Argv {
        if on {
            self.0.push(name.to_string());
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("xtask").chain(line.split_whitespace()))
    }

    #[test]
    fn a_misspelled_flag_is_refused() {
        let err = parse("corpus --corpos /x").unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::UnknownArgument);
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("--corpos"), "{err}");
        for line in [
            "ci --corpos /x",
            "fuzz --second 3",
            "fixtures --chek",
            "export ulog2csv --corpos /x",
            "corpos",
            "fuzz cmin --seconds 3",
            "fuzz --dev --light",
            "ci --fuzz-seconds many",
            "ulog",
            "sql bogus",
        ] {
            let err = parse(line).expect_err(line);
            assert_eq!(err.exit_code(), 2, "{line}: {err}");
        }
    }

    #[test]
    fn every_documented_flag_parses() {
        for line in [
            "fixtures",
            "fixtures --check",
            "fuzz",
            "fuzz mcap_read --seconds 5 --dev",
            "fuzz --seconds 1 --light",
            "fuzz cmin",
            "fuzz cmin mcap_read --max 10",
            "bench",
            "bench sql --fleet /f --count 3 --corpus /c",
            "bench python --corpus /c",
            "mcap",
            "mcap conformance --corpus /c",
            "mcap interop",
            "rosbag corpus --corpus /c",
            "rosbag interop",
            "carla --corpus /c",
            "ulog corpus --corpus /c",
            "ulog interop",
            "ulog bench",
            "export ulog2csv --corpus /c",
            "export corpus",
            "osi interop --corpus /c",
            "osi",
            "ros2 interop --corpus /c",
            "foxglove --corpus /c",
            "rerun --corpus /c --robolog /r",
            "convert corpus --corpus /c",
            "convert interop",
            "convert bench --corpus /c",
            "hostile",
            "report --corpus /c",
            "package",
            "python test --corpus /c --maturin",
            "python lint",
            "sql fleet --out /o --count 4 --corpus /c",
            "sql check --fleet /f --count 4",
            "sql values --corpus /c",
            "corpus --corpus /c",
            "corpus",
            "ci",
            "ci --fuzz-seconds 0 --corpus /c",
            "hostile-generate /d deep_nesting other",
            "bench-convert-inner --corpus /c",
            "bench-ulog-inner /c",
        ] {
            if let Err(e) = parse(line) {
                panic!("{line}: {e}");
            }
        }
    }

    #[test]
    fn the_corpus_flag_reaches_the_modules() {
        let Cli {
            command: Cmd::Corpus { corpus },
        } = parse("corpus --corpus /c").unwrap()
        else {
            panic!("not the corpus subcommand");
        };
        assert_eq!(corpus.corpus, Some(PathBuf::from("/c")));
        let Cli {
            command: Cmd::Ci {
                fuzz_seconds,
                corpus,
            },
        } = parse("ci --fuzz-seconds 7 --corpus /c").unwrap()
        else {
            panic!("not the ci subcommand");
        };
        let argv = Argv::default()
            .opt("--fuzz-seconds", fuzz_seconds)
            .corpus(&corpus);
        assert_eq!(argv.0, ["--fuzz-seconds", "7", "--corpus", "/c"]);
    }

    #[test]
    fn help_lists_every_visible_subcommand() {
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        for name in ["python", "sql", "ci", "fuzz", "hostile", "rerun"] {
            assert!(help.contains(&format!("  {name} ")), "{name}: {help}");
        }
        assert!(!help.contains("hostile-generate"), "{help}");
    }
}
