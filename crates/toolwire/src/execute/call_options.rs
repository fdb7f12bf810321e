//! [`CallOptions`]: the options a host gives a call, in one value it can keep and hand on.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::Options;
use crate::abort::AbortSignal;
use crate::context::EventSink;
use crate::record::{Answer, Principal};
use crate::state::State;

/// The options of one call, or of every call of a dispatch: the signal, the time budget, the
/// application state, the event callback and the host's answer.
///
/// A bridge that runs calls for someone else (an MCP server, a journal, an agent loop) builds
/// one per call, or keeps one and clones it (a clone is a few reference-count bumps), and
/// hands it over with `.options(..)` on an [`Execution`](crate::Execution), an
/// [`Invocation`](crate::Invocation), a [`Dispatch`](crate::Dispatch) or a journal's call,
/// instead of setting each option by hand. Options given there replace the ones set before
/// them, one by one: an option this value does not set is left as it was.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use std::time::Duration;
/// use serde_json::json;
/// use toolwire::{AbortController, CallOptions, Registry, Tool, ToolCall, ToolResult};
///
/// struct Session { user: &'static str }
///
/// let whoami = Tool::define("whoami")
///     .execute_sync(|_, ctx| ToolResult::ok(json!({}), ctx.state::<Session>().map_or("nobody", |s| s.user)))
///     .build()?;
/// let registry = Registry::builder().register(whoami).seal()?;
///
/// let ctl = AbortController::new();
/// let options = CallOptions::new()
///     .signal(ctl.signal())
///     .timeout(Duration::from_secs(5))
///     .state(Arc::new(Session { user: "ada" }));
/// let receipt = registry.call(ToolCall::new("c1", "whoami", json!({}))).options(options.clone()).await;
/// assert_eq!(receipt.result.text(), Some("ada"));
/// # Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    signal: Option<AbortSignal>,
    timeout: Option<Duration>,
    state: Option<State>,
    events: Option<EventSink>,
    answer: Option<Arc<Answer>>,
    principal: Option<Principal>,
}

impl CallOptions {
    /// No options: a call with these runs as if given none.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the call when `signal` fires.
    pub fn signal(mut self, signal: AbortSignal) -> Self {
        self.signal = Some(signal);
        self
    }

    /// Gives the call a time budget.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Hands the call the application state.
    pub fn state<S: Any + Send + Sync>(mut self, state: Arc<S>) -> Self {
        self.state = Some(State::new(state));
        self
    }

    /// Receives the events the handler emits, in order.
    pub fn on_event(mut self, callback: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.events = Some(Arc::new(callback));
        self
    }

    /// Retries a suspended call with the host's answer to its request.
    pub fn answer(mut self, answer: Answer) -> Self {
        self.answer = Some(Arc::new(answer));
        self
    }

    /// Says who makes the call, as the host verified it (see
    /// [`Execution::principal`](crate::Execution::principal)).
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// The principal, if one is set.
    pub fn get_principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// The signal, if one is set.
    pub fn get_signal(&self) -> Option<&AbortSignal> {
        self.signal.as_ref()
    }

    /// The time budget, if one is set.
    pub fn get_timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The answer, if one is set.
    pub fn get_answer(&self) -> Option<&Answer> {
        self.answer.as_deref()
    }

    /// The state as `S`, if one of that type is set.
    pub fn get_state<S: Any>(&self) -> Option<&S> {
        self.state.as_ref()?.get()
    }

    /// Sets, in `options`, each option this value sets.
    pub(crate) fn apply(self, options: &mut Options) {
        let CallOptions { signal, timeout, state, events, answer, principal } = self;
        if principal.is_some() {
            options.principal = principal;
        }
        if signal.is_some() {
            options.signal = signal;
        }
        if timeout.is_some() {
            options.timeout = timeout;
        }
        if let Some(state) = state {
            options.state = state;
        }
        if events.is_some() {
            options.events = events;
        }
        if answer.is_some() {
            options.answer = answer;
        }
    }

    /// The event callback, for a dispatch that hands it to each of its calls.
    pub(crate) fn take_events(&mut self) -> Option<EventSink> {
        self.events.take()
    }
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("signal", &self.signal)
            .field("timeout", &self.timeout)
            .field("state", &self.state)
            .field("events", &self.events.as_ref().map(|_| ".."))
            .field("answer", &self.answer)
            .field("principal", &self.principal)
            .finish()
    }
}
