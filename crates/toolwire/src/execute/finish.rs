//! After the body: the last signal check, the output parser, the debug steps, and the
//! outcome on the invocation's span.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use tracing::Span;

use super::outcome::{hook_panicked, invalid_output, settle};
use crate::abort::AbortSignal;
use crate::context::ToolContext;
use crate::result::{FailureKind, ToolResult};
use crate::tool::Tool;

/// The invocation's span, and when it started if tracing is on.
pub(super) struct Trace {
    pub(super) span: Span,
    started: Option<Instant>,
}

impl Trace {
    pub(super) fn new(span: Span) -> Self {
        let started = (!span.is_disabled()).then(Instant::now);
        Self { span, started }
    }

    /// Records the outcome and the duration, and hands the result on.
    pub(super) fn end(&self, result: ToolResult) -> ToolResult {
        if let Some(started) = self.started {
            let outcome = result.failure_kind().map_or("success", FailureKind::as_str);
            self.span.record("outcome", outcome);
            self.span.record("duration", tracing::field::debug(started.elapsed()));
        }
        result
    }
}

/// What the steps after the body need.
pub(super) struct Finish {
    pub(super) tool: Tool,
    pub(super) signal: AbortSignal,
    /// A copy of the handler's context, kept only when the tool has debug steps.
    /// Kept only for a tool with debug steps, and boxed, so the common call stays small.
    pub(super) debug_ctx: Option<Box<ToolContext>>,
}

impl Finish {
    /// Runs the steps after the body on its result; `span` is the invocation's.
    pub(super) fn run(&self, result: ToolResult, span: &Span) -> ToolResult {
        let result = settle(result, &self.signal);
        let result = self.parse_output(result);
        let result = self.check_output(result);
        self.debug_steps(&result, span);
        result
    }

    fn parse_output(&self, result: ToolResult) -> ToolResult {
        let Some(parse) = &self.tool.inner().hooks.parse_output else { return result };
        if !result.is_success() {
            return result;
        }
        let name = self.tool.name();
        match catch_unwind(AssertUnwindSafe(|| parse(result))) {
            Ok(parsed) => parsed.unwrap_or_else(|why| invalid_output(name, &why)),
            Err(payload) => hook_panicked(name, "output parser", &*payload),
        }
    }

    /// A successful result's payload must match the tool's output schema, if it has one.
    fn check_output(&self, result: ToolResult) -> ToolResult {
        let Some(schema) = &self.tool.inner().output else { return result };
        if !result.is_success() {
            return result;
        }
        match schema.validate(result.json()) {
            Ok(()) => result,
            Err(why) => invalid_output(
                self.tool.name(),
                &format!("it does not match the output schema: {why}"),
            ),
        }
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
