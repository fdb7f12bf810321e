//! The first poll of a call: the pre-checks, then the handler.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;
use tracing::Instrument;

use super::Options;
use super::outcome::{aborted, panicked, settle, timed_out};
use super::race::{Deadline, race};
use crate::abort::{AbortController, AbortSignal};
use crate::context::ToolContext;
use crate::handler::{BoxFuture, Handler};
use crate::result::{FailureKind, ToolResult};
use crate::schema::{check_limits, drop_iteratively};
use crate::tool::Tool;

/// What the first poll produced.
pub(super) enum Started {
    Done(ToolResult),
    Running(BoxFuture),
}

/// Runs the pipeline up to the handler, and a sync handler to completion.
pub(super) fn start(tool: Tool, input: Value, options: Options) -> Started {
    let Options {
        signal,
        events,
        timeout,
        answer,
    } = options;
    let signal = signal.unwrap_or_default();
    if signal.is_aborted() {
        return Started::Done(aborted(&signal));
    }
    let args = if input.is_null() {
        Value::Object(Map::new())
    } else {
        input
    };
    let inner = tool.inner();
    if let Err(why) = check_limits(&args, inner.limits) {
        drop_iteratively(args);
        return Started::Done(invalid_input(&inner.name, &why));
    }
    if let Err(why) = inner.validator.validate(&args) {
        return Started::Done(invalid_input(&inner.name, &why));
    }
    let ctx = ToolContext::new().with_answer(answer).with_events(events);
    let span = tracing::debug_span!(
        "toolwire.execute",
        tool = inner.name.as_str(),
        invocation_id = %ctx.invocation_id(),
        outcome = tracing::field::Empty,
    );
    match &inner.handler {
        Handler::Sync(handler) => {
            let result = span.in_scope(|| run_sync(&tool, &**handler, args, ctx, signal, timeout));
            Started::Done(record(&span, result))
        }
        Handler::Async(handler) => {
            let race = start_async(&tool, &**handler, args, ctx, signal, timeout);
            let traced = span.clone();
            Started::Running(Box::pin(
                async move { record(&traced, race.await) }.instrument(span),
            ))
        }
    }
}

type SyncFn = dyn Fn(Value, ToolContext) -> ToolResult + Send + Sync;
type AsyncFn = dyn Fn(Value, ToolContext) -> BoxFuture + Send + Sync;

/// Runs a sync handler; a result that arrives after an abort or past the deadline is
/// replaced.
fn run_sync(
    tool: &Tool,
    handler: &SyncFn,
    args: Value,
    ctx: ToolContext,
    signal: AbortSignal,
    timeout: Option<Duration>,
) -> ToolResult {
    let started = timeout.map(|timeout| (timeout, Instant::now()));
    let mut ctx = ctx.with_signal(signal.clone());
    if let Some((timeout, at)) = started {
        ctx = ctx.with_deadline(timeout, at + timeout);
    }
    let result = catch_unwind(AssertUnwindSafe(|| handler(args, ctx)))
        .unwrap_or_else(|payload| panicked(tool.name(), &*payload));
    let result = settle(result, &signal);
    match started {
        Some((timeout, at)) if result.is_success() && at.elapsed() >= timeout => {
            timed_out(tool.name(), timeout)
        }
        _ => result,
    }
}

/// Calls an async handler and wraps its future in the race.
fn start_async(
    tool: &Tool,
    handler: &AsyncFn,
    args: Value,
    ctx: ToolContext,
    signal: AbortSignal,
    timeout: Option<Duration>,
) -> BoxFuture {
    let (ctx, deadline) = match timeout {
        None => (ctx.with_signal(signal.clone()), None),
        Some(timeout) => {
            let controller = AbortController::with_parent(&signal);
            let at = Instant::now() + timeout;
            let ctx = ctx
                .with_signal(controller.signal())
                .with_deadline(timeout, at);
            (
                ctx,
                Some(Deadline {
                    timeout,
                    at,
                    controller,
                }),
            )
        }
    };
    match catch_unwind(AssertUnwindSafe(|| handler(args, ctx))) {
        Ok(future) => Box::pin(race(tool.clone(), future, signal, deadline)),
        Err(payload) => {
            let result = settle(panicked(tool.name(), &*payload), &signal);
            Box::pin(std::future::ready(result))
        }
    }
}

/// The result of a call whose arguments were rejected before the handler.
fn invalid_input(tool: &str, why: &str) -> ToolResult {
    ToolResult::failed(
        FailureKind::InvalidInput,
        format!("invalid arguments for {tool:?}: {why}"),
    )
}

/// Records the outcome on the invocation's span.
fn record(span: &tracing::Span, result: ToolResult) -> ToolResult {
    let outcome = result
        .failure_kind()
        .map_or("success", |kind| kind.as_str());
    span.record("outcome", outcome);
    result
}
