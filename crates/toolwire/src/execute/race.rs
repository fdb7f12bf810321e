//! The race of a call's async work against the caller's signal and the deadline.
//!
//! [`Race`] is boxed once, when a call turns out to have async work (which allocates its own
//! future anyway), so that the future of a sync call, the common case, stays small and cheap
//! to move. Inside it, only what is rare is boxed again: the waiter on a caller's signal and
//! the timer of a deadline.

use std::any::Any;
use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use super::finish::{Finish, Trace};
use super::outcome::{aborted, drop_quietly, panicked, timed_out};
use crate::abort::{AbortController, deadline_reason};
use crate::handler::BoxFuture;
use crate::record::ToolResult;
use crate::telemetry::TraceLink;

/// A call's time budget: when it ends, and how long it was.
#[derive(Clone, Copy)]
pub(super) struct Deadline {
    pub(super) at: Instant,
    pub(super) timeout: Duration,
}

/// The reason the handler's signal carries when its call is dropped before it finished.
pub(super) const DROPPED_REASON: &str = "the call was dropped before it finished";

/// A boxed wait for the caller's signal to fire.
type Waiter = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Who won the race.
enum Winner {
    Work(ToolResult),
    Panicked(Box<dyn Any + Send>),
    Aborted,
    TimedOut,
}

/// A call whose async work is in flight, and everything that runs after it.
///
/// Each poll checks the caller's signal first, so an abort wins a tie; then the work; then
/// the deadline. The work's future is dropped as soon as anyone wins. `controller` fires the
/// handler's signal when the deadline passes, and when the race is dropped unfinished, so
/// tasks the handler spawned learn that nobody waits for them any more.
pub(super) struct Race {
    contest: Contest,
    controller: Option<AbortController>,
    finish: Finish,
    trace: Trace,
    /// The link of the call's span, once it has ended.
    pub(super) link: Option<Box<TraceLink>>,
}

/// The three contestants.
struct Contest {
    work: Option<BoxFuture>,
    waiter: Option<Waiter>,
    /// The timeout, and the timer that fires when it has passed.
    timer: Option<(Duration, Pin<Box<Sleep>>)>,
}

impl Race {
    pub(super) fn new(
        work: BoxFuture,
        timer: Option<(Deadline, Sleep)>,
        controller: Option<AbortController>,
        finish: Finish,
        trace: Trace,
    ) -> Self {
        let waiter = finish.signal.can_fire().then(|| Box::pin(finish.signal.aborted()) as Waiter);
        let timer = timer.map(|(deadline, sleep)| (deadline.timeout, Box::pin(sleep)));
        let contest = Contest { work: Some(work), waiter, timer };
        Self { contest, controller, finish, trace, link: None }
    }
}

impl Contest {
    fn poll_winner(&mut self, cx: &mut Context<'_>) -> Poll<Winner> {
        if self.waiter.as_mut().is_some_and(|waiter| waiter.as_mut().poll(cx).is_ready()) {
            return Poll::Ready(Winner::Aborted);
        }
        if let Some(work) = self.work.as_mut() {
            match catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(cx))) {
                Ok(Poll::Ready(result)) => return Poll::Ready(Winner::Work(result)),
                Err(payload) => return Poll::Ready(Winner::Panicked(payload)),
                Ok(Poll::Pending) => {}
            }
        }
        let expired =
            self.timer.as_mut().is_some_and(|(_, sleep)| sleep.as_mut().poll(cx).is_ready());
        if expired { Poll::Ready(Winner::TimedOut) } else { Poll::Pending }
    }
}

/// The call's result once `winner` is known; the work is dropped first.
fn settle(
    contest: &mut Contest,
    controller: Option<AbortController>,
    finish: &Finish,
    winner: Winner,
) -> ToolResult {
    // The handler's future may panic as it is dropped; that must not reach the caller.
    drop_quietly(contest.work.take());
    contest.waiter = None;
    let tool = finish.tool.name();
    match (winner, contest.timer.take()) {
        // An async handler that blocked its thread past the deadline timed out all the same.
        (Winner::Work(_), Some((timeout, sleep))) if Instant::now() >= sleep.deadline() => {
            if let Some(controller) = controller {
                controller.abort_with(deadline_reason(timeout));
            }
            timed_out(tool, timeout)
        }
        (Winner::Work(result), _) => result,
        (Winner::Panicked(payload), _) => panicked(tool, payload),
        (Winner::TimedOut, Some((timeout, _))) => {
            if let Some(controller) = controller {
                controller.abort_with(deadline_reason(timeout));
            }
            timed_out(tool, timeout)
        }
        (Winner::Aborted | Winner::TimedOut, _) => aborted(&finish.signal),
    }
}

impl Future for Race {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let Race { contest, controller, finish, trace, link } = self.get_mut();
        let _entered = (!trace.span.is_disabled()).then(|| trace.span.enter());
        let winner = match contest.poll_winner(cx) {
            Poll::Ready(winner) => winner,
            Poll::Pending => return Poll::Pending,
        };
        let mut result = settle(contest, controller.take(), finish, winner);
        finish.run(&mut result, &trace.span);
        *link = trace.end(finish.tool.name(), &result).map(Box::new);
        Poll::Ready(result)
    }
}

impl Drop for Race {
    fn drop(&mut self) {
        // Dropped with its work in flight: nobody will read this call's result.
        let Some(work) = self.contest.work.take() else { return };
        if let Some(controller) = self.controller.take() {
            controller.abort_with(DROPPED_REASON);
        }
        drop_quietly(work);
    }
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
