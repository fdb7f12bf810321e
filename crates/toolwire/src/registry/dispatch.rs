//! [`Dispatch`]: many calls at once, under a concurrency limit, receipts in call order.

use std::collections::HashMap;
use std::fmt;
use std::future::{Future, IntoFuture};
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

    /// The future of each call, in call order.
    fn invocations(self) -> (Vec<InvokeFuture>, usize) {
        let Dispatch { registry, calls, options, limit } = self;
        let futures = calls
            .into_iter()
            .map(|call| {
                let ToolCall { call_id, name, arguments, malformed } = call;
                let invocation = registry.invoke(&name, arguments).call_id(call_id);
                let invocation = match malformed {
                    Some(why) => invocation.reject_arguments(&why),
                    None => invocation,
                };
                invocation.with_options(&options).into_future()
            })
            .collect();
        (futures, limit)
    }
}

impl IntoFuture for Dispatch {
    type Output = Vec<Receipt>;
    type IntoFuture = DispatchFuture;

    fn into_future(self) -> DispatchFuture {
        let (calls, limit) = self.invocations();
        // Whether a Tokio runtime is there is asked when the dispatch first runs, not now: a
        // dispatch may be made outside the runtime that will drive it.
        let run = Box::pin(async move {
            if tokio::runtime::Handle::try_current().is_ok() {
                concurrently(calls, limit).await
            } else {
                one_by_one(calls).await
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
async fn concurrently(calls: Vec<InvokeFuture>, limit: usize) -> Vec<Receipt> {
    let count = calls.len();
    let mut receipts: Vec<Option<Receipt>> = (0..count).map(|_| None).collect();
    let mut labels = HashMap::new();
    let mut tasks = JoinSet::new();
    let mut waiting = calls.into_iter().enumerate();
    loop {
        while tasks.len() < limit {
            let Some((position, call)) = waiting.next() else {
                break;
            };
            let label: Label = call.label();
            let handle = tasks.spawn(async move { (position, call.await) }.in_current_span());
            labels.insert(handle.id(), (position, label));
        }
        match tasks.join_next_with_id().await {
            Some(Ok((id, (position, receipt)))) => {
                labels.remove(&id);
                receipts[position] = Some(receipt);
            }
            Some(Err(error)) => {
                if let Some((position, label)) = labels.remove(&error.id()) {
                    receipts[position] = Some(label.receipt(lost(&error)));
                }
            }
            None => break,
        }
    }
    // Every position is filled: each task either returned its receipt or failed with an id
    // that `labels` maps back to its position.
    receipts.into_iter().flatten().collect()
}

/// Runs the calls one after the other, for executors other than Tokio.
async fn one_by_one(calls: Vec<InvokeFuture>) -> Vec<Receipt> {
    let mut receipts = Vec::with_capacity(calls.len());
    for call in calls {
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
