//! The failed results the pipeline itself produces.

use std::any::Any;
use std::time::Duration;

use crate::abort::AbortSignal;
use crate::result::{FailureKind, ToolResult};

/// The result of a call whose signal fired: its reason, or `"Aborted"`.
pub(super) fn aborted(signal: &AbortSignal) -> ToolResult {
    ToolResult::failed(FailureKind::Aborted, signal.reason_or_default())
}

/// The result of a call whose deadline passed.
pub(super) fn timed_out(tool: &str, timeout: Duration) -> ToolResult {
    ToolResult::failed(FailureKind::TimedOut, timeout_reason(tool, timeout))
}

/// The reason the handler's signal carries when the deadline passes.
pub(super) fn timeout_reason(tool: &str, timeout: Duration) -> String {
    format!("tool {tool:?} timed out after {timeout:?}")
}

/// The result of a handler that panicked, carrying the panic message.
pub(super) fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolResult {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic with a non-string payload");
    ToolResult::failed(
        FailureKind::Panic,
        format!("tool {tool:?} panicked: {message}"),
    )
}

/// Step 4: an abort seen after the handler resolved replaces its result.
pub(super) fn settle(result: ToolResult, signal: &AbortSignal) -> ToolResult {
    if signal.is_aborted() {
        aborted(signal)
    } else {
        result
    }
}
