//! The span of an invocation, named and labelled as the OpenTelemetry GenAI semantic
//! conventions (semantic-conventions-genai v0.1.0, "Development") describe a tool execution:
//! `execute_tool {gen_ai.tool.name}`, kind INTERNAL, with the `gen_ai.*` attributes the
//! conventions require and recommend, `error.type` on failure, and toolwire's own facts
//! under `toolwire.*`. `tracing-opentelemetry` reads `otel.name` and `otel.kind` as the
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
        "error.type" = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
        toolwire.invocation_id = %invocation_id,
        toolwire.outcome = tracing::field::Empty,
    )
}

/// Records how the invocation ended on its `span`: `toolwire.outcome` always, and on a
/// failure `error.type` (the failure's kind, such as `timed_out`) and an error status.
pub(crate) fn record_outcome(span: &Span, result: &ToolResult) {
    match result.failure_kind() {
        None => {
            span.record("toolwire.outcome", "success");
        }
        Some(kind) => {
            span.record("toolwire.outcome", kind.as_str());
            // A call that waits for an answer has not failed.
            if kind != FailureKind::Pending {
                span.record("error.type", kind.as_str());
                span.record("otel.status_code", "ERROR");
            }
        }
    }
}
