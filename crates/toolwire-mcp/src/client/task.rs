//! A call the server runs as a task (MCP 2026-07-28, SEP-2663): followed with `tasks/get`
//! until it ends, its status message passed on as progress; its questions answered with
//! `tasks/update`, by the elicitation handler or, as a pending result, by the host; and
//! stopped with `tasks/cancel` when the call is aborted or dropped.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResult, CancelTaskParams, CancelTaskRequest, ClientRequest, GetTaskParams,
    GetTaskRequest, InputRequiredResult, InputResponses, ServerResult, Task, TaskPayload,
    UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::Value;
use toolwire::{FailureKind, ToolContext, ToolResult};

use super::connection::Connection;
use super::input;
use super::meta::input_meta;
use super::result::{Call, bounded, from_error};

/// The polling interval when the server suggests none, and the bounds put on one it does.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(5);

/// Follows the task the server made of the call with `digest` to its end.
pub(crate) async fn follow(
    connection: &Connection,
    call: &Call<'_>,
    task: Task,
    ctx: &ToolContext,
    digest: &str,
) -> ToolResult {
    let poll =
        task.poll_interval_ms.map_or(DEFAULT_POLL, Duration::from_millis).clamp(MIN_POLL, MAX_POLL);
    let mut cancel = CancelOnDrop::new(connection, &task.task_id);
    let result = Follow { connection, call, id: &task.task_id, poll, ctx, digest }.run().await;
    // A task that ended, or waits for the host's answer, is not cancelled.
    if !matches!(result.failure_kind(), Some(FailureKind::Aborted | FailureKind::TimedOut)) {
        cancel.disarm();
    }
    result
}

/// Sends the host's `responses` to the task `id`'s question, then follows it on.
pub(crate) async fn resume(
    connection: &Connection,
    call: &Call<'_>,
    id: String,
    responses: InputResponses,
    ctx: &ToolContext,
    digest: &str,
) -> ToolResult {
    let update = UpdateTaskParams::new(id.clone(), responses);
    if let Err(error) =
        send(connection, ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(update))).await
    {
        return from_error(call, error);
    }
    // Only its id and polling interval matter to `follow`.
    let task = Task::new(id, rmcp::model::TaskStatus::Working, String::new(), String::new());
    follow(connection, call, task, ctx, digest).await
}

/// One task being followed.
struct Follow<'a> {
    connection: &'a Connection,
    call: &'a Call<'a>,
    id: &'a str,
    poll: Duration,
    ctx: &'a ToolContext,
    digest: &'a str,
}

