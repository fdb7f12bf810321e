//! Gemini: the `functionDeclaration`, `functionCall` parts, and `functionResponse` parts back.

use serde_json::{Value, json};

use super::Provider;
use super::parse::{Reader, call_with_arguments};
use super::parse_error::ParseError;
use super::render::model_text;
use crate::record::{Receipt, ToolCall};

use super::{Definition, named};

pub use super::gemini_stream::CallAccumulator;

const READ: Reader = Reader { provider: Provider::Gemini };

/// `{"name", "description"?, "parametersJsonSchema"?}`.
///
/// Gemini's `parametersJsonSchema` takes JSON Schema as it is, so every valid parameter
/// schema is described faithfully. (Its other field, `parameters`, takes only an OpenAPI
/// subset and rejects many JSON Schema keywords.) A tool without parameters (an object schema
/// that declares no properties and constrains nothing else) goes without the field, as
/// Gemini expects of a function that takes no arguments.
pub(super) fn function_declaration(def: &Definition<'_>) -> Value {
    let mut map = named(def);
    if !declares_no_parameters(def.parameters) {
        map.insert("parametersJsonSchema".into(), def.parameters.clone());
    }
    Value::Object(map)
}

/// Whether `schema` is an object schema without parameters: no properties, and nothing else
/// that declares or constrains arguments (an `additionalProperties` of `true` or `false` and
/// an empty `required` aside).
fn declares_no_parameters(schema: &Value) -> bool {
    let Value::Object(map) = schema else { return false };
    let empty = |value: &Value| match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => false,
    };
    map.iter().all(|(key, value)| match key.as_str() {
        "type" => value == "object",
        "properties" | "required" => empty(value),
        "additionalProperties" => value.is_boolean(),
        "$schema" | "$comment" | "title" | "description" => true,
        _ => false,
    })
}

/// Reads the `functionCall` parts of a Gemini reply: the response (its first candidate), a
/// content (`{"role": "model", "parts": [..]}`), or a list of parts. A call's `id` is optional;
/// without one its [`ToolCall::call_id`] is empty, and its result is matched by order.
///
/// # Errors
///
/// A [`ParseError`] when the reply is none of these, or a call has no name.
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let (parts, path) = parts_of(reply)?;
    let mut parsed = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let Some(call) = part.get("functionCall") else { continue };
        let at = format!("{path}/{i}/functionCall");
        let name = READ.string(call, &at, "name")?;
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
        parsed.push(call_with_arguments(id, name, call.get("args")));
    }
    Ok(parsed)
}

/// The parts of a response (its first candidate's), a content, or a list of parts, with the
/// pointer to them.
pub(super) fn parts_of(reply: &Value) -> Result<(&[Value], &'static str), ParseError> {
    match reply {
        Value::Array(parts) => Ok((parts.as_slice(), "")),
        Value::Object(_) if reply.get("candidates").is_some() => {
            let content = reply.pointer("/candidates/0/content").unwrap_or(&Value::Null);
            let parts = READ.list(content, "/candidates/0/content", "parts")?;
            Ok((parts, "/candidates/0/content/parts"))
        }
        Value::Object(_) => Ok((READ.list(reply, "", "parts")?, "/parts")),
        _ => Err(READ.not_a_reply("", "a response, a content or a list of parts")),
    }
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
