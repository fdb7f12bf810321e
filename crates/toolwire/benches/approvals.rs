//! What single use costs: spending an approval in the default in-memory store, and a whole
//! approved call beside a plain one, in one run.
//!
//! Run with `cargo bench -p toolwire --bench approvals`. Every approved call needs an approval
//! of its own, issued (by a first, parked call) in the untimed set-up of each batch.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::{Future, IntoFuture};
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwire::policy::{ApprovalStore, MemoryApprovalStore, SpentApproval};
use toolwire::{Answer, Registry, Tool, ToolContext, ToolResult};

fn double(args: Value, _ctx: ToolContext) -> ToolResult {
    let n = args["n"].as_f64().unwrap_or(0.0);
    ToolResult::ok(json!({"value": n * 2.0}), "doubled")
}

fn double_tool(name: &str, needs_approval: bool) -> Tool {
    Tool::define(name)
        .parameters(
            json!({"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}),
        )
        .needs_approval(needs_approval)
        .execute_sync(double)
        .build()
        .expect("valid tool")
}

fn poll_once<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a sync call completes on its first poll"),
    }
}

fn spending(c: &mut Criterion) {
    // Approvals live a second here, so the store sweeps the spent ones as the run goes on
    // instead of filling up; each is spent well within its second.
    let registry = Registry::builder()
        .register(double_tool("double", false))
        .register(double_tool("deploy", true))
        .memory_approval_store(Arc::new(MemoryApprovalStore::with_capacity(usize::MAX)))
        .approval_ttl(Duration::from_secs(1))
        .seal()
        .expect("unique names");
    let mut group = c.benchmark_group("approvals");
    group.bench_function("invoke_validated", |b| {
        b.iter_batched(
            || json!({"n": 21}),
            |a| black_box(poll_once(registry.invoke("double", a).call_id("c1").into_future())),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("invoke_approved", |b| {
        b.iter_batched(
            || {
                let parked = poll_once(
                    registry.invoke("deploy", json!({"n": 21})).call_id("c1").into_future(),
                );
                let id = parked.result.pending_request().expect("it asks").id.clone();
                (json!({"n": 21}), Answer::accept(id, Value::Null))
            },
            |(a, answer)| {
                let receipt = poll_once(
                    registry.invoke("deploy", a).call_id("c1").answer(answer).into_future(),
                );
                assert!(receipt.result.is_success());
                black_box(receipt)
            },
            BatchSize::SmallInput,
        )
    });
    let store = MemoryApprovalStore::with_capacity(usize::MAX);
    let mut next = 0u64;
    group.bench_function("memory_store_spend", |b| {
        b.iter_batched(
            || {
                next += 1;
                let id =
                    format!("apr-{next:016x}-{:016x}-{}-{}", 0, "0".repeat(12), "0".repeat(32));
                let expires_at = SystemTime::now() + Duration::from_secs(1);
                SpentApproval::new(id, "0".repeat(64), expires_at)
            },
            |approval| black_box(poll_once(store.spend(approval))),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, spending);
criterion_main!(benches);
