//! A 1 MiB image from a handler to the bytes of the next request, against a 1 MiB text result
//! on the same path and against `memcpy` of 1 MiB.
//!
//! Run with `cargo bench -p toolwire --bench media`. Each path: the registry runs the tool (the
//! handler hands back bytes it holds, as `Bytes`), Anthropic's `render_results` renders the
//! receipt, and `serde_json::to_vec` writes the request's bytes, as the agent's HTTP client
//! does. The image's bytes are copied twice on the way, both in base64 (4/3 of their size):
//! encoded once into the rendered message, and written once into the request; the handler's
//! `Bytes` and every clone of the result share one buffer.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwire::media::{Bytes, Part};
use toolwire::provider::anthropic;
use toolwire::{Registry, Tool, ToolResult};

const MIB: usize = 1 << 20;

/// A PNG header of a 1024x1024 picture followed by noise, 1 MiB in all.
fn image_bytes() -> Bytes {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bytes.extend_from_slice(&1024u32.to_be_bytes());
    bytes.extend_from_slice(&1024u32.to_be_bytes());
    let mut state = 0x2545_F491_u32;
    while bytes.len() < MIB {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        bytes.push(state.to_le_bytes()[0]);
    }
    Bytes::from(bytes)
}

fn registry(image: Bytes, text: String) -> Registry {
    let picture = Tool::define("picture")
        .execute_sync(move |_, _| {
            ToolResult::from_parts(vec![Part::image("image/png", image.clone())])
        })
        .build()
        .unwrap();
    let words = Tool::define("words")
        .execute_sync(move |_, _| ToolResult::ok(serde_json::Value::Null, text.clone()))
        .build()
        .unwrap();
    Registry::builder().register(picture).register(words).seal().unwrap()
}

/// One pass: the call, the rendering, the request's bytes.
async fn request_bytes(registry: &Registry, tool: &str) -> Vec<u8> {
    let receipt = registry.invoke(tool, json!({})).call_id("call_1").await;
    let message = anthropic::render_results(std::slice::from_ref(&receipt));
    serde_json::to_vec(&json!({"model": "m", "messages": [message]})).unwrap()
}

fn media(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let registry = registry(image_bytes(), "a".repeat(MIB));
    for tool in ["picture", "words"] {
        let bytes = runtime.block_on(request_bytes(&registry, tool));
        eprintln!("{tool}: a request of {} bytes", bytes.len());
        assert!(bytes.len() > MIB, "{tool} reached the request whole");
    }
    let source = vec![7u8; MIB];
    let mut group = c.benchmark_group("result_1mib_to_request");
    group.bench_function("memcpy_baseline", |b| {
        b.iter(|| {
            let mut copy = Vec::with_capacity(MIB);
            copy.extend_from_slice(black_box(&source));
            black_box(copy)
        })
    });
    group.bench_function("image", |b| {
        b.iter(|| black_box(runtime.block_on(request_bytes(&registry, "picture"))))
    });
    group.bench_function("text", |b| {
        b.iter(|| black_box(runtime.block_on(request_bytes(&registry, "words"))))
    });
    group.finish();
}

criterion_group!(benches, media);
criterion_main!(benches);
