//! The [`OutputPolicy`] every output passes before it is written: not one
//! of the inputs under any spelling (same-file detection through
//! canonical paths and device and inode numbers), and not an existing
//! file unless forced.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::Refusal;
use super::names::parent_dir;

/// The rules an output file must pass before it is written: not one of
/// the inputs, and not an existing file unless `force` is set.
///
/// Checking an output costs the same however many inputs there are: the
/// inputs' canonical paths and (on Unix) device and inode numbers are kept
/// in sets as they are added.
#[derive(Debug, Clone, Default)]
pub struct OutputPolicy {
    /// Replace an existing output (the `--force` of the tools).
    pub force: bool,
    /// The inputs as given, in the order they were added.
    inputs: Vec<PathBuf>,
    /// The inputs' canonical paths (see `resolve`).
    canonical: HashSet<PathBuf>,
    /// The device and inode numbers of the inputs that exist (Unix only).
    ids: HashSet<(u64, u64)>,
}

impl OutputPolicy {
    /// A policy with no inputs yet.
    pub fn new(force: bool) -> Self {
        OutputPolicy {
            force,
            ..OutputPolicy::default()
        }
    }

    /// Adds an input the output must not resolve to.
    pub fn reading(mut self, input: impl Into<PathBuf>) -> Self {
        self.add_input(input.into());
        self
    }

    /// Adds inputs the output must not resolve to.
    pub fn add_inputs<P: Into<PathBuf>>(&mut self, inputs: impl IntoIterator<Item = P>) {
        for input in inputs {
            self.add_input(input.into());
        }
    }

    /// Adds one input, with its canonical path and file id.
    fn add_input(&mut self, input: PathBuf) {
        if let Some(c) = resolve(&input) {
            self.canonical.insert(c);
        }
        if let Some(id) = file_id(&input) {
            self.ids.insert(id);
        }
        self.inputs.push(input);
    }

    /// The files the command reads, as given.
    pub fn inputs(&self) -> &[PathBuf] {
        &self.inputs
    }

    /// The input `output` resolves to, if any.
    fn input_at(&self, output: &Path) -> Option<&PathBuf> {
        let hit = file_id(output).is_some_and(|id| self.ids.contains(&id))
            || resolve(output).is_some_and(|c| self.canonical.contains(&c));
        if !hit {
            return None;
        }
        // Which one, for the message: found once, on a refusal only.
        self.inputs.iter().find(|i| same_file(output, i))
    }

    /// Checks `output` against the policy: [`Refusal::SameFile`] when it
    /// resolves to an input (compared as canonical paths and, on Unix, as
    /// device and inode of existing files, so `..` spellings and symlinks
    /// are caught), [`Refusal::Exists`] when it exists and `force` is not
    /// set.
    pub fn check(&self, output: &Path) -> Result<(), Refusal> {
        if let Some(input) = self.input_at(output) {
            return Err(Refusal::SameFile {
                output: output.to_path_buf(),
                input: input.clone(),
            });
        }
        if !self.force && std::fs::symlink_metadata(output).is_ok() {
            return Err(Refusal::Exists {
                output: output.to_path_buf(),
            });
        }
        Ok(())
    }
}

/// The device and inode numbers of an existing file (Unix only).
fn file_id(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Whether `a` and `b` name the same file. A path that does not exist yet
/// is compared through its canonical folder.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Some(x), Some(y)) = (file_id(a), file_id(b))
        && x == y
    {
        return true;
    }
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The canonical form of `path`, or of its folder joined with its name when
/// the file does not exist.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let name = path.file_name()?;
    let dir = parent_dir(path).canonicalize().ok()?;
    Some(dir.join(name))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::write::testing::{entries, scratch};
    use crate::write::{TEMP_MARKER, WriteError, write_atomically};

    #[test]
    fn refuses_the_input_under_any_spelling() {
        let dir = scratch("same");
        let input = dir.join("in.bin");
        std::fs::write(&input, b"input").unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        let policy = OutputPolicy::new(true).reading(&input);
        let mut spellings = vec![input.clone(), dir.join("sub").join("..").join("in.bin")];
        #[cfg(unix)]
        {
            let link = dir.join("link.bin");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            spellings.push(link);
        }
        for out in spellings {
            let r = write_atomically(&out, &policy, |w| w.write_all(b"x"));
            assert!(
                matches!(r, Err(WriteError::Refused(Refusal::SameFile { .. }))),
                "{} was not refused",
                out.display()
            );
            assert_eq!(std::fs::read(&input).unwrap(), b"input");
        }
        // A new file beside it is fine.
        assert!(policy.check(&dir.join("other.bin")).is_ok());
        assert!(!entries(&dir).iter().any(|e| e.contains(TEMP_MARKER)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn same_file_compares_new_paths_through_their_folder() {
        let dir = scratch("new");
        let a = dir.join("a.bin");
        let b = dir.join("sub").join("..").join("a.bin");
        std::fs::create_dir(dir.join("sub")).unwrap();
        assert!(same_file(&a, &b));
        assert!(!same_file(&a, &dir.join("b.bin")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
