//! `toolwire call --call-id` after a crash: a call whose process died mid-run reports an
//! unknown outcome (exit 4), unless its tool is idempotent, which runs again.

use crate::common;

use std::future::IntoFuture;
use std::time::Duration;

use crate::common::{example, stderr, stdout, toolwire};
use serde_json::json;
use toolwire::{Registry, Tool, ToolResult};
use toolwire_journal::{Journal, JournalOptions};

/// A tool that never finishes, named like one of the example manifest's.
fn hanging(name: &str) -> Tool {
    Tool::define(name)
        .execute(|_, _| async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            ToolResult::ok(json!(null), "never")
        })
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Starts each call in a process of its own making, journaled with a short lease, and lets
/// that process die while the handlers run: the journal keeps "started", with no outcome.
fn crash_during(journal: &std::path::Path, calls: &[(&str, serde_json::Value, &str)]) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    runtime.block_on(async {
        let url = format!("sqlite:{}", journal.display());
        let options = JournalOptions::default().lease(Duration::from_millis(100));
        let journal = Journal::open_with(&url, options).await.unwrap_or_else(|e| panic!("{e}"));
        let mut registry = Registry::builder().approval_key(journal.approval_key());
        let mut tools: Vec<&str> = calls.iter().map(|(tool, _, _)| *tool).collect();
        tools.dedup();
        for tool in tools {
            registry = registry.register(hanging(tool));
        }
        let registry = registry.seal().unwrap_or_else(|e| panic!("{e}"));
        for (tool, arguments, call_id) in calls {
            let call = journal.invoke(&registry, tool, arguments.clone()).call_id(*call_id);
            tokio::spawn(call.into_future());
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    });
    runtime.shutdown_background();
    // The dead process's leases lapse.
    std::thread::sleep(Duration::from_millis(300));
}

