//! Anthropic Messages, its whole wire format: the tool shape, the request, the reply whole
//! and streamed, `tool_use` blocks, and `tool_result` blocks back.

mod calls;
mod decoder;
mod describe;
mod media;
mod reply;
mod request;

use serde_json::{Value, json};

pub use calls::CallAccumulator;

use super::Provider;
use super::catalog::{CatalogForm, CatalogTools, after_search, found_names};
use super::decode::Decode;
use super::decode_error::DecodeError;
use super::parse::{Reader, call_with_arguments, object_arguments};
use super::parse_error::ParseError;
use super::render::blocks_or_text;
use super::request::TurnRequest;
use super::shapes::Definition;
use super::turn::ModelTurn;
use super::wire::{Model, Wire};
use crate::dialect::Dialect;
use crate::media::Part;
use crate::record::{Receipt, ToolCall, ToolResult};

/// The API's name in messages.
const TITLE: &str = "Anthropic Messages";

/// Anthropic Messages, as [`Provider::Anthropic`] picks it.
pub(super) struct Format;

impl Wire for Format {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn label(&self) -> &'static str {
        "Anthropic"
    }

    fn title(&self) -> &'static str {
        TITLE
    }

    fn dialect(&self, strict: bool) -> Dialect {
        if strict { Dialect::AnthropicStrict } else { Dialect::Anthropic }
    }

    fn describe(&self, def: &Definition<'_>) -> Value {
        describe::tool(def)
    }

    fn model(&self) -> Option<&'static dyn Model> {
        Some(&Format)
    }
}

impl Model for Format {
    fn default_base_url(&self) -> &'static str {
        "https://api.anthropic.com/v1"
    }

    fn key_variables(&self) -> &'static [&'static str] {
        &["ANTHROPIC_API_KEY"]
    }

    fn system_name(&self) -> &'static str {
        "anthropic"
    }

    fn endpoint(&self, _model: &str, _stream: bool) -> String {
        "/messages".to_owned()
    }

    fn headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        request::headers(key)
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

    fn catalog_form(&self) -> CatalogForm {
        CatalogForm::References
    }

    /// The loaded tools, the search, then every deferred tool with `defer_loading: true`: the
    /// API keeps those out of the model's context until a `tool_reference` names them.
    fn catalog_tools(&self, tools: &CatalogTools<'_>) -> Vec<Value> {
        let marked = tools.deferred.iter().map(|&tool| {
            let mut tool = tool.clone();
            if let Some(fields) = tool.as_object_mut() {
                fields.insert("defer_loading".to_owned(), Value::Bool(true));
            }
            tool
        });
        after_search(tools, marked)
    }
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
    let mut blocks = Vec::new();
    if !text.is_empty() {
        blocks.push(json!({"type": "text", "text": text}));
    }
    blocks.extend(calls.iter().map(|call| {
        json!({"type": "tool_use", "id": call.call_id.as_str(), "name": &*call.tool,
            "input": object_arguments(call)})
    }));
    json!({"role": "assistant", "content": blocks})
}

/// The user message that answers a turn's calls: one `tool_result` block per receipt, in
/// call order and before anything else, with `is_error` set on failures.
///
/// A result's content is its text; a result with [`parts`](crate::ToolResult::parts) is a list
/// of `text`, `image` (base64 source) and `document` (PDF) blocks, in order, and a part
/// Messages does not take (audio, say, or an image over 5 MB) is a text block that names it.
/// The answer of a [`SEARCH_TOOL`](crate::registry::SEARCH_TOOL) call that found tools is a
/// `tool_reference` block per tool, which the API expands (see
/// [`CatalogForm::References`]).
pub fn render_results(receipts: &[Receipt]) -> Value {
    let blocks: Vec<Value> = receipts
        .iter()
        .map(|receipt| {
            json!({
                "type": "tool_result",
                "tool_use_id": receipt.call_id.as_deref().unwrap_or_default(),
                "content": references(receipt).unwrap_or_else(|| content(&receipt.result)),
                "is_error": !receipt.result.is_success(),
            })
        })
        .collect();
    json!({"role": "user", "content": blocks})
}

/// The `tool_reference` blocks that answer a search that found tools (see
/// [`CatalogForm::References`]): the API expands each into the named tool's definition.
fn references(receipt: &Receipt) -> Option<Value> {
    let names = found_names(receipt).filter(|names| !names.is_empty())?;
    let blocks = names.iter().map(|name| json!({"type": "tool_reference", "tool_name": name}));
    Some(Value::Array(blocks.collect()))
}

/// A `tool_result`'s content: a string, or blocks for a result with parts.
fn content(result: &ToolResult) -> Value {
    blocks_or_text(result, media::admit, media::block)
}
