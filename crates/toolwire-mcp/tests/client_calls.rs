//! Imported tools called through a toolwire registry, against an rmcp server served
//! in-process: names, results, progress, cancellation and timeouts.

use crate::client_support;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{AbortController, FailureKind, Registry};
use toolwire_mcp::client::ClientOptions;

use crate::client_support::{duplex, eventually};

async fn connected(options: ClientOptions) -> (client_support::TestServer, Registry) {
    let (server, client) = duplex("demo", options).await;
    let import = client.import();
    let registry = Registry::builder().register_all(import.tools).seal().expect("seal");
    (server, registry)
}

#[tokio::test]
async fn imported_tools_are_named_server_dunder_tool_and_made_provider_safe() {
    let (_server, client) = duplex("demo", ClientOptions::new()).await;
    let import = client.import();
    let names: Vec<&str> = import.tools.iter().map(|t| t.name()).collect();
    assert!(names.contains(&"demo__echo"), "{names:?}");
    assert!(names.contains(&"demo__add"));
    let dotted = import.names.provider_name("demo__files.read").expect("mapped");
    assert!(dotted.starts_with("demo__files_read_"), "{dotted}");
    assert!(names.contains(&dotted));
    assert_eq!(import.names.original_name(dotted), Some("demo__files.read"));
    let echo = import.tools.iter().find(|t| t.name() == "demo__echo").expect("echo");
    assert_eq!(echo.description(), Some("Echo the text"));
    assert_eq!(echo.parameters()["properties"]["text"]["type"], "string");
}

#[tokio::test]
async fn a_tool_with_an_invalid_schema_is_skipped_with_a_warning_naming_it() {
    let (_server, client) = duplex("demo", ClientOptions::new()).await;
    let import = client.import();
    assert!(import.tools.iter().all(|t| t.name() != "demo__broken"));
    assert_eq!(import.skipped.len(), 1, "{:?}", import.skipped);
    assert_eq!(import.skipped[0].tool, "broken");
    assert!(import.skipped[0].reason.contains("demo__broken"), "{}", import.skipped[0].reason);
}

#[tokio::test]
async fn calls_go_through_the_registry_and_map_text_and_structured_content() {
    let (_server, registry) = connected(ClientOptions::new()).await;
    let echo = registry.invoke("demo__echo", json!({"text": "hi"})).await;
    assert!(echo.result.is_success(), "{:?}", echo.result);
    assert_eq!(echo.result.text(), Some("hi"));
    assert_eq!(echo.result.json()[0]["type"], "text");

    let add = registry.invoke("demo__add", json!({"a": 2, "b": 3})).await;
    assert_eq!(add.result.json(), &json!({"sum": 5.0}));
    assert_eq!(add.result.text(), Some("sum is 5"));
}

