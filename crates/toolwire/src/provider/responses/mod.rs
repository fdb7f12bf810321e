//! OpenAI Responses, its whole wire format: the tool shape, the request, the reply whole and
//! streamed, `function_call` output items (parallel wrappers expanded), and
//! `function_call_output` items back.

mod calls;
mod decoder;
mod media;
mod parallel;
mod reply;
mod request;
mod search;

use serde_json::{Value, json};

pub use calls::CallAccumulator;

use self::parallel::expand_into;
use super::catalog::{CatalogForm, CatalogTools};
use super::decode::Decode;
use super::decode_error::DecodeError;
use super::openai;
use super::parse::{Reader, call_with_arguments, object_arguments};
use super::parse_error::ParseError;
use super::render::{blocks_or_text, joined_text, pieces};
use super::repair::MISSING_RESULT;
use super::request::TurnRequest;
use super::shapes::Definition;
use super::turn::ModelTurn;
use super::wire::{Model, Wire};
use crate::dialect::Dialect;
use crate::media::Part;
use crate::record::{Receipt, ToolCall, ToolResult};
use crate::registry::SEARCH_TOOL;

const READ: Reader = Reader { provider: super::Provider::Responses };

/// The API's name in messages.
const TITLE: &str = "OpenAI Responses";

/// OpenAI Responses, as [`Provider::Responses`](super::Provider::Responses) picks it.
pub(super) struct Format;

impl Wire for Format {
    fn name(&self) -> &'static str {
        "responses"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["openai-responses"]
    }

    fn label(&self) -> &'static str {
        "OpenAI Responses"
    }

    fn title(&self) -> &'static str {
        TITLE
    }

    fn dialect(&self, strict: bool) -> Dialect {
        openai::dialect(strict)
    }

    /// `{"type": "function", "name", "description"?, "parameters", "strict"}`. The Responses
    /// API treats a missing `strict` as `true`, so a tool that did not ask for strict mode
    /// says `false`: otherwise the model could be made to send `null` for optional properties.
    fn describe(&self, def: &Definition<'_>) -> Value {
        let mut map = openai::flat(def);
        map.insert("type".into(), "function".into());
        map.entry("strict").or_insert(Value::Bool(false));
        Value::Object(map)
    }

    fn model(&self) -> Option<&'static dyn Model> {
        Some(&Format)
    }
}

impl Model for Format {
    fn default_base_url(&self) -> &'static str {
        openai::DEFAULT_BASE_URL
    }

    fn key_variables(&self) -> &'static [&'static str] {
        openai::KEY_VARIABLES
    }

    fn system_name(&self) -> &'static str {
        "openai"
    }

    fn endpoint(&self, _model: &str, _stream: bool) -> String {
        "/responses".to_owned()
    }

    fn headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
        openai::bearer(key)
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
        render_turn(text, calls)
    }

    /// Answers the turn's own items, so a parallel wrapper gets one output; a turn whose
    /// items cannot be read gets one output per receipt.
    fn render_results(&self, assistant: &[Value], receipts: &[Receipt]) -> Vec<Value> {
        let reply = json!({"output": assistant});
        render_results_for(&reply, receipts).unwrap_or_else(|_| render_results(receipts))
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
        CatalogForm::ClientSearch
    }

    fn catalog_tools(&self, tools: &CatalogTools<'_>) -> Vec<Value> {
        search::tools(tools)
    }
}

/// Reads the `function_call` items of an OpenAI Responses reply: the response (its `output`)
/// or the list of output items. Other items, such as messages and reasoning, are skipped.
///
/// A call of the parallel wrapper `multi_tool_use.parallel` (or of `parallel` whose arguments
/// hold `tool_uses`), which some models make instead of parallel calls, is expanded into the
/// calls it holds: the `i`th (from 0) gets the call id `{call_id}_{i}`. The API knows only the
/// wrapper's `call_id`, so answer such a reply with [`render_results_for`].
///
/// # Errors
///
/// A [`ParseError`] when the reply is neither, or a call lacks its `call_id` or name.
///
/// ```
/// use serde_json::json;
/// use toolwire::provider::responses;
///
/// let reply = json!({"output": [{"type": "function_call", "call_id": "call_1", "name": "multi_tool_use.parallel",
///     "arguments": "{\"tool_uses\": [{\"recipient_name\": \"functions.get_weather\", \"parameters\": {\"city\": \"Oslo\"}}]}"}]});
/// let calls = responses::parse_calls(&reply).unwrap();
/// assert_eq!((calls[0].call_id.as_str(), &*calls[0].tool), ("call_1_0", "get_weather"));
/// ```
pub fn parse_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let mut calls = Vec::new();
    for call in function_calls(reply)? {
        expand_into(call, &mut calls);
    }
    Ok(calls)
}

