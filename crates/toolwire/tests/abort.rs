//! Abort semantics (seed 000 and DESIGN "Cancellation is real"): pre-aborted, mid-flight and
//! post-resolve aborts, reasons, and the abort storm.

use crate::common;

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::sleep;
use tokio_util::sync::CancellationToken;
use toolwire::{AbortController, AbortSignal, FailureKind, Tool, ToolContext, ToolResult};

/// Counts live handler futures: incremented when one starts, decremented when it is dropped.
#[derive(Clone, Default)]
struct Live(Arc<AtomicUsize>);

struct LiveGuard(Arc<AtomicUsize>);

impl Live {
    fn enter(&self) -> LiveGuard {
        self.0.fetch_add(1, Ordering::SeqCst);
        LiveGuard(Arc::clone(&self.0))
    }
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A tool that sleeps for `ms` and ignores its signal.
fn sleeper(ms: u64, live: Live) -> Tool {
    Tool::define("long_task")
        .description("A task that takes a while")
        .execute(move |_args: Value, _ctx| {
            let guard = live.enter();
            async move {
                let _guard = guard;
                sleep(Duration::from_millis(ms)).await;
                ToolResult::ok(json!({}), "Done")
            }
        })
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn seed_000_abort_mid_flight_returns_the_reason() {
    let plugin = Tool::define("fetch")
        .description("Fetch a record")
        .execute(|args: Value, _ctx| async move {
            sleep(Duration::from_millis(1000)).await;
            ToolResult::ok(json!({"id": args["id"]}), "ok")
        })
        .build()
        .unwrap();
    let controller = AbortController::new();
    let call =
        tokio::spawn(plugin.execute(json!({"id": "42"})).signal(controller.signal()).into_future());
    sleep(Duration::from_millis(100)).await;
    controller.abort_with("User cancelled");
    let result = call.await.unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"success": false, "json": null, "text": "User cancelled"})
    );
    assert_eq!(result.failure_kind(), Some(FailureKind::Aborted));
    assert!(result.is_aborted());
}

#[tokio::test]
async fn seed_000_pre_aborted_signal_never_runs_the_handler() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let plugin = Tool::define("lookup")
        .description("Look up a city")
        .execute_sync(move |_, _| {
            counter.fetch_add(1, Ordering::SeqCst);
            ToolResult::ok(json!({}), "ok")
        })
        .build()
        .unwrap();
    let controller = AbortController::new();
    controller.abort_with("Pre-aborted signal");
    let result = plugin.execute(json!({})).signal(controller.signal()).await;
    assert_eq!(result.text(), Some("Pre-aborted signal"));
    assert!(result.is_aborted());
    // Even invalid arguments are not looked at: the abort comes first.
    let invalid = plugin.execute(json!([1, 2])).signal(controller.signal()).await;
    assert!(invalid.is_aborted());
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn seed_000_a_handler_that_listens_and_rejects_still_yields_the_aborted_shape() {
    // The seed's long_task rejects with its own 'Cancelled' error on abort; the wrapper
    // reports the signal's reason instead.
    let plugin = Tool::define("long_task")
        .execute(|_args: Value, ctx: ToolContext| async move {
            tokio::select! {
                () = sleep(Duration::from_millis(5000)) => Ok(ToolResult::ok(json!({}), "Done")),
                () = ctx.signal().aborted() => Err("Cancelled"),
            }
        })
        .build()
        .unwrap();
    let controller = AbortController::new();
    let call = tokio::spawn(plugin.execute(json!({})).signal(controller.signal()).into_future());
    sleep(Duration::from_millis(10)).await;
    controller.abort();
    let result = call.await.unwrap();
    assert_eq!(result.text(), Some("Aborted"));
    assert!(result.is_aborted());
}

