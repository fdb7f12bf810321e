//! After the body: the last signal check, the output parser, the debug steps, and the
//! outcome on the invocation's span.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use tracing::Span;

use super::outcome::{hook_panicked, invalid_output, settle};
use crate::abort::AbortSignal;
use crate::context::ToolContext;
use crate::policy::{Approvals, Purpose, call_digest};
use crate::record::{CallId, FailureKind, Receipt, Request, ToolResult};
use crate::telemetry::{self, TraceLink};
use crate::tool::Tool;

/// The invocation's span, and when it started while it is recorded.
pub(super) struct Trace {
    pub(super) span: Span,
    started: Option<Instant>,
}

impl Trace {
    pub(super) fn new(span: Span) -> Self {
        let started = (!span.is_disabled()).then(Instant::now);
        Self { span, started }
    }

    /// Records the arguments on the span, when content is recorded.
    pub(super) fn arguments(&self, args: &serde_json::Value) {
        if self.started.is_some() && telemetry::content_on() {
            self.span.record("gen_ai.tool.call.arguments", telemetry::clipped(args));
        }
    }

    /// Records the outcome on the span (its duration is the span's own), reports the
    /// duration metric, and gives the span's link for the receipt. A span that is not
    /// recorded costs nothing here.
    pub(super) fn end(&self, tool: &str, result: &ToolResult) -> Option<TraceLink> {
        let started = self.started?;
        let error = super::span::record_outcome(&self.span, result);
        if telemetry::content_on() {
            self.span.record("gen_ai.tool.call.result", telemetry::clipped(result.json()));
        }
        telemetry::tool_duration(tool, error, started.elapsed());
        telemetry::link_of(&self.span)
    }
}

pub(super) struct Finish {
    pub(super) tool: Tool,
    pub(super) signal: AbortSignal,
    /// What becomes of the handler's own requests.
    pub(super) binding: Bind,
    /// A copy of the handler's context, kept only when the tool has debug steps, and boxed,
    /// so the common call stays small.
    pub(super) debug_ctx: Option<Box<ToolContext>>,
}

impl Finish {
    /// Runs the steps after the body on `result`, in place, `span` being the invocation's:
    /// in the common call, with no hooks and no output schema, the result is not moved at all.
    pub(super) fn run(&self, result: &mut ToolResult, span: &Span) {
        settle(result, &self.signal);
        self.binding.apply(&self.tool, result);
        parse_output(&self.tool, result);
        check_output(&self.tool, result);
        check_parts(&self.tool, result);
        self.debug_steps(result, span);
    }

    fn debug_steps(&self, result: &ToolResult, span: &Span) {
        let (Some(hook), Some(ctx)) = (&self.tool.inner().hooks.debug_steps, &self.debug_ctx)
        else {
            return;
        };
        let steps = tracing::debug_span!(parent: span, "toolwire.debug_steps");
        let _entered = steps.enter();
        // The hook only observes; a panic in it must not change the call's result.
        if catch_unwind(AssertUnwindSafe(|| hook(result, ctx))).is_err() {
            tracing::warn!(tool = self.tool.name(), "the debug_steps hook panicked");
        }
    }
}

/// What becomes of a handler's own request.
pub(super) enum Bind {
    /// A call outside a registry: the request is returned as it is.
    Outside,
    /// A registry's call of a tool that declared it asks: the request is bound to the call.
    Bound(Box<Binding>),
    /// A registry's call of a tool that did not declare it: a request fails the call, since
    /// nothing was kept to bind it with.
    Undeclared,
}

impl Bind {
    fn apply(&self, tool: &Tool, result: &mut ToolResult) {
        match self {
            Self::Outside => {}
            Self::Bound(binding) => binding.bind(tool, result),
            Self::Undeclared => refuse_undeclared(tool, result),
        }
    }
}

/// Whether `request` is an approval the policy step bound already: it needs no binding.
fn bound_approval(request: &Request) -> bool {
    Purpose::of(&request.id) == Some(Purpose::Approval) && request.digest.is_some()
}

