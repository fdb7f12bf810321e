//! Two `toolwire serve --http` processes on one PostgreSQL journal, as behind a load balancer
//! on MCP 2026-07-28, where a client has no session and each of its requests may reach either
//! server. A call that needs approval is parked by one server; the client's retry, with the
//! sealed `requestState`, completes it on the other; the same state again, on either, runs
//! nothing. A task started through one is followed through the other, and outlives both; a
//! task whose server is killed mid-call is reported honestly by the next one (failed as
//! outcome unknown, or run again when its tool is idempotent). The PostgreSQL server is a
//! throwaway one the tests start (see `toolwire_test_support::pg`).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;
use crate::common::http::{Served, call_tool, post};
use toolwire_test_support::pg;

/// A `toolwire serve --http` process on a journal.
struct Server(Served);

impl std::ops::Deref for Server {
    type Target = Served;

    fn deref(&self) -> &Served {
        &self.0
    }
}

impl Server {
    fn start(manifest: &Path, journal: &str) -> Self {
        Self::start_with(manifest, journal, &[])
    }

    /// Starts a server with `flags` before the subcommand.
    fn start_with(manifest: &Path, journal: &str, flags: &[&str]) -> Self {
        let flags: Vec<&str> = flags.iter().copied().chain(["--journal", journal]).collect();
        Self(Served::start(manifest, &flags))
    }

    /// A 2026-07-28 `tools/call` of `deploy`, with the retry's fields when given.
    fn call(&self, log: &str, retry: Option<(&str, Value)>) -> Value {
        call_tool(self.port, "deploy", json!({"log": log}), retry)
    }

    /// A 2026-07-28 request from a client that follows tasks: `tools/call` of `tool`
    /// (`name` is the tool), or `tasks/*` (`name` is the task id).
    fn tasks_request(&self, method: &str, name: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
        });
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        post(self.port, (method, name), &body.to_string())
    }

    fn task_status(&self, id: &str) -> Value {
        self.tasks_request("tasks/get", id, json!({"taskId": id}))
    }
}

const MANIFEST: &str = r#"
[[tool]]
name = "deploy"
description = "Deploy, once a human approves; each run adds a line to the log file"
needs_approval = true
parameters = { type = "object", properties = { log = { type = "string" } }, required = ["log"] }
[tool.command]
argv = ["sh", "-c", "echo ran >> \"$1\"; echo deployed", "deploy", "{log}"]
timeout = "10s"
# The log is kept beside the manifest; the sandbox lets the tool write there.
[tool.command.sandbox]
write = ["."]
"#;