#[test]
fn a_call_cut_off_by_a_crash_reports_an_unknown_outcome_unless_the_tool_is_idempotent() {
    let journal = common::scratch("crash").join("journal.sqlite");
    crash_during(
        &journal,
        &[("utc_time", json!({}), "t1"), ("echo", json!({"message": "again"}), "e1")],
    );
    let call = |args: &[&str]| {
        toolwire()
            .args(args)
            .arg("--journal")
            .arg(&journal)
            .arg("-m")
            .arg(example())
            .output()
            .unwrap_or_else(|e| panic!("toolwire did not run: {e}"))
    };

    // `utc_time` is not idempotent: nobody knows whether it ran, so it does not run again.
    let unknown = call(&["call", "utc_time", "--call-id", "t1"]);
    assert_eq!(unknown.status.code(), Some(4), "{}", stderr(&unknown));
    let said = format!("{}{}", stdout(&unknown), stderr(&unknown));
    assert!(said.contains("is unknown") && said.contains("not idempotent"), "{said}");
    let again = call(&["call", "utc_time", "--call-id", "t1"]);
    assert_eq!(again.status.code(), Some(4), "it stays unknown: {}", stderr(&again));

    // `echo` is idempotent: it runs again, once, and its result is recorded.
    let rerun = call(&["call", "echo", "--args", r#"{"message": "again"}"#, "--call-id", "e1"]);
    assert_eq!(rerun.status.code(), Some(0), "{}", stderr(&rerun));
    assert_eq!(stdout(&rerun), "again\n");
}

/// The command a message names between backticks, starting with `toolwire resolve` and
/// ending in `verdict`, as its arguments.
fn named_command(message: &str, verdict: &str) -> Vec<String> {
    let command = message
        .split('`')
        .find(|part| part.starts_with("toolwire resolve") && part.contains(verdict))
        .unwrap_or_else(|| panic!("no `toolwire resolve ... {verdict}` in {message}"));
    command.split_whitespace().skip(1).map(str::to_owned).collect()
}

#[test]
fn regression_no_command_resolved_an_unknown_outcome() {
    let journal = common::scratch("resolve").join("journal.sqlite");
    let calls = [
        ("utc_time", json!({}), "ran"),
        ("utc_time", json!({}), "broke"),
        ("utc_time", json!({}), "never"),
    ];
    crash_during(&journal, &calls);
    let toolwire_at = |args: &[&str]| {
        toolwire()
            .args(args)
            .arg("--journal")
            .arg(&journal)
            .arg("-m")
            .arg(example())
            .output()
            .unwrap_or_else(|e| panic!("toolwire did not run: {e}"))
    };
    let unknown = toolwire_at(&["call", "utc_time", "--call-id", "ran"]);
    assert_eq!(unknown.status.code(), Some(4), "{}", stderr(&unknown));
    for id in ["broke", "never"] {
        let unknown = toolwire_at(&["call", "utc_time", "--call-id", id]);
        assert_eq!(unknown.status.code(), Some(4), "{}", stderr(&unknown));
    }

    // The message names the exact command, which settles the call when run as it is.
    let resolve = named_command(&stderr(&unknown), "--succeeded");
    assert!(resolve.contains(&journal.display().to_string()), "{resolve:?}");
    let resolved = toolwire().args(&resolve).output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resolved.status.code(), Some(0), "{}", stderr(&resolved));
    let replay = toolwire_at(&["call", "utc_time", "--call-id", "ran"]);
    assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
    assert_eq!(stdout(&replay), "it succeeded (resolved by hand)\n");

    // Took effect and failed: later calls return that failure.
    let failed = toolwire_at(&["resolve", "broke", "--failed", "--text", "the clock broke"]);
    assert_eq!(failed.status.code(), Some(0), "{}", stderr(&failed));
    let replay = toolwire_at(&["call", "utc_time", "--call-id", "broke"]);
    assert_eq!(replay.status.code(), Some(1), "{}", stderr(&replay));
    assert!(stderr(&replay).contains("the clock broke"), "{}", stderr(&replay));

    // Did not run: the next call runs it.
    let not_run = toolwire_at(&["resolve", "never", "--did-not-run"]);
    assert_eq!(not_run.status.code(), Some(0), "{}", stderr(&not_run));
    let rerun = toolwire_at(&["call", "utc_time", "--call-id", "never"]);
    assert_eq!(rerun.status.code(), Some(0), "{}", stderr(&rerun));
    assert!(stdout(&rerun).ends_with("Z\n"), "the date ran: {}", stdout(&rerun));

    // Nothing else is resolved: a completed call, or an id the journal never saw.
    let again = toolwire_at(&["resolve", "ran", "--did-not-run"]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(stderr(&again).contains("is completed, not of unknown outcome"), "{}", stderr(&again));
    let nobody = toolwire_at(&["resolve", "nobody", "--succeeded"]);
    assert_eq!(nobody.status.code(), Some(2), "{}", stderr(&nobody));
    assert!(
        stderr(&nobody).contains("the journal holds no call \"nobody\""),
        "{}",
        stderr(&nobody)
    );
    let no_verdict = toolwire_at(&["resolve", "ran"]);
    assert_eq!(no_verdict.status.code(), Some(2), "{}", stderr(&no_verdict));
}

/// Starts `toolwire call slow --call-id ID` with `lease` (as a flag, or through the
/// environment), and kills it with SIGKILL once its command runs: a crash. Returns the pid
/// of the command, which outlives it.
fn crash_a_toolwire_call(
    journal: &std::path::Path,
    manifest: &std::path::Path,
    pids: &std::path::Path,
    lease: (&str, &str),
) -> u32 {
    let mut command = std::process::Command::new(common::binary());
    command
        .args(["call", "slow", "--call-id", "c1", "--journal"])
        .arg(journal)
        .arg("-m")
        .arg(manifest);
    match lease {
        ("flag", value) => command.args(["--lease", value]),
        (_, value) => command.env("TOOLWIRE_LEASE", value),
    };
    let mut child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start toolwire: {e}"));
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let pid = loop {
        let text = std::fs::read_to_string(pids).unwrap_or_default();
        if let Some(pid) = text.lines().next().and_then(|line| line.trim().parse().ok()) {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_file(pids);
    pid
}

#[test]
fn regression_after_a_crash_exit_4_took_the_30s_default_lease() {
    for (how, value) in [("flag", "1s"), ("env", "1s")] {
        let journal = common::scratch("lease").join("journal.sqlite");
        let pids = common::scratch("lease-pids").join("pids.txt");
        let manifest = common::manifest(&format!(
            "[[tool]]\nname = \"slow\"\n[tool.command]\nargv = [\"sh\", \"-c\", \"echo $$ > {}; exec sleep 60\"]\n\
             [tool.command.sandbox]\nwrite = [{:?}]\n",
            pids.display(),
            pids.parent().map(|folder| folder.display().to_string()).unwrap_or_default()
        ));
        let orphan = crash_a_toolwire_call(&journal, &manifest, &pids, (how, value));
        let started = std::time::Instant::now();
        let mut again = toolwire();
        again
            .args(["call", "slow", "--call-id", "c1", "--journal"])
            .arg(&journal)
            .arg("-m")
            .arg(&manifest);
        match how {
            "flag" => again.args(["--lease", value]),
            _ => again.env("TOOLWIRE_LEASE", value),
        };
        let output = again.output().unwrap_or_else(|e| panic!("{e}"));
        let took = started.elapsed();
        let _ = std::process::Command::new("kill").args(["-9", &orphan.to_string()]).status();
        assert_eq!(output.status.code(), Some(4), "{how}: {}", stderr(&output));
        assert!(took < Duration::from_secs(10), "{how}: exit 4 took {took:?}");
        let said = stderr(&output);
        assert!(
            said.contains("waiting for it to finish, or for its lease to lapse (1s"),
            "{how}: {said}"
        );
    }
}

#[test]
fn a_bad_lease_is_a_usage_error() {
    toolwire()
        .args(["log", "--lease", "soon"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--lease"));
    toolwire()
        .args(["log", "--lease", "0s"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("longer than zero"));
    toolwire()
        .args(["log"])
        .env("TOOLWIRE_LEASE", "soon")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("invalid TOOLWIRE_LEASE \"soon\""));
}
