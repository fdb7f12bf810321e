//! Anthropic Messages: the tool shape, `tool_use` blocks, and `tool_result` blocks back.

use serde_json::{Value, json};

use super::Provider;
use super::parse::{Reader, call_with_arguments};
use super::parse_error::ParseError;

pub use super::anthropic_stream::CallAccumulator;
use super::render::model_text;
use super::{Definition, named, with_strict};
use crate::record::{Receipt, ToolCall};

/// `{"name", "description"?, "input_schema", "input_examples"?, "strict"?, "cache_control"?}`.
pub(super) fn tool(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    map.insert("input_schema".into(), def.anthropic_parameters.clone());
    if !def.input_examples.is_empty() {
        map.insert("input_examples".into(), Value::Array(def.input_examples.to_vec()));
    }
    with_strict(&mut map, def);
    if let Some(cache_control) = def.cache_control {
        map.insert("cache_control".into(), cache_control.clone());
    }
    Value::Object(map)
}

/// Reads the `tool_use` blocks of an Anthropic Messages reply: the message, or its list of
/// content blocks. Text and thinking blocks are skipped, and so are server tools
/// (`server_tool_use`) and their results: the provider runs those itself. `input` should be an object; JSON
/// text is parsed, and anything else makes a call that fails saying what arrived.
///
/// # Errors
///
/// A [`ParseError`] when the reply is neither, or a block lacks its `id` or name.
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let read = Reader { provider: Provider::Anthropic };
    let (blocks, path) = match reply {
        Value::Array(blocks) => (blocks.as_slice(), ""),
        Value::Object(_) => (read.list(reply, "", "content")?, "/content"),
        _ => {
            return Err(read.not_a_reply("", "a message or a list of content blocks"));
        }
    };
    let mut parsed = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let at = format!("{path}/{i}");
        let id = read.string(block, &at, "id")?;
        let name = read.string(block, &at, "name")?;
        parsed.push(call_with_arguments(id, name, block.get("input")));
    }
    Ok(parsed)
}

/// The assistant message of a turn that said `text` and made `calls`, as Messages takes it
/// back: a text block, then a `tool_use` block per call; the inverse of [`parse_calls`].
///
/// ```
/// use serde_json::json;
/// use toolwire::ToolCall;
/// use toolwire::provider::anthropic;
///
/// let calls = vec![ToolCall::new("toolu_1", "get_weather", json!({"city": "Paris"}))];
/// let message = anthropic::render_turn("Checking.", &calls);
/// assert_eq!(anthropic::parse_calls(&message).unwrap(), calls);
/// ```
pub fn render_turn(text: &str, calls: &[ToolCall]) -> Value {
    super::turns::anthropic(text, calls)
}

/// The user message that answers a turn's calls: one `tool_result` block per receipt, in
/// call order and before anything else, with `is_error` set on failures.
pub fn render_results(receipts: &[Receipt]) -> Value {
    let blocks: Vec<Value> = receipts
        .iter()
        .map(|receipt| {
            json!({
                "type": "tool_result",
                "tool_use_id": receipt.call_id.as_deref().unwrap_or_default(),
                "content": model_text(&receipt.result),
                "is_error": !receipt.result.is_success(),
            })
        })
        .collect();
    json!({"role": "user", "content": blocks})
}
