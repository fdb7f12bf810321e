//! The Gemini stream accumulator. Chunks are `GenerateContentResponse`s; `FunctionCall`
//! (`id`, `name`, `args`, `partialArgs`, `willContinue`) and `PartialArg` (`jsonPath`,
//! `stringValue`, `numberValue`, `boolValue`, `nullValue`, `willContinue`) are documented in
//! the Gen AI SDKs' type references (for example google-genai's `types.FunctionCall`).

use serde_json::{Value, json};
use toolwire::provider::gemini::{self, CallAccumulator};

fn chunk(parts: Value) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]})
}

fn call(function_call: Value) -> Value {
    chunk(json!([{"functionCall": function_call}]))
}

fn assemble(chunks: &[Value]) -> Vec<toolwire::ToolCall> {
    let mut stream = CallAccumulator::default();
    chunks.iter().for_each(|chunk| stream.push(chunk));
    stream.finish().unwrap()
}

#[test]
fn regression_gemini_stream_partial_args_are_assembled_not_taken_as_empty_call() {
    let calls = assemble(&[
        call(json!({"name": "plan_trip", "willContinue": true})),
        call(
            json!({"partialArgs": [{"jsonPath": "$.city", "stringValue": "Os", "willContinue": true}], "willContinue": true}),
        ),
        call(json!({"partialArgs": [
            {"jsonPath": "$.city", "stringValue": "lo"},
            {"jsonPath": "$.days", "numberValue": 3},
            {"jsonPath": "$.stops[0].name", "stringValue": "Bergen"},
            {"jsonPath": "$.pets", "boolValue": false},
            {"jsonPath": "$.note", "nullValue": "NULL_VALUE"}
        ], "willContinue": true})),
        call(json!({})),
    ]);
    assert_eq!(calls.len(), 1);
    assert_eq!((calls[0].call_id.as_str(), calls[0].tool.as_ref()), ("", "plan_trip"));
    assert_eq!(
        calls[0].arguments,
        json!({"city": "Oslo", "days": 3, "stops": [{"name": "Bergen"}], "pets": false, "note": null})
    );
    assert!(calls[0].malformed.is_none());
}

#[test]
fn gemini_stream_whole_calls_match_the_finished_reply() {
    let parts = [
        json!({"text": "Checking both."}),
        json!({"functionCall": {"id": "fc-1", "name": "get_weather", "args": {"city": "Oslo"}}}),
        json!({"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}),
    ];
    let streamed = assemble(&[
        chunk(json!([parts[0]])),
        chunk(json!([parts[1]])),
        chunk(json!([parts[2]])),
        json!({"candidates": [{"finishReason": "STOP"}]}),
    ]);
    assert_eq!(streamed, gemini::parse_calls(&json!(parts)).unwrap());
}

#[test]
fn gemini_stream_cut_off_or_unplaceable_calls_fail_alone() {
    let calls = assemble(&[
        call(json!({"name": "get_weather", "args": {"city": "Oslo"}})),
        call(json!({"name": "bad_path", "willContinue": true})),
        call(json!({"partialArgs": [{"jsonPath": "city", "stringValue": "x"}]})),
        call(json!({"name": "cut_off", "willContinue": true})),
    ]);
    assert_eq!(calls.len(), 3);
    assert!(calls[0].malformed.is_none());
    assert_eq!(calls[1].malformed.as_deref(), Some("unreadable jsonPath \"city\""));
    assert_eq!(
        calls[2].malformed.as_deref(),
        Some("the call was cut off: its last part never came")
    );
    assert!(calls[1..].iter().all(|c| c.arguments == Value::Null));
}

#[test]
fn gemini_stream_ignores_what_is_not_a_chunk() {
    let calls = assemble(&[json!("garbage"), json!(null), json!({"candidates": []})]);
    assert!(calls.is_empty());
}
