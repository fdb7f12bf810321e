//! The socket filter of a sandbox whose network is off or limited to TCP ports.
//!
//! Landlock's network rules cover TCP `bind` and `connect` only. Without this filter a program
//! with the network off could still send UDP (a DNS query carries any data it likes), open a
//! raw or packet socket, talk netlink, or connect to a Unix socket outside its folders, such
//! as an SSH agent's. The filter, applied by the launcher after `no_new_privs`, lets `socket`
//! make only TCP sockets over IPv4 and IPv6, which Landlock then governs, and refuses every
//! other socket with `EACCES`, as well as `io_uring_setup`, whose operations could make
//! sockets without the `socket` system call.
//!
//! Known gap: the x32 system-call numbers of an x86-64 kernel built with x32 support are not
//! filtered (Debian's kernels, and most distributions', leave x32 off).

use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The mask of a socket type's kind (`SOCK_NONBLOCK` and `SOCK_CLOEXEC` are flags above it).
const TYPE_MASK: u64 = 0xf;

/// Applies the filter to this process, which must have `no_new_privs` set.
///
/// # Errors
///
/// A message saying why the filter could not be made or installed.
pub(crate) fn restrict() -> Result<(), String> {
    let program = program()?;
    seccompiler::apply_filter(&program)
        .map_err(|error| format!("cannot install the seccomp socket filter: {error}"))
}

/// The compiled filter, for this machine's architecture.
fn program() -> Result<BpfProgram, String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp socket filter for {}", std::env::consts::ARCH))?;
    let rules = BTreeMap::from([
        (libc::SYS_socket, socket_rules().map_err(|e| format!("seccomp rule: {e}"))?),
        // No condition: every call is refused.
        (libc::SYS_io_uring_setup, Vec::new()),
    ]);
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .map_err(|error| format!("cannot make the seccomp socket filter: {error}"))?;
    BpfProgram::try_from(filter)
        .map_err(|error| format!("cannot compile the seccomp socket filter: {error}"))
}

/// The `socket` calls refused: any domain but IPv4 and IPv6; in those, any type but a stream,
/// and a stream of any protocol but TCP (SCTP, MPTCP).
fn socket_rules() -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
    let arg = |index: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)
    };
    let (inet, inet6) = (libc::AF_INET as u64, libc::AF_INET6 as u64);
    let stream = libc::SOCK_STREAM as u64;
    let tcp = libc::IPPROTO_TCP as u64;
    let mut rules = vec![SeccompRule::new(vec![
        arg(0, SeccompCmpOp::Ne, inet)?,
        arg(0, SeccompCmpOp::Ne, inet6)?,
    ])?];
    for domain in [inet, inet6] {
        for kind in (0..=TYPE_MASK).filter(|kind| *kind != stream) {
            rules.push(SeccompRule::new(vec![
                arg(0, SeccompCmpOp::Eq, domain)?,
                arg(1, SeccompCmpOp::MaskedEq(TYPE_MASK), kind)?,
            ])?);
        }
        rules.push(SeccompRule::new(vec![
            arg(0, SeccompCmpOp::Eq, domain)?,
            arg(1, SeccompCmpOp::MaskedEq(TYPE_MASK), stream)?,
            arg(2, SeccompCmpOp::Ne, 0)?,
            arg(2, SeccompCmpOp::Ne, tcp)?,
        ])?);
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_for_this_machine() {
        let program = super::program().unwrap_or_else(|why| panic!("{why}"));
        assert!(program.len() > 40, "{} instructions", program.len());
    }
}
