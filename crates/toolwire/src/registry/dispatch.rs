//! [`Dispatch`]: many calls at once, under a concurrency limit, receipts in call order.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::mem;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::task::JoinSet;
use tracing::Instrument;

use super::invoke::Label;
use super::{InvokeFuture, Receipt, Registry, ToolCall};
use crate::abort::AbortSignal;
use crate::execute::Options;
use crate::id::InvocationId;
use crate::result::{FailureKind, ToolResult};

/// The default number of calls a dispatch runs at once.
pub const DEFAULT_DISPATCH_LIMIT: usize = 64;

/// Many prepared calls; made by [`Registry::dispatch`], run by `.await`.
///
/// The calls run concurrently, at most [`limit`](Self::limit) at a time, each as its own
/// Tokio task, so a slow, failing, panicking or hanging call never holds up the others.
/// Receipts come back in call order. Outside a Tokio runtime the calls run one after the
/// other instead.
#[must_use = "a dispatch does nothing until it is awaited"]
pub struct Dispatch {
    registry: Registry,
    calls: Vec<ToolCall>,
    options: Options,
    limit: usize,
}

impl Dispatch {
    pub(super) fn new(registry: Registry, calls: Vec<ToolCall>) -> Self {
        Self { registry, calls, options: Options::default(), limit: DEFAULT_DISPATCH_LIMIT }
    }

    /// Runs at most `limit` calls at once (at least one). Default:
    /// [`DEFAULT_DISPATCH_LIMIT`].
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// Aborts every call, running or waiting, when `signal` fires.
    pub fn signal(mut self, signal: AbortSignal) -> Self {
        self.options.signal = Some(signal);
        self
    }

    /// Gives each call its own time budget of `timeout`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = Some(timeout);
        self
    }

    /// Hands every call the application state.
    pub fn state<S: std::any::Any + Send + Sync>(mut self, state: Arc<S>) -> Self {
        self.options.set_state(state);
        self
    }
}

/// The calls of a dispatch, each made into an invocation only when it is about to run, so a
/// large batch holds one invocation per running call rather than one per call.
struct Pending {
    registry: Registry,
    calls: std::iter::Enumerate<std::vec::IntoIter<ToolCall>>,
    options: Options,
}

impl Iterator for Pending {
    type Item = (usize, InvokeFuture);

    fn next(&mut self) -> Option<Self::Item> {
        let (position, call) = self.calls.next()?;
        let ToolCall { call_id, name, arguments, malformed } = call;
        let invocation = self.registry.invoke(&name, arguments).call_id(call_id);
        let invocation = match malformed {
            Some(why) => invocation.reject_arguments(&why),
            None => invocation,
        };
        Some((position, invocation.with_options(&self.options).into_future()))
    }
}

impl IntoFuture for Dispatch {
    type Output = Vec<Receipt>;
    type IntoFuture = DispatchFuture;

    fn into_future(self) -> DispatchFuture {
        let Dispatch { registry, calls, options, limit } = self;
        let count = calls.len();
        let pending = Pending { registry, calls: calls.into_iter().enumerate(), options };
        // Whether a Tokio runtime is there is asked when the dispatch first runs, not now: a
        // dispatch may be made outside the runtime that will drive it.
        let run = Box::pin(async move {
            if tokio::runtime::Handle::try_current().is_ok() {
                concurrently(pending, count, limit).await
            } else {
                one_by_one(pending, count).await
            }
        });
        DispatchFuture { run }
    }
}

/// The future of a dispatch's receipts, in call order.
///
/// Cancel safety: dropping it aborts every call still running.
#[must_use = "futures do nothing unless polled"]
pub struct DispatchFuture {
    run: Pin<Box<dyn Future<Output = Vec<Receipt>> + Send>>,
}

impl Future for DispatchFuture {
    type Output = Vec<Receipt>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<Receipt>> {
        self.run.as_mut().poll(cx)
    }
}

/// Runs the calls as Tokio tasks, at most `limit` at once.
async fn concurrently(mut pending: Pending, count: usize, limit: usize) -> Vec<Receipt> {
    let mut slots: Vec<Slot> = (0..count).map(|_| Slot::Waiting).collect();
    let mut tasks = JoinSet::new();
    loop {
        while tasks.len() < limit {
            let Some((position, call)) = pending.next() else {
                break;
            };
            let label: Label = call.label();
            let handle = tasks.spawn(async move { (position, call.await) }.in_current_span());
            slots[position] = Slot::Running(handle.id(), label);
        }
        match tasks.join_next_with_id().await {
            Some(Ok((_, (position, receipt)))) => slots[position] = Slot::Done(receipt),
            Some(Err(error)) => {
                let id = error.id();
                let lost_at = slots
                    .iter()
                    .position(|slot| matches!(slot, Slot::Running(running, _) if *running == id));
                if let Some(position) = lost_at
                    && let Slot::Running(_, label) =
                        mem::replace(&mut slots[position], Slot::Waiting)
                {
                    slots[position] = Slot::Done(label.receipt(lost(&error)));
                }
            }
            None => break,
        }
    }
    slots.into_iter().map(Slot::into_receipt).collect()
}

/// Where one call of a concurrent dispatch is.
enum Slot {
    Waiting,
    Running(tokio::task::Id, Label),
    Done(Receipt),
}

impl Slot {
    /// The call's receipt. Every call is done by the time the dispatch ends: each task
    /// returned its receipt, or failed with an id that its slot holds. A call left without
    /// one would still get a receipt, never be dropped.
    fn into_receipt(self) -> Receipt {
        match self {
            Slot::Done(receipt) => receipt,
            Slot::Running(_, label) => label.receipt(ToolResult::failed(
                FailureKind::Aborted,
                "the call's task ended without a result",
            )),
            Slot::Waiting => Receipt {
                invocation_id: InvocationId::new(),
                tool: Arc::from(""),
                call_id: None,
                started_at: std::time::SystemTime::now(),
                duration: Duration::ZERO,
                result: ToolResult::failed(FailureKind::Handler, "the call never ran"),
            },
        }
    }
}

/// Runs the calls one after the other, for executors other than Tokio.
async fn one_by_one(pending: Pending, count: usize) -> Vec<Receipt> {
    let mut receipts = Vec::with_capacity(count);
    for (_, call) in pending {
        receipts.push(call.await);
    }
    receipts
}

/// The result of a call whose task ended without one: cancelled (the runtime is shutting
/// down) or panicked, which the pipeline's own panic catching should make impossible.
fn lost(error: &tokio::task::JoinError) -> ToolResult {
    if error.is_cancelled() {
        ToolResult::failed(FailureKind::Aborted, "the call's task was cancelled")
    } else {
        ToolResult::failed(FailureKind::Panic, format!("the call's task failed: {error}"))
    }
}

impl fmt::Debug for Dispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.calls.iter().map(|call| call.name.as_str()).collect();
        f.debug_struct("Dispatch")
            .field("calls", &names)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for DispatchFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DispatchFuture").finish_non_exhaustive()
    }
}
