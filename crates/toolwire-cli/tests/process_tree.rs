//! A command tool's whole process tree: the program's children and grandchildren die with
//! the call, whether it times out, floods its output, is aborted or simply ends; and a
//! background child holding stdout does not keep the call waiting.
//!
//! Each command writes the pids of its processes to a file; the tests then look from the
//! outside, in `/proc`, for any of them still alive.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::stdio::StdioServer;
use crate::common::{binary, manifest, stderr, stdout, toolwire};
use serde_json::json;

/// How long a killed process may take to disappear before a test fails.
const GONE_WITHIN: Duration = Duration::from_secs(5);

/// A manifest of one tool `tree`: `sh -c SCRIPT`, where `$PIDS` in the script is the file
/// the pids go to, and `settings` are added to its [tool.command].
fn tree(script: &str, settings: &str) -> (PathBuf, PathBuf) {
    let pids = common::scratch("pids").join("pids.txt");
    let script = script.replace("$PIDS", &pids.display().to_string());
    let folder = pids.parent().map(|folder| folder.display().to_string()).unwrap_or_default();
    let text = format!(
        "[[tool]]\nname = \"tree\"\n[tool.command]\nargv = [\"sh\", \"-c\", {}]\n{settings}\n\
         [tool.command.sandbox]\nwrite = [{}]\n",
        toml_string(&script),
        toml_string(&folder)
    );
    (manifest(&text), pids)
}

fn toml_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// The pids in `file`, once it holds `count` of them (within a bounded wait).
fn pids(file: &Path, count: usize) -> Vec<u32> {
    let deadline = Instant::now() + GONE_WITHIN;
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let pids: Vec<u32> = text.lines().filter_map(|line| line.trim().parse().ok()).collect();
        if pids.len() >= count {
            return pids;
        }
        assert!(Instant::now() < deadline, "the command wrote {} pids, not {count}", pids.len());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether `pid` is a live process (not a zombie) running `program`.
fn alive(pid: u32, program: &str) -> bool {
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let first = cmdline.split(|&byte| byte == 0).next().unwrap_or_default();
    first.ends_with(program.as_bytes())
}

/// Asserts that every one of `pids` (each running its program) is gone within
/// [`GONE_WITHIN`]; kills the survivors before failing.
fn assert_all_gone(pids: &[(u32, &str)]) {
    let deadline = Instant::now() + GONE_WITHIN;
    loop {
        let survivors: Vec<_> = pids.iter().filter(|(pid, program)| alive(*pid, program)).collect();
        if survivors.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            for (pid, _) in &survivors {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            }
            panic!("still running after the call: {survivors:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

const TWO_SLEEPS: &str =
    "sleep 97 & echo $! >> $PIDS; sleep 98 & echo $! >> $PIDS; echo $$ >> $PIDS; wait";

#[test]
fn regression_a_timeout_left_the_commands_children_running() {
    let (path, file) = tree(TWO_SLEEPS, "timeout = \"1s\"\n");
    toolwire()
        .args(["call", "tree", "-m"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("ran longer than 1s and was killed"));
    let [first, second, shell] = pids(&file, 3)[..] else { panic!("three pids expected") };
    assert_all_gone(&[(first, "sleep"), (second, "sleep"), (shell, "sh")]);
}

#[test]
fn regression_an_output_flood_left_the_commands_children_running() {
    let (path, file) =
        tree("sleep 96 & echo $! >> $PIDS; echo $$ >> $PIDS; exec yes", "output_limit = 1000\n");
    toolwire()
        .args(["call", "tree", "-m"])
        .arg(&path)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("wrote more than 1000 bytes"));
    let [sleep, flood] = pids(&file, 2)[..] else { panic!("two pids expected") };
    assert_all_gone(&[(sleep, "sleep"), (flood, "yes")]);
}

#[test]
fn regression_an_aborted_call_left_the_commands_children_running() {
    let (path, file) = tree(TWO_SLEEPS, "");
    let mut server = StdioServer::start(&path);
    server.call(7, "tree", json!({}));
    let [first, second, shell] = pids(&file, 3)[..] else { panic!("three pids expected") };
    let cancel = json!({"requestId": 7, "reason": "the test cancels it"});
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}));
    assert_all_gone(&[(first, "sleep"), (second, "sleep"), (shell, "sh")]);
}

#[test]
fn regression_an_interrupted_call_left_the_commands_children_running() {
    let (path, file) = tree(TWO_SLEEPS, "");
    let child = Command::new(binary())
        .args(["call", "tree", "-m"])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start toolwire: {e}"));
    let [first, second, shell] = pids(&file, 3)[..] else { panic!("three pids expected") };
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(stderr(&output).contains("interrupted"), "{}", stderr(&output));
    assert_all_gone(&[(first, "sleep"), (second, "sleep"), (shell, "sh")]);
}

#[test]
fn regression_a_background_child_holding_stdout_made_a_finished_call_time_out() {
    let (path, file) = tree("sleep 95 & echo $! >> $PIDS; echo hi", "timeout = \"20s\"\n");
    let started = Instant::now();
    let output = toolwire()
        .args(["call", "tree", "-m"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "hi\n");
    assert!(took < Duration::from_secs(5), "the call waited for the background child: {took:?}");
    // The background child is killed with the rest of the group once the program is done.
    let [sleep] = pids(&file, 1)[..] else { panic!("one pid expected") };
    assert_all_gone(&[(sleep, "sleep")]);
}

#[test]
fn the_output_left_in_the_pipes_when_the_program_exits_is_kept() {
    // More than a pipe holds: some of it is still in the pipe when `seq` exits, and the
    // background `sleep` keeps the pipe open past that.
    let (path, file) = tree("sleep 93 & echo $! >> $PIDS; exec seq 1 30000", "");
    let output = toolwire()
        .args(["call", "tree", "-m"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let lines: Vec<&str> =
        std::str::from_utf8(&output.stdout).unwrap_or_default().lines().collect();
    assert_eq!((lines.len(), lines.last().copied()), (30000, Some("30000")));
    let [sleep] = pids(&file, 1)[..] else { panic!("one pid expected") };
    assert_all_gone(&[(sleep, "sleep")]);
}
