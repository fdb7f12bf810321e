//! [`JournaledCall`]: a call through a registry that runs at most once per call id.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use toolwire::policy::call_digest;
use toolwire::{
    AbortSignal, Answer, CallId, CallOptions, Invocation, Receipt, Registry, ToolResult,
};

use super::Journal;
use super::call::{in_progress, mismatch, own_receipt, read_receipt, unknown_outcome};
use super::call_options::journal_call_options;
use super::engine::Engine;
use crate::error::{JournalError, JournalErrorKind};
use crate::store::ops::Claimed;
use crate::store::{now_millis, time_of};

/// A journaled call, prepared by [`Journal::invoke`] or [`Journal::resume`]; run it with
/// `.await`, for the call's [`Receipt`] or a [`JournalError`].
#[must_use = "a journaled call does nothing until it is awaited"]
pub struct JournaledCall {
    pub(super) engine: Arc<Engine>,
    pub(super) registry: Registry,
    pub(super) target: Target,
    pub(super) call_id: Option<CallId>,
    pub(super) timeout: Option<Duration>,
    pub(super) signal: Option<AbortSignal>,
    /// The options handed on to the registry's invocation (state, events).
    pub(super) options: CallOptions,
}

/// What a journaled call runs.
pub(super) enum Target {
    Fresh { tool: String, arguments: Value },
    Resume { request_id: String },
}

/// The future of a [`JournaledCall`].
///
/// # Cancel safety
///
/// Dropping it before the handler starts leaves nothing behind, or a claim whose lease lapses;
/// dropping it while the handler runs drops the handler, and the call id's record stays
/// "started": a later delivery of the id sees an unknown outcome (or, for an idempotent tool,
/// runs it again) once the lease lapses.
pub type JournaledFuture = Pin<Box<dyn Future<Output = Result<Receipt, JournalError>> + Send>>;

impl Journal {
    /// Prepares a journaled call of the tool `tool` through `registry` with `arguments`. Give
    /// it a call id with [`call_id`](JournaledCall::call_id): the journal is keyed by it.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use serde_json::json;
    /// use toolwire::{Registry, Tool, ToolResult};
    /// use toolwire_journal::Journal;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let journal = Journal::open(&format!("sqlite:{}", dir.path().join("j.db").display())).await?;
    /// let send = Tool::define("send").execute_sync(|args, _| ToolResult::ok(args.clone(), "sent")).build()?;
    /// let registry = Registry::builder().register(send).approval_key(journal.approval_key()).seal()?;
    ///
    /// let first = journal.invoke(&registry, "send", json!({"to": "ada"})).call_id("call_1").await?;
    /// let again = journal.invoke(&registry, "send", json!({"to": "ada"})).call_id("call_1").await?;
    /// assert_eq!(again.invocation_id, first.invocation_id); // replayed, not run again
    /// # Ok(()) }
    /// ```
    pub fn invoke(&self, registry: &Registry, tool: &str, arguments: Value) -> JournaledCall {
        JournaledCall::new(self, registry, Target::Fresh { tool: tool.to_owned(), arguments })
    }
}

journal_call_options!(JournaledCall {
    /// The call's time budget: for the handler, and for waiting on the same call id running
    /// elsewhere. A timeout too large to add to the clock (such as [`Duration::MAX`]) is no
    /// timeout.
    timeout;
    /// Cancels the call, or its wait on the same call id running elsewhere, when `signal`
    /// fires.
    signal;
    /// Hands the call the application state, as
    /// [`Invocation::state`](toolwire::Invocation::state) does.
    state;
    /// Sets every option that `options` sets, as
    /// [`Invocation::options`](toolwire::Invocation::options) does: its timeout and signal
    /// bound the wait on the same call id running elsewhere too. An answer in it reaches the
    /// call, unless the journal holds one recorded for the call's request (see
    /// [`Journal::answer`] and [`Journal::resume`]), which wins.
    options;
});

impl JournaledCall {
    /// A call of `target` through `registry`, journaled in `journal`, with no options yet.
    pub(super) fn new(journal: &Journal, registry: &Registry, target: Target) -> Self {
        JournaledCall {
            engine: Arc::clone(&journal.engine),
            registry: registry.clone(),
            target,
            call_id: None,
            timeout: None,
            signal: None,
            options: CallOptions::new(),
        }
    }

