//! Parsing a model reply with 10 tool calls and rendering their results.
//!
//! Run with `cargo bench -p toolwire --bench providers`. The baseline deep-copies the same
//! reply, to show the cost relative to merely touching that much JSON.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwire::provider::{anthropic, openai};
use toolwire::{Receipt, ToolResult};

const CALLS: usize = 10;

/// An OpenAI chat completion whose message makes 10 calls.
fn openai_reply() -> Value {
    let calls: Vec<Value> = (0..CALLS)
        .map(|i| {
            let arguments = json!({"city": format!("City {i}"), "unit": "celsius", "days": i}).to_string();
            json!({"id": format!("call_{i}"), "type": "function", "function": {"name": "get_weather", "arguments": arguments}})
        })
        .collect();
    json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
}

fn receipts() -> Vec<Receipt> {
    (0..CALLS)
        .map(|i| {
            let result =
                ToolResult::ok(json!({"city": format!("City {i}"), "temp": 21}), "21 degrees");
            let call_id = toolwire::CallId::from(format!("call_{i}"));
            Receipt::new("get_weather", Some(call_id), result)
                .with_duration(Duration::from_micros(40))
        })
        .collect()
}

fn parse_and_render(c: &mut Criterion) {
    let reply = openai_reply();
    let done = receipts();
    let mut group = c.benchmark_group("openai_10_calls");
    group.bench_function("clone_reply_baseline", |b| b.iter(|| black_box(reply.clone())));
    group.bench_function("parse_and_render", |b| {
        b.iter(|| {
            let calls = openai::parse_calls(black_box(&reply)).expect("a valid reply");
            black_box(calls);
            black_box(openai::render_results(black_box(&done)))
        })
    });
    group.bench_function("parse", |b| b.iter(|| black_box(openai::parse_calls(black_box(&reply)))));
    group.bench_function("render", |b| {
        b.iter(|| black_box(openai::render_results(black_box(&done))))
    });
    group.bench_function("render_anthropic", |b| {
        b.iter(|| black_box(anthropic::render_results(black_box(&done))))
    });
    group.finish();
}

criterion_group!(benches, parse_and_render);
criterion_main!(benches);
