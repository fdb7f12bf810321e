//! Assistant turns rebuilt from their calls, in each provider's wire format: the inverse of
//! each `parse_calls`, for a turn whose reply never arrived whole (a stream cut short), so
//! that the calls that started still get their results and the conversation stays balanced.

use serde_json::{Value, json};

use crate::record::ToolCall;

/// A call's arguments as the providers take them back: an object, or `{}`.
fn object_arguments(call: &ToolCall) -> Value {
    if call.arguments.is_object() && call.malformed.is_none() {
        call.arguments.clone()
    } else {
        json!({})
    }
}

/// An OpenAI Chat Completions assistant message with `text` and `calls`.
pub(super) fn openai(text: &str, calls: &[ToolCall]) -> Value {
    let content = if text.is_empty() { Value::Null } else { json!(text) };
    let mut message = json!({"role": "assistant", "content": content});
    if !calls.is_empty() {
        let calls = calls.iter().map(|call| {
            let arguments =
                if call.malformed.is_some() { "{}".to_owned() } else { call.arguments.to_string() };
            json!({"id": call.call_id.as_str(), "type": "function",
                "function": {"name": &*call.tool, "arguments": arguments}})
        });
        message["tool_calls"] = Value::Array(calls.collect());
    }
    message
}

/// An Anthropic assistant message: a text block, then one `tool_use` block per call.
pub(super) fn anthropic(text: &str, calls: &[ToolCall]) -> Value {
    let mut blocks = Vec::new();
    if !text.is_empty() {
        blocks.push(json!({"type": "text", "text": text}));
    }
    blocks.extend(calls.iter().map(|call| {
        json!({"type": "tool_use", "id": call.call_id.as_str(), "name": &*call.tool,
            "input": object_arguments(call)})
    }));
    json!({"role": "assistant", "content": blocks})
}

/// A Gemini model content: a text part, then one `functionCall` part per call.
pub(super) fn gemini(text: &str, calls: &[ToolCall]) -> Value {
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(json!({"text": text}));
    }
    parts
        .extend(calls.iter().map(|call| json!({"functionCall": super::gemini::render_call(call)})));
    json!({"role": "model", "parts": parts})
}

/// OpenAI Responses output items: a message item, then one `function_call` item per call.
pub(super) fn responses(text: &str, calls: &[ToolCall]) -> Vec<Value> {
    let mut items = Vec::new();
    if !text.is_empty() {
        items.push(json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text}]}));
    }
    items.extend(calls.iter().map(|call| {
        json!({"type": "function_call", "call_id": call.call_id.as_str(),
            "name": &*call.tool, "arguments": object_arguments(call).to_string()})
    }));
    items
}
