//! A whole Anthropic Messages reply as a turn.

use serde_json::{Value, json};

use super::TITLE;
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{missing, provider_error};
use crate::provider::turn::{Finish, ModelTurn, Usage};

pub(super) fn read(reply: &Value) -> Result<ModelTurn, DecodeError> {
    if reply.get("type").and_then(Value::as_str) == Some("error") {
        return Err(provider_error(TITLE, reply.get("error").unwrap_or(reply)));
    }
    let content = reply
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| missing(TITLE, "/content list"))?;
    let calls = super::parse_calls(reply).map_err(DecodeError::unparsed)?;
    let reason = reply.get("stop_reason").and_then(Value::as_str).unwrap_or("end_turn");
    let assistant = vec![json!({"role": "assistant", "content": content})];
    Ok(ModelTurn::new(assistant, calls)
        .with_text(joined(content, "text"))
        .with_thinking(joined(content, "thinking"))
        .with_finish(finish(reason))
        .with_usage(usage(reply, "")))
}

/// The `key` text of the blocks of type `key` (`text` or `thinking`), joined.
pub(super) fn joined(blocks: &[Value], key: &str) -> String {
    blocks
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some(key))
        .filter_map(|block| block.get(key).and_then(Value::as_str))
        .collect()
}

/// A `stop_reason` as a finish.
pub(super) fn finish(reason: &str) -> Finish {
    Finish::named(reason, &["end_turn", "stop_sequence"], &["tool_use"], &["max_tokens"])
}

/// The `usage` under the pointer `at` (`""` for a reply, `/message` in `message_start`).
pub(super) fn usage(value: &Value, at: &str) -> Usage {
    Usage::at(value, &format!("{at}/usage/input_tokens"), &format!("{at}/usage/output_tokens"))
}
