//! A registry that defers tools, served over MCP: a session lists the loaded tools and
//! `search_tools`, a search adds what it finds (with `tools/list_changed`), and a deferred tool
//! no search of the session found is refused; a 2026-07-28 client, with no session, is listed
//! every tool.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwire::registry::SEARCH_TOOL;
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

use crate::common::{Send, send};

/// A client on `protocol` that counts the `tools/list_changed` it hears.
#[derive(Clone)]
struct Listener {
    protocol: &'static str,
    changed: Arc<AtomicUsize>,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": self.protocol,
            "capabilities": {},
            "clientInfo": {"name": "listener", "version": "1.0.0"}
        }))
        .expect("a valid client config")
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.fetch_add(1, Ordering::SeqCst);
    }
}

/// `read_file` loaded, `get_weather` (counting its runs) and `send_mail` deferred.
fn registry(runs: &Arc<AtomicUsize>) -> Registry {
    let counter = Arc::clone(runs);
    let weather = Tool::define("get_weather")
        .description("Get the weather forecast for a city")
        .execute_sync(move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(Value::Null, "sunny")
        })
        .build()
        .expect("a tool");
    let plain = |name: &str, description: &str| {
        Tool::define(name)
            .description(description)
            .execute_sync(|_, _| ToolResult::ok(Value::Null, "done"))
            .build()
            .expect("a tool")
    };
    Registry::builder()
        .register(plain("read_file", "Read a file"))
        .register(weather)
        .register(plain("send_mail", "Send an email"))
        .defer_threshold(Some(1))
        .defer_loading("read_file", false)
        .seal()
        .expect("a registry")
}

async fn connect(
    registry: Registry,
    protocol: &'static str,
) -> (RunningService<RoleClient, Listener>, Arc<AtomicUsize>) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(registry).session().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let changed = Arc::new(AtomicUsize::new(0));
    let listener = Listener { protocol, changed: Arc::clone(&changed) };
    (listener.serve(client_io).await.expect("handshake"), changed)
}

async fn listed(client: &RunningService<RoleClient, Listener>) -> Vec<String> {
    let page = client.list_tools(None).await.expect("tools/list");
    page.tools.iter().map(|tool| tool.name.to_string()).collect()
}

async fn call(
    client: &RunningService<RoleClient, Listener>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    let Value::Object(arguments) = args else { panic!("arguments are an object") };
    let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    client.call_tool(request).await.expect("a result")
}

/// `registry` served over streamable HTTP with `options`; its address.
async fn over_http(registry: Registry, options: HttpOptions) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(serve_on(listener, McpServer::new(registry), options));
    addr
}

