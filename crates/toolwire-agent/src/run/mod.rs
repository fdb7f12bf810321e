//! [`Agent`]: the loop of model turns and tool calls.

mod app;
mod call;
mod catalog;
mod drive;
mod events;
mod guard;
#[cfg(feature = "journal")]
mod journal;
mod outcome;
mod prepared;
mod resume;
mod state;
mod store;
mod trace;
mod turn;

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use toolwire::provider::ModelApi;
use toolwire::{AbortSignal, Answer, Registry};

pub use events::AgentEvent;
pub use outcome::{RunOutcome, StopReason};
pub use prepared::Run;
pub use state::{PendingCall, PendingTurn, RunState};
pub use store::{MemoryStore, RunStore, StoredRun};

use crate::Error;
use crate::client::ModelClient;
use app::AppState;
use events::EventSink;

/// The default turn limit of a run.
pub const DEFAULT_MAX_TURNS: u32 = 25;
/// The default number of times a run may make one same call (tool and arguments).
pub const DEFAULT_REPETITION_LIMIT: u32 = 3;
/// The default number of calls one model turn may make; the calls past it are not run.
pub const DEFAULT_MAX_CALLS_PER_TURN: u32 = 64;

/// Runs a model and a registry's tools in a loop: model → calls → policy and approvals →
/// dispatch → results → model, until the model stops, a limit is reached, or calls wait
/// for a human. Cloning it is cheap.
#[derive(Clone)]
pub struct Agent {
    shared: Arc<Shared>,
}

/// What every run of an agent shares.
pub(crate) struct Shared {
    pub(crate) client: Arc<dyn ModelClient>,
    pub(crate) registry: Registry,
    pub(crate) system: Option<String>,
    pub(crate) max_turns: u32,
    pub(crate) repetition_limit: u32,
    pub(crate) max_calls: u32,
    /// How many images of tool results the history keeps in full; `None` keeps them all.
    pub(crate) keep_images: Option<usize>,
    pub(crate) streaming: bool,
    pub(crate) call_timeout: Option<Duration>,
    /// Who the run's calls are made as, for the registry's policy and the receipts.
    pub(crate) principal: Option<toolwire::Principal>,
    pub(crate) events: Option<EventSink>,
    pub(crate) store: Option<Arc<dyn RunStore>>,
    pub(crate) app: AppState,
}

impl Shared {
    /// The wire format of the client's provider.
    ///
    /// # Errors
    ///
    /// A [`Config`](crate::ErrorKind::Config) error for a provider that runs no model, such
    /// as a client that says it speaks `mcp`.
    pub(crate) fn api(&self) -> Result<ModelApi, Error> {
        let provider = self.client.provider();
        provider.model_api().ok_or_else(|| {
            let message =
                format!("the model client's provider {provider} describes tools but runs no model");
            Error::new(crate::ErrorKind::Config, message)
        })
    }
}

/// Sets up an [`Agent`]; made by [`Agent::builder`].
#[must_use = "a builder does nothing until built"]
pub struct AgentBuilder {
    shared: Shared,
}

impl Agent {
    /// Starts an agent of `client` with the tools of `registry`.
    pub fn builder(client: impl ModelClient + 'static, registry: Registry) -> AgentBuilder {
        Self::builder_shared(Arc::new(client), registry)
    }

    /// Starts an agent of a shared client.
    pub fn builder_shared(client: Arc<dyn ModelClient>, registry: Registry) -> AgentBuilder {
        let shared = Shared {
            client,
            registry,
            system: None,
            max_turns: DEFAULT_MAX_TURNS,
            repetition_limit: DEFAULT_REPETITION_LIMIT,
            max_calls: DEFAULT_MAX_CALLS_PER_TURN,
            keep_images: None,
            streaming: true,
            call_timeout: None,
            principal: None,
            events: None,
            store: None,
            app: AppState::none(),
        };
        AgentBuilder { shared }
    }

    /// Prepares a run that opens with the user's `prompt`; await it for its outcome.
    pub fn run(&self, prompt: impl Into<String>) -> Run {
        Run::new(self.clone(), prompt.into())
    }

    /// Continues a pending run with the host's answers, each to a pending call's request
    /// (matched by request id); calls without an answer keep waiting. The state may come
    /// from another process.
    ///
    /// # Errors
    ///
    /// A [`Resume`](crate::ErrorKind::Resume) error when the state is for another provider
    /// or model, or has no pending calls.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future stops the run where it is: the calls in flight are dropped (their
    /// handlers' signals fire) and the model request is abandoned. The answers it was given
    /// may have been spent by calls that started: present them again and those calls are
    /// refused as already used. Keep the outcome of a finished resume, not its input.
    pub async fn resume(
        &self,
        state: RunState,
        answers: impl IntoIterator<Item = Answer>,
    ) -> Result<RunOutcome, Error> {
        self.resume_with(state, answers.into_iter().collect(), AbortSignal::never()).await
    }

    /// [`resume`](Self::resume), aborted when `signal` fires.
    ///
    /// # Errors
    ///
    /// As for [`resume`](Self::resume).
    ///
    /// # Cancel safety
    ///
    /// As for [`resume`](Self::resume).
    pub async fn resume_with(
        &self,
        state: RunState,
        answers: Vec<Answer>,
        signal: AbortSignal,
    ) -> Result<RunOutcome, Error> {
        resume::resume(&self.shared, state, answers, signal).await
    }

