//! Gemini: the `functionDeclaration`, `functionCall` parts, and `functionResponse` parts back.

use serde_json::{Value, json};

use super::parse::{ParseError, Reader, call_with_arguments};
use super::render::model_text;
use crate::registry::{Receipt, ToolCall};

use super::{Definition, named};

/// `{"name", "description"?, "parametersJsonSchema"}`.
///
/// Gemini's `parametersJsonSchema` takes JSON Schema as it is, so every valid parameter
/// schema is described faithfully. (Its other field, `parameters`, takes only an OpenAPI
/// subset and rejects many JSON Schema keywords.)
pub(super) fn function_declaration(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    map.insert("parametersJsonSchema".into(), def.parameters.clone());
    Value::Object(map)
}

/// Reads the `functionCall` parts of a Gemini reply: the response (its first candidate), a
/// content (`{"role": "model", "parts": [..]}`), or a list of parts. A call's `id` is optional;
/// without one its [`ToolCall::call_id`] is empty, and its result is matched by order.
///
/// # Errors
///
/// A [`ParseError`] when the reply is none of these, or a call has no name.
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let read = Reader { provider: "Gemini" };
    let (parts, path) = match reply {
        Value::Array(parts) => (parts.as_slice(), String::new()),
        Value::Object(_) if reply.get("candidates").is_some() => {
            let content = reply.pointer("/candidates/0/content").unwrap_or(&Value::Null);
            (
                read.list(content, "/candidates/0/content", "parts")?,
                "/candidates/0/content/parts".into(),
            )
        }
        Value::Object(_) => (read.list(reply, "", "parts")?, "/parts".into()),
        _ => {
            return Err(ParseError::new(
                read.provider,
                "",
                "expected a response, a content or a list of parts",
            ));
        }
    };
    let mut parsed = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let Some(call) = part.get("functionCall") else { continue };
        let at = format!("{path}/{i}/functionCall");
        let name = read.string(call, &at, "name")?;
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
        parsed.push(call_with_arguments(id, name, call.get("args")));
    }
    Ok(parsed)
}

/// The user content that answers a turn's calls: one `functionResponse` part per receipt, in
/// order, with `response: {"output": ..}` or, for a failure, `{"error": ..}`. The `id` is
/// echoed when the call had one.
pub fn render_results(receipts: &[Receipt]) -> Value {
    let parts: Vec<Value> = receipts
        .iter()
        .map(|receipt| {
            let text = model_text(&receipt.result);
            let response = if receipt.result.is_success() {
                json!({"output": text})
            } else {
                json!({"error": text})
            };
            let mut call = json!({"name": &*receipt.tool, "response": response});
            if let Some(id) = receipt.call_id.as_deref().filter(|id| !id.is_empty()) {
                call["id"] = json!(id);
            }
            json!({"functionResponse": call})
        })
        .collect();
    json!({"role": "user", "parts": parts})
}
