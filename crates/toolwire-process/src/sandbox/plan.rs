//! The parent's half of a sandbox: a [`Plan`] with every path resolved, checked against what
//! the kernel can enforce, and the resources of the call (its temporary folder, its cgroup).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tempfile::TempDir;

use super::pids::PidsCgroup;
use super::{Backend, Limits, Network, Policy, SandboxError, User};

/// What the launcher applies, sent to it as JSON: only absolute, resolved paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Plan {
    /// Readable (and executable), with everything beneath.
    pub(crate) read: Vec<PathBuf>,
    /// Writable, with everything beneath.
    pub(crate) write: Vec<PathBuf>,
    /// The network rules.
    pub(crate) network: Network,
    /// The rlimits.
    pub(crate) limits: Limits,
    /// Whether `limits.processes` is applied as `RLIMIT_NPROC` (not under root).
    pub(crate) nproc_rlimit: bool,
    /// The `pids` cgroup to join (under root).
    pub(crate) cgroup: Option<PathBuf>,
    /// The user to become.
    pub(crate) user: Option<User>,
}

/// A plan with what the call holds while it runs; dropping it removes the temporary folder
/// and kills and removes the cgroup.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The plan for the launcher.
    pub(crate) plan: Plan,
    /// The private temporary folder.
    pub(crate) temp: Option<TempDir>,
    // Dropped after `temp`: a process still writing there is killed before the folder goes.
    _pids: Option<PidsCgroup>,
}

/// Checks, without running anything, that this machine can enforce `policy`.
///
/// # Errors
///
/// Unsupported, naming what is missing.
pub(crate) fn check(policy: &Policy) -> Result<(), SandboxError> {
    probe(policy)?;
    if policy.limits.processes.is_some() && nix::unistd::geteuid().is_root() {
        super::pids::check_available()?;
    }
    Ok(())
}

/// The OS backend and the kernel's Landlock rights.
fn probe(policy: &Policy) -> Result<(), SandboxError> {
    let Some(backend) = Backend::native() else {
        return Err(SandboxError::unsupported(
            "toolwire has no sandbox backend for this OS yet (Landlock is Linux only)",
        ));
    };
    match backend {
        #[cfg(target_os = "linux")]
        Backend::Landlock => super::landlock::probe(&policy.network),
        #[cfg(not(target_os = "linux"))]
        _ => Ok(()),
    }
}

/// Prepares `policy` for a program whose working folder is `cwd`.
///
/// # Errors
///
/// Unsupported when this OS or kernel cannot enforce the policy; setup when a path does not
/// exist or the temporary folder or cgroup cannot be made.
pub(crate) fn prepare(policy: &Policy, cwd: &Path) -> Result<Prepared, SandboxError> {
    probe(policy)?;
    let read = resolve_all(&policy.read, cwd, "read")?;
    let mut write = resolve_all(&policy.write, cwd, "write")?;
    if policy.write_working_folder {
        write.push(resolve(cwd, cwd, "working folder")?);
    }
    let temp = policy.temp_folder.then(|| temp_folder(policy.user)).transpose()?;
    if let Some(temp) = &temp {
        write.push(resolve(temp.path(), cwd, "temporary folder")?);
    }
    let root = nix::unistd::geteuid().is_root();
    let pids = match policy.limits.processes {
        Some(max) if root => Some(PidsCgroup::create(max)?),
        _ => None,
    };
    let plan = Plan {
        read,
        write,
        network: policy.network.clone(),
        limits: policy.limits,
        nproc_rlimit: pids.is_none(),
        cgroup: pids.as_ref().map(|pids| pids.path().to_owned()),
        user: policy.user,
    };
    Ok(Prepared { plan, temp, _pids: pids })
}

/// `paths`, each resolved by [`resolve`].
fn resolve_all(paths: &[PathBuf], cwd: &Path, what: &str) -> Result<Vec<PathBuf>, SandboxError> {
    paths.iter().map(|path| resolve(path, cwd, what)).collect()
}

/// `path` made absolute (against `cwd`) with every symlink and `..` resolved, so that a rule
/// names what the path really is.
fn resolve(path: &Path, cwd: &Path, what: &str) -> Result<PathBuf, SandboxError> {
    cwd.join(path).canonicalize().map_err(|error| {
        SandboxError::setup(format!(
            "the {what} path {} cannot be resolved: {error}",
            path.display()
        ))
    })
}

/// A new private folder under the system's temporary folder, owned by `user` when given.
/// The start of a call's temporary folder's name; the parent's pid follows, then a dash.
const TEMP_PREFIX: &str = "toolwire-call-";

/// Removes the temporary folders that calls of processes no longer running left in `dir`:
/// a parent killed with SIGKILL runs no destructor. Only folders of this user, named for a
/// pid that is gone, are removed; a symlink is never followed. Errors are ignored: what
/// cannot be removed now is tried again by the next process.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let me = nix::unistd::geteuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(leftover_pid) else { continue };
        let Ok(meta) = entry.path().symlink_metadata() else { continue };
        let ours = std::os::unix::fs::MetadataExt::uid(&meta) == me;
        let gone = !Path::new("/proc").join(pid.to_string()).exists();
        if meta.is_dir() && ours && gone && pid != std::process::id() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The parent's pid in a temporary folder's name, `toolwire-call-<pid>-<random>`.
fn leftover_pid(name: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix(TEMP_PREFIX)?.split_once('-')?;
    if rest.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

fn temp_folder(user: Option<User>) -> Result<TempDir, SandboxError> {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| sweep(&std::env::temp_dir()));
    let temp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
        .tempdir()
        .map_err(|error| SandboxError::setup(format!("cannot make a temporary folder: {error}")))?;
    if let Some(user) = user {
        std::os::unix::fs::chown(temp.path(), Some(user.uid), Some(user.gid)).map_err(|error| {
            SandboxError::setup(format!(
                "cannot give {} to uid {}: {error}",
                temp.path().display(),
                user.uid
            ))
        })?;
    }
    Ok(temp)
}

#[cfg(test)]
mod tests {
    use super::leftover_pid;

    #[test]
    fn only_names_of_call_folders_give_a_pid() {
        assert_eq!(leftover_pid("toolwire-call-1234-AbC9"), Some(1234));
        assert_eq!(leftover_pid("toolwire-call-1234-"), None);
        assert_eq!(leftover_pid("toolwire-call-x12-abc"), None);
        assert_eq!(leftover_pid("toolwire-call-abc"), None);
        assert_eq!(leftover_pid("other-1234-abc"), None);
    }
}
