//! [`JournaledDispatch`]: journaling the calls of a whole model turn at once, under a
//! concurrency limit.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::mem;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Semaphore;
use toolwire::{
    AbortSignal, CallId, CallOptions, DEFAULT_CONCURRENCY, Receipt, Registry, ToolCall,
};

use super::call_options::journal_call_options;
use super::{Journal, JournaledFuture};
use crate::error::{JournalError, JournalErrorKind};

/// A dispatch's event callback: the call's id, then the event.
type DispatchSink = Arc<dyn Fn(&CallId, Value) + Send + Sync>;

/// The calls of a model turn, each to be run as a journaled call; made by
/// [`Journal::dispatch`], run by `.await`, for their outcomes in call order.
///
/// The calls run concurrently, at most [`concurrency`](Self::concurrency) at a time
/// ([`DEFAULT_CONCURRENCY`] by default), each on a Tokio task of its own. Its options are
/// those of a [`JournaledCall`](crate::JournaledCall), for every call at once, except that
/// events arrive with the id of the call that emitted them.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use serde_json::json;
/// use toolwire::{Registry, Tool, ToolCall, ToolResult};
/// use toolwire_journal::Journal;
///
/// let dir = tempfile::tempdir()?;
/// let journal = Journal::open(&format!("sqlite:{}", dir.path().join("j.db").display())).await?;
/// let send = Tool::define("send").execute_sync(|args, _| ToolResult::ok(args, "sent")).build()?;
/// let registry = Registry::builder().register(send).approval_key(journal.approval_key()).seal()?;
///
/// let turn = vec![
///     ToolCall::new("c1", "send", json!({"to": "ada"})),
///     ToolCall::new("c2", "send", json!({"to": "grace"})),
/// ];
/// let outcomes =
///     journal.dispatch(&registry, turn.clone()).concurrency(8).timeout(Duration::from_secs(30)).await;
/// assert!(outcomes.iter().all(|outcome| outcome.as_ref().is_ok_and(|r| r.result.is_success())));
///
/// // Delivered again, the turn replays its receipts: nothing runs twice.
/// let again = journal.dispatch(&registry, turn).await;
/// let id = |outcomes: &[Result<toolwire::Receipt, _>]| outcomes[1].as_ref().ok().map(|r| r.invocation_id);
/// assert_eq!(id(&again), id(&outcomes));
/// # Ok(()) }
/// ```
#[must_use = "a dispatch does nothing until it is awaited"]
pub struct JournaledDispatch {
    journal: Journal,
    registry: Registry,
    calls: Vec<ToolCall>,
    concurrency: usize,
    timeout: Option<Duration>,
    signal: Option<AbortSignal>,
    /// The options handed on to every call (state, events, answer).
    options: CallOptions,
    events: Option<DispatchSink>,
}

/// The future of a [`JournaledDispatch`]: every call's outcome, in call order.
///
/// # Cancel safety
///
/// The calls run on spawned tasks: dropping the future does not stop those that started, and
/// each of them still records its outcome; the calls that had not started (held back by the
/// concurrency limit) never start.
pub type JournaledDispatchFuture =
    Pin<Box<dyn Future<Output = Vec<Result<Receipt, JournalError>>> + Send>>;

impl Journal {
    /// Prepares every call of a model turn as a journaled call, run concurrently through
    /// `registry`; await it for their outcomes in call order. Calls that suspend are all
    /// stored, and [`pending`](Self::pending) lists each; concurrent SQLite writes share
    /// commits.
    ///
    /// A call whose arguments could not be read (see [`ToolCall::malformed`]) is run through
    /// the registry unjournaled, which fails it before anything runs; its receipt goes to the
    /// audit log.
    pub fn dispatch(
        &self,
        registry: &Registry,
        calls: impl IntoIterator<Item = ToolCall>,
    ) -> JournaledDispatch {
        JournaledDispatch {
            journal: self.clone(),
            registry: registry.clone(),
            calls: calls.into_iter().collect(),
            concurrency: DEFAULT_CONCURRENCY,
            timeout: None,
            signal: None,
            options: CallOptions::new(),
            events: None,
        }
    }
}

