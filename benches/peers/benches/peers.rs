//! The five workloads of `BENCHMARKS.md`, run on toolwire and its peers in one process.
//!
//! Run with `cargo bench -p peers --bench peers`; `python3 scripts/bench-medians.py` prints
//! the medians and each line's ratio to toolwire. Peak memory of workload (c) comes from the
//! `peers_memory` bench, which runs every runtime in a fresh process.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use peers::block::block_on;
use peers::workload::{self, ADD, CATALOG_SIZE, CONCURRENT_CALLS, HANG, ORDER};
use peers::{concurrent, rig_side, rmcp_side, toolnexus_side, toolwire_side};
use serde_json::Value;
use tokio::runtime::Runtime;
use tokio::sync::{Notify, oneshot};
use tokio_util::sync::CancellationToken;
use toolwire::AbortController;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime")
}

/// Every runtime's tools for workloads (a) to (d); `started` fires when a `hang` call starts.
struct Peers {
    runtime: Runtime,
    started: Arc<Notify>,
    toolwire: toolwire::Registry,
    toolnexus: toolnexus::Toolkit,
    rig: Arc<rig_side::Tools>,
    rmcp: rmcp_side::Router,
}

impl Peers {
    fn new() -> Self {
        let runtime = runtime();
        let started = Arc::new(Notify::new());
        let notify = || {
            let started = started.clone();
            move || started.notify_one()
        };
        let toolwire = toolwire_side::registry(notify());
        let toolnexus = runtime.block_on(toolnexus_side::toolkit(notify()));
        let rig = Arc::new(rig_side::tools(notify()));
        let rmcp = {
            let _entered = runtime.enter();
            rmcp_side::router(notify())
        };
        Self { runtime, started, toolwire, toolnexus, rig, rmcp }
    }
}

/// (a) One call of a trivial sync tool with a small object schema.
fn a_one_sync_call(c: &mut Criterion, peers: &Peers) {
    let args = workload::add_args();
    let args = args.as_str();
    let tool = toolwire_side::add();
    let nexus_tool = toolnexus_side::add();
    let rig_tool = rig_side::add();
    let mut group = c.benchmark_group("a_one_sync_call");
    group.bench_function("baseline_parse_and_handler", |b| {
        b.iter(|| {
            let input: Value = serde_json::from_str(black_box(args)).unwrap_or(Value::Null);
            black_box(workload::add(&input))
        })
    });
    group.bench_function("toolwire_execute", |b| {
        b.iter(|| assert!(block_on(toolwire_side::execute(&tool, black_box(args)))))
    });
    group.bench_function("toolwire_invoke_validated", |b| {
        b.iter(|| assert!(block_on(toolwire_side::invoke(&peers.toolwire, ADD, black_box(args)))))
    });
    group.bench_function("toolwire_invoke_unvalidated", |b| {
        b.iter(|| {
            let name = toolwire_side::ADD_UNCHECKED;
            assert!(block_on(toolwire_side::invoke(&peers.toolwire, name, black_box(args))))
        })
    });
    group.bench_function("toolnexus_tool_call", |b| {
        b.iter(|| assert!(block_on(toolnexus_side::call(&nexus_tool, black_box(args)))))
    });
    group.bench_function("toolnexus_toolkit_execute", |b| {
        b.iter(|| {
            assert!(block_on(toolnexus_side::execute(&peers.toolnexus, ADD, black_box(args))))
        })
    });
    group.bench_function("rig_dynamic_tool_execute", |b| {
        b.iter(|| assert!(block_on(rig_side::execute(&rig_tool, black_box(args)))))
    });
    group.bench_function("rig_serve_by_name", |b| {
        b.iter(|| assert!(block_on(rig_side::call(&peers.rig, ADD, black_box(args)))))
    });
    group.bench_function("rmcp_tool_router_call", |b| {
        b.iter(|| assert!(block_on(rmcp_side::call(&peers.rmcp, ADD, black_box(args)))))
    });
    group.finish();
}

