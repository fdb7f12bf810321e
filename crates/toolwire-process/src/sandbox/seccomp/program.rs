//! The filter's program: one pass over the call's number, then a short test of its
//! arguments for the calls that need one.

use nix::libc;
use seccompiler::sock_filter;

use super::asm::{ARCH_OFFSET, Asm, NR_OFFSET, To};

/// The architecture this filter is written for, as `linux/audit.h` names it.
#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xc000_00b7;

const ALLOW: u32 = 0x7fff_0000;
const KILL_PROCESS: u32 = 0x8000_0000;
const ERRNO: u32 = 0x0005_0000;
/// The x32 ABI's bit in a call's number.
const X32_BIT: u32 = 0x4000_0000;
/// The mask of a socket type's kind (`SOCK_NONBLOCK` and `SOCK_CLOEXEC` are flags above it).
const TYPE_MASK: u32 = 0xf;
/// The bits of a mode that make a file run as its owner or group.
const SET_ID: u32 = libc::S_ISUID | libc::S_ISGID;
/// The flags of `open` that make a file, whose mode is then read (`O_CREAT`, `__O_TMPFILE`).
const CREATE: u32 = libc::O_CREAT as u32 | 0o2000_0000;
/// The namespace flags of `clone` and `unshare` (`CLONE_NEWTIME` is `0x80`).
const NAMESPACES: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32
    | 0x80;

/// The calls refused outright, with the errno each fails with.
fn refused(sockets: bool) -> Vec<(libc::c_long, &'static str)> {
    let mut calls = vec![
        (libc::SYS_keyctl, "eperm"),
        (libc::SYS_add_key, "eperm"),
        (libc::SYS_request_key, "eperm"),
        (libc::SYS_setns, "eperm"),
        (libc::SYS_clone3, "enosys"),
    ];
    if sockets {
        calls.push((libc::SYS_io_uring_setup, "eacces"));
    }
    calls
}

/// The calls whose arguments are tested, with the test's label.
fn tested(sockets: bool) -> Vec<(libc::c_long, &'static str)> {
    let mut calls = vec![
        (libc::SYS_ioctl, "ioctl"),
        (libc::SYS_fchmod, "mode1"),
        (libc::SYS_fchmodat, "mode2"),
        (libc::SYS_fchmodat2, "mode2"),
        (libc::SYS_mknodat, "mode2"),
        (libc::SYS_openat, "open2"),
        (libc::SYS_unshare, "namespaces"),
        (libc::SYS_clone, "namespaces"),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        (libc::SYS_chmod, "mode1"),
        (libc::SYS_creat, "mode1"),
        (libc::SYS_mknod, "mode1"),
        (libc::SYS_open, "open1"),
    ]);
    if sockets {
        calls.extend([(libc::SYS_socket, "socket"), (libc::SYS_socketpair, "socketpair")]);
    }
    calls
}

/// The filter, with the socket rules when `sockets` (the network is not on).
///
/// # Errors
///
/// When the program cannot be assembled (a bug, which the tests catch).
pub(super) fn filter(sockets: bool) -> Result<Vec<sock_filter>, String> {
    let mut asm = Asm::default();
    asm.load(ARCH_OFFSET).equals(ARCH, To::Next, To::Label("kill"));
    asm.load(NR_OFFSET);
    if cfg!(target_arch = "x86_64") {
        asm.any_of(X32_BIT, To::Label("eacces"), To::Next);
    }
    for (call, label) in refused(sockets).into_iter().chain(tested(sockets)) {
        asm.equals(call as u32, To::Label(label), To::Next);
    }
    asm.ret(ALLOW);
    arguments(&mut asm, sockets);
    for (label, action) in [
        ("allow", ALLOW),
        ("eperm", ERRNO | libc::EPERM as u32),
        ("eacces", ERRNO | libc::EACCES as u32),
        ("enosys", ERRNO | libc::ENOSYS as u32),
        ("kill", KILL_PROCESS),
    ] {
        asm.label(label).ret(action);
    }
    asm.finish()
}

/// The last filter, applied once the launcher no longer needs them: `clone3` (whose flags a
/// filter cannot read, so that `clone`, which the main filter reads, is used instead) and
/// `openat2` (whose mode it cannot read) fail with `ENOSYS`, as on a kernel without them.
///
/// # Errors
///
/// When the program cannot be assembled (a bug, which the tests catch).
pub(super) fn seal() -> Result<Vec<sock_filter>, String> {
    let mut asm = Asm::default();
    asm.load(ARCH_OFFSET).equals(ARCH, To::Next, To::Label("kill"));
    asm.load(NR_OFFSET);
    asm.equals(libc::SYS_clone3 as u32, To::Label("enosys"), To::Next);
    asm.equals(libc::SYS_openat2 as u32, To::Label("enosys"), To::Next);
    asm.ret(ALLOW);
    asm.label("enosys").ret(ERRNO | libc::ENOSYS as u32);
    asm.label("kill").ret(KILL_PROCESS);
    asm.finish()
}

/// The tests of the arguments, each under its label.
fn arguments(asm: &mut Asm, sockets: bool) {
    let (allow, eperm, eacces) = (To::Label("allow"), To::Label("eperm"), To::Label("eacces"));
    // Terminal injection: `TIOCSTI` and `TIOCLINUX`.
    asm.label("ioctl").load_arg(1);
    asm.equals(libc::TIOCSTI as u32, eperm, To::Next).equals(libc::TIOCLINUX as u32, eperm, allow);
    // `open` (flags, mode) and `openat` (dirfd, path, flags, mode) making a file.
    asm.label("open1").load_arg(1).any_of(CREATE, To::Label("mode2"), allow);
    asm.label("open2").load_arg(2).any_of(CREATE, To::Label("mode3"), allow);
    // A mode with the setuid or setgid bit, in argument 1, 2 or 3.
    asm.label("mode1").load_arg(1).any_of(SET_ID, eperm, allow);
    asm.label("mode2").load_arg(2).any_of(SET_ID, eperm, allow);
    asm.label("mode3").load_arg(3).any_of(SET_ID, eperm, allow);
    asm.label("namespaces").load_arg(0).any_of(NAMESPACES, eperm, allow);
    if !sockets {
        return;
    }
    // `socket`: TCP over IPv4 or IPv6 only (protocol 0 or `IPPROTO_TCP`).
    asm.label("socket").load_arg(0);
    asm.equals(libc::AF_INET as u32, To::Label("stream"), To::Next);
    asm.equals(libc::AF_INET6 as u32, To::Label("stream"), eacces);
    asm.label("stream").load_arg(1).and(TYPE_MASK);
    asm.equals(libc::SOCK_STREAM as u32, To::Next, eacces);
    asm.load_arg(2).equals(0, allow, To::Next).equals(libc::IPPROTO_TCP as u32, allow, eacces);
    // `socketpair`: no Unix datagram pair, which could `sendto` any socket path.
    asm.label("socketpair").load_arg(0).equals(libc::AF_UNIX as u32, To::Next, allow);
    asm.load_arg(1).and(TYPE_MASK).equals(libc::SOCK_DGRAM as u32, eacces, allow);
}
