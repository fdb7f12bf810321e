//! One `tools/call` through each server's HTTP router, in process, on both revisions (2026-07-28
//! without a session, 2025-11-25 on a session opened beforehand): no socket and no load
//! generator, so the figure is the server's own work per request, and steady enough
//! to compare toolwire-mcp with bare rmcp on a shared machine. The request is what the load
//! benchmark sends; the response body is read whole.
//!
//! Run with `cargo bench -p toolwire-mcp --bench http_inprocess`.

#[path = "load/servers.rs"]
#[allow(dead_code, reason = "the load benchmark's servers; this one uses their routers only")]
mod servers;

use axum::body::Body;
use criterion::{Criterion, criterion_group, criterion_main};
use http::Request;
use serde_json::json;
use tower::Service;

/// The 2026-07-28 request of a call of the benchmark's tool, as a client sends it.
fn call() -> Request<Body> {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "test_simple_text", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }});
    Request::post("/mcp")
        .header("host", "localhost")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "test_simple_text")
        .body(Body::from(body.to_string()))
        .expect("a request")
}

/// A 2025-11-25 request with `body` in the session `session`, as a client sends it.
fn in_session(session: &str, body: &serde_json::Value) -> Request<Body> {
    Request::post("/mcp")
        .header("host", "localhost")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session)
        .body(Body::from(body.to_string()))
        .expect("a request")
}

/// Opens a 2025-11-25 session on `router` (`initialize`, then `notifications/initialized`);
/// returns its id.
async fn open_session(router: &axum::Router) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}
    }});
    let request = Request::post("/mcp")
        .header("host", "localhost")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(Body::from(init.to_string()))
        .expect("a request");
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
async fn once_in_session(router: &axum::Router, session: &str) -> usize {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "test_simple_text", "arguments": {}
    }});
    let reply = router.clone().call(in_session(session, &body)).await.expect("axum answers");
    read(reply).await
}

/// Sends one call through `router` and reads the whole reply.
async fn once(router: &axum::Router) -> usize {
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

fn routers(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let toolwire = toolwire_mcp::server::router(
        servers::toolwire_server(),
        toolwire_mcp::server::HttpOptions::default(),
    );
    let rmcp = servers::rmcp_router();
    let mut group = c.benchmark_group("http_inprocess_2026_07_28");
    group.bench_function("rmcp_bare", |b| b.to_async(&runtime).iter(|| once(&rmcp)));
    group.bench_function("toolwire_mcp", |b| b.to_async(&runtime).iter(|| once(&toolwire)));
    group.finish();

    let mut group = c.benchmark_group("http_inprocess_2025_11_25");
    let rmcp_session = runtime.block_on(open_session(&rmcp));
    let toolwire_session = runtime.block_on(open_session(&toolwire));
    group.bench_function("rmcp_bare", |b| {
        b.to_async(&runtime).iter(|| once_in_session(&rmcp, &rmcp_session));
    });
    group.bench_function("toolwire_mcp", |b| {
        b.to_async(&runtime).iter(|| once_in_session(&toolwire, &toolwire_session));
    });
    group.finish();
}

criterion_group!(benches, routers);
criterion_main!(benches);
