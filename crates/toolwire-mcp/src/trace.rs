//! What the client's and the server's `tools/call` spans share: their name, and the MCP
//! conventions' operation duration metrics (`mcp.client.operation.duration` and
//! `mcp.server.operation.duration`, in seconds; see `toolwire::telemetry`).

use std::fmt;
use std::time::Instant;

use toolwire::telemetry::METRICS_TARGET;

/// `tools/call {tool}`, written only when the span is recorded.
pub(crate) struct Named<'a>(pub(crate) &'a str);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tools/call {}", self.0)
    }
}

/// Reports how long a `tools/call` of `tool` took since `started`, as `metric`, with its
/// `error.type` and the protocol version, when known.
pub(crate) fn call_duration(
    metric: &'static str,
    tool: &str,
    error: Option<&str>,
    version: Option<&str>,
    started: Instant,
) {
    tracing::trace!(
        target: METRICS_TARGET,
        metric,
        value = started.elapsed().as_secs_f64(),
        mcp.method.name = "tools/call",
        gen_ai.tool.name = tool,
        mcp.protocol.version = version,
        "error.type" = error,
    );
}
