//! The first poll of a call: the checks before the handler, then the handler itself.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::{Instant, Sleep};

use super::Options;
use super::outcome::{aborted, invalid_input, no_timer, panicked, record, settle, timed_out};
use super::race::{Deadline, boxed, race};
use crate::abort::{AbortController, AbortSignal};
use crate::context::ToolContext;
use crate::handler::{BoxFuture, Handler};
use crate::result::ToolResult;
use crate::schema::{check_limits, drop_iteratively};
use crate::tool::Tool;

/// What the first poll produced.
pub(super) enum Started {
    Done(ToolResult),
    Running(BoxFuture),
}

/// A call that passed every check and is ready for its handler.
struct Ready {
    args: Value,
    ctx: ToolContext,
    deadline: Option<Deadline>,
}

/// Runs the pipeline up to the handler, and a sync handler to completion, inside the
/// invocation's span, which records the outcome.
pub(super) fn start(tool: Tool, input: Value, options: Options) -> Started {
    let Options {
        signal,
        events,
        timeout,
        answer,
    } = options;
    let signal = signal.unwrap_or_default();
    let ctx = ToolContext::new().with_answer(answer).with_events(events);
    let span = tracing::debug_span!(
        "toolwire.execute",
        tool = tool.name(),
        invocation_id = %ctx.invocation_id(),
        outcome = tracing::field::Empty,
    );
    let entered = span.enter();
    let ready = match check(&tool, input, ctx, &signal, timeout) {
        Ok(ready) => ready,
        Err(result) => return Started::Done(record(&span, result)),
    };
    let Ready {
        args,
        ctx,
        deadline,
    } = ready;
    let future = match &tool.inner().handler {
        Handler::Sync(handler) => {
            let result = catch_unwind(AssertUnwindSafe(|| handler(args, ctx)));
            let result = result.unwrap_or_else(|payload| panicked(tool.name(), &*payload));
            return Started::Done(record(&span, finish_sync(&tool, result, &signal, deadline)));
        }
        Handler::Async(handler) => {
            let sleep = match deadline.as_ref().map(|d| timer(&tool, d.at)).transpose() {
                Ok(sleep) => sleep,
                Err(result) => return Started::Done(record(&span, result)),
            };
            match catch_unwind(AssertUnwindSafe(|| handler(args, ctx))) {
                Ok(future) => race(tool, future, signal, deadline.zip(sleep)),
                Err(payload) => {
                    let result = settle(panicked(tool.name(), &*payload), &signal);
                    return Started::Done(record(&span, result));
                }
            }
        }
    };
    drop(entered);
    Started::Running(boxed(future, span))
}

/// The checks before the handler, in order: the signal, the deadline, the size and depth
/// limits, the schema. Builds the handler's context on success.
fn check(
    tool: &Tool,
    input: Value,
    ctx: ToolContext,
    signal: &AbortSignal,
    timeout: Option<Duration>,
) -> Result<Ready, ToolResult> {
    if signal.is_aborted() {
        drop_iteratively(input);
        return Err(aborted(signal));
    }
    if let Some(timeout) = timeout.filter(|t| t.is_zero()) {
        drop_iteratively(input);
        return Err(timed_out(tool.name(), timeout));
    }
    let args = if input.is_null() {
        Value::Object(Map::new())
    } else {
        input
    };
    let inner = tool.inner();
    if let Err(why) = check_limits(&args, inner.limits) {
        drop_iteratively(args);
        return Err(invalid_input(tool.name(), &why));
    }
    if let Err(why) = inner.validator.validate(&args) {
        return Err(invalid_input(tool.name(), &why));
    }
    // A timeout too large to add to the clock is no timeout.
    let deadline = timeout.and_then(|t| Some((Instant::now().checked_add(t)?, t)));
    let Some((at, timeout)) = deadline else {
        return Ok(Ready {
            args,
            ctx: ctx.with_signal(signal.clone()),
            deadline: None,
        });
    };
    let controller = AbortController::with_deadline(signal, at, timeout);
    let ctx = ctx
        .with_signal(controller.signal())
        .with_deadline(timeout, at);
    Ok(Ready {
        args,
        ctx,
        deadline: Some(Deadline {
            at,
            timeout,
            controller,
        }),
    })
}

/// A sync handler's result, unless the signal fired or the deadline passed meanwhile.
fn finish_sync(
    tool: &Tool,
    result: ToolResult,
    signal: &AbortSignal,
    deadline: Option<Deadline>,
) -> ToolResult {
    let result = settle(result, signal);
    match deadline {
        Some(d) if !result.is_aborted() && Instant::now() >= d.at => {
            timed_out(tool.name(), d.timeout)
        }
        _ => result,
    }
}

/// The timer that enforces a deadline; it needs a Tokio runtime with its time driver.
fn timer(tool: &Tool, at: Instant) -> Result<Sleep, ToolResult> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(no_timer(tool.name()));
    }
    // Tokio panics when the runtime's time driver is off; that is a setup problem, reported
    // as a failed result like any other.
    catch_unwind(|| tokio::time::sleep_until(at)).map_err(|_| no_timer(tool.name()))
}