/// (b) One call whose arguments are a 2 KB order that must match its schema.
fn b_two_kilobyte_order(c: &mut Criterion, peers: &Peers) {
    let args = workload::order_args();
    let args = args.as_str();
    let mut group = c.benchmark_group("b_2kb_order");
    group.bench_function("baseline_parse_and_handler", |b| {
        b.iter(|| {
            let input: Value = serde_json::from_str(black_box(args)).unwrap_or(Value::Null);
            black_box(workload::order_total(&input))
        })
    });
    group.bench_function("toolwire_invoke_validated", |b| {
        b.iter(|| assert!(block_on(toolwire_side::invoke(&peers.toolwire, ORDER, black_box(args)))))
    });
    group.bench_function("toolwire_invoke_unvalidated", |b| {
        b.iter(|| {
            let name = toolwire_side::ORDER_UNCHECKED;
            assert!(block_on(toolwire_side::invoke(&peers.toolwire, name, black_box(args))))
        })
    });
    group.bench_function("toolnexus_toolkit_execute", |b| {
        b.iter(|| {
            assert!(block_on(toolnexus_side::execute(&peers.toolnexus, ORDER, black_box(args))))
        })
    });
    group.bench_function("rig_serve_by_name", |b| {
        b.iter(|| assert!(block_on(rig_side::call(&peers.rig, ORDER, black_box(args)))))
    });
    group.bench_function("rmcp_tool_router_call", |b| {
        b.iter(|| assert!(block_on(rmcp_side::call(&peers.rmcp, ORDER, black_box(args)))))
    });
    group.finish();
}

/// (c) 10,000 concurrent calls of a tool that sleeps 10 ms: wall time. Each runtime's tools
/// are built before each timed run; `peers_memory` measures the same runs' memory.
fn c_ten_thousand_sleeping_calls(c: &mut Criterion, peers: &Peers) {
    let mut group = c.benchmark_group("c_10k_calls_sleeping_10ms");
    group.sample_size(10);
    for which in std::iter::once(concurrent::BASELINE).chain(concurrent::RUNTIMES) {
        group.bench_function(which, |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| concurrent::run(&peers.runtime, which, CONCURRENT_CALLS, || ()))
                    .sum()
            })
        });
    }
    group.finish();
}

/// Times `iters` aborts on `rt`: `spawn` starts a `hang` call in a task that reports when its
/// result is in, and returns what cancels it; `started` fires when the call runs. The time
/// runs from the cancel to the result.
fn abort_latency<S, C>(rt: &Runtime, started: &Notify, iters: u64, spawn: S) -> Duration
where
    S: Fn(oneshot::Sender<Instant>) -> C,
    C: FnOnce(),
{
    rt.block_on(async {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let (done_tx, done_rx) = oneshot::channel();
            let cancel = spawn(done_tx);
            started.notified().await;
            let start = Instant::now();
            cancel();
            total += done_rx.await.expect("the call ends") - start;
        }
        total
    })
}

/// (d) Abort to result, for a call that never finishes and ignores its signal.
///
/// The calls run on a current-thread runtime, so the time is the work of ending the call and
/// handing over its result, not the wake-up of another thread, which is the same for all
/// and would drown the difference in scheduling noise.
fn d_abort_to_result(c: &mut Criterion, peers: &Peers) {
    let rt =
        &tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let started = &*peers.started;
    let mut group = c.benchmark_group("d_abort_to_result");
    group.bench_function("baseline_oneshot", |b| {
        b.iter_custom(|iters| {
            abort_latency(rt, started, iters, |done| {
                let (tx, rx) = oneshot::channel::<()>();
                let started = peers.started.clone();
                tokio::spawn(async move {
                    started.notify_one();
                    let _ = rx.await;
                    let _ = done.send(Instant::now());
                });
                move || {
                    let _ = tx.send(());
                }
            })
        })
    });
    group.bench_function("toolwire_invoke_abort", |b| {
        b.iter_custom(|iters| {
            abort_latency(rt, started, iters, |done| {
                let controller = AbortController::new();
                let (registry, signal) = (peers.toolwire.clone(), controller.signal());
                tokio::spawn(async move {
                    assert!(toolwire_side::invoke_aborted(&registry, HANG, signal).await);
                    let _ = done.send(Instant::now());
                });
                move || controller.abort()
            })
        })
    });
    caller_select(&mut group, "toolnexus_caller_select", rt, started, |token| {
        let toolkit = peers.toolnexus.clone();
        async move { toolnexus_side::execute_cancelled_by_caller(&toolkit, HANG, token).await }
    });
    caller_select(&mut group, "rig_caller_select", rt, started, |token| {
        let tools = peers.rig.clone();
        async move { rig_side::call_cancelled_by_caller(&tools, HANG, token).await }
    });
    caller_select(&mut group, "rmcp_caller_select", rt, started, |token| {
        let router = peers.rmcp.clone();
        async move { rmcp_side::call_cancelled_by_caller(&router, HANG, token).await }
    });
    group.finish();
}

