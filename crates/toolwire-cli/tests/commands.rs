//! `schema`, `check`, `serve`, HTTP tools, and the commands that wait for crates not built
//! in yet (which must fail clearly, never pretend).

use crate::common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Stdio;

use crate::common::model::{bodies, calling, mock_model, saying};
use crate::common::stdio::StdioServer;
use crate::common::{binary, example, manifest, stderr, stdout, toolwire};
use predicates::str::contains;
use serde_json::{Value, json};

fn run(command: &mut assert_cmd::Command) -> std::process::Output {
    command.output().unwrap_or_else(|error| panic!("toolwire did not run: {error}"))
}

#[test]
fn schema_prints_each_providers_definitions_and_the_change_report() {
    let cases = [
        ("openai", "/function/name"),
        ("responses", "/name"),
        ("anthropic", "/name"),
        ("gemini", "/name"),
        ("mcp", "/name"),
    ];
    for (provider, name) in cases {
        let output = run(toolwire().args(["schema", "--provider", provider, "-m"]).arg(example()));
        assert_eq!(output.status.code(), Some(0), "{provider}: {}", stderr(&output));
        let definitions: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{provider}: {error}"));
        assert_eq!(definitions[0].pointer(name), Some(&json!("echo")), "{provider}");
        assert!(stderr(&output).contains("echo:"), "{provider}: {}", stderr(&output));
    }
    let gemini = run(toolwire().args(["schema", "-p", "gemini", "-m"]).arg(example()));
    assert!(
        stderr(&gemini).contains("utc_time: gemini: (root): removed the empty `properties`"),
        "{}",
        stderr(&gemini)
    );
}

#[test]
fn schema_reports_what_strict_mode_changed() {
    let path = manifest(
        "[[tool]]\nname = \"s\"\nstrict = true\n\
         parameters = { type = \"object\", properties = { a = { type = \"string\" }, b = { type = \"integer\" } }, required = [\"a\"] }\n\
         [tool.command]\nargv = [\"echo\", \"{a}\"]\n",
    );
    let output = run(toolwire().args(["schema", "-p", "openai", "-m"]).arg(&path));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let definitions: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(definitions[0]["function"]["parameters"]["required"], json!(["a", "b"]));
    assert!(stderr(&output).contains("s: openai: /properties/b"), "{}", stderr(&output));
}

#[test]
fn check_passes_on_the_example() {
    toolwire()
        .args(["check", "-m"])
        .arg(example())
        .assert()
        .success()
        .stderr(contains("checked 5 tools for 5 providers: 0 errors, 0 warnings"));
}

#[test]
fn check_fails_on_a_schema_a_provider_cannot_take() {
    let path = manifest(
        "[[tool]]\nname = \"r\"\n\
         parameters = { type = \"object\", properties = { node = { \"$ref\" = \"#/$defs/node\" } }, \"$defs\" = { node = { type = \"object\", properties = { next = { \"$ref\" = \"#/$defs/node\" } } } } }\n\
         [tool.command]\nargv = [\"true\"]\n",
    );
    let output = run(toolwire().args(["check", "-m"]).arg(&path));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("error: r: gemini:"), "{}", stderr(&output));
}

#[test]
fn check_warns_of_an_unset_header_variable() {
    let path = manifest(
        "[[tool]]\nname = \"h\"\n[tool.http]\nurl = \"http://127.0.0.1:9/\"\nheaders = { \"X-Key\" = { env = \"TOOLWIRE_UNSET_KEY\" } }\n",
    );
    toolwire().args(["check", "-m"]).arg(&path).env_remove("TOOLWIRE_UNSET_KEY").assert().success().stderr(contains(
        "warning: \"h\": the environment variable TOOLWIRE_UNSET_KEY for the header X-Key is not set",
    ));
}

