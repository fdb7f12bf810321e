//! The server's span of a `tools/call`, named and labelled as the OpenTelemetry conventions
//! for MCP describe one: `tools/call {tool}`, kind SERVER, with `mcp.method.name`,
//! `gen_ai.tool.name`, `gen_ai.operation.name`, `mcp.protocol.version`, and `error.type`
//! `tool_error` for an `isError` result. The invocation's `execute_tool` span is its child.

use std::borrow::Cow;

use rmcp::model::CallToolResponse;
use tracing::Span;

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
    response: &Result<CallToolResponse, rmcp::ErrorData>,
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
