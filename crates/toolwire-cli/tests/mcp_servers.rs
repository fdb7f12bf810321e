//! MCP servers as a source of tools: a manifest's `[mcp_servers]` (here `toolwire serve`
//! on stdio, started by the test's manifest) are imported under their prefix, pinned in
//! `toolwire.lock`, and called, run and re-served through toolwire's pipeline.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::stdio::StdioServer;
use crate::common::{binary, manifest, scratch, stderr, stdout, toolwire};

/// The served manifest: `echo`, which claims to be read-only and idempotent, and `wipe`.
/// The server runs in the importing toolwire's sandbox, so its own tools need none (and,
/// under root, could not make their cgroups in it).
const SERVED: &str = r#"
[[tool]]
name = "echo"
description = "Print a message back"
read_only = true
idempotent = true
parameters = { type = "object", properties = { message = { type = "string" } }, required = ["message"] }
[tool.command]
argv = ["echo", "{message}"]
sandbox = "none"

[[tool]]
name = "wipe"
description = "Wipe everything"
[tool.command]
argv = ["true"]
sandbox = "none"
"#;

/// A manifest importing the tools of `toolwire serve` on `served`, with `more` lines in its
/// server's table; its path.
fn importing(served: &Path, more: &str) -> PathBuf {
    manifest(&format!(
        "[mcp_servers.tools]\ncommand = {:?}\nargs = [\"-m\", {:?}, \"serve\"]\nenv = [\"PATH\", \"HOME\"]\n{more}",
        binary().display().to_string(),
        served.display().to_string(),
    ))
}

fn call(manifest: &Path, tool: &str, args: &str) -> std::process::Output {
    toolwire().arg("-m").arg(manifest).args(["call", tool, "--args", args]).output().expect("runs")
}

fn accept(manifest: &Path, target: &str) -> std::process::Output {
    toolwire().arg("-m").arg(manifest).args(["mcp", "accept", target]).output().expect("runs")
}

