//! The three servers of the load benchmark, each on its own free loopback port.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use tokio::net::TcpListener;
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::server::{HttpOptions, McpServer, serve_on};

/// The text every server's tool returns.
pub(crate) const TEXT: &str = "This is a simple text response for testing.";

/// A running server: its name, its endpoint, and the process to stop, if it is one.
pub(crate) struct Target {
    pub(crate) name: String,
    pub(crate) url: String,
    _process: Option<Stopper>,
}

struct Stopper(Child);

impl Drop for Stopper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn listener() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    (listener, url)
}

/// toolwire-mcp's server of the benchmark's tool, validated and receipted like any other.
pub(crate) fn toolwire_server() -> McpServer {
    let tool = Tool::define("test_simple_text")
        .description("Return simple text")
        .parameters(json!({"type": "object", "properties": {}}))
        .execute_sync(|_, _| ToolResult::ok(serde_json::Value::Null, TEXT))
        .build()
        .expect("a valid tool");
    McpServer::new(Registry::builder().register(tool).seal().expect("unique"))
}

/// toolwire-mcp's `serve_on`, with the default `HttpOptions`.
pub(crate) async fn toolwire() -> Target {
    let (listener, url) = listener().await;
    tokio::spawn(serve_on(listener, toolwire_server(), HttpOptions::default()));
    Target { name: "toolwire-mcp".into(), url, _process: None }
}

/// The least an rmcp server does: one hand-written tool, no validation.
#[derive(Clone)]
pub(crate) struct Bare;

/// The bare handler, to serve over a transport of one's own.
#[allow(dead_code, reason = "gateway_load serves it over stdio; http_load does not")]
pub(crate) fn bare() -> Bare {
    Bare
}

impl ServerHandler for Bare {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::default();
        capabilities.tools = Some(Default::default());
        ServerConfig::new(capabilities)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tool: McpTool = serde_json::from_value(json!({
            "name": "test_simple_text", "inputSchema": {"type": "object"}
        }))
        .expect("a tool");
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(TEXT)]).into())
    }
}

/// The bare handler in rmcp's `StreamableHttpService`, at `/mcp`, with plain JSON replies
/// for sessionless requests.
pub(crate) fn rmcp_router() -> axum::Router {
    let service = StreamableHttpService::new(
        || Ok(Bare),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_json_response(true),
    );
    axum::Router::new().nest_service("/mcp", service)
}

/// rmcp's `StreamableHttpService` in axum, with TCP_NODELAY, as MCP.md measured it, and
/// plain JSON replies for sessionless requests, as toolwire-mcp's default has them.
pub(crate) async fn rmcp_bare() -> Target {
    let router = rmcp_router();
    let (listener, url) = listener().await;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, router).await });
    Target { name: "rmcp, bare handler".into(), url, _process: None }
}

/// The limit: a bare axum handler that parses the JSON-RPC body and writes the same result
/// as `application/json`, with no MCP machinery at all.
pub(crate) async fn axum_limit() -> Target {
    async fn handle(body: axum::body::Bytes) -> axum::response::Response {
        use axum::response::IntoResponse;
        let Ok(request) = serde_json::from_slice::<serde_json::Value>(&body) else {
            return axum::http::StatusCode::BAD_REQUEST.into_response();
        };
        let reply = json!({"jsonrpc": "2.0", "id": request.get("id"), "result": {
            "content": [{"type": "text", "text": TEXT}], "resultType": "complete"
        }});
        ([(axum::http::header::CONTENT_TYPE, "application/json")], reply.to_string())
            .into_response()
    }
    let router = axum::Router::new().route("/mcp", axum::routing::post(handle));
    let (listener, url) = listener().await;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move { axum::serve(listener, router).await });
    Target { name: "limit: bare axum JSON-RPC handler".into(), url, _process: None }
}

/// The TypeScript SDK's `McpServer`, in Node.
pub(crate) async fn typescript() -> Target {
    let interop = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../interop");
    if !interop.join("node_modules/@modelcontextprotocol/sdk").exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&interop)
            .status();
        assert!(status.is_ok_and(|s| s.success()), "npm ci in interop/ failed");
    }
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        probe.local_addr().expect("bound").port()
    };
    let child = Command::new("node")
        .arg("server.mjs")
        .arg(port.to_string())
        .current_dir(&interop)
        .stderr(Stdio::null())
        .spawn()
        .expect("node starts");
    let url = format!("http://127.0.0.1:{port}/mcp");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    Target { name: "TypeScript SDK McpServer".into(), url, _process: Some(Stopper(child)) }
}

/// The runtime the load benchmarks run in: two workers, as the machine has two cores, shared
/// by the servers and the load generator.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}
