//! Workload (c) on each runtime: many concurrent calls of the tool that sleeps 10 ms.
//!
//! Each peer's calls are spawned as Tokio tasks, one per call, since none of the peers has a
//! call batch of its own; toolwire runs them both that way and through `Registry::dispatch`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::runtime::Runtime;
use tokio::task::JoinSet;
use toolwire::ToolCall;

use crate::workload::SLEEP;
use crate::{rig_side, rmcp_side, toolnexus_side, toolwire_side};

/// The ways workload (c) can run, by the names the benchmarks print.
pub const RUNTIMES: [&str; 5] =
    ["toolwire_dispatch", "toolwire_invoke_spawned", "toolnexus", "rig", "rmcp"];

/// Runs `calls` concurrent sleeping calls on the runtime named `which` (one of [`RUNTIMES`])
/// and returns how long they took. Everything is built first; `ready` runs just before the
/// first call starts. Panics on an unknown name or a failed call.
pub fn run(rt: &Runtime, which: &str, calls: usize, ready: impl FnOnce()) -> Duration {
    let args = Arc::<str>::from("{}");
    let mut set = JoinSet::new();
    let start;
    match which {
        "toolwire_dispatch" => {
            let registry = toolwire_side::registry(|| ());
            let batch: Vec<ToolCall> = (0..calls)
                .map(|i| {
                    ToolCall::new(format!("call_{i}"), SLEEP, Value::Object(Default::default()))
                })
                .collect();
            ready();
            start = Instant::now();
            let ok = rt.block_on(toolwire_side::dispatch(&registry, batch));
            assert_eq!(ok, calls, "every call succeeds");
            return start.elapsed();
        }
        "toolwire_invoke_spawned" => {
            let registry = toolwire_side::registry(|| ());
            ready();
            start = Instant::now();
            for _ in 0..calls {
                let (registry, args) = (registry.clone(), args.clone());
                set.spawn_on(
                    async move { toolwire_side::invoke(&registry, SLEEP, &args).await },
                    rt.handle(),
                );
            }
        }
        "toolnexus" => {
            let toolkit = rt.block_on(toolnexus_side::toolkit(|| ()));
            ready();
            start = Instant::now();
            for _ in 0..calls {
                let (toolkit, args) = (toolkit.clone(), args.clone());
                set.spawn_on(
                    async move { toolnexus_side::execute(&toolkit, SLEEP, &args).await },
                    rt.handle(),
                );
            }
        }
        "rig" => {
            let tools = Arc::new(rig_side::tools(|| ()));
            ready();
            start = Instant::now();
            for _ in 0..calls {
                let (tools, args) = (tools.clone(), args.clone());
                set.spawn_on(
                    async move { rig_side::call(&tools, SLEEP, &args).await },
                    rt.handle(),
                );
            }
        }
        "rmcp" => {
            let router = {
                let _entered = rt.enter();
                rmcp_side::router(|| ())
            };
            ready();
            start = Instant::now();
            for _ in 0..calls {
                let (router, args) = (router.clone(), args.clone());
                set.spawn_on(
                    async move { rmcp_side::call(&router, SLEEP, &args).await },
                    rt.handle(),
                );
            }
        }
        other => panic!("no runtime is called {other:?}"),
    }
    rt.block_on(async {
        while let Some(done) = set.join_next().await {
            assert!(done.expect("no call panics"), "every call succeeds");
        }
    });
    start.elapsed()
}
