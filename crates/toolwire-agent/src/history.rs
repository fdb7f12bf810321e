//! The conversation in each provider's wire messages: the user's prompt, the results of a
//! turn's calls, and an assistant turn rebuilt from its calls when the turn was cut short.

use serde_json::{Value, json};
use toolwire::provider::{anthropic, gemini, openai, responses};
use toolwire::{Provider, Receipt, ToolCall};

use crate::{Error, ErrorKind};

/// The name a provider is stored and specified by: [`Provider::as_str`] (`openai`,
/// `responses`, `anthropic` or `gemini`).
pub fn provider_name(provider: Provider) -> &'static str {
    provider.as_str()
}

/// The provider called `name`, as [`Provider::from_str`](std::str::FromStr) reads it, among
/// those a model speaks (not `mcp` or `flat_function`).
///
/// # Errors
///
/// A [`Config`](ErrorKind::Config) error for any other name.
pub fn parse_provider(name: &str) -> Result<Provider, Error> {
    let unknown = |why: String| Error::new(ErrorKind::Config, why);
    match name.parse::<Provider>() {
        Ok(
            provider @ (Provider::OpenAi
            | Provider::Responses
            | Provider::Anthropic
            | Provider::Gemini),
        ) => Ok(provider),
        Ok(other) => Err(unknown(format!(
            "provider {other} describes tools but runs no model: expected openai, responses, anthropic or gemini"
        ))),
        Err(error) => Err(unknown(error.to_string())),
    }
}

/// The user message that opens a run with `text`.
pub(crate) fn user(provider: Provider, text: &str) -> Value {
    match provider {
        Provider::Gemini => json!({"role": "user", "parts": [{"text": text}]}),
        _ => json!({"role": "user", "content": text}),
    }
}

/// The messages that answer a turn's calls; `assistant` is what the turn appended.
pub(crate) fn results(provider: Provider, assistant: &[Value], receipts: &[Receipt]) -> Vec<Value> {
    match provider {
        Provider::Responses => {
            let reply = json!({"output": assistant});
            responses::render_results_for(&reply, receipts)
                .unwrap_or_else(|_| responses::render_results(receipts))
        }
        Provider::Anthropic => vec![anthropic::render_results(receipts)],
        Provider::Gemini => vec![gemini::render_results(receipts)],
        _ => openai::render_results(receipts),
    }
}

/// An assistant turn holding `text` and `calls`, for a turn whose reply never completed:
/// the calls that had started still get their results, so the conversation stays balanced.
/// Each provider's module in the core owns its shape.
pub(crate) fn rebuilt(provider: Provider, text: &str, calls: &[ToolCall]) -> Vec<Value> {
    match provider {
        Provider::Responses => responses::render_turn(text, calls),
        Provider::Anthropic => vec![anthropic::render_turn(text, calls)],
        Provider::Gemini => vec![gemini::render_turn(text, calls)],
        _ => vec![openai::render_turn(text, calls)],
    }
}

/// A call's arguments as the providers take them back: an object, or `{}`.
pub(crate) fn object_arguments(call: &ToolCall) -> Value {
    if call.arguments.is_object() { call.arguments.clone() } else { json!({}) }
}

/// A Gemini `functionCall`: `{"id"?, "name", "args"}`, with the id only when Gemini gave it
/// (the core's own ids for id-less calls are not sent back).
pub(crate) fn gemini_call(call: &ToolCall) -> Value {
    toolwire::provider::gemini::render_call(call)
}

/// An OpenAI Chat Completions assistant message with `text` and `calls`.
pub(crate) fn openai_assistant(text: &str, calls: &[ToolCall]) -> Value {
    openai::render_turn(text, calls)
}
