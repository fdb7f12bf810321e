//! Gemini, its whole wire format: the `functionDeclaration`, the request, the reply whole and
//! streamed, `functionCall` parts, and `functionResponse` parts back.

mod calls;
mod decoder;
mod describe;
mod media;
mod path;
mod reply;
mod request;

use serde_json::{Value, json};

pub use calls::CallAccumulator;

use super::Provider;
use super::decode::Decode;
use super::decode_error::DecodeError;
use super::parse::{Reader, call_with_arguments, object_arguments};
use super::parse_error::ParseError;
use super::render::{pieces_if_parts, text_of};
use super::request::TurnRequest;
use super::shapes::Definition;
use super::turn::ModelTurn;
use super::wire::{Model, Wire};
use crate::dialect::Dialect;
use crate::media::Part;
use crate::record::{Receipt, ToolCall};

const READ: Reader = Reader { provider: Provider::Gemini };

/// The API's name in messages.
const TITLE: &str = "Gemini";

/// How the ids toolwire gives Gemini's calls begin: `gemini-call-` and 32 hex digits.
const OWN_ID: &str = "gemini-call-";

/// Gemini `generateContent`, as [`Provider::Gemini`] picks it.
pub(super) struct Format;

impl Wire for Format {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["google"]
    }

    fn label(&self) -> &'static str {
        "Gemini"
    }

    fn title(&self) -> &'static str {
        TITLE
    }

    fn dialect(&self, _strict: bool) -> Dialect {
        Dialect::Gemini
    }

    fn describe(&self, def: &Definition<'_>) -> Value {
        describe::function_declaration(def)
    }

    fn model(&self) -> Option<&'static dyn Model> {
        Some(&Format)
    }
}

impl Model for Format {
    fn default_base_url(&self) -> &'static str {
        "https://generativelanguage.googleapis.com/v1beta"
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &["GEMINI_API_KEY", "GOOGLE_API_KEY"]
    }

    fn system_name(&self) -> &'static str {
        "gcp.gemini"
    }

    fn endpoint(&self, model: &str, stream: bool) -> String {
        if stream {
            format!("/models/{model}:streamGenerateContent?alt=sse")
        } else {
            format!("/models/{model}:generateContent")
        }
    }

    fn headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        key.map(|key| ("x-goog-api-key", key.to_owned())).into_iter().collect()
    }

    fn body(&self, request: &TurnRequest<'_>) -> Value {
        request::body(request)
    }

    fn parse_calls(&self, reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
        parse_calls(reply)
    }

    fn user_message(&self, text: &str) -> Value {
        json!({"role": "user", "parts": [{"text": text}]})
    }

    fn render_turn(&self, text: &str, calls: &[ToolCall]) -> Vec<Value> {
        vec![render_turn(text, calls)]
    }

    fn render_results(&self, _assistant: &[Value], receipts: &[Receipt]) -> Vec<Value> {
        vec![render_results(receipts)]
    }

    fn admit(&self, part: &Part) -> Result<(), String> {
        media::admit(part)
    }

    fn forget_images(&self, message: &mut Value, keep: &mut dyn FnMut() -> bool) {
        media::forget_images(message, keep);
    }

    fn read_reply(&self, reply: &Value) -> Result<ModelTurn, DecodeError> {
        reply::read(reply)
    }

    fn decoder(&self) -> Box<dyn Decode> {
        Box::<decoder::Decoder>::default()
    }
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
        return Ok(calls.finish());
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
    let mut value = json!({"name": &*call.tool, "args": object_arguments(call)});
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
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(json!({"text": text}));
    }
    parts.extend(calls.iter().map(|call| json!({"functionCall": render_call(call)})));
    json!({"role": "model", "parts": parts})
}

/// The user content that answers a turn's calls: one `functionResponse` part per receipt, in
/// order, with `response: {"output": ..}` or, for a failure, `{"error": ..}`. The `id` is
/// echoed when Gemini gave the call one; the ids toolwire gives calls without one are not
/// sent, and Gemini matches those results by name and order.
///
/// A result's media [`parts`](crate::ToolResult::parts) go in the function response's own
/// `parts`, as `inlineData`; its texts, and a line naming each part Gemini does not take, in
/// `response`.
pub fn render_results(receipts: &[Receipt]) -> Value {
    let parts: Vec<Value> = receipts
        .iter()
        .map(|receipt| {
            let pieces = pieces_if_parts(&receipt.result, media::admit);
            let text = text_of(&receipt.result, &pieces);
            let response = if receipt.result.is_success() {
                json!({"output": text})
            } else {
                json!({"error": text})
            };
            let mut call = json!({"name": &*receipt.tool, "response": response});
            if let Some(id) = gemini_id(receipt.call_id.as_deref()) {
                call["id"] = json!(id);
            }
            let media = media::parts(&pieces);
            if !media.is_empty() {
                call["parts"] = Value::Array(media);
            }
            json!({"functionResponse": call})
        })
        .collect();
    json!({"role": "user", "parts": parts})
}
