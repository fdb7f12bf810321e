//! The launcher's half of a sandbox: a [`Plan`] applied to the launcher itself, in an order
//! where each step still has the rights it needs, before it runs the program.

use nix::sys::resource::{Resource, setrlimit};
use nix::unistd::{Gid, Uid, setgroups, setresgid, setresuid};

use super::plan::Plan;
use super::{Limits, Network, User, landlock, pids, seccomp};

/// Applies `plan`: joins the cgroup, sets the limits, becomes the user, then restricts itself
/// with Landlock and `no_new_privs`, and, unless the network is on, with the seccomp filter
/// that refuses every socket but TCP.
///
/// # Errors
///
/// A message naming the step that failed; the program must then not run.
pub(crate) fn enforce(plan: &Plan) -> Result<(), String> {
    if let Some(cgroup) = &plan.cgroup {
        pids::join(cgroup)?;
    }
    limits(&plan.limits, plan.nproc_rlimit)?;
    if let Some(user) = plan.user {
        become_user(user)?;
    }
    landlock::restrict(plan)?;
    if plan.network != Network::On {
        seccomp::restrict()?;
    }
    Ok(())
}

/// Sets each limit given, soft and hard (CPU: the hard limit a second later, so that the
/// program gets `SIGXCPU` before `SIGKILL`).
fn limits(limits: &Limits, nproc: bool) -> Result<(), String> {
    let nproc = limits.processes.filter(|_| nproc);
    let cpu = limits.cpu_seconds.map(|soft| (soft, soft.saturating_add(1)));
    let same = |limit: Option<u64>| limit.map(|n| (n, n));
    let all = [
        (Resource::RLIMIT_NPROC, "processes", same(nproc)),
        (Resource::RLIMIT_AS, "address space", same(limits.address_space)),
        (Resource::RLIMIT_CPU, "CPU seconds", cpu),
        (Resource::RLIMIT_FSIZE, "file size", same(limits.file_size)),
        (Resource::RLIMIT_NOFILE, "open files", same(limits.open_files)),
    ];
    for (resource, name, limit) in all {
        if let Some((soft, hard)) = limit {
            setrlimit(resource, soft, hard)
                .map_err(|error| format!("cannot limit {name} to {soft}: {error}"))?;
        }
    }
    Ok(())
}

/// Drops to `user`: its group as the only group, then its uid (real, effective and saved).
fn become_user(user: User) -> Result<(), String> {
    let (uid, gid) = (Uid::from_raw(user.uid), Gid::from_raw(user.gid));
    setgroups(&[gid]).map_err(|error| format!("cannot set the groups to {gid}: {error}"))?;
    setresgid(gid, gid, gid).map_err(|error| format!("cannot become group {gid}: {error}"))?;
    setresuid(uid, uid, uid).map_err(|error| format!("cannot become user {uid}: {error}"))
}
