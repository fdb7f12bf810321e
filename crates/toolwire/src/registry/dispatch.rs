//! [`Dispatch`]: many calls at once, under a concurrency limit, receipts in call order.

use std::collections::HashMap;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::mem;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::Value;
use tokio::task::JoinSet;
use tracing::Instrument;

use super::invoke::{DROPPED_CALL_TEXT, Invocation, Label};
use super::{InvokeFuture, Receipt, Registry, ToolCall};
use crate::abort::AbortSignal;
use crate::execute::Options;
use crate::record::{Answer, CallId, FailureKind, ToolResult};
use crate::schema::drop_iteratively;

/// The default number of calls a dispatch runs at once.
pub const DEFAULT_CONCURRENCY: usize = 64;

/// A dispatch's event callback: the call's id, then the event.
type DispatchSink = Arc<dyn Fn(&CallId, Value) + Send + Sync>;

/// Many prepared calls; made by [`Registry::dispatch`], run by `.await`.
///
/// The calls run concurrently, at most [`concurrency`](Self::concurrency) at a time, each as its own
/// Tokio task, so a slow, failing, panicking or hanging call never holds up the others.
/// Receipts come back in call order. Outside a Tokio runtime the calls run one after the
/// other instead.
///
/// Its options are those of [`Invocation`](crate::Invocation), for every call at once, except
/// that events arrive with the id of the call that emitted them, and answers are given per
/// call, since an approval answers one call only.
#[must_use = "a dispatch does nothing until it is awaited"]
pub struct Dispatch {
    registry: Registry,
    calls: Vec<ToolCall>,
    options: Options,
    events: Option<DispatchSink>,
    answers: HashMap<CallId, Arc<Answer>>,
    concurrency: usize,
}

impl Dispatch {
    pub(super) fn new(registry: Registry, calls: Vec<ToolCall>) -> Self {
        let options = registry.options();
        let (events, answers) = (None, HashMap::new());
        Self { registry, calls, options, events, answers, concurrency: DEFAULT_CONCURRENCY }
    }

    /// Runs at most `concurrency` calls at once (at least one). Default:
    /// [`DEFAULT_CONCURRENCY`].
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.max(1);
        self
    }

    /// The former name of [`concurrency`](Self::concurrency).
    #[deprecated(since = "0.2.0", note = "renamed concurrency")]
    pub fn limit(self, limit: usize) -> Self {
        self.concurrency(limit)
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

    /// Receives the events every call's handler emits, each with its call's id, on the
    /// call's task.
    pub fn on_event(mut self, callback: impl Fn(&CallId, Value) + Send + Sync + 'static) -> Self {
        self.events = Some(Arc::new(callback));
        self
    }

    /// Sets, for every call, each option that `options` sets; see
    /// [`CallOptions`](crate::CallOptions). Its event callback receives every call's events,
    /// without their call ids (use [`on_event`](Self::on_event) for those), and its answer is
    /// handed to every call: an approval still fits the one call it was issued for, once.
    pub fn options(mut self, mut options: crate::CallOptions) -> Self {
        if let Some(sink) = options.take_events() {
            self.events = Some(Arc::new(move |_: &CallId, event| sink(event)));
        }
        options.apply(&mut self.options);
        self
    }

    /// Retries the call with id `call_id` with the host's answer to its request.
    pub fn answer(mut self, call_id: impl Into<CallId>, answer: Answer) -> Self {
        self.answers.insert(call_id.into(), Arc::new(answer));
        self
    }
}

impl Drop for Dispatch {
    fn drop(&mut self) {
        // Never awaited: the arguments may be nested too deeply to drop recursively.
        for call in &mut self.calls {
            drop_iteratively(mem::take(&mut call.arguments));
        }
    }
}

