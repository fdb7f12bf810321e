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

/// How the ids toolwire gives Gemini's calls begin: `gemini-call-` and 32 hex digits.
const OWN_ID: &str = "gemini-call-";

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
/// content (`{"role": "model", "parts": [..]}`), or a list of parts.
///
/// Gemini's `id` for a call is optional. A call with one keeps it as its
/// [`ToolCall::call_id`]; a call without one gets a new unique id, `gemini-call-` and 32 hex
/// digits, so its result is matched to it like any other. [`render_results`] and
/// [`render_call`] never send such an id back to Gemini, which matches those calls and their
/// results by name and order.
///
/// The parts of a streamed reply, joined into one content as SDKs keep a streamed turn, are
/// read too: calls whose arguments came in pieces (`willContinue`, `partialArgs`) are
/// assembled as [`CallAccumulator`] does.
///
/// # Errors
///
/// A [`ParseError`] when the reply is none of these, or a whole call has no name.
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let (parts, path) = parts_of(reply)?;
    if parts.iter().filter_map(|part| part.get("functionCall")).any(is_piece) {
        let mut calls = CallAccumulator::default();
        calls.take_parts(parts);
        return calls.finish();
    }
    let mut parsed = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let Some(call) = part.get("functionCall") else { continue };
        let at = format!("{path}/{i}/functionCall");
        let name = READ.string(call, &at, "name")?;
        parsed.push(call_with_arguments(&call_id(call), name, call.get("args")));
    }
    Ok(parsed)
}

/// Whether a `functionCall` is a piece of a call streamed in several parts.
fn is_piece(call: &Value) -> bool {
    call.get("willContinue").and_then(Value::as_bool) == Some(true)
        || call.get("partialArgs").is_some()
}

/// The id of a `functionCall`: Gemini's, or a new one of toolwire's.
pub(super) fn call_id(call: &Value) -> String {
    match call.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => new_call_id(),
    }
}

/// A new unique id for a call Gemini sent without one.
pub(super) fn new_call_id() -> String {
    format!("{OWN_ID}{:032x}", fastrand::u128(..))
}

/// The id to send back to Gemini for `id`: none for an id toolwire made.
fn gemini_id(id: Option<&str>) -> Option<&str> {
    id.filter(|id| !id.is_empty() && !is_own_id(id))
}

/// Whether `id` is one toolwire gave a call Gemini sent without an id.
fn is_own_id(id: &str) -> bool {
    id.strip_prefix(OWN_ID)
        .is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
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

/// A call as a model turn's `functionCall` part holds it, `{"id"?, "name", "args"}`, for a
/// turn that is rebuilt from its calls: `args` is an object (`{}` for a call whose arguments
/// could not be read), and `id` is there only when Gemini gave the call one.
pub fn render_call(call: &ToolCall) -> Value {
    let args = if call.arguments.is_object() { call.arguments.clone() } else { json!({}) };
    let mut value = json!({"name": &*call.tool, "args": args});
    if let Some(id) = gemini_id(Some(call.call_id.as_str())) {
        value["id"] = json!(id);
    }
    value
}

/// The model content of a turn that said `text` and made `calls`: a text part, then a
/// `functionCall` part per call (see [`render_call`]); the inverse of [`parse_calls`] on a
/// candidate's content.
///
/// ```
/// use serde_json::json;
/// use toolwire::ToolCall;
/// use toolwire::provider::gemini;
///
/// let calls = vec![ToolCall::new("c1", "get_weather", json!({"city": "Paris"}))];
/// let content = gemini::render_turn("", &calls);
/// let reply = json!({"candidates": [{"content": content}]});
/// assert_eq!(gemini::parse_calls(&reply).unwrap(), calls);
/// ```
pub fn render_turn(text: &str, calls: &[ToolCall]) -> Value {
    super::turns::gemini(text, calls)
}

/// The user content that answers a turn's calls: one `functionResponse` part per receipt, in
/// order, with `response: {"output": ..}` or, for a failure, `{"error": ..}`. The `id` is
/// echoed when Gemini gave the call one; the ids toolwire gives calls without one are not
/// sent, and Gemini matches those results by name and order.
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
            if let Some(id) = gemini_id(receipt.call_id.as_deref()) {
                call["id"] = json!(id);
            }
            json!({"functionResponse": call})
        })
        .collect();
    json!({"role": "user", "parts": parts})
}
