//! `robolog filter --config FILE`: the options of a TOML file
//! ([`robolog::convert::FilterConfig`], its schema and checks) combined
//! with the command line's:
//!
//! - lists and tables add up: `topics`, `exclude`, `around` and `rename`
//!   are the file's and the flags' (a `--rename` of a topic the file also
//!   renames wins, being applied first, and so does a `--frame-id` of a
//!   frame); a `--where` replaces the file's `where` of the same topic,
//!   and the file's other topics are kept;
//! - single values given as flags replace the file's: `start`, `end`,
//!   `shift`, `before`, `after`, `compression`, `chunk_size`, `storage`,
//!   `split_every`, `split_size`, `restamp`, `gps_offset`; `--anonymise`
//!   and `--drop-text` turn on what the file leaves off.
//!
//! The inputs, OUT, `--dry-run` and `--force` are only flags. A file that
//! cannot be read is exit 1; one that is not TOML, holds a key outside the
//! schema or a value of the wrong type is a usage error (exit 2) naming
//! the line.

use std::path::Path;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, ValueEnum};
use logcore::Error;
use robolog::convert::FilterConfig;

use super::{FilterArgs, Restamp};
use crate::Failure;
use crate::convert::{Codec, StorageArg};

/// `args` with the options of its `--config` file added (see the module
/// docs); `None` without `--config`.
pub(super) fn merged(args: &FilterArgs) -> Result<Option<FilterArgs>, Failure> {
    let Some(path) = &args.config else {
        return Ok(None);
    };
    let file = load(path)?;
    let flags = command_line();
    Ok(Some(combine(args, file, |id| given(flags.as_ref(), id))))
}

/// The checked options of the config file at `path`.
fn load(path: &Path) -> Result<FilterConfig, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Failure::new(
            path,
            Error::invalid_argument(format!("--config: cannot read it: {e}")),
        )
    })?;
    FilterConfig::parse(&text).map_err(|e| {
        Failure::usage(
            path,
            Error::invalid_argument(format!(
                "{e} (see `robolog filter --help` and the README's config schema)"
            )),
        )
    })
}

/// The matches of `robolog filter` on this process's command line, which
/// say which options were given there rather than left at their default.
fn command_line() -> Option<ArgMatches> {
    let m = crate::Cli::command()
        .try_get_matches_from(std::env::args_os())
        .ok()?;
    m.subcommand_matches("filter").cloned()
}

/// Whether the option `id` was given on the command line (unknown
/// without the matches: then a value other than its default counts).
fn given(matches: Option<&ArgMatches>, id: &str) -> Option<bool> {
    matches.map(|m| m.value_source(id) == Some(ValueSource::CommandLine))
}

/// The topic a `TOPIC: EXPR` flag names (as the run splits it).
fn topic_of(spec: &str) -> &str {
    spec.split_once(':').map_or(spec, |(t, _)| t).trim()
}

