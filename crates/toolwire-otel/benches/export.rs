//! What the OTLP export adds to one invocation: `Registry::invoke` of a trivial tool with no
//! subscriber (the baseline), then, in the same run, with `toolwire_otel::install` exporting
//! to a local receiver that answers every batch with 200.
//!
//! Run with `cargo bench -p toolwire-otel --bench export`. The export is installed once, as
//! the process's global subscriber, so the baseline must run first: run both benchmarks
//! together, not one by filter. The export sends traces and metrics; with
//! `OTEL_METRICS_EXPORTER=none` it sends traces only (the standard variable, read here
//! through `OtelConfig::from_env_at`).

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::IntoFuture;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwire::{Registry, Tool, ToolResult};

fn registry() -> Registry {
    let add = Tool::define("add")
        .description("Add two numbers")
        .execute_sync(|args, _| ToolResult::ok(args, "added"))
        .build()
        .unwrap();
    Registry::builder().register(add).seal().unwrap()
}

/// A receiver that reads each request and answers 200; its URL.
fn receiver() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && !line.trim().is_empty() {
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let mut stream = stream;
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        }
    });
    url
}

fn export(c: &mut Criterion) {
    let registry = registry();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let args = json!({"a": 2, "b": 40});
    let mut group = c.benchmark_group("otel");
    group.bench_function("baseline_no_subscriber", |b| {
        b.to_async(&runtime).iter(|| registry.invoke("add", args.clone()).into_future())
    });
    let config = toolwire_otel::OtelConfig::from_env_at(receiver()).unwrap();
    let guard = toolwire_otel::install(config).unwrap();
    group.bench_function("exporting", |b| {
        b.to_async(&runtime).iter(|| registry.invoke("add", args.clone()).into_future())
    });
    group.finish();
    drop(guard);
}

criterion_group!(benches, export);
criterion_main!(benches);
