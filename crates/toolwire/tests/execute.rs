//! Executing tools (seed 000): sync and async handlers, the result shape, events, and error
//! translation.

use std::future::IntoFuture;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwire::{AbortController, FailureKind, Tool, ToolContext, ToolResult};

fn double() -> Tool {
    Tool::define("double")
        .description("Double a number")
        .parameters(json!({
            "type": "object",
            "properties": {"n": {"type": "number"}},
            "required": ["n"]
        }))
        .execute_sync(|args: Value, _ctx| {
            let n = args["n"].as_i64().unwrap_or(0);
            ToolResult::ok(json!({"value": n * 2}), format!("{n} x 2 = {}", n * 2))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn seed_000_signature_lookup_with_signal_and_callback() {
    let plugin = Tool::define("lookup")
        .description("Look up a city")
        .execute_sync(|args: Value, _| ToolResult::ok(json!({"city": args["city"]}), "ok"))
        .build()
        .unwrap();
    let controller = AbortController::new();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let result = plugin
        .execute(json!({"city": "Jakarta"}))
        .signal(controller.signal())
        .on_event(move |event| sink.lock().unwrap().push(event))
        .await;
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"success": true, "json": {"city": "Jakarta"}, "text": "ok"})
    );
    assert!(events.lock().unwrap().is_empty());
}

#[tokio::test]
async fn seed_000_result_shapes() {
    let ok = ToolResult::ok(json!({"temp": 28, "condition": "sunny"}), "Sunny, 28C");
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"success": true, "json": {"temp": 28, "condition": "sunny"}, "text": "Sunny, 28C"})
    );
    let fail = ToolResult::failure("reason string or error message");
    assert_eq!(
        serde_json::to_value(&fail).unwrap(),
        json!({"success": false, "json": null, "text": "reason string or error message"})
    );
    let no_text = ToolResult::ok_json(json!([1]));
    assert_eq!(
        serde_json::to_value(&no_text).unwrap(),
        json!({"success": true, "json": [1], "text": null})
    );
}

#[tokio::test]
async fn seed_000_sync_execute() {
    let result = double().execute(json!({"n": 21})).await;
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"success": true, "json": {"value": 42}, "text": "21 x 2 = 42"})
    );
}

#[tokio::test]
async fn seed_000_async_execute_fetch_user() {
    // The seed fetches `/users/{id}`; a map stands in for the server.
    let users = Arc::new(json!({"7": {"id": "7", "name": "Ada"}}));
    let plugin = Tool::define("fetch_user")
        .description("Fetch a user record")
        .parameters(json!({
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"]
        }))
        .execute(move |args: Value, ctx: ToolContext| {
            let users = Arc::clone(&users);
            async move {
                tokio::task::yield_now().await;
                assert!(!ctx.signal().is_aborted());
                let id = args["id"].as_str().unwrap_or_default().to_owned();
                let json = users[&id].clone();
                ToolResult::ok(json, format!("Fetched user {id}"))
            }
        })
        .build()
        .unwrap();
    let result = plugin.execute(json!({"id": "7"})).await;
    assert_eq!(result.json(), &json!({"id": "7", "name": "Ada"}));
    assert_eq!(result.text(), Some("Fetched user 7"));
}

#[tokio::test]
async fn seed_000_event_callback_receives_events_in_order() {
    let plugin = Tool::define("process")
        .description("Process a list of items")
        .parameters(json!({
            "type": "object",
            "properties": {"items": {"type": "array"}},
            "required": ["items"]
        }))
        .execute_sync(|args: Value, ctx: ToolContext| {
            let items = args["items"].as_array().cloned().unwrap_or_default();
            for (index, _) in items.iter().enumerate() {
                ctx.emit(json!({"stage": "progress", "index": index, "total": items.len()}));
            }
            ToolResult::ok(json!({"processed": items.len()}), "Done")
        })
        .build()
        .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let result = plugin
        .execute(json!({"items": ["a", "b", "c"]}))
        .on_event(move |event| sink.lock().unwrap().push(event))
        .await;
    assert_eq!(result.json(), &json!({"processed": 3}));
    let seen: Vec<_> = events.lock().unwrap().iter().map(|e| e["index"].clone()).collect();
    assert_eq!(seen, [json!(0), json!(1), json!(2)]);
    assert_eq!(events.lock().unwrap()[0], json!({"stage": "progress", "index": 0, "total": 3}));
}