fn runs(log: &Path) -> usize {
    std::fs::read_to_string(log).map_or(0, |text| text.lines().count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_postgresql_journal_accept_each_others_request_state_once() {
    let journal = pg::fresh_database("serve_shared").await;
    let manifest = common::manifest(MANIFEST);
    let log = manifest.with_file_name("runs.log");
    let log_text = log.display().to_string();
    let (one, other) = tokio::task::spawn_blocking(move || {
        (Server::start(&manifest, &journal), Server::start(&manifest, &journal))
    })
    .await
    .expect("the servers start");

    let first = one.call(&log_text, None);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert!(result["inputRequests"]["approval"].is_object(), "{first}");
    let state = result["requestState"].as_str().expect("a requestState").to_owned();
    assert_eq!(runs(&log), 0, "nothing runs before the approval");

    let accept = || json!({"approval": {"action": "accept", "content": {}}});
    let done = other.call(&log_text, Some((&state, accept())));
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("deployed"), "{done}");
    assert_eq!(runs(&log), 1);

    for server in [&one, &other] {
        let replayed = server.call(&log_text, Some((&state, accept())));
        assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
        let message = replayed["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("already used"), "{replayed}");
    }
    assert_eq!(runs(&log), 1, "a state spent on one server is spent on both");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_on_different_journals_refuse_each_others_request_state() {
    let (first_db, second_db) =
        (pg::fresh_database("serve_apart").await, pg::fresh_database("serve_apart").await);
    let manifest = common::manifest(MANIFEST);
    let log = manifest.with_file_name("runs.log");
    let log_text = log.display().to_string();
    let (one, other) = tokio::task::spawn_blocking(move || {
        (Server::start(&manifest, &first_db), Server::start(&manifest, &second_db))
    })
    .await
    .expect("the servers start");
    let first = one.call(&log_text, None);
    let state = first["result"]["requestState"].as_str().expect("a requestState").to_owned();
    let accept = json!({"approval": {"action": "accept", "content": {}}});
    let refused = other.call(&log_text, Some((&state, accept)));
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("integrity check"), "{refused}");
    assert_eq!(runs(&log), 0);
}

#[test]
fn a_journal_url_that_cannot_be_reached_is_refused_without_showing_its_password() {
    let output = common::toolwire()
        .args(["--journal", "postgres://toolwire:hunter2@127.0.0.1:1/journal", "approvals", "list"])
        .output()
        .unwrap_or_else(|error| panic!("toolwire runs: {error}"));
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot open the journal"), "{stderr}");
    assert!(stderr.contains("postgres://toolwire@127.0.0.1:1/journal"), "{stderr}");
    assert!(!stderr.contains("hunter2"), "the password is shown: {stderr}");
}

const TASK_MANIFEST: &str = r#"
[[tool]]
name = "build"
description = "A slow build: a call past the grace period becomes an MCP task"
task = "optional"
parameters = { type = "object", properties = {} }
[tool.command]
argv = ["sh", "-c", "sleep 1; echo built"]
timeout = "30s"
"#;

/// Polls task `id` on `server` until it ends; the last `tasks/get` result.
fn ended(server: &Server, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let body = server.task_status(id);
        let status = body["result"]["status"].as_str().unwrap_or_default().to_owned();
        if ["completed", "failed", "cancelled"].contains(&status.as_str()) {
            return body["result"].clone();
        }
        assert_eq!(status, "working", "{body}");
        assert!(Instant::now() < deadline, "task {id} did not end: {body}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_server_is_followed_on_another_and_outlives_both() {
    let journal = pg::fresh_database("serve_tasks").await;
    let manifest = common::manifest(TASK_MANIFEST);
    let reopened = tokio::task::spawn_blocking(move || {
        let (one, other) = (Server::start(&manifest, &journal), Server::start(&manifest, &journal));
        let created =
            one.tasks_request("tools/call", "build", json!({"name": "build", "arguments": {}}));
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        let id = created["result"]["taskId"].as_str().expect("a task id").to_owned();
        // The task is in the shared journal before the client hears of it.
        assert_eq!(other.task_status(&id)["result"]["status"], "working");
        let done = ended(&other, &id);
        assert_eq!(done["status"], "completed", "{done}");
        let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains("built"), "{done}");
        drop((one, other));
        // A server started after both stopped still has it.
        let third = Server::start(&manifest, &journal);
        third.task_status(&id)
    })
    .await
    .expect("the servers run");
    assert_eq!(reopened["result"]["status"], "completed", "{reopened}");
}

const CRASH_MANIFEST: &str = r#"
[[tool]]
name = "migrate"
description = "A long migration that must not run twice"
task = "optional"
parameters = { type = "object", properties = {} }
[tool.command]
argv = ["sh", "-c", "sleep 30; echo migrated"]
timeout = "60s"

[[tool]]
name = "rebuild"
description = "A build that may run again"
task = "optional"
idempotent = true
parameters = { type = "object", properties = {} }
[tool.command]
argv = ["sh", "-c", "sleep 2; echo rebuilt"]
timeout = "60s"
"#;

#[test]
fn a_task_running_when_its_server_is_killed_is_reported_honestly_after_a_restart() {
    let manifest = common::manifest(CRASH_MANIFEST);
    let journal = manifest.with_file_name("journal.sqlite").display().to_string();
    let flags = ["--lease", "1s"];
    let first = Server::start_with(&manifest, &journal, &flags);
    let start = |tool: &str| {
        let created =
            first.tasks_request("tools/call", tool, json!({"name": tool, "arguments": {}}));
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        created["result"]["taskId"].as_str().expect("a task id").to_owned()
    };
    let (migrate, rebuild) = (start("migrate"), start("rebuild"));
    drop(first); // SIGKILL, mid-call

    let second = Server::start_with(&manifest, &journal, &flags);
    // Past the dead server's lease, the next tasks/get takes each task over.
    std::thread::sleep(Duration::from_millis(1500));
    let unknown = second.task_status(&migrate);
    assert_eq!(unknown["result"]["status"], "failed", "{unknown}");
    let message = unknown["result"]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("whether it took effect is unknown"), "{unknown}");
    assert_eq!(second.task_status(&rebuild)["result"]["status"], "working", "run again");
    let done = ended(&second, &rebuild);
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("rebuilt"), "{done}");
}

const APPROVAL_TASK_MANIFEST: &str = r#"
[[tool]]
name = "deploy"
description = "Deploy, once a human approves; the wait is an MCP task"
needs_approval = true
task = "optional"
parameters = { type = "object", properties = {} }
[tool.command]
argv = ["sh", "-c", "echo deployed"]
timeout = "10s"
"#;

