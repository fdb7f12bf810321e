//! The load generator: keep-alive connections, one session, many `tools/call`s.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::servers::TEXT;

/// What one measurement found.
pub(crate) struct Stats {
    pub(crate) per_second: f64,
    pub(crate) p50: Duration,
    pub(crate) p99: Duration,
}

fn stats(mut latencies: Vec<Duration>, wall: Duration) -> Stats {
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q).round() as usize];
    Stats { per_second: latencies.len() as f64 / wall.as_secs_f64(), p50: at(0.50), p99: at(0.99) }
}

/// The protocol revision a measurement speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// 2025-11-25: one session, opened with `initialize`.
    Session,
    /// 2026-07-28: no session; each request carries its `_meta` and the new headers.
    Stateless,
}

impl Protocol {
    pub(crate) fn version(self) -> &'static str {
        match self {
            Protocol::Session => "2025-11-25",
            Protocol::Stateless => "2026-07-28",
        }
    }
}

/// A client of `url`: a session on 2025-11-25, none on 2026-07-28.
struct Session {
    http: reqwest::Client,
    url: String,
    id: Option<String>,
    protocol: Protocol,
}

impl Session {
    async fn open(url: &str, protocol: Protocol) -> Self {
        toolwire_mcp::install_tls_provider();
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .pool_max_idle_per_host(128)
            .build()
            .expect("a client");
        if protocol == Protocol::Stateless {
            return Self { http, url: url.to_owned(), id: None, protocol };
        }
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "toolwire-load", "version": "1"}
        }});
        let reply = post(&http, url, None, protocol, &init).await;
        let id = reply
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session")
            .to_owned();
        let _ = reply.text().await;
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let _ = post(&http, url, Some(&id), protocol, &note).await.text().await;
        Self { http, url: url.to_owned(), id: Some(id), protocol }
    }

    async fn call(&self, id: u64) {
        let mut params = json!({"name": "test_simple_text", "arguments": {}});
        if self.protocol == Protocol::Stateless {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let reply = post(&self.http, &self.url, self.id.as_deref(), self.protocol, &call).await;
        let body = reply.text().await.expect("a body");
        assert!(body.contains(TEXT), "unexpected reply: {body}");
    }
}

async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    protocol: Protocol,
    body: &Value,
) -> reqwest::Response {
    let mut request = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", protocol.version())
        .body(body.to_string());
    if protocol == Protocol::Stateless {
        let method = body.get("method").and_then(Value::as_str).unwrap_or_default();
        request = request.header("mcp-method", method);
        if let Some(name) = body.pointer("/params/name").and_then(Value::as_str) {
            request = request.header("mcp-name", name);
        }
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.expect("the server answers")
}

/// `calls` calls from `concurrency` workers on one session (or none, on 2026-07-28), after a
/// warm-up.
pub(crate) async fn measure(
    url: &str,
    protocol: Protocol,
    concurrency: usize,
    calls: usize,
) -> Stats {
    let session = Arc::new(Session::open(url, protocol).await);
    for id in 0..200 {
        session.call(id).await;
    }
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..concurrency {
        let session = Arc::clone(&session);
        let share = calls / concurrency;
        workers.spawn(async move {
            let mut latencies = Vec::with_capacity(share);
            for i in 0..share {
                let at = Instant::now();
                session.call((1000 + worker * share + i) as u64).await;
                latencies.push(at.elapsed());
            }
            latencies
        });
    }
    let mut latencies = Vec::with_capacity(calls);
    while let Some(done) = workers.join_next().await {
        latencies.extend(done.expect("a worker"));
    }
    stats(latencies, started.elapsed())
}

/// The same call through rmcp's client over an in-process pipe, one at a time.
pub(crate) async fn pipe_latency(calls: usize) -> Stats {
    let tool = toolwire::Tool::define("test_simple_text")
        .execute_sync(|_, _| toolwire::ToolResult::ok(Value::Null, TEXT))
        .build()
        .expect("a tool");
    let registry = toolwire::Registry::builder().register(tool).seal().expect("unique");
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server = toolwire_mcp::server::McpServer::new(registry);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_end).await.expect("a client");
    let mut latencies = Vec::with_capacity(calls);
    let started = Instant::now();
    for _ in 0..calls {
        let at = Instant::now();
        let result = client
            .call_tool(CallToolRequestParams::new("test_simple_text"))
            .await
            .expect("a result");
        assert_ne!(result.is_error, Some(true));
        latencies.push(at.elapsed());
    }
    stats(latencies, started.elapsed())
}

/// The resident memory this process gains, per session, from `sessions` idle sessions opened
/// on `url` (a server in this process).
pub(crate) async fn idle_session_bytes(url: &str, sessions: usize) -> f64 {
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let before = resident_bytes();
    for _ in 0..sessions {
        open_raw(&addr).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    (resident_bytes() - before) / sessions as f64
}

/// Opens a session with a plain connection that is closed at once.
async fn open_raw(addr: &str) {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "idle", "version": "1"}
    }})
    .to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connects");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("writes");
    stream.write_all(body.as_bytes()).await.expect("writes");
    let mut sink = Vec::new();
    let _ = stream.read_to_end(&mut sink).await;
}

/// This process's resident set, from `/proc/self/statm`.
fn resident_bytes() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0.0);
    pages * 4096.0
}
