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
    stream.finish()
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
    assert_eq!(calls[0].tool.as_ref(), "plan_trip");
    assert!(calls[0].call_id.starts_with("gemini-call-"), "{:?}", calls[0].call_id);
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
    let parsed = gemini::parse_calls(&json!(parts)).unwrap();
    // Gemini's id is kept; a call without one gets an id of its own each time it is read.
    let ids = |calls: &[toolwire::ToolCall]| -> Vec<String> {
        let made = |id: &str| id.starts_with("gemini-call-").then(|| "(made)".to_owned());
        calls.iter().map(|c| made(&c.call_id).unwrap_or_else(|| c.call_id.to_string())).collect()
    };
    assert_eq!(ids(&streamed), ["fc-1", "(made)"]);
    assert_eq!(ids(&streamed), ids(&parsed));
    let without_ids = |calls: Vec<toolwire::ToolCall>| -> Vec<(String, Value)> {
        calls.into_iter().map(|c| (c.tool.to_string(), c.arguments)).collect()
    };
    assert_eq!(without_ids(streamed), without_ids(parsed));
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
