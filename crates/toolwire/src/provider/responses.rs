//! OpenAI Responses: `function_call` output items, and `function_call_output` items back.

use serde_json::{Value, json};

use super::parse::{ParseError, Reader, call_with_arguments};
use super::render::model_text;
use super::stream::{self, Partials};
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

/// Assembles the `function_call` items of a streamed OpenAI Responses reply from its events.
///
/// `response.output_item.added` opens a call with its `call_id` and name;
/// `response.function_call_arguments.delta` fragments are joined per `output_index`, and
/// `response.function_call_arguments.done` (or `response.output_item.done`) supplies the whole
/// arguments when it comes.
#[derive(Debug, Default, Clone)]
pub struct CallAccumulator {
    partials: Partials,
}

impl CallAccumulator {
    /// Takes in one event; events about other items change nothing.
    pub fn push(&mut self, event: &Value) {
        let Some(index) = stream::index(event, "output_index") else { return };
        match stream::text(event, "type") {
            Some("response.output_item.added" | "response.output_item.done") => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if stream::text(item, "type") != Some("function_call") {
                    return;
                }
                let partial = self.partials.at(index);
                partial.id = stream::text(item, "call_id").map(str::to_owned).or(partial.id.take());
                partial.name =
                    stream::text(item, "name").map(str::to_owned).or(partial.name.take());
                if let Some(arguments) = stream::text(item, "arguments").filter(|a| !a.is_empty()) {
                    partial.arguments = arguments.to_owned();
                }
            }
            Some("response.function_call_arguments.delta") => {
                let fragment = stream::text(event, "delta").unwrap_or_default();
                self.partials.at(index).arguments.push_str(fragment);
            }
            Some("response.function_call_arguments.done") => {
                if let Some(arguments) = stream::text(event, "arguments") {
                    self.partials.at(index).arguments = arguments.to_owned();
                }
            }
            _ => {}
        }
    }

    /// The assembled calls, in output order.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] when a call never received its `call_id` or name.
    pub fn finish(self) -> Result<Vec<ToolCall>, ParseError> {
        self.partials.finish("OpenAI Responses", false)
    }
}
