//! One `tools/call` through an HTTP router in process, as the load benchmark's client sends
//! it, on both revisions: what `http_inprocess` times and `http_instructions` counts.

use axum::body::Body;
use http::Request;
use serde_json::json;
use tower::Service;

use super::servers;

/// A POST to the endpoint with the headers every request of the benchmark's client has.
fn post() -> http::request::Builder {
    Request::post("/mcp")
        .header("host", "localhost")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
}

/// The 2026-07-28 request of a call of the benchmark's tool, as a client sends it.
fn call() -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "test_simple_text", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }});
    post()
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "test_simple_text")
        .body(Body::from(body.to_string()))
        .expect("a request")
}

/// A 2025-11-25 request with `body` in the session `session`, as a client sends it.
fn in_session(session: &str, body: &serde_json::Value) -> Request<Body> {
    post()
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .body(Body::from(body.to_string()))
        .expect("a request")
}

/// Opens a 2025-11-25 session on `router` (`initialize`, then `notifications/initialized`);
/// returns its id.
pub(crate) async fn open_session(router: &axum::Router) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}
    }});
    let request = post().body(Body::from(init.to_string())).expect("a request");
    let reply = router.clone().call(request).await.expect("axum answers");
    let session = reply.headers().get("mcp-session-id").expect("a session id");
    let session = session.to_str().expect("ASCII").to_owned();
    axum::body::to_bytes(reply.into_body(), usize::MAX).await.expect("a body");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = router.clone().call(in_session(&session, &note)).await.expect("axum answers");
    assert!(reply.status().is_success(), "{reply:?}");
    session
}

/// Sends one call in `session` through `router` and reads the whole reply (an event stream
/// that ends with the result).
pub(crate) async fn once_in_session(router: &axum::Router, session: &str) -> usize {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "test_simple_text", "arguments": {}
    }});
    let reply = router.clone().call(in_session(session, &body)).await.expect("axum answers");
    read(reply).await
}

/// Sends one call through `router` and reads the whole reply.
pub(crate) async fn once(router: &axum::Router) -> usize {
    let mut service = router.clone();
    let reply = service.call(call()).await.expect("axum answers");
    read(reply).await
}

/// Reads the whole of a successful reply, which must hold the tool's text.
async fn read(reply: http::Response<Body>) -> usize {
    assert!(reply.status().is_success(), "{reply:?}");
    let body = axum::body::to_bytes(reply.into_body(), usize::MAX).await.expect("a body");
    assert!(body.windows(servers::TEXT.len()).any(|w| w == servers::TEXT.as_bytes()));
    body.len()
}