#[test]
fn an_http_tool_fills_the_url_encoded_and_sends_headers_from_the_environment() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|error| panic!("bind: {error}"));
    let port = listener.local_addr().map(|addr| addr.port()).unwrap_or_default();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap_or_else(|error| panic!("accept: {error}"));
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        while !request.windows(4).any(|window| window == b"\r\n\r\n") {
            let read = stream.read(&mut buffer).unwrap_or(0);
            if read == 0 {
                break;
            }
            request.extend_from_slice(&buffer[..read]);
        }
        let body = r#"{"temperature": 21}"#;
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(response.as_bytes());
        String::from_utf8_lossy(&request).into_owned()
    });
    let path = manifest(&format!(
        "[[tool]]\nname = \"weather\"\nparameters = {{ type = \"object\", properties = {{ city = {{ type = \"string\" }} }} }}\n\
         [tool.http]\nurl = \"http://127.0.0.1:{port}/weather/{{city}}\"\nheaders = {{ Authorization = {{ env = \"WEATHER_TOKEN\", prefix = \"Bearer \" }} }}\n"
    ));
    let output = run(toolwire()
        .args(["call", "weather", "--json", "--args", r#"{"city": "São Paulo/../x"}"#, "-m"])
        .arg(&path)
        .env("WEATHER_TOKEN", "s3cret"));
    let request = server.join().unwrap_or_default();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(request.starts_with("GET /weather/S%C3%A3o%20Paulo%2F..%2Fx HTTP/1.1"), "{request}");
    assert!(request.to_lowercase().contains("authorization: bearer s3cret"), "{request}");
    let receipt: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(receipt["result"]["json"], json!({"temperature": 21}));
}

#[test]
fn an_http_tool_whose_header_variable_is_unset_fails_clearly() {
    let path = manifest(
        "[[tool]]\nname = \"h\"\n[tool.http]\nurl = \"http://127.0.0.1:9/\"\nheaders = { \"X-Key\" = { env = \"TOOLWIRE_UNSET_KEY\" } }\n",
    );
    toolwire().args(["call", "h", "-m"]).arg(&path).env_remove("TOOLWIRE_UNSET_KEY").assert().code(1).stderr(contains(
        "error: \"h\": the environment variable TOOLWIRE_UNSET_KEY for the header X-Key is not set",
    ));
}

#[test]
fn serve_answers_mcp_on_stdio() {
    let mut server = StdioServer::start(&example());
    server.call(2, "add", json!({"a": 1, "b": 2}));
    let answer = server.read();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "3", "{answer}");
}

#[test]
fn a_tools_concurrency_limit_holds_over_mcp() {
    let tool = |name: &str, limit: u32| {
        format!(
            "[[tool]]\nname = \"{name}\"\nconcurrency = {limit}\n[tool.command]\nargv = [\"sleep\", \"0.4\"]\n"
        )
    };
    let path = manifest(&format!("{}\n{}", tool("one_at_a_time", 1), tool("together", 3)));
    let mut server = StdioServer::start(&path);
    let timed = |server: &mut StdioServer, name: &str| {
        let started = std::time::Instant::now();
        (1..=3).for_each(|id| server.call(id, name, json!({})));
        (1..=3).for_each(|_| assert_eq!(server.read()["result"]["isError"], false));
        started.elapsed()
    };
    let serial = timed(&mut server, "one_at_a_time");
    let parallel = timed(&mut server, "together");
    assert!(
        serial >= std::time::Duration::from_millis(1150),
        "three calls ran at once under a limit of 1: {serial:?}"
    );
    assert!(
        parallel < serial,
        "a limit of 3 did not let them run together: {parallel:?} vs {serial:?}"
    );
}

