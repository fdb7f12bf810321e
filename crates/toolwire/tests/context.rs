//! The tool context (seed 002): signal, progress events, invocation ids.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwire::{AbortController, Tool, ToolContext, ToolResult};

/// Seed 002, example 1: a tool that checks its signal between steps.
fn crunch() -> Tool {
    Tool::define("crunch")
        .description("Do some work in steps, stopping if cancelled")
        .parameters(json!({"type": "object", "properties": {"steps": {"type": "number"}}}))
        .execute(|args: Value, ctx: ToolContext| async move {
            let steps = args["steps"].as_u64().unwrap_or(3);
            let mut done = 0;
            for _ in 0..steps {
                if ctx.signal().is_aborted() {
                    return ToolResult::failure(format!("cancelled after {done} step(s)"));
                }
                done += 1;
            }
            ToolResult::ok(json!({"done": done}), format!("completed {done} step(s)"))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn seed_002_respecting_cancellation() {
    // No context at all: the tool still runs.
    let plain = crunch().execute(json!({"steps": 3})).await;
    assert_eq!(plain.text(), Some("completed 3 step(s)"));

    // Cancelled before it starts. toolwire never runs a handler whose signal already fired,
    // so the tool's own check is not reached: the caller gets the aborted result.
    let ac = AbortController::new();
    ac.abort();
    let stopped = crunch().execute(json!({"steps": 3})).signal(ac.signal()).await;
    assert!(!stopped.is_success());
    assert_eq!(stopped.text(), Some("Aborted"));
}

#[tokio::test]
async fn seed_002_a_tool_checking_its_signal_between_steps_stops_early() {
    // The seed's loop, driven so the abort lands between steps.
    let controller = AbortController::new();
    let ctl = controller.clone();
    let tool = Tool::define("steps")
        .execute_sync(move |_, ctx: ToolContext| {
            let mut done = 0;
            for step in 0..5 {
                if ctx.signal().is_aborted() {
                    return ToolResult::failure(format!("cancelled after {done} step(s)"));
                }
                done += 1;
                if step == 1 {
                    ctl.abort();
                }
            }
            ToolResult::ok(json!({}), format!("completed {done} step(s)"))
        })
        .build()
        .unwrap();
    // The handler stopped after 2 steps; the post-check then reports the abort itself.
    let result = tool.execute(json!({})).signal(controller.signal()).await;
    assert!(result.is_aborted());
}

#[tokio::test]
async fn progress_events_have_the_documented_shape() {
    let tool = Tool::define("reporter")
        .execute_sync(|_, ctx: ToolContext| {
            assert!(ctx.has_event_listener());
            ctx.progress(1, 3, "first");
            ctx.progress(2, None, "");
            ctx.emit(json!({"custom": true}));
            ToolResult::ok(json!({}), "ok")
        })
        .build()
        .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    tool.execute(json!({})).on_event(move |e| sink.lock().unwrap().push(e)).await;
    assert_eq!(
        *events.lock().unwrap(),
        [
            json!({"type": "progress", "progress": 1, "total": 3, "message": "first"}),
            json!({"type": "progress", "progress": 2}),
            json!({"custom": true}),
        ]
    );
}

#[tokio::test]
async fn async_events_arrive_in_order_across_awaits() {
    let tool = Tool::define("streamer")
        .execute(|_, ctx: ToolContext| async move {
            for i in 0..50 {
                ctx.emit(json!(i));
                tokio::task::yield_now().await;
            }
            ToolResult::ok(json!({}), "ok")
        })
        .build()
        .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    tool.execute(json!({})).on_event(move |e| sink.lock().unwrap().push(e)).await;
    let expected: Vec<Value> = (0..50).map(|i| json!(i)).collect();
    assert_eq!(*events.lock().unwrap(), expected);
}

#[tokio::test]
async fn every_invocation_has_a_unique_id() {
    let ids = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&ids);
    let tool = Tool::define("ids")
        .execute_sync(move |_, ctx: ToolContext| {
            sink.lock().unwrap().push(ctx.invocation_id());
            ToolResult::ok(json!({}), "ok")
        })
        .build()
        .unwrap();
    for _ in 0..1000 {
        tool.execute(json!({})).await;
    }
    let ids = ids.lock().unwrap();
    let distinct: HashSet<_> = ids.iter().collect();
    assert_eq!(distinct.len(), 1000);
    let text = ids[0].to_string();
    assert_eq!(text.parse::<toolwire::InvocationId>().unwrap(), ids[0], "{text}");
    assert_eq!(ids[0].as_uuid().get_version_num(), 7);
    assert_eq!(serde_json::to_value(ids[0]).unwrap(), json!(text));
    // Ordered by time, to the millisecond.
    assert!(ids.windows(2).all(|w| w[0].timestamp_millis() <= w[1].timestamp_millis()));
}

#[test]
fn a_fresh_context_is_inert() {
    let ctx = ToolContext::new();
    assert!(!ctx.signal().is_aborted());
    assert_eq!(ctx.timeout(), None);
    assert_eq!(ctx.deadline(), None);
    assert!(ctx.answer().is_none());
    assert!(!ctx.has_event_listener());
    ctx.emit(json!("nobody listens"));
    assert_ne!(ctx.invocation_id(), ToolContext::new().invocation_id());
}
