//! OpenAI Responses requests: `POST {base}/responses`.

use serde_json::{Value, json};

use crate::provider::request::TurnRequest;

pub(super) fn body(request: &TurnRequest<'_>) -> Value {
    let mut body =
        json!({"model": request.model, "input": request.messages, "stream": request.stream});
    if let Some(system) = request.system {
        body["instructions"] = json!(system);
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(request.tools.to_vec());
    }
    if let Some(max) = request.max_tokens {
        body["max_output_tokens"] = json!(max);
    }
    body
}
