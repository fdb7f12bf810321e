//! Anthropic Messages requests: `POST {base}/messages` with an `x-api-key` and the API
//! version.

use serde_json::{Value, json};

use crate::provider::request::TurnRequest;

/// `max_tokens` is required by the Messages API; this is used when none was set.
const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The API version every request names.
const VERSION: &str = "2023-06-01";

pub(super) fn headers(key: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = vec![("anthropic-version", VERSION.to_owned())];
    headers.extend(key.map(|key| ("x-api-key", key.to_owned())));
    headers
}

pub(super) fn body(request: &TurnRequest<'_>) -> Value {
    let max_tokens = request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut body = json!({"model": request.model, "max_tokens": max_tokens,
        "messages": request.messages, "stream": request.stream});
    if let Some(system) = request.system {
        body["system"] = json!(system);
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(request.tools.to_vec());
    }
    body
}
