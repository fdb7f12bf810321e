//! Regression tests for defects found by hostile and differential testing, each named after
//! the defect it guards against.

use std::future::IntoFuture;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{
    AbortController, DROPPED_CALL_TEXT, FailureKind, Receipt, Registry, Tool, ToolCall, ToolResult,
};

/// A value nested `depth` arrays deep, built without recursion.
fn deep(depth: usize) -> Value {
    let mut value = json!(0);
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// Panics when dropped, once.
struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("dropped");
        }
    }
}

/// A tool whose handler never finishes and whose future panics when it is dropped.
fn panics_when_dropped() -> Tool {
    Tool::define("sticky")
        .execute(|_, _| {
            let guard = PanicOnDrop;
            async move {
                std::future::pending::<()>().await;
                drop(guard);
                ToolResult::ok(json!({}), "never")
            }
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn regression_a_handler_future_that_panics_when_dropped_on_timeout_stays_contained() {
    let result = panics_when_dropped().execute(json!({})).timeout(Duration::from_millis(5)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::TimedOut));
}

#[tokio::test]
async fn regression_a_handler_future_that_panics_when_dropped_on_abort_stays_contained() {
    let ctl = AbortController::new();
    let call =
        tokio::spawn(panics_when_dropped().execute(json!({})).signal(ctl.signal()).into_future());
    tokio::task::yield_now().await;
    ctl.abort_with("stop");
    assert_eq!(call.await.unwrap().text(), Some("stop"));
}

#[tokio::test]
async fn regression_a_handler_future_that_panics_when_the_caller_drops_the_call_stays_contained() {
    let mut call = Box::pin(panics_when_dropped().execute(json!({})).into_future());
    assert!(futures_poll_once(call.as_mut()).is_none());
    drop(call); // must not panic
    let registry = Registry::builder().register(panics_when_dropped()).seal().unwrap();
    let mut invoke = Box::pin(registry.invoke("sticky", json!({})).into_future());
    assert!(futures_poll_once(invoke.as_mut()).is_none());
    drop(invoke);
}

/// Polls `future` once with a no-op waker.
fn futures_poll_once<F: std::future::Future>(future: std::pin::Pin<&mut F>) -> Option<F::Output> {
    let waker = std::task::Waker::noop();
    match future.poll(&mut std::task::Context::from_waker(waker)) {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    }
}

/// A panic payload whose own `Drop` panics.
struct NastyPayload;

impl Drop for NastyPayload {
    fn drop(&mut self) {
        panic!("the payload panicked as it was dropped");
    }
}

#[tokio::test]
async fn regression_a_panic_payload_whose_drop_panics_stays_contained() {
    for is_async in [false, true] {
        let builder = Tool::define("nasty");
        let builder = if is_async {
            builder.execute(|_, _| async {
                std::panic::panic_any(NastyPayload);
                #[expect(unreachable_code, reason = "the handler's type needs a result")]
                ToolResult::ok(json!({}), "never")
            })
        } else {
            builder.execute_sync(|_, _| -> ToolResult { std::panic::panic_any(NastyPayload) })
        };
        let result = builder.build().unwrap().execute(json!({})).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::Panic), "async: {is_async}");
        assert!(result.text().unwrap().contains("non-string payload"));
    }
}

#[tokio::test]
async fn regression_an_async_handler_that_blocks_past_its_deadline_times_out() {
    let blocker = Tool::define("blocker")
        .execute(|_, _| async {
            std::thread::sleep(Duration::from_millis(30)); // blocks its thread, no await
            ToolResult::ok(json!({}), "finished late")
        })
        .build()
        .unwrap();
    let result = blocker.execute(json!({})).timeout(Duration::from_millis(5)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::TimedOut), "{result:?}");
}

#[tokio::test]
async fn regression_failure_texts_do_not_echo_a_huge_key_back() {
    let tool = Tool::define("strict")
        .parameters(json!({"type": "object", "additionalProperties": {"type": "integer"}}))
        .execute_sync(|_, _| ToolResult::ok(json!({}), "ok"))
        .build()
        .unwrap();
    let key = "k".repeat(900 * 1024);
    let mut args = serde_json::Map::new();
    args.insert(key, json!("not an integer"));
    let result = tool.execute(Value::Object(args)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::InvalidInput));
    let text = result.text().unwrap();
    assert!(text.len() < 16 * 1024, "{} bytes", text.len());
    assert!(text.contains("bytes in all"), "the clipped part says it was clipped");
}

#[tokio::test]
async fn regression_failure_texts_stay_under_16_kib_whatever_a_handler_returns() {
    let tool = Tool::define("loud")
        .execute_sync(|_, _| Err::<ToolResult, _>("e".repeat(5_000_000)))
        .build()
        .unwrap();
    let result = tool.execute(json!({})).await;
    assert!(result.text().unwrap().len() < 16 * 1024);
    let panicky = Tool::define("panicky")
        .execute_sync(|_, _| -> ToolResult { panic!("{}", "p".repeat(5_000_000)) })
        .build()
        .unwrap();
    assert!(panicky.execute(json!({})).await.text().unwrap().len() < 16 * 1024);
}

