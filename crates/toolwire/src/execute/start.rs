//! The first poll of a call: the checks, then the body, then the finish.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use tracing::Instrument;

use super::Options;
use super::admit::admit;
use super::body::{Body, body};
use super::finish::{Finish, Trace};
use super::outcome::{aborted, timed_out};
use super::race::{Deadline, race};
use crate::abort::{AbortController, AbortSignal};
use crate::context::ToolContext;
use crate::handler::BoxFuture;
use crate::result::ToolResult;
use crate::schema::drop_iteratively;
use crate::tool::Tool;

/// What the first poll produced.
pub(super) enum Started {
    Done(ToolResult),
    Running(BoxFuture),
}

/// Runs the pipeline as far as it can within one poll, inside the invocation's span.
pub(super) fn start(tool: Tool, input: Value, options: Options) -> Started {
    let Options { signal, events, timeout, answer, state, call_id, invocation_id, limits } =
        options;
    let signal = signal.unwrap_or_default();
    let id = invocation_id.unwrap_or_default();
    let trace = Trace::new(tracing::debug_span!(
        "toolwire.invoke",
        tool = tool.name(),
        invocation_id = %id,
        call_id = call_id.as_deref(),
        outcome = tracing::field::Empty,
        duration = tracing::field::Empty,
    ));
    let entered = trace.span.enter();
    if let Err(result) = early_exit(&tool, &signal, timeout) {
        drop_iteratively(input);
        return Started::Done(trace.end(result));
    }
    let args = match admit(&tool, input, limits, state.as_any()) {
        Ok(args) => args,
        Err(result) => return Started::Done(trace.end(result)),
    };
    let ctx =
        ToolContext::for_invocation(id).with_answer(answer).with_events(events).with_state(state);
    let (ctx, deadline) = with_deadline(ctx, &signal, timeout);
    let debug_ctx = tool.inner().hooks.debug_steps.as_ref().map(|_| ctx.clone());
    let outcome = body(&tool, args, ctx, deadline);
    drop(entered);
    let finish = Finish { tool, signal, debug_ctx, trace };
    match outcome {
        Body::Done(result) => {
            let span = finish.trace.span.clone();
            Started::Done(span.in_scope(|| finish.run(result)))
        }
        Body::Race(work, deadline) => {
            let span = finish.trace.span.clone();
            let future = async move {
                let result = race(finish.tool.name(), work, &finish.signal, deadline).await;
                finish.run(result)
            };
            if span.is_disabled() {
                Started::Running(Box::pin(future))
            } else {
                Started::Running(Box::pin(future.instrument(span)))
            }
        }
    }
}

/// A signal that already fired, or a zero timeout, ends the call before anything runs.
fn early_exit(
    tool: &Tool,
    signal: &AbortSignal,
    timeout: Option<Duration>,
) -> Result<(), ToolResult> {
    if signal.is_aborted() {
        return Err(aborted(signal));
    }
    match timeout {
        Some(timeout) if timeout.is_zero() => Err(timed_out(tool.name(), timeout)),
        _ => Ok(()),
    }
}

/// The handler's signal: the caller's, or, under a timeout, a child of it that also fires
/// at the deadline. A timeout too large to add to the clock is no timeout.
fn with_deadline(
    ctx: ToolContext,
    signal: &AbortSignal,
    timeout: Option<Duration>,
) -> (ToolContext, Option<Deadline>) {
    let Some((at, timeout)) = timeout.and_then(|t| Some((Instant::now().checked_add(t)?, t)))
    else {
        return (ctx.with_signal(signal.clone()), None);
    };
    let controller = AbortController::with_deadline(signal, at, timeout);
    let ctx = ctx.with_signal(controller.signal()).with_deadline(timeout, at);
    (ctx, Some(Deadline { at, timeout, controller }))
}
