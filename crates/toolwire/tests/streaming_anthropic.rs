//! Regressions of the Anthropic Messages stream accumulator. The event shapes
//! (`message_start`, `content_block_start`, `content_block_delta` with `input_json_delta`) are
//! documented in Anthropic's "Streaming Messages" page; `server_tool_use` and
//! `web_search_tool_result` blocks in its web search tool page.

use serde_json::{Value, json};
use toolwire::Provider;
use toolwire::provider::ParseErrorKind;
use toolwire::provider::anthropic::CallAccumulator;

fn start(index: u64, block: Value) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": block})
}

fn input(index: u64, partial_json: &str) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": partial_json}})
}

fn assemble(events: &[Value]) -> CallAccumulator {
    let mut stream = CallAccumulator::default();
    events.iter().for_each(|event| stream.push(event));
    stream
}

#[test]
fn regression_anthropic_stream_server_tool_use_is_skipped_and_client_calls_kept() {
    let calls = assemble(&[
        json!({"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}}),
        start(0, json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}})),
        input(0, "{\"query\": \"weather in"),
        input(0, " Oslo\"}"),
        json!({"type": "content_block_stop", "index": 0}),
        start(1, json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []})),
        json!({"type": "content_block_stop", "index": 1}),
        start(2, json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}})),
        input(2, "{\"city\": \"Oslo\"}"),
        json!({"type": "content_block_stop", "index": 2}),
        start(3, json!({"type": "server_tool_use", "id": "srvtoolu_2", "name": "code_execution", "input": {}})),
        input(3, "{\"code\": \"print(1)\"}"),
        json!({"type": "message_stop"}),
    ])
    .finish()
    .unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].call_id.as_str(), calls[0].tool.as_ref()), ("toolu_1", "get_weather"));
    assert_eq!(calls[0].arguments, json!({"city": "Oslo"}));
}

#[test]
fn regression_anthropic_stream_calls_in_message_start_are_taken() {
    let calls = assemble(&[
        json!({"type": "message_start", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_0", "name": "get_weather", "input": {"city": "Rome"}}
        ]}}),
        start(2, json!({"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {}})),
        input(2, "{\"tz\": \"UTC\"}"),
    ])
    .finish()
    .unwrap();
    let ids: Vec<_> = calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids, ["toolu_0", "toolu_1"]);
    assert_eq!(calls[0].arguments, json!({"city": "Rome"}));
}

#[test]
fn regression_anthropic_stream_tool_use_started_twice_is_an_error() {
    let error = assemble(&[
        start(1, json!({"type": "tool_use", "id": "toolu_1", "name": "delete_file", "input": {}})),
        input(1, "{\"path\": \"/tmp/a\"}"),
        start(1, json!({"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}})),
        input(1, "{\"city\": \"Oslo\"}"),
    ])
    .finish()
    .unwrap_err();
    assert_eq!(error.kind(), ParseErrorKind::DuplicateBlock);
    assert_eq!(error.provider(), Provider::Anthropic);
    assert_eq!(error.path(), "/content_block");
    assert_eq!(
        error.to_string(),
        "invalid Anthropic response: /content_block: content block 1 was started twice"
    );
}

#[test]
fn regression_anthropic_stream_whole_input_in_block_start_is_kept() {
    let calls = assemble(&[
        start(0, json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Lima"}})),
        json!({"type": "content_block_stop", "index": 0}),
    ])
    .finish()
    .unwrap();
    assert_eq!(calls[0].arguments, json!({"city": "Lima"}));
}

#[test]
fn anthropic_stream_tool_use_without_id_is_an_error_naming_the_event_field() {
    let error = assemble(&[start(0, json!({"type": "tool_use", "name": "get_weather"}))])
        .finish()
        .unwrap_err();
    assert_eq!(error.kind(), ParseErrorKind::MissingField);
    assert_eq!(error.path(), "/content_block/id");
}

#[test]
fn regression_anthropic_stream_tool_use_over_another_block_is_an_error() {
    let over_server_tool = assemble(&[
        start(
            0,
            json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
        ),
        start(0, json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}})),
    ]);
    assert_eq!(over_server_tool.finish().unwrap_err().kind(), ParseErrorKind::DuplicateBlock);
    let repeated_text = assemble(&[
        json!({"type": "message_start", "message": {"content": [{"type": "text", "text": "Hi"}]}}),
        start(0, json!({"type": "text", "text": ""})),
        start(1, json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}})),
    ]);
    assert_eq!(repeated_text.finish().unwrap().len(), 1, "a repeated text block is harmless");
}
