//! The cost of `Registry::invoke` over calling the handler directly, and the wall time of a
//! dispatch of 10,000 sleeping calls (its memory is measured by `benches/dispatch_memory.rs`).
//!
//! Run with `cargo bench -p toolwire --bench registry`. Sync calls are polled once with a
//! no-op waker on both sides, since a sync tool completes on its first poll.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::{Future, IntoFuture};
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwire::{Registry, Tool, ToolCall, ToolContext, ToolResult};

/// The seed's `double` handler.
fn double(args: Value, _ctx: ToolContext) -> ToolResult {
    let n = args["n"].as_f64().unwrap_or(0.0);
    ToolResult::ok(json!({"value": n * 2.0}), "doubled")
}

fn args() -> Value {
    json!({"n": 21})
}

fn double_tool(name: &str, validate: bool) -> Tool {
    Tool::define(name)
        .parameters(json!({
            "type": "object",
            "properties": {"n": {"type": "number"}},
            "required": ["n"]
        }))
        .validate_arguments(validate)
        .execute_sync(double)
        .build()
        .expect("valid tool")
}

/// Polls a future that completes at once.
fn poll_once<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a sync call completes on its first poll"),
    }
}

fn invoke_overhead(c: &mut Criterion) {
    let registry = Registry::builder()
        .register(double_tool("double", true))
        .register(double_tool("double_unchecked", false))
        .seal()
        .expect("unique names");
    let ctx = ToolContext::new();
    let mut group = c.benchmark_group("invoke");
    group.bench_function("direct_handler", |b| {
        b.iter_batched(args, |a| black_box(double(a, ctx.clone())), BatchSize::SmallInput)
    });
    group.bench_function("invoke_validated", |b| {
        b.iter_batched(
            args,
            |a| black_box(poll_once(registry.invoke("double", a).into_future())),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("invoke_unvalidated", |b| {
        b.iter_batched(
            args,
            |a| black_box(poll_once(registry.invoke("double_unchecked", a).into_future())),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

const CALLS: usize = 10_000;
const SLEEP: Duration = Duration::from_millis(10);

fn sleeper() -> Registry {
    let sleep = Tool::define("sleep")
        .execute(|_, _| async {
            tokio::time::sleep(SLEEP).await;
            ToolResult::ok(json!({}), "slept")
        })
        .build()
        .expect("valid tool");
    Registry::builder().register(sleep).seal().expect("unique names")
}

fn calls() -> Vec<ToolCall> {
    (0..CALLS).map(|i| ToolCall::new(format!("call_{i}"), "sleep", json!({}))).collect()
}

/// 10,000 calls that each sleep 10 ms, with a limit of 10,000. The baseline spawns 10,000
/// bare `tokio::time::sleep` tasks and joins them.
fn dispatch_wall_time(c: &mut Criterion) {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let registry = sleeper();
    let mut group = c.benchmark_group("dispatch_10k_sleeping_10ms");
    group.sample_size(20);
    group.bench_function("spawned_sleeps_baseline", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let mut set = tokio::task::JoinSet::new();
                    for _ in 0..CALLS {
                        set.spawn(tokio::time::sleep(SLEEP));
                    }
                    while set.join_next().await.is_some() {}
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("dispatch", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let dispatch = registry.dispatch(calls()).concurrency(CALLS);
                let start = Instant::now();
                black_box(runtime.block_on(dispatch.into_future()));
                total += start.elapsed();
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, invoke_overhead, dispatch_wall_time);
criterion_main!(benches);
