//! A question that an imported MCP server asks during a call (an `InputRequiredResult`, here
//! from another `toolwire serve` whose tool needs approval) goes to whoever answers toolwire's
//! own: the client of `toolwire serve`, bound to the call and spent once, or the host's own
//! flow (`--yes`, the terminal, the journal). `questions = "decline"` declines it instead.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::http::{Served, call_tool};
use crate::common::{manifest, scratch, stderr, stdout, toolwire};

/// The remote server's manifest: `deploy` needs a human's approval, and each run adds a line
/// to the file `log`.
fn remote_tools(log: &Path) -> String {
    format!(
        r#"
[[tool]]
name = "deploy"
description = "Deploy, once a human approves"
needs_approval = true
parameters = {{ type = "object", properties = {{ env = {{ type = "string" }} }}, required = ["env"] }}
[tool.command]
argv = ["sh", "-c", "echo \"$1\" >> \"$2\"; echo \"deployed $1\"", "deploy", "{{env}}", {log:?}]
timeout = "10s"
sandbox = "none"
"#,
        log = log.display().to_string()
    )
}

/// The remote server, the manifest that imports its tools as `remote__*` with `more`, and
/// the file each run of `deploy` adds a line to.
fn remote(more: &str) -> (Served, PathBuf, PathBuf) {
    let log = scratch("remote").join("runs.log");
    let served = Served::start(&manifest(&remote_tools(&log)), &[]);
    let text = format!("[mcp_servers.remote]\nurl = {:?}\naccept_new = true\n{more}", served.url());
    (served, manifest(&text), log)
}

fn runs(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).unwrap_or_default().lines().map(str::to_owned).collect()
}

/// A 2026-07-28 `tools/call` of `remote__deploy` to the server on `port`, with a retry's
/// state and responses when given.
fn call(port: u16, env: &str, retry: Option<(&str, Value)>) -> Value {
    call_tool(port, "remote__deploy", json!({"env": env}), retry)
}

fn accept() -> Value {
    json!({"input": {"action": "accept", "content": {}}})
}

#[test]
fn a_remote_servers_question_reaches_the_client_of_serve_bound_to_the_call_and_spent_once() {
    let (_remote, tools, log) = remote("");
    let served = Served::start(&tools, &[]);

    let first = call(served.port, "prod", None);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let asked = &result["inputRequests"]["input"]["params"];
    assert!(asked["message"].as_str().unwrap_or_default().contains("deploy"), "{first}");
    let state = result["requestState"].as_str().expect("a requestState").to_owned();
    assert!(runs(&log).is_empty(), "nothing runs before the answer");

    // The state is for this call only: other arguments, or a changed state, run nothing.
    let other = call(served.port, "staging", Some((&state, accept())));
    assert_eq!(other["error"]["code"], -32602, "{other}");
    let mut forged = state.clone();
    forged.insert(forged.len() / 2, 'x');
    let forged = call(served.port, "prod", Some((&forged, accept())));
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    assert!(runs(&log).is_empty(), "a refused retry ran the remote tool");

    let done = call(served.port, "prod", Some((&state, accept())));
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "deployed prod", "{done}");
    assert_eq!(runs(&log), ["prod"]);

    let replayed = call(served.port, "prod", Some((&state, accept())));
    let message = replayed["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("already used"), "{replayed}");
    assert_eq!(runs(&log), ["prod"], "a spent answer ran the remote tool again");
}

#[test]
fn a_remote_question_the_client_declines_fails_the_call_and_runs_nothing() {
    let (_remote, tools, log) = remote("");
    let served = Served::start(&tools, &[]);
    let first = call(served.port, "prod", None);
    let state = first["result"]["requestState"].as_str().expect("a requestState").to_owned();
    let declined = json!({"input": {"action": "decline"}});
    let done = call(served.port, "prod", Some((&state, declined)));
    assert_eq!(done["result"]["isError"], true, "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("declined"), "{done}");
    assert!(runs(&log).is_empty());
}

#[test]
fn toolwire_call_answers_a_remote_question_with_the_hosts_own_approval() {
    let (_remote, tools, log) = remote("");
    let run = |extra: &[&str]| {
        toolwire()
            .arg("-m")
            .arg(&tools)
            .args(["call", "remote__deploy", "--args", r#"{"env": "prod"}"#])
            .args(extra)
            .output()
            .expect("runs")
    };
    // Nobody to ask here (no terminal, no --yes): the call is left pending, and nothing runs.
    let pending = run(&[]);
    assert_eq!(pending.status.code(), Some(3), "{}", stderr(&pending));
    assert!(stderr(&pending).contains("deploy"), "{}", stderr(&pending));
    assert!(runs(&log).is_empty());

    let approved = run(&["--yes"]);
    assert!(approved.status.success(), "{}", stderr(&approved));
    assert_eq!(stdout(&approved).trim(), "deployed prod");
    assert_eq!(runs(&log), ["prod"]);
}

#[test]
fn questions_decline_declines_a_remote_question_and_runs_nothing() {
    let (_remote, tools, log) = remote("questions = \"decline\"\n");
    let output = toolwire()
        .arg("-m")
        .arg(&tools)
        .args(["call", "remote__deploy", "--yes", "--args", r#"{"env": "prod"}"#])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("declined"), "{}", stderr(&output));
    assert!(runs(&log).is_empty());
}

#[test]
fn an_unknown_questions_setting_is_refused_where_it_is_written() {
    let tools =
        manifest("[mcp_servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nquestions = \"yes\"\n");
    let output = toolwire().arg("-m").arg(&tools).arg("check").output().expect("runs");
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("questions is \"ask\" or \"decline\""), "{}", stderr(&output));
}
