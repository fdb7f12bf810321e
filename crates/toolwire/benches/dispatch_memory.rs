//! Peak memory of a dispatch of 10,000 calls that each sleep 10 ms, with a limit of 10,000.
//!
//! Run with `cargo bench -p toolwire --bench dispatch_memory`. It reads the peak resident set
//! (`VmHWM`) from Linux's `/proc/self/status`, after resetting it, and prints its growth
//! during each dispatch. The first run, in a fresh process, is the one to quote: later runs
//! reuse memory the allocator kept from the first.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::IntoFuture;
use std::time::{Duration, Instant};

use serde_json::json;
use toolwire::{Registry, Tool, ToolCall, ToolResult};

const CALLS: usize = 10_000;
const SLEEP: Duration = Duration::from_millis(10);

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let sleep = Tool::define("sleep")
        .execute(|_, _| async {
            tokio::time::sleep(SLEEP).await;
            ToolResult::ok(json!({}), "slept")
        })
        .build()
        .expect("valid tool");
    let registry = Registry::builder().register(sleep).seal().expect("unique names");
    for run in 1..=3 {
        let calls: Vec<_> =
            (0..CALLS).map(|i| ToolCall::new(format!("call_{i}"), "sleep", json!({}))).collect();
        let dispatch = registry.dispatch(calls).concurrency(CALLS);
        let rss_before = read_kib("VmRSS:");
        let _ = std::fs::write("/proc/self/clear_refs", "5"); // resets VmHWM to VmRSS
        let start = Instant::now();
        let receipts = runtime.block_on(dispatch.into_future());
        let wall = start.elapsed();
        let rss = match (rss_before, read_kib("VmHWM:")) {
            (Some(before), Some(peak)) => {
                format!("{:.1} MiB", peak.saturating_sub(before) as f64 / 1024.0)
            }
            _ => "not measurable here".to_owned(),
        };
        assert!(receipts.iter().all(|r| r.result.is_success()));
        println!(
            "run {run}: {CALLS} calls in {:.1} ms; peak RSS growth {rss}",
            wall.as_secs_f64() * 1000.0
        );
    }
}

fn read_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
