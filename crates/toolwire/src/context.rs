//! [`ToolContext`]: what a handler knows about the call it serves.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::abort::AbortSignal;
use crate::record::{Answer, CallId, InvocationId, Principal};
use crate::state::State;

/// The caller's event callback, shared by every clone of a context.
pub(crate) type EventSink = Arc<dyn Fn(Value) + Send + Sync>;

/// The second argument of every handler: the call's signal, deadline, answer and event sink.
///
/// A context is cheap to clone, so a handler can move it into tasks it spawns.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolwire::DefineError> {
/// use serde_json::{json, Value};
/// use toolwire::{Tool, ToolContext, ToolResult};
///
/// let crunch = Tool::define("crunch")
///     .execute(|args: Value, ctx: ToolContext| async move {
///         let steps = args["steps"].as_u64().unwrap_or(3);
///         for done in 0..steps {
///             if ctx.signal().is_aborted() {
///                 return ToolResult::failure(format!("cancelled after {done} step(s)"));
///             }
///             ctx.progress(done + 1, steps, "crunching");
///         }
///         ToolResult::ok(json!({"steps": steps}), format!("completed {steps} step(s)"))
///     })
///     .build()?;
///
/// let result = crunch
///     .execute(json!({"steps": 2}))
///     .on_event(|event| println!("{event}"))
///     .await;
/// assert_eq!(result.text(), Some("completed 2 step(s)"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct ToolContext {
    pub(crate) signal: AbortSignal,
    pub(crate) timeout: Option<Duration>,
    pub(crate) deadline: Option<Instant>,
    pub(crate) answer: Option<Arc<Answer>>,
    pub(crate) events: Option<EventSink>,
    pub(crate) state: State,
    pub(crate) invocation_id: InvocationId,
    pub(crate) call_id: Option<CallId>,
    pub(crate) principal: Option<Principal>,
}

impl ToolContext {
    /// A context with no signal, deadline, answer or event sink, and a fresh invocation id.
    ///
    /// Calls through [`Tool::execute`](crate::Tool::execute) build their own; this one is for
    /// calling a handler function directly, for example in a unit test.
    pub fn new() -> Self {
        Self::for_invocation(InvocationId::new())
    }

    pub(crate) fn for_invocation(invocation_id: InvocationId) -> Self {
        Self {
            signal: AbortSignal::never(),
            timeout: None,
            deadline: None,
            answer: None,
            events: None,
            state: State::default(),
            invocation_id,
            call_id: None,
            principal: None,
        }
    }

    /// The call's cancellation signal. It is always present: when the caller gave none, it is
    /// a signal that never fires. It also fires when the call's deadline passes.
    pub fn signal(&self) -> &AbortSignal {
        &self.signal
    }

    /// The caller's time budget for this call, if one was set.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The instant the call times out, if a timeout was set.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The time left before the deadline, if a timeout was set; zero once it has passed.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    /// The host's answer to a request this tool made on an earlier attempt; present only on
    /// that retry.
    pub fn answer(&self) -> Option<&Answer> {
        self.answer.as_deref()
    }

    /// The caller's application state, if the caller gave one of type `S` (see
    /// [`Execution::state`](crate::Execution::state)).
    pub fn state<S: Any>(&self) -> Option<&S> {
        self.state.get()
    }

    /// The unique id of this invocation.
    pub fn invocation_id(&self) -> InvocationId {
        self.invocation_id
    }

    /// The model's id for this call, when the caller gave one.
    pub fn call_id(&self) -> Option<&CallId> {
        self.call_id.as_ref()
    }

    /// Who makes the call, when the host said (see
    /// [`Execution::principal`](crate::Execution::principal)).
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// Gives the context a principal: for calling a policy or a handler directly, as in a
    /// unit test.
    pub fn with_principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// Whether the caller listens to events; lets a handler skip building costly ones.
    pub fn has_event_listener(&self) -> bool {
        self.events.is_some()
    }

    /// Sends `event` to the caller's callback, if there is one. The handler chooses its shape.
    ///
    /// Events arrive in the order they are emitted. The callback runs on the handler's task,
    /// so it should be quick.
    pub fn emit(&self, event: Value) {
        if let Some(events) = &self.events {
            events(event);
        }
    }

    /// Emits a progress event in the standard shape, which follows MCP's progress notification:
    ///
    /// `{"type": "progress", "progress": done, "total": total, "message": message}`
    ///
    /// `total` is left out when `None`, and `message` when empty.
    pub fn progress(&self, done: u64, total: impl Into<Option<u64>>, message: &str) {
        if self.events.is_none() {
            return;
        }
        let mut event = Map::with_capacity(4);
        event.insert("type".into(), Value::from("progress"));
        event.insert("progress".into(), Value::from(done));
        if let Some(total) = total.into() {
            event.insert("total".into(), Value::from(total));
        }
        if !message.is_empty() {
            event.insert("message".into(), Value::from(message));
        }
        self.emit(Value::Object(event));
    }
}

impl Default for ToolContext {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("invocation_id", &self.invocation_id)
            .field("call_id", &self.call_id)
            .field("principal", &self.principal)
            .field("signal", &self.signal)
            .field("timeout", &self.timeout)
            .field("answer", &self.answer)
            .field("state", &self.state)
            .field("has_event_listener", &self.events.is_some())
            .finish()
    }
}
