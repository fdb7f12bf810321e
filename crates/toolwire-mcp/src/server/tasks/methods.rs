//! `tasks/get`, `tasks/update` and `tasks/cancel`.

use std::time::SystemTime;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CancelTaskParams, ClientCapabilities, GetTaskParams, GetTaskResult, InputResponses,
    UpdateTaskParams,
};
use rmcp::service::RequestContext;
use serde_json::Value;
use toolwire::tasks::{TaskRecord, TaskState};
use toolwire::{Answer, CallId};

use super::super::{Extras, McpServer, input, limits, mrtr, parked};
use super::launch::launch;
use super::runner::{self, lease_for};
use super::wire;

/// How many times a change that lost a compare-and-set is tried again.
const MAX_WRITES: usize = 8;

/// `tasks/get`: the task as it stands, taken over first when the process running it
/// stopped.
pub(crate) async fn get<H: Extras>(
    server: &McpServer<H>,
    params: GetTaskParams,
    ctx: RequestContext<RoleServer>,
) -> Result<GetTaskResult, ErrorData> {
    let mut record = find(server, &params.task_id, &ctx).await?;
    if lapsed(server, &record) {
        take_over(server, &mut record).await?;
    }
    if let (TaskState::InputRequired { .. }, Some(answer)) = (&record.state, &record.host_answer) {
        // The host answered the question itself, outside MCP: the call resumes with that.
        let (answer, capabilities) =
            (answer.clone(), ctx.client_capabilities().unwrap_or_default());
        let mut next = record.clone();
        next.host_answer = None;
        let principal = mrtr::Client::principal(&ctx);
        if resume(server, next, answer, capabilities, principal).await? {
            record = find(server, &params.task_id, &ctx).await?;
        }
    }
    Ok(GetTaskResult::new(wire::detailed(&record, &server.shared.tasks, &server.shared.registry)))
}

/// Resumes the call of `record`, a task waiting for input, with `answer`, here: `false` when
/// the task changed meanwhile, and nothing was done.
async fn resume<H: Extras>(
    server: &McpServer<H>,
    mut record: TaskRecord,
    answer: Answer,
    capabilities: ClientCapabilities,
    principal: Option<toolwire::Principal>,
) -> Result<bool, ErrorData> {
    let permits = limits::admit(&server.session.calls, &server.shared.limits)
        .map_err(|why| ErrorData::internal_error(why, None))?;
    let tasks = &server.shared.tasks;
    record.state = TaskState::Working;
    record.lease = Some(lease_for(&tasks.local.owner, tasks.lease));
    record.answered = true;
    record.bridge = Value::Null;
    let id = record.id.clone();
    let (tool, arguments, call_id) =
        (record.tool.clone(), record.arguments.clone(), CallId::from(record.call_id.clone()));
    if !write(server, record).await? {
        return Ok(false);
    }
    let launched = launch(server, &tool, arguments, call_id, Some(answer), principal);
    runner::spawn(server.clone(), id, launched, capabilities, Some(permits));
    Ok(true)
}

/// `tasks/update`: answers to the task's open questions. Keys it did not ask, or asked and
/// had answered already, are ignored; once every question has its answer, the call
/// resumes with them.
pub(crate) async fn update<H: Extras>(
    server: &McpServer<H>,
    params: UpdateTaskParams,
    ctx: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    for key in params.input_responses.keys() {
        let response = &params.input_responses[key];
        if !response.is_object() {
            return Err(invalid(format!("inputResponses.{} is not a result object", clip(key))));
        }
    }
    for _ in 0..MAX_WRITES {
        let mut record = find(server, &params.task_id, &ctx).await?;
        let TaskState::InputRequired { request } = &record.state else {
            // Nothing is asked: an answer that came late, or twice.
            return Ok(());
        };
        let request = request.clone();
        let Some(answers) = merge(&mut record.bridge, &params.input_responses) else {
            return Ok(());
        };
        let open = wire::outstanding(&record.bridge);
        if !open.is_empty() {
            if write(server, record).await? {
                return Ok(());
            }
            continue;
        }
        let keys: Vec<String> = answers.keys().cloned().collect();
        let passthrough = record.bridge.get("passthrough").and_then(Value::as_bool) == Some(true);
        let Some(answer) = input::answer(&request.id, &keys, passthrough, Some(&answers))? else {
            return Ok(());
        };
        let capabilities = ctx.client_capabilities().unwrap_or_default();
        let principal = mrtr::Client::principal(&ctx);
        if resume(server, record, answer, capabilities, principal).await? {
            return Ok(());
        }
    }
    Err(busy())
}

/// `tasks/cancel`: stops the task, wherever it runs. A task that has ended stays as it
/// ended, and the cancellation is acknowledged all the same.
pub(crate) async fn cancel<H: Extras>(
    server: &McpServer<H>,
    params: CancelTaskParams,
    ctx: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    for _ in 0..MAX_WRITES {
        let mut record = find(server, &params.task_id, &ctx).await?;
        if record.state.is_terminal() {
            return Ok(());
        }
        record.state = TaskState::Cancelled;
        record.lease = None;
        if write(server, record).await? {
            // Here, the call stops now; elsewhere, at its next lease renewal.
            server.shared.tasks.local.abort(&params.task_id);
            return Ok(());
        }
    }
    Err(busy())
}

