//! [`RunStore`]: where pending runs are kept, and [`MemoryStore`], in this process.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::state::RunState;
use crate::Error;
use crate::client::BoxFuture;

/// Keeps runs by their id, so a pending run can be resumed later, possibly by another
/// process. A journal or database implements it; [`MemoryStore`] keeps runs in memory.
///
/// An agent with a store saves a run when it ends pending, and removes it once it is
/// resumed past its answers.
pub trait RunStore: Send + Sync {
    /// Saves `state` under `state.run_id`, replacing what was there.
    fn save<'a>(&'a self, state: &'a RunState) -> BoxFuture<'a, Result<(), Error>>;

    /// The run saved under `run_id`, if any.
    fn load<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<Option<RunState>, Error>>;

    /// Forgets the run saved under `run_id`; forgetting an unknown run is not an error.
    fn remove<'a>(&'a self, run_id: &'a str) -> BoxFuture<'a, Result<(), Error>>;
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
