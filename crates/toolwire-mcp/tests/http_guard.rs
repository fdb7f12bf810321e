//! The HTTP side's checks, on by default: each bad request gets a clear JSON-RPC error and
//! nothing else, and the server goes on serving.

use crate::common;

use std::sync::Arc;

use crate::common::{Send, in_session, open_session, rpc, send, serve};
use serde_json::json;
use toolwire_mcp::server::HttpOptions;

async fn server(options: HttpOptions) -> std::net::SocketAddr {
    serve(common::registry(&Arc::default()), options).await
}

fn list() -> Vec<u8> {
    rpc(1, "tools/list", json!({}))
}

#[tokio::test]
async fn a_foreign_host_or_origin_is_refused_and_loopback_is_served() {
    let addr = server(HttpOptions::default()).await;
    let foreign = send(addr, Send { host: Some("evil.example"), ..Send::default() }, &list()).await;
    assert_eq!(foreign.status, 403);
    assert_eq!(foreign.json()["error"]["message"], "the Host header is not allowed");
    let origin =
        Send { headers: vec![("Origin", "https://evil.example".into())], ..Send::default() };
    let refused = send(addr, origin, &list()).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.json()["error"]["message"], "the Origin header is not allowed");
    let local = Send {
        headers: vec![("Origin", format!("http://localhost:{}", addr.port()))],
        ..Send::default()
    };
    let host = format!("localhost:{}", addr.port());
    let served = send(addr, Send { host: Some(&host), ..local }, &rpc(0, "initialize", json!({
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
    })))
    .await;
    assert_eq!(served.status, 200, "{served:?}");
}

#[tokio::test]
async fn a_missing_or_wrong_bearer_token_is_refused() {
    let addr = server(HttpOptions::default().bearer_token("s3cret")).await;
    let missing = send(addr, Send::default(), &list()).await;
    assert_eq!(missing.status, 401);
    assert_eq!(missing.header("www-authenticate"), Some("Bearer"));
    let wrong =
        Send { headers: vec![("Authorization", "Bearer s3cres".into())], ..Send::default() };
    assert_eq!(send(addr, wrong, &list()).await.status, 401);
    let right = vec![("Authorization", "Bearer s3cret".to_owned())];
    let session = open_session(addr, &right).await;
    assert!(!session.is_empty());
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let addr = server(HttpOptions::default().max_body_bytes(1024)).await;
    let big = rpc(1, "tools/call", json!({"name": "echo", "arguments": {"pad": "x".repeat(4096)}}));
    let reply = send(addr, Send::default(), &big).await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.json()["error"]["code"], -32600);
    assert!(reply.json()["error"]["message"].as_str().unwrap().contains("1024 bytes"));
}

#[tokio::test]
async fn malformed_json_rpc_gets_a_json_rpc_error_and_nothing_else() {
    let addr = server(HttpOptions::default()).await;
    let broken = send(addr, Send::default(), b"{\"jsonrpc\": \"2.0\", \"id\": 1,").await;
    assert_eq!(broken.status, 400);
    assert_eq!(broken.header("content-type"), Some("application/json"));
    let error = broken.json();
    assert_eq!(error["error"]["code"], -32700);
    assert_eq!(error["id"], serde_json::Value::Null);
    let not_rpc = send(addr, Send::default(), b"[1, 2, 3]").await;
    assert_eq!(not_rpc.status, 400);
    assert_eq!(not_rpc.json()["error"]["code"], -32600);
    // The server goes on serving.
    assert!(!open_session(addr, &[]).await.is_empty());
}

#[tokio::test]
async fn a_body_over_the_limit_with_no_length_declared_gets_the_same_413() {
    // No Content-Length: the size shows only as the body is read, which rmcp does; its
    // refusal is answered as toolwire's own.
    let addr = server(HttpOptions::default().max_body_bytes(1024)).await;
    let big = rpc(1, "tools/call", json!({"name": "echo", "arguments": {"pad": "x".repeat(4096)}}));
    let reply = send(addr, Send { chunks: Some(512), ..Send::default() }, &big).await;
    assert_eq!(reply.status, 413, "{reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.json()["error"]["code"], -32600);
    assert!(reply.json()["error"]["message"].as_str().unwrap().contains("1024 bytes"));
    assert!(!open_session(addr, &[]).await.is_empty());
}

#[tokio::test]
async fn a_malformed_body_in_several_chunks_gets_the_same_json_rpc_errors() {
    let addr = server(HttpOptions::default()).await;
    let chunked = || Send { chunks: Some(7), ..Send::default() };
    let broken = send(addr, chunked(), b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\":").await;
    assert_eq!(broken.status, 400, "{broken:?}");
    assert_eq!(broken.json()["error"]["code"], -32700);
    let not_rpc =
        send(addr, chunked(), b"{\"jsonrpc\": \"1.0\", \"id\": 1, \"method\": \"x\"}").await;
    assert_eq!(not_rpc.status, 400, "{not_rpc:?}");
    assert_eq!(not_rpc.json()["error"]["code"], -32600);
    // A well-formed request in chunks is served.
    let init = rpc(
        0,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}
        }),
    );
    let served = send(addr, chunked(), &init).await;
    assert_eq!(served.status, 200, "{served:?}");
}

#[tokio::test]
async fn a_body_rmcp_refuses_for_its_headers_keeps_rmcps_answer() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // The Content-Type is wrong, so rmcp never reads the body, and it is not judged: the
    // answer is rmcp's own, which names the header.
    let addr = server(HttpOptions::default()).await;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = "not json at all";
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/plain\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.unwrap();
    assert!(raw.starts_with("HTTP/1.1 415"), "{raw}");
    assert!(raw.contains("Content-Type must be application/json"), "{raw}");
}

#[tokio::test]
async fn an_unknown_session_id_is_refused_clearly() {
    let addr = server(HttpOptions::default()).await;
    let stranger = Send { headers: in_session("no-such-session"), ..Send::default() };
    let reply = send(addr, stranger, &list()).await;
    assert!((400..500).contains(&reply.status), "{reply:?}");
    assert!(!reply.body.is_empty(), "the refusal says why: {reply:?}");
}