/// `args` with `file`'s options added; `given(id)` says whether the
/// option with a default value `id` was on the command line.
fn combine(
    args: &FilterArgs,
    file: FilterConfig,
    given: impl Fn(&str) -> Option<bool>,
) -> FilterArgs {
    let mut a = args.clone();
    let join = |mut first: Vec<String>, then: &[String]| {
        first.extend(then.iter().cloned());
        first
    };
    a.topics = join(file.topics, &args.topics);
    a.exclude = join(file.exclude, &args.exclude);
    let flagged: Vec<&str> = args.wheres.iter().map(|w| topic_of(w)).collect();
    a.wheres = file
        .wheres
        .into_iter()
        .filter(|(t, _)| !flagged.contains(&t.as_str()))
        .map(|(t, e)| format!("{t}: {e}"))
        .chain(args.wheres.iter().cloned())
        .collect();
    a.around = file
        .around
        .into_iter()
        .map(|(t, e)| format!("{t}: {e}"))
        .chain(args.around.iter().cloned())
        .collect();
    a.rename = args
        .rename
        .iter()
        .cloned()
        .chain(file.rename.into_iter().map(|(o, n)| format!("{o}={n}")))
        .collect();
    let keep = |id: &str, flag_differs: bool| given(id).unwrap_or(flag_differs);
    if let Some(v) = file.before
        && !keep("before", args.before != 0)
    {
        a.before = v;
    }
    if let Some(v) = file.after
        && !keep("after", args.after != 0)
    {
        a.after = v;
    }
    if let Some(v) = file.chunk_size
        && !keep("chunk_size", args.chunk_size != 1 << 20)
    {
        a.chunk_size = v;
    }
    a.shift = args.shift.or(file.shift);
    a.split_every = args.split_every.or(file.split_every);
    a.split_size = args.split_size.or(file.split_size);
    a.restamp = args
        .restamp
        .or_else(|| file.restamp.and_then(|r| Restamp::from_str(&r, false).ok()));
    a.frame_ids = args
        .frame_ids
        .iter()
        .cloned()
        .chain(file.frame_id.into_iter().map(|(o, n)| format!("{o}={n}")))
        .collect();
    a.anonymise = args.anonymise || file.anonymise == Some(true);
    a.gps_offset = args.gps_offset.or(file.gps_offset);
    a.drop_text = args.drop_text || file.drop_text == Some(true);
    a.range.start = args.range.start.or(file.start);
    a.range.end = args.range.end.or(file.end);
    // The file's names were checked against these choices.
    a.compression = args.compression.or_else(|| {
        file.compression
            .and_then(|c| Codec::from_str(&c, false).ok())
    });
    a.storage = args.storage.or_else(|| {
        file.storage
            .and_then(|s| StorageArg::from_str(&s, false).ok())
    });
    a
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        args: FilterArgs,
    }

    fn args(flags: &[&str]) -> FilterArgs {
        let mut argv = vec!["filter"];
        argv.extend_from_slice(flags);
        argv.extend(["in.bag", "out.bag"]);
        Cmd::parse_from(argv).args
    }

    fn file(text: &str) -> FilterConfig {
        FilterConfig::parse(text).unwrap()
    }

    #[test]
    fn flags_add_to_lists_and_replace_single_values() {
        let f = file(
            "topics = [\"/a\"]\nexclude = \"/x\"\nbefore = \"5s\"\nafter = 1\nshift = 2\nsplit_size = 9\nrestamp = \"header\"\n\
             chunk_size = 4096\ncompression = \"lz4\"\n\
             [where]\n\"/a\" = \"v > 1\"\n\"/b\" = \"w < 2\"\n\
             [around]\n\"/e\" = \"level >= 8\"\n[rename]\n\"/a\" = \"/file\"\n",
        );
        let a = args(&[
            "--topic",
            "/b",
            "--where",
            "/a: v > 9",
            "--after",
            "3s",
            "--compression",
            "none",
            "--rename",
            "/a=/flag",
            "--around",
            "/f: x = 1",
        ]);
        let m = combine(&a, f, |id| Some(["after", "compression"].contains(&id)));
        assert_eq!(m.topics, ["/a", "/b"]);
        assert_eq!(m.exclude, ["/x"]);
        assert_eq!(m.wheres, ["/b: w < 2", "/a: v > 9"]);
        assert_eq!(m.around, ["/e: level >= 8", "/f: x = 1"]);
        assert_eq!(m.rename, ["/a=/flag", "/a=/file"]);
        assert_eq!((m.before, m.after), (5_000_000_000, 3_000_000_000));
        assert_eq!(m.shift, Some(2_000_000_000));
        assert_eq!(m.chunk_size, 4096);
        assert_eq!(m.compression, Some(Codec::None));
        assert_eq!((m.split_size, m.split_every), (Some(9), None));
        assert_eq!(m.restamp, Some(Restamp::Header));
    }

    /// The README's example config parses, and holds what it says.
    #[test]
    fn the_readmes_example_is_a_valid_config() {
        let readme = include_str!("../../README.md");
        let start = readme.find("```toml\n").expect("a TOML example") + 8;
        let end = start + readme[start..].find("```").expect("its end");
        let text: String = readme[start..end]
            .lines()
            .map(|l| l.strip_prefix("  ").unwrap_or(l))
            .map(|l| format!("{l}\n"))
            .collect();
        let c = FilterConfig::parse(&text).unwrap();
        assert_eq!(c.topics.len(), 3);
        assert_eq!(c.shift, Some(-3_600_000_000_000));
        assert_eq!(c.after, Some(500_000_000));
        assert_eq!(c.wheres[0].0, "/imu/data");
        assert_eq!(c.rename.len(), 2);
        // As the flags would give them.
        let a = combine(&args(&[]), c, |_| Some(false));
        assert_eq!(
            a.wheres[0],
            "/imu/data: linear_acceleration.z > 12 AND header.frame_id = 'imu_link'"
        );
        assert_eq!(a.rename, ["/fix=/gps/fix", "/camera/*=/cam/*"]);
    }

    #[test]
    fn a_flag_at_its_default_value_still_replaces_the_files() {
        let f = file("before = \"5s\"\nchunk_size = 4096\n");
        let a = args(&["--before", "0"]);
        let m = combine(&a, f.clone(), |id| Some(id == "before"));
        assert_eq!((m.before, m.chunk_size), (0, 4096));
        // Without the matches, a default value is taken as not given.
        let m = combine(&a, f, |_| None);
        assert_eq!(m.before, 5_000_000_000);
    }
}
