//! Finding the logs under the paths a query names, and their log ids: the
//! rules of `robolog-arrow` ([`robolog_arrow::find_logs`],
//! [`robolog_arrow::log_ids`]), so that a query's `log` values are the
//! `log=` folders of a Parquet export of the same paths.

use std::path::{Path, PathBuf};

use crate::Error;

pub use robolog_arrow::log_ids;

/// The log files under `paths`: each file as given, and every file under
/// each directory (searched recursively, in name order; hidden files and
/// folders left out) whose first bytes are a format [`robolog::probe`]
/// recognises. Files named directly are kept whatever they hold (opening
/// them reports what is wrong). A path that cannot be read is an error
/// naming it.
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag");
/// let logs = robolog_sql::find_logs(&[dir])?;
/// assert!(logs.iter().any(|p| p.ends_with("sample.bag")));
/// # Ok::<(), robolog_sql::Error>(())
/// ```
pub fn find_logs<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<PathBuf>, Error> {
    Ok(find_named_logs(paths)?
        .into_iter()
        .map(|(p, _)| p)
        .collect())
}

/// [`find_logs`] with each log's id ([`robolog_arrow::find_named_logs`]:
/// a file given by its file name, a file found in a folder given by its
/// path below that folder), one log per file however many paths reach it.
pub fn find_named_logs<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<(PathBuf, String)>, Error> {
    let io = |p: &Path, e| Error::Io {
        path: p.to_path_buf(),
        source: e,
    };
    for p in paths {
        let p = p.as_ref();
        std::fs::metadata(p).map_err(|e| io(p, e))?;
    }
    robolog_arrow::find_named_logs(paths).map_err(|e| {
        // Named after the path that fails alone.
        let failing = paths
            .iter()
            .map(AsRef::as_ref)
            .find(|p| robolog_arrow::find_logs(&[p]).is_err())
            .unwrap_or_else(|| paths[0].as_ref());
        io(failing, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_number_repeated_names() {
        assert_eq!(
            log_ids(&["x/a.bag", "y/a.bag", "z/a.bag", "b", "w/b", ".hidden"]),
            ["a.bag", "a~2.bag", "a~3.bag", "b", "b~2", ".hidden"]
        );
    }

    #[test]
    fn finds_logs_in_directories_only_by_their_bytes() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/vellog");
        let logs = find_logs(&[dir]).unwrap();
        let names: Vec<_> = logs
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "sensors.vel",
                "size-convention-b.vel",
                "spec-example.vel",
                "terminated.vel"
            ]
        );
        let missing = find_logs(&["/no/such/dir"]).unwrap_err();
        assert!(missing.to_string().contains("/no/such/dir"), "{missing}");
    }
}
