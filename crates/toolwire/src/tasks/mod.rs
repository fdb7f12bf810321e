//! Durable tasks: calls that outlive the request that started them.
//!
//! A bridge that runs a call in the background (an MCP server, for the tasks extension of
//! MCP 2026-07-28) keeps each one as a [`TaskRecord`] in a [`TaskStore`]: what was called,
//! where it stands ([`TaskState`]), which process runs it and until when its lease holds.
//! The record is written before the client hears of the task, and every change after is a
//! compare-and-set on its [`version`](TaskRecord::version), so that processes sharing a
//! store (a journal) agree on who runs a task, who answers it and how it ended.
//!
//! [`MemoryTaskStore`] keeps them in memory, for one process: it loses them on restart.
//! `toolwire-journal`'s `Journal` keeps them in SQLite or PostgreSQL.

mod memory;
mod record;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

pub use memory::{DEFAULT_TASK_CAPACITY, MemoryTaskStore};
pub use record::{TaskLease, TaskRecord, TaskState};

/// Why a [`TaskStore`] could not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStoreError(pub String);

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the task store failed: {}", self.0)
    }
}

impl std::error::Error for TaskStoreError {}

/// The future a [`TaskStore`] method returns.
pub type TaskFuture<T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send>>;

/// Where tasks are kept.
///
/// # Contract
///
/// - [`create`](Self::create) returns only once the record is stored as durably as the store
///   can: a [`get`](Self::get) from any process sharing the store then finds it. An id that
///   is taken is an error.
/// - [`get`](Self::get) returns the record as last written, or `None` for an id never
///   created or whose [`expires_at`](TaskRecord::expires_at) has passed.
/// - [`update`](Self::update) is a compare-and-set: it writes the record only if the stored
///   version is still the record's [`version`](TaskRecord::version), and stores it with that
///   version plus one. Of any number of concurrent updates from one version, in all the
///   processes sharing the store, at most one gets `Ok(true)`; the others get `Ok(false)`
///   and must read again.
/// - When a store cannot tell, it fails ([`TaskStoreError`]); the bridge then fails closed.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task.
    fn create(&self, record: TaskRecord) -> TaskFuture<()>;

    /// The task with `id`, unless it is unknown or has expired.
    fn get(&self, id: &str) -> TaskFuture<Option<TaskRecord>>;

    /// Writes `record` if nothing changed it since it was read; `Ok(false)` when something
    /// did (or it is gone).
    fn update(&self, record: TaskRecord) -> TaskFuture<bool>;
}