#[test]
fn regression_a_huge_tool_name_gives_a_small_setup_error() {
    let name = "n".repeat(10 * 1024 * 1024);
    let error =
        Tool::define(name).execute_sync(|_, _| ToolResult::failure("")).build().unwrap_err();
    assert!(error.to_string().len() < 1024, "{} bytes", error.to_string().len());
    assert!(error.tool().len() < 1024);
}

#[tokio::test]
async fn regression_dropping_unpolled_calls_with_deeply_nested_arguments_does_not_overflow() {
    const DEPTH: usize = 100_000;
    let tool =
        Tool::define("t").execute_sync(|_, _| ToolResult::ok(json!({}), "ok")).build().unwrap();
    let registry = Registry::builder().register(tool.clone()).seal().unwrap();
    drop(tool.execute(deep(DEPTH)));
    drop(tool.execute(deep(DEPTH)).into_future());
    drop(registry.invoke("t", deep(DEPTH)));
    drop(registry.invoke("t", deep(DEPTH)).into_future());
    drop(registry.invoke("unknown", deep(DEPTH)));
    drop(registry.dispatch(vec![ToolCall::new("c", "t", deep(DEPTH))]));
    drop(registry.dispatch(vec![ToolCall::new("c", "t", deep(DEPTH))]).into_future());
    assert!(registry.resolve("unknown", deep(DEPTH), &()).is_err());
}

/// A registry whose receipt hook keeps every receipt.
fn audited(tool: Tool) -> (Registry, Arc<Mutex<Vec<Receipt>>>) {
    let log: Arc<Mutex<Vec<Receipt>>> = Arc::default();
    let sink = Arc::clone(&log);
    let registry = Registry::builder()
        .register(tool)
        .on_receipt(move |receipt| sink.lock().unwrap().push(receipt.clone()))
        .seal()
        .unwrap();
    (registry, log)
}

fn hanging() -> Tool {
    Tool::define("hang")
        .execute(|_, _| async { std::future::pending::<ToolResult>().await })
        .build()
        .unwrap()
}

#[tokio::test]
async fn regression_dropping_an_invocation_still_gives_the_audit_hook_a_receipt() {
    let (registry, log) = audited(hanging());
    let mut call = Box::pin(registry.invoke("hang", json!({})).call_id("c1").into_future());
    assert!(futures_poll_once(call.as_mut()).is_none());
    drop(call);
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].result.failure_kind(), Some(FailureKind::Aborted));
    assert_eq!(log[0].result.text(), Some(DROPPED_CALL_TEXT));
    assert_eq!(log[0].call_id.as_deref(), Some("c1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_dropping_a_dispatch_still_gives_every_call_a_receipt() {
    let (registry, log) = audited(hanging());
    let calls: Vec<ToolCall> =
        (0..5).map(|i| ToolCall::new(format!("c{i}"), "hang", json!({}))).collect();
    // Two run, three wait, when the dispatch is dropped.
    let dispatch = tokio::spawn(registry.dispatch(calls.clone()).concurrency(2).into_future());
    tokio::time::sleep(Duration::from_millis(20)).await;
    dispatch.abort();
    let _ = dispatch.await;
    // Never polled at all: every call still gets one.
    drop(registry.dispatch(calls).into_future());
    tokio::time::sleep(Duration::from_millis(20)).await; // aborted tasks drop their calls
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 10, "{log:#?}");
    assert!(log.iter().all(|r| r.result.text() == Some(DROPPED_CALL_TEXT)));
    let mut ids: Vec<&str> = log.iter().filter_map(|r| r.call_id.as_deref()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids, ["c0", "c1", "c2", "c3", "c4"]);
}

#[tokio::test]
async fn regression_did_you_mean_is_bounded_in_what_it_says() {
    let tools: Vec<Tool> = (0..2_000)
        .map(|i| {
            Tool::define(format!("tool_{i:04}"))
                .execute_sync(|_, _| ToolResult::ok(json!({}), "ok"))
                .build()
                .unwrap()
        })
        .collect();
    let registry = Registry::builder().register_all(tools).seal().unwrap();
    let huge = "x".repeat(1024 * 1024);
    let receipt = registry.invoke(&huge, json!({})).await;
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::UnknownTool));
    assert!(receipt.result.text().unwrap().len() < 4096);
    assert!(receipt.tool.len() < 1024, "the receipt names a clipped tool");
    let near = registry.invoke("tool_0001x", json!({})).await;
    assert!(near.result.text().unwrap().contains("did you mean \"tool_0001\""), "{near:?}");
}
