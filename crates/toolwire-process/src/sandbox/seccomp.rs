//! The seccomp filters of a sandbox: what Landlock and the namespaces leave open.
//!
//! - **Sockets** (unless the network is on): Landlock's network rules cover TCP `bind` and
//!   `connect` only. Without this filter a program with the network off could still send UDP
//!   (a DNS query carries any data it likes), open a raw or packet socket, talk netlink, or
//!   reach a Unix socket outside its folders, such as an SSH agent's. `socket` may make only
//!   TCP sockets over IPv4 and IPv6, which Landlock then governs; `socketpair` may make only
//!   stream and sequenced-packet pairs (a datagram pair can `sendto` any socket path);
//!   `io_uring_setup` is refused, since its operations could make sockets without `socket`.
//!   These fail with `EACCES`.
//! - **Always**, failing with `EPERM`: the kernel keyrings (`keyctl`, `add_key`,
//!   `request_key`), which hold secrets of the whole session; terminal injection (`TIOCSTI`,
//!   `TIOCLINUX`); setting the setuid or setgid bit (`chmod` and its kin, and a file created
//!   with either), which would leave a binary that runs as toolwire's user for whoever runs
//!   it; and new namespaces (`unshare`, `setns`, `clone` with a namespace flag), the kernel's
//!   widest surface for a process with no capabilities.
//! - **Always**, failing with `ENOSYS` so that the C library falls back to the calls above,
//!   which the filter can read: `clone3` and `openat2`, whose flags sit in memory a filter
//!   cannot see.
//! - A call of another architecture (such as i386's `int 0x80` on x86-64) kills the process.
//!
//! On x86-64, every system call of the x32 ABI (numbers with bit 30 set) is refused too, with
//! `EACCES`, before the rules above are looked at: on a kernel built with x32 support, its
//! calls would otherwise be a second door the rules do not name.
//!
//! The program is written by hand ([`asm`]): one pass over the call's number, then a short
//! test of the arguments, about 70 instructions, where a rule-by-rule compiler wrote some 600
//! that the kernel took a quarter of a millisecond to load at every call.

mod asm;
mod program;

/// Applies the main filter to this process, which must have `no_new_privs` set; the socket
/// rules only when `sockets` is true (the network is not on). It leaves `openat2`, which the
/// launcher still uses, to [`seal`].
///
/// # Errors
///
/// A message saying why the filter could not be made or installed.
pub(crate) fn restrict(sockets: bool) -> Result<(), String> {
    apply(&program::filter(sockets)?)
}

/// Applies the last filter: `clone3` and `openat2` fail with `ENOSYS`.
///
/// # Errors
///
/// A message saying why the filter could not be made or installed.
pub(crate) fn seal() -> Result<(), String> {
    apply(&program::seal()?)
}

fn apply(program: &[seccompiler::sock_filter]) -> Result<(), String> {
    seccompiler::apply_filter(program)
        .map_err(|error| format!("cannot install the seccomp filter: {error}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filters_assemble_for_this_machine() {
        for sockets in [true, false] {
            let program = super::program::filter(sockets).unwrap_or_else(|why| panic!("{why}"));
            assert!(program.len() < 100, "{} instructions", program.len());
        }
        assert!(super::program::seal().is_ok());
    }
}
