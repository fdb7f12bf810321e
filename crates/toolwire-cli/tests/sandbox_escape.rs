//! The sandbox as a manifest user gets it: a command tool with no `sandbox` table, called by
//! `toolwire call` with arguments an attacker chose, cannot write outside its folder, read a
//! secret outside its read list, or reach the network by TCP or UDP. Each escape fails the
//! call (exit 1) and is checked from the outside too.

use std::net::{TcpListener, UdpSocket};
use std::time::Duration;

use crate::common::{manifest, scratch, stderr, toolwire};
use toolwire_test_support::landlock::deny_landlock;

/// A tool that runs a Python one-liner the model chose: the worst case of a command tool.
const PYTHON_TOOL: &str = r#"
[[tool]]
name = "py"
description = "Run a line of Python"
parameters = { type = "object", properties = { code = { type = "string" } }, required = ["code"] }
[tool.command]
argv = ["/usr/bin/python3", "-c", "{code}"]
# `-c` takes the next element as the program, whatever it starts with.
allow_option_values = ["code"]
timeout = "20s"
"#;

/// `toolwire call py` with `code`, from the manifest `text`; its exit code and stderr.
fn call(text: &str, code: &str) -> (Option<i32>, String) {
    let args = serde_json::json!({ "code": code }).to_string();
    let output = toolwire()
        .args(["call", "py", "--yes", "--args", &args, "-m"])
        .arg(manifest(text))
        .output()
        .unwrap_or_else(|error| panic!("toolwire runs: {error}"));
    (output.status.code(), stderr(&output))
}

#[test]
fn a_model_cannot_write_outside_the_tools_folder() {
    let outside = scratch("outside").join("planted");
    let code = format!("open({:?}, 'w').write('x')", outside.display().to_string());
    let (exit, stderr) = call(PYTHON_TOOL, &code);
    assert_eq!(exit, Some(1), "{stderr}");
    // Read-only in the tool's view of the files, and refused by Landlock beneath that.
    let refused = ["Permission denied", "Read-only file system"];
    assert!(refused.iter().any(|why| stderr.contains(why)), "{stderr}");
    assert!(!outside.exists(), "the file was written outside the sandbox");
}

#[test]
fn a_model_cannot_read_a_secret_outside_the_read_list() {
    let home = scratch("home");
    let secret = home.join(".ssh").join("id_ed25519");
    std::fs::create_dir_all(secret.parent().unwrap_or(&home)).expect("a .ssh folder");
    std::fs::write(&secret, "PRIVATE KEY").expect("a fake key");
    let text =
        format!("{PYTHON_TOOL}[tool.command.sandbox]\nread = [\"/usr\", \"/lib\", \"/etc\"]\n");
    let code = format!("print(open({:?}).read())", secret.display().to_string());
    let (exit, stderr) = call(&text, &code);
    assert_eq!(exit, Some(1), "{stderr}");
    assert!(stderr.contains("PermissionError"), "{stderr}");
    assert!(!stderr.contains("PRIVATE KEY"), "{stderr}");
}

