//! What a task costs over a plain call, on MCP 2026-07-28 over loopback HTTP, each beside the
//! plain call measured in the same run:
//!
//! - `plain_call`: `tools/call` of a trivial tool that is never a task;
//! - `task_memory`: `tools/call` of the same tool marked `TaskSupport::Required`, which ends
//!   at once and so is stored as a task already completed (`MemoryTaskStore`), and one
//!   `tasks/get` of it;
//! - `task_journal`: the same with the task written to an SQLite journal (`toolwire-journal`)
//!   before `CreateTaskResult` is sent, and read back by the `tasks/get`.
//!
//! Tasks live two seconds here, so that the memory store (10,000 live tasks at most) is not
//! filled by the run. Run with `cargo bench -p toolwire-mcp --bench tasks`.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolwire::tasks::TaskStore;
use toolwire::{Registry, TaskSupport, Tool, ToolResult};
use toolwire_journal::Journal;
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn registry() -> Registry {
    let tool = |name: &str, support: TaskSupport| {
        Tool::define(name)
            .task_support(support)
            .execute_sync(|args, _| ToolResult::ok(args, "ok"))
            .build()
            .unwrap()
    };
    Registry::builder()
        .register(tool("plain", TaskSupport::Forbidden))
        .register(tool("task", TaskSupport::Required))
        .seal()
        .unwrap()
}

/// Serves the tools with `store`; the server's URL.
async fn serve(store: Option<Arc<dyn TaskStore>>) -> String {
    // Short-lived, so that the memory store's 10,000 live tasks are not filled by the run.
    let mut server = McpServer::new(registry()).task_ttl(Duration::from_secs(2));
    if let Some(store) = store {
        server = server.task_store(store);
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_on(listener, server, HttpOptions::default()));
    format!("http://{addr}/mcp")
}

/// Sends one 2026-07-28 request from a client that follows tasks; the reply's `result`.
async fn send(http: &reqwest::Client, url: &str, method: &str, name: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let text = reply.text().await.unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    value["result"].clone()
}

async fn plain(http: &reqwest::Client, url: &str) {
    let result = send(http, url, "tools/call", "plain", json!({"name": "plain", "arguments": {}}));
    assert_eq!(result.await["resultType"], "complete");
}

async fn task(http: &reqwest::Client, url: &str) {
    let created = send(http, url, "tools/call", "task", json!({"name": "task", "arguments": {}}));
    let created = created.await;
    let id = created["taskId"].as_str().unwrap_or_else(|| panic!("no task: {created}"));
    let got = send(http, url, "tasks/get", id, json!({"taskId": id})).await;
    assert_eq!(got["status"], "completed");
}

fn tasks(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let (memory_url, journal_url) = rt.block_on(async {
        let path = format!("sqlite:{}", dir.path().join("tasks.db").display());
        let journal: Arc<dyn TaskStore> = Arc::new(Journal::open(&path).await.unwrap());
        (serve(None).await, serve(Some(journal)).await)
    });
    toolwire_mcp::install_tls_provider();
    let http = reqwest::Client::builder().tcp_nodelay(true).build().unwrap();
    let mut group = c.benchmark_group("tasks");
    group.bench_function("plain_call", |b| b.to_async(&rt).iter(|| plain(&http, &memory_url)));
    group.bench_function("task_memory", |b| b.to_async(&rt).iter(|| task(&http, &memory_url)));
    group.bench_function("task_journal", |b| b.to_async(&rt).iter(|| task(&http, &journal_url)));
    group.finish();
}

criterion_group!(benches, tasks);
criterion_main!(benches);
