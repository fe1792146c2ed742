//! Table names as users write them: SQL folds unquoted names to lower case
//! while the tables are named after topics and messages (`Position`,
//! `GPSDataM`), so a name is looked up exactly, then ignoring case (where
//! that names one table), and a name that names no table gets the closest
//! names there are, quoted as SQL takes them.

use robolog_arrow::base_name;

/// How many of the closest names an unknown table's error lists at most.
pub const MAX_CLOSEST: usize = 8;

/// `name` ignoring case (Unicode lower case).
pub(crate) fn folded(name: &str) -> String {
    name.to_lowercase()
}

/// `name` ignoring case and everything but letters and digits (a leading
/// `/`, `_`, `-`, `.`): `/IMU-raw` and `imu_raw` are both `imuraw`.
fn letters(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// `name` as SQL takes it whatever its case or characters: in double
/// quotes, a `"` in it doubled.
///
/// ```
/// assert_eq!(robolog_sql::quoted("Position"), "\"Position\"");
/// assert_eq!(robolog_sql::quoted("a\"b"), "\"a\"\"b\"");
/// ```
pub fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Whether the table called `name`, compared ignoring case, may hold `key`
/// (a topic, or a ULog message name) in some set of logs: what
/// [`robolog_arrow::may_name`] says of the lower-cased names. The logs are
/// opened for a name with this, so that one opening finds every table
/// whose name differs from it only in case.
pub(crate) fn may_name_ignoring_case(key: &str, name: &str) -> bool {
    let base = folded(&base_name(key));
    let name = folded(name);
    let Some(rest) = name.strip_prefix(base.as_str()) else {
        return false;
    };
    match rest.strip_prefix('_') {
        None => rest.is_empty(),
        Some(hex) => matches!(hex.len(), 8 | 16) && hex.bytes().all(|b| b.is_ascii_hexdigit()),
    }
}

/// The names among `names` that are `name` ignoring case (`name` itself
/// among them when it is there), sorted, each once.
pub(crate) fn same_but_case<'a>(
    name: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let want = folded(name);
    let mut found: Vec<String> = names
        .into_iter()
        .filter(|n| folded(n) == want)
        .map(String::from)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The names among `names` closest to `name`, a name no table has, best
/// first, at most [`MAX_CLOSEST`]: those with the same letters and digits
/// ignoring case and punctuation (`/imu` for `imu`), then those containing
/// it (ignoring case, or ignoring case and punctuation), then those a
/// typo or two away (for names of 4 letters or more). Empty when none is
/// close.
pub(crate) fn closest<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let (case, bare) = (folded(name), letters(name));
    let typos = match bare.chars().count() {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    };
    let mut ranked: Vec<(usize, usize, String)> = Vec::new();
    for n in names {
        if n == name {
            continue;
        }
        let (n_case, n_bare) = (folded(n), letters(n));
        let rank = if !bare.is_empty() && n_bare == bare {
            0
        } else if n_case.contains(&case) || (!bare.is_empty() && n_bare.contains(&bare)) {
            1
        } else if typos > 0 && edits(&bare, &n_bare, typos).is_some() {
            2
        } else {
            continue;
        };
        ranked.push((
            rank,
            n.chars().count().abs_diff(name.chars().count()),
            n.to_string(),
        ));
    }
    ranked.sort();
    ranked.dedup_by(|a, b| a.2 == b.2);
    ranked
        .into_iter()
        .take(MAX_CLOSEST)
        .map(|(_, _, n)| n)
        .collect()
}

/// The edit distance between `a` and `b` (insertions, deletions and
/// substitutions of characters) if it is at most `max`.
fn edits(a: &str, b: &str, max: usize) -> Option<usize> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    let d = row[b.len()];
    (d <= max).then_some(d)
}

/// The text of [`Error::UnknownTable`](crate::Error::UnknownTable).
pub(crate) fn unknown_table(table: &str, closest: &[String]) -> String {
    if closest.is_empty() {
        return format!("no table {} (SHOW TABLES lists the tables)", quoted(table));
    }
    format!(
        "no table {}; the closest: {} (SQL lower-cases names that are not in double quotes: \
         quote a name to keep its case and punctuation)",
        quoted(table),
        from_list(closest),
    )
}

/// The text of [`Error::AmbiguousTable`](crate::Error::AmbiguousTable).
pub(crate) fn ambiguous_table(table: &str, candidates: &[String]) -> String {
    format!(
        "no table {} exactly, and {} tables differing from it only in case: {} (SQL lower-cases \
         names that are not in double quotes: quote the one you mean as it is written)",
        quoted(table),
        candidates.len(),
        from_list(candidates),
    )
}

/// `FROM "a" or FROM "b"`: each name as a query names it.
fn from_list(names: &[String]) -> String {
    let each: Vec<String> = names
        .iter()
        .map(|n| format!("FROM {}", quoted(n)))
        .collect();
    match each.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => each.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_names_come_best_first() {
        let names = [
            "imu",
            "imu_raw",
            "Position",
            "vehicle_local_position",
            "vehicle_local_position_setpoint",
            "vehicle_global_position",
        ];
        // Same letters, less the punctuation.
        assert_eq!(closest("/imu", names), ["imu", "imu_raw"]);
        assert_eq!(closest("IMU-RAW", names), ["imu_raw"]);
        // Containing the name.
        assert_eq!(
            closest("local_position", names),
            ["vehicle_local_position", "vehicle_local_position_setpoint"]
        );
        // A typo or two.
        assert_eq!(
            closest("vehicle_local_positon", names)[0],
            "vehicle_local_position"
        );
        assert_eq!(closest("positon", names), ["Position"]);
        // Nothing close.
        assert!(closest("battery_status", names).is_empty());
        assert!(closest("x", ["y", "z"]).is_empty());
        let many: Vec<String> = (0..20).map(|i| format!("imu{i}")).collect();
        assert_eq!(
            closest("imu", many.iter().map(String::as_str)).len(),
            MAX_CLOSEST
        );
    }

    #[test]
    fn names_match_ignoring_case() {
        assert_eq!(
            same_but_case("logs", ["LOGS", "logs", "Logs_", "count"]),
            ["LOGS", "logs"]
        );
        assert!(may_name_ignoring_case("/LOGS", "Logs"));
        assert!(!may_name_ignoring_case("/logs", "logs"));
        assert!(may_name_ignoring_case("Position", "position"));
        assert!(may_name_ignoring_case("/imu", "IMU_0123ABCD"));
        assert!(!may_name_ignoring_case("/imu", "imu_raw"));
        assert!(!may_name_ignoring_case("/imu", "im"));
    }

    #[test]
    fn messages_say_how_to_quote() {
        assert_eq!(
            unknown_table("/imu", &["imu".into(), "imu_raw".into()]),
            "no table \"/imu\"; the closest: FROM \"imu\" or FROM \"imu_raw\" (SQL lower-cases \
             names that are not in double quotes: quote a name to keep its case and punctuation)"
        );
        assert_eq!(
            unknown_table("nothing", &[]),
            "no table \"nothing\" (SHOW TABLES lists the tables)"
        );
        assert!(
            ambiguous_table("Logs", &["LOGS".into(), "logs".into()]).contains(
                "2 tables differing from it only in case: FROM \"LOGS\" or FROM \"logs\""
            )
        );
    }
}
