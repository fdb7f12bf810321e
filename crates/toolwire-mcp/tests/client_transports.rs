//! Connections from an `mcp.json`: streamable HTTP on 127.0.0.1, and a child process over
//! stdio that dies in the middle of a call.

use crate::client_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{FailureKind, Registry, ToolCall};
use toolwire_mcp::client::{ClientOptions, ConnectErrorKind, McpConfig, RemoteServer};

use crate::client_support::{child_entry, duplex, http};

#[test]
fn child_server_entry() {
    client_support::child_server_entry();
}

async fn connect(config: &McpConfig, name: &str) -> RemoteServer {
    let server = config.get(name).expect("listed");
    RemoteServer::connect(name, server, ClientOptions::new()).await.expect("connect")
}

#[tokio::test]
async fn streamable_http_server_from_mcp_json_imports_calls_and_reports_progress() {
    let (_server, url) = http().await;
    let text = json!({"mcpServers": {"web": {"url": url, "headers": {"X-Trace": "t1"}}}});
    let config = McpConfig::from_json(&text.to_string()).expect("config");
    let client = connect(&config, "web").await;
    let registry = Registry::builder().register_all(client.import().tools).seal().expect("seal");

    let add = registry.invoke("web__add", json!({"a": 40, "b": 2})).await;
    assert_eq!(add.result.json(), &json!({"sum": 42.0}), "{:?}", add.result);

    let events = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = Arc::clone(&events);
    let steps = registry
        .invoke("web__steps", json!({"steps": 2}))
        .on_event(move |event| sink.lock().unwrap().push(event))
        .await;
    assert_eq!(steps.result.text(), Some("did 2 steps"));
    assert_eq!(events.lock().unwrap().len(), 2);
    client.close().await;
}

#[tokio::test]
async fn stdio_child_from_mcp_json_serves_calls() {
    let config = McpConfig::from_json(&json!({"mcpServers": {"kid": child_entry()}}).to_string())
        .expect("config");
    let client = connect(&config, "kid").await;
    let registry = Registry::builder().register_all(client.import().tools).seal().expect("seal");
    let echo = registry.invoke("kid__echo", json!({"text": "over stdio"})).await;
    assert_eq!(echo.result.text(), Some("over stdio"), "{:?}", echo.result);
    client.close().await;
}

#[tokio::test]
async fn a_server_dying_mid_call_fails_that_call_and_the_others_go_on() {
    let config = McpConfig::from_json(&json!({"mcpServers": {"kid": child_entry()}}).to_string())
        .expect("config");
    let child = connect(&config, "kid").await;
    let (_local, healthy) = duplex("local", ClientOptions::new()).await;
    let registry = Registry::builder()
        .register_all(child.import().tools)
        .register_all(healthy.import().tools)
        .seal()
        .expect("seal");

    let receipts = tokio::time::timeout(
        Duration::from_secs(10),
        registry
            .dispatch([
                ToolCall::new("c1", "kid__die", json!({})),
                ToolCall::new("c2", "local__steps", json!({"steps": 2})),
            ])
            .into_future(),
    )
    .await
    .expect("the dead server does not hang the dispatch");
    let died = &receipts[0].result;
    assert_eq!(died.failure_kind(), Some(FailureKind::Handler), "{died:?}");
    let text = died.text().unwrap_or_default();
    assert!(text.contains(r#"mcp server "kid""#) && text.contains("closed"), "{text}");
    assert_eq!(receipts[1].result.text(), Some("did 2 steps"));

    // Later calls to the dead server fail at once; the healthy one still answers.
    let after = registry.invoke("kid__echo", json!({"text": "x"})).await;
    let text = after.result.text().unwrap_or_default();
    assert!(
        text.contains(r#"mcp server "kid" is closed; the call to "echo" was not sent"#),
        "{text}"
    );
    let ok = registry.invoke("local__echo", json!({"text": "still here"})).await;
    assert_eq!(ok.result.text(), Some("still here"));
}

#[tokio::test]
async fn a_command_that_does_not_exist_is_a_spawn_error_naming_the_server() {
    let config = McpConfig::from_json(
        r#"{"mcpServers": {"ghost": {"command": "/nonexistent/toolwire-test-server"}}}"#,
    )
    .expect("config");
    let server = config.get("ghost").expect("listed");
    let err = RemoteServer::connect("ghost", server, ClientOptions::new()).await.unwrap_err();
    assert_eq!(err.kind(), ConnectErrorKind::Spawn);
    assert_eq!(err.server(), "ghost");
    let text = err.to_string();
    assert!(
        text.starts_with(r#"cannot start mcp server "ghost": command "/nonexistent/"#),
        "{text}"
    );
    assert!(std::error::Error::source(&err).is_some());
}

#[tokio::test]
async fn an_http_server_that_is_not_there_is_a_handshake_error_naming_the_server() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    drop(listener);
    let config = McpConfig::from_json(&json!({"mcpServers": {"gone": {"url": url}}}).to_string())
        .expect("config");
    let server = config.get("gone").expect("listed");
    let err = RemoteServer::connect("gone", server, ClientOptions::new()).await.unwrap_err();
    assert_eq!(err.kind(), ConnectErrorKind::Handshake);
    assert!(err.to_string().starts_with(r#"cannot initialize mcp server "gone""#), "{err}");
}

#[tokio::test]
async fn a_program_that_never_answers_is_a_handshake_timeout_not_a_hang() {
    let config =
        McpConfig::from_json(r#"{"mcpServers": {"mute": {"command": "sleep", "args": ["30"]}}}"#)
            .expect("config");
    let server = config.get("mute").expect("listed");
    let options = ClientOptions::new().connect_timeout(Duration::from_millis(300));
    let err = RemoteServer::connect("mute", server, options).await.unwrap_err();
    assert_eq!(err.kind(), ConnectErrorKind::Handshake);
    let text = err.to_string();
    assert!(text.contains(r#"mcp server "mute": no answer within 300ms"#), "{text}");
}

#[tokio::test]
async fn connect_all_connects_every_server_and_reports_each_failure_by_name() {
    let (_server, url) = http().await;
    let text = json!({"mcpServers": {
        "web": {"url": url},
        "ghost": {"command": "/nonexistent/toolwire-test-server"}
    }});
    let config = McpConfig::from_json(&text.to_string()).expect("config");
    let results = RemoteServer::connect_all(&config, ClientOptions::new()).await;
    assert_eq!(results.len(), 2);
    let ghost = results[0].as_ref().expect_err("ghost fails");
    assert_eq!((ghost.server(), ghost.kind()), ("ghost", ConnectErrorKind::Spawn));
    let web = results[1].as_ref().expect("web connects");
    assert_eq!(web.name(), "web");
    assert!(!web.import().tools.is_empty());
}

use std::future::IntoFuture;
