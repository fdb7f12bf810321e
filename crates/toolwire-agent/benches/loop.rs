//! The agent loop's own cost, and how soon streamed calls start.
//!
//! Run with `cargo bench -p toolwire-agent --bench loop`.
//!
//! - `turn/agent_10_calls` is one run of one turn: an in-process model returns 10 calls at
//!   once, the agent runs them and renders their results. `turn/dispatch_10_calls` dispatches
//!   the same 10 calls directly (the baseline), and `turn/model_alone` is the mock model's own
//!   work (cloning its turn); the loop's overhead per turn is the first minus the other two.
//! - `stream/close_to_start` is the time from a call's arguments closing in the stream (the
//!   model's client reporting it) to its handler starting, while the model goes on writing.
//! - `stream/first_start_*` is the time from the start of a turn whose model writes 10 calls,
//!   1 ms apart, to the first handler starting: with streaming dispatch, and with dispatch at
//!   the end of the turn.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::IntoFuture;
use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tokio::runtime::Runtime;
use tokio::sync::Notify;
use toolwire::{Provider, Registry, Tool, ToolCall, ToolResult};
use toolwire_agent::{
    Agent, BoxFuture, Error, IgnoreTurn, ModelClient, ModelRequest, ModelTurn, TurnSink,
};

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

fn calls(n: usize) -> Vec<ToolCall> {
    (0..n).map(|i| ToolCall::new(format!("call_{i}"), "echo", json!({"n": i}))).collect()
}

/// A model whose every turn is the same 10 calls, ready-made.
struct Ready {
    turn: ModelTurn,
}

impl Ready {
    fn new() -> Self {
        let calls = calls(10);
        let wire: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({"id": c.call_id.as_str(), "type": "function",
            "function": {"name": "echo", "arguments": c.arguments.to_string()}})
            })
            .collect();
        let assistant = vec![json!({"role": "assistant", "content": null, "tool_calls": wire})];
        Self { turn: ModelTurn::new(assistant, calls) }
    }
}

impl ModelClient for Ready {
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }
    fn model(&self) -> &str {
        "ready"
    }
    fn complete<'a>(
        &'a self,
        _request: ModelRequest<'a>,
        sink: &'a mut dyn TurnSink,
    ) -> BoxFuture<'a, Result<ModelTurn, Error>> {
        let turn = self.turn.clone();
        turn.calls.iter().for_each(|call| sink.call(call));
        Box::pin(async move { Ok(turn) })
    }
}

fn registry(started: Option<Arc<Mutex<Vec<Instant>>>>, gate: Option<Arc<Notify>>) -> Registry {
    let echo = Tool::define("echo")
        .parameters(
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        )
        .execute_sync(move |args, _| {
            if let Some(started) = &started {
                started.lock().expect("stamps").push(Instant::now());
            }
            if let Some(gate) = &gate {
                gate.notify_one();
            }
            ToolResult::ok(args, "echoed")
        })
        .build()
        .expect("echo");
    Registry::builder().register(echo).seal().expect("registry")
}

fn turn_overhead(c: &mut Criterion) {
    let rt = runtime();
    let registry = registry(None, None);
    let mut group = c.benchmark_group("turn");
    for streaming in [true, false] {
        let agent = Agent::builder(Ready::new(), registry.clone())
            .max_turns(1)
            .streaming_dispatch(streaming)
            .build();
        let name = if streaming { "agent_10_calls" } else { "agent_10_calls_dispatch_at_end" };
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| async { black_box(agent.run("go").await) })
        });
    }
    let batch = calls(10);
    group.bench_function("dispatch_10_calls", |b| {
        b.to_async(&rt).iter(|| async { black_box(registry.dispatch(batch.clone()).await) })
    });
    let model = Ready::new();
    let signal = toolwire::AbortSignal::never();
    group.bench_function("model_alone", |b| {
        b.to_async(&rt).iter(|| async {
            let request = ModelRequest::new(&[], &signal);
            black_box(model.complete(request, &mut IgnoreTurn).await)
        })
    });
    group.finish();
}

/// A model that writes `count` calls, `gap` apart, stamping when each closes; after the
/// first it waits for `gate` (when set) before going on.
struct Writing {
    count: usize,
    gap: Duration,
    closed: Arc<Mutex<Vec<Instant>>>,
    gate: Option<Arc<Notify>>,
}

impl ModelClient for Writing {
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }
    fn model(&self) -> &str {
        "writing"
    }
    fn complete<'a>(
        &'a self,
        _request: ModelRequest<'a>,
        sink: &'a mut dyn TurnSink,
    ) -> BoxFuture<'a, Result<ModelTurn, Error>> {
        Box::pin(async move {
            let calls = calls(self.count);
            for (i, call) in calls.iter().enumerate() {
                if i > 0 || self.gate.is_none() {
                    tokio::time::sleep(self.gap).await;
                }
                self.closed.lock().expect("stamps").push(Instant::now());
                sink.call(call);
                if let (0, Some(gate)) = (i, &self.gate) {
                    gate.notified().await;
                }
            }
            let assistant = vec![toolwire_agent_history(&calls)];
            Ok(ModelTurn::new(assistant, calls))
        })
    }
}

fn toolwire_agent_history(calls: &[ToolCall]) -> Value {
    let wire: Vec<Value> = calls
        .iter()
        .map(|c| {
            json!({"id": c.call_id.as_str(), "type": "function",
        "function": {"name": "echo", "arguments": c.arguments.to_string()}})
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": wire})
}

fn streaming(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("stream");
    group.bench_function("close_to_start", |b| {
        b.to_async(&rt).iter_custom(|iters| async move {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (closed, started, gate) =
                    (Arc::default(), Arc::default(), Arc::new(Notify::new()));
                let model = Writing {
                    count: 2,
                    gap: Duration::ZERO,
                    closed: Arc::clone(&closed),
                    gate: Some(Arc::clone(&gate)),
                };
                let agent = Agent::builder(model, registry(Some(Arc::clone(&started)), Some(gate)))
                    .max_turns(1)
                    .build();
                agent.run("go").into_future().await;
                total += first(&started) - first(&closed);
            }
            total
        })
    });
    group.sample_size(20);
    for on in [true, false] {
        let name = if on { "first_start_streaming" } else { "first_start_at_end_of_turn" };
        group.bench_function(name, |b| {
            b.to_async(&rt).iter_custom(|iters| async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (closed, started) = (Arc::default(), Arc::default());
                    let model =
                        Writing { count: 10, gap: Duration::from_millis(1), closed, gate: None };
                    let agent = Agent::builder(model, registry(Some(Arc::clone(&started)), None))
                        .max_turns(1)
                        .streaming_dispatch(on)
                        .build();
                    let begun = Instant::now();
                    agent.run("go").into_future().await;
                    total += first(&started) - begun;
                }
                total
            })
        });
    }
    group.finish();
}

fn first(stamps: &Mutex<Vec<Instant>>) -> Instant {
    stamps.lock().expect("stamps").iter().min().copied().unwrap_or_else(Instant::now)
}

criterion_group!(benches, turn_overhead, streaming);
criterion_main!(benches);
