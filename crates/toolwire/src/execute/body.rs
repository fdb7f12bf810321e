//! The policy step, authorization and the handler: run at once when all are sync, raced
//! otherwise.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;
use tokio::time::{Instant, Sleep};

use super::gate::Gate;
use super::outcome::{denied, hook_panicked, no_timer, panicked, timed_out};
use super::race::{Deadline, catching};
use crate::context::ToolContext;
use crate::handler::{BoxFuture, Handler};
use crate::policy::{Decision, PolicyFn, Ruling};
use crate::record::ToolResult;
use crate::tool::Tool;
use crate::tool::hooks::{Authorizer, SyncCheck};

/// What running the body produced.
pub(super) enum Body {
    /// The call finished within this poll.
    Done(ToolResult),
    /// The call has async work to race against the signal and the deadline.
    Race(BoxFuture, Option<(Deadline, Sleep)>),
}

/// Whether a call of `tool` has async work, and so is raced rather than run at once.
pub(super) fn races(tool: &Tool, gate: &Gate) -> bool {
    let inner = tool.inner();
    matches!(inner.handler, Handler::Async(_))
        || matches!(inner.hooks.authorize, Some(Authorizer::Async(_)))
        || gate.is_async()
}

/// Runs the policy step and authorization and the handler, or prepares the future that does.
/// When the call races, its timer is made first, so a call that cannot be timed runs nothing.
pub(super) fn body(
    tool: &Tool,
    args: Value,
    mut ctx: ToolContext,
    deadline: Option<Deadline>,
    gate: Gate,
) -> Body {
    let timer = match deadline.filter(|_| races(tool, &gate)) {
        Some(deadline) => match timer(tool, deadline.at) {
            Ok(sleep) => Some((deadline, sleep)),
            Err(result) => return Body::Done(result),
        },
        None => None,
    };
    if gate.is_async() {
        return Body::Race(gated(tool.clone(), gate, args, ctx), timer);
    }
    if gate.applies(tool, &ctx) {
        let settled = gate.decide_now(tool, &args, &ctx).and_then(|decision| {
            in_time(tool, deadline.as_ref())?;
            match gate.settle(tool, &args, &mut ctx, decision)? {
                Some(approval) => gate.spend_now(tool, &approval),
                None => Ok(()),
            }
        });
        if let Err(result) = settled {
            return Body::Done(result);
        }
    }
    let inner = tool.inner();
    if let Some(Authorizer::Sync(check)) = &inner.hooks.authorize
        && let Err(result) = authorize_now(tool, check.as_ref(), &args, &ctx)
    {
        return Body::Done(result);
    }
    let work = match (&inner.hooks.authorize, &inner.handler) {
        (Some(Authorizer::Async(_)), _) => authorized_run(tool.clone(), args, ctx),
        (_, Handler::Sync(handler)) => {
            let result = catch_unwind(AssertUnwindSafe(|| handler(args, ctx)));
            let result = result.unwrap_or_else(|payload| panicked(tool.name(), payload));
            return Body::Done(overran(tool, result, deadline.as_ref()));
        }
        (_, Handler::Async(handler)) => match catch_unwind(AssertUnwindSafe(|| handler(args, ctx)))
        {
            Ok(future) => future,
            Err(payload) => return Body::Done(panicked(tool.name(), payload)),
        },
    };
    Body::Race(work, timer)
}

/// Runs a sync authorizer; a denial or a panic fails the call.
fn authorize_now(
    tool: &Tool,
    check: &SyncCheck,
    args: &Value,
    ctx: &ToolContext,
) -> Result<(), ToolResult> {
    match catch_unwind(AssertUnwindSafe(|| check(args, ctx))) {
        Ok(verdict) => verdict.map_err(|why| denied(tool.name(), &why)),
        Err(payload) => Err(hook_panicked(tool.name(), "authorizer", payload)),
    }
}

/// The future of a call whose registry policy is async: the policy step, then the rest.
fn gated(tool: Tool, gate: Gate, args: Value, mut ctx: ToolContext) -> BoxFuture {
    Box::pin(async move {
        let own = match gate.decide_now(&tool, &args, &ctx) {
            Ok(ruling) => ruling,
            Err(result) => return result,
        };
        let registry = match &gate.policy {
            Some(PolicyFn::Async(policy)) => {
                let asked = catch_unwind(AssertUnwindSafe(|| {
                    policy(tool.clone(), args.clone(), ctx.clone())
                }));
                match asked {
                    Ok(future) => catching(future).await,
                    Err(payload) => Err(payload),
                }
            }
            _ => Ok(Ruling::from(Decision::Allow)),
        };
        let decision = match registry {
            Ok(ruling) => own.and(ruling),
            Err(payload) => return hook_panicked(tool.name(), "policy", payload),
        };
        let deadline = ctx.deadline.zip(ctx.timeout).map(|(at, timeout)| Deadline { at, timeout });
        if let Err(result) = in_time(&tool, deadline.as_ref()) {
            return result;
        }
        match gate.settle(&tool, &args, &mut ctx, decision) {
            Ok(Some(approval)) => {
                if let Err(result) = gate.spend(&tool, approval).await {
                    return result;
                }
            }
            Ok(None) => {}
            Err(result) => return result,
        }
        if let Some(Authorizer::Sync(check)) = &tool.inner().hooks.authorize
            && let Err(result) = authorize_now(&tool, check.as_ref(), &args, &ctx)
        {
            return result;
        }
        authorize_and_run(&tool, args, ctx).await
    })
}

/// The future of an async authorizer, if the tool has one, followed by the handler.
fn authorized_run(tool: Tool, args: Value, ctx: ToolContext) -> BoxFuture {
    Box::pin(async move { authorize_and_run(&tool, args, ctx).await })
}

/// The tool's async authorizer, if it has one, then the handler.
async fn authorize_and_run(tool: &Tool, args: Value, ctx: ToolContext) -> ToolResult {
    if let Some(Authorizer::Async(check)) = &tool.inner().hooks.authorize {
        let verdict = match catch_unwind(AssertUnwindSafe(|| check(args.clone(), ctx.clone()))) {
            Ok(verdict) => catching(verdict).await,
            Err(payload) => Err(payload),
        };
        match verdict {
            Ok(Ok(())) => {}
            Ok(Err(why)) => return denied(tool.name(), &why),
            Err(payload) => return hook_panicked(tool.name(), "authorizer", payload),
        }
    }
    run(tool, args, ctx).await
}

/// Runs the handler inside a raced future.
async fn run(tool: &Tool, args: Value, ctx: ToolContext) -> ToolResult {
    match &tool.inner().handler {
        Handler::Sync(handler) => handler(args, ctx),
        Handler::Async(handler) => handler(args, ctx).await,
    }
}

/// Fails a call whose policy step used up its time budget, so its handler never starts.
fn in_time(tool: &Tool, deadline: Option<&Deadline>) -> Result<(), ToolResult> {
    match deadline {
        Some(d) if Instant::now() >= d.at => Err(timed_out(tool.name(), d.timeout)),
        _ => Ok(()),
    }
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