#[tokio::test]
async fn seed_000_emit_without_a_callback_is_harmless() {
    let plugin = Tool::define("process")
        .execute_sync(|_, ctx: ToolContext| {
            assert!(!ctx.has_event_listener());
            ctx.emit(json!({"stage": "progress"}));
            ctx.progress(1, 1, "done");
            ToolResult::ok(json!({}), "Done")
        })
        .build()
        .unwrap();
    assert!(plugin.execute(json!({})).await.is_success());
}

#[tokio::test]
async fn seed_000_error_handling_table() {
    struct Empty;
    impl std::fmt::Display for Empty {
        fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            Ok(())
        }
    }
    let failing = Tool::define("failing")
        .description("Always fails")
        .execute_sync(|_, _| Err::<ToolResult, _>("Something went wrong".to_owned()))
        .build()
        .unwrap();
    let result = failing.execute(json!({})).await;
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"success": false, "json": null, "text": "Something went wrong"})
    );
    assert_eq!(result.failure_kind(), Some(FailureKind::Handler));

    // An error with an empty message keeps the empty text.
    let empty = Tool::define("empty")
        .execute(|_, _| async { Err::<ToolResult, _>(Empty) })
        .build()
        .unwrap();
    let result = empty.execute(json!({})).await;
    assert_eq!(result.text(), Some(""));
    assert_eq!(result.failure_kind(), Some(FailureKind::Handler));

    // Any `Display` error works, such as an `std::io::Error`.
    let io = Tool::define("io")
        .execute_sync(|_, _| -> Result<ToolResult, std::io::Error> {
            Err(std::io::Error::other("disk on fire"))
        })
        .build()
        .unwrap();
    assert_eq!(io.execute(json!({})).await.text(), Some("disk on fire"));
}

#[tokio::test]
async fn sync_and_async_handlers_look_the_same_to_the_caller() {
    let make = |sync: bool| {
        let builder = Tool::define("same");
        let builder = if sync {
            builder.execute_sync(|args: Value, _| ToolResult::ok(args, "same"))
        } else {
            builder.execute(|args: Value, _| async move { ToolResult::ok(args, "same") })
        };
        builder.build().unwrap()
    };
    let a = make(true).execute(json!({"x": 1})).await;
    let b = make(false).execute(json!({"x": 1})).await;
    assert_eq!(a, b);
}

#[test]
fn a_sync_tool_runs_without_any_runtime() {
    let result = poll_once(double().execute(json!({"n": 2})).into_future());
    assert_eq!(result.json(), &json!({"value": 4}));
}

/// Polls a future that is ready at once, with a no-op waker: proof that a sync call needs
/// no runtime.
fn poll_once<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a sync tool call should complete on its first poll"),
    }
}
#[tokio::test]
async fn invalid_arguments_fail_before_the_handler_runs() {
    let ran = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&ran);
    let tool = Tool::define("get_weather")
        .parameters(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"]
        }))
        .execute_sync(move |_, _| {
            *counter.lock().unwrap() += 1;
            ToolResult::ok(json!({}), "ok")
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({"city": 42, "days": "two"})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput));
    let text = result.text().unwrap();
    assert!(text.starts_with("invalid arguments for \"get_weather\": "), "{text}");
    assert!(text.contains("/city: 42 is not of type \"string\""), "{text}");
    assert!(text.contains("/days: \"two\" is not of type \"integer\""), "{text}");
    let missing = tool.execute(json!({})).await;
    assert!(missing.text().unwrap().contains("(root): \"city\" is a required property"));
    assert_eq!(*ran.lock().unwrap(), 0);
}
