//! [`ExecuteFuture`]: the future of one call.

use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use serde_json::Value;

use super::Options;
use super::race::Race;
use super::start::{Started, start};
use crate::record::{FailureKind, ToolResult};
use crate::schema::drop_iteratively;
use crate::telemetry::TraceLink;
use crate::tool::Tool;

/// The future of one call, made by awaiting an [`Execution`](super::Execution). It always
/// resolves to a [`ToolResult`], never panics and never errs.
///
/// Nothing runs until it is first polled. A sync handler then runs to completion within that
/// poll, with no allocation beyond the handler's own.
///
/// # Cancel safety
///
/// Dropping the future drops the handler's future, which stops it at its next `.await`, and
/// fires the handler's signal, so tasks it spawned learn that nobody waits for them; nothing
/// else is left running. A panic raised while the handler's future is dropped is caught.
#[must_use = "futures do nothing unless polled"]
pub struct ExecuteFuture {
    state: State,
    /// The link of the call's span, once it has ended, for a registry's receipt (boxed, as
    /// the receipt keeps it: a call that is not exported carries one pointer's worth).
    link: Option<Box<TraceLink>>,
}

/// Where a call is; the states share their storage.
#[allow(
    clippy::large_enum_variant,
    reason = "the call's parts stay inline, where the caller put them; whether the lint fires \
              depends on the features the dependencies are built with, so an `expect` would \
              fail in some builds"
)]
enum State {
    /// Not polled yet. The first poll takes the parts out one by one, so nothing large moves;
    /// `tool` is taken last, and its absence marks the parts as gone.
    Ready { tool: Option<Tool>, input: Value, options: Options },
    /// Async work in flight.
    Running(Box<Race>),
    /// The result was handed out.
    Done,
}

impl ExecuteFuture {
    pub(crate) fn new(tool: Tool, input: Value, options: Options) -> Self {
        Self { state: State::Ready { tool: Some(tool), input, options }, link: None }
    }

    /// The link of the ended call's span, if it was recorded and an exporter links spans.
    pub(crate) fn take_link(&mut self) -> Option<Box<TraceLink>> {
        self.link.take()
    }

    /// Gives the call its invocation id, if it has not started yet.
    pub(crate) fn set_invocation_id(&mut self, id: crate::record::InvocationId) {
        if let State::Ready { options, .. } = &mut self.state {
            options.invocation_id = Some(id);
        }
    }
}

impl Future for ExecuteFuture {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        if let State::Ready { tool, input, options } = &mut this.state {
            let Some(tool) = tool.take() else {
                return Poll::Ready(polled_after_completion());
            };
            match start(tool, mem::take(input), options) {
                Started::Done(result, link) => {
                    this.state = State::Done;
                    this.link = link.map(Box::new);
                    return Poll::Ready(result);
                }
                Started::Running(race) => this.state = State::Running(race),
            }
        }
        let State::Running(race) = &mut this.state else {
            return Poll::Ready(polled_after_completion());
        };
        let result = ready!(Pin::new(&mut **race).poll(cx));
        this.link = race.link.take();
        this.state = State::Done;
        Poll::Ready(result)
    }
}

impl Drop for ExecuteFuture {
    fn drop(&mut self) {
        // A call dropped before its first poll still owns the caller's arguments, which may be
        // nested too deeply to drop recursively.
        if let State::Ready { tool: Some(_), input, .. } = &mut self.state {
            drop_iteratively(mem::take(input));
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
            State::Ready { tool: Some(tool), .. } => tool.name(),
            State::Ready { tool: None, .. } => "done",
            State::Running(_) => "running",
            State::Done => "done",
        };
        f.debug_struct("ExecuteFuture").field("state", &state).finish()
    }
}
