//! The server's span of a `tools/call`, named and labelled as the OpenTelemetry conventions
//! for MCP describe one: `tools/call {tool}`, kind SERVER, with `mcp.method.name`,
//! `gen_ai.tool.name`, `gen_ai.operation.name`, `mcp.protocol.version`, and `error.type`
//! `tool_error` for an `isError` result. The invocation's `execute_tool` span is its child.

use std::borrow::Cow;
use std::future::Future;
use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, MetaObject};
use tracing::{Instrument, Span};

use crate::trace::Named;

/// The span of a `tools/call` of `tool` (`mcp.protocol.version` is recorded by the caller,
/// only when the span is on).
pub(crate) fn call(tool: &str) -> Span {
    tracing::debug_span!(
        "tools/call",
        otel.name = %Named(tool),
        otel.kind = "server",
        mcp.method.name = "tools/call",
        mcp.protocol.version = tracing::field::Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        "error.type" = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// Records how the call was answered: `tool_error` for an `isError` result, the JSON-RPC
/// code for an error; gives that `error.type` back.
pub(crate) fn answered(
    span: &Span,
    response: &Result<CallToolResponse, ErrorData>,
) -> Option<Cow<'static, str>> {
    let error: Cow<'static, str> = match response {
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
            "tool_error".into()
        }
        Err(error) => error.code.0.to_string().into(),
        _ => return None,
    };
    span.record("error.type", &*error);
    span.record("otel.status_code", "ERROR");
    Some(error)
}

/// The span of a `tools/call` of `tool`, with the protocol version (read only when the span
/// is on), continuing the trace context in the request's `meta`; `None` when the span is
/// off.
pub(crate) fn call_span(
    tool: &str,
    version: impl FnOnce() -> Option<String>,
    meta: &MetaObject,
) -> Option<(Span, Option<String>)> {
    let span = call(tool);
    if span.is_disabled() {
        return None;
    }
    let version = version();
    if let Some(version) = &version {
        span.record("mcp.protocol.version", version.as_str());
    }
    crate::trace_context::continue_in(&span, meta);
    Some((span, version))
}

/// Runs `call`, a `tools/call` of `tool` under protocol `version`, in `span` (from
/// [`call_span`]), and records how it was answered; its duration goes to
/// `mcp.server.operation.duration`.
pub(crate) async fn observed(
    span: Span,
    tool: &str,
    version: Option<&str>,
    call: impl Future<Output = Result<CallToolResponse, ErrorData>>,
) -> Result<CallToolResponse, ErrorData> {
    let started = Instant::now();
    let response = call.instrument(span.clone()).await;
    let error = answered(&span, &response);
    let _entered = span.enter();
    let metric = "mcp.server.operation.duration";
    crate::trace::call_duration(metric, tool, error.as_deref(), version, started);
    response
}