#[test]
fn a_model_cannot_reach_a_tcp_listener_or_send_udp() {
    let tcp = TcpListener::bind("127.0.0.1:0").expect("a TCP port");
    tcp.set_nonblocking(true).expect("nonblocking");
    let udp = UdpSocket::bind("127.0.0.1:0").expect("a UDP port");
    udp.set_nonblocking(true).expect("nonblocking");
    let (tcp_port, udp_port) =
        (tcp.local_addr().expect("bound").port(), udp.local_addr().expect("bound").port());
    let connect = format!("import socket; socket.create_connection(('127.0.0.1', {tcp_port}), 2)");
    let (exit, stderr) = call(PYTHON_TOOL, &connect);
    assert_eq!(exit, Some(1), "{stderr}");
    assert!(stderr.contains("PermissionError"), "{stderr}");
    let send = format!(
        "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\
         .sendto(b'exfiltrated', ('127.0.0.1', {udp_port}))"
    );
    let (exit, stderr) = call(PYTHON_TOOL, &send);
    assert_eq!(exit, Some(1), "{stderr}");
    assert!(stderr.contains("PermissionError"), "{stderr}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(tcp.accept().is_err(), "the TCP listener saw a connection");
    assert!(udp.recv(&mut [0u8; 64]).is_err(), "the UDP socket received a datagram");
}

#[test]
fn sandbox_none_opts_out_explicitly() {
    let outside = scratch("opted-out").join("written");
    let text = format!("{PYTHON_TOOL}sandbox = \"none\"\n");
    let code = format!("open({:?}, 'w').write('x')", outside.display().to_string());
    let (exit, stderr) = call(&text, &code);
    assert_eq!(exit, Some(0), "{stderr}");
    assert!(outside.exists());
}

#[test]
fn temporary_folders_left_by_a_killed_parent_are_removed_by_the_next_call() {
    let tmp = scratch("tmpdir");
    let dead = {
        let mut child = std::process::Command::new("true").spawn().expect("true runs");
        let pid = child.id();
        child.wait().expect("true ends");
        pid
    };
    let mut alive = std::process::Command::new("sleep").arg("30").spawn().expect("sleep runs");
    let left = tmp.join(format!("toolwire-call-{dead}-left"));
    let running = tmp.join(format!("toolwire-call-{}-running", alive.id()));
    let victim = scratch("victim");
    std::fs::write(victim.join("keep"), "precious").expect("a file to keep");
    let link = tmp.join(format!("toolwire-call-{dead}-link"));
    for folder in [&left, &running] {
        std::fs::create_dir_all(folder.join("inside")).expect("a leftover folder");
    }
    std::os::unix::fs::symlink(&victim, &link).expect("a symlink");

    let output = toolwire()
        .env("TMPDIR", &tmp)
        .args(["call", "py", "--yes", "--args", r#"{"code": "print(1)"}"#, "-m"])
        .arg(manifest(PYTHON_TOOL))
        .output()
        .expect("toolwire runs");
    let _ = alive.kill();
    let _ = alive.wait();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!left.exists(), "the dead parent's folder is still there");
    assert!(running.exists(), "a running parent's folder was removed");
    assert!(victim.join("keep").exists(), "the sweep followed a symlink");
}

/// Set in the child run of the check test below: the manifest to check.
const NO_LANDLOCK_ENV: &str = "TOOLWIRE_CLI_TEST_NO_LANDLOCK";

#[test]
fn check_warns_when_this_machine_cannot_enforce_a_tools_sandbox() {
    let manifest = manifest(PYTHON_TOOL);
    let exe = std::env::current_exe().expect("the test knows its path");
    let output = std::process::Command::new(exe)
        .args(["--exact", "sandbox_escape::child_checks_without_landlock", "--nocapture"])
        .env(NO_LANDLOCK_ENV, &manifest)
        .output()
        .expect("the child run starts");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}\n{}", String::from_utf8_lossy(&output.stderr));
    let warning = printed
        .lines()
        .find(|line| line.starts_with("warning: \"py\": every call will fail here"))
        .unwrap_or_else(|| panic!("no warning about the sandbox: {printed}"));
    assert!(warning.contains("Landlock"), "{warning}");
    assert!(warning.contains("sandbox = \"none\""), "{warning}");
    assert!(printed.contains("0 errors, 1 warning"), "{printed}");
}

/// Set in the child run of the MCP server test below: the manifest whose server it calls.
const NO_LANDLOCK_SERVER_ENV: &str = "TOOLWIRE_CLI_TEST_NO_LANDLOCK_SERVER";

/// An MCP server that toolwire starts over stdio gets the default sandbox; where the kernel
/// cannot enforce it, the call fails closed, naming what is missing and the opt-out, and the
/// server's program never runs.
#[test]
fn an_mcp_server_fails_closed_where_this_machine_cannot_sandbox_it() {
    let marker = scratch("mcp-server").join("ran");
    let manifest = manifest(&format!(
        "[mcp_servers.srv]\ncommand = \"sh\"\nargs = [\"-c\", \"touch {}; sleep 5\"]\n\
         accept_new = true\n",
        marker.display()
    ));
    let exe = std::env::current_exe().expect("the test knows its path");
    let output = std::process::Command::new(exe)
        .args(["--exact", "sandbox_escape::child_calls_a_server_without_landlock", "--nocapture"])
        .env(NO_LANDLOCK_SERVER_ENV, &manifest)
        .output()
        .expect("the child run starts");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}\n{}", String::from_utf8_lossy(&output.stderr));
    let line = printed
        .lines()
        .find(|line| line.starts_with("exit "))
        .unwrap_or_else(|| panic!("the child printed no exit code: {printed}"));
    assert_ne!(line, "exit Some(0)", "{printed}");
    assert!(printed.contains("mcp server \"srv\" cannot start in its sandbox"), "{printed}");
    assert!(printed.contains("Landlock") && printed.contains("sandbox = \"none\""), "{printed}");
    assert!(!marker.exists(), "the server's program ran outside its sandbox");
}

/// The child half of the test above: without Landlock, calls a tool of the server.
#[test]
fn child_calls_a_server_without_landlock() {
    let Some(manifest) = std::env::var_os(NO_LANDLOCK_SERVER_ENV) else { return };
    deny_landlock();
    let output = toolwire()
        .args(["call", "srv__anything", "--args", "{}", "-m"])
        .arg(&manifest)
        .output()
        .expect("call runs");
    println!("exit {:?}\n{}", output.status.code(), stderr(&output));
}

/// The child half of the check test above: denies itself Landlock (`ENOSYS`, as a kernel without
/// it answers), then runs `toolwire check`, which inherits the filter. Does nothing in a
/// normal run.
#[test]
fn child_checks_without_landlock() {
    let Some(manifest) = std::env::var_os(NO_LANDLOCK_ENV) else { return };
    deny_landlock();
    let output = toolwire().arg("check").arg("-m").arg(&manifest).output().expect("check runs");
    println!("{}", stderr(&output));
}
