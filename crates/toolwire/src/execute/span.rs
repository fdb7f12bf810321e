//! The span of an invocation, named and labelled as the OpenTelemetry GenAI semantic
//! conventions (semantic-conventions-genai v0.1.0, "Development") describe a tool execution:
//! `execute_tool {gen_ai.tool.name}`, kind INTERNAL, with the `gen_ai.*` attributes the
//! conventions require and recommend, `error.type` on failure, and toolwire's own facts
//! under `toolwire.*` (the invocation id, the outcome, the policy step's verdict, and whether
//! a journal replayed the result). `tracing-opentelemetry` reads `otel.name` and `otel.kind` as the
//! exported span's name and kind.
//!
//! The fields are computed only when a subscriber takes the span: with none, making it costs
//! what a disabled `tracing` span costs.

use std::fmt;

use tracing::Span;

use crate::record::{FailureKind, InvocationId, ToolResult};

/// The span's name: `tracing` names are static, so the exported one is in `otel.name`.
pub(crate) const SPAN_NAME: &str = "execute_tool";

/// `execute_tool {tool}`, written only when the span is recorded.
struct Named<'a>(&'a str);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SPAN_NAME} {}", self.0)
    }
}

/// The span of one invocation of `tool`.
pub(crate) fn invocation(
    tool: &str,
    description: Option<&str>,
    invocation_id: InvocationId,
    call_id: Option<&str>,
) -> Span {
    tracing::debug_span!(
        "execute_tool",
        otel.name = %Named(tool),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        gen_ai.tool.type = "function",
        gen_ai.tool.description = description,
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.call.arguments = tracing::field::Empty,
        gen_ai.tool.call.result = tracing::field::Empty,
        "error.type" = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
        toolwire.invocation_id = %invocation_id,
        toolwire.outcome = tracing::field::Empty,
        toolwire.policy = tracing::field::Empty,
        toolwire.policy.ids = tracing::field::Empty,
        toolwire.policy.ids = tracing::field::Empty,
        toolwire.replayed = tracing::field::Empty,
        toolwire.result.parts = tracing::field::Empty,
    )
}

/// Records how the invocation ended on its `span`: `toolwire.outcome` always; the result's
/// parts as `toolwire.result.parts`, each by kind, MIME type and size, never its bytes; and
/// on a failure `error.type` (the failure's kind, such as `timed_out`) and an error status.
/// Returns the `error.type`, if any.
pub(crate) fn record_outcome(span: &Span, result: &ToolResult) -> Option<&'static str> {
    if !result.parts().is_empty() {
        span.record("toolwire.result.parts", crate::media::summary(result.parts()));
    }
    let Some(kind) = result.failure_kind() else {
        span.record("toolwire.outcome", "success");
        return None;
    };
    span.record("toolwire.outcome", kind.as_str());
    // A call that waits for an answer has not failed.
    if kind == FailureKind::Pending {
        return None;
    }
    span.record("error.type", kind.as_str());
    span.record("otel.status_code", "ERROR");
    Some(kind.as_str())
}

/// Records the policy step's verdict on the current span (the invocation's, while the
/// step runs): `allowed`, `denied` (by the policy), `asked` (parked for an answer),
/// `approved` (by an answer checked and spent), or `refused` (an answer declined, forged,
/// or made for another call).
/// The ids of the policies that decided go on as `toolwire.policy.ids`, comma-separated,
/// when there are any.
pub(crate) fn record_policy(verdict: &'static str, policies: &[std::sync::Arc<str>]) {
    let span = Span::current();
    span.record("toolwire.policy", verdict);
    if !policies.is_empty() && !span.is_disabled() {
        span.record("toolwire.policy.ids", policies.join(",").as_str());
    }
}
