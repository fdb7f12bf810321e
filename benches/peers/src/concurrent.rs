//! Workload (c) on each runtime: many concurrent calls of the tool that sleeps 10 ms.
//!
//! Each peer's calls are spawned as Tokio tasks, one per call, since none of the peers has a
//! call batch of its own; toolwire runs them both that way and through `Registry::dispatch`.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::runtime::Runtime;
use tokio::task::JoinSet;
use toolwire::ToolCall;

use crate::workload::{SLEEP, SLEEP_FOR};
use crate::{rig_side, rmcp_side, toolnexus_side, toolwire_side};

/// The ways workload (c) can run, by the names the benchmarks print; the first is the one
/// the others are compared with.
pub const RUNTIMES: [&str; 5] = [
    "toolwire_dispatch",
    "toolwire_invoke_spawned",
    "toolnexus_toolkit_execute_spawned",
    "rig_serve_by_name_spawned",
    "rmcp_tool_router_call_spawned",
];

/// Bare `tokio::time::sleep` tasks, one per call, with no runtime around them.
pub const BASELINE: &str = "baseline_spawned_sleeps";

/// Runs `calls` concurrent sleeping calls on the runtime named `which` (one of [`RUNTIMES`],
/// or [`BASELINE`]) and returns how long they took. Everything is built first; `ready` runs
/// just before the first call starts. Panics on an unknown name or a failed call.
pub fn run(rt: &Runtime, which: &str, calls: usize, ready: impl FnOnce()) -> Duration {
    let args = Arc::<str>::from("{}");
    match which {
        BASELINE => spawn_all(rt, calls, ready, || async {
            tokio::time::sleep(SLEEP_FOR).await;
            true
        }),
        "toolwire_dispatch" => {
            let registry = toolwire_side::registry(|| ());
            let batch: Vec<ToolCall> = (0..calls)
                .map(|i| {
                    ToolCall::new(format!("call_{i}"), SLEEP, Value::Object(Default::default()))
                })
                .collect();
            ready();
            let start = Instant::now();
            let ok = rt.block_on(toolwire_side::dispatch(&registry, batch));
            assert_eq!(ok, calls, "every call succeeds");
            start.elapsed()
        }
        "toolwire_invoke_spawned" => {
            let registry = toolwire_side::registry(|| ());
            spawn_all(rt, calls, ready, || {
                let (registry, args) = (registry.clone(), args.clone());
                async move { toolwire_side::invoke(&registry, SLEEP, &args).await }
            })
        }
        "toolnexus_toolkit_execute_spawned" => {
            let toolkit = rt.block_on(toolnexus_side::toolkit(|| ()));
            spawn_all(rt, calls, ready, || {
                let (toolkit, args) = (toolkit.clone(), args.clone());
                async move { toolnexus_side::execute(&toolkit, SLEEP, &args).await }
            })
        }
        "rig_serve_by_name_spawned" => {
            let tools = Arc::new(rig_side::tools(|| ()));
            spawn_all(rt, calls, ready, || {
                let (tools, args) = (tools.clone(), args.clone());
                async move { rig_side::call(&tools, SLEEP, &args).await }
            })
        }
        "rmcp_tool_router_call_spawned" => {
            let router = {
                let _entered = rt.enter();
                rmcp_side::router(|| ())
            };
            spawn_all(rt, calls, ready, || {
                let (router, args) = (router.clone(), args.clone());
                async move { rmcp_side::call(&router, SLEEP, &args).await }
            })
        }
        other => panic!("no runtime is called {other:?}"),
    }
}

/// Runs `ready`, then spawns `calls` calls made by `call`, one task each, and waits for them
/// all; returns the time from the first spawn to the last result.
fn spawn_all<F, Fut>(rt: &Runtime, calls: usize, ready: impl FnOnce(), call: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: Future<Output = bool> + Send + 'static,
{
    ready();
    let start = Instant::now();
    let mut set = JoinSet::new();
    for _ in 0..calls {
        set.spawn_on(call(), rt.handle());
    }
    rt.block_on(async {
        while let Some(done) = set.join_next().await {
            assert!(done.expect("no call panics"), "every call succeeds");
        }
    });
    start.elapsed()
}
