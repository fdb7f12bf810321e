//! The journaled commands as a new user meets them: `call --call-id` with `--yes`, what `run`
//! and `log` show of a call that waits, and the ids `approvals` takes.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::model::{calling, mock_model, saying};
use crate::common::{example, stderr, stdout, toolwire};

/// A fresh journal's path.
fn fresh_journal() -> PathBuf {
    common::scratch("journal").join("journal.sqlite")
}

/// `toolwire ARGS --journal JOURNAL -m EXAMPLE`, with a key for the mock model.
fn with_journal(journal: &Path, args: &[&str]) -> std::process::Output {
    toolwire()
        .args(args)
        .arg("--journal")
        .arg(journal)
        .arg("-m")
        .arg(example())
        .env("OPENAI_API_KEY", "test-key")
        .output()
        .unwrap_or_else(|e| panic!("toolwire did not run: {e}"))
}

#[test]
fn regression_yes_with_a_call_id_was_ignored() {
    let journal = fresh_journal();
    let call = ["call", "deploy", "--args", r#"{"env": "staging"}"#, "--call-id", "X", "--yes"];
    let first = with_journal(&journal, &call);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(stdout(&first), "deployed to staging\n");
    // Once only: the same id again replays the recorded result.
    let again = with_journal(&journal, &call);
    assert_eq!((again.status.code(), stdout(&again)), (Some(0), stdout(&first)));
    let log = with_journal(&journal, &["log", "--tool", "deploy"]);
    let log = stdout(&log);
    let outcomes: Vec<&str> = log.lines().filter_map(|line| line.rsplit('\t').next()).collect();
    assert_eq!(outcomes, ["pending", "ok"], "{log}");
}

#[test]
fn yes_also_approves_a_call_that_already_waits() {
    let journal = fresh_journal();
    let args = ["call", "deploy", "--args", r#"{"env": "staging"}"#, "--call-id", "W"];
    let parked = with_journal(&journal, &args);
    assert_eq!(parked.status.code(), Some(3), "{}", stderr(&parked));
    let approved = with_journal(&journal, &[&args[..], &["--yes"]].concat());
    assert_eq!(approved.status.code(), Some(0), "{}", stderr(&approved));
    assert_eq!(stdout(&approved), "deployed to staging\n");
}

#[test]
fn a_waiting_journaled_call_names_the_commands_that_settle_it() {
    let journal = fresh_journal();
    let parked = with_journal(
        &journal,
        &["call", "deploy", "--args", r#"{"env": "staging"}"#, "--call-id", "N"],
    );
    assert_eq!(parked.status.code(), Some(3), "{}", stderr(&parked));
    let said = stderr(&parked);
    let journal_flag = format!("--journal {}", journal.display());
    assert!(said.contains(&format!("`toolwire approvals answer N {journal_flag}`")), "{said}");
    let resume =
        format!("`toolwire approvals resume N --manifest {} {journal_flag}`", example().display());
    assert!(said.contains(&resume), "{said}");
}

#[test]
fn regression_log_hid_the_call_id_and_showed_a_waiting_call_as_failed() {
    let journal = fresh_journal();
    let parked = with_journal(
        &journal,
        &["call", "deploy", "--args", r#"{"env": "staging"}"#, "--call-id", "my-deploy-1"],
    );
    assert_eq!(parked.status.code(), Some(3), "{}", stderr(&parked));
    let unjournaled = with_journal(&journal, &["call", "echo", "--args", r#"{"message": "hi"}"#]);
    assert_eq!(unjournaled.status.code(), Some(0));
    let logged = with_journal(
        &journal,
        &["call", "echo", "--args", r#"{"message": "hi"}"#, "--call-id", "e"],
    );
    assert_eq!(logged.status.code(), Some(0));
    let log = with_journal(&journal, &["log"]);
    let lines: Vec<Vec<String>> =
        stdout(&log).lines().map(|line| line.split('\t').map(str::to_owned).collect()).collect();
    // The tool, the call id, the policy step (the deploy asked by the tool's own rule) and
    // the outcome; the principal before it is the local user.
    let tail: Vec<Vec<&str>> = lines
        .iter()
        .map(|fields| {
            [2, 3, 5, 6].iter().filter_map(|&i| fields.get(i).map(String::as_str)).collect()
        })
        .collect();
    assert!(lines.iter().all(|fields| fields[4].starts_with("user ")), "{lines:?}");
    assert_eq!(
        tail,
        [vec!["deploy", "my-deploy-1", "asked", "pending"], vec!["echo", "e", "-", "ok"]],
        "{}",
        stdout(&log)
    );
}

#[test]
fn regression_run_showed_a_call_waiting_for_approval_as_failed() {
    let (url, server) = mock_model(vec![calling("call_9", "deploy", r#"{"env": "staging"}"#)]);
    let journal = fresh_journal();
    let paused = with_journal(
        &journal,
        &["run", "ship it", "--model", "openai:test-model", "--base-url", &url],
    );
    assert_eq!(paused.status.code(), Some(3), "{}", stderr(&paused));
    let said = stderr(&paused);
    assert!(said.contains("⏸ deploy: waiting for approval"), "{said}");
    assert!(!said.contains("✗"), "{said}");
    let _ = server.join();
}

#[test]
fn run_still_marks_a_failed_call_as_failed() {
    let (url, server) =
        mock_model(vec![calling("call_1", "add", r#"{"a": "x", "b": 1}"#), saying("oh well")]);
    let journal = fresh_journal();
    let output =
        with_journal(&journal, &["run", "add", "--model", "openai:test-model", "--base-url", &url]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("✗ add: invalid arguments"), "{}", stderr(&output));
    let _ = server.join();
}

/// The lines of `approvals list`, split into their fields.
fn listed(journal: &Path) -> Vec<Vec<String>> {
    let list = with_journal(journal, &["approvals", "list"]);
    assert_eq!(list.status.code(), Some(0), "{}", stderr(&list));
    stdout(&list).lines().map(|line| line.split('\t').map(str::to_owned).collect()).collect()
}

#[test]
fn regression_approvals_answer_took_a_request_id_and_resume_a_call_id() {
    let journal = fresh_journal();
    let park = |id: &str| {
        let parked = with_journal(
            &journal,
            &["call", "deploy", "--args", r#"{"env": "staging"}"#, "--call-id", id],
        );
        assert_eq!(parked.status.code(), Some(3), "{}", stderr(&parked));
    };
    // By the call's id, both ways.
    park("d7");
    let answered = with_journal(&journal, &["approvals", "answer", "d7"]);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    assert!(
        stderr(&answered).contains("accepted call d7 of \"deploy\" (request apr-"),
        "{}",
        stderr(&answered)
    );
    let resumed = with_journal(&journal, &["approvals", "resume", "d7"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("resuming call d7 of \"deploy\" (request apr-"),
        "{}",
        stderr(&resumed)
    );
    assert_eq!(stdout(&resumed), "deployed to staging\n");

    // By the request's id, both ways.
    park("d8");
    let request = listed(&journal)[0][0].clone();
    let answered = with_journal(&journal, &["approvals", "answer", &request, "--decline"]);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    assert!(
        stderr(&answered).contains(&format!("declined call d8 of \"deploy\" (request {request})"))
    );
    let resumed = with_journal(&journal, &["approvals", "resume", &request]);
    assert!(
        stderr(&resumed).contains(&format!("resuming call d8 of \"deploy\" (request {request})")),
        "{}",
        stderr(&resumed)
    );
    assert_eq!(resumed.status.code(), Some(1), "declined: {}", stderr(&resumed));

    for command in ["answer", "resume"] {
        let nothing = with_journal(&journal, &["approvals", command, "no-such-id"]);
        assert_eq!(nothing.status.code(), Some(2), "{}", stderr(&nothing));
        assert!(stderr(&nothing).contains("\"no-such-id\""), "{}", stderr(&nothing));
    }
}

#[test]
fn a_call_id_shared_by_two_waiting_calls_is_ambiguous() {
    let (url, server) =
        mock_model(vec![calling("same", "deploy", r#"{"env": "staging"}"#), saying("done")]);
    let journal = fresh_journal();
    let parked = with_journal(
        &journal,
        &["call", "deploy", "--args", r#"{"env": "production"}"#, "--call-id", "same"],
    );
    assert_eq!(parked.status.code(), Some(3), "{}", stderr(&parked));
    let paused = with_journal(
        &journal,
        &["run", "ship", "--model", "openai:test-model", "--base-url", &url],
    );
    assert_eq!(paused.status.code(), Some(3), "{}", stderr(&paused));

    for command in ["answer", "resume"] {
        let ambiguous = with_journal(&journal, &["approvals", command, "same"]);
        assert_eq!(ambiguous.status.code(), Some(2), "{}", stderr(&ambiguous));
        let said = stderr(&ambiguous);
        assert!(
            said.contains("\"same\" is the id of 2 waiting calls; give the request's id"),
            "{said}"
        );
        assert_eq!(said.matches("call same of \"deploy\"").count(), 2, "{said}");
    }

    // The run's request, by its id; then the run, resumed through it.
    let lines = listed(&journal);
    let run_line =
        lines.iter().find(|fields| fields.len() == 5).unwrap_or_else(|| panic!("{lines:?}"));
    let (request, run) = (run_line[0].clone(), run_line[4].trim_start_matches("run ").to_owned());
    let answered = with_journal(&journal, &["approvals", "answer", &request]);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    let resumed = with_journal(&journal, &["approvals", "resume", &request]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains(&format!("resuming run {run}, which waits on call same")),
        "{}",
        stderr(&resumed)
    );
    assert!(stdout(&resumed).contains("done"), "{}", stdout(&resumed));
    let _ = server.join();
}
