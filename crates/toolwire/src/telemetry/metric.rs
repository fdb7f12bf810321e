//! The core's measurement: `gen_ai.execute_tool.duration`.

use std::time::Duration;

/// Reports how long a call of `tool` took, with its `error.type` if it failed, as the
/// conventions' `gen_ai.execute_tool.duration` (seconds).
pub(crate) fn tool_duration(tool: &str, error_type: Option<&str>, took: Duration) {
    tracing::trace!(
        target: super::METRICS_TARGET,
        metric = "gen_ai.execute_tool.duration",
        value = took.as_secs_f64(),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        gen_ai.tool.type = "function",
        "error.type" = error_type,
    );
}