/// Fails a call whose handler asked for input without declaring it.
fn refuse_undeclared(tool: &Tool, result: &mut ToolResult) {
    let Some(request) = result.pending_request() else { return };
    if bound_approval(request) {
        return;
    }
    let text = format!(
        "tool {:?} asked for input ({:?}) but does not declare that it asks: build it with \
         `.asks_for_input(true)`, so that its requests are bound to the call that made them",
        tool.name(),
        request.prompt
    );
    *result = ToolResult::failed(FailureKind::Handler, text);
}

/// What a registry's call binds its handler's own requests with: the registry's settings,
/// and a copy of the arguments and the call id the digest is made of.
pub(super) struct Binding {
    pub(super) approvals: Arc<Approvals>,
    pub(super) args: serde_json::Value,
    pub(super) call_id: Option<CallId>,
}

impl Binding {
    /// A handler's pending `result`, bound to this call: its request gets the call's digest
    /// and a keyed id, so only an answer made for this very call reaches the handler. A
    /// pending approval of the policy step is bound already, and left alone.
    fn bind(&self, tool: &Tool, result: &mut ToolResult) {
        let Some(request) = result.pending_request() else { return };
        if bound_approval(request) {
            return;
        }
        let digest =
            call_digest(tool.name(), self.call_id.as_deref().unwrap_or_default(), &self.args);
        *result = ToolResult::pending(self.approvals.bind(request.clone(), Purpose::Input, digest));
    }
}

/// Runs `tool`'s output parser on a successful `result`, in place.
fn parse_output(tool: &Tool, result: &mut ToolResult) {
    let Some(parse) = &tool.inner().hooks.parse_output else { return };
    if !result.is_success() {
        return;
    }
    let name = tool.name();
    let taken = std::mem::replace(result, ToolResult::ok_json(serde_json::Value::Null));
    *result = match catch_unwind(AssertUnwindSafe(|| parse(taken))) {
        Ok(parsed) => parsed.unwrap_or_else(|why| invalid_output(name, &why)),
        Err(payload) => hook_panicked(name, "output parser", payload),
    };
}

/// Checks a successful `result` against `tool`'s output schema, in place.
fn check_output(tool: &Tool, result: &mut ToolResult) {
    let Some(schema) = &tool.inner().output else { return };
    if !result.is_success() {
        return;
    }
    if let Err(why) = schema.validate(result.json()) {
        let why = format!("it does not match the output schema: {why}");
        *result = invalid_output(tool.name(), &why);
    }
}

/// Checks a successful `result`'s parts against `tool`'s part limits and their declared MIME
/// types, in place, before any provider or client sees them.
fn check_parts(tool: &Tool, result: &mut ToolResult) {
    if result.parts().is_empty() {
        return;
    }
    if let Err(why) = tool.part_limits().check(result.parts()) {
        *result = invalid_output(tool.name(), &why.to_string());
    }
}

/// The output steps alone, for a result that did not come from the handler just now (one
/// replayed from a journal): the output parser, then the output schema.
pub(crate) fn check_replayed(tool: &Tool, mut result: ToolResult) -> ToolResult {
    parse_output(tool, &mut result);
    check_output(tool, &mut result);
    check_parts(tool, &mut result);
    result
}

/// A stored `receipt` of `tool` handed back again: its result through the output steps,
/// inside an `execute_tool` span marked `toolwire.replayed`. No duration is reported: the
/// tool did not run.
pub(crate) fn replay(tool: &Tool, mut receipt: Receipt) -> Receipt {
    let span = super::span::invocation(
        tool.name(),
        tool.description(),
        receipt.invocation_id,
        receipt.call_id.as_deref(),
    );
    let _entered = span.enter();
    receipt.result = check_replayed(tool, receipt.result);
    if !span.is_disabled() {
        span.record("toolwire.replayed", true);
        super::span::record_outcome(&span, &receipt.result);
    }
    receipt
}
