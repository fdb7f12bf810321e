//! Calls over HTTP under stress: clients that go away mid-call, and a burst on one session.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::common::{Probe, Send, in_session, open_session, rpc, send, serve};
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use toolwire_mcp::server::HttpOptions;

/// Waits until `done` holds, for at most two seconds.
async fn eventually(done: impl Fn() -> bool) -> bool {
    within(Duration::from_secs(2), done).await
}

/// Waits until `done` holds, for at most `limit`.
async fn within(limit: Duration, done: impl Fn() -> bool) -> bool {
    for _ in 0..limit.as_millis() / 10 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    done()
}

/// Starts a `hang` call on its own connection and drops the connection once it runs.
async fn hang_then_disconnect(
    addr: std::net::SocketAddr,
    headers: &[(&str, String)],
    probe: &Probe,
) {
    let before = probe.started.load(Ordering::SeqCst);
    let body = rpc(7, "tools/call", json!({"name": "hang", "arguments": {}}));
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("writes");
    stream.write_all(&body).await.expect("writes");
    assert!(eventually(|| probe.started.load(Ordering::SeqCst) > before).await, "the call started");
    drop(stream);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_client_that_disconnects_mid_call_has_its_call_aborted() {
    let probe = Arc::new(Probe::default());
    let addr = serve(common::registry(&probe), HttpOptions::default().stateless()).await;
    hang_then_disconnect(addr, &[("MCP-Protocol-Version", "2025-11-25".into())], &probe).await;
    assert!(
        eventually(|| probe.dropped.load(Ordering::SeqCst) == 1).await,
        "the handler was dropped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_session_aborts_its_calls() {
    let probe = Arc::new(Probe::default());
    let addr = serve(common::registry(&probe), HttpOptions::default()).await;
    let session = open_session(addr, &[]).await;
    hang_then_disconnect(addr, &in_session(&session), &probe).await;
    // A stateful session may resume a dropped stream, so the call lives on until the session
    // ends; rmcp then lets running handlers finish for up to 5 s before it cancels them.
    let closed = send(
        addr,
        Send { method: "DELETE", headers: in_session(&session), ..Send::default() },
        b"",
    )
    .await;
    assert!(closed.status < 300, "{closed:?}");
    let dropped = within(Duration::from_secs(8), || probe.dropped.load(Ordering::SeqCst) == 1);
    assert!(dropped.await, "the handler was dropped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_10000_calls_on_one_session_gets_results_or_clear_limit_errors() {
    let probe = Arc::new(Probe::default());
    let addr = serve(common::registry(&probe), HttpOptions::default()).await;
    let session = Arc::new(open_session(addr, &[]).await);
    let mut tasks = tokio::task::JoinSet::new();
    let (mut answered, mut limited) = (0, 0);
    for id in 0..10_000u64 {
        if tasks.len() >= 256 {
            let (ok, limit) = tasks.join_next().await.expect("a task").expect("no panic");
            answered += usize::from(ok);
            limited += usize::from(limit);
        }
        let session = Arc::clone(&session);
        tasks.spawn(async move {
            let body = rpc(id + 1, "tools/call", json!({"name": "echo", "arguments": {"i": id}}));
            let reply =
                send(addr, Send { headers: in_session(&session), ..Send::default() }, &body).await;
            let result = &reply.json()["result"];
            let text = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            let ok = reply.status == 200
                && result["isError"] != true
                && result["structuredContent"]["i"] == id;
            let limit = result["isError"] == true && text.starts_with("too many calls running");
            assert!(ok || limit, "call {id}: {reply:?}");
            (ok, limit)
        });
    }
    while let Some(done) = tasks.join_next().await {
        let (ok, limit) = done.expect("no panic");
        answered += usize::from(ok);
        limited += usize::from(limit);
    }
    assert_eq!(answered + limited, 10_000);
    assert!(answered > 0);
    // And the session still serves.
    let after = send(
        addr,
        Send { headers: in_session(&session), ..Send::default() },
        &rpc(99_999, "tools/list", json!({})),
    )
    .await;
    assert_eq!(after.status, 200, "{after:?}");
}
