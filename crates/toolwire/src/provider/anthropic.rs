//! Anthropic Messages: the tool shape, `tool_use` blocks, and `tool_result` blocks back.

use serde_json::{Value, json};

use super::parse::{ParseError, Reader, call_with_arguments};
use super::render::model_text;
use super::stream::{self, Partials};
use super::{Definition, named, with_strict};
use crate::registry::{Receipt, ToolCall};

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
/// content blocks. Text and thinking blocks are skipped. `input` should be an object; JSON
/// text is parsed, and anything else makes a call that fails saying what arrived.
///
/// # Errors
///
/// A [`ParseError`] when the reply is neither, or a block lacks its `id` or name.
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let read = Reader { provider: "Anthropic" };
    let (blocks, path) = match reply {
        Value::Array(blocks) => (blocks.as_slice(), ""),
        Value::Object(_) => (read.list(reply, "", "content")?, "/content"),
        _ => {
            return Err(ParseError::new(
                read.provider,
                "",
                "expected a message or a list of content blocks",
            ));
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

/// Assembles the `tool_use` blocks of a streamed Anthropic Messages reply from its events.
///
/// A `content_block_start` opens a block with its `id` and name; its
/// `input_json_delta.partial_json` fragments are joined, and parsed when the stream is
/// finished.
#[derive(Debug, Default, Clone)]
pub struct CallAccumulator {
    partials: Partials,
}

impl CallAccumulator {
    /// Takes in one server-sent event's data; events about other blocks change nothing.
    pub fn push(&mut self, event: &Value) {
        let Some(index) = stream::index(event, "index") else { return };
        match stream::text(event, "type") {
            Some("content_block_start") => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                if stream::text(block, "type") == Some("tool_use") {
                    let partial = self.partials.at(index);
                    partial.id = stream::text(block, "id").map(str::to_owned);
                    partial.name = stream::text(block, "name").map(str::to_owned);
                }
            }
            Some("content_block_delta") => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                if stream::text(delta, "type") == Some("input_json_delta") {
                    let fragment = stream::text(delta, "partial_json").unwrap_or_default();
                    self.partials.at(index).arguments.push_str(fragment);
                }
            }
            _ => {}
        }
    }

    /// The assembled calls, in block order.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when a block received input but never started.
    pub fn finish(self) -> Result<Vec<ToolCall>, ParseError> {
        self.partials.finish("Anthropic", false)
    }
}
