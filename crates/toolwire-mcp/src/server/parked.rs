//! Calls that wait for input on MCP 2026-07-28 without a task, kept for the host to answer.
//!
//! With [`McpServer::host_answers`](super::McpServer::host_answers), a call that returns an
//! `InputRequiredResult` is also written to the server's task store, as a record that only the
//! host sees: `tasks/get` and the other task methods refuse it as an unknown task. The host
//! answers it there (`toolwire approvals answer` writes
//! [`TaskRecord::host_answer`](toolwire::tasks::TaskRecord::host_answer)), and the client's
//! retry, with the sealed `requestState`, then runs with the host's answer, whatever its own
//! `inputResponses` say. The state stays what ties the retry to the call: it is checked and
//! spent first, as for any retry. Without a retry nothing runs; the record expires with the
//! state.

use std::time::SystemTime;

use serde_json::Value;
use toolwire::tasks::{TaskRecord, TaskState};
use toolwire::{Answer, CallId, Request};

use super::Shared;

/// How the ids of parked calls' records begin; a client's tasks begin otherwise.
const PREFIX: &str = "twp-";

/// The id of the record of the call that asked the request `request_id`.
fn id_of(request_id: &str) -> String {
    format!("{PREFIX}{request_id}")
}

/// Whether the task-store record `id` is a call parked for the host's answer (see
/// [`McpServer::host_answers`](super::McpServer::host_answers)) rather than a client's task:
/// its client's retry runs it, not a `tasks/get`. The server makes every id, so a client
/// cannot give a task this shape.
pub fn is_parked_call(id: &str) -> bool {
    id.starts_with(PREFIX)
}

/// What a parked call's record is made of.
pub(crate) struct Parked<'a> {
    pub(crate) tool: &'a str,
    pub(crate) call_id: &'a CallId,
    pub(crate) principal: Option<String>,
    pub(crate) request: &'a Request,
}

/// Keeps `parked` in the task store, for as long as its state lives. A store that refuses it
/// is logged: the client can still answer, only the host cannot. The record holds no
/// arguments: the client's retry brings them, and the request shows the human what it asks
/// (an approval's request carries the call's arguments).
pub(crate) async fn keep<H>(shared: &Shared<H>, parked: Parked<'_>) {
    let (id, call_id) = (id_of(&parked.request.id), parked.call_id.to_string());
    let mut record = TaskRecord::new(id, parked.tool, Value::Null, call_id, shared.state_ttl)
        .with_state(TaskState::InputRequired { request: parked.request.clone() });
    record.principal = parked.principal;
    if let Err(error) = shared.tasks.store.create(record).await {
        tracing::warn!(tool = parked.tool, %error, "a parked call was not kept for the host");
    }
}

/// The host's answer to the request `request_id`, if it gave one. The record ends here either
/// way, since the retry that asks spent the call's state: it no longer waits for the host.
pub(crate) async fn take_answer<H>(shared: &Shared<H>, request_id: &str) -> Option<Answer> {
    let store = &shared.tasks.store;
    let mut record = store.get(&id_of(request_id)).await.ok().flatten()?;
    let answer = record.host_answer.take();
    record.state = TaskState::Cancelled;
    record.message = Some("the client's retry resumed the call".to_owned());
    record.updated_at = SystemTime::now();
    if let Err(error) = store.update(record).await {
        tracing::warn!(%error, "a parked call's record was not ended");
    }
    answer
}
