//! [`RunStore`]: where pending runs are kept, and [`MemoryStore`], in this process.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use toolwire::Answer;

use super::state::RunState;
use crate::Error;
use crate::client::BoxFuture;

/// Keeps runs by their id, so a pending run can be resumed later, possibly by another
/// process. A journal or database implements it; [`MemoryStore`] keeps runs in memory.
///
/// An agent with a store saves a run when it ends pending, and removes it once it is
/// resumed past its answers. [`Agent::resume_stored`](crate::Agent::resume_stored)
/// [claims](Self::claim) the run first, so that a store shared by many processes can keep
/// two of them from resuming one run at once.
///
/// With the `journal` feature, `toolwire_journal::Journal` is a run store: SQLite or
/// PostgreSQL, with answers recorded in it by any process
/// (`Journal::answer_run`).
pub trait RunStore: Send + Sync {
    /// Saves `state` under `state.run_id`, replacing what was there.
    fn save<'a>(&'a self, state: &'a RunState) -> BoxFuture<'a, Result<(), Error>>;

    /// The run saved under `run_id`, if any.
    fn load<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<Option<RunState>, Error>>;

    /// Forgets the run saved under `run_id`; forgetting an unknown run is not an error.
    fn remove<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<(), Error>>;

    /// Takes the run saved under `run_id` for a resume, with the answers recorded in the
    /// store for its calls. A shared store refuses a second claim until the first is let
    /// go: by [`save`](Self::save), [`remove`](Self::remove) or [`release`](Self::release).
    ///
    /// The default loads the run, with no answers, and claims nothing.
    fn claim<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<Option<StoredRun>, Error>> {
        Box::pin(async move { Ok(self.load(run_id).await?.map(StoredRun::new)) })
    }

    /// Lets go of a claim on `run_id` whose resume changed nothing (it failed before any
    /// call ran). The default does nothing.
    fn release<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        let _ = run_id;
        Box::pin(async { Ok(()) })
    }
}

/// A run taken from a [`RunStore`] for a resume: its state, and the answers the store holds
/// for its waiting calls. It is `#[non_exhaustive]`: a store builds one with
/// [`new`](Self::new) and [`with_answers`](Self::with_answers).
///
/// ```
/// use serde_json::json;
/// use toolwire::Answer;
/// use toolwire_agent::{RunState, StoredRun};
///
/// let state: RunState = serde_json::from_value(json!({
///     "run_id": "run-1", "provider": "openai", "model": "gpt-5", "messages": [], "turns": 1
/// }))?;
/// let stored = StoredRun::new(state).with_answers(vec![Answer::accept("apr-1", json!(null))]);
/// assert_eq!(stored.answers.len(), 1);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StoredRun {
    /// The run's state.
    pub state: RunState,
    /// Answers recorded in the store, each to a waiting call's request.
    pub answers: Vec<Answer>,
}

impl StoredRun {
    /// The run `state`, with no answers held for it.
    pub fn new(state: RunState) -> Self {
        Self { state, answers: Vec::new() }
    }

    /// With `answers`, each to a waiting call's request.
    pub fn with_answers(mut self, answers: Vec<Answer>) -> Self {
        self.answers = answers;
        self
    }
}

/// A [`RunStore`] in this process's memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    runs: Mutex<HashMap<String, RunState>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many runs it holds.
    pub fn len(&self) -> usize {
        self.runs.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether it holds no run.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl RunStore for MemoryStore {
    fn save<'a>(&'a self, state: &'a RunState) -> BoxFuture<'a, Result<(), Error>> {
        let mut runs = self.runs.lock().unwrap_or_else(PoisonError::into_inner);
        runs.insert(state.run_id.clone(), state.clone());
        Box::pin(async { Ok(()) })
    }

    fn load<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<Option<RunState>, Error>> {
        let found = self.runs.lock().unwrap_or_else(PoisonError::into_inner).get(run_id).cloned();
        Box::pin(async { Ok(found) })
    }

    fn remove<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<(), Error>> {
        self.runs.lock().unwrap_or_else(PoisonError::into_inner).remove(run_id);
        Box::pin(async { Ok(()) })
    }
}
