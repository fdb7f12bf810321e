//! A plain MCP 2026-07-28 `tools/call` answered with JSON is served in front of rmcp's
//! per-request service. Whatever a client sends, it must get what rmcp's own path answers:
//! the same server with JSON responses turned off serves every call through rmcp, and each
//! request below is sent to both and the replies compared.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolResult};
use toolwire_mcp::server::HttpOptions;

use crate::common::{self, Reply, Send, send, serve};

const V2026: &str = "2026-07-28";
const MAX_BODY: usize = 16 * 1024;

fn registry(deploys: &Arc<AtomicUsize>) -> Registry {
    let echo = Tool::define("echo")
        .output_schema(json!({"type": "object"}))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "echoed"))
        .build()
        .expect("valid");
    let fails = Tool::define("fails")
        .execute_sync(|_: Value, _| ToolResult::failure("the disk is full"))
        .build()
        .expect("valid");
    let panics = Tool::define("panics")
        .execute_sync(|_: Value, _| -> ToolResult { panic!("a bug in the handler") })
        .build()
        .expect("valid");
    let strict = Tool::define("strict")
        .parameters(json!({
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
            "additionalProperties": false
        }))
        .output_schema(json!({"type": "object"}))
        .execute_sync(|args: Value, _| ToolResult::ok(args, "counted"))
        .build()
        .expect("valid");
    let deploy = common::counted_deploy(deploys);
    Registry::builder()
        .register(echo)
        .register(fails)
        .register(panics)
        .register(strict)
        .register(deploy)
        .seal()
        .expect("unique names")
}

/// The same registry served twice: answered in front of rmcp (JSON responses, the default)
/// and through rmcp alone (event streams).
struct Pair {
    direct: std::net::SocketAddr,
    through_rmcp: std::net::SocketAddr,
    deploys: Arc<AtomicUsize>,
}

impl Pair {
    async fn new() -> Self {
        let deploys = Arc::new(AtomicUsize::new(0));
        let options = HttpOptions::default().max_body_bytes(MAX_BODY);
        let direct = serve(registry(&deploys), options.clone()).await;
        let through_rmcp = serve(registry(&deploys), options.json_response(false)).await;
        Self { direct, through_rmcp, deploys }
    }

