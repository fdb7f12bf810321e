//! Gemini requests: `POST {base}/models/{model}:generateContent`, or
//! `:streamGenerateContent?alt=sse`, with an `x-goog-api-key`.

use serde_json::{Value, json};

use crate::provider::request::TurnRequest;

pub(super) fn body(request: &TurnRequest<'_>) -> Value {
    let mut body = json!({"contents": request.messages});
    if let Some(system) = request.system {
        body["systemInstruction"] = json!({"parts": [{"text": system}]});
    }
    if !request.tools.is_empty() {
        body["tools"] = json!([{"functionDeclarations": request.tools}]);
    }
    if let Some(max) = request.max_tokens {
        body["generationConfig"] = json!({"maxOutputTokens": max});
    }
    body
}
