//! Runs one runtime's call of workload (a) many times, for `valgrind --tool=callgrind`.
//!
//! `cargo build --profile bench -p peers --example profile_call`, then
//! `valgrind --tool=callgrind target/release/examples/profile_call <runtime> [calls]`, where
//! `<runtime>` is `baseline`, `toolwire-execute`, `toolwire-invoke`,
//! `toolwire-invoke-unvalidated`, `toolnexus-call`, `toolnexus-execute`, `rig` or `rmcp`;
//! or `sleep-<runtime>`, for that many concurrent calls of the sleeping tool of workload (c),
//! where `<runtime>` is one of `peers::concurrent::RUNTIMES`; or `abort-toolwire` or
//! `abort-rmcp`, for that many aborted calls of workload (d).

// A profiling run that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use peers::block::block_on;
use peers::workload::{self, ADD};
use peers::{rig_side, rmcp_side, toolnexus_side, toolwire_side};
use serde_json::Value;

fn main() {
    let mut argv = std::env::args().skip(1);
    let runtime = argv.next().unwrap_or_else(|| "toolwire-invoke".to_owned());
    let calls: usize = argv.next().and_then(|n| n.parse().ok()).unwrap_or(100_000);
    // `<runtime>+order` calls the 2 KB order tool of workload (b) instead.
    let (runtime, order) = match runtime.strip_suffix("+order") {
        Some(runtime) => (runtime.to_owned(), true),
        None => (runtime, false),
    };
    let args = if order { workload::order_args() } else { workload::add_args() };
    let args = args.as_str();
    let (add, add_unchecked) = if order {
        (workload::ORDER, toolwire_side::ORDER_UNCHECKED)
    } else {
        (ADD, toolwire_side::ADD_UNCHECKED)
    };
    let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let ok = match runtime.as_str() {
        "baseline" => (0..calls)
            .filter(|_| {
                let input: Value = serde_json::from_str(black_box(args)).unwrap_or(Value::Null);
                let out = if order { workload::order_total(&input) } else { workload::add(&input) };
                black_box(out).is_object()
            })
            .count(),
        "toolwire-execute" => {
            let tool = toolwire_side::add();
            (0..calls).filter(|_| block_on(toolwire_side::execute(&tool, args))).count()
        }
        "toolwire-invoke" | "toolwire-invoke-unvalidated" => {
            let registry = toolwire_side::registry(|| ());
            let name = if runtime.ends_with("unvalidated") { add_unchecked } else { add };
            (0..calls).filter(|_| block_on(toolwire_side::invoke(&registry, name, args))).count()
        }
        "toolnexus-call" => {
            let tool = toolnexus_side::add();
            (0..calls).filter(|_| block_on(toolnexus_side::call(&tool, args))).count()
        }
        "toolnexus-execute" => {
            let toolkit = tokio.block_on(toolnexus_side::toolkit(|| ()));
            (0..calls).filter(|_| block_on(toolnexus_side::execute(&toolkit, add, args))).count()
        }
        "rig" => {
            let tools = rig_side::tools(|| ());
            (0..calls).filter(|_| block_on(rig_side::call(&tools, add, args))).count()
        }
        "rmcp" => {
            let router = {
                let _entered = tokio.enter();
                rmcp_side::router(|| ())
            };
            (0..calls).filter(|_| block_on(rmcp_side::call(&router, add, args))).count()
        }
        "abort-toolwire" | "abort-rmcp" => {
            abort_calls(&runtime, calls);
            calls
        }
        spawned if spawned.starts_with("sleep-") => {
            let tokio =
                tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("rt");
            peers::concurrent::run(&tokio, &spawned["sleep-".len()..], calls, || ());
            calls
        }
        other => {
            eprintln!("unknown runtime {other:?}");
            std::process::exit(2);
        }
    };
    assert_eq!(ok, calls);
}

/// Starts and aborts `calls` calls of the hanging tool of workload (d), one at a time.
fn abort_calls(runtime: &str, calls: usize) {
    use peers::workload::HANG;
    use std::sync::Arc;
    let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let started = Arc::new(tokio::sync::Notify::new());
    let notify = started.clone();
    let registry = toolwire_side::registry(move || notify.notify_one());
    let notify = started.clone();
    let router = {
        let _entered = tokio.enter();
        rmcp_side::router(move || notify.notify_one())
    };
    tokio.block_on(async {
        for _ in 0..calls {
            let controller = toolwire::AbortController::new();
            let token = tokio_util::sync::CancellationToken::new();
            let task = if runtime == "abort-toolwire" {
                let (registry, signal) = (registry.clone(), controller.signal());
                tokio::spawn(
                    async move { toolwire_side::invoke_aborted(&registry, HANG, signal).await },
                )
            } else {
                let (router, token) = (router.clone(), token.clone());
                tokio::spawn(async move {
                    rmcp_side::call_cancelled_by_caller(&router, HANG, token).await
                })
            };
            started.notified().await;
            controller.abort();
            token.cancel();
            assert!(task.await.expect("no panic"));
        }
    });
}
