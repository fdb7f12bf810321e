//! A `pids` cgroup per call: the process limit under root, which `RLIMIT_NPROC` does not
//! bind. It also reaches processes that left the call's process group: they are killed with
//! the cgroup after the call.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::SandboxError;

/// Where the `pids` controller is mounted: cgroup v1's own hierarchy.
const V1_ROOT: &str = "/sys/fs/cgroup/pids";

/// How many times the cgroup's processes are killed, and its removal tried, after a call.
const REMOVE_TRIES: u32 = 100;

/// Whether a `pids` controller is mounted where calls make their cgroups.
///
/// # Errors
///
/// Unsupported when none is.
pub(crate) fn check_available() -> Result<(), SandboxError> {
    if Path::new(V1_ROOT).join("cgroup.procs").exists() {
        return Ok(());
    }
    Err(SandboxError::unsupported(format!(
        "a process limit under root needs a pids cgroup (RLIMIT_NPROC does not bind root), and \
         none is mounted at {V1_ROOT}"
    )))
}

/// The cgroup of one call; dropping it kills everything in it and removes it.
#[derive(Debug)]
pub(crate) struct PidsCgroup {
    path: PathBuf,
}

impl PidsCgroup {
    /// A new cgroup under the `pids` controller, allowing at most `max` processes.
    ///
    /// # Errors
    ///
    /// Unsupported when no `pids` controller is mounted; setup when the cgroup cannot be made.
    pub(crate) fn create(max: u64) -> Result<Self, SandboxError> {
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let root = Path::new(V1_ROOT);
        check_available()?;
        remove_stale(root);
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        let path = root.join(format!("toolwire-{}-{call}", std::process::id()));
        std::fs::create_dir(&path).map_err(|error| {
            SandboxError::setup(format!("cannot make {}: {error}", path.display()))
        })?;
        let cgroup = Self { path };
        std::fs::write(cgroup.path.join("pids.max"), max.to_string()).map_err(|error| {
            SandboxError::setup(format!(
                "cannot set pids.max in {}: {error}",
                cgroup.path.display()
            ))
        })?;
        Ok(cgroup)
    }

    /// The cgroup's folder, which the launcher joins.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PidsCgroup {
    /// Kills every process left in the cgroup and removes it: at once when it is empty, else
    /// from a thread of its own, so that a call does not wait for its sandbox's processes to
    /// finish dying (the last of them tears the namespaces down).
    fn drop(&mut self) {
        kill_all(&self.path, None);
        if std::fs::remove_dir(&self.path).is_ok() {
            return;
        }
        let path = self.path.clone();
        let thread = std::thread::Builder::new().name("toolwire-cgroup".to_owned());
        if thread.spawn(move || remove(&path)).is_err() {
            remove(&self.path);
        }
    }
}

/// Kills every process in the cgroup at `path` but `spared`; whether there was none.
fn kill_all(path: &Path, spared: Option<u32>) -> bool {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let procs = std::fs::read_to_string(path.join("cgroup.procs")).unwrap_or_default();
    let pids: Vec<i32> = procs
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .filter(|pid: &i32| Some(*pid as u32) != spared)
        .collect();
    for pid in &pids {
        // A process that is gone already needs no signal.
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
    pids.is_empty()
}

/// Kills what is left in the cgroup at `path` and removes it, trying again while its
/// processes die.
fn remove(path: &Path) {
    for _ in 0..REMOVE_TRIES {
        let empty = kill_all(path, None);
        if std::fs::remove_dir(path).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(if empty { 1 } else { 5 }));
    }
}

/// Kills and removes the cgroups left by toolwire processes that are gone (killed before
/// they could remove their own).
fn remove_stale(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let owner = name.to_str().and_then(|name| name.strip_prefix("toolwire-"));
        let owner = owner.and_then(|rest| rest.split('-').next());
        if owner.is_some_and(|pid| !Path::new("/proc").join(pid).exists()) {
            remove(&entry.path());
        }
    }
}

/// Kills every process in the cgroup at `path` but the caller: what a program left running
/// when its host went.
pub(crate) fn kill_all_but_me(path: &Path) {
    kill_all(path, Some(std::process::id()));
}

/// Moves the calling process into the cgroup at `path` (the launcher, before it runs the
/// program, which then stays in it with all its children).
///
/// # Errors
///
/// A message naming the cgroup.
pub(crate) fn join(path: &Path) -> Result<(), String> {
    std::fs::write(path.join("cgroup.procs"), std::process::id().to_string())
        .map_err(|error| format!("cannot join the pids cgroup {}: {error}", path.display()))
}