/// What every task of a dispatch shares: the registry, the options, and each call's name and
/// id, by position. The arguments are kept apart and handed to each call's task, which makes
/// the invocation itself, so the work of preparing calls is spread over the runtime's threads
/// and a batch holds one invocation per running call rather than one per call.
struct Batch {
    registry: Registry,
    options: Options,
    events: Option<DispatchSink>,
    answers: HashMap<CallId, Arc<Answer>>,
    /// The calls, their arguments taken out.
    calls: Vec<ToolCall>,
}

impl Batch {
    /// The invocation of the call at `position`, one of the positions of the arguments.
    fn invocation(&self, position: usize, arguments: Value) -> InvokeFuture {
        let call = &self.calls[position];
        let options = self.options.clone();
        let mut invocation =
            Invocation::with_options(&self.registry, &call.tool, arguments, options)
                .call_id(call.call_id.clone());
        if let Some(why) = &call.malformed {
            invocation = invocation.reject_arguments(why);
        }
        if let Some(sink) = &self.events {
            let (sink, id) = (Arc::clone(sink), call.call_id.clone());
            invocation = invocation.on_event(move |event| sink(&id, event));
        }
        if let Some(answer) = self.answers.get(&call.call_id) {
            invocation = invocation.shared_answer(Arc::clone(answer));
        }
        invocation.into_future()
    }

    /// The receipt of the call at `position`, which ended without one of its own.
    fn lost(&self, position: usize, result: ToolResult) -> Receipt {
        let call = &self.calls[position];
        Label::new(&self.registry, &call.tool, &call.call_id).receipt(result)
    }
}

impl IntoFuture for Dispatch {
    type Output = Vec<Receipt>;
    type IntoFuture = DispatchFuture;

    fn into_future(mut self) -> DispatchFuture {
        let mut calls = mem::take(&mut self.calls);
        let arguments = calls.iter_mut().map(|call| mem::take(&mut call.arguments)).collect();
        let batch = Batch {
            registry: self.registry.clone(),
            options: mem::take(&mut self.options),
            events: self.events.take(),
            answers: mem::take(&mut self.answers),
            calls,
        };
        let concurrency = self.concurrency;
        DispatchFuture { state: State::Ready { batch: Arc::new(batch), arguments, concurrency } }
    }
}

/// The future of a dispatch's receipts, in call order.
///
/// # Cancel safety
///
/// Dropping it aborts every call still running; each of them, and each call that had not
/// started, still gets a receipt for the registry's
/// [`on_receipt`](crate::RegistryBuilder::on_receipt) hook, an
/// [`Aborted`](FailureKind::Aborted) failure saying [`DROPPED_CALL_TEXT`].
#[must_use = "futures do nothing unless polled"]
pub struct DispatchFuture {
    state: State,
}

enum State {
    /// Not polled yet: nothing has started.
    Ready {
        batch: Arc<Batch>,
        arguments: Vec<Value>,
        concurrency: usize,
    },
    Running(Pin<Box<dyn Future<Output = Vec<Receipt>> + Send>>),
    Done,
}

impl Future for DispatchFuture {
    type Output = Vec<Receipt>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<Receipt>> {
        if let State::Ready { batch, arguments, concurrency } = &mut self.state {
            let (batch, arguments, concurrency) =
                (Arc::clone(batch), mem::take(arguments), *concurrency);
            // Whether a Tokio runtime is there is asked when the dispatch first runs, not
            // when it is made: a dispatch may be made outside the runtime that drives it.
            let run: Pin<Box<dyn Future<Output = Vec<Receipt>> + Send>> =
                if tokio::runtime::Handle::try_current().is_ok() {
                    Box::pin(concurrently(batch, arguments, concurrency))
                } else {
                    Box::pin(async move { one_by_one(&batch, arguments).await })
                };
            self.state = State::Running(run);
        }
        let State::Running(run) = &mut self.state else {
            return Poll::Ready(Vec::new());
        };
        let receipts = std::task::ready!(run.as_mut().poll(cx));
        self.state = State::Done;
        Poll::Ready(receipts)
    }
}

