//! Streamed replies: tool calls assembled from OpenAI, Responses and Anthropic events give
//! the same calls as the finished reply would.

use serde_json::{Value, json};
use toolwire::provider::{anthropic, openai, responses};

fn openai_chunk(tool_calls: Value) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": tool_calls}}]})
}

#[test]
fn openai_deltas_are_joined_per_index_even_when_interleaved() {
    let chunks = [
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Checking"}}]}),
        openai_chunk(
            json!([{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]),
        ),
        openai_chunk(
            json!([{"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\""}}]),
        ),
        openai_chunk(json!([{"index": 0, "function": {"arguments": "{\"city\": \"Pa"}}])),
        openai_chunk(json!([{"index": 1, "function": {"arguments": ": \"UTC\"}"}}])),
        openai_chunk(json!([{"index": 0, "function": {"arguments": "ris\"}"}}])),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ];
    let mut stream = openai::CallAccumulator::default();
    for chunk in &chunks {
        stream.push(chunk);
    }
    let calls = stream.finish();
    let finished = openai::parse_calls(&json!({"tool_calls": [
        {"id": "call_a", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
        {"id": "call_b", "function": {"name": "get_time", "arguments": "{\"tz\": \"UTC\"}"}}
    ]}))
    .unwrap();
    assert_eq!(calls, finished);
}

#[test]
fn openai_streams_with_broken_arguments_or_no_id_are_reported() {
    let mut stream = openai::CallAccumulator::default();
    stream.push(&openai_chunk(
        json!([{"index": 0, "id": "c", "function": {"name": "t", "arguments": "{\"a\": "}}]),
    ));
    let calls = stream.finish();
    assert!(calls[0].malformed.as_deref().unwrap().starts_with("the arguments are not valid JSON"));

    let mut stream = openai::CallAccumulator::default();
    stream.push(&openai_chunk(json!([{"index": 0, "function": {"name": "t", "arguments": "{}"}}])));
    let calls = stream.finish();
    assert_eq!(
        calls[0].malformed.as_deref(),
        Some("the call was cut off: no call id was streamed for it")
    );

    let mut nothing = openai::CallAccumulator::default();
    nothing.push(&json!("garbage"));
    nothing.push(&json!({"choices": [{"delta": {"tool_calls": [{"no_index": true}]}}]}));
    assert!(nothing.finish().is_empty());
}

#[test]
fn anthropic_input_json_deltas_are_joined_per_block() {
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me check."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Os"}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "lo\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "list_cities", "input": {}}}),
        json!({"type": "content_block_stop", "index": 2}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        json!({"type": "message_stop"}),
    ];
    let mut stream = anthropic::CallAccumulator::default();
    for event in &events {
        stream.push(event);
    }
    let calls = stream.finish().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].call_id.as_str(), &calls[0].arguments),
        ("toolu_1", &json!({"city": "Oslo"}))
    );
    assert_eq!(calls[1].arguments, Value::Null, "a tool_use with no input deltas has no arguments");
    assert!(calls.iter().all(|c| c.malformed.is_none()));
}

#[test]
fn responses_argument_deltas_are_joined_per_output_item() {
    let events = [
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1"}}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "{\"city\":"}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "\"Lima\"}"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 1, "item_id": "fc_1", "arguments": "{\"city\":\"Lima\"}"}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Lima\"}"}}),
    ];
    let mut stream = responses::CallAccumulator::default();
    for event in &events {
        stream.push(event);
    }
    let calls = stream.finish();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "call_1");
    assert_eq!(calls[0].arguments, json!({"city": "Lima"}));
}
