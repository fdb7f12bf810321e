//! The launcher's half of a sandbox: a [`Plan`] applied to the launcher itself, in an order
//! where each step still has the rights it needs.

use nix::sys::resource::{Resource, setrlimit};
use nix::unistd::{Gid, Uid, setgroups, setresgid, setresuid};

use super::plan::{Call, Plan};
use super::{Limits, Network, Rule, User, caps, landlock, pids, seccomp};

/// What comes before the namespaces: joins the cgroup, sets the limits, becomes the user.
///
/// # Errors
///
/// A message naming the step that failed; the program must then not run.
pub(crate) fn prepare(plan: &Plan) -> Result<(), String> {
    if let Some(cgroup) = &plan.cgroup {
        pids::join(cgroup)?;
    }
    limits(&plan.limits, plan.nproc_rlimit)?;
    match plan.user {
        Some(user) => become_user(user),
        None => Ok(()),
    }
}

/// What can come before the call is known, once the view of the files is set up:
/// `no_new_privs`, no way for a program to get a capability back, and the main seccomp
/// filter (with the socket rules unless the network is on).
///
/// # Errors
///
/// A message naming the step that failed; the program must then not run.
pub(crate) fn before_call(plan: &Plan) -> Result<(), String> {
    nix::sys::prctl::set_no_new_privs()
        .map_err(|error| format!("cannot set no_new_privs: {error}"))?;
    caps::forbid_regaining()?;
    seccomp::restrict(plan.network != Network::On)
}

/// What comes last, once the call's paths are mounted: Landlock over the call's paths, no
/// capabilities left, and the last seccomp filter.
///
/// # Errors
///
/// A message naming the step that failed; the program must then not run.
pub(crate) fn confine(plan: &Plan, call: &Call) -> Result<(), String> {
    let features = plan.features;
    landlock::restrict(&landlock::Rules {
        read: &call.read,
        write: &call.write,
        network: &plan.network,
        device_ioctl: features.device_ioctl,
        scopes: features.scopes,
    })?;
    caps::drop_all()?;
    seccomp::seal()
}

/// Sets each limit given, soft and hard (CPU: the hard limit a second later, so that the
/// program gets `SIGXCPU` before `SIGKILL`).
fn limits(limits: &Limits, nproc: bool) -> Result<(), String> {
    let nproc = limits.processes.filter(|_| nproc);
    let cpu = limits.cpu_seconds.map(|soft| (soft, soft.saturating_add(1)));
    let same = |limit: Option<u64>| limit.map(|n| (n, n));
    let all = [
        (Resource::RLIMIT_NPROC, Rule::Processes, same(nproc)),
        (Resource::RLIMIT_AS, Rule::AddressSpace, same(limits.address_space)),
        (Resource::RLIMIT_CPU, Rule::CpuSeconds, cpu),
        (Resource::RLIMIT_FSIZE, Rule::FileSize, same(limits.file_size)),
        (Resource::RLIMIT_NOFILE, Rule::OpenFiles, same(limits.open_files)),
    ];
    for (resource, rule, limit) in all {
        if let Some((soft, hard)) = limit {
            setrlimit(resource, soft, hard)
                .map_err(|error| format!("cannot limit {} to {soft}: {error}", rule.noun()))?;
        }
    }
    Ok(())
}

/// Drops to `user`: its group as the only group, then its uid (real, effective and saved).
fn become_user(user: User) -> Result<(), String> {
    let (uid, gid) = (Uid::from_raw(user.uid), Gid::from_raw(user.gid));
    setgroups(&[gid]).map_err(|error| format!("cannot set the groups to {gid}: {error}"))?;
    setresgid(gid, gid, gid).map_err(|error| format!("cannot become group {gid}: {error}"))?;
    setresuid(uid, uid, uid).map_err(|error| format!("cannot become user {uid}: {error}"))?;
    // A change of user makes a process undumpable, which makes its own `/proc/self` files
    // root's: the namespaces' maps could not be written.
    nix::sys::prctl::set_dumpable(true).map_err(|error| format!("cannot stay dumpable: {error}"))
}
