//! Reading a streamed turn of 10 calls with each provider's `TurnDecoder`, event by event,
//! handing out each call the moment it is complete.
//!
//! Run with `cargo bench -p toolwire --bench streams`. The baseline parses every event's data
//! as JSON and does nothing else: the least any reader of the stream must do.

// A benchmark that cannot set up stops: it may unwrap, expect and panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolwire::Provider;

const CALLS: usize = 10;

/// The arguments of call `i`, as JSON text, cut in three pieces.
fn pieces(i: usize) -> [String; 3] {
    let text = json!({"city": format!("City {i}"), "unit": "celsius", "days": i}).to_string();
    let (a, rest) = text.split_at(text.len() / 3);
    let (b, c) = rest.split_at(rest.len() / 2);
    [a.to_owned(), b.to_owned(), c.to_owned()]
}

/// The events of a turn that writes a sentence and makes 10 calls, as `provider` streams it.
fn events(provider: Provider) -> Vec<String> {
    let mut events = Vec::new();
    match provider {
        Provider::OpenAi => {
            events.push(
                json!({"choices": [{"index": 0, "delta": {"content": "Checking the cities."}}]}),
            );
            for i in 0..CALLS {
                let [a, b, c] = pieces(i);
                let head = json!({"index": i, "id": format!("call_{i}"), "type": "function", "function": {"name": "get_weather", "arguments": a}});
                events.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}));
                for piece in [b, c] {
                    let more = json!({"index": i, "function": {"arguments": piece}});
                    events
                        .push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [more]}}]}));
                }
            }
            events.push(
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            );
            events.push(
                json!({"choices": [], "usage": {"prompt_tokens": 400, "completion_tokens": 120}}),
            );
        }
        Provider::Responses => {
            events.push(json!({"type": "response.output_text.delta", "output_index": 0, "delta": "Checking the cities."}));
            let mut output = vec![
                json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking the cities."}]}),
            ];
            for i in 0..CALLS {
                let at = i + 1;
                let item = |arguments: &str| json!({"type": "function_call", "call_id": format!("call_{i}"), "name": "get_weather", "arguments": arguments});
                events.push(json!({"type": "response.output_item.added", "output_index": at, "item": item("")}));
                for piece in pieces(i) {
                    events.push(json!({"type": "response.function_call_arguments.delta", "output_index": at, "delta": piece}));
                }
                let whole = pieces(i).concat();
                events.push(json!({"type": "response.output_item.done", "output_index": at, "item": item(&whole)}));
                output.push(item(&whole));
            }
            events.push(json!({"type": "response.completed", "response": {"status": "completed", "output": output,
                "usage": {"input_tokens": 400, "output_tokens": 120}}}));
        }
        Provider::Anthropic => {
            events.push(json!({"type": "message_start", "message": {"content": [], "usage": {"input_tokens": 400, "output_tokens": 1}}}));
            events.push(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}));
            events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking the cities."}}));
            events.push(json!({"type": "content_block_stop", "index": 0}));
            for i in 0..CALLS {
                let at = i + 1;
                events.push(json!({"type": "content_block_start", "index": at, "content_block": {"type": "tool_use", "id": format!("toolu_{i}"), "name": "get_weather", "input": {}}}));
                for piece in pieces(i) {
                    events.push(json!({"type": "content_block_delta", "index": at, "delta": {"type": "input_json_delta", "partial_json": piece}}));
                }
                events.push(json!({"type": "content_block_stop", "index": at}));
            }
            events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 120}}));
            events.push(json!({"type": "message_stop"}));
        }
        Provider::Gemini => {
            let chunk = |parts: Value| json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]});
            events.push(chunk(json!([{"text": "Checking the cities."}])));
            for i in 0..CALLS {
                let args: Value = serde_json::from_str(&pieces(i).concat()).unwrap_or_default();
                events
                    .push(chunk(json!([{"functionCall": {"name": "get_weather", "args": args}}])));
            }
            let mut last = chunk(json!([]));
            last["candidates"][0]["finishReason"] = json!("STOP");
            last["usageMetadata"] = json!({"promptTokenCount": 400, "candidatesTokenCount": 120});
            events.push(last);
        }
        _ => {}
    }
    events.into_iter().map(|event| event.to_string()).collect()
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream_10_calls");
    for api in Provider::ALL.into_iter().filter_map(Provider::model_api) {
        let provider = api.provider();
        let events = events(provider);
        group.bench_function(format!("{provider}/json_only_baseline"), |b| {
            b.iter(|| {
                for data in &events {
                    black_box(serde_json::from_str::<Value>(black_box(data)).ok());
                }
            })
        });
        group.bench_function(format!("{provider}/decode"), |b| {
            b.iter(|| {
                let mut decoder = api.decoder();
                let mut ready = 0;
                for data in &events {
                    decoder.push(black_box(data)).expect("a valid event");
                    black_box(decoder.take_text());
                    ready += decoder.take_ready().len();
                }
                decoder.end().expect("a whole stream");
                ready += decoder.take_ready().len();
                let turn = decoder.finish();
                assert_eq!((ready, turn.calls.len()), (CALLS, CALLS));
                black_box(turn)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
