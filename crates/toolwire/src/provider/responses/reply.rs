//! A whole OpenAI Responses reply (or a stream's final response) as a turn.

use serde_json::{Value, json};

use super::TITLE;
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{missing, provider_error, reported_error};
use crate::provider::turn::{Finish, ModelTurn, Usage};

pub(super) fn read(reply: &Value) -> Result<ModelTurn, DecodeError> {
    reported_error(TITLE, reply)?;
    let output = reply
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| missing(TITLE, "/output list"))?;
    let calls = super::parse_calls(reply).map_err(DecodeError::unparsed)?;
    let finish = match reply.get("status").and_then(Value::as_str) {
        Some("incomplete") => {
            let why = reply.pointer("/incomplete_details/reason").and_then(Value::as_str);
            if why == Some("max_output_tokens") {
                Finish::Length
            } else {
                Finish::Other(why.unwrap_or("incomplete").to_owned())
            }
        }
        Some("failed") => {
            return Err(provider_error(TITLE, &json!({"message": "the response failed"})));
        }
        _ if calls.is_empty() => Finish::Stop,
        _ => Finish::ToolCalls,
    };
    let usage = Usage::at(reply, "/usage/input_tokens", "/usage/output_tokens");
    Ok(ModelTurn::new(output.clone(), calls)
        .with_text(texts(output, "message", "output_text"))
        .with_thinking(texts(output, "reasoning", "summary_text"))
        .with_finish(finish)
        .with_usage(usage))
}

/// The text of the `part` parts of the `item` items (in their `content`, or a reasoning
/// item's `summary`), joined.
fn texts(output: &[Value], item: &str, part: &str) -> String {
    output
        .iter()
        .filter(|one| one.get("type").and_then(Value::as_str) == Some(item))
        .flat_map(|one| ["content", "summary"].map(|key| one.get(key).and_then(Value::as_array)))
        .flatten()
        .flatten()
        .filter(|one| one.get("type").and_then(Value::as_str) == Some(part))
        .filter_map(|one| one.get("text").and_then(Value::as_str))
        .collect()
}
