//! Authorization and the handler: run at once when both are sync, raced otherwise.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::Value;
use tokio::time::{Instant, Sleep};

use super::outcome::{denied, hook_panicked, no_timer, panicked, timed_out};
use super::race::{Deadline, catching};
use crate::context::ToolContext;
use crate::handler::{BoxFuture, Handler};
use crate::result::ToolResult;
use crate::tool::Tool;
use crate::tool::hooks::{AsyncCheck, Authorizer, SyncCheck};

/// What running the body produced.
pub(super) enum Body {
    /// The call finished within this poll.
    Done(ToolResult),
    /// The call has async work to race against the signal and the deadline.
    Race(BoxFuture, Option<(Deadline, Sleep)>),
}

/// Whether a call of `tool` has async work, and so is raced rather than run at once.
pub(super) fn races(tool: &Tool) -> bool {
    let inner = tool.inner();
    matches!(inner.handler, Handler::Async(_))
        || matches!(inner.hooks.authorize, Some(Authorizer::Async(_)))
}

/// Authorizes the call and runs the handler, or prepares the future that does. When the call
/// races, its timer is made first, so a call that cannot be timed runs nothing.
pub(super) fn body(tool: &Tool, args: Value, ctx: ToolContext, deadline: Option<Deadline>) -> Body {
    let timer = match deadline.filter(|_| races(tool)) {
        Some(deadline) => match timer(tool, deadline.at) {
            Ok(sleep) => Some((deadline, sleep)),
            Err(result) => return Body::Done(result),
        },
        None => None,
    };
    let inner = tool.inner();
    let async_check = match &inner.hooks.authorize {
        None => None,
        Some(Authorizer::Sync(check)) => {
            if let Err(result) = authorize_now(tool, check.as_ref(), &args, &ctx) {
                return Body::Done(result);
            }
            None
        }
        Some(Authorizer::Async(check)) => Some(Arc::clone(check)),
    };
    let work = match (&inner.handler, async_check) {
        (Handler::Sync(handler), None) => {
            let result = catch_unwind(AssertUnwindSafe(|| handler(args, ctx)));
            let result = result.unwrap_or_else(|payload| panicked(tool.name(), &*payload));
            return Body::Done(overran(tool, result, deadline.as_ref()));
        }
        (Handler::Async(handler), None) => {
            match catch_unwind(AssertUnwindSafe(|| handler(args, ctx))) {
                Ok(future) => future,
                Err(payload) => return Body::Done(panicked(tool.name(), &*payload)),
            }
        }
        (handler, Some(check)) => {
            authorize_then_run(tool.clone(), check, handler.clone(), args, ctx)
        }
    };
    Body::Race(work, timer)
}

/// Runs a sync authorizer; a panic fails the call.
fn authorize_now(
    tool: &Tool,
    check: &SyncCheck,
    args: &Value,
    ctx: &ToolContext,
) -> Result<(), ToolResult> {
    match catch_unwind(AssertUnwindSafe(|| check(args, ctx))) {
        Ok(verdict) => verdict.map_err(|why| denied(tool.name(), &why)),
        Err(payload) => Err(hook_panicked(tool.name(), "authorizer", &*payload)),
    }
}

/// The future of an async authorizer followed, if it allows the call, by the handler.
fn authorize_then_run(
    tool: Tool,
    check: Arc<AsyncCheck>,
    handler: Handler,
    args: Value,
    ctx: ToolContext,
) -> BoxFuture {
    Box::pin(async move {
        let verdict = match catch_unwind(AssertUnwindSafe(|| check(args.clone(), ctx.clone()))) {
            Ok(verdict) => catching(verdict).await,
            Err(payload) => Err(payload),
        };
        match verdict {
            Ok(Ok(())) => {}
            Ok(Err(why)) => return denied(tool.name(), &why),
            Err(payload) => return hook_panicked(tool.name(), "authorizer", &*payload),
        }
        match handler {
            Handler::Sync(handler) => handler(args, ctx),
            Handler::Async(handler) => handler(args, ctx).await,
        }
    })
}

/// A sync handler's result, unless it arrived past the deadline.
fn overran(tool: &Tool, result: ToolResult, deadline: Option<&Deadline>) -> ToolResult {
    match deadline {
        Some(d) if Instant::now() >= d.at => timed_out(tool.name(), d.timeout),
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
