//! A whole Gemini `generateContent` reply as a turn.

use serde_json::{Value, json};

use super::TITLE;
use crate::provider::decode_error::DecodeError;
use crate::provider::events::{missing, reported_error};
use crate::provider::turn::{Finish, ModelTurn, Usage};

pub(super) fn read(reply: &Value) -> Result<ModelTurn, DecodeError> {
    reported_error(TITLE, reply)?;
    let Some(candidate) = reply.pointer("/candidates/0") else {
        let blocked = reply.pointer("/promptFeedback/blockReason").and_then(Value::as_str);
        return match blocked {
            Some(reason) => Ok(ModelTurn::new(Vec::new(), Vec::new())
                .with_finish(Finish::Other(format!("blocked: {reason}")))
                .with_usage(usage(reply))),
            None => Err(missing(TITLE, "/candidates/0")),
        };
    };
    let calls = match candidate.pointer("/content/parts") {
        Some(_) => super::parse_calls(reply).map_err(DecodeError::unparsed)?,
        None => Vec::new(),
    };
    let content =
        candidate.get("content").cloned().unwrap_or(json!({"role": "model", "parts": []}));
    let parts = content.get("parts").and_then(Value::as_array).map(Vec::as_slice);
    let (text, thinking) = texts(parts.unwrap_or_default());
    let reason = candidate.get("finishReason").and_then(Value::as_str).unwrap_or("STOP");
    let finish = finish(reason).given_calls(&calls);
    Ok(ModelTurn::new(vec![content], calls)
        .with_text(text)
        .with_thinking(thinking)
        .with_finish(finish)
        .with_usage(usage(reply)))
}

/// The text of the parts that are not thoughts, and of those that are.
fn texts(parts: &[Value]) -> (String, String) {
    let (mut text, mut thinking) = (String::new(), String::new());
    for part in parts {
        let Some(piece) = part.get("text").and_then(Value::as_str) else { continue };
        if is_thought(part) { &mut thinking } else { &mut text }.push_str(piece);
    }
    (text, thinking)
}

/// Whether `part` is a thought (`"thought": true`).
pub(super) fn is_thought(part: &Value) -> bool {
    part.get("thought").and_then(Value::as_bool) == Some(true)
}

/// A `finishReason` as a finish.
pub(super) fn finish(reason: &str) -> Finish {
    Finish::named(reason, &["STOP"], &[], &["MAX_TOKENS"])
}

/// The `usageMetadata` of a reply or of a chunk (the totals so far).
pub(super) fn usage(value: &Value) -> Usage {
    Usage::at(value, "/usageMetadata/promptTokenCount", "/usageMetadata/candidatesTokenCount")
}
