//! Deadlines (seed 002 "timeout"): visible to the handler, enforced on handlers that ignore
//! them, firing the handler's signal without touching the caller's.

use crate::common;

use std::future::{Future, IntoFuture};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::{Instant, sleep};
use toolwire::{AbortController, FailureKind, Tool, ToolContext, ToolResult};

/// Seed 002, example 2: the tool reads its budget, in milliseconds, and refuses a tiny one.
fn fetchish() -> Tool {
    Tool::define("fetchish")
        .description("Pretend to fetch, bounded by the caller's timeout")
        .parameters(json!({"type": "object", "properties": {"url": {"type": "string"}}}))
        .execute(|args: Value, ctx: ToolContext| async move {
            let budget = ctx.timeout().map_or(30_000, |t| t.as_millis());
            let url = args["url"].as_str().unwrap_or_default().to_owned();
            if budget < 100 {
                return ToolResult::failure(format!("budget {budget}ms is too small to try"));
            }
            ToolResult::ok(json!({"url": url}), format!("fetched {url} within {budget}ms"))
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn seed_002_honouring_the_callers_timeout() {
    let generous =
        fetchish().execute(json!({"url": "/a"})).timeout(Duration::from_millis(5000)).await;
    assert_eq!(generous.text(), Some("fetched /a within 5000ms"));
    let stingy = fetchish().execute(json!({"url": "/a"})).timeout(Duration::from_millis(10)).await;
    assert!(!stingy.is_success());
    assert_eq!(stingy.failure_kind(), Some(FailureKind::Handler));
    let defaulted = fetchish().execute(json!({"url": "/a"})).await;
    assert!(defaulted.text().unwrap().contains("30000ms"));
}

#[tokio::test(start_paused = true)]
async fn deadline_is_visible_to_the_handler() {
    let seen = Arc::new(Mutex::new(None));
    let sink = Arc::clone(&seen);
    let tool = Tool::define("peek")
        .execute_sync(move |_, ctx: ToolContext| {
            *sink.lock().unwrap() = Some((ctx.timeout(), ctx.deadline(), ctx.remaining()));
            ToolResult::ok(json!({}), "ok")
        })
        .build()
        .unwrap();
    let before = Instant::now();
    tool.execute(json!({})).timeout(Duration::from_secs(5)).await;
    let (timeout, deadline, remaining) = seen.lock().unwrap().unwrap();
    assert_eq!(timeout, Some(Duration::from_secs(5)));
    assert_eq!(deadline, Some(before + Duration::from_secs(5)));
    assert_eq!(remaining, Some(Duration::from_secs(5)));

    tool.execute(json!({})).await;
    assert_eq!(*seen.lock().unwrap(), Some((None, None, None)));
}

#[tokio::test(start_paused = true)]
async fn a_timeout_is_enforced_on_a_handler_that_ignores_it() {
    let tool = Tool::define("stubborn")
        .execute(|_, _| async {
            sleep(Duration::from_secs(3600)).await;
            ToolResult::ok(json!({}), "never")
        })
        .build()
        .unwrap();
    let started = Instant::now();
    let result = tool.execute(json!({})).timeout(Duration::from_millis(50)).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::TimedOut));
    assert!(result.is_timed_out());
    assert_eq!(result.text(), Some("tool \"stubborn\" timed out after 50ms"));
    assert_eq!(result.json(), &Value::Null);
    assert!(started.elapsed() < Duration::from_millis(60));
}

#[tokio::test(start_paused = true)]
async fn the_deadline_fires_the_handlers_signal_but_not_the_callers() {
    let (tool, kept) = common::signal_keeper("spawner");
    let caller = AbortController::new();
    let call = tool.execute(json!({})).signal(caller.signal());
    let result = call.timeout(Duration::from_millis(20)).await;
    assert!(result.is_timed_out());
    let handler_signal = kept.get();
    assert!(handler_signal.is_aborted(), "work the handler spawned is told to stop");
    assert_eq!(handler_signal.reason(), Some("timed out after 20ms"));
    assert!(!caller.signal().is_aborted(), "the caller's signal is untouched");
}

#[tokio::test(start_paused = true)]
async fn the_callers_abort_reaches_a_handler_with_a_deadline() {
    let (tool, kept) = common::signal_keeper("listener");
    let caller = AbortController::new();
    let call = tool.execute(json!({})).signal(caller.signal());
    let call = tokio::spawn(call.timeout(Duration::from_secs(60)).into_future());
    sleep(Duration::from_millis(5)).await;
    caller.abort_with("user stop");
    let result = call.await.unwrap();
    assert!(result.is_aborted());
    assert_eq!(result.text(), Some("user stop"));
    assert_eq!(kept.get().reason(), Some("user stop"));
}

#[tokio::test(start_paused = true)]
async fn a_handler_that_finishes_in_time_is_not_timed_out() {
    let tool = Tool::define("quick")
        .execute(|_, _| async {
            sleep(Duration::from_millis(10)).await;
            ToolResult::ok(json!({}), "in time")
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).timeout(Duration::from_millis(50)).await;
    assert_eq!(result.text(), Some("in time"));
}

#[tokio::test]
async fn a_sync_handler_that_overruns_its_deadline_is_timed_out() {
    let tool = Tool::define("blocking")
        .execute_sync(|_, _| {
            std::thread::sleep(Duration::from_millis(30));
            ToolResult::ok(json!({}), "late")
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).timeout(Duration::from_millis(5)).await;
    assert!(result.is_timed_out(), "{result:?}");
    let in_time = tool.execute(json!({})).timeout(Duration::from_secs(60)).await;
    assert_eq!(in_time.text(), Some("late"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_handler_does_not_hang_a_caller_with_a_timeout() {
    let tool =
        Tool::define("hangs").execute(|_, _| std::future::pending::<ToolResult>()).build().unwrap();
    let result = tool.execute(json!({})).timeout(Duration::from_millis(20)).await;
    assert!(result.is_timed_out());
}

#[tokio::test]
async fn a_sync_handlers_signal_reports_the_deadline() {
    // Seed 002's loop, under a deadline: the handler's own signal check stops it.
    let tool = Tool::define("loop")
        .execute_sync(|_, ctx: ToolContext| {
            let mut step = 0;
            while !ctx.signal().is_aborted() {
                std::thread::sleep(Duration::from_millis(1));
                step += 1;
            }
            let why = ctx.signal().reason().unwrap_or_default().to_owned();
            ToolResult::failure(format!("stopped at step {step}: {why}"))
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).timeout(Duration::from_millis(20)).await;
    // The handler stopped by itself; its result, past the deadline, is the timeout.
    assert!(result.is_timed_out(), "{result:?}");
}

#[tokio::test]
async fn a_zero_timeout_times_out_without_running_the_handler() {
    let ran = Arc::new(Mutex::new(false));
    let flag = Arc::clone(&ran);
    let tool = Tool::define("never_runs")
        .execute_sync(move |_, _| {
            *flag.lock().unwrap() = true;
            ToolResult::ok(json!({}), "ran")
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).timeout(Duration::ZERO).await;
    assert!(result.is_timed_out());
    assert!(!*ran.lock().unwrap());
}

#[tokio::test]
async fn an_enormous_timeout_is_no_timeout() {
    let result = fetchish().execute(json!({"url": "/a"})).timeout(Duration::MAX).await;
    assert!(result.is_success(), "{result:?}");
}

#[test]
fn a_timeout_without_a_timer_is_a_clear_failure_not_a_panic() {
    let tool = Tool::define("needs_timer")
        .execute(|_, _| async { ToolResult::ok(json!({}), "ran") })
        .build()
        .unwrap();
    let expected =
        "tool \"needs_timer\" was given a timeout, but is not running on a Tokio runtime";
    // No runtime at all.
    let call = tool.execute(json!({})).timeout(Duration::from_secs(1)).into_future();
    let mut call = std::pin::pin!(call);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let std::task::Poll::Ready(result) = call.as_mut().poll(&mut cx) else {
        panic!("the call fails on its first poll")
    };
    assert!(result.text().unwrap().starts_with(expected), "{result:?}");
    // A runtime without its time driver.
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let call = tool.execute(json!({})).timeout(Duration::from_secs(1));
    let result = runtime.block_on(call.into_future());
    assert!(result.text().unwrap().starts_with(expected), "{result:?}");
    // Without a timeout, no timer is needed.
    let result = runtime.block_on(tool.execute(json!({})).into_future());
    assert_eq!(result.text(), Some("ran"));
}
