//! The failed results the pipeline itself produces.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use crate::abort::AbortSignal;
use crate::record::{FailureKind, ToolResult, clip};

/// The result of a call whose signal fired: its reason, or `"Aborted"`.
pub(super) fn aborted(signal: &AbortSignal) -> ToolResult {
    ToolResult::failed(FailureKind::Aborted, signal.reason_or_default())
}

/// The result of a call whose deadline passed.
pub(super) fn timed_out(tool: &str, timeout: Duration) -> ToolResult {
    ToolResult::failed(FailureKind::TimedOut, format!("tool {tool:?} timed out after {timeout:?}"))
}

/// The longest part of a failure text built from outside input: a validation report, a
/// denial's reason, a panic message.
const MAX_PART: usize = 8 * 1024;

/// The result of a call whose arguments were rejected before the handler.
pub(super) fn invalid_input(tool: &str, why: &str) -> ToolResult {
    let why = clip(why, MAX_PART);
    ToolResult::failed(FailureKind::InvalidInput, format!("invalid arguments for {tool:?}: {why}"))
}

/// The result of a call to a tool that is not active for the caller's state.
pub(super) fn inactive(tool: &str) -> ToolResult {
    let text = format!("tool {tool:?} is not available right now");
    ToolResult::failed(FailureKind::Inactive, text)
}

/// The result of a call the authorizer refused.
pub(super) fn denied(tool: &str, why: &str) -> ToolResult {
    let why = clip(why, MAX_PART);
    ToolResult::failed(FailureKind::Denied, format!("permission denied for {tool:?}: {why}"))
}

/// The result of a successful call whose output the output parser rejected.
pub(super) fn invalid_output(tool: &str, why: &str) -> ToolResult {
    let why = clip(why, MAX_PART);
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

/// The result of a handler that panicked, carrying the panic message. The payload is dropped
/// here, safely: see [`drop_quietly`].
pub(super) fn panicked(tool: &str, payload: Box<dyn Any + Send>) -> ToolResult {
    let text = format!("tool {tool:?} panicked: {}", panic_message(&*payload));
    drop_quietly(payload);
    ToolResult::failed(FailureKind::Panic, text)
}

/// The result of a hook (`which`: "authorizer", "input parser", ..) that panicked.
pub(super) fn hook_panicked(tool: &str, which: &str, payload: Box<dyn Any + Send>) -> ToolResult {
    let text = format!("the {which} of tool {tool:?} panicked: {}", panic_message(&*payload));
    drop_quietly(payload);
    ToolResult::failed(FailureKind::Panic, text)
}

/// Drops `value` inside `catch_unwind`, so a `Drop` that panics (a handler's future, or a
/// panic payload whose own `Drop` panics) never reaches the caller. The payload of such a
/// second panic is leaked rather than dropped, since its `Drop` may panic again.
pub(crate) fn drop_quietly<T>(value: T) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(value))) {
        std::mem::forget(payload);
        tracing::warn!("a value dropped by toolwire panicked while being dropped");
    }
}

/// The panic's message, cut short when long.
fn panic_message(payload: &(dyn Any + Send)) -> std::borrow::Cow<'_, str> {
    clip(raw_panic_message(payload), MAX_PART)
}

fn raw_panic_message(payload: &(dyn Any + Send)) -> &str {
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