#[tokio::test(start_paused = true)]
async fn abort_mid_flight_drops_a_handler_that_ignores_the_signal() {
    let live = Live::default();
    let plugin = sleeper(3_600_000, live.clone());
    let controller = AbortController::new();
    // The call is polled in place, so it is still alive when its result is checked: the
    // handler must be gone before the result is handed out, not when the call is dropped.
    let call = plugin.execute(json!({})).signal(controller.signal()).into_future();
    let mut call = std::pin::pin!(call);
    assert!(poll_once(call.as_mut()).is_none(), "the handler is sleeping");
    assert_eq!(live.count(), 1, "the handler is running");
    controller.abort_with("stop");
    let result = call.as_mut().await;
    assert_eq!(result.text(), Some("stop"));
    assert_eq!(live.count(), 0, "the handler's future was dropped, not left running");
}

/// Polls `future` once with a no-op waker.
fn poll_once<F: std::future::Future>(future: std::pin::Pin<&mut F>) -> Option<F::Output> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.poll(&mut cx) {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    }
}

#[tokio::test]
async fn seed_000_post_resolve_abort_replaces_the_result() {
    // The handler aborts the signal itself just before resolving: the wrapper checks the
    // signal once more after the handler and returns the aborted shape.
    let controller = AbortController::new();
    let ctl = controller.clone();
    let plugin = Tool::define("racy")
        .execute_sync(move |_, _| {
            ctl.abort_with("late abort");
            ToolResult::ok(json!({"done": true}), "Done")
        })
        .build()
        .unwrap();
    let result = plugin.execute(json!({})).signal(controller.signal()).await;
    assert_eq!(result.text(), Some("late abort"));
    assert!(result.is_aborted());

    let controller = AbortController::new();
    let ctl = controller.clone();
    let async_plugin = Tool::define("racy_async")
        .execute(move |_, _| {
            let ctl = ctl.clone();
            async move {
                ctl.abort_with("late abort");
                ToolResult::ok(json!({"done": true}), "Done")
            }
        })
        .build()
        .unwrap();
    let result = async_plugin.execute(json!({})).signal(controller.signal()).await;
    assert_eq!(result.text(), Some("late abort"));
}

#[tokio::test]
async fn seed_000_an_error_while_aborted_yields_the_aborted_result() {
    let controller = AbortController::new();
    let ctl = controller.clone();
    let plugin = Tool::define("throws_while_aborted")
        .execute_sync(move |_, _| {
            ctl.abort_with("User cancelled");
            Err::<ToolResult, _>("Something went wrong")
        })
        .build()
        .unwrap();
    let result = plugin.execute(json!({})).signal(controller.signal()).await;
    assert_eq!(result.text(), Some("User cancelled"));
    assert_eq!(result.failure_kind(), Some(FailureKind::Aborted));
}

#[tokio::test]
async fn seed_000_abort_reason_table() {
    let plugin = sleeper(10, Live::default());
    let with_reason = AbortController::new();
    with_reason.abort_with("because");
    let without = AbortController::new();
    without.abort();
    let a = plugin.execute(json!({})).signal(with_reason.signal()).await;
    let b = plugin.execute(json!({})).signal(without.signal()).await;
    assert_eq!(a.text(), Some("because"));
    assert_eq!(b.text(), Some("Aborted"));
    assert_eq!(b.text(), Some(toolwire::DEFAULT_ABORT_REASON));
}

#[tokio::test]
async fn a_signal_that_never_fires_changes_nothing() {
    let plugin = sleeper(1, Live::default());
    let result = plugin.execute(json!({})).signal(AbortSignal::never()).await;
    assert_eq!(result.text(), Some("Done"));
}

#[tokio::test(start_paused = true)]
async fn the_handler_holds_the_callers_signal() {
    let (plugin, kept) = common::signal_keeper("peek");
    let controller = AbortController::new();
    let call = plugin.execute(json!({})).signal(controller.signal());
    let call = tokio::spawn(call.into_future());
    sleep(Duration::from_millis(1)).await;
    let held = kept.get();
    assert!(!held.is_aborted());
    controller.abort_with("wired");
    assert!(held.is_aborted(), "the handler's signal is the caller's");
    assert_eq!(held.reason(), Some("wired"));
    assert_eq!(call.await.unwrap().text(), Some("wired"));
}

