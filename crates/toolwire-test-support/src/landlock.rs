//! A kernel without Landlock, for one process: its Landlock system calls fail with `ENOSYS`,
//! as a kernel built without Landlock answers them. The tests of toolwire-process and of
//! toolwire-cli run it in a child run of their own test binary (the filter is inherited by
//! every program that child starts).

/// Denies this process, and whatever it starts, every Landlock system call.
///
/// # Panics
///
/// When the filter cannot be made or installed: the test cannot do what it says then.
pub fn deny_landlock() {
    use nix::libc;
    use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};
    let arch = TargetArch::try_from(std::env::consts::ARCH).expect("a seccomp architecture");
    let calls = [
        libc::SYS_landlock_create_ruleset,
        libc::SYS_landlock_add_rule,
        libc::SYS_landlock_restrict_self,
    ];
    let rules = calls.into_iter().map(|call| (call, Vec::new())).collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .expect("a filter");
    let program = BpfProgram::try_from(filter).expect("a program");
    nix::sys::prctl::set_no_new_privs().expect("no_new_privs");
    seccompiler::apply_filter_all_threads(&program).expect("the filter is installed");
}
