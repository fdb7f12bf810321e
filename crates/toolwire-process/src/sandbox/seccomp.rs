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
//! On x86-64, every system call of the x32 ABI (numbers with bit 30 set) is refused too, with
//! `EACCES`, before the rules above are looked at: on a kernel built with x32 support, its
//! `socket` would otherwise be a second door the rules do not name. No x86-64 program needs
//! it.

use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
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
    let rules = BpfProgram::try_from(filter)
        .map_err(|error| format!("cannot compile the seccomp socket filter: {error}"))?;
    Ok(if cfg!(target_arch = "x86_64") {
        x32_guard().into_iter().chain(rules).collect()
    } else {
        rules
    })
}

/// The instructions that refuse the x32 ABI, put before the compiled rules: an x86-64 call
/// whose number has the x32 bit fails with `EACCES`; anything else goes on to the rules, which
/// check the architecture again. The values are those of `linux/filter.h`, `linux/seccomp.h`
/// and `linux/audit.h`.
fn x32_guard() -> [sock_filter; 5] {
    const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JUMP_IF_EQUAL: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JUMP_IF_SET: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
    const RETURN: u16 = 0x06; // BPF_RET | BPF_K
    const ARCH_OFFSET: u32 = 4; // seccomp_data.arch
    const NR_OFFSET: u32 = 0; // seccomp_data.nr
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    [
        op(LOAD_WORD, 0, 0, ARCH_OFFSET),
        // Another architecture: on to the rules (three instructions ahead).
        op(JUMP_IF_EQUAL, 0, 3, AUDIT_ARCH_X86_64),
        op(LOAD_WORD, 0, 0, NR_OFFSET),
        op(JUMP_IF_SET, 0, 1, X32_SYSCALL_BIT),
        op(RETURN, 0, 0, RET_ERRNO | libc::EACCES as u32),
    ]
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
