//! One `tools/call` through each server's HTTP router, in process, on both revisions (2026-07-28
//! without a session, 2025-11-25 on a session opened beforehand): no socket and no load
//! generator, so the figure is the server's own work per request, and steady enough
//! to compare toolwire-mcp with bare rmcp on a shared machine. The request is what the load
//! benchmark sends; the response body is read whole.
//!
//! Run with `cargo bench -p toolwire-mcp --bench http_inprocess`.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "load/inprocess.rs"]
mod inprocess;
#[path = "load/servers.rs"]
#[allow(dead_code, reason = "the load benchmark's servers; this one uses their routers only")]
mod servers;

use criterion::{Criterion, criterion_group, criterion_main};
use inprocess::{once, once_in_session, open_session};

fn routers(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let toolwire = toolwire_mcp::server::router(
        servers::toolwire_server(),
        toolwire_mcp::server::HttpOptions::default(),
    );
    let rmcp = servers::rmcp_router();
    let mut group = c.benchmark_group("http_inprocess_2026_07_28");
    group.bench_function("rmcp_bare", |b| b.to_async(&runtime).iter(|| once(&rmcp)));
    group.bench_function("toolwire_mcp", |b| b.to_async(&runtime).iter(|| once(&toolwire)));
    group.finish();

    let mut group = c.benchmark_group("http_inprocess_2025_11_25");
    let rmcp_session = runtime.block_on(open_session(&rmcp));
    let toolwire_session = runtime.block_on(open_session(&toolwire));
    group.bench_function("rmcp_bare", |b| {
        b.to_async(&runtime).iter(|| once_in_session(&rmcp, &rmcp_session));
    });
    group.bench_function("toolwire_mcp", |b| {
        b.to_async(&runtime).iter(|| once_in_session(&toolwire, &toolwire_session));
    });
    group.finish();
}

criterion_group!(benches, routers);
criterion_main!(benches);
