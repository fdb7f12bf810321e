//! The run's spans, named and labelled as the OpenTelemetry GenAI conventions
//! (semantic-conventions-genai v0.1.0) describe an agent: one `invoke_agent` span per run,
//! and a `chat {model}` span per model request inside it; the tool calls' `execute_tool`
//! spans are their children. `tracing-opentelemetry` reads `otel.name` and `otel.kind` as
//! the exported span's name and kind. With no subscriber, nothing here is computed.

use std::fmt;

use toolwire::Provider;
use tracing::Span;

use crate::client::Finish;

/// `{operation} {model}`, written only when the span is recorded.
struct Named<'a>(&'static str, &'a str);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.1)
    }
}

/// The conventions' `gen_ai.provider.name` of `provider`.
fn provider_name(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi | Provider::Responses => "openai",
        Provider::Anthropic => "anthropic",
        Provider::Gemini => "gcp.gemini",
        other => other.as_str(),
    }
}

/// The span of one run (or resumption) of the conversation `run_id`.
pub(super) fn agent(provider: Provider, model: &str, run_id: &str) -> Span {
    tracing::info_span!(
        "invoke_agent",
        otel.name = "invoke_agent",
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = provider_name(provider),
        gen_ai.request.model = model,
        gen_ai.conversation.id = run_id,
    )
}

/// The span of one model request.
pub(super) fn chat(provider: Provider, model: &str) -> Span {
    tracing::info_span!(
        "chat",
        otel.name = %Named("chat", model),
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider_name(provider),
        gen_ai.request.model = model,
        gen_ai.response.finish_reasons = tracing::field::Empty,
        "error.type" = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// Records why the model stopped, in the conventions' words (`stop`, `tool_calls`,
/// `length`, or the provider's own).
pub(super) fn finished(span: &Span, finish: &Finish) {
    let reason = match finish {
        Finish::Stop => "stop",
        Finish::ToolCalls => "tool_calls",
        Finish::Length => "length",
        Finish::Other(other) => other.as_str(),
    };
    span.record("gen_ai.response.finish_reasons", reason);
}

/// Records that the model request failed, with `kind` as its `error.type`.
pub(super) fn failed(span: &Span, kind: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "ERROR");
}
