//! A small MCP server for the client tests, served in-process over a duplex stream, over
//! streamable HTTP on 127.0.0.1, or as a child process (this test binary run again).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ContentBlock, ErrorData, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{
    NotificationContext, RequestContext, RoleServer, SubscriptionContext, SubscriptionSink,
};
use rmcp::{Peer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use toolwire_mcp::client::{ClientOptions, RemoteServer};

/// The env var that makes [`child_server_entry`] serve on stdio.
pub(crate) const CHILD_ENV: &str = "TOOLWIRE_MCP_TEST_CHILD_SERVER";

/// What the server saw, shared by all its sessions.
#[derive(Default)]
pub(crate) struct Seen {
    /// A `notifications/cancelled` arrived.
    pub cancelled_notification: AtomicBool,
    /// A running handler saw its request's cancellation token fire.
    pub handler_cancelled: AtomicBool,
    pub calls: AtomicUsize,
    /// The peers of the sessions, to send `tools/list_changed`.
    pub peers: Mutex<Vec<Peer<RoleServer>>>,
    /// The open `subscriptions/listen` streams of 2026-07-28 clients, which hear the same.
    pub listeners: Mutex<Vec<SubscriptionSink>>,
    /// The description of `echo`, changed by [`TestServer::change_echo`].
    pub echo_description: Mutex<String>,
}

#[derive(Clone, Default)]
pub(crate) struct TestServer {
    pub seen: Arc<Seen>,
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

impl TestServer {
    pub(crate) fn new() -> Self {
        let server = Self::default();
        *server.seen.echo_description.lock().unwrap() = "Echo the text".into();
        server
    }

    fn tools(&self) -> Vec<Tool> {
        let object = |props: Value| schema(json!({"type": "object", "properties": props}));
        let echo_description = self.seen.echo_description.lock().unwrap().clone();
        vec![
            Tool::new("echo", echo_description, object(json!({"text": {"type": "string"}}))),
            Tool::new(
                "add",
                "Add two numbers",
                schema(json!({"type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]})),
            ),
            Tool::new("steps", "Report progress", object(json!({"steps": {"type": "integer"}}))),
            Tool::new(
                "tick",
                "Report progress every 50 ms",
                object(json!({"ms": {"type": "integer"}})),
            ),
            Tool::new("hang", "Wait until cancelled", object(json!({}))),
            Tool::new("fail", "Fail with isError", object(json!({}))),
            Tool::new("rpc_error", "Fail with a JSON-RPC error", object(json!({}))),
            Tool::new("picture", "Return an image", object(json!({}))),
            Tool::new("die", "Exit the process mid-call", object(json!({}))),
            Tool::new("files.read", "A dotted name", object(json!({}))),
            Tool::new("ask", "Ask the user which environment", object(json!({}))),
            Tool::new("broken", "An invalid schema", object(json!({"x": {"type": "nope"}}))),
        ]
    }

    /// Changes `echo`'s description and tells every session.
    pub(crate) async fn change_echo(&self, description: &str) {
        *self.seen.echo_description.lock().unwrap() = description.into();
        let peers = self.seen.peers.lock().unwrap().clone();
        for peer in peers {
            let _ = peer.notify_tool_list_changed().await;
        }
        let listeners = self.seen.listeners.lock().unwrap().clone();
        for listener in listeners {
            let _ = listener.notify_tool_list_changed().await;
        }
    }

    async fn run(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.seen.calls.fetch_add(1, Ordering::SeqCst);
        let args = request.arguments.unwrap_or_default();
        let text = |t: String| Ok(CallToolResult::success(vec![ContentBlock::text(t)]));
        match request.name.as_ref() {
            "echo" => text(args.get("text").and_then(Value::as_str).unwrap_or("").to_owned()),
            "add" => {
                let num = |k: &str| args.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                let sum = num("a") + num("b");
                let mut result = CallToolResult::structured(json!({"sum": sum}));
                result.content = vec![ContentBlock::text(format!("sum is {sum}"))];
                Ok(result)
            }
            "steps" => {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3);
                let token = ctx.meta.get_progress_token();
                for done in 1..=steps {
                    if let Some(token) = token.clone() {
                        let param = ProgressNotificationParam::new(token, done as f64)
                            .with_total(steps as f64)
                            .with_message(format!("step {done}"));
                        let _ = ctx.peer.notify_progress(param).await;
                    }
                }
                tokio::time::sleep(Duration::from_millis(30)).await;
                text(format!("did {steps} steps"))
            }
            "tick" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(300);
                let token = ctx.meta.get_progress_token();
                for i in 0..ms / 50 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    if let Some(token) = token.clone() {
                        let _ = ctx
                            .peer
                            .notify_progress(ProgressNotificationParam::new(token, (i + 1) as f64))
                            .await;
                    }
                }
                text(format!("ticked for {ms} ms"))
            }
            "hang" => {
                tokio::select! {
                    () = ctx.ct.cancelled() => { self.seen.handler_cancelled.store(true, Ordering::SeqCst); }
                    () = tokio::time::sleep(Duration::from_secs(30)) => {}
                }
                text("woke up".into())
            }
            "fail" => Ok(CallToolResult::error(vec![ContentBlock::text("boom: the disk is full")])),
            "rpc_error" => Err(ErrorData::internal_error("kaput", None)),
            "picture" => Ok(CallToolResult::success(vec![
                ContentBlock::text("a red dot"),
                ContentBlock::image("iVBORw0KGgo=", "image/png"),
            ])),
            "die" => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                std::process::exit(3)
            }
            "ask" => {
                let params = serde_json::from_value(json!({
                    "mode": "form",
                    "message": "Which environment?",
                    "requestedSchema": {"type": "object", "properties": {
                        "env": {"type": "string", "default": "staging"},
                        "replicas": {"type": "integer", "default": 2}
                    }}
                }))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                let reply = ctx
                    .peer
                    .create_elicitation(params)
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                let reply = serde_json::to_value(&reply).unwrap_or_default();
                Ok(CallToolResult::structured(reply))
            }
            _ => text("ok".into()),
        }
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities =
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("test-server", "0.0.1"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.seen.listeners.lock().unwrap().push(context.sink().clone());
        context.cancelled().await;
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.run(request, ctx).await.map(Into::into)
    }

    async fn on_cancelled(
        &self,
        _params: CancelledNotificationParam,
        _ctx: NotificationContext<RoleServer>,
    ) {
        self.seen.cancelled_notification.store(true, Ordering::SeqCst);
    }

    async fn on_initialized(&self, ctx: NotificationContext<RoleServer>) {
        self.seen.peers.lock().unwrap().push(ctx.peer);
    }
}

/// Serves a fresh [`TestServer`] over an in-process duplex stream and connects to it.
pub(crate) async fn duplex(name: &str, options: ClientOptions) -> (TestServer, RemoteServer) {
    let server = TestServer::new();
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let handler = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = handler.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = RemoteServer::connect_transport(name, client_io, options)
        .await
        .expect("connect over duplex");
    (server, client)
}

/// Serves [`TestServer`] over streamable HTTP on 127.0.0.1 and returns its url.
pub(crate) async fn http() -> (TestServer, String) {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let server = TestServer::new();
    let factory = server.clone();
    let service = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    let url = format!("http://{}/mcp", listener.local_addr().expect("local addr"));
    tokio::spawn(async move { axum::serve(listener, router).await });
    (server, url)
}

/// The `mcp.json` entry that runs this test binary as a stdio server.
pub(crate) fn child_entry() -> Value {
    let exe = std::env::current_exe().expect("current exe");
    json!({
        "command": exe.to_string_lossy(),
        "args": [CHILD_TEST, "--exact", "--nocapture", "--test-threads=1"],
        "env": {CHILD_ENV: "1"}
    })
}

/// The test that runs [`child_server_entry`], by its path in the test binary.
const CHILD_TEST: &str = "client_transports::child_server_entry";

/// Serves [`TestServer`] on stdio when run as the child; returns at once otherwise. The test
/// named by [`CHILD_TEST`] has this body.
pub(crate) fn child_server_entry() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    // libtest has written "test client_transports::child_server_entry ... " with no newline:
    // end that line, so the first message is a line of its own (the client skips lines that
    // are not JSON).
    let mut stdout = std::io::stdout();
    let _ = std::io::Write::write_all(&mut stdout, b"\n");
    let _ = std::io::Write::flush(&mut stdout);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        if let Ok(running) = TestServer::new().serve(rmcp::transport::stdio()).await {
            let _ = running.waiting().await;
        }
    });
    std::process::exit(0);
}

/// Waits up to 5 s for `check` to hold.
pub(crate) async fn eventually(mut check: impl FnMut() -> bool) -> bool {
    for _ in 0..500 {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}
