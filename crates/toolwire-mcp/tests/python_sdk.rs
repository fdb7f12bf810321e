//! The official MCP Python SDK (PyPI `mcp`, pinned in `interop/python/requirements.txt`)
//! completes an approval against toolwire-mcp's streamable HTTP server, in both eras:
//!
//! - in its default mode the SDK settles on 2026-07-28, gets an `InputRequiredResult` for a
//!   tool that needs approval, answers its `approval` elicitation with its elicitation
//!   callback and retries the call with `inputResponses` and the echoed `requestState`
//!   (multi round-trip requests, SEP-2322);
//! - forced to the initialize handshake (2025-11-25), it answers the server's own
//!   `elicitation/create` request, sent in the session while the call waits.
//!
//! Either way the callback is asked once, the call succeeds, and the handler runs once.
//! `interop/python/client.py` drives the SDK and prints what it saw as one JSON line.
//!
//! python3 must be installed with `venv` and `pip`. The first run creates a virtual
//! environment in the target folder (`target/python-mcp-venv`) and installs the pinned SDK
//! from PyPI into it, so it needs access to PyPI; the test fails (it does not skip) when it
//! cannot.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::approving_server;
use toolwire_test_support::python::{client_dir, python};

/// Runs the SDK client against `url` in `mode` and reads what it saw.
async fn run_client(url: &str, mode: &str) -> Value {
    let python = tokio::task::spawn_blocking(python).await.expect("the install finishes");
    let run = tokio::process::Command::new(python)
        .arg("client.py")
        .args([url, mode])
        .current_dir(client_dir())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the Python client finishes in time")
        .expect("the Python client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let seen: Value = serde_json::from_str(line).unwrap_or_else(|e| {
        panic!(
            "the client printed no JSON ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(
        seen.get("error"),
        None,
        "the client failed: {seen:#}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "the client exited with {}", output.status);
    seen
}

/// What both eras must show: one question, the tool's result, and one run of its handler.
fn assert_approved(seen: &Value, runs: &AtomicUsize) {
    assert_eq!(seen["tools"], json!(["deploy"]), "{seen:#}");
    let asked = seen["asked"].as_array().map(Vec::len);
    assert_eq!(asked, Some(1), "the elicitation callback is asked once: {seen:#}");
    assert_eq!(
        seen["result"],
        json!({"isError": false, "text": "deployed"}),
        "the approved call runs: {seen:#}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the handler runs exactly once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_in_its_default_mode_completes_an_approval_through_input_required_results() {
    let (url, runs) = approving_server().await;
    let seen = run_client(&url, "default").await;
    assert_eq!(seen["protocol"], "2026-07-28", "the SDK settles on the stateless era: {seen:#}");
    assert_approved(&seen, &runs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_sdk_client_on_2025_11_25_completes_an_approval_through_elicitation() {
    let (url, runs) = approving_server().await;
    let seen = run_client(&url, "legacy").await;
    assert_eq!(seen["protocol"], "2025-11-25", "the SDK shakes hands on 2025-11-25: {seen:#}");
    assert_approved(&seen, &runs);
}
