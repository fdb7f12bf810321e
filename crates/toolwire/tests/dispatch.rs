//! Dispatch: many calls at once, receipts in call order, one signal for all, isolation.

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwire::{AbortController, FailureKind, Registry, Tool, ToolCall, ToolContext, ToolResult};

/// Counts calls in flight and the most ever at once.
#[derive(Clone, Default)]
struct Gauge {
    now: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

impl Gauge {
    fn enter(&self) -> GaugeGuard {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        GaugeGuard(Arc::clone(&self.now))
    }
}

struct GaugeGuard(Arc<AtomicUsize>);

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `sleep {"ms": n}` sleeps n ms; `boom` panics; `fail` errs; `hang` never returns.
fn registry(gauge: &Gauge) -> Registry {
    let g = gauge.clone();
    let sleep = Tool::define("sleep")
        .parameters(json!({"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]}))
        .execute(move |args: Value, ctx: ToolContext| {
            let guard = g.enter();
            async move {
                let _guard = guard;
                let ms = args["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                ToolResult::ok(json!({"slept": ms, "id": ctx.invocation_id().to_string()}), "slept")
            }
        })
        .build()
        .unwrap();
    let boom = Tool::define("boom")
        .execute(|_, _| async { panic!("kaboom") as ToolResult })
        .build()
        .unwrap();
    let fail =
        Tool::define("fail").execute_sync(|_, _| Err::<ToolResult, _>("nope")).build().unwrap();
    let g = gauge.clone();
    let hang = Tool::define("hang")
        .execute(move |_, _| {
            let guard = g.enter();
            async move {
                let _guard = guard;
                std::future::pending::<ToolResult>().await
            }
        })
        .build()
        .unwrap();
    Registry::builder().register_all([sleep, boom, fail, hang]).seal().unwrap()
}

fn sleep_call(i: usize, ms: u64) -> ToolCall {
    ToolCall::new(format!("call_{i}"), "sleep", json!({"ms": ms}))
}

#[tokio::test(start_paused = true)]
async fn receipts_come_back_in_call_order() {
    let registry = registry(&Gauge::default());
    let calls: Vec<_> = (0..20).map(|i| sleep_call(i, 200 - 10 * i as u64)).collect();
    let receipts = registry.dispatch(calls).await;
    assert_eq!(receipts.len(), 20);
    for (i, receipt) in receipts.iter().enumerate() {
        assert_eq!(receipt.call_id.as_deref(), Some(format!("call_{i}").as_str()));
        assert_eq!(receipt.result.json()["slept"], json!(200 - 10 * i as u64));
    }
}

#[tokio::test(start_paused = true)]
async fn the_concurrency_limit_holds() {
    let gauge = Gauge::default();
    let registry = registry(&gauge);
    let calls: Vec<_> = (0..50).map(|i| sleep_call(i, 10)).collect();
    let receipts = registry.dispatch(calls).concurrency(7).await;
    assert!(receipts.iter().all(|r| r.result.is_success()));
    assert_eq!(gauge.peak.load(Ordering::SeqCst), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failing_panicking_and_hanging_calls_never_affect_the_others() {
    let gauge = Gauge::default();
    let registry = registry(&gauge);
    let calls = vec![
        sleep_call(0, 5),
        ToolCall::new("c1", "boom", json!({})),
        ToolCall::new("c2", "fail", json!({})),
        ToolCall::new("c3", "hang", json!({})),
        ToolCall::new("c4", "no_such_tool", json!({})),
        ToolCall::new("c5", "sleep", json!({"ms": "five"})),
        sleep_call(6, 5),
    ];
    let receipts = registry.dispatch(calls).timeout(Duration::from_millis(100)).await;
    let kinds: Vec<_> = receipts.iter().map(|r| r.result.failure_kind()).collect();
    assert_eq!(
        kinds,
        [
            None,
            Some(FailureKind::Panic),
            Some(FailureKind::Handler),
            Some(FailureKind::TimedOut),
            Some(FailureKind::UnknownTool),
            Some(FailureKind::InvalidInput),
            None,
        ]
    );
    assert_eq!(receipts[1].result.text(), Some("tool \"boom\" panicked: kaboom"));
    assert_eq!(gauge.now.load(Ordering::SeqCst), 0, "the hanging call was dropped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_signal_aborts_running_and_waiting_calls() {
    let gauge = Gauge::default();
    let registry = registry(&gauge);
    let ctl = AbortController::new();
    let calls: Vec<_> =
        (0..10).map(|i| ToolCall::new(format!("c{i}"), "hang", json!({}))).collect();
    let dispatch = registry.dispatch(calls).concurrency(4).signal(ctl.signal());
    let run = tokio::spawn(dispatch.into_future());
    wait_until(|| gauge.now.load(Ordering::SeqCst) == 4).await;
    ctl.abort_with("turn cancelled");
    let receipts = tokio::time::timeout(Duration::from_secs(10), run).await.unwrap().unwrap();
    assert_eq!(receipts.len(), 10);
    for receipt in &receipts {
        assert_eq!(receipt.result.text(), Some("turn cancelled"));
    }
    assert_eq!(gauge.now.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_dispatch_stops_its_calls() {
    let gauge = Gauge::default();
    let registry = registry(&gauge);
    let calls: Vec<_> = (0..8).map(|i| ToolCall::new(format!("c{i}"), "hang", json!({}))).collect();
    let run = tokio::spawn(registry.dispatch(calls).into_future());
    wait_until(|| gauge.now.load(Ordering::SeqCst) == 8).await;
    run.abort();
    let _ = run.await;
    for _ in 0..100 {
        if gauge.now.load(Ordering::SeqCst) == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(gauge.now.load(Ordering::SeqCst), 0, "every call's future was dropped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_calls_all_return_in_order() {
    let gauge = Gauge::default();
    let registry = registry(&gauge);
    let calls: Vec<_> = (0..10_000).map(|i| sleep_call(i, 10)).collect();
    let receipts = registry.dispatch(calls).concurrency(10_000).await;
    assert_eq!(receipts.len(), 10_000);
    let mut ids = std::collections::HashSet::new();
    for (i, receipt) in receipts.iter().enumerate() {
        assert_eq!(receipt.call_id.as_deref(), Some(format!("call_{i}").as_str()));
        assert!(receipt.result.is_success());
        let seen_by_handler = receipt.result.json()["id"].as_str().unwrap();
        assert_eq!(seen_by_handler, receipt.invocation_id.to_string());
        ids.insert(receipt.invocation_id);
    }
    assert_eq!(ids.len(), 10_000);
    assert!(gauge.peak.load(Ordering::SeqCst) > 1000, "the calls overlapped");
}

#[test]
fn without_a_runtime_calls_run_one_by_one() {
    let echo = Tool::define("echo")
        .execute_sync(|args: Value, _| ToolResult::ok(args, "echo"))
        .build()
        .unwrap();
    let registry = Registry::builder().register(echo).seal().unwrap();
    let calls: Vec<_> =
        (0..3).map(|i| ToolCall::new(format!("c{i}"), "echo", json!({"i": i}))).collect();
    let dispatch = registry.dispatch(calls).into_future();
    let mut dispatch = std::pin::pin!(dispatch);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let std::task::Poll::Ready(receipts) = std::future::Future::poll(dispatch.as_mut(), &mut cx)
    else {
        panic!("sync calls finish on the first poll")
    };
    let seen: Vec<_> = receipts.iter().map(|r| r.result.json()["i"].clone()).collect();
    assert_eq!(seen, [json!(0), json!(1), json!(2)]);
}

#[tokio::test]
async fn an_empty_dispatch_returns_no_receipts() {
    let registry = registry(&Gauge::default());
    assert!(registry.dispatch(Vec::new()).await.is_empty());
    assert!(registry.dispatch(vec![sleep_call(0, 0)]).concurrency(0).await[0].result.is_success());
}

#[tokio::test]
async fn tool_calls_round_trip_through_json() {
    let call: ToolCall =
        serde_json::from_value(json!({"call_id": "c", "tool": "sleep", "arguments": {"ms": 1}}))
            .unwrap();
    assert_eq!(call, ToolCall::new("c", "sleep", json!({"ms": 1})));
    assert_eq!(
        serde_json::to_value(&call).unwrap(),
        json!({"call_id": "c", "tool": "sleep", "arguments": {"ms": 1}})
    );
    let old: ToolCall =
        serde_json::from_value(json!({"call_id": "c", "name": "sleep", "arguments": {"ms": 1}}))
            .unwrap();
    assert_eq!(old, call, "the key of earlier versions still reads");
}

#[test]
fn a_dispatch_made_outside_the_runtime_that_drives_it_still_runs_concurrently() {
    let gauge = Gauge::default();
    let registry = registry(&gauge);
    let calls: Vec<_> = (0..20).map(|i| sleep_call(i, 50)).collect();
    // Made here, with no runtime around; the runtime only drives it.
    let dispatch = registry.dispatch(calls).concurrency(20).into_future();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    let receipts = runtime.block_on(dispatch);
    assert!(receipts.iter().all(|r| r.result.is_success()));
    assert_eq!(gauge.peak.load(Ordering::SeqCst), 20, "the calls ran at the same time");
}

/// Waits until `ready` holds, failing the test after ten seconds rather than hanging it.
async fn wait_until(ready: impl Fn() -> bool) {
    let poll = async {
        while !ready() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), poll).await.expect("the condition was reached");
}

#[tokio::test(start_paused = true)]
async fn a_queued_calls_timeout_starts_when_the_call_does() {
    let registry = registry(&Gauge::default());
    let calls: Vec<_> = (0..3).map(|i| sleep_call(i, 30)).collect();
    // One at a time, 90 ms in all, but no call runs longer than its own 50 ms budget.
    let receipts = registry.dispatch(calls).concurrency(1).timeout(Duration::from_millis(50)).await;
    assert!(receipts.iter().all(|r| r.result.is_success()), "{receipts:?}");
}
