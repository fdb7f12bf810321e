//! The race of an async handler against the caller's signal and the deadline.

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use tokio::time::{Instant, Sleep};
use tracing::{Instrument, Span};

use super::outcome::{aborted, panicked, record, settle, timed_out};
use crate::abort::{AbortController, AbortSignal, deadline_reason};
use crate::handler::BoxFuture;
use crate::result::ToolResult;
use crate::tool::Tool;

/// A call's time budget, and the controller of the handler's signal, fired when it ends.
pub(super) struct Deadline {
    pub(super) at: Instant,
    pub(super) timeout: Duration,
    pub(super) controller: AbortController,
}

/// Who won the race.
enum Winner {
    Handler(ToolResult),
    Panicked(Box<dyn std::any::Any + Send>),
    Aborted,
    TimedOut,
}

/// Polls the handler until it resolves, the caller's signal fires, or the deadline passes.
/// An abort is checked first, so it wins a tie, and the signal is checked once more at the
/// end. The handler's future is dropped before this returns, whoever won.
pub(super) async fn race(
    tool: Tool,
    handler: BoxFuture,
    signal: AbortSignal,
    deadline: Option<(Deadline, Sleep)>,
) -> ToolResult {
    let (deadline, sleep) = deadline.unzip();
    let winner = poll_race(handler, &signal, sleep).await;
    let result = match (winner, deadline) {
        (Winner::Handler(result), _) => result,
        (Winner::Panicked(payload), _) => panicked(tool.name(), &*payload),
        (
            Winner::TimedOut,
            Some(Deadline {
                timeout,
                controller,
                ..
            }),
        ) => {
            controller.abort_with(deadline_reason(timeout));
            timed_out(tool.name(), timeout)
        }
        (Winner::Aborted | Winner::TimedOut, _) => aborted(&signal),
    };
    settle(result, &signal)
}

async fn poll_race(mut handler: BoxFuture, signal: &AbortSignal, sleep: Option<Sleep>) -> Winner {
    let watch = signal.can_fire();
    let mut aborted = pin!(signal.aborted());
    let mut sleep = pin!(sleep);
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

/// Boxes the race once, recording its outcome on the invocation's span when tracing is on.
pub(super) fn boxed(
    race: impl Future<Output = ToolResult> + Send + 'static,
    span: Span,
) -> BoxFuture {
    if span.is_disabled() {
        return Box::pin(race);
    }
    let recorder = span.clone();
    Box::pin(async move { record(&recorder, race.await) }.instrument(span))
}