/// The `function_call` items of `reply` as they are, wrappers unexpanded.
fn function_calls(reply: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let (items, path) = match reply {
        Value::Array(items) => (items.as_slice(), ""),
        Value::Object(_) => (READ.list(reply, "", "output")?, "/output"),
        _ => return Err(READ.not_a_reply("", "a response or a list of items")),
    };
    let mut parsed = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}/{i}");
        if search::is_call(item) {
            // A client-executed search: a call of the tool search, answered by the client.
            let call_id = READ.string(item, &at, "call_id")?;
            parsed.push(call_with_arguments(call_id, SEARCH_TOOL, item.get("arguments")));
            continue;
        }
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            continue;
        }
        let call_id = READ.string(item, &at, "call_id")?;
        let name = READ.string(item, &at, "name")?;
        parsed.push(call_with_arguments(call_id, name, item.get("arguments")));
    }
    Ok(parsed)
}

/// The output items of a turn that said `text` and made `calls`, as Responses takes them
/// back in `input`: a message item, then a `function_call` item per call; the inverse of
/// [`parse_calls`] on a reply's `output`.
///
/// ```
/// use serde_json::json;
/// use toolwire::ToolCall;
/// use toolwire::provider::responses;
///
/// let calls = vec![ToolCall::new("call_1", "get_weather", json!({"city": "Paris"}))];
/// let output = responses::render_turn("", &calls);
/// assert_eq!(responses::parse_calls(&json!({"output": output})).unwrap(), calls);
/// ```
pub fn render_turn(text: &str, calls: &[ToolCall]) -> Vec<Value> {
    let mut items = Vec::new();
    if !text.is_empty() {
        items.push(json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text}]}));
    }
    items.extend(calls.iter().map(|call| {
        if &*call.tool == SEARCH_TOOL {
            return search::call_item(call);
        }
        json!({"type": "function_call", "call_id": call.call_id.as_str(),
            "name": &*call.tool, "arguments": object_arguments(call).to_string()})
    }));
    items
}

/// The `function_call_output` input items that answer a turn's calls, one per receipt, in
/// order. For a reply with a parallel wrapper use [`render_results_for`].
pub fn render_results(receipts: &[Receipt]) -> Vec<Value> {
    let answer = |receipt: &Receipt| match search::is_search(receipt) {
        true => search::output(call_id_of(receipt), Some(receipt)),
        false => output(call_id_of(receipt), content(&receipt.result)),
    };
    receipts.iter().map(answer).collect()
}

/// The `function_call_output` items that answer `reply` (as given to [`parse_calls`]; for a
/// stream, the `response` of `response.completed`): one per `function_call` item, in order.
///
/// The results of a parallel wrapper's calls are folded into one output for the wrapper's
/// `call_id`, as a JSON array of `{"recipient_name", "output"}` in call order; every other call
/// gets its receipt's text. A call with no receipt reads [`MISSING_RESULT`].
///
/// # Errors
///
/// As for [`parse_calls`].
pub fn render_results_for(reply: &Value, receipts: &[Receipt]) -> Result<Vec<Value>, ParseError> {
    let result = |call_id: &str| {
        receipts.iter().find(|r| r.call_id.as_deref() == Some(call_id)).map(|r| &r.result)
    };
    // A wrapper's output is one text: its calls' media are named there, not shown.
    let text = |call_id: &str| {
        result(call_id).map_or_else(
            || MISSING_RESULT.to_owned(),
            |result| {
                joined_text(&pieces(result, |_| {
                    Err(format!("{TITLE} takes the output of a parallel call as text"))
                }))
            },
        )
    };
    let asked = |call_id: &str| {
        let items = reply.get("output").and_then(Value::as_array).map(Vec::as_slice);
        search::asked(items.or(reply.as_array().map(Vec::as_slice)).unwrap_or_default(), call_id)
    };
    let receipt = |call_id: &str| receipts.iter().find(|r| r.call_id.as_deref() == Some(call_id));
    let items = function_calls(reply)?.into_iter().map(|call| match parallel::expand(&call) {
        _ if &*call.tool == SEARCH_TOOL && asked(&call.call_id) => {
            search::output(&call.call_id, receipt(&call.call_id))
        }
        Some(inner) if inner.iter().any(|one| one.call_id != call.call_id) => {
            output(&call.call_id, Value::String(parallel::fold(&inner, text)))
        }
        _ => {
            let content = result(&call.call_id)
                .map_or_else(|| Value::String(MISSING_RESULT.to_owned()), content);
            output(&call.call_id, content)
        }
    });
    Ok(items.collect())
}

/// A function's `output`: a string, or a list of input items for a result with parts (a part
/// Responses does not take, such as audio, is an `input_text` that names it).
fn content(result: &ToolResult) -> Value {
    blocks_or_text(result, media::admit, media::item)
}

fn output(call_id: &str, output: Value) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

fn call_id_of(receipt: &Receipt) -> &str {
    receipt.call_id.as_deref().unwrap_or_default()
}