#[test]
fn a_servers_tools_are_imported_once_accepted_and_refused_when_they_change() {
    let served = manifest(SERVED);
    let tools = importing(&served, "");
    // Not pinned: not imported, and the warning says how to accept it.
    let before = call(&tools, "tools__echo", r#"{"message": "hi"}"#);
    assert_eq!(before.status.code(), Some(2), "{}", stderr(&before));
    assert!(stderr(&before).contains("`toolwire mcp accept tools__echo`"), "{}", stderr(&before));

    let accepted = accept(&tools, "tools__echo");
    assert!(accepted.status.success(), "{}", stderr(&accepted));
    assert_eq!(stdout(&accepted).trim(), "accepted tools__echo (new)");
    let lock = std::fs::read_to_string(tools.with_file_name("toolwire.lock")).expect("a lock file");
    assert!(lock.contains("server = \"tools\"") && lock.contains("tool = \"echo\""), "{lock}");
    assert!(!lock.contains("wipe"), "only the tool named was accepted: {lock}");

    let called = call(&tools, "tools__echo", r#"{"message": "hi"}"#);
    assert!(called.status.success(), "{}", stderr(&called));
    assert_eq!(stdout(&called).trim(), "hi");
    // The pinned schema is the one validated against, before anything reaches the server.
    let wrong = call(&tools, "tools__echo", r#"{"message": 7}"#);
    assert_eq!(wrong.status.code(), Some(1), "{}", stderr(&wrong));
    assert!(stderr(&wrong).contains("/message"), "{}", stderr(&wrong));

    // The server changes the tool: its calls are refused, naming the change.
    let text = SERVED.replace("Print a message back", "Print a message back, and mail it away");
    std::fs::write(&served, text).expect("the served manifest is rewritten");
    let changed = call(&tools, "tools__echo", r#"{"message": "hi"}"#);
    assert_eq!(changed.status.code(), Some(1), "{}", stderr(&changed));
    let said = stderr(&changed);
    assert!(said.contains("tool \"echo\" changed since it was pinned"), "{said}");
    assert!(said.contains("(description)"), "{said}");
    assert!(!stdout(&changed).contains("hi"), "nothing ran");

    let again = accept(&tools, "tools");
    assert!(
        stdout(&again).contains("accepted tools__echo (changed: description)"),
        "{}",
        stdout(&again)
    );
    assert!(stdout(&again).contains("accepted tools__wipe (new)"), "{}", stdout(&again));
    assert!(call(&tools, "tools__echo", r#"{"message": "hi"}"#).status.success());
}

#[test]
fn allow_and_deny_lists_choose_the_tools_and_new_ones_can_be_accepted_as_they_come() {
    let served = manifest(SERVED);
    let tools = importing(&served, "deny = [\"wi*\"]\naccept_new = true\nprefix = \"ops_\"\n");
    let called = call(&tools, "ops_echo", r#"{"message": "hi"}"#);
    assert!(called.status.success(), "{}", stderr(&called));
    let lock = std::fs::read_to_string(tools.with_file_name("toolwire.lock")).expect("pinned");
    assert!(lock.contains("tool = \"echo\""), "{lock}");
    assert!(!lock.contains("wipe"), "a denied tool is never pinned: {lock}");
    let denied = call(&tools, "ops_wipe", "{}");
    assert_eq!(denied.status.code(), Some(2), "{}", stderr(&denied));
    let refused = accept(&tools, "ops_wipe");
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));

    let only = importing(&served, "allow = [\"wipe\"]\naccept_new = true\n");
    assert!(call(&only, "tools__wipe", "{}").status.success());
    assert_eq!(call(&only, "tools__echo", r#"{"message": "hi"}"#).status.code(), Some(2));
}

#[test]
fn an_imported_tool_that_needs_approval_runs_only_when_approved() {
    let served = manifest(SERVED);
    let tools = importing(&served, "needs_approval = [\"echo\"]\naccept_new = true\n");
    let asked = call(&tools, "tools__echo", r#"{"message": "hi"}"#);
    assert_ne!(asked.status.code(), Some(0), "{}", stderr(&asked));
    assert!(!stdout(&asked).contains("hi"), "it did not run: {}", stdout(&asked));
    let approved = toolwire()
        .arg("-m")
        .arg(&tools)
        .args(["call", "tools__echo", "--args", r#"{"message": "hi"}"#, "--yes"])
        .output()
        .expect("runs");
    assert!(approved.status.success(), "{}", stderr(&approved));
    assert_eq!(stdout(&approved).trim(), "hi");
    // The other tool of the server needs none.
    assert!(call(&tools, "tools__wipe", "{}").status.success());
}

/// `tools/list` of `toolwire serve` on `manifest`: the tools by name.
fn listed(manifest: &Path) -> Vec<Value> {
    let mut server = StdioServer::start(manifest);
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let reply = server.read();
    reply["result"]["tools"].as_array().cloned().unwrap_or_default()
}

#[test]
fn serve_re_serves_imported_tools_with_the_manifests_hints_not_the_servers() {
    let served = manifest(SERVED);
    let untrusted = importing(&served, "accept_new = true\n");
    let tools = listed(&untrusted);
    let echo = tools.iter().find(|t| t["name"] == "tools__echo").expect("re-served");
    // The server claims read-only and idempotent; the manifest says nothing, so neither holds.
    let hints = echo.get("annotations").cloned().unwrap_or(Value::Null);
    assert!(hints.get("readOnlyHint").is_none() && hints.get("idempotentHint").is_none(), "{echo}");
    assert_eq!(echo["inputSchema"]["properties"]["message"]["type"], "string");

    let trusted = importing(&served, "accept_new = true\nread_only = true\n");
    let tools = listed(&trusted);
    let echo = tools.iter().find(|t| t["name"] == "tools__echo").expect("re-served");
    assert_eq!(echo["annotations"]["readOnlyHint"], true, "{echo}");

    let mut server = StdioServer::start(&trusted);
    server.call(2, "tools__echo", json!({"message": "through two servers"}));
    let reply = server.read();
    let text = reply["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("through two servers"), "{reply}");
}

#[test]
fn the_pinned_tools_of_a_server_that_cannot_be_reached_fail_saying_why() {
    let served = manifest(SERVED);
    let tools = importing(&served, "");
    assert!(accept(&tools, "tools").status.success());
    let text = std::fs::read_to_string(&tools).expect("the manifest");
    std::fs::write(&tools, text.replace(&binary().display().to_string(), "/no/such/mcp-server"))
        .expect("rewritten");
    let failed = call(&tools, "tools__echo", r#"{"message": "hi"}"#);
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    let said = stderr(&failed);
    assert!(said.contains("mcp server \"tools\" could not be reached"), "{said}");
    assert!(said.contains("/no/such/mcp-server"), "{said}");
}

#[test]
fn an_mcp_json_in_the_editors_shape_is_a_source_too() {
    let served = manifest(SERVED);
    let folder = scratch("mcp-json");
    let config = json!({"mcpServers": {"editor": {"command": binary(),
        "args": ["-m", served, "serve"]}}});
    std::fs::write(folder.join("mcp.json"), config.to_string()).expect("written");
    let tools = folder.join("tools.toml");
    std::fs::write(&tools, "mcp_config = \"mcp.json\"\n").expect("written");
    assert!(accept(&tools, "editor__echo").status.success());
    let called = call(&tools, "editor__echo", r#"{"message": "from mcp.json"}"#);
    assert!(called.status.success(), "{}", stderr(&called));
    assert_eq!(stdout(&called).trim(), "from mcp.json");
}

#[test]
fn a_server_table_that_is_not_one_server_is_a_manifest_error() {
    let cases = [
        ("[mcp_servers.x]\nprefix = \"x_\"\n", "needs a `command` (stdio) or a `url` (HTTP)"),
        (
            "[mcp_servers.x]\ncommand = \"a\"\nurl = \"http://b\"\n",
            "has both a `command` and a `url`",
        ),
        ("[mcp_servers.x]\ncommand = \"a\"\nprefix = \"a b\"\n", "a prefix is letters, digits"),
        ("[mcp_servers.x]\ncommand = \"a\"\ntimeout = \"soon\"\n", "invalid timeout"),
        ("[mcp_servers.x]\ncommand = \"a\"\nconcurrency = 0\n", "concurrency must be at least 1"),
        ("[mcp_servers.x]\ncommand = \"a\"\ncolour = 1\n", "unknown field `colour`"),
        (
            "[mcp_servers.x]\nurl = \"http://b\"\nheaders = { Authorization = \"TOOLWIRE_TEST_UNSET_VAR\" }\n",
            "which is not set",
        ),
        ("mcp_config = \"missing.json\"\n", "cannot read"),
    ];
    for (text, expected) in cases {
        let path = manifest(text);
        let output = toolwire().arg("-m").arg(&path).args(["call", "x__y"]).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{text}: {}", stderr(&output));
        assert!(stderr(&output).contains(expected), "{text}: {}", stderr(&output));
    }
}

/// A server toolwire starts that tries to write outside its working folder before it
/// serves: the write fails in the default sandbox (and the server still serves), and goes
/// through with `sandbox = "none"`.
#[test]
fn a_server_toolwire_starts_runs_in_the_default_sandbox() {
    let served = manifest(SERVED);
    for (sandbox, escapes) in [("", false), ("sandbox = \"none\"\n", true)] {
        let (work, outside) = (scratch("server-work"), scratch("outside"));
        let script = format!(
            "echo pwned > {:?} 2>/dev/null; exec {:?} -m {:?} serve",
            outside.join("escaped").display().to_string(),
            binary().display().to_string(),
            served.display().to_string(),
        );
        let tools = manifest(&format!(
            "[mcp_servers.tools]\ncommand = \"sh\"\nargs = [\"-c\", {script:?}]\nenv = [\"PATH\"]\n\
             cwd = {:?}\naccept_new = true\n{sandbox}",
            work.display().to_string()
        ));
        let called = call(&tools, "tools__echo", r#"{"message": "still serving"}"#);
        assert!(called.status.success(), "{sandbox}: {}", stderr(&called));
        assert_eq!(stdout(&called).trim(), "still serving");
        assert_eq!(outside.join("escaped").exists(), escapes, "sandbox {sandbox:?}");
    }
}

#[test]
fn check_connects_and_says_what_each_server_would_import_and_why_not() {
    let served = manifest(SERVED);
    let tools = manifest(&format!(
        "[mcp_servers.tools]\ncommand = {:?}\nargs = [\"-m\", {:?}, \"serve\"]\nenv = [\"PATH\"]\n\
         deny = [\"wipe\"]\n\n[mcp_servers.gone]\ncommand = \"/no/such/server\"\n",
        binary().display().to_string(),
        served.display().to_string(),
    ));
    let checked = toolwire().arg("-m").arg(&tools).arg("check").output().expect("runs");
    let said = stderr(&checked);
    assert_eq!(checked.status.code(), Some(2), "an unreachable server is an error: {said}");
    assert!(said.contains("warning: mcp server \"tools\": new tool \"echo\" is not imported until `toolwire mcp accept tools__echo`"), "{said}");
    assert!(
        said.contains("note: mcp server \"tools\": \"wipe\" is left out by the allow or deny list"),
        "{said}"
    );
    assert!(said.contains("error: mcp server \"gone\""), "{said}");
    assert!(said.contains("note: mcp server \"tools\": sandbox: read: /"), "{said}");
    assert!(!tools.with_file_name("toolwire.lock").exists(), "check writes nothing");

    assert!(accept(&tools, "tools").status.success());
    let checked = toolwire().arg("-m").arg(&tools).arg("check").output().expect("runs");
    let said = stderr(&checked);
    assert!(said.contains("note: mcp server \"tools\": imports tools__echo"), "{said}");
    assert!(said.contains("checked 1 tool for 5 providers"), "{said}");
}

#[test]
fn a_remote_call_goes_through_the_journal_and_into_the_log_like_a_local_one() {
    let served = manifest(SERVED);
    let tools = importing(&served, "accept_new = true\n");
    let journal = scratch("remote-journal").join("journal.sqlite");
    let journaled = |id: &str, message: &str| {
        let args = format!(r#"{{"message": "{message}"}}"#);
        toolwire()
            .arg("-m")
            .arg(&tools)
            .arg("--journal")
            .arg(&journal)
            .args(["call", "tools__echo", "--args", &args, "--call-id", id])
            .output()
            .expect("runs")
    };
    let first = journaled("c1", "once");
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(stdout(&first).trim(), "once");
    // The same id replays its recorded result; other arguments under it are refused.
    let again = journaled("c1", "once");
    assert_eq!(stdout(&again).trim(), "once", "{}", stderr(&again));
    let other = journaled("c1", "twice");
    assert_ne!(other.status.code(), Some(0), "{}", stdout(&other));
    let log = toolwire()
        .arg("-m")
        .arg(&tools)
        .arg("--journal")
        .arg(&journal)
        .arg("log")
        .output()
        .expect("runs");
    let lines: Vec<String> = stdout(&log)
        .lines()
        .filter(|line| line.contains("tools__echo"))
        .map(str::to_owned)
        .collect();
    assert!(!lines.is_empty() && lines.iter().all(|line| line.contains("c1")), "{}", stdout(&log));
    assert!(lines[0].ends_with("\tok"), "{lines:?}");
    assert!(lines[1].ends_with("\tfailed"), "the refused id is audited too: {lines:?}");
}

/// Two calls sent at once to a server limited to one call at a time run one after the other:
/// the tool's log never shows two starts in a row.
#[test]
fn a_servers_concurrency_limit_lets_its_calls_run_one_at_a_time() {
    let folder = scratch("concurrency");
    let log = folder.join("log");
    let served = manifest(&format!(
        "[[tool]]\nname = \"slow\"\n[tool.command]\nargv = [\"sh\", \"-c\", \"echo start >> {0}; \
         sleep 0.2; echo end >> {0}\"]\nsandbox = \"none\"\n",
        log.display()
    ));
    // The server writes the log in its working folder, which its sandbox lets it write.
    let more =
        format!("accept_new = true\nconcurrency = 1\ncwd = {:?}\n", folder.display().to_string());
    let tools = importing(&served, &more);
    let mut session = StdioServer::start(&tools);
    session.call(1, "tools__slow", json!({}));
    session.call(2, "tools__slow", json!({}));
    let mut replies = 0;
    while replies < 2 {
        let message = session.read();
        assert!(!message.is_null(), "the session ended early");
        if message.get("id").is_some() {
            assert_ne!(message["result"]["isError"], true, "{message}");
            replies += 1;
        }
    }
    let written = std::fs::read_to_string(&log).expect("the tool wrote its log");
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines, ["start", "end", "start", "end"], "one call at a time");
}

/// `toolwire schema` describes the imported tools too, under names every provider takes.
#[test]
fn schema_describes_imported_tools_for_each_provider() {
    let served = manifest(SERVED);
    let tools = importing(&served, "accept_new = true\nprefix = \"ops.v1-\"\n");
    for provider in ["openai", "anthropic", "gemini", "responses", "mcp"] {
        let output = toolwire()
            .arg("-m")
            .arg(&tools)
            .args(["schema", "--provider", provider])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{provider}: {}", stderr(&output));
        let listed: Value = serde_json::from_str(&stdout(&output)).expect("JSON");
        let text = listed.to_string();
        assert!(text.contains("ops_v1-echo") || text.contains("ops.v1-echo"), "{provider}: {text}");
        assert!(text.contains("Print a message back"), "{provider}: {text}");
    }
}

/// The name `provider` is offered the imported `echo` under, as `toolwire schema` lists it.
fn offered_name(tools: &Path, provider: &str) -> String {
    let output = toolwire().arg("-m").arg(tools).args(["schema", "--provider", provider]).output();
    let listed: Value = serde_json::from_str(&stdout(&output.expect("runs"))).expect("JSON");
    let names = listed.to_string();
    let found = names.split('"').find(|word| word.starts_with("ops") && word.contains("echo"));
    found.unwrap_or_else(|| panic!("{provider}: no imported echo in {names}")).to_owned()
}

/// An Anthropic Messages stream that calls `tool` with `arguments`, or says `text`.
fn anthropic_turn(tool: Option<(&str, &str)>, text: &str) -> Vec<Value> {
    let start = json!({"type": "message_start", "message": {"id": "m", "type": "message",
        "role": "assistant", "content": [], "model": "test-model", "stop_reason": null,
        "usage": {"input_tokens": 3, "output_tokens": 1}}});
    let (block, delta, stop) = match tool {
        Some((name, arguments)) => (
            json!({"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": arguments}),
            "tool_use",
        ),
        None => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    vec![
        start,
        json!({"type": "content_block_start", "index": 0, "content_block": block}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 2}}),
        json!({"type": "message_stop"}),
    ]
}

/// A Gemini stream of one part: a call of `tool` with `arguments`, or `text`.
fn gemini_turn(tool: Option<(&str, Value)>, text: &str) -> Vec<Value> {
    let part = match tool {
        Some((name, args)) => json!({"functionCall": {"name": name, "args": args}}),
        None => json!({"text": text}),
    };
    vec![json!({"candidates": [{"content": {"role": "model", "parts": [part]},
        "finishReason": "STOP", "index": 0}]})]
}

/// `toolwire run` offers Anthropic and Gemini the imported tools under names each accepts
/// (the prefix has a dot, which Anthropic refuses), and a call by that name reaches the
/// remote tool, whose result goes back to the model.
#[test]
fn run_calls_imported_tools_on_anthropic_and_gemini_under_names_they_accept() {
    use crate::common::model::{bodies, mock_model};
    let served = manifest(SERVED);
    let tools = importing(&served, "accept_new = true\nprefix = \"ops.v1-\"\n");
    let arguments = r#"{"message": "hi from the model"}"#;
    for provider in ["anthropic", "gemini"] {
        let name = offered_name(&tools, provider);
        let replies = match provider {
            "anthropic" => {
                vec![anthropic_turn(Some((&name, arguments)), ""), anthropic_turn(None, "all done")]
            }
            _ => vec![
                gemini_turn(Some((&name, json!({"message": "hi from the model"}))), ""),
                gemini_turn(None, "all done"),
            ],
        };
        let (url, server) = mock_model(replies);
        let model = format!("{provider}:test-model");
        let output = toolwire()
            .args(["run", "say hi", "--yes", "--model", &model, "--base-url", &url, "-m"])
            .arg(&tools)
            .arg("--journal")
            .arg(scratch("run-journal").join("journal.sqlite"))
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(0), "{provider}: {}", stderr(&output));
        assert!(stdout(&output).contains("all done"), "{provider}: {}", stdout(&output));
        let bodies = bodies(server);
        assert!(bodies[0].contains(&format!("\"{name}\"")), "{provider}: {}", bodies[0]);
        assert!(bodies[1].contains("hi from the model"), "{provider}: {}", bodies[1]);
        if provider == "anthropic" {
            assert!(!name.contains('.'), "Anthropic refuses a dot in a tool name: {name}");
        }
    }
}

/// Regression: `toolwire mcp import mcp.json` started a stdio server with no sandbox, while a
/// manifest's server got one. A server that tries to write outside its folder now fails to,
/// and its tools are still listed.
#[test]
fn regression_mcp_import_starts_its_servers_in_the_default_sandbox() {
    let served = manifest(SERVED);
    let (work, outside) = (scratch("import-work"), scratch("import-outside"));
    let script = format!(
        "cd {:?}; echo pwned > {:?} 2>/dev/null; exec {:?} -m {:?} serve",
        work.display().to_string(),
        outside.join("escaped").display().to_string(),
        binary().display().to_string(),
        served.display().to_string(),
    );
    let config = json!({"mcpServers": {"probe": {"command": "sh", "args": ["-c", script]}}});
    let path = work.join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("written");
    let listed = toolwire().args(["mcp", "import"]).arg(&path).output().expect("runs");
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert!(stdout(&listed).contains("probe__echo"), "{}", stdout(&listed));
    assert!(!outside.join("escaped").exists(), "the server wrote outside its sandbox");
}

/// Regression: a server of an `mcp.json` ran in whatever folder toolwire was started in, so
/// its only writable folder depended on where the user stood. It runs in the folder of its
/// `mcp.json` (the editors' format has no `cwd`).
#[test]
fn regression_a_server_of_an_mcp_json_runs_in_the_folder_of_its_mcp_json() {
    let served = manifest(
        "[[tool]]\nname = \"where\"\ndescription = \"Where it runs\"\n[tool.command]\nargv = [\"pwd\"]\nsandbox = \"none\"\n",
    );
    let folder = scratch("mcp-json-cwd");
    let config =
        json!({"mcpServers": {"editor": {"command": binary(), "args": ["-m", served, "serve"]}}});
    std::fs::write(folder.join("mcp.json"), config.to_string()).expect("written");
    let tools = folder.join("tools.toml");
    std::fs::write(&tools, "mcp_config = \"mcp.json\"\n").expect("written");
    assert!(accept(&tools, "editor__where").status.success());
    let elsewhere = scratch("started-here");
    let called = toolwire()
        .current_dir(&elsewhere)
        .arg("-m")
        .arg(&tools)
        .args(["call", "editor__where", "--args", "{}"])
        .output()
        .expect("runs");
    assert!(called.status.success(), "{}", stderr(&called));
    let expected = folder.canonicalize().expect("canonical");
    assert_eq!(stdout(&called).trim(), expected.display().to_string());
}

/// Regression: `toolwire check` printed Gemini's notes ("no parameters are left") for the
/// tools it could not import (unreachable or changed), as if they were imported; it reports
/// only why they were left out.
#[test]
fn regression_check_lints_only_the_tools_it_imports() {
    let served = manifest(SERVED);
    let tools = importing(&served, "");
    assert!(accept(&tools, "tools").status.success());
    let text = std::fs::read_to_string(&tools).expect("the manifest");
    std::fs::write(&tools, text.replace(&binary().display().to_string(), "/no/such/mcp-server"))
        .expect("rewritten");
    let checked = toolwire().arg("check").arg("-m").arg(&tools).output().expect("runs");
    let said = stderr(&checked);
    assert!(said.contains("its pinned tools fail until it can be reached"), "{said}");
    for line in said.lines().filter(|line| line.contains("tools__")) {
        assert!(
            !line.contains("gemini") && !line.contains("openai"),
            "a provider's note for a tool not imported: {line}"
        );
    }
}

#[test]
fn a_server_set_to_defer_loading_has_every_tool_deferred_and_check_says_so() {
    let served = manifest(SERVED);
    let tools = importing(&served, "accept_new = true\ndefer_loading = true\n");
    let checked = toolwire().arg("-m").arg(&tools).arg("check").output().expect("runs");
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
    let said = stderr(&checked);
    assert!(said.contains("catalog: 2 of 2 tools are deferred"), "{said}");
    assert!(said.contains("tools__echo") && said.contains("tools__wipe"), "{said}");
    // A person calling by name is not a model guessing: `call` runs a deferred tool.
    let called = call(&tools, "tools__echo", r#"{"message": "still callable"}"#);
    assert_eq!(called.status.code(), Some(0), "{}", stderr(&called));
    assert!(stdout(&called).contains("still callable"), "{}", stdout(&called));
}