    /// The model's id for the call: the journal's key. Required for a new call.
    pub fn call_id(mut self, call_id: impl Into<CallId>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// Receives the handler's events, as [`Invocation::on_event`](toolwire::Invocation::on_event)
    /// does.
    pub fn on_event(mut self, callback: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.options = self.options.on_event(callback);
        self
    }

    /// The registry's invocation of this call: its options handed on whole, as one value,
    /// with what is left of the deadline, the signal and the answer in it.
    pub(super) fn invocation(
        &mut self,
        tool: &str,
        arguments: Value,
        call_id: &CallId,
        answer: Option<Answer>,
        deadline: Option<Instant>,
    ) -> Invocation {
        let mut options = std::mem::take(&mut self.options);
        if let Some(deadline) = deadline {
            options = options.timeout(deadline.saturating_duration_since(Instant::now()));
        }
        if let Some(signal) = &self.signal {
            options = options.signal(signal.clone());
        }
        if let Some(answer) = answer {
            options = options.answer(answer);
        }
        self.registry.invoke(tool, arguments).call_id(call_id.clone()).options(options)
    }

    async fn run(mut self) -> Result<Receipt, JournalError> {
        // A timeout too large for the clock is no timeout, as in the registry.
        let deadline = self.timeout.and_then(|timeout| Instant::now().checked_add(timeout));
        match std::mem::replace(&mut self.target, Target::Resume { request_id: String::new() }) {
            Target::Fresh { tool, arguments } => self.run_fresh(tool, arguments, deadline).await,
            Target::Resume { request_id } => self.run_resume(request_id, deadline).await,
        }
    }

    async fn run_fresh(
        mut self,
        tool: String,
        arguments: Value,
        deadline: Option<Instant>,
    ) -> Result<Receipt, JournalError> {
        let Some(call_id) = self.call_id.clone() else {
            let text =
                format!("a journaled call of {tool:?} needs a call id: the journal is keyed by it");
            return Err(JournalError::new(JournalErrorKind::MissingCallId, text));
        };
        let Some(found) = self.registry.get(&tool) else {
            // An unknown tool runs nothing: the registry's failure names the closest tools.
            let receipt = self.invocation(&tool, arguments, &call_id, None, deadline).await;
            return self.engine.audited(receipt).await;
        };
        if too_deep(&arguments, found.limits().max_depth) {
            // The registry rejects it before anything runs; the digest would recurse too deep.
            let receipt = self.invocation(&tool, arguments, &call_id, None, deadline).await;
            return self.engine.audited(receipt).await;
        }
        let (idempotent, checker) = (found.is_idempotent(), found.clone());
        let digest = call_digest(&tool, &call_id, &arguments);
        let started = SystemTime::now();
        if let Some(receipt) = self.engine.completed(&call_id, &digest).await? {
            // A replay reads; it takes no lock and waits for no writer.
            return Ok(checker.replay(receipt));
        }
        let json =
            serde_json::to_string(&arguments).map_err(|e| JournalError::corrupt("arguments", e))?;
        let attempt = loop {
            let claim =
                self.engine.new_claim(&call_id, &tool, digest.clone(), json.clone(), idempotent);
            let refused = match self.engine.write(claim).await? {
                Claimed::Run { attempt } => break attempt,
                Claimed::Replay { receipt } => return Ok(checker.replay(read_receipt(&receipt)?)),
                Claimed::Suspended { receipt } => return read_receipt(&receipt),
                Claimed::Mismatch { tool: first } => mismatch(&tool, &call_id, &first),
                Claimed::Unknown { attempt, started_at } => {
                    unknown_outcome(&tool, &call_id, attempt, started_at)
                }
                Claimed::Busy { lease_until } => match self.wait(lease_until, deadline).await {
                    Some(stop) => stop.unwrap_or_else(|| in_progress(&tool, &call_id)),
                    None => continue,
                },
            };
            return self.engine.audited(own_receipt(&tool, &call_id, started, refused)).await;
        };
        let lease = self.engine.hold_lease(&call_id, attempt);
        let receipt = self.invocation(&tool, arguments, &call_id, None, deadline).await;
        drop(lease);
        self.engine.complete(&call_id, &digest, attempt, receipt, None).await
    }

    /// Waits a little for a call running elsewhere. `None`: look again; `Some(None)`: the
    /// deadline passed; `Some(Some(result))`: the signal fired.
    async fn wait(
        &self,
        lease_until: i64,
        deadline: Option<Instant>,
    ) -> Option<Option<ToolResult>> {
        if let Some(signal) = self.signal.as_ref().filter(|s| s.is_aborted()) {
            return Some(Some(ToolResult::failed(
                toolwire::FailureKind::Aborted,
                signal.reason_or_default(),
            )));
        }
        let poll = self.engine.options.poll;
        let lapse = time_of(lease_until).duration_since(time_of(now_millis())).unwrap_or_default();
        let mut pause = poll.min(lapse + Duration::from_millis(1));
        if let Some(deadline) = deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Some(None);
            }
            pause = pause.min(left);
        }
        tokio::time::sleep(pause).await;
        None
    }
}

/// Whether `value` nests deeper than `max` levels, counted without recursion.
fn too_deep(value: &Value, max: usize) -> bool {
    let mut stack = vec![(value, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if depth > max {
            return true;
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    false
}

impl IntoFuture for JournaledCall {
    type Output = Result<Receipt, JournalError>;
    type IntoFuture = JournaledFuture;

    fn into_future(self) -> JournaledFuture {
        Box::pin(self.run())
    }
}

impl fmt::Debug for JournaledCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = match &self.target {
            Target::Fresh { tool, .. } => tool.as_str(),
            Target::Resume { request_id } => request_id.as_str(),
        };
        f.debug_struct("JournaledCall")
            .field("target", &target)
            .field("call_id", &self.call_id)
            .finish_non_exhaustive()
    }
}
