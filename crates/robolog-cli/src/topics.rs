//! `--topic` values that name no topic: one usage error (exit code 2) for
//! every command that takes `--topic` (`cat`, `convert`, `export`), given
//! before anything is written.

use std::collections::BTreeSet;
use std::path::Path;

use crate::Failure;

/// Topics named in the message at most (a log may have thousands).
const SHOWN: usize = 20;

/// Where the topics asked for were looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// One log (`cat`, `convert`, `export --csv`).
    Log,
    /// Any of several logs, by topic or table name (`export --parquet`).
    Logs,
}

/// `Ok` when each of `wanted` is one of `known`, else [`unknown`] for the
/// first that is not.
pub(crate) fn check<'a>(
    path: &Path,
    known: impl IntoIterator<Item = &'a str>,
    wanted: &[String],
    scope: Scope,
) -> Result<(), Failure> {
    let known: BTreeSet<&str> = known.into_iter().collect();
    match wanted.iter().find(|t| !known.contains(t.as_str())) {
        Some(t) => Err(unknown(path, t, known, scope)),
        None => Ok(()),
    }
}

/// `Ok` when each of the topic patterns `wanted`, given to option `flag`
/// ([`robolog::convert::TopicPattern`]: a name, a glob, `re:EXPR`),
/// parses and matches one of `known`; else a usage error naming the
/// pattern (and, for one that matches nothing, the topics there are).
pub(crate) fn check_patterns<'a>(
    path: &Path,
    known: impl IntoIterator<Item = &'a str>,
    flag: &str,
    wanted: &[String],
    scope: Scope,
) -> Result<(), Failure> {
    let known: BTreeSet<&str> = known.into_iter().collect();
    for w in wanted {
        let pattern =
            robolog::convert::TopicPattern::parse(w).map_err(|e| Failure::usage(path, e))?;
        if !known.iter().any(|t| pattern.matches(t)) {
            return Err(unknown_in(flag, path, w, known, scope));
        }
    }
    Ok(())
}

/// The usage error for `--topic topic`, which names no topic: it names the
/// topics there are, sorted, the first [`SHOWN`] and how many more.
pub(crate) fn unknown<'a>(
    path: &Path,
    topic: &str,
    known: impl IntoIterator<Item = &'a str>,
    scope: Scope,
) -> Failure {
    unknown_in("--topic", path, topic, known, scope)
}

/// [`unknown`] for a topic given to option `flag`.
pub(crate) fn unknown_in<'a>(
    flag: &str,
    path: &Path,
    topic: &str,
    known: impl IntoIterator<Item = &'a str>,
    scope: Scope,
) -> Failure {
    let known: BTreeSet<&str> = known.into_iter().collect();
    let mut list = known
        .iter()
        .take(SHOWN)
        .map(|t| format!("{t:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if known.len() > SHOWN {
        list.push_str(&format!(" and {} more", known.len() - SHOWN));
    }
    let (missing, has) = match scope {
        Scope::Log => ("no such topic in this log", "its topics are"),
        Scope::Logs => (
            "no such topic or table in any of the logs",
            "their topics are",
        ),
    };
    let what = if known.is_empty() {
        match scope {
            Scope::Log => "the log has no topics".to_string(),
            Scope::Logs => "the logs have no topics".to_string(),
        }
    } else {
        format!("{has} {list}")
    };
    Failure::usage(
        path,
        logcore::Error::invalid_argument(format!("{flag} {topic:?}: {missing}; {what}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(f: Failure) -> String {
        assert_eq!(f.exit, 2);
        f.error.to_string()
    }

    #[test]
    fn names_the_topic_and_the_known_ones_sorted_and_truncated() {
        let p = Path::new("x.bag");
        assert!(check(p, ["/a", "/b"], &["/b".into()], Scope::Log).is_ok());
        let m =
            message(check(p, ["/b", "/a"], &["/a".into(), "/c".into()], Scope::Log).unwrap_err());
        assert!(
            m.ends_with(r#"--topic "/c": no such topic in this log; its topics are "/a", "/b""#),
            "{m}"
        );
        let many: Vec<String> = (0..25).map(|i| format!("/t{i:02}")).collect();
        let m = message(unknown(
            p,
            "/x",
            many.iter().map(String::as_str),
            Scope::Logs,
        ));
        assert!(
            m.contains(r#"no such topic or table in any of the logs; their topics are "/t00", "#),
            "{m}"
        );
        assert!(m.ends_with(r#""/t19" and 5 more"#), "{m}");
        let m = message(unknown(p, "/x", [], Scope::Log));
        assert!(check_patterns(p, ["/a/b"], "--topic", &["/a/*".into()], Scope::Log).is_ok());
        let m2 = message(
            check_patterns(
                p,
                ["/a/b"],
                "--exclude-topic",
                &["re:/z.*".into()],
                Scope::Log,
            )
            .unwrap_err(),
        );
        assert!(
            m2.contains(r#"--exclude-topic "re:/z.*": no such topic"#),
            "{m2}"
        );
        assert!(check_patterns(p, ["/a"], "--topic", &["re:(".into()], Scope::Log).is_err());
        assert!(m.ends_with("the log has no topics"), "{m}");
    }
}
