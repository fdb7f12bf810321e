//! The options every way of running a call shares, and the builder methods that set them.

use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::abort::AbortSignal;
use crate::context::EventSink;
use crate::policy::{Approvals, PolicyFn};
use crate::record::{Answer, CallId, InvocationId, PolicyRecord, Principal};
use crate::schema::ArgumentLimits;
use crate::state::State;

/// A call's options.
#[derive(Clone, Default)]
pub(crate) struct Options {
    pub(crate) signal: Option<AbortSignal>,
    pub(crate) events: Option<EventSink>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) answer: Option<Arc<Answer>>,
    pub(crate) state: State,
    /// The model's id for the call, for the span, the context and the approval digest.
    pub(crate) call_id: Option<CallId>,
    /// Set by callers that need the id before the call starts, for a receipt.
    pub(crate) invocation_id: Option<InvocationId>,
    /// Replaces the tool's own limits, for a registry's calls.
    pub(crate) limits: Option<ArgumentLimits>,
    /// The registry's policy, for a registry's calls.
    pub(crate) policy: Option<PolicyFn>,
    /// Who makes the call, as the host says.
    pub(crate) principal: Option<Principal>,
    /// Where the policy step leaves its record, for a registry's receipt.
    pub(crate) ruling: Option<RulingSlot>,
    /// The registry's approval settings (key, spent store, time to live); without them, the
    /// process's, and a handler's own requests are not bound.
    pub(crate) approvals: Option<Arc<Approvals>>,
}

/// Where a call's policy step leaves its record: shared by the running call, which fills it,
/// and the registry's future, which puts it on the receipt.
pub(crate) type RulingSlot = Arc<std::sync::Mutex<Option<PolicyRecord>>>;

impl Options {
    pub(crate) fn set_events(&mut self, callback: impl Fn(Value) + Send + Sync + 'static) {
        self.events = Some(Arc::new(callback));
    }

    pub(crate) fn set_state<S: Any + Send + Sync>(&mut self, state: Arc<S>) {
        self.state = State::new(state);
    }
}

/// Generates the option methods of a call builder whose `options` field is an [`Options`]:
/// `signal`, `on_event`, `timeout`, `answer`, `state`, `principal`, `options` and `call_id`.
macro_rules! call_options {
    ($builder:ty) => {
        impl $builder {
            /// The model's id for this call: the handler reads it with
            /// [`ToolContext::call_id`]($crate::ToolContext::call_id), an approval is bound to
            /// it, and a registry's receipt and trace carry it.
            pub fn call_id(mut self, call_id: impl Into<$crate::CallId>) -> Self {
                self.options.call_id = Some(call_id.into());
                self
            }

            /// Cancels the call when `signal` fires. The result is then the aborted failure, at
            /// once, and an async handler's future is dropped.
            pub fn signal(mut self, signal: $crate::AbortSignal) -> Self {
                self.options.signal = Some(signal);
                self
            }

            /// Receives the events the handler emits, in order, on the handler's task.
            pub fn on_event(
                mut self,
                callback: impl Fn(serde_json::Value) + Send + Sync + 'static,
            ) -> Self {
                self.options.set_events(callback);
                self
            }

            /// Gives the call a time budget. The handler sees it through
            /// [`ToolContext::timeout`]($crate::ToolContext::timeout) and
            /// [`deadline`]($crate::ToolContext::deadline); when it passes, the handler's
            /// signal fires (the caller's own signal does not) and the result is the
            /// timed-out failure. A zero timeout times out before anything runs; one too large
            /// for the clock is no timeout.
            ///
            /// Enforcing a timeout on async work needs a Tokio runtime with its time driver;
            /// without one, the call fails with a message saying so.
            pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
                self.options.timeout = Some(timeout);
                self
            }

            /// Retries a suspended call with the host's answer, which the handler reads
            /// through [`ToolContext::answer`]($crate::ToolContext::answer).
            pub fn answer(mut self, answer: $crate::Answer) -> Self {
                self.options.answer = Some(std::sync::Arc::new(answer));
                self
            }

            /// Who makes the call, as the host knows it: a policy reads it with
            /// [`ToolContext::principal`]($crate::ToolContext::principal), and a registry's
            /// receipt records it. Set it from what the host verified (a login, a token),
            /// never from what the caller or the model states.
            pub fn principal(mut self, principal: $crate::Principal) -> Self {
                self.options.principal = Some(principal);
                self
            }

            /// Sets every option that `options` sets, replacing what was set before; see
            /// [`CallOptions`]($crate::CallOptions).
            pub fn options(mut self, options: $crate::CallOptions) -> Self {
                options.apply(&mut self.options);
                self
            }

            /// Hands the call the application state, which hooks and the handler read with
            /// [`ToolContext::state`]($crate::ToolContext::state) and which decides whether
            /// the tool is [`active`]($crate::ToolBuilder::active).
            pub fn state<S: std::any::Any + Send + Sync>(
                mut self,
                state: std::sync::Arc<S>,
            ) -> Self {
                self.options.set_state(state);
                self
            }
        }
    };
}

pub(crate) use call_options;
