//! The cost of `Tool::execute` over calling the handler directly, and abort latency.
//!
//! Run with `cargo bench -p toolwire --bench execute`. Each group has its baseline in the same
//! run, so the ratios hold on a noisy machine. Sync calls are polled once with a no-op waker:
//! a sync tool completes on its first poll, so no executor cost is counted on either side.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::{Future, IntoFuture};
use std::hint::black_box;
use std::pin::pin;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use toolwire::{AbortController, Tool, ToolContext, ToolResult};

/// The seed's `double` handler.
fn double(args: Value, _ctx: ToolContext) -> ToolResult {
    let n = args["n"].as_f64().unwrap_or(0.0);
    ToolResult::ok(json!({"value": n * 2.0}), "doubled")
}

fn double_tool() -> Tool {
    Tool::define("double")
        .description("Double a number")
        .parameters(json!({
            "type": "object",
            "properties": {"n": {"type": "number"}},
            "required": ["n"]
        }))
        .execute_sync(double)
        .build()
        .expect("valid tool")
}

fn args() -> Value {
    json!({"n": 21})
}

/// Polls a future that completes at once.
fn poll_once<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a sync call completes on its first poll"),
    }
}

fn sync_overhead(c: &mut Criterion) {
    let tool = double_tool();
    let ctx = ToolContext::new();
    let ctl = AbortController::new();
    let mut group = c.benchmark_group("execute_sync");
    group.bench_function("direct_handler", |b| {
        b.iter_batched(args, |a| black_box(double(a, ctx.clone())), BatchSize::SmallInput)
    });
    group.bench_function("execute", |b| {
        b.iter_batched(
            args,
            |a| black_box(poll_once(tool.execute(a).into_future())),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("execute_signal_timeout", |b| {
        b.iter_batched(
            args,
            |a| {
                let call = tool.execute(a).signal(ctl.signal()).timeout(Duration::from_secs(5));
                black_box(poll_once(call.into_future()))
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn async_overhead(c: &mut Criterion) {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime");
    let tool = Tool::define("double_async")
        .parameters(
            json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}),
        )
        .execute(|args, ctx| async move { double(args, ctx) })
        .build()
        .expect("valid tool");
    let ctx = ToolContext::new();
    let ctl = AbortController::new();
    let mut group = c.benchmark_group("execute_async");
    group.bench_function("direct_handler", |b| {
        b.iter_batched(
            args,
            |a| black_box(runtime.block_on(async { double(a, ctx.clone()) })),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("execute_signal_timeout", |b| {
        b.iter_batched(
            args,
            |a| {
                let call = tool.execute(a).signal(ctl.signal()).timeout(Duration::from_secs(5));
                black_box(runtime.block_on(call.into_future()))
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// Time from `abort()` to the caller holding the aborted result, for a handler that ignores
/// its signal; the baseline is the same hand-off through a bare oneshot channel.
fn abort_latency(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("runtime");
    let hang = Tool::define("hang")
        .execute(|_, ctx: ToolContext| {
            ctx.emit(Value::Null); // tells the bench the handler is running
            std::future::pending::<ToolResult>()
        })
        .build()
        .expect("valid tool");
    let mut group = c.benchmark_group("abort_latency");
    group.bench_function("oneshot_baseline", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (tx, rx) = oneshot::channel::<()>();
                    let (done_tx, done_rx) = oneshot::channel();
                    tokio::spawn(async move {
                        let _ = rx.await;
                        let _ = done_tx.send(Instant::now());
                    });
                    tokio::task::yield_now().await;
                    let start = Instant::now();
                    let _ = tx.send(());
                    total += done_rx.await.expect("sent") - start;
                }
                total
            })
        })
    });
    group.bench_function("abort_to_result", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let ctl = AbortController::new();
                    let (started_tx, started_rx) = oneshot::channel();
                    let started_tx = Mutex::new(Some(started_tx));
                    let call = hang.execute(json!({})).signal(ctl.signal()).on_event(move |_| {
                        if let Some(tx) = started_tx.lock().ok().and_then(|mut tx| tx.take()) {
                            let _ = tx.send(());
                        }
                    });
                    let (done_tx, done_rx) = oneshot::channel();
                    tokio::spawn(async move {
                        let result = call.await;
                        let _ = done_tx.send((Instant::now(), result.is_aborted()));
                    });
                    started_rx.await.expect("the handler starts");
                    let start = Instant::now();
                    ctl.abort();
                    let (end, aborted) = done_rx.await.expect("sent");
                    assert!(aborted);
                    total += end - start;
                }
                total
            })
        })
    });
    group.finish();
}

criterion_group!(benches, sync_overhead, async_overhead, abort_latency);
criterion_main!(benches);