#[test]
fn controller_and_signal_follow_the_dom_names() {
    let controller = AbortController::new();
    let signal = controller.signal();
    assert!(!signal.is_aborted());
    assert_eq!(signal.reason(), None);
    controller.abort_with("first");
    controller.abort_with("second");
    controller.abort();
    assert!(signal.is_aborted());
    assert_eq!(signal.reason(), Some("first"), "only the first abort counts");
    assert!(!AbortSignal::never().is_aborted());
    assert!(!AbortSignal::default().is_aborted());
}

#[test]
fn a_child_follows_its_parent_and_never_fires_it() {
    let parent = AbortController::new();
    let child = AbortController::with_parent(&parent.signal());
    child.abort_with("child only");
    assert!(child.signal().is_aborted());
    assert!(!parent.signal().is_aborted());

    let parent = AbortController::new();
    let child = AbortController::with_parent(&parent.signal());
    parent.abort_with("from parent");
    assert!(child.signal().is_aborted());
    assert_eq!(child.signal().reason(), Some("from parent"));
    child.abort_with("too late");
    assert_eq!(child.signal().reason(), Some("from parent"));
}

#[tokio::test]
async fn a_cancellation_token_is_a_signal() {
    let token = CancellationToken::new();
    let signal = AbortSignal::from(token.clone());
    let waiter = tokio::spawn({
        let signal = signal.clone();
        async move { signal.aborted().await }
    });
    token.cancel();
    waiter.await.unwrap();
    assert!(signal.is_aborted());
    assert_eq!(signal.reason_or_default(), "Aborted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abort_storm_ten_thousand_calls_all_return_and_nothing_keeps_running() {
    const CALLS: usize = 10_000;
    let live = Live::default();
    let plugin = sleeper(3_600_000, live.clone());
    let controller = AbortController::new();
    // Every task holds its finished call until all have finished, so the count of live
    // handlers is read while no call has been dropped yet.
    let barrier = Arc::new(tokio::sync::Barrier::new(CALLS + 1));
    let calls: Vec<_> = (0..CALLS)
        .map(|_| {
            let call = plugin.execute(json!({})).signal(controller.signal()).into_future();
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                let mut call = std::pin::pin!(call);
                let result = call.as_mut().await;
                barrier.wait().await;
                result
            })
        })
        .collect();
    while live.count() < CALLS {
        tokio::task::yield_now().await;
    }
    controller.abort_with("storm");
    tokio::time::timeout(Duration::from_secs(30), barrier.wait())
        .await
        .expect("every aborted call returns");
    assert_eq!(live.count(), 0, "every handler future was dropped before its call returned");
    for call in calls {
        assert_eq!(call.await.unwrap().text(), Some("storm"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_call_signals_abort_only_their_own_call() {
    let live = Live::default();
    let plugin = sleeper(50, live.clone());
    let controllers: Vec<_> = (0..100).map(|_| AbortController::new()).collect();
    let calls: Vec<_> = controllers
        .iter()
        .map(|c| tokio::spawn(plugin.execute(json!({})).signal(c.signal()).into_future()))
        .collect();
    for c in controllers.iter().step_by(2) {
        c.abort_with("even");
    }
    for (i, call) in calls.into_iter().enumerate() {
        let result = call.await.unwrap();
        let expected = if i % 2 == 0 { "even" } else { "Done" };
        assert_eq!(result.text(), Some(expected), "call {i}");
    }
    assert_eq!(live.count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiters_never_miss_an_abort_that_races_them() {
    for round in 0..2_000 {
        let parent = AbortController::new();
        let child = AbortController::with_parent(&parent.signal());
        let (own, inherited) = (child.signal(), child.signal());
        // One waiter on the child's own firing and one on the parent's, each racing the abort.
        let waiters = [
            tokio::spawn(async move { own.aborted().await }),
            tokio::spawn(async move { inherited.aborted().await }),
        ];
        let firer = tokio::spawn(async move {
            if round % 2 == 0 {
                parent.abort()
            } else {
                child.abort()
            }
            (parent, child)
        });
        let _keep = firer.await.unwrap();
        for waiter in waiters {
            tokio::time::timeout(Duration::from_secs(10), waiter)
                .await
                .expect("a waiter racing an abort is still woken")
                .unwrap();
        }
    }
}
