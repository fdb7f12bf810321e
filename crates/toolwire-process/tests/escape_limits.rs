//! Escapes through resources, privileges and processes: a fork bomb, a huge allocation, a
//! spinning CPU, a setuid binary, and a grandchild that tries to outlive the call.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{PYTHON, folder, run, sandbox, text};
use toolwire_process::sandbox::User;

/// The live processes (zombies left out) whose command line contains `marker`, as the host
/// sees them: a sandboxed program sees only its own PID namespace, whose numbers mean nothing
/// here.
fn alive(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).replace('\0', " ").contains(marker)
                && !status.is_empty()
                && !status.contains("State:\tZ")
        })
        .collect()
}

/// A `sleep` duration no other process uses: its command line marks this test's processes.
fn unique_sleep(seconds: u32) -> String {
    format!("{seconds}.{}{:04}", std::process::id(), fastrand_like())
}

/// A number that differs between calls in one process.
fn fastrand_like() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[test]
fn a_fork_bomb_ends_at_the_process_limit() {
    let work = folder();
    // Bounded for the shared machine: every child sleeps 5 s, and there are at most 200.
    let sleep = unique_sleep(5);
    let script = format!("for i in $(seq 200); do sleep {sleep} & echo $! >> pids; done; wait");
    let policy = sandbox(|policy| policy.limits.processes = Some(32));
    let started = Instant::now();
    let result = run(policy, work.path(), &["sh", "-c", &script]);
    assert!(!result.is_success(), "the bomb ran to its end: {}", text(&result));
    assert!(text(&result).to_lowercase().contains("fork"), "{}", text(&result));
    let pids = std::fs::read_to_string(work.path().join("pids")).unwrap_or_default();
    assert!(pids.lines().count() < 32, "{} processes started", pids.lines().count());
    assert!(started.elapsed() < Duration::from_secs(4), "the bomb was not stopped at once");
    assert!(alive(&sleep).is_empty(), "the bomb's children outlived the call");
    let usable = std::process::Command::new("true").status();
    assert!(usable.is_ok_and(|status| status.success()), "the machine cannot start a process");
}

#[test]
fn an_allocation_past_the_address_space_limit_fails() {
    let work = folder();
    let script = "b = bytearray(4 * 1024**3); open('marker', 'w').write('allocated')";
    let policy = sandbox(|policy| policy.limits.address_space = Some(512 * 1024 * 1024));
    let result = run(policy, work.path(), &[PYTHON, "-c", script]);
    assert!(!result.is_success(), "4 GiB were allocated: {}", text(&result));
    assert!(text(&result).contains("MemoryError"), "{}", text(&result));
    assert!(!work.path().join("marker").exists());
}

#[test]
fn a_spinning_cpu_is_killed_at_its_cpu_limit() {
    let work = folder();
    let policy = sandbox(|policy| policy.limits.cpu_seconds = Some(1));
    let started = Instant::now();
    let result = run(policy, work.path(), &["sh", "-c", "while :; do :; done"]);
    assert!(!result.is_success());
    assert!(text(&result).contains("SIGXCPU"), "{}", text(&result));
    assert!(started.elapsed() < Duration::from_secs(5), "it spun for {:?}", started.elapsed());
}

#[test]
fn a_file_past_the_file_size_limit_is_cut() {
    let work = folder();
    let policy = sandbox(|policy| policy.limits.file_size = Some(1024 * 1024));
    let result = run(policy, work.path(), &["sh", "-c", "head -c 10485760 /dev/zero > big"]);
    assert!(!result.is_success(), "{}", text(&result));
    let size = std::fs::metadata(work.path().join("big")).map(|meta| meta.len()).unwrap_or(0);
    assert!(size <= 1024 * 1024, "the file grew to {size} bytes");
}

/// A setuid-root copy of `id` in a folder that `nobody` can reach.
fn setuid_id(folder: &Path) -> std::path::PathBuf {
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|error| panic!("{error}"));
    let id = folder.join("id");
    std::fs::copy("/usr/bin/id", &id).unwrap_or_else(|error| panic!("{error}"));
    std::fs::set_permissions(&id, std::fs::Permissions::from_mode(0o4755))
        .unwrap_or_else(|error| panic!("{error}"));
    id
}

#[test]
fn a_setuid_binary_gains_no_privileges() {
    assert!(nix::unistd::geteuid().is_root(), "this test makes a setuid-root binary: run as root");
    let work = folder();
    let id = setuid_id(work.path());
    // Without the sandbox, nobody running it becomes root: the binary is a real escape.
    let control = std::process::Command::new(&id)
        .arg("-u")
        .uid(User::NOBODY.uid)
        .gid(User::NOBODY.gid)
        .output()
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(String::from_utf8_lossy(&control.stdout).trim(), "0", "the control is not setuid");
    let policy = sandbox(|policy| policy.user = Some(User::NOBODY));
    let result = run(policy, work.path(), &[&id.display().to_string(), "-u"]);
    assert!(result.is_success(), "{}", text(&result));
    assert_eq!(text(&result), "65534", "the setuid binary ran as root under the sandbox");
}

#[test]
fn a_grandchild_that_leaves_the_process_group_dies_with_the_call() {
    let work = folder();
    let sleep = unique_sleep(60);
    let script = format!(
        "setsid sleep {sleep} & echo $! > pids; (setsid sleep {sleep} &); sleep 0.2; pgrep -f 'sleep {sleep}' >> pids"
    );
    let result = run(sandbox(|_| {}), work.path(), &["sh", "-c", &script]);
    assert!(result.is_success(), "{}", text(&result));
    let pids = work.path().join("pids");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !alive(&sleep).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = alive(&sleep);
    for pid in &left {
        let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(left.is_empty(), "outlived the call: {left:?}");
    let written = std::fs::read_to_string(&pids).unwrap_or_default();
    assert!(written.lines().count() >= 2, "the grandchildren did not start: {written:?}");
}