impl Drop for DispatchFuture {
    fn drop(&mut self) {
        if let State::Ready { batch, arguments, .. } = &mut self.state {
            for (position, arguments) in mem::take(arguments).into_iter().enumerate() {
                drop_iteratively(arguments);
                batch.lost(position, ToolResult::failed(FailureKind::Aborted, DROPPED_CALL_TEXT));
            }
        }
    }
}

/// Where one call of a concurrent dispatch is. A receipt is kept inline: the slots are
/// one vector per dispatch, and boxing would cost each call an allocation.
#[allow(
    clippy::large_enum_variant,
    reason = "the receipt stays inline, as the caller takes it; whether the lint fires depends \
              on the features the dependencies are built with, so an `expect` would fail in some builds"
)]
enum Slot {
    Waiting,
    Running(tokio::task::Id),
    Done(Receipt),
}

/// The slots of a concurrent dispatch, which give every call a receipt even when the dispatch
/// is dropped: a running call's task reports its own as it is aborted, and a waiting call gets
/// one here.
struct Slots {
    batch: Arc<Batch>,
    slots: Vec<Slot>,
}

impl Drop for Slots {
    fn drop(&mut self) {
        for (position, slot) in self.slots.iter().enumerate() {
            if matches!(slot, Slot::Waiting) {
                self.batch
                    .lost(position, ToolResult::failed(FailureKind::Aborted, DROPPED_CALL_TEXT));
            }
        }
    }
}

/// Runs the calls as Tokio tasks, at most `concurrency` at once, each in the span that was current
/// when the dispatch ran.
async fn concurrently(
    batch: Arc<Batch>,
    arguments: Vec<Value>,
    concurrency: usize,
) -> Vec<Receipt> {
    let count = arguments.len();
    let slots = (0..count).map(|_| Slot::Waiting).collect();
    let mut slots = Slots { batch: Arc::clone(&batch), slots };
    let mut waiting = Waiting(arguments.into_iter().enumerate());
    let mut tasks = JoinSet::new();
    let span = tracing::Span::current();
    let untraced = span.is_disabled();
    loop {
        while tasks.len() < concurrency {
            let Some((position, arguments)) = waiting.0.next() else {
                break;
            };
            let shared = Arc::clone(&batch);
            let call = async move { (position, shared.invocation(position, arguments).await) };
            let handle = if untraced {
                tasks.spawn(call)
            } else {
                tasks.spawn(call.instrument(span.clone()))
            };
            slots.slots[position] = Slot::Running(handle.id());
        }
        match tasks.join_next_with_id().await {
            Some(Ok((_, (position, receipt)))) => slots.slots[position] = Slot::Done(receipt),
            Some(Err(error)) => {
                let id = error.id();
                let lost_at = slots
                    .slots
                    .iter()
                    .position(|slot| matches!(slot, Slot::Running(running) if *running == id));
                if let Some(position) = lost_at {
                    slots.slots[position] = Slot::Done(batch.lost(position, lost(&error)));
                }
            }
            None => break,
        }
    }
    mem::take(&mut slots.slots)
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

/// The arguments of the calls not started yet; dropped without recursion.
struct Waiting(std::iter::Enumerate<std::vec::IntoIter<Value>>);

impl Drop for Waiting {
    fn drop(&mut self) {
        for (_, arguments) in self.0.by_ref() {
            drop_iteratively(arguments);
        }
    }
}

/// Runs the calls one after the other, for executors other than Tokio.
async fn one_by_one(batch: &Batch, arguments: Vec<Value>) -> Vec<Receipt> {
    let mut receipts = Vec::with_capacity(arguments.len());
    let mut waiting = Waiting(arguments.into_iter().enumerate());
    for (position, arguments) in waiting.0.by_ref() {
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
        let names: Vec<&str> = self.calls.iter().map(|call| &*call.tool).collect();
        f.debug_struct("Dispatch")
            .field("calls", &names)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for DispatchFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DispatchFuture").finish_non_exhaustive()
    }
}
