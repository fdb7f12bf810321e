//! OpenAI Chat Completions, its whole wire format: the tool shapes (nested, and the flat
//! function of [`Provider::FlatFunction`]), the request, the reply whole and streamed, the
//! calls, and the results back.

mod calls;
mod decoder;
mod describe;
mod flat;
mod media;
mod reply;
mod request;

use serde_json::{Value, json};

pub use calls::CallAccumulator;
pub(super) use describe::flat;
pub(super) use flat::FlatFormat;

use super::Provider;
use super::decode::Decode;
use super::decode_error::DecodeError;
use super::parse::{Reader, call_with_arguments, object_arguments};
use super::parse_error::{ParseError, ParseErrorKind};
use super::render::{has_parts, model_text, pieces_if_parts, text_of};
use super::request::TurnRequest;
use super::shapes::Definition;
use super::turn::ModelTurn;
use super::wire::{Model, Wire};
use crate::dialect::Dialect;
use crate::media::Part;
use crate::record::{Receipt, ToolCall};

/// The API's name in messages.
const TITLE: &str = "OpenAI Chat Completions";

/// OpenAI Chat Completions, as [`Provider::OpenAi`] picks it.
pub(super) struct Format;

impl Wire for Format {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["chat"]
    }

    fn label(&self) -> &'static str {
        "OpenAI"
    }

    fn title(&self) -> &'static str {
        TITLE
    }

    fn dialect(&self, strict: bool) -> Dialect {
        dialect(strict)
    }

    fn describe(&self, def: &Definition<'_>) -> Value {
        describe::nested(def)
    }

    fn model(&self) -> Option<&'static dyn Model> {
        Some(&Format)
    }
}

/// The dialect of OpenAI's shapes: its strict mode's for a strict tool.
pub(super) fn dialect(strict: bool) -> Dialect {
    if strict { Dialect::OpenAiStrict } else { Dialect::Anthropic }
}

impl Model for Format {
    fn default_base_url(&self) -> &'static str {
        DEFAULT_BASE_URL
    }

    fn key_variables(&self) -> &'static [&'static str] {
        KEY_VARIABLES
    }

    fn system_name(&self) -> &'static str {
        "openai"
    }

    fn endpoint(&self, _model: &str, _stream: bool) -> String {
        "/chat/completions".to_owned()
    }

    fn headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        bearer(key)
    }

    fn body(&self, request: &TurnRequest<'_>) -> Value {
        request::body(request)
    }

    fn parse_calls(&self, reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
        parse_calls(reply)
    }

    fn user_message(&self, text: &str) -> Value {
        json!({"role": "user", "content": text})
    }

    fn render_turn(&self, text: &str, calls: &[ToolCall]) -> Vec<Value> {
        vec![render_turn(text, calls)]
    }

    fn render_results(&self, _assistant: &[Value], receipts: &[Receipt]) -> Vec<Value> {
        render_results(receipts)
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

/// The base URL of OpenAI's API, which Responses shares.
pub(super) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Where OpenAI's key is read from, for Responses too.
pub(super) const KEY_VARIABLES: &[&str] = &["OPENAI_API_KEY"];

/// The `Authorization: Bearer` header of `key`, as OpenAI (and Responses) take it.
pub(super) fn bearer(key: Option<&str>) -> Vec<(&'static str, String)> {
    key.map(|key| ("authorization", format!("Bearer {key}"))).into_iter().collect()
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
    let content = if text.is_empty() { Value::Null } else { json!(text) };
    let mut message = json!({"role": "assistant", "content": content});
    if !calls.is_empty() {
        let calls = calls.iter().map(|call| {
            let arguments = object_arguments(call).to_string();
            json!({"id": call.call_id.as_str(), "type": "function",
                "function": {"name": &*call.tool, "arguments": arguments}})
        });
        message["tool_calls"] = Value::Array(calls.collect());
    }
    message
}

/// The `role: "tool"` messages that answer a turn's calls, one per receipt, in order.
///
/// A tool message holds text only: the media [`parts`](crate::ToolResult::parts) of the
/// results (images, PDFs, WAV and MP3 audio) follow in one `user` message after the tool
/// messages, each after a text that names its call. A part Chat Completions does not take is
/// a line of its tool message that names it.
pub fn render_results(receipts: &[Receipt]) -> Vec<Value> {
    if !receipts.iter().any(|receipt| has_parts(&receipt.result)) {
        return receipts
            .iter()
            .map(|receipt| tool_message(receipt, model_text(&receipt.result)))
            .collect();
    }
    let results: Vec<_> = receipts
        .iter()
        .map(|receipt| (receipt, pieces_if_parts(&receipt.result, media::admit)))
        .collect();
    let mut messages: Vec<Value> = results
        .iter()
        .map(|(receipt, pieces)| tool_message(receipt, text_of(&receipt.result, pieces)))
        .collect();
    messages.extend(media::user_message(&results));
    messages
}

/// The `tool` message that answers `receipt`'s call with `text`.
fn tool_message(receipt: &Receipt, text: String) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": receipt.call_id.as_deref().unwrap_or_default(),
        "content": text,
    })
}
