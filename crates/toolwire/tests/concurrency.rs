//! One tool serving many concurrent calls.

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{Tool, ToolContext, ToolResult};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_calls_of_one_tool() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (now, max) = (Arc::clone(&in_flight), Arc::clone(&peak));
    let tool = Tool::define("echo")
        .parameters(json!({
            "type": "object",
            "properties": {"i": {"type": "integer"}},
            "required": ["i"]
        }))
        .execute(move |args: Value, ctx: ToolContext| {
            let (now, max) = (Arc::clone(&now), Arc::clone(&max));
            async move {
                let current = now.fetch_add(1, Ordering::SeqCst) + 1;
                max.fetch_max(current, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                let id = ctx.invocation_id().to_string();
                ToolResult::ok(json!({"i": args["i"], "id": id}), "ok")
            }
        })
        .build()
        .unwrap();
    let calls: Vec<_> =
        (0..1000).map(|i| tokio::spawn(tool.execute(json!({"i": i})).into_future())).collect();
    let mut ids = std::collections::HashSet::new();
    for (i, call) in calls.into_iter().enumerate() {
        let result = call.await.unwrap();
        assert_eq!(result.json()["i"], json!(i), "each call gets its own arguments back");
        ids.insert(result.json()["id"].as_str().unwrap().to_owned());
    }
    assert_eq!(ids.len(), 1000);
    assert!(peak.load(Ordering::SeqCst) > 1, "calls overlapped");
    assert_eq!(in_flight.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_send_and_sync_and_futures_are_send() {
    fn assert_send_sync<T: Send + Sync + 'static>(_: &T) {}
    fn assert_send<T: Send + 'static>(_: &T) {}
    let tool =
        Tool::define("t").execute_sync(|_, _| ToolResult::ok(json!({}), "")).build().unwrap();
    assert_send_sync(&tool);
    let future = tool.execute(json!({})).into_future();
    assert_send(&future);
    assert!(future.await.is_success());
}
