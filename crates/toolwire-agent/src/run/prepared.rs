//! [`Run`]: a run prepared by [`Agent::run`], started by `.await`.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use toolwire::AbortSignal;

use super::{Agent, RunOutcome, RunState, drive};

/// A prepared run; made by [`Agent::run`], started by `.await`.
#[must_use = "a run does nothing until it is awaited"]
pub struct Run {
    agent: Agent,
    prompt: String,
    history: Option<RunState>,
    meta: Option<serde_json::Value>,
    signal: AbortSignal,
}

impl Run {
    pub(super) fn new(agent: Agent, prompt: String) -> Self {
        Self { agent, prompt, history: None, meta: None, signal: AbortSignal::never() }
    }

    /// Aborts the run, its model request and its calls, when `signal` fires.
    pub fn signal(mut self, signal: AbortSignal) -> Self {
        self.signal = signal;
        self
    }

    /// Keeps `meta` with the run's state ([`RunState::meta`]), for the host to read back
    /// when it resumes the run, perhaps in another process: how it reached the model, say.
    /// It replaces the meta of a state given to [`after`](Self::after).
    pub fn meta(mut self, meta: serde_json::Value) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Continues the conversation of a finished run instead of starting a new one.
    pub fn after(mut self, state: RunState) -> Self {
        self.history = Some(state);
        self
    }
}

impl IntoFuture for Run {
    type Output = RunOutcome;
    type IntoFuture = Pin<Box<dyn Future<Output = RunOutcome> + Send>>;

    /// # Cancel safety
    ///
    /// Dropping the future drops the model request; calls already started run on to their
    /// end on their own tasks unless the run's signal fires.
    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let Run { agent, prompt, history, meta, signal } = self;
            let mut state = drive::open(&agent.shared, history, &prompt);
            if let Some(meta) = meta {
                state.meta = meta;
            }
            drive::drive(&agent.shared, state, &signal).await
        })
    }
}

impl fmt::Debug for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run").field("prompt", &self.prompt).finish_non_exhaustive()
    }
}
