//! A task running in this process: its lease renewed while the call runs, a cancellation
//! from any process sharing the store noticed, and the call's end written to its record.

use std::time::{Duration, SystemTime};

use rmcp::model::ClientCapabilities;
use serde_json::json;
use tokio::task::JoinError;
use toolwire::tasks::{TaskLease, TaskRecord, TaskState};
use toolwire::{FailureKind, Receipt, ToolResult};

use super::super::limits::Permits;
use super::super::{Extras, McpServer, input};
use super::launch::Launched;

/// How many times a write that lost a compare-and-set is tried again.
const MAX_WRITES: usize = 8;

/// Runs task `id`'s call, `launched`, to its end in the background, holding `permits`
/// meanwhile.
pub(crate) fn spawn<H: Extras>(
    server: McpServer<H>,
    id: String,
    launched: Launched,
    capabilities: ClientCapabilities,
    permits: Option<Permits>,
) {
    let tasks = &server.shared.tasks;
    tasks.local.insert(&id, launched.controller.clone());
    tokio::spawn(async move {
        let _permits = permits;
        let ended = watch(&server, &id, launched).await;
        server.shared.tasks.local.remove(&id);
        settle(&server, &id, ended, &capabilities).await;
    });
}

/// Waits for the call to end, renewing the lease; stops the call when the task was
/// cancelled or another process took it over.
async fn watch<H: Extras>(
    server: &McpServer<H>,
    id: &str,
    launched: Launched,
) -> Result<Receipt, JoinError> {
    let Launched { mut handle, controller, mut events } = launched;
    let tasks = &server.shared.tasks;
    let mut renew = tokio::time::interval(renewal_period(tasks.lease));
    renew.tick().await;
    loop {
        tokio::select! {
            ended = &mut handle => return ended,
            _ = renew.tick() => {
                if !renew_lease(server, id).await {
                    controller.abort_with("the task was cancelled or taken over");
                }
            }
            // The request that started the task is gone: nobody hears its events.
            Some(_) = events.recv() => {}
        }
    }
}

/// A third of the lease, so that two renewals may fail before it lapses.
fn renewal_period(lease: Duration) -> Duration {
    (lease / 3).max(Duration::from_millis(10))
}

/// Extends this process's lease; `false` when the task is no longer this process's to run.
/// A store that fails is tried again at the next renewal.
async fn renew_lease<H: Extras>(server: &McpServer<H>, id: &str) -> bool {
    let tasks = &server.shared.tasks;
    for _ in 0..MAX_WRITES {
        let mut record = match tasks.store.get(id).await {
            Ok(Some(record)) => record,
            Ok(None) => return false,
            Err(error) => {
                tracing::warn!(task = id, %error, "could not renew a task's lease");
                return true;
            }
        };
        if !runs_here(&record, &tasks.local.owner) {
            return false;
        }
        record.lease = Some(lease_for(&tasks.local.owner, tasks.lease));
        match tasks.store.update(record).await {
            Ok(true) => return true,
            Ok(false) => continue,
            Err(error) => {
                tracing::warn!(task = id, %error, "could not renew a task's lease");
                return true;
            }
        }
    }
    true
}

/// Whether `record` is a working task leased to `owner`.
pub(crate) fn runs_here(record: &TaskRecord, owner: &str) -> bool {
    matches!(record.state, TaskState::Working)
        && record.lease.as_ref().is_some_and(|lease| lease.owner == owner)
}

/// A lease for `owner`, lasting `lease` from now.
pub(crate) fn lease_for(owner: &str, lease: Duration) -> TaskLease {
    TaskLease::new(owner, SystemTime::now() + lease)
}

/// Writes how the call ended to task `id`, unless the task was cancelled or taken over
/// meanwhile.
async fn settle<H: Extras>(
    server: &McpServer<H>,
    id: &str,
    ended: Result<Receipt, JoinError>,
    capabilities: &ClientCapabilities,
) {
    let tasks = &server.shared.tasks;
    for _ in 0..MAX_WRITES {
        let mut record = match tasks.store.get(id).await {
            Ok(Some(record)) => record,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(task = id, %error, "could not record how a task ended");
                return;
            }
        };
        if !runs_here(&record, &tasks.local.owner) {
            return;
        }
        ended_as(&mut record, &ended, capabilities);
        match tasks.store.update(record).await {
            Ok(true) | Err(_) => return,
            Ok(false) => continue,
        }
    }
}

/// Sets `record` to how its call ended.
pub(crate) fn ended_as(
    record: &mut TaskRecord,
    ended: &Result<Receipt, JoinError>,
    capabilities: &ClientCapabilities,
) {
    record.lease = None;
    record.updated_at = SystemTime::now();
    record.state = match ended {
        Ok(receipt) => state_of(record, &receipt.result, capabilities),
        Err(error) => TaskState::Failed { message: format!("the task's call stopped: {error}") },
    };
}

/// The state a call's `result` leaves its task in; a question is kept with what the client
/// will be asked.
fn state_of(
    record: &mut TaskRecord,
    result: &ToolResult,
    capabilities: &ClientCapabilities,
) -> TaskState {
    if result.failure_kind() == Some(FailureKind::Panic) {
        return TaskState::Failed { message: result.text().unwrap_or("the tool panicked").into() };
    }
    let Some(request) = result.pending_request() else {
        return TaskState::Completed { result: result.clone() };
    };
    match input::input_requests(request, capabilities) {
        Ok(asked) => {
            record.bridge = json!({
                "asked": asked,
                "passthrough": request.kind == input::INPUT_REQUESTS_KIND,
                "answers": {},
            });
            TaskState::InputRequired { request: request.clone() }
        }
        Err(error) => TaskState::Failed {
            message: format!(
                "the task asked {:?}, which the client cannot be asked: {}",
                request.prompt, error.message
            ),
        },
    }
}
