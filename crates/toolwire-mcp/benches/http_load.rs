//! `tools/call` of a trivial tool over streamable HTTP on loopback, at concurrency 1 and 64,
//! on both protocol revisions (a 2025-11-25 session, and 2026-07-28 without one), in one run:
//! toolwire-mcp (validating, with receipts), a bare rmcp `ServerHandler` served with
//! `axum::serve` and TCP_NODELAY, the TypeScript SDK's `McpServer` (`interop/server.mjs`, on
//! 2025-11-25 only), and the limit, a bare axum handler that parses the JSON-RPC body and
//! writes the same result (2026-07-28 requests, which need no session). Also the same call over an in-process pipe with rmcp's
//! client, and the memory of 1,000 idle sessions.
//!
//! Run with `cargo bench -p toolwire-mcp --bench http_load` (needs Node.js; the npm packages
//! of `interop/` are installed if missing). Every server shares the machine's cores with the
//! load generator, as the numbers in BENCHMARKS.md say. To profile one server alone, set
//! `HTTP_LOAD_ONLY=<toolwire|rmcp>,<2025-11-25|2026-07-28>[,calls]`.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "load/client.rs"]
mod client;
#[path = "load/servers.rs"]
mod servers;

use std::time::Duration;

use client::{Protocol, Stats, measure};

/// One line of the table.
fn row(server: &str, protocol: &str, concurrency: usize, stats: &Stats) {
    println!(
        "| {server} | {protocol} | {concurrency} | {:.0} | {:.3} | {:.3} | {:.2} |",
        stats.per_second,
        stats.p50.as_secs_f64() * 1e3,
        stats.p99.as_secs_f64() * 1e3,
        stats.p99.as_secs_f64() / stats.p50.as_secs_f64().max(1e-9),
    );
}

fn main() {
    let runtime = servers::runtime();
    if let Ok(only) = std::env::var("HTTP_LOAD_ONLY") {
        runtime.block_on(one(&only));
        return;
    }
    runtime.block_on(async {
        let targets =
            [servers::toolwire().await, servers::rmcp_bare().await, servers::typescript().await];
        let limit = servers::axum_limit().await;
        println!("| server | protocol | concurrency | req/s | p50 ms | p99 ms | p99/p50 |");
        println!("|---|---|---|---|---|---|---|");
        for (concurrency, calls) in [(1, 3_000), (64, 30_000)] {
            for target in &targets {
                let stats = measure(&target.url, Protocol::Session, concurrency, calls).await;
                row(&target.name, "2025-11-25", concurrency, &stats);
            }
            // The TypeScript SDK 1.32 does not speak 2026-07-28; the limit speaks neither.
            for target in [&targets[0], &targets[1], &limit] {
                let stats = measure(&target.url, Protocol::Stateless, concurrency, calls).await;
                row(&target.name, "2026-07-28", concurrency, &stats);
            }
        }
        let stdio = client::pipe_latency(3_000).await;
        row("toolwire-mcp, in-process pipe (rmcp client)", "2025-11-25", 1, &stdio);
        let per_session = client::idle_session_bytes(&targets[0].url, 1_000).await;
        println!(
            "\nmemory of 1,000 idle sessions on toolwire-mcp: {:.1} KiB each",
            per_session / 1024.0
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    });
}

/// One server on one protocol at concurrency 64, for a long time, to profile it alone:
/// `HTTP_LOAD_ONLY=<toolwire|rmcp>,<2025-11-25|2026-07-28>[,calls]`.
async fn one(only: &str) {
    const USAGE: &str = "HTTP_LOAD_ONLY=<toolwire|rmcp>,<2025-11-25|2026-07-28>[,calls]";
    let mut parts = only.split(',');
    let target = match parts.next() {
        Some("toolwire") => servers::toolwire().await,
        Some("rmcp") => servers::rmcp_bare().await,
        other => panic!("unknown server {other:?}; {USAGE}"),
    };
    let protocol = match parts.next() {
        Some("2025-11-25") => Protocol::Session,
        Some("2026-07-28") => Protocol::Stateless,
        other => panic!("unknown protocol {other:?}; {USAGE}"),
    };
    let calls = match parts.next() {
        None => 200_000,
        Some(n) => n.parse().unwrap_or_else(|_| panic!("{n:?} is not a number of calls; {USAGE}")),
    };
    let stats = measure(&target.url, protocol, 64, calls).await;
    row(&target.name, protocol.version(), 64, &stats);
}
