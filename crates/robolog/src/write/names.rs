//! Where temporary files go and what they are called: `DIR/NAME` is
//! written as `DIR/.NAME.robolog-tmp-PID-N` (PID the writing process, N a
//! counter), so that the leftovers of a process and the files a process
//! has open can be told by their names.

use std::path::Path;
use std::sync::atomic::AtomicU64;

/// The folder of `path` (`.` for a bare file name).
pub(super) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The counter N of the temporary file names of this process.
pub(super) static COUNTER: AtomicU64 = AtomicU64::new(0);

/// What the names of temporary files hold between the output's name and
/// the writing process's id: `.NAME.robolog-tmp-PID-N`.
pub(crate) const TEMP_MARKER: &str = ".robolog-tmp-";

/// The temporary file name for `name`, process `pid`, counter `n`.
pub(super) fn temp_name(name: &str, pid: u32, n: u64) -> String {
    format!(".{name}{TEMP_MARKER}{pid}-{n}")
}

/// The process id in `file_name` when it is a temporary file of the output
/// `name`.
pub(super) fn temp_pid(file_name: &str, name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?.strip_prefix(name)?;
    let (pid, n) = rest.strip_prefix(TEMP_MARKER)?.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether `temp`'s file name is that of a temporary file of this process
/// (it holds `.robolog-tmp-` (`TEMP_MARKER`) followed by this process's id).
pub(super) fn is_own_temporary(temp: &Path) -> bool {
    let mine = format!("{TEMP_MARKER}{}-", std::process::id());
    temp.file_name()
        .is_some_and(|n| n.to_string_lossy().contains(&mine))
}
