//! A whole OpenAI Chat Completions reply as a turn.

use serde_json::{Value, json};

use super::TITLE;
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{missing, reported_error};
use crate::provider::turn::{Finish, ModelTurn, Usage};

pub(super) fn read(reply: &Value) -> Result<ModelTurn, DecodeError> {
    reported_error(TITLE, reply)?;
    let choice = reply.pointer("/choices/0").ok_or_else(|| missing(TITLE, "/choices/0"))?;
    let message = choice.get("message").ok_or_else(|| missing(TITLE, "/choices/0/message"))?;
    let calls = super::parse_calls(reply).map_err(DecodeError::unparsed)?;
    let content = message.get("content").cloned().unwrap_or(Value::Null);
    let text = content_text(&content);
    let mut assistant = json!({"role": "assistant", "content": content});
    if let Some(tool_calls) =
        message.get("tool_calls").filter(|c| c.as_array().is_some_and(|c| !c.is_empty()))
    {
        assistant["tool_calls"] = tool_calls.clone();
    }
    let reason = choice.get("finish_reason").and_then(Value::as_str).unwrap_or("stop");
    let thinking = message.get("reasoning_content").and_then(Value::as_str).unwrap_or_default();
    Ok(ModelTurn::new(vec![assistant], calls)
        .with_text(text)
        .with_thinking(thinking)
        .with_finish(finish(reason))
        .with_usage(usage(reply)))
}

/// The text of a message's `content`: a string, or a list of `{"type": "text", "text"}` parts.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p.get("text")?.as_str()).collect(),
        _ => String::new(),
    }
}

/// A `finish_reason` as a finish.
pub(super) fn finish(reason: &str) -> Finish {
    Finish::named(reason, &["stop"], &["tool_calls", "function_call"], &["length"])
}

/// The `usage` of a reply or of a stream's last chunk.
pub(super) fn usage(value: &Value) -> Usage {
    Usage::at(value, "/usage/prompt_tokens", "/usage/completion_tokens")
}
