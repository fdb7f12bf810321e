//! What a 2026-07-28 client sees besides calls: every result says its `resultType`, even one
//! an extras handler built from JSON without it, and methods the revision removed are gone.

use rmcp::model::{ListPromptsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolwire::Registry;
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

use crate::common::{Send, send};

/// Prompts built from JSON, as a handler may build them: no `resultType` in them.
struct JsonPrompts;

impl ServerHandler for JsonPrompts {
    fn get_info(&self) -> ServerConfig {
        // What a 2025-11-25 handler may promise, which a server without
        // `subscriptions/listen` cannot keep on 2026-07-28.
        let capabilities: ServerCapabilities = serde_json::from_value(json!({
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true}
        }))
        .unwrap_or_default();
        ServerConfig::new(capabilities)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        serde_json::from_value(json!({"prompts": [{"name": "hello"}]}))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}

async fn server() -> std::net::SocketAddr {
    let registry = Registry::builder().seal().expect("an empty registry");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    let server = McpServer::new(registry).with_extras(JsonPrompts);
    tokio::spawn(serve_on(listener, server, HttpOptions::default()));
    addr
}

/// A 2026-07-28 request of `method`, and its JSON-RPC reply.
async fn request(addr: std::net::SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
    let headers =
        vec![("MCP-Protocol-Version", "2026-07-28".to_owned()), ("Mcp-Method", method.to_owned())];
    send(addr, Send { headers, ..Send::default() }, body.to_string().as_bytes()).await.json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extras_result_built_without_result_type_gets_one() {
    let addr = server().await;
    let reply = request(addr, "prompts/list", json!({})).await;
    assert_eq!(reply["result"]["prompts"][0]["name"], "hello", "{reply}");
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_set_level_is_not_a_method_of_2026_07_28() {
    let addr = server().await;
    let reply = request(addr, "logging/setLevel", json!({"level": "debug"})).await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_promises_no_list_changes_without_subscriptions_listen() {
    let addr = server().await;
    let reply = request(addr, "server/discover", json!({})).await;
    let capabilities = &reply["result"]["capabilities"];
    assert!(capabilities["prompts"].is_object(), "{reply}");
    assert!(capabilities["prompts"].get("listChanged").is_none(), "{reply}");
    assert!(capabilities["resources"].is_object(), "{reply}");
    assert!(capabilities["resources"].get("subscribe").is_none(), "{reply}");
    assert!(capabilities["resources"].get("listChanged").is_none(), "{reply}");
}

/// A server whose `listens` tool says whether its caller listens to events, and logs once.
async fn listening_server() -> std::net::SocketAddr {
    let listens = toolwire::Tool::define("listens")
        .output_schema(json!({"type": "object"}))
        .execute_sync(|_, ctx| {
            ctx.emit(json!({"level": "warning", "data": "heard"}));
            toolwire::ToolResult::ok_json(json!({"listens": ctx.has_event_listener()}))
        })
        .build()
        .expect("a valid tool");
    let registry = Registry::builder().register(listens).seal().expect("one tool");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(serve_on(listener, McpServer::new(registry), HttpOptions::default()));
    addr
}

/// A 2026-07-28 `tools/call` of `listens` with `meta` added to the request's `_meta`, and
/// the whole reply body.
async fn call_listens(addr: std::net::SocketAddr, meta: Value) -> String {
    let mut full = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    for (key, value) in meta.as_object().into_iter().flatten() {
        full[key] = value.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "listens", "arguments": {}, "_meta": full}});
    let headers = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", "listens".to_owned()),
    ];
    send(addr, Send { headers, ..Send::default() }, body.to_string().as_bytes()).await.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_events_could_go_nowhere_tells_its_handler_nobody_listens() {
    let addr = listening_server().await;
    let body = call_listens(addr, json!({})).await;
    assert!(body.contains(r#""listens":false"#), "{body}");
    assert!(!body.contains("notifications/message"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_with_a_log_level_or_a_progress_token_still_gets_its_events() {
    let addr = listening_server().await;
    let body = call_listens(addr, json!({"io.modelcontextprotocol/logLevel": "info"})).await;
    assert!(body.contains(r#""listens":true"#), "{body}");
    assert!(body.contains("notifications/message") && body.contains("heard"), "{body}");
    let body = call_listens(addr, json!({"progressToken": "p1"})).await;
    assert!(body.contains(r#""listens":true"#), "{body}");
    // A log message is not progress, and there is no log level: nothing else is sent.
    assert!(!body.contains("notifications/message"), "{body}");
}
