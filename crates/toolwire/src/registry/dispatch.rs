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
use crate::result::{FailureKind, ToolResult};
use serde_json::Value;

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

/// What every task of a dispatch shares: the registry, the options, and each call's name and
/// id, by position. The arguments are kept apart and handed to each call's task, which makes
/// the invocation itself, so the work of preparing calls is spread over the runtime's threads
/// and a batch holds one invocation per running call rather than one per call.
struct Batch {
    registry: Registry,
    options: Options,
    /// The calls, their arguments taken out.
    calls: Vec<ToolCall>,
}

impl Batch {
    /// Splits `calls` into what the tasks share and the arguments, by position.
    fn new(registry: Registry, options: Options, mut calls: Vec<ToolCall>) -> (Self, Vec<Value>) {
        let arguments = calls.iter_mut().map(|call| mem::take(&mut call.arguments)).collect();
        (Self { registry, options, calls }, arguments)
    }

    /// The invocation of the call at `position`, one of the positions of the arguments.
    fn invocation(&self, position: usize, arguments: Value) -> InvokeFuture {
        let call = &self.calls[position];
        let invocation = self.registry.invoke(&call.name, arguments).call_id(call.call_id.as_str());
        let invocation = match &call.malformed {
            Some(why) => invocation.reject_arguments(why),
            None => invocation,
        };
        invocation.with_options(&self.options).into_future()
    }

    /// The receipt of the call at `position`, whose task ended without one.
    fn lost(&self, position: usize, result: ToolResult) -> Receipt {
        let call = &self.calls[position];
        Label::new(&self.registry, &call.name, &call.call_id).receipt(result)
    }
}

impl IntoFuture for Dispatch {
    type Output = Vec<Receipt>;
    type IntoFuture = DispatchFuture;

    fn into_future(self) -> DispatchFuture {
        let Dispatch { registry, calls, options, limit } = self;
        // Whether a Tokio runtime is there is asked when the dispatch first runs, not now: a
        // dispatch may be made outside the runtime that will drive it.
        let run = Box::pin(async move {
            let (batch, arguments) = Batch::new(registry, options, calls);
            if tokio::runtime::Handle::try_current().is_ok() {
                concurrently(Arc::new(batch), arguments, limit).await
            } else {
                one_by_one(&batch, arguments).await
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

/// Runs the calls as Tokio tasks, at most `limit` at once, each in the span that was current
/// when the dispatch ran.
async fn concurrently(batch: Arc<Batch>, arguments: Vec<Value>, limit: usize) -> Vec<Receipt> {
    let count = arguments.len();
    let mut slots: Vec<Slot> = (0..count).map(|_| Slot::Waiting).collect();
    let mut waiting = arguments.into_iter().enumerate();
    let mut tasks = JoinSet::new();
    let span = tracing::Span::current();
    let untraced = span.is_disabled();
    loop {
        while tasks.len() < limit {
            let Some((position, arguments)) = waiting.next() else {
                break;
            };
            let shared = Arc::clone(&batch);
            let call = async move { (position, shared.invocation(position, arguments).await) };
            let handle = if untraced {
                tasks.spawn(call)
            } else {
                tasks.spawn(call.instrument(span.clone()))
            };
            slots[position] = Slot::Running(handle.id());
        }
        match tasks.join_next_with_id().await {
            Some(Ok((_, (position, receipt)))) => slots[position] = Slot::Done(receipt),
            Some(Err(error)) => {
                let id = error.id();
                let lost_at = slots
                    .iter()
                    .position(|slot| matches!(slot, Slot::Running(running) if *running == id));
                if let Some(position) = lost_at {
                    slots[position] = Slot::Done(batch.lost(position, lost(&error)));
                }
            }
            None => break,
        }
    }
    slots
        .into_iter()
        .enumerate()
        .map(|(position, slot)| match slot {
            Slot::Done(receipt) => receipt,
            // Every call is done by the time the loop ends: each task returned its receipt,
            // or failed with an id that its slot holds. A call left without one still gets a
            // receipt; none is dropped.
            Slot::Waiting | Slot::Running(_) => batch.lost(
                position,
                ToolResult::failed(FailureKind::Aborted, "the call's task ended without a result"),
            ),
        })
        .collect()
}

/// Where one call of a concurrent dispatch is.
enum Slot {
    Waiting,
    Running(tokio::task::Id),
    Done(Receipt),
}

/// Runs the calls one after the other, for executors other than Tokio.
async fn one_by_one(batch: &Batch, arguments: Vec<Value>) -> Vec<Receipt> {
    let mut receipts = Vec::with_capacity(arguments.len());
    for (position, arguments) in arguments.into_iter().enumerate() {
        receipts.push(batch.invocation(position, arguments).await);
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
