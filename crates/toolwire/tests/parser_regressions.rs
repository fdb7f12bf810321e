//! One regression test per reply-parser defect found on recorded payloads, through the public
//! API.
//!
//! `fixtures/gemini/vertex_stream.jsonl` is a `streamGenerateContent` reply from Vertex AI with
//! `functionCallingConfig.streamFunctionCallArguments`, one chunk a line: each call opens with
//! its `name` and `willContinue: true`, its arguments follow as `partialArgs` (`jsonPath` and
//! `stringValue`, a string going on while `willContinue` is set), and an empty
//! `functionCall: {}` closes it; Vertex sends no call ids. The shapes are those of
//! `FunctionCall` and `PartialArg` in the Gen AI SDKs' type references.

use std::collections::HashSet;
use std::path::PathBuf;

use serde_json::{Value, json};
use toolwire::provider::{gemini, repair, responses};
use toolwire::{Registry, Tool, ToolCall, ToolResult};

fn vertex_stream() -> Vec<Value> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini/vertex_stream.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn assemble_gemini(chunks: &[Value]) -> Vec<ToolCall> {
    let mut calls = gemini::CallAccumulator::default();
    chunks.iter().for_each(|chunk| calls.push(chunk));
    calls.finish()
}

fn weather() -> Registry {
    let tool = Tool::define("get_weather")
        .parameters(json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}))
        .execute_sync(|args: Value, _| ToolResult::ok(json!(null), format!("sunny in {}", args["location"])))
        .build()
        .unwrap();
    Registry::builder().register(tool).seal().unwrap()
}

fn assert_boston_then_san_francisco(calls: &[ToolCall]) {
    let got: Vec<(&str, &Value)> = calls.iter().map(|c| (&*c.tool, &c.arguments)).collect();
    assert_eq!(
        got,
        [
            ("get_weather", &json!({"location": "Boston, MA"})),
            ("get_weather", &json!({"location": "San Francisco, CA"}))
        ]
    );
    assert!(calls.iter().all(|c| c.malformed.is_none()), "{calls:#?}");
}

#[test]
fn regression_gemini_vertex_streamed_arguments_of_two_calls_are_assembled() {
    let calls = assemble_gemini(&vertex_stream());
    assert_boston_then_san_francisco(&calls);
}

#[test]
fn regression_gemini_joined_stream_parts_are_not_missing_a_name() {
    // An SDK that keeps a streamed turn joins its chunks' parts into one content.
    let parts: Vec<Value> = vertex_stream()
        .iter()
        .flat_map(|chunk| chunk["candidates"][0]["content"]["parts"].as_array().unwrap().clone())
        .collect();
    let content = json!({"role": "model", "parts": parts});
    assert_boston_then_san_francisco(&gemini::parse_calls(&content).unwrap());
    // A whole call without a name is still an error of the reply.
    let nameless = json!({"parts": [{"functionCall": {"args": {"location": "Oslo"}}}]});
    let error = gemini::parse_calls(&nameless).unwrap_err();
    assert_eq!(error.path(), "/parts/0/functionCall/name");
}

/// Whether `id` is one toolwire made for a Gemini call without one.
fn is_made_for_gemini(id: &str) -> bool {
    id.strip_prefix("gemini-call-").is_some_and(|hex| hex.len() == 32)
}

#[test]
fn regression_gemini_calls_without_an_id_get_unique_ids() {
    let reply = json!({"parts": [
        {"functionCall": {"name": "get_weather", "args": {"location": "Oslo"}}},
        {"functionCall": {"id": "fc-7", "name": "get_weather", "args": {"location": "Rome"}}},
        {"functionCall": {"name": "get_weather", "args": {"location": "Lima"}}}
    ]});
    let parsed = gemini::parse_calls(&reply).unwrap();
    let streamed = assemble_gemini(&vertex_stream());
    let again = gemini::parse_calls(&reply).unwrap();
    let ids: Vec<&str> =
        parsed.iter().chain(&streamed).chain(&again).map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids[1], "fc-7", "Gemini's own id is kept");
    assert_eq!(ids[6], "fc-7", "and kept each time");
    let made: Vec<&str> = ids.iter().copied().filter(|id| *id != "fc-7").collect();
    assert_eq!(made.len(), 6);
    assert!(made.iter().all(|id| is_made_for_gemini(id)), "{made:?}");
    assert_eq!(made.iter().collect::<HashSet<_>>().len(), made.len(), "{made:?}");
    // An id Gemini streams in a later part of a call is its id.
    let late = assemble_gemini(&[
        json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_weather", "willContinue": true}}]}}]}),
        json!({"candidates": [{"content": {"parts": [{"functionCall": {"id": "fc-9", "args": {"location": "Oslo"}}}]}}]}),
    ]);
    assert_eq!(late[0].call_id, "fc-9");
}

#[tokio::test]
async fn regression_gemini_made_ids_are_not_sent_to_gemini() {
    let reply = json!({"parts": [
        {"functionCall": {"name": "get_weather", "args": {"location": "Oslo"}}},
        {"functionCall": {"id": "fc-7", "name": "get_weather", "args": {"location": "Rome"}}}
    ]});
    let calls = gemini::parse_calls(&reply).unwrap();
    let receipts = repair(&calls, weather().dispatch(calls.clone()).await);
    assert_eq!(receipts[0].call_id.as_ref(), Some(&calls[0].call_id), "matched by the made id");
    let rendered = gemini::render_results(&receipts);
    let responses: Vec<&Value> = rendered["parts"].as_array().unwrap().iter().collect();
    assert_eq!(
        responses[0]["functionResponse"],
        json!({"name": "get_weather", "response": {"output": "sunny in \"Oslo\""}})
    );
    assert_eq!(responses[1]["functionResponse"]["id"], "fc-7");
    assert_eq!(
        gemini::render_call(&calls[0]),
        json!({"name": "get_weather", "args": {"location": "Oslo"}})
    );
    assert_eq!(gemini::render_call(&calls[1])["id"], "fc-7");
}

fn responses_event(kind: &str, call_id: &str, arguments: &str) -> Value {
    json!({"type": kind, "output_index": 0, "item": {
        "type": "function_call", "id": "fc_1", "call_id": call_id, "name": "get_weather",
        "arguments": arguments, "status": "in_progress"
    }})
}

#[test]
fn regression_responses_stream_takes_the_call_id_the_server_finished_with() {
    let events = [
        responses_event("response.output_item.added", "call_early", ""),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": "{\"location\":\"Oslo\"}"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "arguments": "{\"location\":\"Oslo\"}"}),
        responses_event("response.output_item.done", "call_final", "{\"location\":\"Oslo\"}"),
    ];
    let mut stream = responses::CallAccumulator::default();
    events.iter().for_each(|event| stream.push(event));
    let calls = stream.clone().finish();
    assert_eq!(
        (calls[0].call_id.as_str(), &calls[0].arguments),
        ("call_final", &json!({"location": "Oslo"}))
    );
    // `response.completed` holds the items as the server keeps them.
    let completed = json!({"type": "response.completed", "response": {"output": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_kept", "name": "get_weather", "arguments": "{\"location\":\"Oslo\"}", "status": "completed"}
    ]}});
    stream.push(&completed);
    let calls = stream.finish();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id, "call_kept");
    assert_eq!(calls, responses::parse_calls(&completed["response"]).unwrap());
}
