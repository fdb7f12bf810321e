//! The race of a call's async work against the caller's signal and the deadline.

use std::any::Any;
use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use super::outcome::{aborted, panicked, timed_out};
use crate::abort::{AbortController, AbortSignal, deadline_reason};
use crate::handler::BoxFuture;
use crate::result::ToolResult;

/// A call's time budget, and the controller of the handler's signal, fired when it ends.
pub(super) struct Deadline {
    pub(super) at: Instant,
    pub(super) timeout: Duration,
    pub(super) controller: AbortController,
}

/// Who won the race.
enum Winner {
    Work(ToolResult),
    Panicked(Box<dyn Any + Send>),
    Aborted,
    TimedOut,
}

/// Polls `work` until it resolves, the caller's signal fires, or the deadline passes. An
/// abort is checked first, so it wins a tie. The work's future is dropped before this
/// returns, whoever won.
pub(super) async fn race(
    tool: &str,
    work: BoxFuture,
    signal: &AbortSignal,
    deadline: Option<(Deadline, Sleep)>,
) -> ToolResult {
    let (deadline, sleep) = deadline.unzip();
    match (poll_race(work, signal, sleep).await, deadline) {
        (Winner::Work(result), _) => result,
        (Winner::Panicked(payload), _) => panicked(tool, &*payload),
        (Winner::TimedOut, Some(Deadline { timeout, controller, .. })) => {
            controller.abort_with(deadline_reason(timeout));
            timed_out(tool, timeout)
        }
        (Winner::Aborted | Winner::TimedOut, _) => aborted(signal),
    }
}

async fn poll_race(work: BoxFuture, signal: &AbortSignal, sleep: Option<Sleep>) -> Winner {
    let watch = signal.can_fire();
    let mut aborted = pin!(signal.aborted());
    let mut sleep = pin!(sleep);
    let mut work = pin!(catching(work));
    poll_fn(|cx| {
        if watch && aborted.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Winner::Aborted);
        }
        match work.as_mut().poll(cx) {
            Poll::Ready(Ok(result)) => return Poll::Ready(Winner::Work(result)),
            Poll::Ready(Err(payload)) => return Poll::Ready(Winner::Panicked(payload)),
            Poll::Pending => {}
        }
        let expired = sleep.as_mut().as_pin_mut().is_some_and(|s| s.poll(cx).is_ready());
        if expired { Poll::Ready(Winner::TimedOut) } else { Poll::Pending }
    })
    .await
}

/// Runs `future`, turning a panic in any of its polls into `Err` with the panic's payload.
pub(super) async fn catching<F: Future>(future: F) -> Result<F::Output, Box<dyn Any + Send>> {
    let mut future = pin!(future);
    poll_fn(|cx| match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
        Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
        Ok(Poll::Pending) => Poll::Pending,
        Err(payload) => Poll::Ready(Err(payload)),
    })
    .await
}
