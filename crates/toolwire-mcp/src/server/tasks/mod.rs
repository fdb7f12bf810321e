//! Long-running calls as durable tasks: the tasks extension of MCP 2026-07-28
//! (`io.modelcontextprotocol/tasks`, SEP-2663).
//!
//! A call of a tool whose [`TaskSupport`](toolwire::TaskSupport) is `Optional` or `Required`,
//! from a client that declared the extension, runs in the background. If it ends (or asks
//! for input) within the server's [grace period](super::McpServer::task_grace), the client
//! gets its result (or `InputRequiredResult`) as usual; a `Required` tool's result is then a
//! task already completed. Past the grace period the call becomes a task: its record is
//! written to the server's [`TaskStore`] before the client hears of it, and the client
//! follows it with `tasks/get`, answers its questions with `tasks/update` and stops it with
//! `tasks/cancel`.
//!
//! - Every task belongs to the client that started it (the keyed hash of its bearer token):
//!   another client's `tasks/*` for it is answered as for an unknown task, `-32602`.
//! - The process running a task holds a lease on it and renews it. When a `tasks/get` finds
//!   a lease lapsed (the process stopped), the task is taken over: run again when the tool
//!   is idempotent and no answer was spent on it, or failed as "outcome unknown".
//! - An answer completes a question once: the task leaves `input_required` by a
//!   compare-and-set, so of two `tasks/update`s racing with the last answer, one resumes
//!   the call and the other is acknowledged and ignored.

mod launch;
mod methods;
mod runner;
mod start;
mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolwire::AbortController;
use toolwire::tasks::{MemoryTaskStore, TaskStore};

use super::request_state::nonce;

pub(crate) use methods::{cancel, get, update};
pub(crate) use start::start;

/// How long a call of a task-supporting tool runs within its request before it becomes a
/// task, by default.
pub const DEFAULT_TASK_GRACE: Duration = Duration::from_millis(100);
/// How long a task is kept after it is created, by default: one hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);
/// How long a process's claim on a running task lasts unless renewed, by default.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(30);
/// How often clients are asked to poll a task.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// A server's task settings, and what its sessions share: the store and the calls running
/// here.
#[derive(Clone)]
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) grace: Duration,
    pub(crate) ttl: Duration,
    pub(crate) lease: Duration,
    pub(crate) local: Arc<Local>,
    /// Whether calls that wait for input without a task are kept in the store too, for the
    /// host to answer.
    pub(crate) host_answers: bool,
}

impl Tasks {
    pub(crate) fn new() -> Self {
        Self {
            store: Arc::new(MemoryTaskStore::new()),
            grace: DEFAULT_TASK_GRACE,
            ttl: DEFAULT_TASK_TTL,
            lease: DEFAULT_TASK_LEASE,
            local: Arc::new(Local::new()),
            host_answers: false,
        }
    }
}

/// This process's part: its lease owner id, and the tasks it runs now.
pub(crate) struct Local {
    pub(crate) owner: String,
    running: Mutex<HashMap<String, AbortController>>,
}

impl Local {
    fn new() -> Self {
        Self { owner: format!("mcp-server-{}", nonce()), running: Mutex::new(HashMap::new()) }
    }

    /// Notes that task `id` runs here, stopped by `controller`.
    pub(crate) fn insert(&self, id: &str, controller: AbortController) {
        if let Ok(mut running) = self.running.lock() {
            running.insert(id.to_owned(), controller);
        }
    }

    /// Notes that task `id` no longer runs here.
    pub(crate) fn remove(&self, id: &str) {
        if let Ok(mut running) = self.running.lock() {
            running.remove(id);
        }
    }

    /// Whether task `id` runs here.
    pub(crate) fn runs(&self, id: &str) -> bool {
        self.running.lock().is_ok_and(|running| running.contains_key(id))
    }

    /// Stops task `id`, if it runs here.
    pub(crate) fn abort(&self, id: &str) {
        let controller = self.running.lock().ok().and_then(|mut running| running.remove(id));
        if let Some(controller) = controller {
            controller.abort_with("the client cancelled the task");
        }
    }
}
