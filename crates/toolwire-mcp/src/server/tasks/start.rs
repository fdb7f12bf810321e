//! A `tools/call` of a task-supporting tool from a client that follows tasks: the call
//! starts in the background, and becomes a task unless it ends (or asks for input) within
//! the grace period.

use std::pin::pin;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{CallToolResponse, CreateTaskResult};
use rmcp::service::RequestContext;
use serde_json::Value;
use tokio::task::JoinError;
use toolwire::tasks::TaskRecord;
use toolwire::{CallId, Receipt, TaskSupport};

use super::super::limits::Permits;
use super::super::request_state::nonce;
use super::super::round::Call;
use super::super::{Extras, mrtr};
use super::launch::{Launched, launch};
use super::runner::{self, ended_as, lease_for};
use super::wire;

/// The kind of the request a policy makes when a call needs approval.
const APPROVAL_KIND: &str = "approval";

/// Runs the call, as a task when it takes longer than the grace period, or when it waits for
/// an approval. A `Required` tool's
/// call is always a task, unless it asks for input within the grace period: that question
/// is put as for any call (SEP-2322), and the retry that answers it starts the task.
pub(crate) async fn start<H: Extras>(
    call: &Call<'_, H>,
    retry: mrtr::Retry,
    ctx: &RequestContext<RoleServer>,
    arguments: Value,
    permits: Permits,
) -> Result<CallToolResponse, ErrorData> {
    let (call_id, answer) = mrtr::begin(call, retry, ctx, &arguments).await?;
    let answered = answer.is_some();
    let principal = call.principal.clone();
    let mut launched =
        launch(call.server, call.name, arguments.clone(), call_id.clone(), answer, principal);
    let tasks = &call.server.shared.tasks;
    let mut grace = pin!(tokio::time::sleep(tasks.grace));
    let ended = loop {
        tokio::select! {
            biased;
            ended = &mut launched.handle => break Some(ended),
            Some(event) = launched.events.recv() => call.forwarder.forward(event).await,
            () = ctx.ct.cancelled() => {
                // The client gave up on the request before it became a task.
                launched.controller.abort_with("the client cancelled the request");
                break Some((&mut launched.handle).await);
            }
            () = &mut grace => break None,
        }
    };
    let start = Start { call, ctx, call_id, arguments, answered };
    match ended {
        Some(ended) => start.ended(ended).await,
        None => start.becomes_task(launched, permits).await,
    }
}

/// What a task made from the call needs to know of it.
struct Start<'c, 'a, H> {
    call: &'c Call<'a, H>,
    ctx: &'c RequestContext<RoleServer>,
    call_id: CallId,
    arguments: Value,
    answered: bool,
}

impl<H: Extras> Start<'_, '_, H> {
    /// The call ended within the grace period.
    async fn ended(self, ended: Result<Receipt, JoinError>) -> Result<CallToolResponse, ErrorData> {
        let receipt = ended.map_err(|error| {
            ErrorData::internal_error(format!("the call stopped: {error}"), None)
        })?;
        match receipt.result.pending_request() {
            // A handler's own question is put at once, as for any call (SEP-2322).
            Some(request) if request.kind != APPROVAL_KIND => {
                return mrtr::input_required(self.call, self.ctx, &self.call_id, request);
            }
            // An approval waits on a human, who may take hours and answer from elsewhere
            // (`toolwire approvals answer`): the call becomes a task that waits for it.
            Some(_) => {}
            None => {
                let tool = self.call.server.shared.registry.get(self.call.name);
                if tool.is_none_or(|tool| tool.task_support() != TaskSupport::Required) {
                    return Ok(self.call.result(&receipt.result));
                }
                // A tool that requires a task gets one, already ended.
            }
        }
        let mut record = self.record();
        let capabilities = self.ctx.client_capabilities().unwrap_or_default();
        ended_as(&mut record, &Ok(receipt), &capabilities);
        self.create(record).await
    }

    /// The call is still running: it becomes a task, run on in the background.
    async fn becomes_task(
        self,
        launched: Launched,
        permits: Permits,
    ) -> Result<CallToolResponse, ErrorData> {
        let server = self.call.server.clone();
        let tasks = &server.shared.tasks;
        let mut record = self.record();
        record.lease = Some(lease_for(&tasks.local.owner, tasks.lease));
        let id = record.id.clone();
        let capabilities = self.ctx.client_capabilities().unwrap_or_default();
        let created = self.create(record).await;
        match &created {
            Ok(_) => runner::spawn(server, id, launched, capabilities, Some(permits)),
            Err(_) => launched.controller.abort_with("the task could not be stored"),
        }
        created
    }

    /// A new task for the call, working.
    fn record(&self) -> TaskRecord {
        let shared = &self.call.server.shared;
        let (id, call_id) = (format!("twt-{}", nonce()), self.call_id.to_string());
        let arguments = self.arguments.clone();
        let mut record = TaskRecord::new(id, self.call.name, arguments, call_id, shared.tasks.ttl)
            .with_answered(self.answered);
        record.principal = mrtr::principal(&shared.registry, self.ctx);
        record
    }

    /// Stores `record`, and only then tells the client of it.
    async fn create(&self, record: TaskRecord) -> Result<CallToolResponse, ErrorData> {
        let tasks = &self.call.server.shared.tasks;
        let task = wire::task(&record, tasks);
        tasks.store.create(record).await.map_err(|error| {
            ErrorData::internal_error(format!("the task could not be stored: {error}"), None)
        })?;
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }
}
