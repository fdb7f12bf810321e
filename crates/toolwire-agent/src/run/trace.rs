//! The run's spans and measurements, named and labelled as the OpenTelemetry GenAI
//! conventions (semantic-conventions-genai v0.1.0) describe an agent: one `invoke_agent`
//! span per run, and a `chat {model}` span per model request inside it, with the token usage
//! the provider reported; the tool calls' `execute_tool` spans are their children. The
//! metrics are `gen_ai.invoke_agent.duration`, `gen_ai.client.operation.duration` and
//! `gen_ai.client.token.usage` (see `toolwire::telemetry`). `tracing-opentelemetry` reads
//! `otel.name` and `otel.kind` as the exported span's name and kind. With no subscriber,
//! nothing here is computed or measured.

use std::fmt;
use std::time::Instant;

use toolwire::Provider;
use toolwire::provider::ModelApi;
use toolwire::telemetry::METRICS_TARGET;
use tracing::Span;

use super::StopReason;
use crate::client::ModelTurn;
use crate::{Error, ErrorKind};

/// `{operation} {model}`, written only when the span is recorded.
struct Named<'a>(&'static str, &'a str);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.1)
    }
}

/// The conventions' `gen_ai.provider.name` of `provider` (its own name for one that runs no
/// model).
fn provider_name(provider: Provider) -> &'static str {
    provider.model_api().map_or(provider.as_str(), ModelApi::system_name)
}

/// A span, what it was made for, and when it started while it is recorded.
pub(super) struct Measured<'a> {
    pub(super) span: Span,
    provider: &'static str,
    model: &'a str,
    started: Option<Instant>,
}

impl<'a> Measured<'a> {
    fn new(span: Span, provider: Provider, model: &'a str) -> Self {
        let started = (!span.is_disabled()).then(Instant::now);
        Self { span, provider: provider_name(provider), model, started }
    }
}

/// The span of one run (or resumption) of the conversation `run_id`.
pub(super) fn agent<'a>(provider: Provider, model: &'a str, run_id: &str) -> Measured<'a> {
    let span = tracing::info_span!(
        "invoke_agent",
        otel.name = "invoke_agent",
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = provider_name(provider),
        gen_ai.request.model = model,
        gen_ai.conversation.id = run_id,
        "error.type" = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    Measured::new(span, provider, model)
}

/// The span of one model request.
pub(super) fn chat(provider: Provider, model: &str) -> Measured<'_> {
    let span = tracing::info_span!(
        "chat",
        otel.name = %Named("chat", model),
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider_name(provider),
        gen_ai.request.model = model,
        gen_ai.response.finish_reasons = tracing::field::Empty,
        gen_ai.usage.input_tokens = tracing::field::Empty,
        gen_ai.usage.output_tokens = tracing::field::Empty,
        "error.type" = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    Measured::new(span, provider, model)
}

/// Records how a model request ended on its span: why the model stopped and the tokens it
/// used, or the failure's kind as `error.type`; then reports its duration and tokens.
pub(super) fn answered(chat: &Measured<'_>, completed: &Result<ModelTurn, Error>) {
    let Some(started) = chat.started else { return };
    let span = &chat.span;
    let _entered = span.enter();
    let error = match completed {
        Ok(turn) => {
            span.record("gen_ai.response.finish_reasons", turn.finish.as_str());
            let counts = [("input", turn.usage.input_tokens), ("output", turn.usage.output_tokens)];
            for (kind, count) in counts {
                let Some(count) = count else { continue };
                span.record(format!("gen_ai.usage.{kind}_tokens").as_str(), count);
                tokens(chat, kind, count);
            }
            None
        }
        Err(error) => Some(failed(span, error_type(error))),
    };
    duration(chat, ("gen_ai.client.operation.duration", "chat"), started, error);
}

/// Reports the time since `started` as `metric` of `operation`, with `error` as its
/// `error.type`.
fn duration(
    of: &Measured<'_>,
    (metric, operation): (&'static str, &'static str),
    started: Instant,
    error: Option<&str>,
) {
    tracing::trace!(
        target: METRICS_TARGET,
        metric,
        value = started.elapsed().as_secs_f64(),
        gen_ai.operation.name = operation,
        gen_ai.provider.name = of.provider,
        gen_ai.request.model = of.model,
        "error.type" = error,
    );
}

/// Reports `count` tokens of `kind` (`input` or `output`).
fn tokens(chat: &Measured<'_>, kind: &str, count: u64) {
    tracing::trace!(
        target: METRICS_TARGET,
        metric = "gen_ai.client.token.usage",
        value = count,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = chat.provider,
        gen_ai.request.model = chat.model,
        "gen_ai.token.type" = kind,
    );
}

/// Records how the run stopped, and reports its duration: a model error or a failed save
/// is an error of the run; any other stop is not.
pub(super) fn ended(agent: &Measured<'_>, stop: &StopReason) {
    let Some(started) = agent.started else { return };
    let _entered = agent.span.enter();
    let error = match stop {
        StopReason::ModelError(error) => Some(failed(&agent.span, error_type(error))),
        StopReason::StoreFailed(_) => Some(failed(&agent.span, "store_failed")),
        _ => None,
    };
    duration(agent, ("gen_ai.invoke_agent.duration", "invoke_agent"), started, error);
}

/// Marks `span` failed with `kind` as its `error.type`, and gives `kind` back.
fn failed<'k>(span: &Span, kind: &'k str) -> &'k str {
    span.record("error.type", kind);
    span.record("otel.status_code", "ERROR");
    kind
}

/// The `error.type` of a failed model request.
fn error_type(error: &Error) -> &'static str {
    match error.kind() {
        ErrorKind::Transport => "transport",
        ErrorKind::Status => "status",
        ErrorKind::RateLimited => "rate_limited",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Aborted => "aborted",
        ErrorKind::InvalidReply => "invalid_reply",
        ErrorKind::StreamCut => "stream_cut",
        ErrorKind::Provider => "provider",
        _ => "_OTHER",
    }
}
