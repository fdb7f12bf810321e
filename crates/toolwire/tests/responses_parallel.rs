//! OpenAI Responses' parallel wrapper (`multi_tool_use.parallel`, or bare `parallel` with
//! `tool_uses`), which some models emit as one `function_call` item (shape as seen on recorded
//! replies; the `function_call` item itself is documented in OpenAI's Responses API reference).

use serde_json::{Value, json};
use toolwire::provider::{repair, responses};
use toolwire::{Registry, Tool, ToolResult};

fn wrapper(name: &str, arguments: Value) -> Value {
    json!({"output": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_w", "name": name, "arguments": arguments.to_string()},
        {"type": "function_call", "id": "fc_2", "call_id": "call_x", "name": "get_time", "arguments": "{}"}
    ]})
}

fn two_uses() -> Value {
    json!({"tool_uses": [
        {"recipient_name": "functions.get_weather", "parameters": {"city": "Oslo"}},
        {"recipient_name": "functions.get_weather", "parameters": {"city": "Rome"}}
    ]})
}

#[test]
fn regression_responses_parallel_wrapper_is_expanded_with_derived_ids() {
    let calls = responses::parse_calls(&wrapper("multi_tool_use.parallel", two_uses())).unwrap();
    let seen: Vec<_> = calls.iter().map(|c| (c.call_id.as_str(), c.tool.as_ref())).collect();
    assert_eq!(
        seen,
        [("call_w_0", "get_weather"), ("call_w_1", "get_weather"), ("call_x", "get_time")]
    );
    assert_eq!(calls[1].arguments, json!({"city": "Rome"}));
    let bare = responses::parse_calls(&wrapper("parallel", two_uses())).unwrap();
    assert_eq!(bare.len(), 3, "bare `parallel` with tool_uses is a wrapper too");
}

#[test]
fn regression_responses_parallel_tool_without_tool_uses_is_not_expanded() {
    let calls = responses::parse_calls(&wrapper("parallel", json!({"jobs": 2}))).unwrap();
    assert_eq!((calls[0].call_id.as_str(), calls[0].tool.as_ref()), ("call_w", "parallel"));
    let broken = responses::parse_calls(&wrapper("multi_tool_use.parallel", json!({}))).unwrap();
    assert!(broken[0].malformed.as_deref().unwrap().contains("tool_uses"));
    assert_eq!(broken[0].call_id, "call_w");
}

#[test]
fn regression_responses_stream_parallel_wrapper_is_expanded() {
    let arguments = two_uses().to_string();
    let mut stream = responses::CallAccumulator::default();
    stream.push(&json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "call_id": "call_w", "name": "multi_tool_use.parallel", "arguments": ""}}));
    stream.push(&json!({"type": "response.function_call_arguments.done", "output_index": 0, "arguments": arguments}));
    let calls = stream.finish();
    let ids: Vec<_> = calls.iter().map(|c| c.call_id.as_str()).collect();
    assert_eq!(ids, ["call_w_0", "call_w_1"]);
}

#[tokio::test]
async fn regression_responses_parallel_results_fold_into_the_wrapper_call() {
    let weather = Tool::define("get_weather")
        .execute_sync(|args: Value, _| {
            ToolResult::ok(
                Value::Null,
                format!("sunny in {}", args["city"].as_str().unwrap_or("?")),
            )
        })
        .build()
        .unwrap();
    let registry = Registry::builder().register(weather).seal().unwrap();
    let reply = wrapper("multi_tool_use.parallel", two_uses());
    let calls = responses::parse_calls(&reply).unwrap();
    let receipts = repair(&calls, registry.dispatch(calls.clone()).await);
    let items = responses::render_results_for(&reply, &receipts).unwrap();
    assert_eq!(items.len(), 2, "one output per function_call item the API knows");
    assert_eq!(items[0]["call_id"], "call_w");
    let folded: Value = serde_json::from_str(items[0]["output"].as_str().unwrap()).unwrap();
    assert_eq!(
        folded,
        json!([
            {"recipient_name": "functions.get_weather", "output": "sunny in Oslo"},
            {"recipient_name": "functions.get_weather", "output": "sunny in Rome"}
        ])
    );
    assert_eq!(items[1]["call_id"], "call_x");
    assert_eq!(items[1]["type"], "function_call_output");
}
