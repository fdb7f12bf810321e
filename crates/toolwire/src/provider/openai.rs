//! OpenAI Chat Completions: tool shapes (nested, and flat), calls, and results.

use serde_json::{Map, Value, json};

use super::parse::{ParseError, Reader, call_with_arguments};
use super::render::model_text;
use super::stream::{self, Partials};
use super::{Definition, named, with_strict};
use crate::registry::{Receipt, ToolCall};

/// `{"name", "description"?, "parameters", "strict"?}`.
pub(super) fn flat(def: &Definition<'_>) -> Map<String, Value> {
    let mut map = named(def);
    map.insert("parameters".into(), def.openai_parameters.clone());
    with_strict(&mut map, def);
    map
}

/// `{"type": "function", "function": {flat}}`.
pub(super) fn nested(def: &Definition<'_>) -> Value {
    json!({"type": "function", "function": flat(def)})
}

/// Reads the tool calls of an OpenAI Chat Completions reply: the assistant message, or the
/// whole completion (its first choice's message). A reply without calls gives none.
///
/// Each call's `arguments` is JSON text, which the model does not always get right: text that
/// is not JSON makes a call that fails with the parser's message, for the model to correct.
///
/// # Errors
///
/// A [`ParseError`] when the reply is not an object, or a call lacks its `id` or name.
///
/// ```
/// use serde_json::json;
///
/// let message = json!({"role": "assistant", "content": null, "tool_calls": [
///     {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
/// ]});
/// let calls = toolwire::provider::openai::parse_calls(&message).unwrap();
/// assert_eq!(calls[0].arguments, json!({"city": "Paris"}));
/// ```
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let read = Reader { provider: "OpenAI" };
    let (message, path) = match reply.get("choices") {
        Some(choices) => (choices.get(0).and_then(|c| c.get("message")), "/choices/0/message"),
        None => (Some(reply), ""),
    };
    let Some(message) = message.filter(|m| m.is_object()) else {
        return Err(ParseError::new("OpenAI", path, "expected an assistant message object"));
    };
    let calls = read.list(message, path, "tool_calls")?;
    let mut parsed = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let at = format!("{path}/tool_calls/{i}");
        let id = read.string(call, &at, "id")?;
        let function =
            call.get("function").ok_or_else(|| read.error(&at, "function", "missing"))?;
        let name = read.string(function, &format!("{at}/function"), "name")?;
        parsed.push(call_with_arguments(id, name, function.get("arguments")));
    }
    Ok(parsed)
}

/// The `role: "tool"` messages that answer a turn's calls, one per receipt, in order.
pub fn render_results(receipts: &[Receipt]) -> Vec<Value> {
    receipts
        .iter()
        .map(|receipt| {
            json!({
                "role": "tool",
                "tool_call_id": receipt.call_id.as_deref().unwrap_or_default(),
                "content": model_text(&receipt.result),
            })
        })
        .collect()
}

/// Assembles the tool calls of a streamed OpenAI Chat Completions reply from its chunks.
///
/// Each chunk's `choices[0].delta.tool_calls[]` carries an `index`; the first piece of a call
/// carries its `id` and name, and the `arguments` fragments are joined per index.
///
/// ```
/// use serde_json::json;
/// use toolwire::provider::openai::CallAccumulator;
///
/// let mut calls = CallAccumulator::default();
/// for chunk in [
///     json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "get_weather", "arguments": ""}}]}}]}),
///     json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}}]}),
///     json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}}]}),
/// ] {
///     calls.push(&chunk);
/// }
/// let calls = calls.finish().unwrap();
/// assert_eq!(calls[0].arguments, json!({"city": "Paris"}));
/// ```
#[derive(Debug, Default, Clone)]
pub struct CallAccumulator {
    partials: Partials,
}

impl CallAccumulator {
    /// Takes in one chunk; chunks without tool calls, such as content deltas, change nothing.
    pub fn push(&mut self, chunk: &Value) {
        let deltas = chunk.pointer("/choices/0/delta/tool_calls").and_then(Value::as_array);
        for delta in deltas.into_iter().flatten() {
            let Some(index) = stream::index(delta, "index") else { continue };
            let partial = self.partials.at(index);
            if let Some(id) = stream::text(delta, "id") {
                partial.id = Some(id.to_owned());
            }
            let function = delta.get("function").unwrap_or(&Value::Null);
            if let Some(name) = stream::text(function, "name") {
                partial.name = Some(name.to_owned());
            }
            if let Some(fragment) = stream::text(function, "arguments") {
                partial.arguments.push_str(fragment);
            }
        }
    }

    /// The assembled calls, in index order.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when a call never received its id or name.
    pub fn finish(self) -> Result<Vec<ToolCall>, ParseError> {
        self.partials.finish("OpenAI", false)
    }
}
