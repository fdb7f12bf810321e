//! OpenAI Responses: `function_call` output items, and `function_call_output` items back.

use serde_json::{Value, json};

use super::parse::{ParseError, Reader, call_with_arguments};
use super::render::model_text;
use crate::registry::{Receipt, ToolCall};

/// Reads the `function_call` items of an OpenAI Responses reply: the response (its `output`)
/// or the list of output items. Other items, such as messages and reasoning, are skipped.
///
/// # Errors
///
/// A [`ParseError`] when the reply is neither, or a call lacks its `call_id` or name.
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let read = Reader { provider: "OpenAI Responses" };
    let (items, path) = match reply {
        Value::Array(items) => (items.as_slice(), ""),
        Value::Object(_) => (read.list(reply, "", "output")?, "/output"),
        _ => {
            return Err(ParseError::new(
                read.provider,
                "",
                "expected a response or a list of items",
            ));
        }
    };
    let mut parsed = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            continue;
        }
        let at = format!("{path}/{i}");
        let call_id = read.string(item, &at, "call_id")?;
        let name = read.string(item, &at, "name")?;
        parsed.push(call_with_arguments(call_id, name, item.get("arguments")));
    }
    Ok(parsed)
}

/// The `function_call_output` input items that answer a turn's calls, in order.
pub fn render_results(receipts: &[Receipt]) -> Vec<Value> {
    receipts
        .iter()
        .map(|receipt| {
            json!({
                "type": "function_call_output",
                "call_id": receipt.call_id.as_deref().unwrap_or_default(),
                "output": model_text(&receipt.result),
            })
        })
        .collect()
}
