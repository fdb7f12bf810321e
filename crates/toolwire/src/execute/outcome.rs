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
    ToolResult::failed(FailureKind::TimedOut, format!("tool {tool:?} timed out after {timeout:?}"))
}

/// The result of a call whose arguments were rejected before the handler.
pub(super) fn invalid_input(tool: &str, why: &str) -> ToolResult {
    ToolResult::failed(FailureKind::InvalidInput, format!("invalid arguments for {tool:?}: {why}"))
}

/// The result of a call to a tool that is not active for the caller's state.
pub(super) fn inactive(tool: &str) -> ToolResult {
    let text = format!("tool {tool:?} is not available right now");
    ToolResult::failed(FailureKind::Inactive, text)
}

/// The result of a call the authorizer refused.
pub(super) fn denied(tool: &str, why: &str) -> ToolResult {
    ToolResult::failed(FailureKind::Denied, format!("permission denied for {tool:?}: {why}"))
}

/// The result of a successful call whose output the output parser rejected.
pub(super) fn invalid_output(tool: &str, why: &str) -> ToolResult {
    ToolResult::failed(FailureKind::InvalidOutput, format!("invalid output from {tool:?}: {why}"))
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
    let text = format!("tool {tool:?} panicked: {}", panic_message(payload));
    ToolResult::failed(FailureKind::Panic, text)
}

/// The result of a hook (`which`: "authorizer", "input parser", ..) that panicked.
pub(super) fn hook_panicked(tool: &str, which: &str, payload: &(dyn Any + Send)) -> ToolResult {
    let text = format!("the {which} of tool {tool:?} panicked: {}", panic_message(payload));
    ToolResult::failed(FailureKind::Panic, text)
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic with a non-string payload")
}

/// An abort seen after the handler resolved replaces its result.
pub(super) fn settle(result: &mut ToolResult, signal: &AbortSignal) {
    if signal.is_aborted() && !result.is_aborted() {
        *result = aborted(signal);
    }
}