#[tokio::test]
async fn arguments_are_validated_locally_before_the_server_is_called() {
    let (server, registry) = connected(ClientOptions::new()).await;
    let bad = registry.invoke("demo__add", json!({"a": "two"})).await;
    assert_eq!(bad.result.failure_kind(), Some(FailureKind::InvalidInput));
    assert_eq!(server.seen.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn is_error_results_and_json_rpc_errors_become_failures_with_clear_texts() {
    let (_server, registry) = connected(ClientOptions::new()).await;
    let fail = registry.invoke("demo__fail", json!({})).await;
    assert_eq!(fail.result.failure_kind(), Some(FailureKind::Handler));
    assert_eq!(fail.result.text(), Some("boom: the disk is full"));

    let rpc = registry.invoke("demo__rpc_error", json!({})).await;
    assert_eq!(rpc.result.failure_kind(), Some(FailureKind::Handler));
    let text = rpc.result.text().unwrap_or_default();
    assert!(
        text.contains(r#"mcp server "demo" rejected the call to "rpc_error": kaput"#),
        "{text}"
    );
}

#[tokio::test]
async fn images_arrive_as_parts_in_order_with_their_bytes() {
    let (_server, registry) = connected(ClientOptions::new()).await;
    let picture = registry.invoke("demo__picture", json!({})).await;
    assert!(picture.result.is_success(), "{:?}", picture.result.text());
    let parts = picture.result.parts();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].as_text(), Some("a red dot"));
    assert_eq!(parts[1].kind(), toolwire::media::PartKind::Image);
    assert_eq!(parts[1].mime_type(), Some("image/png"));
    assert_eq!(&parts[1].data().unwrap()[..], b"\x89PNG\r\n\x1a\n");
}

#[tokio::test]
async fn remote_progress_arrives_as_the_call_events() {
    let (_server, registry) = connected(ClientOptions::new()).await;
    let events = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = Arc::clone(&events);
    let receipt = registry
        .invoke("demo__steps", json!({"steps": 3}))
        .on_event(move |event| sink.lock().unwrap().push(event))
        .await;
    assert_eq!(receipt.result.text(), Some("did 3 steps"));
    let events = events.lock().unwrap().clone();
    assert_eq!(
        events,
        vec![
            json!({"type": "progress", "progress": 1, "total": 3, "message": "step 1"}),
            json!({"type": "progress", "progress": 2, "total": 3, "message": "step 2"}),
            json!({"type": "progress", "progress": 3, "total": 3, "message": "step 3"}),
        ]
    );
}

#[tokio::test]
async fn aborting_a_call_sends_notifications_cancelled() {
    let (server, registry) = connected(ClientOptions::new()).await;
    let ctl = AbortController::new();
    let call =
        tokio::spawn(registry.invoke("demo__hang", json!({})).signal(ctl.signal()).into_future());
    assert!(eventually(|| server.seen.calls.load(Ordering::SeqCst) == 1).await);
    ctl.abort_with("user pressed stop");
    let receipt = call.await.expect("join");
    assert!(receipt.result.is_aborted(), "{:?}", receipt.result);
    assert_eq!(receipt.result.text(), Some("user pressed stop"));
    assert!(eventually(|| server.seen.cancelled_notification.load(Ordering::SeqCst)).await);
    assert!(eventually(|| server.seen.handler_cancelled.load(Ordering::SeqCst)).await);
}

#[tokio::test]
async fn dropping_a_call_sends_notifications_cancelled() {
    let (server, registry) = connected(ClientOptions::new()).await;
    let call = tokio::spawn(registry.invoke("demo__hang", json!({})).into_future());
    assert!(eventually(|| server.seen.calls.load(Ordering::SeqCst) == 1).await);
    call.abort();
    assert!(eventually(|| server.seen.handler_cancelled.load(Ordering::SeqCst)).await);
}

#[tokio::test]
async fn a_silent_server_hits_the_idle_timeout_and_is_told_to_cancel() {
    let options = ClientOptions::new().idle_timeout(Duration::from_millis(200));
    let (server, registry) = connected(options).await;
    let receipt = registry.invoke("demo__hang", json!({})).await;
    assert!(receipt.result.is_timed_out(), "{:?}", receipt.result);
    let text = receipt.result.text().unwrap_or_default();
    assert!(text.contains("sent nothing for 200ms") && text.contains("idle timeout"), "{text}");
    assert!(eventually(|| server.seen.handler_cancelled.load(Ordering::SeqCst)).await);
}

#[tokio::test]
async fn progress_resets_the_idle_timeout_but_not_the_cap() {
    let options = ClientOptions::new().idle_timeout(Duration::from_millis(200));
    let (_server, registry) = connected(options).await;
    let long = registry.invoke("demo__tick", json!({"ms": 600})).await;
    assert_eq!(long.result.text(), Some("ticked for 600 ms"), "{:?}", long.result);

    let capped = ClientOptions::new()
        .idle_timeout(Duration::from_millis(200))
        .max_duration(Duration::from_millis(400));
    let (_server, registry) = connected(capped).await;
    let receipt = registry.invoke("demo__tick", json!({"ms": 1000})).await;
    assert!(receipt.result.is_timed_out(), "{:?}", receipt.result);
    let text = receipt.result.text().unwrap_or_default();
    assert!(text.contains("ran past its cap of 400ms"), "{text}");
}

use std::future::IntoFuture;