    /// Claims the run `run_id` from the agent's store and resumes it with `answers` and
    /// the answers the store holds for it (an answer given here wins over a stored one to
    /// the same request). A resume that fails before any call runs (a
    /// [`Resume`](crate::ErrorKind::Resume) error) lets go of the claim; one that fails after
    /// (the store could not forget the finished run) keeps it until it lapses, so that the
    /// answered calls do not run again at once.
    ///
    /// # Errors
    ///
    /// A [`Store`](crate::ErrorKind::Store) error when the agent has no store, the store
    /// does not hold the run, or another resume holds it; and the errors of
    /// [`resume`](Self::resume).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future once the run is claimed keeps the claim: the store holds the run
    /// until the claim lapses (the journal's [`run_claim`], 10 minutes by default), and a
    /// resume before then fails as held by another. That is deliberate: a dropped resume may
    /// have started calls, and letting go at once could run them again. As for
    /// [`resume`](Self::resume), the calls in flight are dropped.
    ///
    /// [`run_claim`]: https://docs.rs/toolwire-journal/latest/toolwire_journal/struct.JournalOptions.html#method.run_claim
    pub async fn resume_stored(
        &self,
        run_id: &str,
        answers: impl IntoIterator<Item = Answer>,
    ) -> Result<RunOutcome, Error> {
        self.resume_stored_with(run_id, answers.into_iter().collect(), AbortSignal::never()).await
    }

    /// [`resume_stored`](Self::resume_stored), aborted when `signal` fires.
    ///
    /// # Errors
    ///
    /// As for [`resume_stored`](Self::resume_stored).
    ///
    /// # Cancel safety
    ///
    /// As for [`resume_stored`](Self::resume_stored).
    pub async fn resume_stored_with(
        &self,
        run_id: &str,
        answers: Vec<Answer>,
        signal: AbortSignal,
    ) -> Result<RunOutcome, Error> {
        resume::resume_stored(&self.shared, run_id, answers, signal).await
    }

    /// The registry whose tools the agent runs.
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }
}

impl AgentBuilder {
    /// Sets the system prompt.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.shared.system = Some(prompt.into());
        self
    }

    /// Stops a run after `turns` model turns (at least 1) since its prompt, counted over
    /// every resumption of it. Default: [`DEFAULT_MAX_TURNS`].
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.shared.max_turns = turns.max(1);
        self
    }

    /// Stops a run whose model makes one same call (tool and arguments) more than `times`
    /// times; 0 turns the guard off. Default: [`DEFAULT_REPETITION_LIMIT`].
    pub fn repetition_limit(mut self, times: u32) -> Self {
        self.shared.repetition_limit = times;
        self
    }

    /// Keeps only the newest `images` images of tool results in full in the conversation;
    /// each older one is sent as a short text that names its MIME type and size. Each turn
    /// sends the whole history again, so a run of many screenshots otherwise pays for all of
    /// them on every turn, and can outgrow a provider's per-request limits (Anthropic takes
    /// 100 images per request). Default: every image is kept.
    ///
    /// Whatever this says, a part a provider would refuse (over its size limits, or of a
    /// kind it does not take, such as audio for Anthropic) never enters the history: the
    /// result keeps a stand-in that names it, and the run's receipts show it.
    pub fn keep_images(mut self, images: usize) -> Self {
        self.shared.keep_images = Some(images);
        self
    }

    /// Runs at most `calls` calls (at least 1) of one model turn; each call past it gets a
    /// [`Denied`](toolwire::FailureKind::Denied) result saying so, and does not run, so
    /// a stream that lists calls without end cannot start them without end. Default:
    /// [`DEFAULT_MAX_CALLS_PER_TURN`].
    pub fn max_calls_per_turn(mut self, calls: u32) -> Self {
        self.shared.max_calls = calls.max(1);
        self
    }

    /// Whether a call starts as soon as its arguments are complete in the stream (the
    /// default), or only once the model's turn is over.
    pub fn streaming_dispatch(mut self, on: bool) -> Self {
        self.shared.streaming = on;
        self
    }

    /// Gives every call its own time budget.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.shared.call_timeout = Some(timeout);
        self
    }

    /// Makes every call of the agent's runs as `principal`, which the registry's policy reads
    /// and each receipt records: usually [`Principal::agent`](toolwire::Principal::agent),
    /// named for the agent or the person it acts for.
    pub fn principal(mut self, principal: toolwire::Principal) -> Self {
        self.shared.principal = Some(principal);
        self
    }

    /// Hears the run's events: text, calls starting and finishing, approvals needed.
    pub fn on_event(mut self, callback: impl Fn(&AgentEvent<'_>) + Send + Sync + 'static) -> Self {
        self.shared.events = Some(Arc::new(callback));
        self
    }

    /// Saves pending runs in `store`, for [`Agent::resume_stored`].
    pub fn store(mut self, store: Arc<dyn RunStore>) -> Self {
        self.shared.store = Some(store);
        self
    }

    /// Hands every call the application state, and lists only the tools active for it.
    pub fn state<S: Any + Send + Sync>(mut self, state: Arc<S>) -> Self {
        self.shared.app = AppState::new(state);
        self
    }

    /// Builds the agent.
    pub fn build(self) -> Agent {
        Agent { shared: Arc::new(self.shared) }
    }
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.shared.client.model())
            .field("registry", &self.shared.registry)
            .field("max_turns", &self.shared.max_turns)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("model", &self.shared.client.model())
            .finish_non_exhaustive()
    }
}
