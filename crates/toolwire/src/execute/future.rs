//! [`ExecuteFuture`]: the future of one call.

use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use serde_json::Value;

use super::Options;
use super::start::{Started, start};
use crate::handler::BoxFuture;
use crate::result::{FailureKind, ToolResult};
use crate::schema::drop_iteratively;
use crate::tool::Tool;

/// The future of one call, made by awaiting an [`Execution`](super::Execution). It always
/// resolves to a [`ToolResult`], never panics and never errs.
///
/// Nothing runs until it is first polled. A sync handler then runs to completion within that
/// poll, with no allocation beyond the handler's own.
///
/// Cancel safety: dropping the future drops the handler's future, which stops it at its next
/// `.await`; nothing else is left running.
#[must_use = "futures do nothing unless polled"]
pub struct ExecuteFuture {
    /// Present until the first poll, which takes it.
    tool: Option<Tool>,
    input: Value,
    options: Options,
    /// An async call in flight.
    running: Option<BoxFuture>,
}

impl ExecuteFuture {
    pub(crate) fn new(tool: Tool, input: Value, options: Options) -> Self {
        Self { tool: Some(tool), input, options, running: None }
    }
}

impl Future for ExecuteFuture {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        if this.running.is_none() {
            // The first poll takes the call's parts one by one, so nothing large is moved.
            let Some(tool) = this.tool.take() else {
                return Poll::Ready(polled_after_completion());
            };
            match start(tool, mem::take(&mut this.input), &mut this.options) {
                Started::Done(result) => return Poll::Ready(result),
                Started::Running(running) => this.running = Some(running),
            }
        }
        let Some(running) = this.running.as_mut() else {
            return Poll::Ready(polled_after_completion());
        };
        let result = ready!(running.as_mut().poll(cx));
        this.running = None;
        Poll::Ready(result)
    }
}

impl Drop for ExecuteFuture {
    fn drop(&mut self) {
        // A call dropped before its first poll still owns the caller's arguments, which may be
        // nested too deeply to drop recursively.
        if self.tool.is_some() {
            drop_iteratively(mem::take(&mut self.input));
        }
    }
}

/// What a misused future yields instead of panicking.
fn polled_after_completion() -> ToolResult {
    ToolResult::failed(FailureKind::Handler, "tool call polled after it completed")
}

impl std::fmt::Debug for ExecuteFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match (&self.tool, &self.running) {
            (Some(tool), _) => tool.name(),
            (None, Some(_)) => "running",
            (None, None) => "done",
        };
        f.debug_struct("ExecuteFuture").field("state", &state).finish()
    }
}
