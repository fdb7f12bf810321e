//! Regressions of the OpenAI Chat Completions stream accumulator, on chunk shapes that
//! OpenAI-compatible servers send. The chunk shape (`choices[].delta.tool_calls[]` with
//! `index`, `id`, `function.name`, `function.arguments`) is documented in OpenAI's API
//! reference for `chat.completion.chunk`.

use serde_json::{Value, json};
use toolwire::provider::openai::CallAccumulator;

fn chunk(choice: u64, tool_calls: Value) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [{"index": choice, "delta": {"tool_calls": tool_calls}}]})
}

fn assemble(chunks: &[Value]) -> CallAccumulator {
    let mut stream = CallAccumulator::default();
    chunks.iter().for_each(|chunk| stream.push(chunk));
    stream
}

#[test]
fn regression_openai_stream_name_split_over_chunks_is_joined() {
    let calls = assemble(&[
        chunk(
            0,
            json!([{"index": 0, "id": "call_1", "function": {"name": "get_", "arguments": ""}}]),
        ),
        chunk(0, json!([{"index": 0, "function": {"name": "weather", "arguments": "{\"city\":"}}])),
        chunk(0, json!([{"index": 0, "function": {"arguments": "\"Oslo\"}"}}])),
    ])
    .finish();
    assert_eq!(&*calls[0].tool, "get_weather");
    assert_eq!(calls[0].arguments, json!({"city": "Oslo"}));
}

#[test]
fn regression_openai_stream_repeated_header_does_not_double_the_name() {
    let calls = assemble(&[
        chunk(0, json!([{"index": 0, "id": "call_1", "function": {"name": "get_weather"}}])),
        chunk(0, json!([{"index": 0, "id": "call_1", "function": {"name": "get_weather", "arguments": "{}"}}])),
    ])
    .finish()
    ;
    assert_eq!(&*calls[0].tool, "get_weather");
}

#[test]
fn regression_openai_stream_empty_id_or_name_does_not_overwrite() {
    // DashScope (Qwen) repeats `"id": ""` and `"name": ""` in every delta after the first.
    let calls = assemble(&[
        chunk(0, json!([{"index": 0, "id": "call_q", "type": "function", "function": {"name": "get_weather", "arguments": ""}}])),
        chunk(0, json!([{"index": 0, "id": "", "type": "function", "function": {"name": "", "arguments": "{\"city\": \"Rome\"}"}}])),
    ])
    .finish()
    ;
    assert_eq!((calls[0].call_id.as_str(), calls[0].tool.as_ref()), ("call_q", "get_weather"));
    assert_eq!(calls[0].arguments, json!({"city": "Rome"}));
}

#[test]
fn regression_openai_stream_deltas_without_index_are_taken() {
    // Gemini's OpenAI-compatible endpoint sends whole calls, each with its own id, and no index.
    let calls = assemble(&[
        chunk(0, json!([{"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}])),
        chunk(0, json!([{"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\":"}}])),
        chunk(0, json!([{"id": "call_b", "function": {"arguments": "\"UTC\"}"}}])),
        chunk(0, json!([{"function": {"arguments": ""}}])),
    ])
    .finish()
    ;
    let ids: Vec<_> = calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids, ["call_a", "call_b"]);
    assert_eq!(calls[1].arguments, json!({"tz": "UTC"}));
    assert!(calls.iter().all(|c| c.malformed.is_none()));
}

#[test]
fn regression_openai_stream_call_that_never_started_fails_alone() {
    let calls = assemble(&[
        chunk(0, json!([{"index": 0, "id": "call_a", "function": {"name": "get_weather", "arguments": "{}"}}])),
        chunk(0, json!([{"index": 1, "function": {"arguments": "{\"x\": 1}"}}])),
        chunk(0, json!([{"index": 2, "id": "call_c", "function": {"name": "get_time", "arguments": "{}"}}])),
    ])
    .finish()
    ;
    assert_eq!(calls.len(), 3);
    assert!(calls[0].malformed.is_none() && calls[2].malformed.is_none());
    let broken = &calls[1];
    assert_eq!(
        broken.malformed.as_deref(),
        Some("the call was cut off: no tool name was streamed for it")
    );
    assert_eq!(broken.arguments, Value::Null);
}

#[test]
fn regression_openai_stream_choices_do_not_merge() {
    let stream = assemble(&[
        chunk(
            0,
            json!([{"index": 0, "id": "call_a", "function": {"name": "get_weather", "arguments": "{\"city\":"}}]),
        ),
        chunk(
            1,
            json!([{"index": 0, "id": "call_b", "function": {"name": "get_time", "arguments": "{\"tz\":"}}]),
        ),
        chunk(1, json!([{"index": 0, "function": {"arguments": "\"UTC\"}"}}])),
        chunk(0, json!([{"index": 0, "function": {"arguments": "\"Oslo\"}"}}])),
    ]);
    let first = stream.clone().finish();
    assert_eq!(first.len(), 1);
    assert_eq!(
        (first[0].call_id.as_str(), &first[0].arguments),
        ("call_a", &json!({"city": "Oslo"}))
    );
    let all = stream.finish_all();
    assert_eq!(all.len(), 2);
    assert_eq!(all[&1][0].call_id, "call_b");
    assert_eq!(all[&1][0].arguments, json!({"tz": "UTC"}));
}
