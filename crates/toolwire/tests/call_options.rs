//! `CallOptions`: one value for a call's options, handed over with `.options(..)`, and
//! `Registry::call`, which runs a `ToolCall` as the model made it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{
    AbortController, Answer, CallOptions, FailureKind, Registry, Tool, ToolCall, ToolContext,
    ToolResult,
};

struct Session(&'static str);

/// A tool that reports what its context holds, emitting one event.
fn probe() -> Tool {
    Tool::define("probe")
        .execute(|_: Value, ctx: ToolContext| async move {
            ctx.emit(json!({"step": 1}));
            if ctx.call_id().is_some_and(|id| id == "slow") {
                tokio::time::sleep(Duration::from_secs(30)).await;
            }
            let user = ctx.state::<Session>().map_or("nobody", |s| s.0);
            let answer = ctx.answer().map(|a| a.data.clone()).unwrap_or(Value::Null);
            let timeout = ctx.timeout().map(|t| t.as_millis() as u64);
            ToolResult::ok(json!({"user": user, "answer": answer, "timeout": timeout}), "probed")
        })
        .build()
        .unwrap()
}

fn registry() -> Registry {
    Registry::builder().register(probe()).seal().unwrap()
}

#[tokio::test]
async fn options_given_as_one_value_reach_the_call() {
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let options = CallOptions::new()
        .timeout(Duration::from_secs(5))
        .state(Arc::new(Session("ada")))
        .on_event(move |event| seen.lock().unwrap().push(event));
    assert_eq!(options.get_timeout(), Some(Duration::from_secs(5)));
    assert_eq!(options.get_state::<Session>().map(|s| s.0), Some("ada"));
    let receipt = registry().invoke("probe", json!({})).options(options.clone()).await;
    assert_eq!(receipt.result.json()["user"], "ada");
    assert_eq!(receipt.result.json()["timeout"], 5000);
    assert_eq!(*events.lock().unwrap(), vec![json!({"step": 1})]);
    // The same value, cloned, serves a direct execution as well.
    let direct = probe().execute(json!({})).options(options).await;
    assert_eq!(direct.json()["user"], "ada");
}

#[tokio::test]
async fn options_replace_only_what_they_set() {
    let receipt = registry()
        .invoke("probe", json!({}))
        .state(Arc::new(Session("ada")))
        .timeout(Duration::from_secs(1))
        .options(CallOptions::new().timeout(Duration::from_secs(2)))
        .await;
    assert_eq!(receipt.result.json()["user"], "ada", "the state set before stays");
    assert_eq!(receipt.result.json()["timeout"], 2000, "the timeout is replaced");
}

#[tokio::test]
async fn a_signal_in_the_options_aborts_the_call() {
    let ctl = AbortController::new();
    let call = registry()
        .call(ToolCall::new("slow", "probe", json!({})))
        .options(CallOptions::new().signal(ctl.signal()));
    let task = tokio::spawn(std::future::IntoFuture::into_future(call));
    tokio::time::sleep(Duration::from_millis(20)).await;
    ctl.abort_with("stop");
    let receipt = tokio::time::timeout(Duration::from_secs(5), task).await.unwrap().unwrap();
    assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Aborted));
}

#[tokio::test]
async fn registry_call_runs_a_tool_call_and_fails_a_malformed_one() {
    let registry = registry();
    let receipt = registry.call(ToolCall::new("c1", "probe", json!({}))).await;
    assert!(receipt.result.is_success());
    assert_eq!(receipt.call_id.as_deref(), Some("c1"));
    let broken = registry.call(ToolCall::malformed("c2", "probe", "EOF while parsing")).await;
    assert_eq!(broken.result.failure_kind(), Some(FailureKind::InvalidInput));
    assert_eq!(broken.result.text(), Some("invalid arguments for \"probe\": EOF while parsing"));
    assert_eq!(broken.call_id.as_deref(), Some("c2"));
    let unknown = registry.call(ToolCall::new("c3", "prob", json!({}))).await;
    assert_eq!(unknown.result.failure_kind(), Some(FailureKind::UnknownTool));
}

#[tokio::test]
async fn a_dispatch_hands_its_options_to_every_call() {
    let events = Arc::new(Mutex::new(0));
    let seen = Arc::clone(&events);
    let calls = (0..3).map(|i| ToolCall::new(format!("c{i}"), "probe", json!({})));
    let options = CallOptions::new()
        .state(Arc::new(Session("ada")))
        .answer(Answer::accept("not-bound", json!(1)))
        .on_event(move |_| *seen.lock().unwrap() += 1);
    let receipts = registry().dispatch(calls).options(options).await;
    // A registry binds every request it makes: an answer it never issued is refused.
    for receipt in &receipts {
        assert_eq!(receipt.result.failure_kind(), Some(FailureKind::Denied), "{receipt:?}");
    }
    let calls = (0..3).map(|i| ToolCall::new(format!("c{i}"), "probe", json!({})));
    let options = CallOptions::new().state(Arc::new(Session("ada")));
    let receipts = registry().dispatch(calls).options(options).await;
    assert!(receipts.iter().all(|r| r.result.json()["user"] == "ada"));
    assert_eq!(*events.lock().unwrap(), 0, "the refused calls emitted nothing");
}
