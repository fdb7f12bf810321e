//! A [`TaskRecord`] in the shapes of the tasks extension: the `Task` of a
//! `CreateTaskResult`, and the `DetailedTask` of `tasks/get`.

use std::time::SystemTime;

use rmcp::model::{DetailedTask, InputRequests, JsonObject, Task, TaskPayload, TaskStatus};
use serde_json::{Map, Value, json};
use toolwire::Registry;
use toolwire::tasks::{TaskRecord, TaskState};

use super::super::content;
use super::{POLL_INTERVAL, Tasks};

/// The JSON-RPC code of a task that failed: an internal error.
const FAILED_CODE: i32 = -32603;

/// The task's base fields.
pub(crate) fn task(record: &TaskRecord, tasks: &Tasks) -> Task {
    let status = match record.state {
        TaskState::Working => TaskStatus::Working,
        TaskState::InputRequired { .. } => TaskStatus::InputRequired,
        TaskState::Completed { .. } => TaskStatus::Completed,
        TaskState::Failed { .. } => TaskStatus::Failed,
        TaskState::Cancelled => TaskStatus::Cancelled,
    };
    let ttl = u64::try_from(tasks.ttl.as_millis()).unwrap_or(u64::MAX).max(1);
    let poll = u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(500);
    let mut task = Task::new(
        record.id.clone(),
        status,
        rfc3339(record.created_at),
        rfc3339(record.updated_at),
    )
    .with_ttl_ms(ttl)
    .with_poll_interval_ms(poll);
    if let Some(message) = &record.message {
        task = task.with_status_message(message.clone());
    }
    task
}

/// The task with what its state carries: the questions still open, the result, or the
/// error.
pub(crate) fn detailed(record: &TaskRecord, tasks: &Tasks, registry: &Registry) -> DetailedTask {
    let payload = match &record.state {
        TaskState::Working => TaskPayload::Working,
        TaskState::InputRequired { .. } => {
            TaskPayload::InputRequired { input_requests: outstanding(&record.bridge) }
        }
        TaskState::Completed { result } => TaskPayload::Completed {
            result: object(json!(content::call_result(result, registry.get(&record.tool)))),
        },
        TaskState::Failed { message } => {
            TaskPayload::Failed { error: object(json!({"code": FAILED_CODE, "message": message})) }
        }
        TaskState::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(task(record, tasks), payload)
}

/// The questions asked and not answered yet, from what the server keeps with the task.
pub(crate) fn outstanding(bridge: &Value) -> InputRequests {
    let answered = bridge.get("answers").and_then(Value::as_object);
    let asked = bridge.get("asked").and_then(Value::as_object).cloned().unwrap_or_default();
    let open: Map<String, Value> = asked
        .into_iter()
        .filter(|(key, _)| !answered.is_some_and(|answers| answers.contains_key(key)))
        .collect();
    serde_json::from_value(Value::Object(open)).unwrap_or_default()
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// `time` as RFC 3339, to the millisecond.
fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}
