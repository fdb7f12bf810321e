//! The failed results the pipeline itself produces, and the span that records outcomes.

use std::any::Any;
use std::time::Duration;

use tracing::Span;

use crate::abort::AbortSignal;
use crate::result::{FailureKind, ToolResult};

/// The result of a call whose signal fired: its reason, or `"Aborted"`.
pub(super) fn aborted(signal: &AbortSignal) -> ToolResult {
    ToolResult::failed(FailureKind::Aborted, signal.reason_or_default())
}

/// The result of a call whose deadline passed.
pub(super) fn timed_out(tool: &str, timeout: Duration) -> ToolResult {
    ToolResult::failed(
        FailureKind::TimedOut,
        format!("tool {tool:?} timed out after {timeout:?}"),
    )
}

/// The result of a call whose arguments were rejected before the handler.
pub(super) fn invalid_input(tool: &str, why: &str) -> ToolResult {
    ToolResult::failed(
        FailureKind::InvalidInput,
        format!("invalid arguments for {tool:?}: {why}"),
    )
}

/// The result of a call with a timeout that no timer can enforce.
pub(super) fn no_timer(tool: &str) -> ToolResult {
    let text = format!(
        "tool {tool:?} was given a timeout, but is not running on a Tokio runtime with timers \
         enabled (see `tokio::runtime::Builder::enable_time`)"
    );
    ToolResult::failed(FailureKind::Handler, text)
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

/// An abort seen after the handler resolved replaces its result.
pub(super) fn settle(result: ToolResult, signal: &AbortSignal) -> ToolResult {
    if signal.is_aborted() && !result.is_aborted() {
        aborted(signal)
    } else {
        result
    }
}

/// Records the outcome on the invocation's span.
pub(super) fn record(span: &Span, result: ToolResult) -> ToolResult {
    let outcome = result.failure_kind().map_or("success", FailureKind::as_str);
    span.record("outcome", outcome);
    result
}
