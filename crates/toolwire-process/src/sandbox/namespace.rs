//! The namespaces of a sandboxed program: user, mount, PID, IPC and cgroup, and network when
//! it is off. The launcher enters the user, PID and network ones; its child, the first
//! process of the new PID namespace, the others ([`enter_mounts`]), so that the mounts are
//! torn down when that child ends, not when the launcher does, which the host waits for.

use nix::sched::{CloneFlags, unshare};
use nix::unistd::{getegid, geteuid};
use rustix::thread::{self, CapabilitySet, CapabilitySets};

/// What the init stage needs to set up the namespaces it runs in: mounts, and dropping the
/// bounding set. Passed as ambient capabilities when the user is not root, since `exec`
/// clears a non-root user's others.
const SETUP: [CapabilitySet; 2] = [CapabilitySet::SYS_ADMIN, CapabilitySet::SETPCAP];

/// Moves this process (which must be single-threaded) into new namespaces, the network's too
/// unless `network` (the host's network is kept when the program may reach some of it, and
/// a network namespace joined already is kept), and maps its own user and group into the new user namespace
/// (root stays root in name, with capabilities only over the new namespaces).
///
/// # Errors
///
/// The kernel's refusal: no user namespaces (a container's seccomp profile, a sysctl), or
/// the maps.
pub(crate) fn enter(network: bool) -> Result<(), String> {
    let (uid, gid) = (geteuid(), getegid());
    let mut flags = CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWPID;
    if !network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    unshare(flags).map_err(|error| format!("unshare: {error}"))?;
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text)
            .map_err(|error| format!("cannot write /proc/self/{file}: {error}"))
    };
    write("setgroups", "deny".to_owned())?;
    write("uid_map", format!("{uid} {uid} 1"))?;
    write("gid_map", format!("{gid} {gid} 1"))?;
    if uid.is_root() { Ok(()) } else { keep_for_init() }
}

/// Moves this process into new mount, IPC and cgroup namespaces (it must have
/// `CAP_SYS_ADMIN` in its user namespace).
///
/// # Errors
///
/// The kernel's refusal.
pub(crate) fn enter_mounts() -> Result<(), String> {
    let flags = CloneFlags::CLONE_NEWNS | CloneFlags::CLONE_NEWIPC | CloneFlags::CLONE_NEWCGROUP;
    unshare(flags).map_err(|error| format!("cannot make the mount namespace: {error}"))
}

/// Makes the [`SETUP`] capabilities ambient, so that the init stage, started by `exec` as a
/// user other than root, still has them in the new namespaces.
fn keep_for_init() -> Result<(), String> {
    let failed =
        |error: rustix::io::Errno| format!("cannot pass the setup capabilities on: {error}");
    let held = thread::capabilities(None).map_err(failed)?;
    let setup = SETUP.iter().fold(CapabilitySet::empty(), |all, cap| all | *cap);
    thread::set_capabilities(None, CapabilitySets { inheritable: setup, ..held })
        .map_err(failed)?;
    SETUP
        .iter()
        .try_for_each(|cap| thread::configure_capability_in_ambient_set(*cap, true))
        .map_err(failed)
}