/// The task `id`, if it exists and belongs to the client asking; a task of another client
/// is refused as an unknown one, so that its existence is not told.
async fn find<H: Extras>(
    server: &McpServer<H>,
    id: &str,
    ctx: &RequestContext<RoleServer>,
) -> Result<TaskRecord, ErrorData> {
    let unknown = || invalid(format!("unknown task {:?}", clip(id)));
    let found = server.shared.tasks.store.get(id).await.map_err(|error| {
        ErrorData::internal_error(format!("the task could not be read: {error}"), None)
    })?;
    let record = found.ok_or_else(unknown)?;
    // A call parked for the host is not a task of the client's.
    if record.principal != mrtr::principal(&server.shared.registry, ctx)
        || parked::is_parked_call(&record.id)
    {
        return Err(unknown());
    }
    Ok(record)
}

/// Whether `record` is a working task whose process stopped renewing its lease.
fn lapsed<H: Extras>(server: &McpServer<H>, record: &TaskRecord) -> bool {
    let lease_lapsed = record.lease.as_ref().is_none_or(|lease| lease.until <= SystemTime::now());
    matches!(record.state, TaskState::Working)
        && lease_lapsed
        && !server.shared.tasks.local.runs(&record.id)
}

/// Takes over a task whose process stopped: its call runs again here when the tool is
/// idempotent and no answer was spent on it; otherwise whether it took effect is unknown,
/// and the task fails saying so. `record` becomes the task as it now stands.
async fn take_over<H: Extras>(
    server: &McpServer<H>,
    record: &mut TaskRecord,
) -> Result<(), ErrorData> {
    let tasks = &server.shared.tasks;
    let idempotent =
        server.shared.registry.get(&record.tool).is_some_and(|tool| tool.is_idempotent());
    let mut next = record.clone();
    next.updated_at = SystemTime::now();
    let rerun = idempotent && !record.answered;
    if rerun {
        next.lease = Some(lease_for(&tasks.local.owner, tasks.lease));
    } else {
        next.lease = None;
        next.state = TaskState::Failed {
            message: format!(
                "the server running this task stopped before the call of {:?} ended; whether \
                 it took effect is unknown",
                record.tool
            ),
        };
    }
    if !write(server, next.clone()).await? {
        // Another process took it over first: report the task as that left it.
        if let Ok(Some(now)) = tasks.store.get(&record.id).await {
            *record = now;
        }
        return Ok(());
    }
    next.version += 1;
    if rerun {
        let call_id = CallId::from(next.call_id.clone());
        // A task taken over from a stopped server runs with no principal: its record keeps
        // the client's credential hash, not its name.
        let launched = launch(server, &next.tool, next.arguments.clone(), call_id, None, None);
        runner::spawn(
            server.clone(),
            next.id.clone(),
            launched,
            ClientCapabilities::default(),
            None,
        );
    }
    *record = next;
    Ok(())
}

/// Records the responses to questions still open in `bridge`; `None` when none was. The
/// answers so far, all of them, otherwise.
fn merge(bridge: &mut Value, responses: &InputResponses) -> Option<InputResponses> {
    let open = wire::outstanding(bridge);
    let answers = bridge.get_mut("answers")?.as_object_mut()?;
    let mut changed = false;
    for (key, response) in responses {
        if open.contains_key(key) {
            answers.insert(key.clone(), response.clone());
            changed = true;
        }
    }
    changed.then(|| answers.iter().map(|(key, value)| (key.clone(), value.clone())).collect())
}

/// Writes `record` by compare-and-set: `Ok(false)` when it changed meanwhile.
async fn write<H: Extras>(
    server: &McpServer<H>,
    mut record: TaskRecord,
) -> Result<bool, ErrorData> {
    record.updated_at = SystemTime::now();
    server.shared.tasks.store.update(record).await.map_err(|error| {
        ErrorData::internal_error(format!("the task could not be written: {error}"), None)
    })
}

fn invalid(why: String) -> ErrorData {
    ErrorData::invalid_params(why, None)
}

fn busy() -> ErrorData {
    ErrorData::internal_error("the task changed too often to be updated; try again", None)
}

fn clip(text: &str) -> String {
    text.chars().take(128).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn merge_keeps_only_answers_to_open_questions() {
        let mut bridge = json!({
            "asked": {"a": {"method": "roots/list"}, "b": {"method": "roots/list"}},
            "answers": {"a": {"roots": []}},
        });
        let responses: InputResponses = [
            ("a".to_owned(), json!({"roots": [1]})),
            ("b".to_owned(), json!({"roots": [2]})),
            ("c".to_owned(), json!({})),
        ]
        .into_iter()
        .collect();
        let answers = merge(&mut bridge, &responses).expect("b was open");
        assert_eq!(answers.len(), 2);
        assert_eq!(answers["a"], json!({"roots": []}), "an answered question keeps its answer");
        assert_eq!(answers["b"], json!({"roots": [2]}));
        assert!(!bridge["answers"].as_object().is_some_and(|a| a.contains_key("c")));
    }
}