/// The tool names of a `tools/list` reply.
fn names(listed: &Value) -> Vec<&str> {
    let tools = listed["result"]["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
    tools.iter().filter_map(|tool| tool["name"].as_str()).collect()
}

fn text(result: &CallToolResult) -> String {
    serde_json::to_value(&result.content).expect("content").to_string()
}

#[tokio::test]
async fn a_session_searches_lists_what_it_found_and_cannot_call_a_guessed_tool() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (client, changed) = connect(registry(&runs), "2025-11-25").await;
    let info = client.peer_info().expect("the server's info");
    let list_changed = info.capabilities.tools.as_ref().and_then(|tools| tools.list_changed);
    assert_eq!(list_changed, Some(true));
    assert_eq!(listed(&client).await, ["read_file", SEARCH_TOOL]);

    let guessed = call(&client, "get_weather", json!({})).await;
    assert_eq!(guessed.is_error, Some(true));
    assert!(
        text(&guessed).contains("no search of this session has found it"),
        "{}",
        text(&guessed)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0, "a guess runs nothing");

    let found = call(&client, SEARCH_TOOL, json!({"query": "weather forecast"})).await;
    assert_eq!(found.is_error, Some(false), "{}", text(&found));
    assert!(text(&found).contains("get_weather"), "{}", text(&found));
    for _ in 0..100 {
        if changed.load(Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(changed.load(Ordering::SeqCst), 1, "tools/list_changed was sent");
    assert_eq!(listed(&client).await, ["read_file", SEARCH_TOOL, "get_weather"], "appended");

    let ran = call(&client, "get_weather", json!({})).await;
    assert_eq!(ran.is_error, Some(false), "{}", text(&ran));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    // The same search again finds nothing new, and says nothing more.
    call(&client, SEARCH_TOOL, json!({"query": "weather forecast"})).await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert_eq!(changed.load(Ordering::SeqCst), 1);
    let bad = call(&client, SEARCH_TOOL, json!({"query": 7})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("`query` must be a string"), "{}", text(&bad));
}

#[tokio::test]
async fn a_tool_found_in_one_session_is_not_callable_in_another() {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = registry(&runs);
    let (first, _) = connect(registry.clone(), "2025-11-25").await;
    call(&first, SEARCH_TOOL, json!({"query": "weather"})).await;
    let (second, _) = connect(registry, "2025-11-25").await;
    let refused = call(&second, "get_weather", json!({})).await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_client_is_listed_every_tool_and_calls_without_a_search() {
    let runs = Arc::new(AtomicUsize::new(0));
    let addr = over_http(registry(&runs), HttpOptions::default()).await;
    let request = |method: &'static str, mut params: Value| async move {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut headers = vec![
            ("MCP-Protocol-Version", "2026-07-28".to_owned()),
            ("Mcp-Method", method.to_owned()),
        ];
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            headers.push(("Mcp-Name", name.to_owned()));
        }
        send(addr, Send { headers, ..Send::default() }, body.to_string().as_bytes()).await.json()
    };
    let listed = request("tools/list", json!({})).await;
    assert_eq!(names(&listed), ["read_file", "get_weather", "send_mail"], "{listed}");
    let called = request("tools/call", json!({"name": "get_weather", "arguments": {}})).await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// Review of issue 42: stateless HTTP makes a service per request, so a session's finds would
/// be forgotten at once and every deferred tool refused forever; such a server lists every
/// tool, on any revision.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_server_without_sessions_lists_every_tool_to_a_2025_11_25_client() {
    let runs = Arc::new(AtomicUsize::new(0));
    let addr = over_http(registry(&runs), HttpOptions::default().stateless()).await;
    let request = |id: u64, method: &'static str, params: Value| async move {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let headers = vec![("MCP-Protocol-Version", "2025-11-25".to_owned())];
        send(addr, Send { headers, ..Send::default() }, body.to_string().as_bytes()).await.json()
    };
    let listed = request(1, "tools/list", json!({})).await;
    assert_eq!(names(&listed), ["read_file", "get_weather", "send_mail"], "{listed}");
    let called = request(2, "tools/call", json!({"name": "get_weather", "arguments": {}})).await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// Review of issue 42: a tool hidden from the session by the server's state is neither found
/// nor named by a search.
#[tokio::test]
async fn regression_a_search_does_not_name_a_tool_the_session_cannot_see() {
    /// The session's plan: weather is for paying customers.
    struct Plan {
        paying: bool,
    }
    let plain = |name: &str, description: &str| {
        Tool::define(name)
            .description(description)
            .execute_sync(|_, _| ToolResult::ok(Value::Null, "done"))
    };
    let registry = Registry::builder()
        .register(plain("read_file", "Read a file").build().expect("a tool"))
        .register(
            plain("get_weather", "Get the weather forecast for a city")
                .active(|plan: &Plan| plan.paying)
                .build()
                .expect("a tool"),
        )
        .register(plain("send_mail", "Send an email").build().expect("a tool"))
        .defer_threshold(Some(1))
        .defer_loading("read_file", false)
        .seal()
        .expect("a registry");
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(registry).state(Arc::new(Plan { paying: false }));
    tokio::spawn(async move {
        if let Ok(running) = server.session().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let listener = Listener { protocol: "2025-11-25", changed: Arc::default() };
    let client = listener.serve(client_io).await.expect("handshake");
    let found = call(&client, SEARCH_TOOL, json!({"query": "weather forecast"})).await;
    assert!(!text(&found).contains("get_weather"), "{}", text(&found));
    assert_eq!(listed(&client).await, ["read_file", SEARCH_TOOL]);
}
