//! Resolving a policy's paths before a call, so that what a program may change is decided by
//! the policy, never by what an earlier call left behind: a symlink that lies where some
//! sandbox may write is never followed, and every `.git` beneath a write path is found, to be
//! kept read-only.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use super::SandboxError;

/// Resolves paths for one call, refusing symlinks that lie beneath `untrusted` folders.
#[derive(Debug)]
pub(crate) struct Resolver<'a> {
    /// The folder relative paths start from.
    cwd: &'a Path,
    /// Folders that a sandbox may write: a symlink found beneath one could have been planted.
    untrusted: Vec<PathBuf>,
}

impl<'a> Resolver<'a> {
    /// A resolver for paths relative to `cwd` that distrusts symlinks beneath `untrusted`
    /// (absolute; a folder that cannot be resolved is taken as written).
    pub(crate) fn new(cwd: &'a Path, untrusted: impl IntoIterator<Item = PathBuf>) -> Self {
        let untrusted =
            untrusted.into_iter().map(|path| path.canonicalize().unwrap_or(path)).collect();
        Self { cwd, untrusted }
    }

    /// Adds `folder` (resolved) to the untrusted folders.
    pub(crate) fn distrust(&mut self, folder: PathBuf) {
        self.untrusted.push(folder);
    }

    /// `path` made absolute (against the working folder), with every `..` and symlink
    /// resolved. A symlink met on the way is followed only when it lies outside every
    /// untrusted folder.
    ///
    /// # Errors
    ///
    /// Setup, naming `what` and the path, when it does not exist or a symlink on the way lies
    /// where a sandbox may write.
    pub(crate) fn resolve(&self, path: &Path, what: &str) -> Result<PathBuf, SandboxError> {
        let failed = |why: String| {
            SandboxError::setup(format!(
                "the {what} path {} cannot be resolved: {why}",
                path.display()
            ))
        };
        let mut rest: VecDeque<OsString> = components(&self.cwd.join(path));
        let mut resolved = PathBuf::from("/");
        let mut links = 0;
        while let Some(name) = rest.pop_front() {
            if name == ".." {
                resolved.pop();
                continue;
            }
            let candidate = resolved.join(&name);
            let meta = candidate.symlink_metadata().map_err(|error| failed(error.to_string()))?;
            if !meta.file_type().is_symlink() {
                resolved = candidate;
                continue;
            }
            self.check_link(&candidate, what, path)?;
            links += 1;
            if links > MAX_LINKS {
                return Err(failed(format!("more than {MAX_LINKS} symlinks on the way")));
            }
            let target = std::fs::read_link(&candidate).map_err(|e| failed(e.to_string()))?;
            if target.is_absolute() {
                resolved = PathBuf::from("/");
            }
            for name in components(&target).into_iter().rev() {
                rest.push_front(name);
            }
        }
        Ok(resolved)
    }

    fn check_link(&self, link: &Path, what: &str, path: &Path) -> Result<(), SandboxError> {
        match self.untrusted.iter().find(|folder| link.starts_with(folder)) {
            None => Ok(()),
            Some(folder) => Err(SandboxError::setup(format!(
                "the {what} path {} goes through the symlink {}, which lies in {}, where a \
                 sandboxed call may write: it could have been planted there, so it is not \
                 followed; name the folder it points to instead",
                path.display(),
                link.display(),
                folder.display()
            ))),
        }
    }
}

/// How many symlinks one path may go through, as the kernel allows (`MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The names along `path`, with `..` kept and `.` and the root left out.
fn components(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_owned()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

/// Every `.git` (a repository's folder, or the file of a worktree or submodule that points
/// to one) beneath `roots`, the roots' own included. Symlinks are not followed, and a `.git`
/// folder is not searched.
pub(crate) fn git_folders(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending: Vec<PathBuf> = roots.to_vec();
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else { continue };
            if entry.file_name() == OsStr::new(".git") && !kind.is_symlink() {
                found.push(entry.path());
            } else if kind.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> tempfile::TempDir {
        tempfile::Builder::new().prefix("toolwire-paths-test-").tempdir().expect("a folder")
    }

    #[test]
    fn a_symlink_in_an_untrusted_folder_is_refused_and_one_elsewhere_is_followed() {
        let (work, target) = (folder(), folder());
        std::os::unix::fs::symlink(target.path(), work.path().join("out")).expect("a link");
        let trusting = Resolver::new(work.path(), []);
        let resolved = trusting.resolve(Path::new("./out"), "write").expect("followed");
        assert_eq!(resolved, target.path().canonicalize().expect("canonical"));
        let wary = Resolver::new(work.path(), [work.path().to_owned()]);
        let error = wary.resolve(Path::new("out"), "write").expect_err("refused");
        assert!(error.to_string().contains("could have been planted"), "{error}");
    }

    #[test]
    fn a_path_after_a_link_is_resolved_beneath_its_target() {
        let (work, target) = (folder(), folder());
        std::fs::create_dir(target.path().join("inner")).expect("a folder");
        std::os::unix::fs::symlink(target.path(), work.path().join("link")).expect("a link");
        let resolved = Resolver::new(work.path(), []).resolve(Path::new("link/inner"), "read");
        let expected = target.path().canonicalize().expect("canonical").join("inner");
        assert_eq!(resolved.expect("resolved"), expected);
    }

    #[test]
    fn nested_git_folders_and_files_are_found_but_not_searched() {
        let work = folder();
        for path in [".git/hooks", "vendor/lib/.git", "deep/a/b/.git/modules/x/.git"] {
            std::fs::create_dir_all(work.path().join(path)).expect("folders");
        }
        std::fs::write(work.path().join("sub.git"), "").expect("a file");
        std::fs::create_dir_all(work.path().join("wt")).expect("a folder");
        std::fs::write(work.path().join("wt/.git"), "gitdir: ../.git/worktrees/wt")
            .expect("a file");
        let found = git_folders(&[work.path().to_owned()]);
        let names: Vec<_> =
            found.iter().map(|p| p.strip_prefix(work.path()).expect("beneath")).collect();
        assert_eq!(
            names,
            [
                Path::new(".git"),
                Path::new("deep/a/b/.git"),
                Path::new("vendor/lib/.git"),
                Path::new("wt/.git")
            ]
        );
    }
}
