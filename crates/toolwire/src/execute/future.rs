//! [`ExecuteFuture`]: the future of one call.

use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::task::{Context, Poll};

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
    state: State,
}

enum State {
    /// Not yet polled.
    Start(Tool, Value, Options),
    /// An async handler, raced against the signal and the deadline.
    Running(BoxFuture),
    /// The result was handed out.
    Done,
}

impl ExecuteFuture {
    pub(crate) fn new(tool: Tool, input: Value, options: Options) -> Self {
        Self { state: State::Start(tool, input, options) }
    }
}

impl Future for ExecuteFuture {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        let mut running = match mem::replace(&mut this.state, State::Done) {
            State::Start(tool, input, options) => match start(tool, input, options) {
                Started::Done(result) => return Poll::Ready(result),
                Started::Running(running) => running,
            },
            State::Running(running) => running,
            State::Done => return Poll::Ready(polled_after_completion()),
        };
        match running.as_mut().poll(cx) {
            Poll::Ready(result) => Poll::Ready(result),
            Poll::Pending => {
                this.state = State::Running(running);
                Poll::Pending
            }
        }
    }
}

impl Drop for ExecuteFuture {
    fn drop(&mut self) {
        // A call dropped before its first poll still owns the caller's arguments, which may be
        // nested too deeply to drop recursively.
        if let State::Start(_, input, _) = mem::replace(&mut self.state, State::Done) {
            drop_iteratively(input);
        }
    }
}

/// What a misused future yields instead of panicking.
fn polled_after_completion() -> ToolResult {
    ToolResult::failed(FailureKind::Handler, "tool call polled after it completed")
}

impl std::fmt::Debug for ExecuteFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            State::Start(tool, ..) => format!("not started: {}", tool.name()),
            State::Running(_) => "running".to_owned(),
            State::Done => "done".to_owned(),
        };
        f.debug_struct("ExecuteFuture").field("state", &state).finish()
    }
}
