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

/// A call's time budget: when it ends, and how long it was.
#[derive(Clone, Copy)]
pub(super) struct Deadline {
    pub(super) at: Instant,
    pub(super) timeout: Duration,
}

/// The reason the handler's signal carries when its call is dropped before it finished.
pub(super) const DROPPED_REASON: &str = "the call was dropped before it finished";

/// Fires the handler's signal if the call is dropped while its work is in flight, so tasks
/// the handler spawned learn that nobody waits for them any more.
struct FireOnDrop(Option<AbortController>);

impl FireOnDrop {
    fn disarm(mut self) -> Option<AbortController> {
        self.0.take()
    }
}

impl Drop for FireOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = self.0.take() {
            controller.abort_with(DROPPED_REASON);
        }
    }
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
/// returns, whoever won. `controller` fires the handler's signal when the deadline passes or
/// when this future is dropped before it finished.
pub(super) async fn race(
    tool: &str,
    work: BoxFuture,
    signal: &AbortSignal,
    deadline: Option<(Deadline, Sleep)>,
    controller: Option<AbortController>,
) -> ToolResult {
    let guard = FireOnDrop(controller);
    let (deadline, sleep) = deadline.unzip();
    let winner = poll_race(work, signal, sleep).await;
    let controller = guard.disarm();
    match (winner, deadline) {
        (Winner::Work(result), _) => result,
        (Winner::Panicked(payload), _) => panicked(tool, &*payload),
        (Winner::TimedOut, Some(Deadline { timeout, .. })) => {
            if let Some(controller) = controller {
                controller.abort_with(deadline_reason(timeout));
            }
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
