//! The official MCP TypeScript SDK client (npm `@modelcontextprotocol/sdk`, pinned in
//! `interop/package.json`) drives toolwire-mcp's server over stdio and over streamable HTTP:
//! it lists tools, calls one and receives its progress, gets a validation failure as
//! `isError`, cancels a long call, and then asks the server whether the cancelled handler's
//! future was dropped.
//!
//! Node and npm must be installed; the test installs the pinned packages with `npm ci` when
//! they are missing, and fails (it does not skip) when it cannot.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Once;

use serde_json::{Value, json};

/// The repository's `interop` folder, with its npm packages installed.
fn interop_dir() -> PathBuf {
    static INSTALL: Once = Once::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop");
    INSTALL.call_once(|| {
        let installed = ["@modelcontextprotocol/sdk", "sdk-2025-06-18"];
        if installed.iter().all(|package| dir.join("node_modules").join(package).exists()) {
            return;
        }
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm runs (install Node.js and npm)");
        assert!(status.success(), "npm ci in {} failed", dir.display());
    });
    dir
}

/// The demo server example, built by `cargo test` beside this test.
fn demo_server() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its path");
    let debug = exe.parent().and_then(Path::parent).expect("target/<profile>/deps/<test>");
    let server =
        debug.join("examples").join(format!("demo_server{}", std::env::consts::EXE_SUFFIX));
    assert!(server.exists(), "{} was not built", server.display());
    server
}

/// Runs the SDK client with `args` and reads what it saw.
fn run_client(args: &[&str]) -> Value {
    let output = Command::new("node")
        .arg("client.mjs")
        .args(args)
        .current_dir(interop_dir())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| {
        panic!(
            "the client printed no JSON ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// What every transport must show.
fn assert_interop(seen: &Value) {
    assert_eq!(seen.get("failure"), None, "{seen:#}");
    assert_eq!(seen["server"], "toolwire-demo");
    assert_eq!(seen["tools"], json!(["count", "echo", "hang", "hang_status"]));
    assert_eq!(seen["count"]["result"], json!({"counted": 3}));
    // Progress arrives, in order. The SDK hands a notification to its handler a microtask
    // later, but a response at once, and forgets the call's progress handler with the response:
    // a notification the server wrote just before the result can be dropped by the client.
    let progress: Vec<u64> = seen["count"]["progress"]
        .as_array()
        .map(|p| p.iter().filter_map(serde_json::Value::as_u64).collect())
        .unwrap_or_default();
    assert_eq!(progress.first(), Some(&1), "progress arrives: {progress:?}");
    assert!(
        progress.windows(2).all(|w| w[0] < w[1]) && progress.iter().all(|p| *p <= 3),
        "{progress:?}"
    );
    assert_eq!(
        seen["invalid"]["isError"], true,
        "a validation failure is isError, not an exception"
    );
    let text = seen["invalid"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("/n"), "the failure names where: {text}");
    assert_eq!(seen["cancel"]["rejected"], true);
    assert_eq!(
        seen["hang"],
        json!({"started": true, "dropped": true}),
        "the cancelled handler was dropped"
    );
    assert_eq!(
        seen["unknown"],
        json!({"error": true, "code": -32602}),
        "an unknown tool is a JSON-RPC error"
    );
}

#[test]
fn the_typescript_sdk_client_drives_the_server_over_stdio() {
    let server = demo_server();
    let seen = run_client(&["stdio", server.to_str().expect("a UTF-8 path")]);
    assert_interop(&seen);
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The demo server over HTTP, and its URL.
fn http_server() -> (Server, String) {
    let mut child = Command::new(demo_server())
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stderr).read_line(&mut line).expect("the server says where it listens");
    let url = line.trim().strip_prefix("listening on ").expect("an address line").to_owned();
    (server, url)
}

#[test]
fn the_typescript_sdk_client_drives_the_server_over_http() {
    let (_server, url) = http_server();
    let seen = run_client(&["http", &url]);
    assert_interop(&seen);
}

/// Regression: every SSE stream opened with an event that has an id and no data (SSE
/// priming, from revision 2025-11-25 on), whatever revision was negotiated. A client of an
/// earlier revision reads each event's data as JSON-RPC: the TypeScript SDK that Gemini CLI
/// 0.61 uses (2025-06-18) failed with "Unexpected end of JSON input", and its model was
/// offered no tool. Driven here by that SDK's own client.
#[test]
fn regression_a_2025_06_18_client_over_http_gets_no_priming_event_it_cannot_parse() {
    let (_server, url) = http_server();
    let output = Command::new("node")
        .args(["client-2025-06-18.mjs", &url])
        .current_dir(interop_dir())
        .output()
        .expect("node runs (install Node.js)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let seen: Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("no JSON ({e}): {stdout}"));
    assert_eq!(seen["revision"], "2025-06-18", "{seen}");
    assert_eq!(seen.get("failure"), None, "{seen}");
    assert_eq!(seen["errors"], json!([]), "{seen}");
    assert_eq!(seen["tools"], json!(["count", "echo", "hang", "hang_status"]), "{seen}");
    assert_eq!(seen["echo"], "echoed", "{seen}");
}
