//! OpenAI Chat Completions: tool shapes (nested, and flat), calls, and results.

use serde_json::{Map, Value, json};

use super::Provider;
use super::parse::{Reader, call_with_arguments};
use super::parse_error::{ParseError, ParseErrorKind};

pub use super::openai_stream::CallAccumulator;
use super::render::model_text;
use super::{Definition, named, with_strict};
use crate::record::{Receipt, ToolCall};

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
    let read = Reader { provider: Provider::OpenAi };
    let (message, path) = match reply.get("choices") {
        Some(choices) => (choices.get(0).and_then(|c| c.get("message")), "/choices/0/message"),
        None => (Some(reply), ""),
    };
    let Some(message) = message.filter(|m| m.is_object()) else {
        return Err(read.not_a_reply(path, "an assistant message object"));
    };
    let calls = read.list(message, path, "tool_calls")?;
    let mut parsed = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let at = format!("{path}/tool_calls/{i}");
        let id = read.string(call, &at, "id")?;
        let function = call
            .get("function")
            .ok_or_else(|| read.error(ParseErrorKind::MissingField, &at, "function", "missing"))?;
        let name = read.string(function, &format!("{at}/function"), "name")?;
        parsed.push(call_with_arguments(id, name, function.get("arguments")));
    }
    Ok(parsed)
}

/// The assistant message of a turn that said `text` and made `calls`, as Chat Completions
/// takes it back in `messages`: the inverse of [`parse_calls`] on a reply's message, for a
/// turn whose reply never arrived whole. A call whose arguments could not be read is sent
/// back with `{}`.
///
/// ```
/// use serde_json::json;
/// use toolwire::ToolCall;
/// use toolwire::provider::openai;
///
/// let calls = vec![ToolCall::new("call_1", "get_weather", json!({"city": "Paris"}))];
/// let message = openai::render_turn("", &calls);
/// let reply = json!({"choices": [{"message": message}]});
/// assert_eq!(openai::parse_calls(&reply).unwrap(), calls);
/// ```
pub fn render_turn(text: &str, calls: &[ToolCall]) -> Value {
    super::turns::openai(text, calls)
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
