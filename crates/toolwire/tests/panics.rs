//! Panicking handlers become failed results, and the tool and runtime keep working.

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolwire::{AbortController, FailureKind, Tool, ToolContext, ToolResult};

/// Panics when `{"boom": true}`, succeeds otherwise.
fn flaky(is_async: bool) -> Tool {
    let body = |args: &Value| {
        if args["boom"] == json!(true) {
            panic!("index out of bounds: the len is 0 but the index is 3");
        }
        ToolResult::ok(json!({}), "fine")
    };
    let builder = Tool::define("flaky");
    let builder = if is_async {
        builder.execute(move |args: Value, _| async move {
            tokio::task::yield_now().await;
            body(&args)
        })
    } else {
        builder.execute_sync(move |args: Value, _| body(&args))
    };
    builder.build().unwrap()
}

#[tokio::test]
async fn a_panic_becomes_a_failure_carrying_the_message() {
    for is_async in [false, true] {
        let tool = flaky(is_async);
        let result = tool.execute(json!({"boom": true})).await;
        assert_eq!(result.failure_kind(), Some(FailureKind::Panic), "async: {is_async}");
        assert_eq!(
            result.text(),
            Some("tool \"flaky\" panicked: index out of bounds: the len is 0 but the index is 3")
        );
        assert_eq!(result.json(), &Value::Null);
        // The tool keeps working.
        assert_eq!(tool.execute(json!({})).await.text(), Some("fine"));
    }
}

#[tokio::test]
async fn a_panic_with_a_string_or_other_payload() {
    let owned = Tool::define("owned")
        .execute_sync(|_, _| -> ToolResult { panic!("{} went wrong", "something") })
        .build()
        .unwrap();
    assert_eq!(
        owned.execute(json!({})).await.text(),
        Some("tool \"owned\" panicked: something went wrong")
    );
    let odd = Tool::define("odd")
        .execute_sync(|_, _| -> ToolResult { std::panic::panic_any(42_u8) })
        .build()
        .unwrap();
    let result = odd.execute(json!({})).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Panic));
    assert!(result.text().unwrap().contains("non-string payload"));
}

#[tokio::test]
async fn a_panic_while_building_the_future_is_caught() {
    let eager = Tool::define("eager")
        .execute(|_, _| -> std::future::Ready<ToolResult> { panic!("before the first await") })
        .build()
        .unwrap();
    let result = eager.execute(json!({})).await;
    assert_eq!(result.text(), Some("tool \"eager\" panicked: before the first await"));
}

#[tokio::test]
async fn a_panic_while_aborted_yields_the_aborted_result() {
    let controller = AbortController::new();
    let ctl = controller.clone();
    let tool = Tool::define("p")
        .execute_sync(move |_, _| -> ToolResult {
            ctl.abort_with("gone");
            panic!("after abort")
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).signal(controller.signal()).await;
    assert!(result.is_aborted());
    assert_eq!(result.text(), Some("gone"));
}

#[tokio::test]
async fn a_panicking_event_callback_is_a_handler_panic() {
    let tool = Tool::define("emitter")
        .execute_sync(|_, ctx: ToolContext| {
            ctx.emit(json!(1));
            ToolResult::ok(json!({}), "ok")
        })
        .build()
        .unwrap();
    let result = tool.execute(json!({})).on_event(|_| panic!("listener broke")).await;
    assert_eq!(result.failure_kind(), Some(FailureKind::Panic));
    assert!(result.text().unwrap().ends_with("listener broke"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_panics_leave_the_runtime_healthy() {
    let tool = flaky(true);
    let ok = Arc::new(AtomicUsize::new(0));
    let calls: Vec<_> = (0..500)
        .map(|i| {
            let call = tool.execute(json!({"boom": i % 2 == 0})).into_future();
            let ok = Arc::clone(&ok);
            tokio::spawn(async move {
                let result = call.await;
                if result.is_success() {
                    ok.fetch_add(1, Ordering::SeqCst);
                } else {
                    assert_eq!(result.failure_kind(), Some(FailureKind::Panic));
                }
            })
        })
        .collect();
    for call in calls {
        call.await.expect("no task panicked");
    }
    assert_eq!(ok.load(Ordering::SeqCst), 250);
}
