//! OpenAI Chat Completions requests: `POST {base}/chat/completions`.

use serde_json::{Value, json};

use crate::provider::request::TurnRequest;

pub(super) fn body(request: &TurnRequest<'_>) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    messages.extend(request.messages.iter().cloned());
    let mut body = json!({"model": request.model, "messages": messages, "stream": request.stream});
    if request.stream {
        // The last chunk then reports the tokens used.
        body["stream_options"] = json!({"include_usage": true});
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(request.tools.to_vec());
    }
    if let Some(max) = request.max_tokens {
        body["max_completion_tokens"] = json!(max);
    }
    body
}
