//! The race of an async handler against the caller's signal and the deadline.

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use tokio::time::Instant;

use super::outcome::{aborted, panicked, settle, timed_out, timeout_reason};
use crate::abort::{AbortController, AbortSignal};
use crate::handler::BoxFuture;
use crate::result::ToolResult;
use crate::tool::Tool;

/// A call's time budget, and the controller of the handler's signal that fires when it ends.
pub(super) struct Deadline {
    pub(super) timeout: Duration,
    pub(super) at: Instant,
    pub(super) controller: AbortController,
}

/// Who won the race.
enum Winner {
    Handler(ToolResult),
    Panicked(Box<dyn std::any::Any + Send>),
    Aborted,
    TimedOut,
}

/// Polls the handler until it resolves, the caller's signal fires, or the deadline passes;
/// an abort is checked first, so it wins a tie. The handler's future is dropped before this
/// returns, whoever won.
pub(super) async fn race(
    tool: Tool,
    handler: BoxFuture,
    signal: AbortSignal,
    deadline: Option<Deadline>,
) -> ToolResult {
    let winner = poll_race(handler, &signal, deadline.as_ref().map(|d| d.at)).await;
    match winner {
        Winner::Handler(result) => settle(result, &signal),
        Winner::Panicked(payload) => settle(panicked(tool.name(), &*payload), &signal),
        Winner::Aborted => aborted(&signal),
        Winner::TimedOut => match deadline {
            Some(Deadline {
                timeout,
                controller,
                ..
            }) => {
                controller.abort_with(timeout_reason(tool.name(), timeout));
                timed_out(tool.name(), timeout)
            }
            None => aborted(&signal), // unreachable: no deadline, no timer
        },
    }
}

fn poll_race(
    mut handler: BoxFuture,
    signal: &AbortSignal,
    deadline: Option<Instant>,
) -> impl Future<Output = Winner> + Send {
    let watch = signal.can_fire();
    let aborted = signal.aborted();
    async move {
        let mut aborted = pin!(aborted);
        let mut sleep = pin!(deadline.map(tokio::time::sleep_until));
        poll_fn(|cx| {
            if watch && aborted.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Winner::Aborted);
            }
            match catch_unwind(AssertUnwindSafe(|| handler.as_mut().poll(cx))) {
                Ok(Poll::Ready(result)) => return Poll::Ready(Winner::Handler(result)),
                Err(payload) => return Poll::Ready(Winner::Panicked(payload)),
                Ok(Poll::Pending) => {}
            }
            let expired = sleep
                .as_mut()
                .as_pin_mut()
                .is_some_and(|s| s.poll(cx).is_ready());
            if expired {
                Poll::Ready(Winner::TimedOut)
            } else {
                Poll::Pending
            }
        })
        .await
    }
}