    /// Sends `body` with `headers` to both servers; asserts that the replies agree (status
    /// and JSON-RPC message, a `requestState` aside, which is sealed with a fresh nonce) and
    /// returns the direct one.
    async fn both(
        &self,
        headers: &[(&'static str, String)],
        body: &[u8],
        chunks: Option<usize>,
    ) -> Reply {
        let parts = || Send { headers: headers.to_vec(), chunks, ..Send::default() };
        let direct = send(self.direct, parts(), body).await;
        let through_rmcp = send(self.through_rmcp, parts(), body).await;
        assert_eq!(direct.status, through_rmcp.status, "{direct:?}\n{through_rmcp:?}");
        assert_eq!(
            without_state(direct.json()),
            without_state(through_rmcp.json()),
            "{direct:?}\n{through_rmcp:?}"
        );
        direct
    }

    /// A plain `tools/call` of `tool` with `params` added, sent to both.
    async fn call(&self, tool: &str, params: Value) -> Reply {
        self.both(&headers(tool), &call_body(tool, params), None).await
    }
}

fn headers(tool: &str) -> Vec<(&'static str, String)> {
    vec![
        ("MCP-Protocol-Version", V2026.to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", tool.to_owned()),
    ]
}

fn call_body(tool: &str, extra: Value) -> Vec<u8> {
    let mut params = json!({
        "name": tool,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": V2026,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        }
    });
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        for (key, value) in extra {
            match (key.as_str(), params.get_mut("_meta")) {
                ("_meta", Some(meta)) => {
                    if let (Some(meta), Value::Object(more)) = (meta.as_object_mut(), value) {
                        meta.extend(more);
                    }
                }
                _ => {
                    params.insert(key, value);
                }
            }
        }
    }
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
        .to_string()
        .into_bytes()
}

fn without_state(mut reply: Value) -> Value {
    if let Some(result) = reply.get_mut("result").and_then(Value::as_object_mut) {
        result.remove("requestState");
    }
    reply
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_call_gets_what_rmcp_would_answer_for_every_kind_of_result() {
    let pair = Pair::new().await;
    let ok = pair.call("echo", json!({"arguments": {"say": "hi"}})).await;
    assert_eq!(ok.header("content-type"), Some("application/json"), "{ok:?}");
    assert_eq!(ok.json()["result"]["structuredContent"], json!({"say": "hi"}), "{ok:?}");
    assert_eq!(ok.json()["result"]["resultType"], "complete", "{ok:?}");
    let failed = pair.call("fails", json!({})).await;
    assert_eq!(failed.json()["result"]["isError"], true, "{failed:?}");
    let panicked = pair.call("panics", json!({})).await;
    assert_eq!(panicked.json()["result"]["isError"], true, "{panicked:?}");
    let wrong_type = pair.call("strict", json!({"arguments": {"n": "three"}})).await;
    assert_eq!(wrong_type.json()["result"]["isError"], true, "{wrong_type:?}");
    let asked = pair.call("deploy", json!({"arguments": {"env": "prod"}})).await;
    assert_eq!(asked.json()["result"]["resultType"], "input_required", "{asked:?}");
    assert_eq!(pair.deploys.load(Ordering::SeqCst), 0, "nothing ran before the approval");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_issued_in_front_of_rmcp_completes_the_call_once() {
    let pair = Pair::new().await;
    let asked = send(
        pair.direct,
        Send { headers: headers("deploy"), ..Send::default() },
        &call_body("deploy", json!({"arguments": {"env": "prod"}})),
    )
    .await;
    let state = asked.json()["result"]["requestState"].as_str().expect("a state").to_owned();
    let retry = json!({
        "arguments": {"env": "prod"},
        "requestState": state,
        "inputResponses": {"approval": {"action": "accept", "content": {}}}
    });
    let body = call_body("deploy", retry);
    let parts = || Send { headers: headers("deploy"), ..Send::default() };
    let done = send(pair.direct, parts(), &body).await;
    // `deploy` declares no output schema: its text only.
    assert_eq!(done.json()["result"]["content"][0]["text"], "deployed", "{done:?}");
    assert_eq!(done.json()["result"]["structuredContent"], Value::Null, "{done:?}");
    let replayed = send(pair.direct, parts(), &body).await;
    assert_eq!(replayed.json()["error"]["code"], -32602, "{replayed:?}");
    assert_eq!(pair.deploys.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_that_are_not_plain_get_what_rmcp_answers() {
    let pair = Pair::new().await;
    // An unknown tool, and a header that names another tool than the body.
    pair.call("nothing", json!({})).await;
    let mut lying = headers("echo");
    lying[2].1 = "deploy".to_owned();
    let mismatch = pair.both(&lying, &call_body("echo", json!({})), None).await;
    assert_eq!(mismatch.status, 400, "{mismatch:?}");
    // No capabilities in `_meta`, a progress token, a log level, a retry without a state.
    let bare = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "echo", "_meta": {"io.modelcontextprotocol/protocolVersion": V2026}
    }});
    let missing = pair.both(&headers("echo"), bare.to_string().as_bytes(), None).await;
    assert_eq!(missing.status, 400, "{missing:?}");
    pair.call("echo", json!({"_meta": {"progressToken": 5}})).await;
    pair.call("echo", json!({"_meta": {"io.modelcontextprotocol/logLevel": "debug"}})).await;
    pair.call("deploy", json!({"inputResponses": {"approval": {"action": "accept"}}})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_huge_and_deeply_nested_bodies_get_what_rmcp_answers() {
    let pair = Pair::new().await;
    let malformed = pair.both(&headers("echo"), b"{\"jsonrpc\": \"2.0\", \"id\": 7,", None).await;
    assert_eq!(malformed.json()["error"]["code"], -32700, "{malformed:?}");
    let not_rpc =
        pair.both(&headers("echo"), b"{\"id\": 7, \"method\": \"tools/call\"}", None).await;
    assert_eq!(not_rpc.json()["error"]["code"], -32600, "{not_rpc:?}");
    let wrong_params =
        br#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": 5}}"#;
    pair.both(&headers("echo"), wrong_params, None).await;
    // Deeper than any JSON parser here reads (serde_json stops at 128 levels).
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    let body = String::from_utf8(call_body("echo", json!({"arguments": {"deep": 0}})))
        .expect("utf-8")
        .replace("\"deep\":0", &format!("\"deep\":{deep}"));
    assert!(body.contains("[[[["), "{body:.80}");
    pair.both(&headers("echo"), body.as_bytes(), None).await;
    // Past the limit, with no length declared: the server learns it only by reading.
    let huge = call_body("echo", json!({"arguments": {"pad": "x".repeat(2 * MAX_BODY)}}));
    let refused = pair.both(&headers("echo"), &huge, Some(4096)).await;
    assert_eq!(refused.status, 413, "{refused:?}");
}

/// Starts a plain call of `hang` (see `common::registry`) on a connection of its own, and
/// returns that connection once the handler runs.
async fn hanging_call(
    addr: std::net::SocketAddr,
    probe: &crate::common::Probe,
) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let before = probe.started.load(Ordering::SeqCst);
    let body = call_body("hang", json!({"arguments": {}}));
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers("hang") {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connects");
    stream.write_all(head.as_bytes()).await.expect("writes");
    stream.write_all(&body).await.expect("writes");
    let started = eventually(|| probe.started.load(Ordering::SeqCst) > before).await;
    assert!(started, "the call started");
    stream
}

/// Waits until `done` holds, for at most two seconds.
async fn eventually(done: impl Fn() -> bool) -> bool {
    for _ in 0..200 {
        if done() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    done()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_call_whose_client_goes_away_has_its_handler_dropped() {
    let probe = Arc::new(crate::common::Probe::default());
    let addr = serve(crate::common::registry(&probe), HttpOptions::default()).await;
    let stream = hanging_call(addr, &probe).await;
    drop(stream);
    let dropped = eventually(|| probe.dropped.load(Ordering::SeqCst) == 1).await;
    assert!(dropped, "the handler was dropped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_call_past_the_server_s_call_limit_is_refused_not_queued() {
    let probe = Arc::new(crate::common::Probe::default());
    let limits = toolwire_mcp::server::CallLimits::new(64, 1);
    let server =
        toolwire_mcp::server::McpServer::new(crate::common::registry(&probe)).call_limits(limits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(toolwire_mcp::server::serve_on(listener, server, HttpOptions::default()));
    let hanging = hanging_call(addr, &probe).await;
    let parts = Send { headers: headers("echo"), ..Send::default() };
    let refused = send(addr, parts, &call_body("echo", json!({"arguments": {}}))).await;
    let result = &refused.json()["result"];
    assert_eq!(result["isError"], true, "{refused:?}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("too many calls running on this server"), "{refused:?}");
    // The place comes back when the hanging call's client goes away.
    drop(hanging);
    assert!(eventually(|| probe.dropped.load(Ordering::SeqCst) == 1).await);
    let parts = Send { headers: headers("echo"), ..Send::default() };
    let served = send(addr, parts, &call_body("echo", json!({"arguments": {"n": 1}}))).await;
    assert_eq!(served.json()["result"]["structuredContent"], json!({"n": 1}), "{served:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_call_without_the_token_or_from_a_foreign_host_never_runs() {
    let deploys = Arc::new(AtomicUsize::new(0));
    let options = HttpOptions::default().bearer_token("s3cret");
    let addr = serve(registry(&deploys), options).await;
    let body = call_body("echo", json!({"arguments": {"say": "hi"}}));
    let no_token = send(addr, Send { headers: headers("echo"), ..Send::default() }, &body).await;
    assert_eq!(no_token.status, 401, "{no_token:?}");
    let mut wrong = headers("echo");
    wrong.push(("Authorization", "Bearer s3creT".to_owned()));
    let wrong_token = send(addr, Send { headers: wrong, ..Send::default() }, &body).await;
    assert_eq!(wrong_token.status, 401, "{wrong_token:?}");
    let mut right = headers("echo");
    right.push(("Authorization", "Bearer s3cret".to_owned()));
    let rebinding =
        Send { host: Some("evil.example:80"), headers: right.clone(), ..Send::default() };
    let foreign = send(addr, rebinding, &body).await;
    assert_eq!(foreign.status, 403, "{foreign:?}");
    for refused in [&no_token, &wrong_token, &foreign] {
        assert!(!refused.body.contains("hi"), "no result leaked: {refused:?}");
    }
    let served = send(addr, Send { headers: right, ..Send::default() }, &body).await;
    assert_eq!(served.json()["result"]["structuredContent"], json!({"say": "hi"}), "{served:?}");
}

/// Regression: the endpoint answered at every path below its own: `POST /mcp/anything` with an
/// `initialize` opened a session, and `GET /mcp/.well-known/oauth-protected-resource`, which
/// OAuth discovery probes, answered 406 rather than 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_only_the_endpoints_own_path_is_served() {
    let pair = Pair::new().await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let body = initialize.to_string();
    for addr in [pair.direct, pair.through_rmcp] {
        let below =
            send(addr, Send { path: "/mcp/anything", ..Send::default() }, body.as_bytes()).await;
        assert_eq!(below.status, 404, "{below:?}");
        let discovery = Send {
            method: "GET",
            path: "/mcp/.well-known/oauth-protected-resource",
            ..Send::default()
        };
        let probed = send(addr, discovery, b"").await;
        assert_eq!(probed.status, 404, "{probed:?}");
        let own = send(addr, Send::default(), body.as_bytes()).await;
        assert_eq!(own.status, 200, "{own:?}");
    }
}