/// One line of workload (d) for a peer: `call` runs a `hang` call that the caller races
/// against the token it is given, and is true when the token won.
fn caller_select<F, Fut>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    rt: &Runtime,
    started: &Notify,
    call: F,
) where
    F: Fn(CancellationToken) -> Fut,
    Fut: Future<Output = bool> + Send + 'static,
{
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            abort_latency(rt, started, iters, |done| {
                let token = CancellationToken::new();
                let cancel = token.clone();
                let call = call(token);
                tokio::spawn(async move {
                    assert!(call.await);
                    let _ = done.send(Instant::now());
                });
                move || cancel.cancel()
            })
        })
    });
}

/// (e) The OpenAI tool list of 1,000 registered tools, as each runtime hands it out and as
/// the bytes of a request's `tools` array.
fn e_openai_tool_list(c: &mut Criterion, peers: &Peers) {
    let toolwire = toolwire_side::catalog(CATALOG_SIZE);
    let toolnexus = peers.runtime.block_on(toolnexus_side::catalog(CATALOG_SIZE));
    let rig = rig_side::catalog(CATALOG_SIZE);
    let rmcp = {
        let _entered = peers.runtime.enter();
        rmcp_side::catalog(CATALOG_SIZE)
    };
    assert_eq!(toolwire_side::openai_tools(&toolwire).len(), CATALOG_SIZE);
    assert_eq!(toolnexus_side::openai_tools(&toolnexus).len(), CATALOG_SIZE);
    assert_eq!(rig_side::openai_tools(&rig).len(), CATALOG_SIZE);
    assert_eq!(rmcp_side::openai_tools(&rmcp).len(), CATALOG_SIZE);

    let mut group = c.benchmark_group("e_openai_tool_list_1000");
    group.bench_function("toolwire_definitions", |b| {
        b.iter(|| black_box(toolwire_side::openai_tools(&toolwire)))
    });
    group.bench_function("toolnexus_to_openai", |b| {
        b.iter(|| black_box(toolnexus_side::openai_tools(&toolnexus)))
    });
    group.bench_function("rig_definitions_by_hand", |b| {
        b.iter(|| black_box(rig_side::openai_tools(&rig)))
    });
    group.bench_function("rmcp_list_all_by_hand", |b| {
        b.iter(|| black_box(rmcp_side::openai_tools(&rmcp)))
    });
    group.finish();

    let mut group = c.benchmark_group("e_openai_tool_list_1000_serialized");
    group.bench_function("toolwire_definitions", |b| {
        b.iter(|| black_box(to_bytes(&toolwire_side::openai_tools(&toolwire))))
    });
    group.bench_function("toolnexus_to_openai", |b| {
        b.iter(|| black_box(to_bytes(&toolnexus_side::openai_tools(&toolnexus))))
    });
    group.bench_function("rig_definitions_by_hand", |b| {
        b.iter(|| black_box(to_bytes(&rig_side::openai_tools(&rig))))
    });
    group.bench_function("rmcp_list_all_by_hand", |b| {
        b.iter(|| black_box(to_bytes(&rmcp_side::openai_tools(&rmcp))))
    });
    group.finish();
}

fn to_bytes(tools: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(tools).expect("a tool list serializes")
}

criterion_group!(benches, run_all);
criterion_main!(benches);

/// Builds every runtime once, then runs the workloads in order.
fn run_all(c: &mut Criterion) {
    let peers = Peers::new();
    a_one_sync_call(c, &peers);
    b_two_kilobyte_order(c, &peers);
    c_ten_thousand_sleeping_calls(c, &peers);
    d_abort_to_result(c, &peers);
    e_openai_tool_list(c, &peers);
}
