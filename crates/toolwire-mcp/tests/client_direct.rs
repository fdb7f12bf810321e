//! A 2026-07-28 `tools/call` over HTTP, sent by toolwire's client itself (one POST from the
//! calling task), seen from the server's side of the wire: what it sends, and what it makes
//! of answers that are odd, broken, too large or cut short.
//!
//! The upstream is toolwire's own server behind a layer that records each request and may
//! answer a `tools/call` of `echo` itself, as the test in hand asks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use http::{HeaderMap, StatusCode, header};
use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::client::{ClientOptions, McpConfig, RemoteServer};
use toolwire_mcp::server::{HttpOptions, McpServer, router};

/// A request the upstream received: its method, headers and JSON body (`Null` for a GET).
#[derive(Clone)]
struct Seen {
    method: http::Method,
    headers: HeaderMap,
    body: Value,
}

/// How the layer answers a `tools/call` of `echo`: given the request's id, a response, or
/// `None` to let the server answer.
type Answer = Arc<dyn Fn(&Value) -> Option<Response> + Send + Sync>;

#[derive(Clone)]
struct Upstream {
    seen: Arc<Mutex<Vec<Seen>>>,
    echo: Arc<Mutex<Option<Answer>>>,
    resume: Arc<Mutex<Option<Answer>>>,
    /// The upstream's `hang` handler was dropped.
    hang_stopped: Arc<AtomicBool>,
}

/// Sets its flag when dropped.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

