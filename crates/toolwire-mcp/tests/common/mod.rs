//! What the HTTP tests share: a server of test tools on a free loopback port, and a plain
//! HTTP/1.1 client that shows exactly what went over the wire.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

/// What the test tools record.
#[derive(Default)]
pub(crate) struct Probe {
    pub(crate) started: AtomicUsize,
    pub(crate) dropped: AtomicUsize,
}

struct DropCount(Arc<Probe>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

/// `echo`, and `hang`, which never finishes and counts its starts and drops.
pub(crate) fn registry(probe: &Arc<Probe>) -> Registry {
    let hanging = Arc::clone(probe);
    let hang = Tool::define("hang")
        .execute(move |_, _| {
            let probe = Arc::clone(&hanging);
            async move {
                probe.started.fetch_add(1, Ordering::SeqCst);
                let _count = DropCount(Arc::clone(&probe));
                std::future::pending::<ToolResult>().await
            }
        })
        .build()
        .expect("valid");
    let echo = Tool::define("echo")
        .output_schema(json!({"type": "object"}))
        .execute_sync(|args, _| ToolResult::ok(args, "echoed"))
        .build()
        .expect("valid");
    Registry::builder().register(hang).register(echo).seal().expect("unique")
}

/// `deploy`, a tool that needs approval and counts its runs in `runs`.
pub(crate) fn counted_deploy(runs: &Arc<AtomicUsize>) -> Tool {
    let counted = Arc::clone(runs);
    Tool::define("deploy")
        .description("Deploy")
        .needs_approval(true)
        .execute_sync(move |args: Value, _| {
            counted.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(args, "deployed")
        })
        .build()
        .expect("valid")
}

/// Serves one tool, `deploy`, that needs approval, over HTTP on a free port; returns its
/// endpoint's URL and how many times the handler ran.
pub(crate) async fn approving_server() -> (String, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Registry::builder().register(counted_deploy(&runs)).seal().expect("unique");
    let addr = serve(registry, HttpOptions::default()).await;
    (format!("http://{addr}/mcp"), runs)
}

/// Serves `registry` with `options` on a free port; returns the address.
pub(crate) async fn serve(registry: Registry, options: HttpOptions) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(serve_on(listener, McpServer::new(registry), options));
    addr
}

/// One HTTP response.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as JSON, or the JSON of its last SSE `data:` line.
    pub(crate) fn json(&self) -> Value {
        if let Ok(value) = serde_json::from_str(&self.body) {
            return value;
        }
        let mut data = self.body.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim);
        let last = data.rfind(|d| !d.is_empty()).unwrap_or("null");
        serde_json::from_str(last).unwrap_or(Value::Null)
    }
}

/// A request's parts beyond the body.
pub(crate) struct Send<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) host: Option<&'a str>,
    pub(crate) headers: Vec<(&'a str, String)>,
    /// Sends the body in chunks of at most this many bytes, with no `Content-Length`, so the
    /// server learns its size only by reading it.
    pub(crate) chunks: Option<usize>,
}

impl Default for Send<'_> {
    fn default() -> Self {
        Self { method: "POST", path: "/mcp", host: None, headers: Vec::new(), chunks: None }
    }
}

/// Sends one request on its own connection and reads the whole response.
pub(crate) async fn send(addr: std::net::SocketAddr, parts: Send<'_>, body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    let host = parts.host.map_or_else(|| addr.to_string(), str::to_owned);
    let length = match parts.chunks {
        Some(_) => "Transfer-Encoding: chunked".to_owned(),
        None => format!("Content-Length: {}", body.len()),
    };
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{length}\r\nConnection: close\r\n",
        parts.method, parts.path,
    );
    for (name, value) in &parts.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("writes");
    match parts.chunks {
        Some(size) => {
            for chunk in body.chunks(size.max(1)) {
                let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), chunk, b"\r\n"].concat();
                // The server may refuse the body before it has all of it, and close.
                if stream.write_all(&framed).await.is_err() {
                    break;
                }
            }
            let _ = stream.write_all(b"0\r\n\r\n").await;
        }
        None => stream.write_all(body).await.expect("writes"),
    }
    let mut raw = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw)).await;
    read.expect("the server answers in time").expect("reads");
    parse(&raw)
}

fn parse(raw: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(raw);
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status =
        lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked { unchunk(rest) } else { rest.to_owned() };
    Reply { status, headers, body }
}

fn unchunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else { break };
        if size == 0 || after.len() < size {
            break;
        }
        out.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    out
}

/// A JSON-RPC request body.
pub(crate) fn rpc(id: u64, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string().into_bytes()
}

/// Opens a session: `initialize`, then `notifications/initialized`; returns its id.
pub(crate) async fn open_session(
    addr: std::net::SocketAddr,
    extra: &[(&'static str, String)],
) -> String {
    let init = rpc(
        0,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "toolwire-test", "version": "1"}
        }),
    );
    let reply = send(addr, Send { headers: extra.to_vec(), ..Send::default() }, &init).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let session = reply.header("mcp-session-id").expect("a session id").to_owned();
    let mut headers = extra.to_vec();
    headers.push(("Mcp-Session-Id", session.clone()));
    headers.push(("MCP-Protocol-Version", "2025-11-25".into()));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let reply = send(addr, Send { headers, ..Send::default() }, note.as_bytes()).await;
    assert!(reply.status == 202 || reply.status == 200, "{reply:?}");
    session
}

/// The headers of a request in `session`.
pub(crate) fn in_session(session: &str) -> Vec<(&'static str, String)> {
    vec![("Mcp-Session-Id", session.to_owned()), ("MCP-Protocol-Version", "2025-11-25".into())]
}