#[test]
fn an_approval_waits_in_the_journal_and_is_answered_and_resumed_by_later_commands() {
    let journal = common::scratch("approvals").join("journal.sqlite");
    let with_journal = |args: &[&str]| {
        run(toolwire().args(args).arg("--journal").arg(&journal).arg("-m").arg(example()))
    };
    let parked = with_journal(&[
        "call",
        "deploy",
        "--call-id",
        "d1",
        "--args",
        r#"{"env": "staging"}"#,
        "--json",
    ]);
    assert_eq!(parked.status.code(), Some(3), "{}", stderr(&parked));
    let listed = with_journal(&["approvals", "list"]);
    assert_eq!(listed.status.code(), Some(0), "{}", stderr(&listed));
    let line = stdout(&listed);
    let fields: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(fields.get(1..3), Some(&["d1", "deploy"][..]), "{line}");
    let request = fields.first().copied().unwrap_or_default();
    assert!(request.starts_with("apr-"), "{line}");
    let answered = with_journal(&["approvals", "answer", request]);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    let resumed = with_journal(&["approvals", "resume", "d1"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(stdout(&resumed).contains("staging"), "{}", stdout(&resumed));
    let log = with_journal(&["log", "--json"]);
    assert_eq!(log.status.code(), Some(0), "{}", stderr(&log));
    let receipts: Vec<Value> =
        stdout(&log).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert!(receipts.iter().any(|r| r["failure"] == "pending"), "{receipts:?}");
    assert!(receipts.iter().any(|r| r["result"]["success"] == true), "{receipts:?}");
}

#[test]
fn run_drives_the_agent_loop_against_an_openai_compatible_server() {
    let (url, server) = mock_model(vec![
        calling("call_1", "echo", r#"{"message": "hi from the model"}"#),
        saying("all done"),
    ]);
    let journal = common::scratch("run").join("journal.sqlite");
    let output = run(toolwire()
        .args(["run", "say hi", "--model", "openai:test-model", "--base-url", &url, "-m"])
        .arg(example())
        .arg("--journal")
        .arg(&journal)
        .env("OPENAI_API_KEY", "test-key"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("all done"), "{}", stdout(&output));
    assert!(stderr(&output).contains("echo"), "{}", stderr(&output));
    let bodies = bodies(server);
    assert_eq!(bodies.len(), 2);
    assert!(bodies[0].contains("\"name\":\"echo\""), "the tools were offered: {}", bodies[0]);
    assert!(bodies[1].contains("hi from the model"), "the result went back: {}", bodies[1]);
}

#[test]
fn a_run_waiting_for_approval_is_kept_in_the_journal_and_resumed_by_a_later_command() {
    let (url, server) = mock_model(vec![
        calling("call_9", "deploy", r#"{"env": "staging"}"#),
        saying("staging is live"),
    ]);
    let journal = common::scratch("paused-run").join("journal.sqlite");
    let with_journal = |args: &[&str]| {
        run(toolwire()
            .args(args)
            .arg("--journal")
            .arg(&journal)
            .arg("-m")
            .arg(example())
            .env("OPENAI_API_KEY", "test-key"))
    };

    // No terminal and no --yes: the run is kept in the journal, and says how to go on.
    let paused =
        with_journal(&["run", "ship it", "--model", "openai:test-model", "--base-url", &url]);
    assert_eq!(paused.status.code(), Some(3), "{}", stderr(&paused));
    let said = stderr(&paused);
    let run_id = said
        .lines()
        .find_map(|l| l.strip_prefix("run ")?.split_whitespace().next())
        .unwrap_or_else(|| panic!("no run id in {said}"))
        .to_owned();
    assert!(said.contains(&format!("toolwire approvals resume {run_id}")), "{said}");

    let listed = with_journal(&["approvals", "list"]);
    let line = stdout(&listed);
    let fields: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(fields.get(1..3), Some(&["call_9", "deploy"][..]), "{line}");
    assert_eq!(fields.last().copied(), Some(format!("run {run_id}").as_str()), "{line}");
    let request = fields.first().copied().unwrap_or_default();

    // Resuming before an answer leaves the call waiting, and the run kept.
    let early = with_journal(&["approvals", "resume", &run_id, "--base-url", &url]);
    assert_eq!(early.status.code(), Some(3), "{}", stderr(&early));

    let answered = with_journal(&["approvals", "answer", request]);
    assert_eq!(answered.status.code(), Some(0), "{}", stderr(&answered));
    // The run remembers the server it was made with.
    let resumed = with_journal(&["approvals", "resume", &run_id]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(stdout(&resumed).contains("staging is live"), "{}", stdout(&resumed));
    assert!(stderr(&resumed).contains("deployed to staging"), "{}", stderr(&resumed));

    let bodies = bodies(server);
    assert_eq!(bodies.len(), 2, "the model was asked once per turn, across processes");
    assert!(bodies[1].contains("deployed to staging"), "the result went back: {}", bodies[1]);
    let listed = with_journal(&["approvals", "list"]);
    assert_eq!(stdout(&listed), "", "the finished run left the journal");
    let log = with_journal(&["log", "--json", "--tool", "deploy"]);
    let receipts: Vec<Value> =
        stdout(&log).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let outcomes: Vec<&Value> = receipts.iter().map(|r| &r["failure"]).collect();
    assert_eq!(outcomes, [&json!("pending"), &Value::Null], "{receipts:?}");
    let again = with_journal(&["approvals", "resume", &run_id]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(stderr(&again).contains("waits in the journal"), "{}", stderr(&again));
    let unknown = with_journal(&["approvals", "answer", "apr-nobody"]);
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
    assert!(
        stderr(&unknown).contains("no call, run or MCP task waits on request"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn run_refuses_a_bad_model_name() {
    toolwire()
        .args(["run", "hello", "--model", "nobody", "-m"])
        .arg(example())
        .assert()
        .code(2)
        .stderr(contains("invalid --model \"nobody\""));
}

#[test]
fn mcp_import_lists_the_tools_of_a_configured_server() {
    // The server is `toolwire serve` itself, on the example manifest.
    let config = common::scratch("mcp").join("mcp.json");
    let serve = json!({"command": binary(), "args": ["serve", "--manifest", example()]});
    std::fs::write(&config, json!({"mcpServers": {"local": serve}}).to_string())
        .unwrap_or_else(|error| panic!("{error}"));
    let output = run(toolwire().args(["mcp", "import"]).arg(&config));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let listed = stdout(&output);
    assert!(listed.contains("local__echo\tPrint a message back\n"), "{listed}");
    assert_eq!(listed.lines().count(), 5, "{listed}");
    let output = run(toolwire().args(["mcp", "import", "--json"]).arg(&config));
    let definitions: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(definitions[0]["name"], "local__echo");
    assert_eq!(definitions[0]["inputSchema"]["required"], json!(["message"]));
}

#[test]
fn mcp_import_reports_a_server_it_cannot_reach_and_a_bad_configuration() {
    let config = common::scratch("mcp").join("mcp.json");
    let text = json!({"mcpServers": {"gone": {"command": "no-such-mcp-server-toolwire"}}});
    std::fs::write(&config, text.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let output = run(toolwire().args(["mcp", "import"]).arg(&config));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("gone"), "{}", stderr(&output));
    std::fs::write(&config, "{nope").unwrap_or_else(|error| panic!("{error}"));
    toolwire().args(["mcp", "import"]).arg(&config).assert().code(2).stderr(contains("mcp.json"));
}

#[test]
fn serve_http_answers_mcp_on_loopback() {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or(39_217);
    let addr = format!("127.0.0.1:{port}");
    let mut child = std::process::Command::new(binary())
        .args(["serve", "--http", &addr, "-m"])
        .arg(example())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start toolwire serve: {error}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut stream = loop {
        match std::net::TcpStream::connect(&addr) {
            Ok(stream) => break stream,
            Err(_) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(50))
            }
            Err(error) => panic!("the server never listened on {addr}: {error}"),
        }
    };
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap_or_else(|error| panic!("write: {error}"));
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).ok();
    let mut response = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&response).contains("serverInfo") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => response.extend_from_slice(&buffer[..read]),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains(r#""name":"toolwire""#), "{response}");
}

/// Set in the child run of the test below.
const SCRATCH_CHILD_ENV: &str = "TOOLWIRE_CLI_TEST_SCRATCH_CHILD";

/// Regression: `cargo test` left some 438 folders named `toolwire-cli-test-*` in the
/// temporary folder at every run. A test process's scratch folders all go when it ends, also
/// when a test fails.
#[test]
fn regression_the_scratch_folders_of_a_test_process_go_when_it_ends_even_on_failure() {
    let exe = std::env::current_exe().expect("the test knows its path");
    let output = std::process::Command::new(exe)
        .args(["--exact", "commands::child_makes_scratch_folders_and_fails", "--nocapture"])
        .env(SCRATCH_CHILD_ENV, "1")
        .output()
        .expect("the child run starts");
    assert!(!output.status.success(), "the child was meant to fail");
    let printed = String::from_utf8_lossy(&output.stdout);
    let root = printed
        .lines()
        .find_map(|line| line.strip_prefix("ROOT "))
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| panic!("the child printed no folder: {printed}"));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while root.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!root.exists(), "{} outlived its test process", root.display());
}

/// The child half of the test above: makes scratch folders, then fails.
#[test]
fn child_makes_scratch_folders_and_fails() {
    if std::env::var_os(SCRATCH_CHILD_ENV).is_none() {
        return;
    }
    let folder = common::scratch("child");
    std::fs::write(folder.join("file"), "x").expect("written");
    let _ = common::manifest("[[tool]]\nname = \"t\"\n");
    println!("ROOT {}", folder.parent().expect("a parent").display());
    panic!("this test fails on purpose, in a child run");
}

/// Regression: a command tool's result carried `structuredContent` (`{status, stderr,
/// stdout}`) with no `outputSchema`, beside a text block of stdout alone, so that Claude Code
/// handed its model the JSON and Gemini CLI the text. A tool's structured content is sent only
/// when it declares an output schema (and then its text is that JSON, serialized); a command
/// tool declares none, so every client shows its model the same text: stdout.
#[test]
fn regression_a_served_command_tool_gives_every_client_the_same_text() {
    let served = manifest(
        "[[tool]]\nname = \"echo\"\ndescription = \"Echo\"\nparameters = { type = \"object\", properties = { message = { type = \"string\" } } }\n[tool.command]\nargv = [\"echo\", \"{message}\"]\n",
    );
    let mut server = StdioServer::start(&served);
    server.call(2, "echo", json!({"message": "same for all"}));
    let reply = server.read();
    let result = &reply["result"];
    assert_eq!(result["content"][0]["text"], "same for all", "{reply}");
    assert!(result.get("structuredContent").is_none(), "{reply}");
}

/// Regression: an idle `serve --http` stopped by SIGTERM said "the calls under way were
/// stopped, with their processes" when no call was under way.
#[test]
fn regression_a_server_stopped_while_idle_says_no_call_was_under_way() {
    let port = common::http::free_port();
    let child = std::process::Command::new(binary())
        .arg("-m")
        .arg(example())
        .args(["serve", "--http", &format!("127.0.0.1:{port}")])
        .env("XDG_DATA_HOME", common::scratch("data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolwire serve starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "toolwire serve did not listen");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("signalled");
    let output = child.wait_with_output().expect("it ends");
    let said = stderr(&output);
    assert!(said.contains("interrupted by SIGTERM: no call was under way"), "{said}");
    assert!(!said.contains("were stopped"), "{said}");
}