impl Follow<'_> {
    async fn run(&self) -> ToolResult {
        let (server, tool) = (self.call.server, self.call.tool);
        let deadline = Instant::now() + self.connection.options.max_duration;
        loop {
            let get = GetTaskRequest::new(GetTaskParams::new(self.id.to_owned()));
            let detailed = match send(self.connection, ClientRequest::GetTaskRequest(get)).await {
                Ok(ServerResult::GetTaskResult(result)) => result.task,
                Ok(_) => {
                    return ToolResult::failure(format!(
                        "mcp server {server:?} answered tasks/get for the call to {tool:?} with \
                         something other than a task"
                    ));
                }
                Err(error) => return from_error(self.call, error),
            };
            if let Some(message) = &detailed.task.status_message {
                self.ctx.progress(0, None, message);
            }
            match detailed.payload {
                TaskPayload::Working => {}
                TaskPayload::InputRequired { input_requests } => {
                    if let Some(done) = self.answer(input_requests).await {
                        return done;
                    }
                    continue;
                }
                TaskPayload::Completed { result } => return completed(self.call, result),
                TaskPayload::Failed { error } => {
                    let message =
                        error.get("message").and_then(Value::as_str).unwrap_or("no reason given");
                    return ToolResult::failure(format!(
                        "mcp server {server:?} reports that the task of the call to {tool:?} failed: {message}"
                    ));
                }
                TaskPayload::Cancelled => {
                    let text =
                        format!("mcp server {server:?} cancelled the task of the call to {tool:?}");
                    return ToolResult::failed(FailureKind::Aborted, text);
                }
                _ => {
                    return ToolResult::failure(format!(
                        "mcp server {server:?} gave the task of the call to {tool:?} a status this client does not know"
                    ));
                }
            }
            if Instant::now() >= deadline {
                let cap = self.connection.options.max_duration;
                let text = format!(
                    "the task of the call to {tool:?} on mcp server {server:?} ran past its cap of {cap:?}; it was cancelled"
                );
                return ToolResult::failed(FailureKind::TimedOut, text);
            }
            tokio::select! {
                () = tokio::time::sleep(self.poll) => {}
                () = self.ctx.signal().aborted() => {
                    let reason = self.ctx.signal().reason_or_default().to_owned();
                    return ToolResult::failed(FailureKind::Aborted, reason);
                }
            }
        }
    }

    /// Answers the task's questions: by the handler, at once (`None`: follow on), or as a
    /// pending result for the host, whose answer [`resume`] sends.
    async fn answer(&self, requests: rmcp::model::InputRequests) -> Option<ToolResult> {
        let server = self.call.server;
        let asked = InputRequiredResult::new(Some(requests), None);
        match input::next(server, self.connection.side.elicitation.as_ref(), asked).await {
            input::Next::Retry(_, responses) => {
                let update = UpdateTaskParams::new(self.id.to_owned(), responses);
                let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(update));
                match send(self.connection, request).await {
                    Ok(_) => None,
                    Err(error) => Some(from_error(self.call, error)),
                }
            }
            input::Next::Ask(request, parked) => {
                self.connection.rounds.park(self.digest.to_owned(), parked.in_task(self.id));
                Some(ToolResult::pending(*request))
            }
            input::Next::Fail(text) => {
                CancelOnDrop::new(self.connection, self.id);
                Some(ToolResult::failure(text))
            }
        }
    }
}

/// The result a completed task inlines, as a tool result.
fn completed(call: &Call<'_>, result: serde_json::Map<String, Value>) -> ToolResult {
    match serde_json::from_value::<CallToolResult>(Value::Object(result)) {
        Ok(result) => bounded(call, result),
        Err(error) => ToolResult::failure(format!(
            "mcp server {:?} ended the task of the call to {:?} with a result that is not a tool \
             result: {error}",
            call.server, call.tool
        )),
    }
}

/// Sends one `tasks/*` request, with the client's capabilities in its `_meta`.
async fn send(
    connection: &Connection,
    request: ClientRequest,
) -> Result<ServerResult, ServiceError> {
    let mut options = PeerRequestOptions::with_timeout(connection.options.idle_timeout);
    options.meta = input_meta(connection);
    connection.peer.send_request_with_option(request, options).await?.await_response().await
}

/// Sends `tasks/cancel` for a task unless disarmed: when the call is aborted or given up, or
/// its future dropped while it follows the task.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    meta: Option<rmcp::model::RequestMetaObject>,
    id: Option<String>,
}

impl CancelOnDrop {
    fn new(connection: &Connection, id: &str) -> Self {
        Self {
            peer: connection.peer.clone(),
            meta: input_meta(connection),
            id: Some(id.to_owned()),
        }
    }

    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let (peer, meta) = (self.peer.clone(), self.meta.take());
        runtime.spawn(async move {
            let mut options = PeerRequestOptions::no_options();
            options.meta = meta;
            let request =
                ClientRequest::CancelTaskRequest(CancelTaskRequest::new(CancelTaskParams::new(id)));
            match peer.send_request_with_option(request, options).await {
                Ok(handle) => {
                    if let Err(error) = handle.await_response().await {
                        tracing::debug!("tasks/cancel failed: {error}");
                    }
                }
                Err(error) => tracing::debug!("cannot send tasks/cancel: {error}"),
            }
        });
    }
}
