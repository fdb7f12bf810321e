//! What toolwire's pipeline adds to one call of a remote MCP tool, over calling the same
//! server directly, in one run: a `tools/call` of a trivial tool on an rmcp server over
//! streamable HTTP on loopback (2025-11-25 sessions), made
//!
//! - directly, with rmcp's client (`Peer::call_tool`), the baseline;
//! - through toolwire: the tool imported with `RemoteServer` into a `Registry` and invoked
//!   there (the pinned schema's validation, the policy step, the drift check, the receipt).
//!
//! at concurrency 1 and 64. The two alternate in rounds, so both see the same machine.
//!
//! Run with `cargo bench -p toolwire-mcp --bench remote_call`.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "load/servers.rs"]
#[allow(dead_code, reason = "the load benchmark's servers; this one uses rmcp's")]
mod servers;

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use toolwire::Registry;
use toolwire_mcp::client::{ClientOptions, HttpConfig, RemoteServer, ServerSpec};

/// The calls of one round, per concurrency.
const ROUND: [(usize, usize); 2] = [(1, 500), (64, 6_400)];
const ROUNDS: usize = 6;

/// The latencies of `calls` calls of `call`, `concurrency` at a time.
async fn latencies<F, Fut>(call: Arc<F>, concurrency: usize, calls: usize) -> Vec<Duration>
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let call = Arc::clone(&call);
        workers.spawn(async move {
            let mut mine = Vec::with_capacity(calls / concurrency);
            for _ in 0..calls / concurrency {
                let at = Instant::now();
                call().await;
                mine.push(at.elapsed());
            }
            mine
        });
    }
    let mut all = Vec::with_capacity(calls);
    while let Some(done) = workers.join_next().await {
        all.extend(done.expect("a worker"));
    }
    all
}

fn median(mut latencies: Vec<Duration>) -> Duration {
    latencies.sort_unstable();
    latencies[latencies.len() / 2]
}

fn main() {
    let runtime = servers::runtime();
    runtime.block_on(async {
        toolwire_mcp::install_tls_provider();
        let server = servers::rmcp_bare().await;
        let direct = ().serve(StreamableHttpClientTransport::from_uri(server.url.as_str()));
        let direct = Arc::new(direct.await.expect("rmcp's client connects"));
        let options = ClientOptions::new().protocol_version("2025-11-25");
        let spec = ServerSpec::Http(HttpConfig::new(server.url.as_str()));
        let remote = RemoteServer::connect("srv", &spec, options).await.expect("connects");
        let registry = Registry::builder().register_all(remote.import().tools).seal();
        let registry = Arc::new(registry.expect("unique"));

        let raw = {
            let direct = Arc::clone(&direct);
            Arc::new(move || {
                let direct = Arc::clone(&direct);
                async move {
                    let params = CallToolRequestParams::new("test_simple_text");
                    let result = direct.call_tool(params).await.expect("a result");
                    assert_ne!(result.is_error, Some(true));
                }
            })
        };
        let piped = {
            let registry = Arc::clone(&registry);
            Arc::new(move || {
                let registry = Arc::clone(&registry);
                async move {
                    let receipt = registry.invoke("srv__test_simple_text", json!({})).await;
                    assert!(receipt.result.is_success(), "{:?}", receipt.result);
                }
            })
        };
        // Warm both up.
        latencies(Arc::clone(&raw), 1, 200).await;
        latencies(Arc::clone(&piped), 1, 200).await;
        println!(
            "| concurrency | direct (rmcp client) p50 | through toolwire p50 | added | ratio |"
        );
        println!("|---|---|---|---|---|");
        for (concurrency, calls) in ROUND {
            let (mut baseline, mut through) = (Vec::new(), Vec::new());
            for _ in 0..ROUNDS {
                baseline.extend(latencies(Arc::clone(&raw), concurrency, calls).await);
                through.extend(latencies(Arc::clone(&piped), concurrency, calls).await);
            }
            let (baseline, through) = (median(baseline), median(through));
            let added = through.as_secs_f64() - baseline.as_secs_f64();
            println!(
                "| {concurrency} | {:.3} ms | {:.3} ms | {:+.3} ms | {:.2}x |",
                baseline.as_secs_f64() * 1e3,
                through.as_secs_f64() * 1e3,
                added * 1e3,
                through.as_secs_f64() / baseline.as_secs_f64(),
            );
        }
        remote.close().await;
    });
}