journal_call_options!(JournaledDispatch {
    /// Gives each call its own time budget, as [`JournaledCall::timeout`](crate::JournaledCall::timeout)
    /// does, counted from the call's start.
    timeout;
    /// Cancels every call, or its wait on the same call id running elsewhere, when `signal`
    /// fires.
    signal;
    /// Hands every call the application state.
    state;
    /// Sets, for every call, each option that `options` sets, as
    /// [`JournaledCall::options`](crate::JournaledCall::options) does for one call.
    options;
});

impl JournaledDispatch {
    /// Runs at most `concurrency` calls at once (at least one). Default:
    /// [`DEFAULT_CONCURRENCY`].
    pub fn concurrency(mut self, concurrency: usize) -> Self {
        self.concurrency = concurrency.clamp(1, Semaphore::MAX_PERMITS);
        self
    }

    /// Receives the events every call's handler emits, each with its call's id. It wins over
    /// an event callback in [`options`](Self::options).
    pub fn on_event(mut self, callback: impl Fn(&CallId, Value) + Send + Sync + 'static) -> Self {
        self.events = Some(Arc::new(callback));
        self
    }

    /// The options of the call `call_id`.
    fn options_for(&self, call_id: &CallId) -> CallOptions {
        let mut options = self.options.clone();
        if let Some(timeout) = self.timeout {
            options = options.timeout(timeout);
        }
        if let Some(signal) = &self.signal {
            options = options.signal(signal.clone());
        }
        if let Some(sink) = &self.events {
            let (sink, id) = (Arc::clone(sink), call_id.clone());
            options = options.on_event(move |event| sink(&id, event));
        }
        options
    }

    /// The future of one call: journaled, or, for arguments that could not be read, run
    /// through the registry, which fails it, and audited.
    fn call(&self, call: ToolCall) -> JournaledFuture {
        let ToolCall { call_id, tool, arguments, malformed, .. } = call;
        let options = self.options_for(&call_id);
        match malformed {
            None => self
                .journal
                .invoke(&self.registry, &tool, arguments)
                .call_id(call_id)
                .options(options)
                .into_future(),
            Some(why) => {
                let rejected =
                    self.registry.call(ToolCall::malformed(call_id, tool, why)).options(options);
                let engine = Arc::clone(&self.journal.engine);
                Box::pin(async move { engine.audited(rejected.await).await })
            }
        }
    }

    async fn run(mut self) -> Vec<Result<Receipt, JournalError>> {
        let gate = Arc::new(Semaphore::new(self.concurrency));
        let calls = mem::take(&mut self.calls);
        let mut tasks = Vec::with_capacity(calls.len());
        for call in calls {
            // Never closed: a permit always comes, once a running call ends.
            let permit = Arc::clone(&gate).acquire_owned().await.ok();
            let call = self.call(call);
            tasks.push(tokio::spawn(async move {
                let outcome = call.await;
                drop(permit);
                outcome
            }));
        }
        let mut outcomes = Vec::with_capacity(tasks.len());
        for task in tasks {
            outcomes.push(task.await.unwrap_or_else(|e| {
                Err(JournalError::new(
                    JournalErrorKind::Database,
                    format!("a journaled call's task failed: {e}"),
                ))
            }));
        }
        outcomes
    }
}

impl IntoFuture for JournaledDispatch {
    type Output = Vec<Result<Receipt, JournalError>>;
    type IntoFuture = JournaledDispatchFuture;

    fn into_future(self) -> JournaledDispatchFuture {
        Box::pin(self.run())
    }
}

impl fmt::Debug for JournaledDispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tools: Vec<&str> = self.calls.iter().map(|call| &*call.tool).collect();
        f.debug_struct("JournaledDispatch")
            .field("calls", &tools)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}
