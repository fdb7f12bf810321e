//! Random replies and events, built from the keys and names the decoders look for, never
//! make a decoder panic.

use serde_json::{Map, Value};

use toolwire::Provider;
use toolwire::provider::ModelApi;
use toolwire_test_support::recorded;

const KEYS: &[&str] = &[
    "type",
    "index",
    "delta",
    "content_block",
    "choices",
    "candidates",
    "content",
    "parts",
    "functionCall",
    "tool_calls",
    "function",
    "arguments",
    "name",
    "id",
    "call_id",
    "output",
    "item",
    "output_index",
    "text",
    "partial_json",
    "args",
    "willContinue",
    "partialArgs",
    "jsonPath",
    "stringValue",
    "finish_reason",
    "finishReason",
    "stop_reason",
    "response",
    "message",
    "input",
    "signature",
    "thinking",
    "thought",
    "thoughtSignature",
    "error",
    "status",
];

const WORDS: &[&str] = &[
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "tool_use",
    "text_delta",
    "input_json_delta",
    "signature_delta",
    "thinking_delta",
    "response.output_item.added",
    "response.output_item.done",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_text.delta",
    "response.completed",
    "response.failed",
    "function_call",
    "message",
    "STOP",
    "stop",
    "tool_calls",
    "$.a",
    "$[0]",
    "{\"a\":",
    "[DONE]",
    "",
];

fn value(rng: &mut fastrand::Rng, depth: u32) -> Value {
    match rng.u32(0..if depth > 3 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.bool()),
        2 => Value::from(rng.i64(-2..5)),
        3 | 4 => Value::from(WORDS[rng.usize(0..WORDS.len())]),
        5 => Value::Array((0..rng.usize(0..4)).map(|_| value(rng, depth + 1)).collect()),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.usize(0..6) {
                map.insert(KEYS[rng.usize(0..KEYS.len())].to_owned(), value(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// The providers a model is reached by.
fn models() -> impl Iterator<Item = ModelApi> {
    Provider::ALL.into_iter().filter_map(Provider::model_api)
}

#[test]
fn random_events_and_replies_never_panic() {
    let mut rng = fastrand::Rng::with_seed(12);
    for api in models() {
        for _ in 0..300 {
            let mut decoder = api.decoder();
            for _ in 0..rng.usize(1..40) {
                let data = value(&mut rng, 0).to_string();
                if decoder.push(&data).is_err() {
                    break;
                }
                decoder.take_ready();
            }
            let _ = decoder.end();
            decoder.take_ready();
            decoder.finish();
            let _ = api.read_reply(&value(&mut rng, 0));
        }
    }
}

/// Replaces one random node of `value` with a random value.
fn mutate(rng: &mut fastrand::Rng, value: &mut Value) {
    let children: Vec<&mut Value> = match value {
        Value::Object(map) => map.values_mut().collect(),
        Value::Array(items) => items.iter_mut().collect(),
        _ => Vec::new(),
    };
    if children.is_empty() || rng.u32(0..4) == 0 {
        *value = self::value(rng, 2);
        return;
    }
    let mut children = children;
    let pick = rng.usize(0..children.len());
    mutate(rng, children.swap_remove(pick));
}

#[test]
fn recorded_streams_with_one_node_changed_never_panic() {
    let streams = [Provider::OpenAi, Provider::Responses, Provider::Anthropic, Provider::Gemini];
    let mut rng = fastrand::Rng::with_seed(7);
    for provider in streams {
        let events: Vec<Value> = recorded::stream_data(provider.as_str())
            .iter()
            .filter_map(|data| serde_json::from_str(data).ok())
            .collect();
        for _ in 0..500 {
            let Some(api) = provider.model_api() else { continue };
            let mut decoder = api.decoder();
            let broken = rng.usize(0..events.len());
            for (i, event) in events.iter().enumerate() {
                let mut event = event.clone();
                if i == broken || rng.u32(0..10) == 0 {
                    mutate(&mut rng, &mut event);
                }
                if decoder.push(&event.to_string()).is_err() {
                    break;
                }
            }
            let _ = decoder.end();
            decoder.finish();
        }
    }
}