/// Runs `toolwire ARGS --journal JOURNAL`; its stdout, which must be a success.
fn toolwire_at(journal: &str, args: &[&str]) -> String {
    let output = common::toolwire().args(args).args(["--journal", journal]).output();
    let output = output.unwrap_or_else(|error| panic!("toolwire did not run: {error}"));
    assert!(output.status.success(), "toolwire {args:?}: {}", common::stderr(&output));
    common::stdout(&output)
}

#[test]
fn an_approval_a_task_waits_for_is_listed_and_answered_from_another_terminal() {
    let manifest = common::manifest(APPROVAL_TASK_MANIFEST);
    let journal = manifest.with_file_name("journal.sqlite").display().to_string();
    let server = Server::start(&manifest, &journal);
    let created =
        server.tasks_request("tools/call", "deploy", json!({"name": "deploy", "arguments": {}}));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().expect("a task id").to_owned();
    let waiting = server.task_status(&id);
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");
    assert!(waiting["result"]["inputRequests"]["approval"].is_object(), "{waiting}");

    // Another terminal: the human sees the call, and approves it.
    let listed = toolwire_at(&journal, &["approvals", "list"]);
    let line = listed.lines().find(|line| line.ends_with(&format!("mcp task {id}")));
    let line = line.unwrap_or_else(|| panic!("the task is not listed: {listed:?}"));
    let request_id = line.split('\t').next().unwrap_or_default().to_owned();
    assert!(line.contains("\tdeploy\t"), "{line}");
    toolwire_at(&journal, &["approvals", "answer", &request_id]);
    assert!(!toolwire_at(&journal, &["approvals", "list"]).contains(&id), "no longer waiting");

    // The client's next tasks/get sees it: the call runs.
    let done = ended(&server, &id);
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("deployed"), "{done}");
}

/// A server on an SQLite journal, and a call of `deploy` it parked for an approval: the
/// client got an `InputRequiredResult` with this `requestState`.
struct Parked {
    server: Server,
    journal: String,
    log: std::path::PathBuf,
    log_text: String,
    state: String,
}

impl Parked {
    fn start() -> Self {
        let manifest = common::manifest(MANIFEST);
        let journal = manifest.with_file_name("journal.sqlite").display().to_string();
        let log = manifest.with_file_name("runs.log");
        let log_text = log.display().to_string();
        let server = Server::start(&manifest, &journal);
        let first = server.call(&log_text, None);
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let state = first["result"]["requestState"].as_str().expect("a requestState").to_owned();
        Self { server, journal, log, log_text, state }
    }
}

/// The line of `approvals list` for the call parked by an MCP client, and its request's id.
fn parked_line(journal: &str) -> (String, String) {
    let listed = toolwire_at(journal, &["approvals", "list"]);
    let line = listed.lines().find(|line| line.ends_with("mcp call (its client's retry runs it)"));
    let line = line.unwrap_or_else(|| panic!("the parked call is not listed: {listed:?}"));
    let request_id = line.split('\t').next().unwrap_or_default().to_owned();
    (line.to_owned(), request_id)
}

#[test]
fn a_call_parked_without_a_task_is_answered_from_another_terminal_and_its_retry_runs_it() {
    let Parked { server, journal, log, log_text, state } = Parked::start();
    let (line, request_id) = parked_line(&journal);
    assert!(line.contains("\tdeploy\t"), "{line}");
    // The record is the host's: a client that names it gets no task.
    let forged = server.task_status(&format!("twp-{request_id}"));
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    toolwire_at(&journal, &["approvals", "answer", &request_id]);
    assert!(!toolwire_at(&journal, &["approvals", "list"]).contains(&request_id));
    assert_eq!(runs(&log), 0, "an answer alone runs nothing");

    // The client retries with its state and no responses of its own: the host's answer runs it.
    let done = server.call(&log_text, Some((&state, json!({}))));
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("deployed"), "{done}");
    assert_eq!(runs(&log), 1);
    let replayed = server.call(&log_text, Some((&state, json!({}))));
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert_eq!(runs(&log), 1);
}

#[test]
fn a_host_that_declines_a_parked_call_wins_over_the_clients_own_accept() {
    let Parked { server, journal, log, log_text, state } = Parked::start();
    let (_, request_id) = parked_line(&journal);
    toolwire_at(&journal, &["approvals", "answer", &request_id, "--decline", "--reason", "no"]);

    let accept = json!({"approval": {"action": "accept", "content": {}}});
    let done = server.call(&log_text, Some((&state, accept)));
    assert_eq!(done["result"]["isError"], true, "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("declined"), "{done}");
    assert_eq!(runs(&log), 0);
}
