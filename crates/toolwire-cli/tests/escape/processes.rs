//! Escapes through processes: the host's environment, a process that outlives its call and
//! its host, descriptors the host inherited, signals and limits of processes outside, the
//! kernel's keyrings.

use std::io::Read;
use std::time::{Duration, Instant};

use super::{Case, PY, SH, alive, everyone, folder, outcome, unique};

#[test]
fn regression_a_tool_cannot_read_the_hosts_environment() {
    let secret = unique("sk-secret-api-key");
    for who in everyone() {
        let case = Case::new(who, SH);
        let mut command = case.toolwire();
        command.env("OPENAI_API_KEY", &secret).args(["call", "sh", "--yes", "--args"]);
        let script = "cat /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do cat $f; done; echo; ls /proc";
        command.arg(serde_json::json!({ "script": script }).to_string());
        let outcome = outcome(command.output());
        assert!(
            !outcome.text.contains(&secret),
            "{who:?}: the host's API key was read: {outcome:?}"
        );
    }
}

/// Waits up to `limit` for `done`.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

#[test]
fn regression_a_daemon_dies_with_its_call_even_when_the_host_is_killed() {
    for who in everyone() {
        let case = Case::new(who, SH);
        // The daemon's duration marks it; the script computes it, so that no other command
        // line (toolwire's, the shell's) holds the same text.
        let seed: u64 = unique("0").replace(|c: char| !c.is_ascii_digit(), "").parse().unwrap_or(7);
        let marker = format!("3600.{}", seed + 1);
        let script = format!("setsid sleep 3600.$(({seed} + 1)) & kill -9 $PPID; sleep 30");
        let mut command = case.toolwire();
        command
            .args(["call", "sh", "--yes", "--args"])
            .arg(serde_json::json!({ "script": script }).to_string());
        let mut toolwire = command
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(
            wait_for(Duration::from_secs(10), || !alive(&marker).is_empty()),
            "{who:?}: the daemon never started"
        );
        // As the daemon's own `kill -9 $PPID` would, had it reached its host.
        let _ = toolwire.kill();
        let _ = toolwire.wait();
        let gone = wait_for(Duration::from_secs(5), || alive(&marker).is_empty());
        for pid in alive(&marker) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        assert!(gone, "{who:?}: the daemon outlived its call and its host");
    }
}

#[test]
fn regression_a_tool_cannot_use_a_descriptor_its_host_inherited() {
    for who in everyone() {
        let case = Case::new(who, SH);
        let outside = folder(who, "outside");
        let canary = outside.path().join("canary");
        super::write(who, &canary, "");
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|error| panic!("{error}"));
        let port = listener.local_addr().map(|address| address.port()).unwrap_or_default();
        // The host starts with a file open on 7 and a connected socket on 8, neither
        // close-on-exec, as a careless parent leaves them.
        let wrapper = format!(
            "import os, socket, sys\n\
             f = os.open({c:?}, os.O_WRONLY | os.O_APPEND); os.dup2(f, 7)\n\
             s = socket.create_connection(('127.0.0.1', {port})); os.dup2(s.fileno(), 8)\n\
             os.execv(sys.argv[1], sys.argv[1:])",
            c = canary.display().to_string()
        );
        let script =
            serde_json::json!({ "script": "echo pwned >&7; echo pwned >&8; ls /proc/self/fd" });
        let called =
            case.wrapped(&wrapper, &["call", "sh", "--yes", "--args", &script.to_string()]);
        assert_eq!(std::fs::read_to_string(&canary).unwrap_or_default(), "", "{who:?}: {called:?}");
        let (mut connection, _) = listener.accept().unwrap_or_else(|error| panic!("{error}"));
        connection
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap_or_else(|error| panic!("{error}"));
        let mut received = Vec::new();
        let _ = connection.read_to_end(&mut received);
        assert!(received.is_empty(), "{who:?}: the socket carried {received:?}: {called:?}");
    }
}

#[test]
fn regression_a_tool_cannot_stop_or_limit_a_process_outside() {
    for who in everyone() {
        let case = Case::new(who, SH);
        let mut sleeper = std::process::Command::new("sleep");
        super::run_as(who, sleeper.arg("30"));
        let mut sleeper = sleeper.spawn().unwrap_or_else(|error| panic!("{error}"));
        let pid = sleeper.id();
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
        let attack = case.sh(&format!("kill -STOP {pid}; prlimit --pid {pid} --nofile=5:5"));
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let after = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        assert!(
            !status.contains("State:\tT"),
            "{who:?}: the process outside was stopped: {attack:?}"
        );
        assert_eq!(after, limits, "{who:?}: its limits changed: {attack:?}");
    }
}

#[test]
fn regression_a_tool_cannot_read_a_secret_from_the_kernels_keyrings() {
    let secret = unique("keyring-secret");
    for who in everyone() {
        let case = Case::new(who, PY);
        // The host holds a secret in its user and session keyrings.
        let wrapper = format!(
            "import ctypes, os, sys\n\
             libc = ctypes.CDLL(None, use_errno=True)\n\
             for ring in (-4, -3):\n    \
                 assert libc.syscall(248, b'user', b'toolwire-test', {s:?}.encode(), {n}, ring) > 0, ctypes.get_errno()\n\
             os.execv(sys.argv[1], sys.argv[1:])",
            s = secret,
            n = secret.len()
        );
        let code = "import ctypes\n\
            libc = ctypes.CDLL(None, use_errno=True)\n\
            key = libc.syscall(249, b'user', b'toolwire-test', None, 0)\n\
            buffer = ctypes.create_string_buffer(256)\n\
            print(key, ctypes.get_errno(), libc.syscall(250, 11, key, buffer, 256), buffer.value)";
        let args = serde_json::json!({ "code": code }).to_string();
        let outcome = case.wrapped(&wrapper, &["call", "py", "--yes", "--args", &args]);
        assert!(
            !outcome.text.contains("AssertionError"),
            "{who:?}: the key was not added: {outcome:?}"
        );
        assert!(
            !outcome.text.contains(&secret),
            "{who:?}: the keyring's secret was read: {outcome:?}"
        );
    }
}

#[test]
fn a_tool_cannot_reach_the_hosts_system_v_shared_memory() {
    let key = 0x7457_0000 + (std::process::id() & 0xffff) as i32;
    let code = format!(
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint('SHMGET', libc.shmget({key}, 0, 0), ctypes.get_errno())"
    );
    for who in everyone() {
        let case = Case::new(who, PY);
        // The host's segment, which its user may attach to.
        let wrapper = format!(
            "import ctypes, os, sys\nlibc = ctypes.CDLL(None, use_errno=True)\n\
             shm = libc.shmget({key}, 4096, 0o1666)\nassert shm >= 0, ctypes.get_errno()\n\
             pid = os.fork()\nif pid == 0: os.execv(sys.argv[1], sys.argv[1:])\nos.waitpid(pid, 0)\n\
             libc.shmctl(shm, 0, None)"
        );
        let args = serde_json::json!({ "code": code }).to_string();
        let outcome = case.wrapped(&wrapper, &["call", "py", "--yes", "--args", &args]);
        assert!(
            outcome.text.contains("SHMGET -1 2"),
            "{who:?}: the host's segment was found: {outcome:?}"
        );
    }
}
