//! The first poll of a call: the checks, then the body, then the finish.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::Options;
use super::admit::admit;
use super::body::{Body, body, races};
use super::finish::{Bind, Binding, Finish, Trace};
use super::gate::Gate;
use super::outcome::{aborted, timed_out};
use super::race::{Deadline, Race};
use crate::abort::{AbortController, AbortSignal};
use crate::context::ToolContext;
use crate::record::ToolResult;
use crate::schema::drop_iteratively;
use crate::telemetry::TraceLink;
use crate::tool::Tool;

/// What the first poll produced.
pub(super) enum Started {
    /// The result, and the link of the call's span, if it is recorded and linked.
    Done(ToolResult, Option<TraceLink>),
    /// Boxed: only a call with async work gets here, and it allocates its work's future
    /// already; a sync call's future stays small.
    Running(Box<Race>),
}

/// Runs the pipeline as far as it can within one poll, inside the invocation's span. The
/// options are taken from `options` field by field.
pub(super) fn start(tool: Tool, input: Value, options: &mut Options) -> Started {
    let signal = options.signal.take().unwrap_or_default();
    let timeout = options.timeout;
    let invocation_id = options.invocation_id.unwrap_or_default();
    let trace = Trace::new(super::span::invocation(
        tool.name(),
        tool.description(),
        invocation_id,
        options.call_id.as_deref(),
    ));
    let entered = trace.span.enter();
    if let Err(result) = early_exit(&tool, &signal, timeout) {
        drop_iteratively(input);
        let link = trace.end(tool.name(), &result);
        return Started::Done(result, link);
    }
    let state = std::mem::take(&mut options.state);
    let args = match admit(&tool, input, options.limits, state.as_any()) {
        Ok(args) => args,
        Err(result) => {
            let link = trace.end(tool.name(), &result);
            return Started::Done(result, link);
        }
    };
    trace.arguments(&args);
    let approvals = options.approvals.take();
    let binding = match &approvals {
        None => Bind::Outside,
        // Only a tool that asks needs the copy of its arguments its requests are bound with.
        Some(approvals) if tool.asks_for_input() => {
            let call_id = options.call_id.clone();
            let approvals = Arc::clone(approvals);
            Bind::Bound(Box::new(Binding { approvals, args: args.clone(), call_id }))
        }
        Some(_) => Bind::Undeclared,
    };
    let gate = Gate::new(
        options.policy.take(),
        approvals,
        options.answer.as_deref(),
        options.ruling.take(),
    );
    let (handler_signal, deadline, controller) = handler_signal(&tool, &signal, timeout, &gate);
    let ctx = ToolContext {
        signal: handler_signal,
        timeout: deadline.as_ref().map(|d| d.timeout),
        deadline: deadline.as_ref().map(|d| d.at),
        answer: options.answer.take(),
        events: options.events.take(),
        state,
        invocation_id,
        call_id: options.call_id.take(),
        principal: options.principal.take(),
    };
    let debug_ctx = tool.inner().hooks.debug_steps.as_ref().map(|_| Box::new(ctx.clone()));
    let finish = Finish { tool, signal, binding, debug_ctx };
    match body(&finish.tool, args, ctx, deadline, gate) {
        Body::Done(result) => {
            let mut result = result;
            finish.run(&mut result, &trace.span);
            let link = trace.end(finish.tool.name(), &result);
            Started::Done(result, link)
        }
        Body::Race(work, timer) => {
            drop(entered);
            Started::Running(Box::new(Race::new(work, timer, controller, finish, trace)))
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

/// The handler's signal, and the controller that fires it, if any. A sync call gets the
/// caller's own signal. A call that races gets a child of it, which the race fires when the
/// call is dropped unfinished and, under a timeout, when the deadline passes; the child also
/// reads as aborted from the deadline on. A timeout too large to add to the clock is no
/// timeout.
fn handler_signal(
    tool: &Tool,
    signal: &AbortSignal,
    timeout: Option<Duration>,
    gate: &Gate,
) -> (AbortSignal, Option<Deadline>, Option<AbortController>) {
    let deadline = timeout
        .and_then(|timeout| Some(Deadline { at: Instant::now().checked_add(timeout)?, timeout }));
    let controller = match deadline {
        Some(Deadline { at, timeout }) => AbortController::with_deadline(signal, at, timeout),
        None if races(tool, gate) => AbortController::with_parent(signal),
        None => return (signal.clone(), None, None),
    };
    (controller.signal(), deadline, Some(controller))
}