async fn record(State(up): State<Upstream>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap_or_default();
    let json: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    up.seen.lock().unwrap().push(Seen {
        method: parts.method.clone(),
        headers: parts.headers.clone(),
        body: json.clone(),
    });
    let id = &json["id"];
    if parts.method == http::Method::GET && parts.headers.contains_key("last-event-id") {
        let resume = up.resume.lock().unwrap().clone();
        if let Some(response) = resume.and_then(|answer| answer(&Value::Null)) {
            return response;
        }
    }
    if json["method"] == "tools/call" && json["params"]["name"] == "echo" {
        let echo = up.echo.lock().unwrap().clone();
        if let Some(response) = echo.and_then(|answer| answer(id)) {
            return response;
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The upstream, served, and a client connected to it with `x-team: blue` configured.
async fn connected(options: ClientOptions) -> (Upstream, RemoteServer, Registry) {
    let hang_stopped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&hang_stopped);
    let hang = Tool::define("hang").execute(move |_: Value, _ctx| {
        let guard = SetOnDrop(Arc::clone(&flag));
        async move {
            let _guard = guard;
            std::future::pending::<ToolResult>().await
        }
    });
    let echo = Tool::define("echo")
        .parameters(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
        .execute_sync(|args, _| ToolResult::ok(json!({}), args["text"].as_str().unwrap_or("")));
    let registry = Registry::builder()
        .register(echo.build().expect("echo"))
        .register(hang.build().expect("hang"))
        .seal()
        .expect("registry");
    let up = Upstream {
        seen: Arc::default(),
        echo: Arc::default(),
        resume: Arc::default(),
        hang_stopped,
    };
    let app = router(McpServer::new(registry), HttpOptions::default())
        .layer(middleware::from_fn_with_state(up.clone(), record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config = McpConfig::from_json(
        &json!({"mcpServers": {"up": {"url": url, "headers": {"x-team": "blue"}}}}).to_string(),
    )
    .expect("config");
    let remote =
        RemoteServer::connect("up", config.get("up").expect("listed"), options).await.expect("up");
    let tools = remote.import().tools;
    let registry = Registry::builder().register_all(tools).seal().expect("imported");
    (up, remote, registry)
}

impl Upstream {
    fn answer_echo(&self, answer: impl Fn(&Value) -> Option<Response> + Send + Sync + 'static) {
        *self.echo.lock().unwrap() = Some(Arc::new(answer));
    }

    fn answer_resume(&self, answer: impl Fn(&Value) -> Option<Response> + Send + Sync + 'static) {
        *self.resume.lock().unwrap() = Some(Arc::new(answer));
    }

    /// The requests whose JSON-RPC method is `method`.
    fn requests(&self, method: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|seen| seen.body["method"] == method)
            .cloned()
            .collect()
    }
}

fn response(status: StatusCode, content_type: &str, body: impl Into<Body>) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.into())
        .expect("a response")
}

fn reply(id: &Value, text: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": text}], "isError": false}})
    .to_string()
}

async fn echo(registry: &Registry, text: &str) -> ToolResult {
    registry.invoke("up__echo", json!({"text": text})).await.result
}

#[tokio::test]
async fn a_plain_call_is_one_post_with_the_standard_headers_the_configured_ones_and_its_meta() {
    let (up, _remote, registry) = connected(ClientOptions::new()).await;
    let result = echo(&registry, "hello").await;
    assert_eq!(result.text(), Some("hello"), "{result:?}");
    let calls = up.requests("tools/call");
    assert_eq!(calls.len(), 1, "one POST for one call");
    let call = &calls[0];
    let header = |name: &str| call.headers.get(name).and_then(|v| v.to_str().ok());
    assert_eq!(header("mcp-method"), Some("tools/call"));
    assert_eq!(header("mcp-name"), Some("echo"));
    assert_eq!(header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(header("x-team"), Some("blue"));
    assert!(header("accept").is_some_and(|a| a.contains("text/event-stream")));
    // Sent by toolwire itself: its request ids count down from -1, rmcp's up from 0.
    assert!(call.body["id"].as_i64().is_some_and(|id| id < 0), "{}", call.body);
    let meta = &call.body["params"]["_meta"];
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{meta}");
    assert!(meta.get("progressToken").is_some(), "{meta}");
    assert!(meta.get("io.modelcontextprotocol/clientCapabilities").is_some(), "{meta}");
}

#[tokio::test]
async fn a_stream_that_ends_early_is_resumed_by_get_with_its_last_event_id() {
    let (up, _remote, registry) = connected(ClientOptions::new()).await;
    let id = Arc::new(Mutex::new(Value::Null));
    let kept = Arc::clone(&id);
    up.answer_echo(move |id| {
        *kept.lock().unwrap() = id.clone();
        Some(response(StatusCode::OK, "text/event-stream", "id: ev-1\nretry: 10\ndata: \n\n"))
    });
    let kept = Arc::clone(&id);
    up.answer_resume(move |_| {
        let id = kept.lock().unwrap().clone();
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": id, "progress": 1, "total": 2}});
        let body =
            format!("id: ev-2\ndata: {progress}\n\nid: ev-3\ndata: {}\n\n", reply(&id, "resumed"));
        Some(response(StatusCode::OK, "text/event-stream", body))
    });
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let result = registry
        .invoke("up__echo", json!({"text": "x"}))
        .on_event(move |event| sink.lock().unwrap().push(event))
        .await
        .result;
    assert_eq!(result.text(), Some("resumed"), "{result:?}");
    let gets: Vec<Seen> =
        up.seen.lock().unwrap().iter().filter(|s| s.method == http::Method::GET).cloned().collect();
    assert_eq!(gets.len(), 1);
    assert_eq!(gets[0].headers.get("last-event-id").and_then(|v| v.to_str().ok()), Some("ev-1"));
    assert_eq!(gets[0].headers.get("x-team").and_then(|v| v.to_str().ok()), Some("blue"));
    let events = events.lock().unwrap();
    assert!(events.iter().any(|e| e["type"] == "progress" && e["progress"] == 1), "{events:?}");
}

#[tokio::test]
async fn a_stream_that_ends_without_an_id_fails_the_call_in_words() {
    let (up, _remote, registry) = connected(ClientOptions::new()).await;
    up.answer_echo(|_| Some(response(StatusCode::OK, "text/event-stream", ": nothing\n\n")));
    let result = echo(&registry, "x").await;
    let text = result.text().unwrap_or_default().to_owned();
    assert!(result.failure_kind().is_some(), "{result:?}");
    assert!(text.contains("mcp server \"up\"") && text.contains("before the result"), "{text}");
}

#[tokio::test]
async fn a_dropped_call_closes_its_stream_and_the_upstream_handler_stops() {
    let (up, _remote, registry) = connected(ClientOptions::new()).await;
    let stopped = Arc::clone(&up.hang_stopped);
    let dropped = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        registry.invoke("up__hang", json!({})),
    )
    .await;
    assert!(dropped.is_err(), "the call hangs until it is dropped");
    let seen = crate::client_support::eventually(|| stopped.load(Ordering::SeqCst));
    assert!(seen.await, "the upstream's handler was dropped with the stream");
}

#[tokio::test]
async fn answers_past_the_limit_are_refused_and_the_next_call_goes_through() {
    let options = ClientOptions::new().max_result_bytes(4096);
    let (up, _remote, registry) = connected(options).await;
    let big = "x".repeat(200_000);
    let json = big.clone();
    up.answer_echo(move |id| {
        (id != &Value::Null).then(|| response(StatusCode::OK, "application/json", reply(id, &json)))
    });
    let result = echo(&registry, "x").await;
    let text = result.text().unwrap_or_default().to_owned();
    assert!(text.contains("bytes allowed") && text.contains("mcp server \"up\""), "{text}");

    up.answer_echo(move |id| {
        let event = format!("data: {}\n\n", reply(id, &big));
        Some(response(StatusCode::OK, "text/event-stream", event))
    });
    let result = echo(&registry, "x").await;
    let text = result.text().unwrap_or_default().to_owned();
    assert!(text.contains("bytes allowed"), "{text}");

    *up.echo.lock().unwrap() = None;
    assert_eq!(echo(&registry, "after").await.text(), Some("after"));
}

#[tokio::test]
async fn broken_answers_fail_the_call_saying_what_the_server_sent() {
    let (up, _remote, registry) = connected(ClientOptions::new()).await;
    let cases: Vec<(Answer, &str)> = vec![
        (
            Arc::new(|id| {
                let error = json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32000, "message": "the disk is full"}});
                Some(response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "application/json",
                    error.to_string(),
                ))
            }),
            "rejected the call to \"echo\": the disk is full",
        ),
        (
            Arc::new(|_| Some(response(StatusCode::SERVICE_UNAVAILABLE, "text/plain", "later"))),
            "503 Service Unavailable with \"text/plain\"",
        ),
        (
            Arc::new(|_| Some(response(StatusCode::OK, "application/json", "{not json"))),
            "a message that is not MCP",
        ),
        (
            Arc::new(|_| {
                Some(response(StatusCode::OK, "text/event-stream", &b"data: \xff\n\n"[..]))
            }),
            "an event that is not UTF-8",
        ),
        (
            Arc::new(|_| Some(response(StatusCode::ACCEPTED, "application/json", ""))),
            "with no result",
        ),
    ];
    for (answer, expected) in cases {
        *up.echo.lock().unwrap() = Some(answer);
        let result = echo(&registry, "x").await;
        let text = result.text().unwrap_or_default().to_owned();
        assert!(result.failure_kind().is_some(), "{expected}: {result:?}");
        assert!(text.contains(expected), "{expected:?} in {text:?}");
        assert!(text.contains("mcp server \"up\""), "{text}");
    }
    *up.echo.lock().unwrap() = None;
    assert_eq!(echo(&registry, "fine").await.text(), Some("fine"));
}
